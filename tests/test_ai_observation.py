"""Observations (hansa.ai.observation): only what a seat may know (hidden markers never change them), the
observer in slot 0, a documented layout, and the graph form's shapes and static edges; on the base sides and the
expansion maps."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from expansion_play import EXPANSION_CONFIGS, EXPANSION_IDS, sea_claim_positions
from hansa.ai.actions import ActionIndex
from hansa.ai.observation import (
    EXPANSION_FIELDS,
    EXPANSION_SIDES,
    GREEN_ROW,
    MARKER_TYPES,
    OWNER,
    PHASES,
    PIECE,
    PLAYER_FEATURES,
    SLOTS,
    Observer,
    observe,
    observe_graph,
    spec_for,
    spec_for_side,
    spec_for_state,
)
from hansa.bots import ClaimingRandomBot
from hansa.core.board import COUNTRIES, PERMANENT_EFFECTS
from hansa.core.constants import ABILITY_MAX, MARKER_NAMES, MISSION_CARDS, NEUTRAL, TILE_CODES, TILE_DISPLAY, TILE_OUT
from hansa.core.moves import Exchange, Shift
from hansa.core.position import Phase
from hansa.core.state import GameState

DOCS = Path(__file__).resolve().parents[1] / "docs" / "ai.md"
CONFIGS = [(2, {"two_player_variant": "neutral"}), (2, {"two_player_variant": "pawn"}), (3, {}), (4, {}), (5, {})]
ALL_CONFIGS = CONFIGS + EXPANSION_CONFIGS
ALL_IDS = [f"{p}p-{i}" for i, (p, _) in enumerate(CONFIGS)] + EXPANSION_IDS
SIDES = ["2-3", "4-5", *EXPANSION_SIDES]


def positions(players: int, options: dict, seed: int, every: int = 7):
    """Every ``every``-th position of a game of the claiming random bot; on an expansion map also, at every 15th
    turn, the positions of a rigged sea-route claim and its permanent marker (tests/expansion_play.py)."""
    state = GameState.new(players, seed, options)
    bot = ClaimingRandomBot(seed)
    rng = random.Random(seed)
    n = turns = 0
    while not state.is_over:
        if n % every == 0:
            yield state
        if state.board.expansion and state.phase == Phase.ACTIONS and state.actions_used == 0:
            turns += 1
            if turns % 15 == 0:
                yield from sea_claim_positions(state, rng)
        state.play(bot.choose(state))
        n += 1
    yield state


@pytest.mark.parametrize(("players", "options"), ALL_CONFIGS, ids=ALL_IDS)
def test_hidden_markers_never_change_an_observation(players: int, options: dict) -> None:
    """A position and its determinization (the face-down supply and the plates reshuffled) look the same to every
    seat, flat and as a graph, although their hidden markers differ."""
    rng = random.Random(players)
    differing = 0
    for state in positions(players, options, seed=players * 11):
        other = state.determinized(rng)
        if (other.marker_supply, other.plate) != (state.marker_supply, state.plate):
            differing += 1
        for seat in range(players):
            a, b = observe(state, seat), observe(other, seat)
            assert np.array_equal(a, b)
            ga, gb = observe_graph(state, seat), observe_graph(other, seat)
            assert all(np.array_equal(ga[k], gb[k]) for k in ga if k != "edges")
    assert differing > 10  # the hidden parts really did differ


def test_the_observer_is_slot_zero_and_the_turn_order_follows() -> None:
    state = GameState.new(4, seed=5)
    bot = ClaimingRandomBot(5)
    for _ in range(60):
        state.play(bot.choose(state))
    spec = spec_for(state.board)
    score = [name for name, _ in PLAYER_FEATURES].index("score")
    for seat in range(4):
        obs = observe(state, seat)
        table = spec.view(obs, "players").reshape(5, len(PLAYER_FEATURES))
        for q in range(4):
            assert table[(q - seat) % 4, score] == pytest.approx(state.score[q] / 20)
        assert table[4].sum() == 0  # padding
        houses = spec.view(obs, "houses").reshape(-1, PIECE)
        for h, code in enumerate(state.houses):
            want = 0 if code < 0 else 1 + (code & 1) * 6 + ((code >> 1) - seat) % 4
            assert houses[h].argmax() == want and houses[h].sum() == 1


def test_values_are_finite_and_bounded_over_whole_games() -> None:
    for players, options in ALL_CONFIGS:
        for state in positions(players, options, seed=3, every=3):
            obs = observe(state, state.decider if not state.is_over else 0)
            assert obs.dtype == np.float32 and np.isfinite(obs).all()
            assert obs.min() >= 0 and obs.max() <= 64, (players, obs.max())  # the adapters declare Box(0, 64)


@pytest.mark.parametrize("side", SIDES)
def test_layout_is_contiguous_and_documented(side: str) -> None:
    spec = spec_for_side(side)
    position = 0
    for field in spec.fields:
        assert field.start == position and field.size >= 0
        position += field.size
    assert position == spec.size
    docs = DOCS.read_text(encoding="utf-8")
    for field in spec.fields:
        assert f"`{field.name}`" in docs, f"docs/ai.md does not describe the field {field.name}"
    for name, _ in PLAYER_FEATURES:
        assert f"`{name}`" in docs, f"docs/ai.md does not describe the player feature {name}"
    names = [f.name for f in spec.fields]
    expansion = [name for name, _ in EXPANSION_FIELDS]
    assert names[len(names) - len(expansion):] == expansion if spec.expansion else not set(expansion) & set(names)
    assert spec.field("phase").size == PHASES + spec.expansion


def test_base_sizes_never_change() -> None:
    """Trained models depend on the base sides' observation: its size stays (and tests/test_ai_observation's
    reference checks every value)."""
    assert (spec_for_side("2-3").size, spec_for_side("4-5").size) == (3006, 3155)


@pytest.mark.parametrize("options", [{}, {"map": "east"}, {"map": "britannia"}], ids=["base", "east", "britannia"])
def test_graph_form_and_static_edges(options: dict) -> None:
    state = GameState.new(3, seed=2, options=options)
    spec = spec_for(state.board)
    graph = observe_graph(state, 0)
    assert graph["houses"].shape[0] == spec.houses and graph["routes"].shape[0] == spec.routes
    assert graph["offices"].shape[0] == spec.offices and graph["cities"].shape[0] == spec.cities
    assert graph["players"].shape == (5, len(PLAYER_FEATURES))
    edges = graph["edges"]
    assert edges["house_route"].shape == (2, spec.houses)
    assert sorted(edges["house_route"][0].tolist()) == list(range(spec.houses))
    assert edges["route_city"].shape == (2, 2 * spec.routes)
    for r in state.board.routes:
        assert edges["house_route"][1][list(r.houses)].tolist() == [r.index] * r.spaces
    assert edges["office_city"].shape == (2, spec.offices)
    extra = 2 if spec.expansion else 0
    assert graph["houses"].shape[1] == PIECE + 1 + extra
    if spec.expansion:
        assert graph["houses"][:, PIECE + 1].tolist() == [float(s) for s in state.board.house_ship]


# ---------------------------------------------------------------------------------------------- reference


def _pieces(codes: Any, slots: Any) -> Any:
    arr = np.asarray(codes, dtype=np.int64)
    index = np.where(arr < 0, 0, 1 + (arr & 1) * 6 + slots[np.clip(arr >> 1, 0, 5)])
    out = np.zeros((len(arr), PIECE), dtype=np.float32)
    out[np.arange(len(arr)), index] = 1.0
    return out


def reference_observe(
    state: GameState, seat: int, pending_house: str | None = None, pending_exchange: str | None = None
) -> Any:
    """The observation written the plain way (the first version), to check the fast one against."""
    spec = spec_for_state(state)
    out = np.zeros(spec.size, dtype=np.float32)
    board = state.board
    # Owner code -> slot: the observer is slot 0, then the turn order; the neutral player (and padding) slot 5.
    slots = np.full(6, 5, dtype=np.int64)
    for q in range(state.players):
        slots[q] = (q - seat) % state.players

    def put(name: str, values: Any) -> None:
        spec.view(out, name)[:] = np.ravel(values)

    put("houses", _pieces(state.houses, slots))
    put("offices", _pieces(state.offices, slots))
    extras = np.zeros((spec.cities, 6), dtype=np.float32)
    for c, codes in enumerate(state.extras):
        for code in codes:
            extras[c, slots[code >> 1]] += 1
    put("extra_offices", extras)
    put("coellen_table", _pieces(state.table, slots) if len(state.table) == 4 else np.zeros(4 * PIECE))
    markers = np.zeros((spec.routes, 1 + spec.marker_types), dtype=np.float32)
    markers[np.arange(spec.routes), np.asarray(state.route_marker) + 1] = 1.0
    put("route_markers", markers)
    controllers = np.zeros((spec.cities, OWNER), dtype=np.float32)
    filled = np.zeros(spec.cities, dtype=np.float32)
    for city in board.cities:
        owner = state.controller(city.index)
        controllers[city.index, 0 if owner is None else 1 + slots[owner]] = 1.0
        filled[city.index] = state.city_filled[city.index] / max(1, len(city.offices))
    put("controllers", controllers)
    put("city_filled", filled)

    players = np.zeros((SLOTS, len(PLAYER_FEATURES)), dtype=np.float32)
    decider = state.decider
    for q in range(state.players):
        row = players[slots[q]]
        row[0] = 1.0
        row[1:5] = (state.sup_t[q] / 27, state.sup_m[q] / 4, state.stk_t[q] / 27, state.stk_m[q] / 4)
        row[5:10] = [state.levels[q * 5 + a] / ABILITY_MAX[a] for a in range(5)]
        row[10] = state.score[q] / 20
        for m in state.markers[q]:
            if m < MARKER_TYPES:  # the promo markers have fields of their own (reference_modules)
                row[11 + m] += 1
        row[17] = len(state.used_markers[q])
        row[18] = len(state.plate[q])
        row[19] = state.office_count(q) / 10
        row[20] = 1.0 if q in state.ew_paid else 0.0
        row[21] = 1.0 if q == state.current and not state.is_over else 0.0
        row[22] = 1.0 if q == decider and not state.is_over else 0.0
    put("players", players)

    phase = np.zeros(spec.field("phase").size, dtype=np.float32)
    phase[int(state.phase)] = 1.0
    put("phase", phase)
    put("turn", [state.actions_used / 5, state.allowance() / 6, state.bonus_actions / 4, state.actions_left() / 6,
                 min(state.turn / 100, 1.0), state.completed / 10])
    hand = list(state.hand)
    put("hand", [hand.count(0) / 5, hand.count(1) / 5])
    if state.phase == Phase.RELOCATE and state.rl_route >= 0:
        spec.view(out, "relocation_route")[state.rl_route] = 1.0
        rel = spec.view(out, "relocation")
        rel[0] = state.rl_extras / 2
        rel[2 + slots[state.rl_owner] if 0 <= state.rl_owner <= NEUTRAL else 1] = 1.0
    else:
        spec.view(out, "relocation")[1] = 1.0
    spec.view(out, "remove_left")[0] = max(0, state.rm_left) / 3 if state.phase == Phase.REMOVE else 0.0
    put("markers", [state.hidden_marker_count() / 20, state.markers_on_board() / 10])
    if state.pawn >= 0 and spec.provinces:
        spec.view(out, "pawn")[state.pawn] = 1.0
    if pending_house is not None:
        spec.view(out, "pending_shift")[board.house_names.index(pending_house)] = 1.0
    game = spec.view(out, "game")
    game[state.players - 2] = 1.0
    if state.players == 2:
        game[4 if state.options.two_player_variant == "neutral" else 5] = 1.0
    if spec.expansion:
        reference_expansion(state, spec, out, slots, pending_exchange)
    if spec.modules:
        reference_modules(state, spec, out, slots, seat)
    return out


def reference_modules(state: GameState, spec: Any, out: Any, slots: Any, seat: int) -> None:
    """The Big Box modules' fields, the plain way (the observing seat's own mission card only)."""
    board = state.board
    spec.view(out, "modules")[:] = [float(m in spec.modules) for m in ("missions", "emperors_favour", "marker_supply")]
    if "missions" in spec.modules:
        card = state.missions[seat]
        spec.view(out, "mission")[card - 1] = 1.0
        for code in MISSION_CARDS[card]:
            spec.view(out, "mission_cities")[board.city_index[code]] = 1.0
    if "emperors_favour" in spec.modules:
        tiles = np.zeros((len(TILE_CODES), 7), dtype=np.float32)
        for t, where in enumerate(state.favour):
            tiles[t, 0 if where == TILE_OUT else 1 if where == TILE_DISPLAY else 2 + slots[where]] = 1.0
        spec.view(out, "favour_tiles")[:] = tiles.ravel()
        spec.view(out, "favour_turn")[:] = [float(state.fav_flags & 1 > 0), float(state.fav_flags & 2 > 0)]
        for q in range(state.players):
            spec.view(out, "facedown")[slots[q]] = len(state.facedown[q])
    if "marker_supply" in spec.modules:
        promo = spec.view(out, "promo_markers").reshape(SLOTS, 3)
        used = spec.view(out, "used_by_type").reshape(SLOTS, len(MARKER_NAMES))
        for q in range(state.players):
            for m in state.markers[q]:
                if m >= MARKER_TYPES:
                    promo[slots[q], m - MARKER_TYPES] += 1
            for m in state.used_markers[q]:
                used[slots[q], m] += 1
        for name, beside in (("route_tributes", state.tributes), ("route_blocks", state.blocks)):
            block = spec.view(out, name).reshape(spec.routes, SLOTS)
            for r, owner in beside:
                block[r, slots[owner]] += 1
        for q in state.tribute_due:
            spec.view(out, "tribute_due")[slots[q]] += 1


def reference_expansion(state: GameState, spec: Any, out: Any, slots: Any, pending_exchange: str | None) -> None:
    """The expansion board's fields, the plain way."""
    board = state.board

    def put(name: str, values: Any) -> None:
        spec.view(out, name)[:] = np.ravel(values)

    put("ship_houses", [float(s) for s in board.house_ship])
    country = np.zeros((spec.routes, len(COUNTRIES)))
    permanent = np.zeros((spec.routes, len(PERMANENT_EFFECTS)))
    for r in board.routes:
        country[r.index, r.country] = 1.0
        if r.permanent:
            permanent[r.index, PERMANENT_EFFECTS.index(r.permanent)] = 1.0
    put("route_country", country)
    put("route_permanent", permanent)
    put("city_abilities", [[float(a in c.abilities) for a in range(5)] for c in board.cities])
    put("city_green", [float(c.green) for c in board.cities])
    put("city_countries", [[float(bool(c.countries & 1 << k)) for k in range(len(COUNTRIES))] for c in board.cities])
    put("office_points", [o.points / 2 for c in board.cities for o in c.offices])
    rows, right = [], np.zeros((len(board.green_cities), 6))
    for g, c in enumerate(board.green_cities):
        row = [code for code in state.city_offices(c) if code >= 0]
        rows.append(_pieces((row + [-1] * GREEN_ROW)[:GREEN_ROW], slots))
        for code in state.right_offices[c]:
            right[g, slots[code >> 1]] += 1
    put("green_row", rows if rows else [])
    put("green_right", right)
    if state.phase == Phase.PERMANENT:
        block = spec.view(out, "permanent")
        block[state.pm_kind] = 1.0
        block[5] = state.pm_left / 2
        spec.view(out, "permanent_route")[state.pm_route] = 1.0
    permissions = np.zeros((len(board.permission_cities), OWNER + 1))
    for i, (city, _) in enumerate(board.permission_cities):
        live = state.options.permission_timing == "live"
        holder = state.holder(city) if live else state.perm_holders[i]
        permissions[i, 0 if holder < 0 else 1 + slots[holder]] = 1.0
        permissions[i, OWNER] = float(bool(state.perm_used & 1 << i))
    put("permissions", permissions)
    if state.phase == Phase.MOVE:
        hand = np.zeros((2, len(COUNTRIES)))
        for kind, origin in zip(state.hand, state.hand_from, strict=True):
            if origin >= 0:
                hand[kind, origin] += 1 / 5
        put("hand_origin", hand)
    if pending_exchange is not None:
        spec.view(out, "pending_exchange")[board.house_names.index(pending_exchange)] = 1.0
    put("map", [float(board.side == side) for side in EXPANSION_SIDES] + [board.cities_to_end / 10])


@pytest.mark.parametrize(("players", "options"), ALL_CONFIGS, ids=ALL_IDS)
def test_fast_observation_equals_the_plain_reference(players: int, options: dict) -> None:
    """observe() is written for speed; it must give exactly what the plain version gives, for every seat."""
    for state in positions(players, options, seed=players + 40, every=4):
        for seat in range(players):
            assert np.array_equal(observe(state, seat), reference_observe(state, seat))
    state = GameState.new(3, seed=1)
    house = state.board.house_names[5]
    assert np.array_equal(observe(state, 0, house), reference_observe(state, 0, house))
    with pytest.raises(ValueError):
        observe(state, 0, pending_exchange=house)  # no exchange on a base side


@pytest.mark.parametrize("side", SIDES)
def test_dense_division_in_float32_is_pythons_quotient(side: str) -> None:
    """observe() divides the dense counts in float32; for every divisor of the layout and every count a byte can
    hold, that is the float32 of Python's own int / int (the plain reference's value), bit for bit."""
    spec = spec_for_side(side)
    counts = np.arange(256, dtype=np.uint8)
    for divisor in sorted(set(spec._dense_div.tolist())):
        fast = counts / np.float32(divisor)
        assert fast.dtype == np.float32
        assert np.array_equal(fast, np.array([c / int(divisor) for c in range(256)], dtype=np.float32))


@pytest.mark.parametrize(("players", "options"), EXPANSION_CONFIGS, ids=EXPANSION_IDS)
def test_expansion_state_is_observed(players: int, options: dict) -> None:
    """On the expansion maps the fast observation equals the reference with a pending shift-from or exchange-from
    too, and the expansion's state really shows: a permanent marker being resolved, green cities' offices,
    permissions held, pieces in hand from a country."""
    seen: set[str] = set()
    for state in positions(players, options, seed=players + 70, every=11):
        spec = spec_for(state.board)
        actions = ActionIndex.for_state(state)
        obs = observe(state, state.decider if not state.is_over else 0)

        def shows(name: str, obs: Any = obs, spec: Any = spec) -> bool:
            return bool(spec.view(obs, name).any())
        if state.phase == Phase.PERMANENT:
            assert shows("permanent") and shows("permanent_route")
            seen.add("permanent")
            firsts = {type(m): actions.indices(m)[0] for m in state.legal_moves() if isinstance(m, Shift | Exchange)}
            for kind, pending in firsts.items():  # one shift-from and one exchange-from, when legal
                house, exchange = actions.pending_house(pending), actions.pending_exchange(pending)
                assert (house is None) != (exchange is None)
                fast = observe(state, state.decider, house, exchange)
                assert np.array_equal(fast, reference_observe(state, state.decider, house, exchange))
                seen.add(kind.type)
        for name in ("green_row", "green_right", "permissions", "hand_origin"):
            if spec.field(name).size and shows(name):
                seen.add(name)
    want = {"permanent", "shift", "exchange"}
    want |= {"green_row", "green_right"} if options["map"] == "east" else {"hand_origin", "permissions"}
    assert want <= seen, f"never seen: {want - seen}"


def test_observe_into_a_buffer() -> None:
    """``observe(..., out=buffer)`` writes every value (whatever the buffer held) and returns the buffer."""
    state = GameState.new(3, 12, {"map": "east"})
    rng = random.Random(2)
    buffer = np.full(spec_for_state(state).size, 7.0, dtype=np.float32)
    for _ in range(120):
        moves = state.legal_moves()
        state.play(rng.choice([m for m in moves if m.type == "claim"] or moves))
        for seat in range(3):
            assert observe(state, seat, out=buffer) is buffer
            assert np.array_equal(buffer, observe(state, seat))
    with pytest.raises(ValueError, match="float32 array of shape"):
        observe(state, 0, out=np.zeros(10, dtype=np.float32))
    with pytest.raises(ValueError, match="float32 array of shape"):
        observe(state, 0, out=np.zeros(buffer.size, dtype=np.float64))


@pytest.mark.parametrize(("players", "options"), ALL_CONFIGS, ids=ALL_IDS)
def test_the_incremental_observer_equals_observe_at_every_step(players: int, options: dict) -> None:
    """Observer keeps each seat's vector by differences: at every step of a whole game (the expansion maps' rigged
    sea claims and permanent markers included), for the seats in a random order and not every seat every time, with
    pending shifts and exchanges, it gives exactly observe()'s vector, a new array each time."""
    observer = Observer()
    rng = random.Random(players)
    kept = []
    for state in positions(players, options, seed=players + 90, every=1):
        seats = rng.sample(range(players), rng.randint(1, players))
        for seat in seats:
            vec = observer.observe(state, seat)
            assert np.array_equal(vec, observe(state, seat)), (seat, state.turn)
        if rng.random() < 0.05:
            kept.append((vec, observe(state, seats[-1])))  # a vector handed out is never written again
        if not state.is_over and rng.random() < 0.2:
            actions = ActionIndex.for_state(state)
            for m in state.legal_moves():
                if isinstance(m, Shift | Exchange):
                    first = actions.indices(m)[0]
                    house, exchange = actions.pending_house(first), actions.pending_exchange(first)
                    got = observer.observe(state, state.decider, house, exchange)
                    assert np.array_equal(got, observe(state, state.decider, house, exchange))
                    break
    assert all(np.array_equal(a, b) for a, b in kept)


def test_the_observer_follows_any_position() -> None:
    """Not only the next move: unrelated positions, another game, another player count, another map and a module
    game one after another, and a buffer to write into; pickled and copied, it starts empty and answers the same."""
    import copy
    import pickle

    from module_play import ALL, module_positions

    observer = Observer()
    games = [list(positions(3, {}, seed=5, every=40)), list(positions(4, {}, seed=6, every=40)),
             list(positions(4, {"map": "east"}, seed=7, every=40)), list(positions(2, {"two_player_variant": "pawn"}, seed=8, every=40)),
             list(module_positions(3, ALL, seed=9, every=40, limit=1500))]
    rng = random.Random(3)
    for _ in range(300):
        state = rng.choice(rng.choice(games))
        seat = rng.randrange(state.players)
        assert np.array_equal(observer.observe(state, seat), observe(state, seat))
    state = games[0][3]
    buffer = np.full(spec_for_state(state).size, 7.0, dtype=np.float32)
    assert observer.observe(state, 1, out=buffer) is buffer
    assert np.array_equal(buffer, observe(state, 1))
    with pytest.raises(ValueError, match="float32 array of shape"):
        observer.observe(state, 0, out=np.zeros(10, dtype=np.float32))
    with pytest.raises(ValueError, match="no exchange"):
        observer.observe(state, 0, pending_exchange=state.board.house_names[0])
    for other in (pickle.loads(pickle.dumps(observer)), copy.deepcopy(observer), copy.copy(observer)):
        assert isinstance(other, Observer) and other is not observer
        assert np.array_equal(other.observe(games[1][2], 3), observe(games[1][2], 3))
