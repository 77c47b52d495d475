"""The PettingZoo AEC environment and the Gymnasium wrapper, through the libraries' own test utilities
(pettingzoo.test.api_test and seed_test, gymnasium's check_env), plus whole games to their rewards and the
deciding seat off turn (relocation)."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo", reason="the rl extra is not installed")
gymnasium = pytest.importorskip("gymnasium", reason="the rl extra is not installed")

from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import api_test, seed_test  # noqa: E402
from pettingzoo.test.state_test import test_state as pz_check_state  # noqa: E402
from pettingzoo.test.state_test import test_state_space as pz_check_state_space  # noqa: E402
from pettingzoo.utils import wrappers  # noqa: E402

from hansa.ai.global_state import global_spec_for_state, global_state  # noqa: E402
from hansa.ai.gym_env import HansaEnv  # noqa: E402
from hansa.ai.observation import observe  # noqa: E402
from hansa.ai.pettingzoo_env import env, raw_env  # noqa: E402
from hansa.bots import ClaimingRandomBot  # noqa: E402
from hansa.core.moves import Exchange  # noqa: E402
from hansa.core.position import Phase  # noqa: E402
from hansa.core.scoring import winners  # noqa: E402
from module_play import ALL, ModuleBot  # noqa: E402


@pytest.mark.parametrize(
    ("players", "variant", "options"),
    [(2, "neutral", None), (2, "pawn", None), (3, None, None), (5, None, None), (3, None, {"map": "east"}),
     (4, None, {"map": "britannia"})],
    ids=["2-neutral", "2-pawn", "3", "5", "east-3", "britannia-4"],
)
def test_pettingzoo_api_test(players: int, variant: str | None, options: dict | None) -> None:
    api_test(env(players=players, variant=variant, options=options, max_moves=600), num_cycles=400)


def test_pettingzoo_seed_test() -> None:
    seed_test(lambda: env(players=3, max_moves=300), num_cycles=200)


def play_out(e: raw_env, seed: int) -> tuple[dict[str, float], int]:
    """A whole game through the environment, the claiming random bot's moves given as actions; returns the final
    rewards and how often the deciding agent was not the seat whose turn it was."""
    e.reset(seed=seed)
    bot = ClaimingRandomBot(seed)
    rewards: dict[str, float] = {}
    off_turn = 0
    queued: list[int] = []
    for agent in e.agent_iter():
        obs, reward, termination, truncation, _ = e.last()
        if termination or truncation:
            rewards[agent] = reward
            e.step(None)
            continue
        state = e.unwrapped.state_ if hasattr(e, "unwrapped") else e.state_
        assert agent == f"player_{state.decider}"
        if state.decider != state.current:
            off_turn += 1
            assert state.phase in (Phase.RELOCATE, Phase.NEUTRAL_OFFICE, Phase.PAWN_SETUP)
        if not queued:
            queued = list(e.unwrapped.actions.indices(bot.choose(state)))
        action = queued.pop(0)
        assert obs["action_mask"][action] == 1 and obs["action_mask"].sum() >= 1
        e.step(action)
    return rewards, off_turn


@pytest.mark.parametrize("reward", ["win", "margin"])
def test_whole_games_end_with_rewards(reward: str) -> None:
    off_turn = 0
    for seed in range(3):
        e = env(players=3, reward=reward, max_moves=20_000)
        rewards, n = play_out(e, seed)
        off_turn += n
        state = e.unwrapped.state_
        assert state.is_over and set(rewards) == {"player_0", "player_1", "player_2"}
        if reward == "win":
            assert sum(rewards.values()) == pytest.approx(1.0)
            won = winners(state)
            assert all(rewards[a] == pytest.approx(1 / len(won) if i in won else 0.0) for i, a in enumerate(e.possible_agents))
        else:
            assert max(rewards.values()) >= 0 and min(rewards.values()) <= 0
    assert off_turn > 0, "no off-turn decision (relocation) was met"


def test_gymnasium_check_env_and_registration() -> None:
    check_env(HansaEnv(players=3, opponents="random"))
    for players, options in ((3, {"map": "east"}), (4, {"map": "britannia"})):
        e = HansaEnv(players=players, opponents="random", options=options, max_moves=2000)
        assert e.actions.side == e.state.board.side == ("east" if players == 3 else "britannia_45")
        check_env(e)
    made = gymnasium.make("hansa/Hansa-v1", players=2, variant="pawn", opponents="purpose")
    obs, info = made.reset(seed=4)
    assert obs["action_mask"].sum() >= 1 and info["action_mask"].dtype == bool


def test_gymnasium_episode_against_bots_and_illegal_action() -> None:
    e = HansaEnv(players=3, seat=1, opponents=["heuristic", "random"], max_moves=20_000)
    obs, _ = e.reset(seed=5)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    _, reward, terminated, _, info = e.step(illegal)
    assert reward == -1.0 and terminated and info["illegal"]
    obs, _ = e.reset(seed=5)
    bot = ClaimingRandomBot(5)
    steps = 0
    while True:
        assert e.state.decider == 1  # the bots played the other seats
        ix = e.actions.indices(bot.choose(e.state))
        for a in ix:
            assert obs["action_mask"][a] == 1
            obs, reward, terminated, truncated, _ = e.step(a)
            steps += 1
        if terminated or truncated:
            break
    assert terminated and e.state.is_over and reward in (0.0, 1.0, 0.5, 1 / 3)
    assert steps > 20


def test_pettingzoo_refuses_illegal_and_out_of_range_actions_and_changes_nothing() -> None:
    e = env(players=3, max_moves=300)
    e.reset(seed=3)
    obs, *_ = e.last()
    def snapshot() -> tuple:
        u = e.unwrapped
        return u.state_.legal_moves(), u.state_.houses[:], u.moves, u.pending, e.agent_selection

    before = snapshot()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    for action in (illegal, -1, e.unwrapped.actions.size):
        with pytest.raises(ValueError):
            e.step(action)
        assert snapshot() == before
    # The mask handed out is a copy: changing it does not make an illegal action legal.
    obs["action_mask"][illegal] = 1
    with pytest.raises(ValueError):
        e.step(illegal)
    e.step(int(np.flatnonzero(e.last()[0]["action_mask"])[0]))
    assert e.unwrapped.moves == 1 or e.unwrapped.pending is not None


def test_gymnasium_out_of_range_action_is_illegal() -> None:
    e = HansaEnv(players=3, seat=0, opponents=["random", "random"], max_moves=500)
    e.reset(seed=2)
    _, reward, terminated, _, info = e.step(e.actions.size + 5)
    assert reward == -1.0 and terminated and info["illegal"]


def test_expansion_env_exchange_is_two_steps_of_one_agent() -> None:
    """On East, a permanent marker's exchange through the environment: the exchange-from marks its house in the
    observation (``pending_exchange``), only exchange-tos are legal next, and the two steps make one Exchange."""
    e = raw_env(players=3, options={"map": "east"}, max_moves=5000)
    e.reset(seed=3)
    state = e.state_
    board = state.board
    route = board.route("WIS-STR")
    rig = state.copy()
    p = rig.current
    for h in route.houses:  # the active player holds Wismar-Stralsund (Merchants on its ship spaces)
        rig.houses[h] = p * 2 + int(board.house_ship[h])
    for h in board.route("WIS-LUB").houses[:2]:  # two more pieces on the board to exchange
        rig.houses[h] = ((p + 1) % 3) * 2
    rig._reindex()
    rig.play(next(m for m in rig.legal_moves() if getattr(m, "route", None) == "WIS-STR"))
    assert rig.phase == Phase.PERMANENT
    e.state_ = rig
    e._mask = None
    agent = e.agent_selection = f"player_{rig.decider}"
    obs = e.observe(agent)
    actions = e.actions
    spec = e.obs_spec
    first = [int(i) for i in np.flatnonzero(obs["action_mask"]) if actions.family_of(int(i)) == "exchange-from"]
    assert first, "no exchange was legal"
    e.step(first[0])
    assert e.agent_selection == agent and e.pending == first[0]
    obs = e.observe(agent)
    marked = spec.view(obs["observation"], "pending_exchange")
    assert marked.sum() == 1 and board.house_names[int(marked.argmax())] == actions.pending_exchange(first[0])
    assert spec.view(obs["observation"], "pending_shift").sum() == 0
    second = np.flatnonzero(obs["action_mask"])
    assert len(second) and all(actions.family_of(int(i)) == "exchange-to" for i in second)
    before = rig.copy()
    e.step(int(second[0]))
    move = actions.move(int(second[0]), first[0])
    assert isinstance(move, Exchange) and e.pending is None and e.moves == 1
    a, b = board.house_index[move.house], board.house_index[move.other]
    assert (e.state_.houses[a], e.state_.houses[b]) == (before.houses[b], before.houses[a])


# --- The global state (PettingZoo state()) -----------------------------------------------------------------------

@pytest.mark.parametrize(
    ("players", "options"), [(3, None), (4, {"map": "east"}), (3, ALL)], ids=["3", "east-4", "3-modules"]
)
def test_pettingzoo_state_test(players: int, options: dict | None) -> None:
    """PettingZoo's own state checks (pettingzoo.test.state_test), every warning an error.  Its test_state samples the
    bare action space, so the environment is wrapped in PettingZoo's TerminateIllegalWrapper (as its classic games
    are); the environment has no parallel form, so state_test's parallel part does not apply."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        e = env(players=players, options=options, max_moves=600)
        pz_check_state_space(e)
        pz_check_state(wrappers.TerminateIllegalWrapper(e, illegal_reward=-1), num_cycles=50)


def test_state_holds_every_hidden_thing_over_a_whole_game() -> None:
    """Along a whole game with all three modules: state() lies in state_space, begins with seat 0's observation, and
    tells a position from every determinized copy that differs from it (hidden markers, plates, mission cards)."""
    e = raw_env(players=3, options=ALL, max_moves=3000)
    e.reset(seed=3)
    spec = global_spec_for_state(e.state_)
    bot = ModuleBot(3)
    rng = random.Random(3)
    queued: list[int] = []
    told = plates_seen = facedown_seen = 0
    for agent in e.agent_iter():
        _, _, termination, truncation, _ = e.last()
        s = e.state()
        assert s.dtype == np.float32 and s.shape == (spec.size,) and e.state_space.contains(s)
        if termination or truncation:
            e.step(None)
            continue
        state = e.state_
        own = e.observe("player_0")["observation"]
        if agent == "player_0":
            np.testing.assert_array_equal(s[: spec.obs.size], own)
        else:
            np.testing.assert_array_equal(s[: spec.obs.size], observe(state, 0))
        assert list(np.flatnonzero(spec.view(s, "missions_all"))) == [9 * p + c - 1 for p, c in enumerate(state.missions)]
        pending = e.actions.pending_house(e.pending), e.actions.pending_exchange(e.pending)
        if not queued and (any(state.plate) or rng.random() < 0.2):
            copy = state.determinized(rng)
            differs = not np.array_equal(global_state(copy, *pending), s)
            assert differs == (copy.key() != state.key())
            told += differs
        # The hidden fields read back: the supply from its next draw (the end of the engine's list), every plate.
        width = 1 + spec.marker_types
        order = spec.view(s, "supply_order").reshape(-1, width).argmax(axis=1) - 1
        assert list(order[order >= 0]) == state.marker_supply[::-1] and (order[len(state.marker_supply):] < 0).all()
        plates = spec.view(s, "plates").reshape(5, -1, width).argmax(axis=2) - 1
        assert [tuple(row[row >= 0]) for row in plates[:3]] == state.plate and (plates[3:] < 0).all()
        facedown = spec.view(s, "facedown_types").reshape(5, spec.marker_types)
        assert [list(row) for row in facedown[:3]] == [
            [float(turned.count(k)) for k in range(spec.marker_types)] for turned in state.facedown
        ]
        plates_seen += any(state.plate)
        facedown_seen += any(state.facedown)
        if not queued:
            queued = list(e.actions.indices(bot.choose(state, state.legal_moves())))
        e.step(queued.pop(0))
    assert e.state_.is_over and told > 20 and plates_seen > 0 and facedown_seen > 0


def test_pettingzoo_wrapper_last_and_step_keep_the_order_checks() -> None:
    """env()'s wrapper answers last() and step() without PettingZoo's attribute forwarding, with the same answers as
    the environment itself and the same refusal before reset()."""
    e = env(players=3, max_moves=200)
    for read in (lambda: e.last(), lambda: e.agents, lambda: e.agent_selection):
        with pytest.raises(AttributeError, match="before reset"):
            read()
    e.reset(seed=2)
    assert e.agents == e.unwrapped.agents and e.agent_selection == e.unwrapped.agent_selection
    rng = np.random.default_rng(0)
    for _ in range(150):
        obs, reward, term, trunc, info = e.last()
        direct = e.unwrapped.observe(e.agent_selection)
        assert np.array_equal(obs["observation"], direct["observation"])
        assert np.array_equal(obs["action_mask"], direct["action_mask"])
        assert reward == e.unwrapped._cumulative_rewards[e.agent_selection] and info == {}
        e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        if not e.agents:
            break
