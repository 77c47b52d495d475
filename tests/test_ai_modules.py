"""The AI adapters with the Big Box modules (docs/ai.md, "The Big Box modules"): the action index and observation per
board and module set (a game without the modules keeps its own), every legal move of a module game mapped to exactly
one index and back, the modules' observation fields against a plain reference, the mission cards hidden from the
other seats (observations, PettingZoo, Gymnasium, OpenSpiel's tensors and strings, its resampling), and the
libraries' own checks (PettingZoo's api_test and seed_test, Gymnasium's check_env, OpenSpiel's random_sim_test) on
a game with all three modules."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from hansa.ai.actions import MODULE_FAMILIES, MODULES, ActionIndex, game_modules
from hansa.ai.observation import (
    MODULE_FIELDS,
    PLAYER_FEATURES,
    SLOTS,
    observe,
    observe_graph,
    spec_for,
    spec_for_side,
    spec_for_state,
)
from hansa.core.constants import MISSION_CARDS, TILE_CODES
from hansa.core.errors import InvalidOptionError
from hansa.core.moves import Exchange, Move, Place, Shift, TakeTile, TakeTribute, UseExchange
from hansa.core.position import Phase
from hansa.core.state import GameState
from module_play import ALL, MODULE_CONFIGS, MODULE_IDS, PROMO, module_positions, other_cards
from test_ai_observation import reference_observe

DOCS = Path(__file__).resolve().parents[1] / "docs" / "ai.md"
FAVOUR_PROMO = ("emperors_favour", "marker_supply")
#: The module families every configuration's games meet.
MODULE_MOVES = {name for name, _ in MODULE_FAMILIES}


# ---------------------------------------------------------------------------------------------- action index


def test_games_without_the_modules_keep_their_index_and_observation() -> None:
    """The base and expansion sides' index and observation are the very objects of a game without the modules."""
    for players, options in ((3, {}), (4, {}), (2, {"two_player_variant": "pawn"}), (3, {"map": "east"}),
                             (4, {"map": "britannia"})):
        state = GameState.new(players, 1, options)
        assert game_modules(state.options) == ()
        assert ActionIndex.for_state(state) is ActionIndex.for_side(state.board.side)
        assert spec_for_state(state) is spec_for(state.board)
        assert "+" not in ActionIndex.for_state(state).fingerprint
    assert ActionIndex.for_side("2-3").fingerprint == "hansa-actions/1/2-3/2810/cc176f9776f8b426"
    assert (spec_for_side("2-3").size, spec_for_side("4-5").size) == (3006, 3155)


def test_module_families_per_module_set() -> None:
    """The module families follow the base (and expansion) ones; each is empty when its module is off; the
    fingerprint names the board side and the modules, and differs for every module set."""
    base = ActionIndex.for_side("2-3")
    prints = {base.fingerprint}
    for modules in (("missions",), ("emperors_favour",), ("marker_supply",), FAVOUR_PROMO, tuple(MODULES)):
        actions = ActionIndex.for_side("2-3", modules)
        assert actions.modules == modules and actions.config == "2-3+" + "+".join(modules)
        assert actions.fingerprint.startswith(f"hansa-actions/1/{actions.config}/{actions.size}/")
        names = list(actions.families)
        assert names[: len(base.families)] == list(base.families)
        assert names[len(base.families) :] == [name for name, _ in MODULE_FAMILIES]
        for name in base.families:  # the base families keep their place
            assert actions.families[name] == base.families[name]
        assert actions.labels[: base.size] == base.labels
        favour, promo = "emperors_favour" in modules, "marker_supply" in modules
        sizes = {name: len(actions.families[name]) for name, _ in MODULE_FAMILIES}
        assert sizes == {
            "tile": 6 * (45 if promo else 21) * favour, "share": 2 * favour, "tribute": 6 * promo,
            "use-tribute": 32 * promo, "use-block": 32 * promo, "use-exchange": 45 * promo, "place-pay": 1010 * promo,
        }
        prints.add(actions.fingerprint)
        with pytest.raises(ValueError, match="mismatch"):
            actions.check(base.fingerprint)
    assert len(prints) == 6
    assert ActionIndex.for_side("2-3", ["marker_supply", "missions"]) is ActionIndex.for_side("2-3", ("missions", "marker_supply"))
    # Pinned: a model trained with all three modules on the 2-3 side depends on this enumeration.
    assert ActionIndex.for_side("2-3", MODULES).fingerprint == (
        "hansa-actions/1/2-3+missions+emperors_favour+marker_supply/4207/2c5838938a5f4362"
    )
    with pytest.raises(ValueError, match="unknown module"):
        ActionIndex.for_side("2-3", ("favour",))


@pytest.mark.parametrize("side", ["2-3", "4-5", "east", "britannia_3", "britannia_45"])
def test_every_module_index_decodes_and_encodes_back(side: str) -> None:
    actions = ActionIndex.for_side(side, MODULES if side in ("2-3", "4-5") else FAVOUR_PROMO)
    assert actions.size == sum(len(r) for r in actions.families.values())
    assert len(set(actions.labels)) == actions.size
    for name, _ in MODULE_FAMILIES:
        for i in actions.families[name]:
            move = actions.move(i)
            assert move is not None and actions.index(move) == i and move.text() == actions.labels[i]
    # A tile's markers in either order are one action (the engine names them in MARKER_NAMES order).
    i = actions.index(TakeTile("F-ACT", "improve", "+3"))
    assert actions.labels[i] == "tile F-ACT +3 improve"
    assert actions.family_of(actions.index(Place(actions.board.house_names[0], "M", "TM"))) == "place-pay"
    assert actions.family_of(actions.index(UseExchange(4, "block"))) == "use-exchange"
    assert actions.family_of(actions.index(TakeTribute(0, 0))) == "tribute"


def check_round_trip(actions: ActionIndex, state: GameState, moves: list[Move], met: dict[str, int]) -> None:
    """The mask is exactly the legal moves; every legal move has one index (two for a shift or an exchange) that
    decodes to it, and no two legal moves share one."""
    firsts: set[int] = set()
    seconds: dict[int, set[int]] = {}
    seen: set[tuple[int, ...]] = set()
    for m in moves:
        ix = actions.indices(m)
        assert ix not in seen, f"two legal moves share {ix}"
        seen.add(ix)
        back = actions.move(ix[0]) if len(ix) == 1 else actions.move(ix[1], ix[0])
        assert back == m, (m, back)
        firsts.add(ix[0])
        if isinstance(m, Shift | Exchange):
            seconds.setdefault(ix[0], set()).add(ix[1])
        family = actions.family_of(ix[0])
        met[family] = met.get(family, 0) + 1
    mask = actions.mask(state, moves=moves)
    assert set(np.flatnonzero(mask).tolist()) == firsts, f"phase {state.phase.name}"
    for src, dst in seconds.items():
        assert set(actions.legal(state, src, moves=moves)) == dst


@pytest.mark.parametrize(("players", "options"), MODULE_CONFIGS, ids=MODULE_IDS)
def test_every_legal_move_of_a_module_game_maps_to_one_index_and_back(players: int, options: dict) -> None:
    """Random games with the modules (tiles taken and promo markers used eagerly, and rigged F-INC shares and
    tribute payments): at every position the mask equals the legal moves, and every legal move round-trips."""
    met: dict[str, int] = {}
    phases: set[Phase] = set()
    for seed in range(2):
        for state in module_positions(players, options, seed, limit=1500):
            actions = ActionIndex.for_state(state)
            assert actions.modules == game_modules(state.options)
            check_round_trip(actions, state, state.legal_moves(), met)
            phases.add(state.phase)
    assert MODULE_MOVES <= set(met), f"never met: {MODULE_MOVES - set(met)}"
    assert {Phase.SHARE, Phase.TRIBUTE} <= phases


# ---------------------------------------------------------------------------------------------- observation


@pytest.mark.parametrize("modules", [("missions",), FAVOUR_PROMO, tuple(MODULES)], ids=["missions", "favour-promo", "all"])
@pytest.mark.parametrize("side", ["2-3", "4-5", "east"])
def test_module_layout_is_contiguous_and_documented(side: str, modules: tuple[str, ...]) -> None:
    if side == "east":
        modules = tuple(m for m in modules if m != "missions") or FAVOUR_PROMO
    spec = spec_for_side(side, modules)
    plain = spec_for_side(side)
    names = [f.name for f in spec.fields]
    assert names == [f.name for f in plain.fields] + [name for name, _ in MODULE_FIELDS]
    position = 0
    for field in spec.fields:
        assert field.start == position
        position += field.size
    assert position == spec.size
    docs = DOCS.read_text(encoding="utf-8")
    for name, _ in MODULE_FIELDS:
        assert f"`{name}`" in docs, f"docs/ai.md does not describe the field {name}"
    assert spec.field("phase").size == 12
    promo = "marker_supply" in modules
    assert spec.field("route_markers").size == plain.routes * (10 if promo else 7)
    sizes = {f.name: f.size for f in spec.fields}
    missions, favour = "missions" in modules, "emperors_favour" in modules
    assert sizes["mission"] == 9 * missions and sizes["mission_cities"] == plain.cities * missions
    assert sizes["favour_tiles"] == 42 * favour and sizes["route_blocks"] == plain.routes * SLOTS * promo


@pytest.mark.parametrize(("players", "options"), MODULE_CONFIGS, ids=MODULE_IDS)
def test_module_observation_equals_the_plain_reference(players: int, options: dict) -> None:
    """observe() of a module game equals the plain reference for every seat, its values are finite and within the
    declared bounds, and the module fields really show the module state."""
    seen: set[str] = set()
    for state in module_positions(players, options, seed=players + 5, every=4, limit=1200):
        spec = spec_for_state(state)
        for seat in range(players):
            obs = observe(state, seat)
            assert np.array_equal(obs, reference_observe(state, seat)), (seat, state.phase)
            assert np.isfinite(obs).all() and obs.min() >= 0 and obs.max() <= 64
            for name in ("favour_tiles", "facedown", "promo_markers", "used_by_type", "route_tributes",
                         "route_blocks", "tribute_due"):
                if spec.view(obs, name).any():
                    seen.add(name)
        graph = observe_graph(state, 0)
        assert graph["players"].shape == (SLOTS, len(PLAYER_FEATURES) + 1 + 3 + 9 + 1)
        assert graph["routes"].shape[0] == spec.routes and graph["cities"].shape[0] == spec.cities
    assert {"favour_tiles", "route_tributes", "tribute_due"} <= seen


def test_the_observer_sees_its_own_mission_card() -> None:
    state = GameState.new(4, 3, ALL)
    spec = spec_for_state(state)
    for seat in range(4):
        obs = observe(state, seat)
        card = state.missions[seat]
        assert spec.view(obs, "mission").tolist() == [float(c == card) for c in sorted(MISSION_CARDS)]
        cities = [state.board.cities[i].code for i in np.flatnonzero(spec.view(obs, "mission_cities"))]
        assert sorted(cities) == sorted(MISSION_CARDS[card])
    assert spec.view(observe(state, 0), "modules").tolist() == [1.0, 1.0, 1.0]
    tiles = spec.view(observe(state, 0), "favour_tiles").reshape(len(TILE_CODES), 7)
    assert tiles.sum() == len(TILE_CODES) and tiles[:, 1].sum() == 4  # four tiles on the display, two out


# ---------------------------------------------------------------------------------------------- hidden information


def hidden_pairs(players: int, seed: int, every: int = 9) -> Any:
    """(position, seat, the position with every other seat's mission card changed) over a game with the modules."""
    rng = random.Random(seed)
    for state in module_positions(players, ALL, seed, every=every, limit=600):
        for seat in range(players):
            yield state, seat, other_cards(state, seat, rng)


@pytest.mark.parametrize("players", [2, 3, 5])
def test_other_seats_cards_never_change_an_observation(players: int) -> None:
    """For seat p, two positions that differ only in the other seats' mission cards give identical observations,
    flat and as a graph; a change of p's own card does change p's."""
    n = 0
    for state, seat, other in hidden_pairs(players, seed=players):
        assert other.missions != state.missions and other.missions[seat] == state.missions[seat]
        assert np.array_equal(observe(state, seat), observe(other, seat))
        ga, gb = observe_graph(state, seat), observe_graph(other, seat)
        assert all(np.array_equal(ga[k], gb[k]) for k in ga if k != "edges")
        for q in range(players):  # the seats whose cards changed see the change
            if q != seat:
                assert not np.array_equal(observe(state, q), observe(other, q))
        # A determinization for the seat (hidden markers and the others' cards dealt again) looks the same to it.
        world = state.determinized(random.Random(n), viewer=seat)
        assert world.missions[seat] == state.missions[seat]
        assert np.array_equal(observe(state, seat), observe(world, seat))
        n += 1
    assert n > 20


# ---------------------------------------------------------------------------------------------- PettingZoo, Gymnasium


def test_pettingzoo_and_gymnasium_with_the_modules() -> None:
    """PettingZoo's api_test and seed_test and Gymnasium's check_env on a 3-player game with all three modules."""
    pytest.importorskip("pettingzoo", reason="the rl extra is not installed")
    from gymnasium.utils.env_checker import check_env
    from pettingzoo.test import api_test, seed_test

    from hansa.ai.gym_env import HansaEnv
    from hansa.ai.pettingzoo_env import env

    e = env(players=3, options=ALL, max_moves=600)
    assert e.unwrapped.actions is ActionIndex.for_side("2-3", MODULES)
    assert e.unwrapped.obs_spec is spec_for_side("2-3", MODULES)
    api_test(e, num_cycles=400)
    seed_test(lambda: env(players=3, options=ALL, max_moves=300), num_cycles=200)
    g = HansaEnv(players=3, opponents="random", options=ALL, max_moves=2000)
    assert g.observation_space["observation"].shape == (spec_for_side("2-3", MODULES).size,)
    assert g.action_space.n == ActionIndex.for_side("2-3", MODULES).size
    check_env(g)


def test_pettingzoo_and_gymnasium_observations_hide_the_other_cards() -> None:
    pytest.importorskip("pettingzoo", reason="the rl extra is not installed")
    from hansa.ai.gym_env import HansaEnv
    from hansa.ai.pettingzoo_env import raw_env

    e = raw_env(players=3, options=ALL)
    e.reset(seed=1)
    gyms = {seat: HansaEnv(players=3, seat=seat, opponents="random", options=ALL) for seat in range(3)}
    for g in gyms.values():
        g.reset(seed=1)
    n = 0
    for state, seat, other in hidden_pairs(3, seed=11, every=15):
        agent = f"player_{seat}"
        seen = []
        for position in (state, other):
            e.state_, e._mask, e.pending = position, None, None
            e.agent_selection = f"player_{position.decider}" if not position.is_over else agent
            g = gyms[seat]
            g.state = position
            seen.append((e.observe(agent), g._obs()))
        (pz_a, gym_a), (pz_b, gym_b) = seen
        for key in ("observation", "action_mask"):
            assert np.array_equal(pz_a[key], pz_b[key]) and np.array_equal(gym_a[key], gym_b[key])
        assert np.array_equal(pz_a["observation"], observe(state, seat))
        n += 1
    assert n > 10


# ---------------------------------------------------------------------------------------------- OpenSpiel


def module_game(**params: Any) -> Any:
    pyspiel = pytest.importorskip("pyspiel", reason="the openspiel extra is not installed")
    import hansa.ai.openspiel_game  # noqa: F401 - registers python_hansa

    modules = {"missions": True, "emperors_favour": True, "marker_supply": ",".join(PROMO)}
    return pyspiel.load_game("python_hansa", {"players": 3, **modules, **params})


def test_openspiel_random_sim_test_with_the_modules() -> None:
    import pyspiel

    game = module_game(max_moves=250)
    assert game.num_distinct_actions() == ActionIndex.for_side("2-3", MODULES).size
    assert game.observation_tensor_shape() == [spec_for_side("2-3", MODULES).size]
    state = game.dealt_state(2)
    assert game_modules(state.gs.options) == MODULES and state.gs.options.marker_supply == tuple(PROMO)
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)
    favour_only = module_game(missions=False, marker_supply="", players=4, map="east")
    assert favour_only.num_distinct_actions() == ActionIndex.for_side("east", ("emperors_favour",)).size
    with pytest.raises(InvalidOptionError, match="missions"):
        module_game(map="east")


def openspiel_positions(game: Any, seed: int, moves: int = 120) -> Any:
    """Positions of a random OpenSpiel game with the modules (every 10th action)."""
    state = game.dealt_state(seed)
    rng = np.random.RandomState(seed)
    while len(state.history()) < moves and not state.is_terminal():
        if len(state.history()) % 10 == 0:
            yield state
        state.apply_action(int(rng.choice(state.legal_actions())))


def test_openspiel_tensors_and_strings_hide_the_other_cards() -> None:
    from hansa.ai.openspiel_game import _Position

    game = module_game()
    rng = random.Random(3)
    n = 0
    for state in openspiel_positions(game, seed=3):
        for p in range(3):
            other = state.clone()
            other.position = _Position(other_cards(state.gs, p, rng))
            assert other.gs.missions != state.gs.missions
            for view in ("observation_tensor", "information_state_tensor", "observation_string",
                         "information_state_string"):
                assert np.array_equal(getattr(state, view)(p), getattr(other, view)(p)), view
                for q in range(3):  # the other seats tell the difference (their own card changed)
                    if q != p:
                        assert not np.array_equal(getattr(state, view)(q), getattr(other, view)(q)), view
            assert f"mission={state.gs.missions[p]}" in state.information_state_string(p)
            n += 1
    assert n >= 30


def test_openspiel_resample_redeals_only_the_other_cards() -> None:
    """resample_from_infostate(p): p's own card and everything public kept, p's tensors and strings unchanged; the
    other seats' cards dealt again from the 8 cards p cannot see (they vary between samples)."""
    import pyspiel

    game = module_game()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    for state in list(openspiel_positions(game, seed=5))[::4]:
        for p in range(3):
            deals = set()
            for _ in range(12):
                world = state.resample_from_infostate(p, sampler)
                cards = world.gs.missions
                assert cards[p] == state.gs.missions[p] and len(set(cards)) == 3
                assert world.gs.public_key() == state.gs.public_key()
                assert world.history() == state.history() and world.legal_actions() == state.legal_actions()
                assert world.information_state_string(p) == state.information_state_string(p)
                assert np.array_equal(world.observation_tensor(p), state.observation_tensor(p))
                deals.add(tuple(cards))
            assert len(deals) > 3  # the others' cards really are dealt again


def test_openspiel_bots_play_a_module_game() -> None:
    """OpenSpiel's ISMCTS and MCTS as hansa bots search a game with the modules in the python_hansa game of those
    modules, from a determinized copy, and choose legal moves."""
    pytest.importorskip("pyspiel", reason="the openspiel extra is not installed")
    from hansa.bots import make_bot

    state = GameState.new(3, 8, ALL)
    bots = [make_bot("openspiel-ismcts:simulations=3/horizon=30", 1), make_bot("openspiel-mcts:simulations=3/horizon=30", 2)]
    for i in range(16):
        moves = state.legal_moves()
        move = bots[i % 2].choose(state, moves)
        assert move in moves
        state.play(move)
    assert all(bot._game(state).modules == MODULES for bot in bots)  # type: ignore[attr-defined]
