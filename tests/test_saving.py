"""Pickle and deepcopy of positions, games and the AI environments (hansa.core.pickling): equal, independent copies
(hidden markers and mission cards included, on every map and with the Big Box modules), and the same objects sent to
worker processes of a real spawn-context process pool, played on there and sent back."""

from __future__ import annotations

import copy
import multiprocessing
import pickle
import random
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np
import pytest

from hansa.core.board import Board
from hansa.core.state import GameState
from hansa.game import Game
from module_play import ALL, PROMO_HEAVY
from support import new_state
from test_rules_end_scoring import END_DATA

CONFIGS: list[tuple[int, dict[str, Any]]] = [
    (2, {"two_player_variant": "pawn"}),
    (3, {}),
    (5, {}),
    (3, ALL),
    (4, {"map": "east", "emperors_favour": True, "marker_supply": PROMO_HEAVY}),
    (5, {"map": "britannia"}),
]
IDS = ["2-pawn", "3", "5", "3-modules", "east-4-modules", "britannia-5"]


def random_moves(state: GameState, count: int, seed: int) -> None:
    """Play ``count`` random moves (claims first, so games progress and markers get drawn), fewer if it ends."""
    rng = random.Random(seed)
    for _ in range(count):
        if state.is_over:
            return
        moves = state.legal_moves()
        claims = [m for m in moves if m.type == "claim"]
        state.play(rng.choice(claims or moves))


def hidden(state: GameState) -> tuple[Any, ...]:
    return tuple(state.marker_supply), tuple(state.plate), tuple(state.missions)


def assert_same_game(a: GameState, b: GameState) -> None:
    assert a is not b
    assert a.key() == b.key() and a.public_key() == b.public_key()
    assert hidden(a) == hidden(b)
    assert a.legal_moves() == b.legal_moves()
    assert a.board is b.board  # a printed board is the process's own cached one
    assert a.free_moves == b.free_moves and a.own == b.own and a.full == b.full  # rebuilt indexes


@pytest.mark.parametrize(("players", "options"), CONFIGS, ids=IDS)
@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
def test_state_round_trip(players: int, options: dict[str, Any], how: str) -> None:
    state = GameState.new(players, 11, options)
    random_moves(state, 150, seed=players)
    assert state.marker_supply or any(state.plate)  # hidden markers to carry
    clone = pickle.loads(pickle.dumps(state)) if how == "pickle" else copy.deepcopy(state)
    assert_same_game(state, clone)
    before = state.key()
    random_moves(clone, 60, seed=9)  # playing on the copy leaves the original as it was
    assert state.key() == before
    random_moves(state, 60, seed=9)  # and the same moves give the same game
    assert state.key() == clone.key()


def test_state_with_interned_moves_after_loading() -> None:
    """The loaded position hands out the engine's interned move objects (the action mask finds them by identity)."""
    state = GameState.new(3, 4)
    random_moves(state, 40, seed=1)
    clone = pickle.loads(pickle.dumps(state))
    fresh = GameState.new(3, 5)
    assert {id(m) for m in clone.free_moves[0]} <= {id(m) for m in fresh.free_moves[0]}


def test_custom_board_round_trip() -> None:
    state = new_state(3, board=Board("end-fixture", END_DATA))
    random_moves(state, 30, seed=2)
    clone = pickle.loads(pickle.dumps(state))
    assert clone.board is not state.board and clone.board.side == "end-fixture"
    assert clone.key() == state.key() and [m.text() for m in clone.legal_moves()] == [m.text() for m in state.legal_moves()]


def test_corrupt_pickle_is_refused() -> None:
    from hansa.core.pickling import _restore_state

    with pytest.raises(ValueError, match="not a pickled hansa position"):
        _restore_state(GameState, GameState.new(3, 1).board, (1, 2, 3))


@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
def test_game_round_trip(how: str) -> None:
    game = Game(["Ann", "Bo", "Cy"], seed=3, options={"missions": True})
    rng = random.Random(3)
    for _ in range(25):
        game.play(rng.choice(game.legal_moves()))
    clone = pickle.loads(pickle.dumps(game)) if how == "pickle" else copy.deepcopy(game)
    assert clone.names == game.names and clone.moves == game.moves and clone.seed == game.seed
    assert_same_game(game.state, clone.state)
    assert clone.to_record() == game.to_record()
    before = game.state.key()
    clone.undo()  # the copy's undo snapshots came along; using them leaves the original alone
    assert len(clone.moves) == 24 and len(game.moves) == 25 and game.state.key() == before
    assert clone.state.key() == game.state_before().key()


def drive_pettingzoo(e: Any, steps: int, seed: int) -> list[tuple[Any, ...]]:
    """``steps`` decisions through a PettingZoo env (``last()`` and a random legal action); what each step saw."""
    rng = np.random.default_rng(seed)
    seen = []
    for _ in range(steps):
        obs, reward, term, trunc, _ = e.last()
        seen.append((e.agent_selection, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward))
        if term or trunc:
            e.step(None)
            if not e.agents:
                break
            continue
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return seen


def drive_gym(env: Any, steps: int, seed: int) -> list[tuple[Any, ...]]:
    rng = np.random.default_rng(seed)
    obs = env._obs()
    seen = []
    for _ in range(steps):
        obs, reward, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        seen.append((obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward, term, trunc))
        if term or trunc:
            break
    return seen


@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
def test_pettingzoo_env_round_trip(how: str) -> None:
    from hansa.ai.pettingzoo_env import env

    e = env(players=3, options=ALL, max_moves=400)
    e.reset(seed=5)
    drive_pettingzoo(e, 120, seed=1)
    clone = pickle.loads(pickle.dumps(e)) if how == "pickle" else copy.deepcopy(e)
    before = e.unwrapped.state_.key()
    assert clone.unwrapped.state_.key() == before and clone.agent_selection == e.agent_selection
    ahead = drive_pettingzoo(clone, 80, seed=2)
    assert e.unwrapped.state_.key() == before
    assert drive_pettingzoo(e, 80, seed=2) == ahead


@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
def test_gym_env_round_trip(how: str) -> None:
    from hansa.ai.gym_env import HansaEnv

    env = HansaEnv(players=3, opponents=["heuristic", "purpose"], options={"missions": True}, max_moves=300)
    env.reset(seed=4)
    drive_gym(env, 15, seed=1)
    clone = pickle.loads(pickle.dumps(env)) if how == "pickle" else copy.deepcopy(env)
    before = env.state.key()
    ahead = drive_gym(clone, 30, seed=2)  # the bots' random streams are carried too: the same game follows
    assert env.state.key() == before
    assert drive_gym(env, 30, seed=2) == ahead


# ---------------------------------------------------------------------------------------------- across processes


def play_on(obj: Any, steps: int, seed: int) -> Any:
    """In a worker process: play on whatever was sent (a position, a game or an environment) and send it back."""
    if isinstance(obj, GameState):
        random_moves(obj, steps, seed)
    elif isinstance(obj, Game):
        rng = random.Random(seed)
        for _ in range(steps):
            if obj.is_over:
                break
            obj.play(rng.choice(obj.legal_moves()))
    elif hasattr(obj, "agent_iter"):
        drive_pettingzoo(obj, steps, seed)
    else:
        drive_gym(obj, steps, seed)
    return obj


def test_process_pool_spawn() -> None:
    """Positions, a game and both environments go to spawned workers (fresh interpreters: nothing shared), are
    played on there, and come back as the same games as played here."""
    from hansa.ai.gym_env import HansaEnv
    from hansa.ai.pettingzoo_env import env

    state = GameState.new(4, 8, {"map": "east"})
    random_moves(state, 50, seed=1)
    modules = GameState.new(3, 9, ALL)
    random_moves(modules, 50, seed=1)
    game = Game(3, seed=2)
    pz = env(players=3, max_moves=500)
    pz.reset(seed=3)
    drive_pettingzoo(pz, 30, seed=1)
    gym = HansaEnv(players=3, opponents="purpose", max_moves=500)
    gym.reset(seed=4)
    objects = [state, modules, game, pz, gym]
    with ProcessPoolExecutor(max_workers=2, mp_context=multiprocessing.get_context("spawn")) as pool:
        back = list(pool.map(play_on, objects, [40] * len(objects), range(len(objects))))
    for i, (obj, returned) in enumerate(zip(objects, back, strict=True)):
        local = play_on(obj, 40, i)
        if isinstance(local, GameState):
            assert returned.key() == local.key() and hidden(returned) == hidden(local)
        elif isinstance(local, Game):
            assert returned.moves == local.moves and returned.state.key() == local.state.key()
        elif hasattr(local, "agent_iter"):
            assert returned.unwrapped.state_.key() == local.unwrapped.state_.key()
            assert drive_pettingzoo(returned, 20, 7) == drive_pettingzoo(local, 20, 7)
        else:
            assert returned.state.key() == local.state.key()
            assert drive_gym(returned, 10, 7) == drive_gym(local, 10, 7)


def openspiel_play_on(state: Any, steps: int, seed: int) -> Any:
    """In a worker process: apply ``steps`` random actions (chance outcomes included) to an OpenSpiel state."""
    rng = random.Random(seed)
    for _ in range(steps):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
    return state


def test_openspiel_game_and_states_through_a_spawn_pool() -> None:
    """python_hansa's game and states (before, during and after the setup's chance nodes; with the modules) pickle
    to spawned workers (which register the game on unpickling), play on there, and come back equal to the same
    play here: the same history, serialization, observation tensor and returns."""
    pyspiel = pytest.importorskip("pyspiel")
    import hansa.ai.openspiel_game  # noqa: F401 - registers python_hansa

    games = [pyspiel.load_game("python_hansa", {"players": 3}),
             pyspiel.load_game("python_hansa", {"players": 4, "missions": True, "emperors_favour": True})]
    states = [games[0].new_initial_state()]
    midway = games[0].new_initial_state()
    openspiel_play_on(midway, 2, seed=5)  # inside the chance nodes
    states.append(midway)
    for game in games:
        dealt = game.new_initial_state()
        openspiel_play_on(dealt, 60, seed=6)
        states.append(dealt)
    with ProcessPoolExecutor(max_workers=2, mp_context=multiprocessing.get_context("spawn")) as pool:
        back = list(pool.map(openspiel_play_on, states, [80] * len(states), range(len(states))))
        assert [str(g) for g in pool.map(pickle.loads, [pickle.dumps(g) for g in games])] == [str(g) for g in games]
    for i, (state, returned) in enumerate(zip(states, back, strict=True)):
        local = openspiel_play_on(state.clone(), 80, i)
        assert returned.history() == local.history() and returned.returns() == local.returns()
        if returned.position is not None:  # the dealt position, hidden markers and cards included
            assert returned.gs.key() == local.gs.key() and hidden(returned.gs) == hidden(local.gs)
            assert returned.gs.missions == local.gs.missions
        if not local.is_chance_node() and not local.is_terminal():
            player = local.current_player()
            assert np.array_equal(np.asarray(returned.observation_tensor(player)), np.asarray(local.observation_tensor(player)))
    assert isinstance(back[0], pyspiel.State)
