"""The OpenSpiel game ``python_hansa``: OpenSpiel's own random simulation test, hansa's determinization as
resample_from_infostate (public information kept, hidden markers reshuffled), and OpenSpiel's ISMCTS and MCTS bots
running on it unchanged."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="the openspiel extra is not installed")

from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402

import hansa.ai.openspiel_game  # noqa: E402,F401 - registers python_hansa
from hansa.core.state import GameState  # noqa: E402


def hansa_state(players: int, seed: int) -> GameState:
    return GameState.new(players, seed)


@pytest.mark.parametrize(
    "params",
    [{"players": 2, "variant": "neutral"}, {"players": 2, "variant": "pawn"}, {"players": 3}, {"players": 5},
     {"players": 3, "map": "east"}, {"players": 4, "map": "britannia"}],
    ids=["2n", "2p", "3", "5", "east-3", "britannia-4"],
)
def test_random_sim_test(params: dict) -> None:
    game = pyspiel.load_game("python_hansa", {**params, "max_moves": 250})
    assert game.num_players() == params["players"]
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_game_type_and_sizes() -> None:
    game = pyspiel.load_game("python_hansa", {"players": 4})
    t = game.get_type()
    assert t.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert t.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert t.utility == pyspiel.GameType.Utility.GENERAL_SUM
    assert game.num_distinct_actions() == 2937 and game.observation_tensor_shape() == [3155]



@pytest.mark.parametrize(
    ("params", "side", "actions", "observation"),
    [({"players": 3, "map": "east"}, "east", 2946, 4074), ({"players": 5, "map": "east"}, "east", 2946, 4074),
     ({"players": 3, "map": "britannia"}, "britannia_3", 3255, 4043),
     ({"players": 4, "map": "britannia"}, "britannia_45", 3567, 4556)],
    ids=["east-3", "east-5", "britannia-3", "britannia-4"],
)
def test_expansion_maps(params: dict, side: str, actions: int, observation: int) -> None:
    """The ``map`` parameter plays an expansion map with its board side's action index and observation."""
    game = pyspiel.load_game("python_hansa", params)
    assert game.num_distinct_actions() == actions and game.observation_tensor_shape() == [observation]
    state = game.dealt_state(1)
    assert state.gs.board.side == side and state.gs.options.map == params["map"]
    assert game.get_parameters()["map"] == params["map"]


def test_two_players_refused_on_an_expansion_map() -> None:
    with pytest.raises(ValueError, match="3 to 5 players"):
        pyspiel.load_game("python_hansa", {"players": 2, "map": "east"})


def test_resample_keeps_what_the_player_knows() -> None:
    game = pyspiel.load_game("python_hansa", {"players": 3})
    state = game.dealt_state(5)
    rng = np.random.RandomState(0)
    while len(state.history()) < 150 and not state.is_terminal():
        state.apply_action(int(rng.choice(state.legal_actions())))
    differ = 0
    for _ in range(10):
        other = state.resample_from_infostate(0, pyspiel.UniformProbabilitySampler(0.0, 1.0))
        assert other.history() == state.history() and other.legal_actions() == state.legal_actions()
        for p in range(3):
            assert other.information_state_string(p) == state.information_state_string(p)
            assert np.array_equal(other.observation_tensor(p), state.observation_tensor(p))
        differ += other.gs.marker_supply != state.gs.marker_supply
    assert differ > 0  # the hidden markers were reshuffled
    assert " | " in state.information_state_string(1)  # perfect recall: the history is in it


def test_openspiel_ismcts_and_mcts_play_it_unchanged() -> None:
    game = pyspiel.load_game("python_hansa", {"players": 3, "max_moves": 200})
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(1))
    bots = [
        ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=8, random_state=np.random.RandomState(2)),
        mcts.MCTSBot(game, 2.0, 8, evaluator, random_state=np.random.RandomState(3)),
    ]
    state = game.dealt_state(7)
    for _ in range(12):
        action = bots[len(state.history()) % 2].step(state)
        assert action in state.legal_actions()
        state.apply_action(action)


# ---------------------------------------------------------------------------------------------- serialization


def played(game: Any, seed: int, actions: int) -> Any:
    """A state after the setup's chance nodes (sampled from their outcomes) and ``actions`` random actions."""
    rng = np.random.RandomState(seed)
    state = game.new_initial_state()
    while len(state.history()) < actions and not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    return state


def assert_same_state(a: Any, b: Any) -> None:
    """The same game: the whole position (hidden marker order and mission cards included), history, decisions,
    tensors and strings, and the same continuation under the same actions."""
    assert a is not b and a.gs is not b.gs
    assert a.gs.key() == b.gs.key() and a.gs.marker_supply == b.gs.marker_supply and a.gs.missions == b.gs.missions
    assert a.history() == b.history() and str(a) == str(b) and a.legal_actions() == b.legal_actions()
    for p in range(a.num_players()):
        assert np.array_equal(a.observation_tensor(p), b.observation_tensor(p))
        assert a.information_state_string(p) == b.information_state_string(p)
    for action in a.legal_actions()[:1]:
        before = a.gs.key()
        b.apply_action(action)
        assert a.gs.key() == before  # independent
        a.apply_action(action)
        assert a.gs.key() == b.gs.key()


SERIAL_PARAMS = [
    {"players": 3, "missions": True, "emperors_favour": True,
     "marker_supply": "extra-office,extra-office,swap,+3,+4,improve,remove3,exchange,exchange,tribute,tribute,block"},
    {"players": 2, "variant": "pawn"},
    {"players": 4, "map": "east"},
]


@pytest.mark.parametrize("params", SERIAL_PARAMS, ids=["3-modules", "2p", "east-4"])
def test_serialize_game_and_state(params: dict) -> None:
    """pyspiel.serialize_game_and_state / deserialize_game_and_state, game.deserialize_state and pickle give the
    same game and state."""
    import pickle

    game = pyspiel.load_game("python_hansa", {**params, "max_moves": 400})
    for actions in (0, 2, 4, 130):  # before, during and after the setup's chance nodes, and in play
        state = played(game, actions, actions)
        text = pyspiel.serialize_game_and_state(game, state)
        game2, state2 = pyspiel.deserialize_game_and_state(text)
        assert str(game2) == str(game) and game2.get_parameters() == game.get_parameters()
        if actions < 4:
            assert state2.is_chance_node() and str(state2) == str(state) and state2.history() == state.history()
            continue
        assert_same_state(state, state2)
        assert_same_state(state, game.deserialize_state(state.serialize()))
        assert_same_state(state, pickle.loads(pickle.dumps(state)))
    copy = pickle.loads(pickle.dumps(game))
    assert type(copy) is type(game) and str(copy) == str(game) and copy.actions is game.actions
    assert copy.num_distinct_actions() == game.num_distinct_actions()


def test_no_game_random_state() -> None:
    """OpenSpiel's check for stateful games (open_spiel/python/tests/sampled_stochastic_games_test.py): after a
    playout and a pickle round trip, the game makes the same initial states and the same playouts.  The game holds
    no random state (the chance nodes deal), so this holds by construction."""
    import pickle

    from open_spiel.python import test_utils

    game = pyspiel.load_game("python_hansa", {"players": 3, "max_moves": 150})
    for seed in range(2):
        test_utils.random_playout(game.new_initial_state(), seed)
        copy = pickle.loads(pickle.dumps(game))
        state = test_utils.random_playout(game.new_initial_state(), seed)
        assert str(state) == str(test_utils.random_playout(copy.new_initial_state(), seed))
    assert game.new_initial_state().is_chance_node() and game.max_chance_outcomes() == 256


def test_chance_nodes_deal_the_engine_setup() -> None:
    game = pyspiel.load_game("python_hansa", {"players": 3})
    state = game.dealt_state(0x01020304)
    assert state.history() == [1, 2, 3, 4] and state.gs.seed == 0x01020304
    assert state.gs.key() == hansa_state(3, 0x01020304).key()
    assert all(" 1 2 3 4" not in state.information_state_string(p) for p in range(3))  # the seed is nobody's
    with pytest.raises(ValueError, match="setup seed"):
        game.dealt_state(2**32)


# ---------------------------------------------------------------------------------------------- fast tensors


@pytest.mark.parametrize("params", [{"players": 3}, {"players": 4, "map": "east"}, SERIAL_PARAMS[0]],
                         ids=["3", "east-4", "3-modules"])
def test_fast_paths_equal_openspiel_own(params: dict) -> None:
    """The Python ``legal_actions``, ``observation_tensor`` and ``information_state_tensor`` (numpy, no list) and the
    observer filled in place give exactly what OpenSpiel's C++ state gives, at every node of a game (chance nodes
    and Move-3 shifts' second steps included)."""
    from open_spiel.python.observation import make_observation

    game = pyspiel.load_game("python_hansa", {**params, "max_moves": 150})
    observer = make_observation(game)
    state = game.new_initial_state()
    rng = np.random.RandomState(4)
    while True:
        assert state.legal_actions() == pyspiel.State.legal_actions(state)
        for p in range(game.num_players()):
            assert state.legal_actions(p) == pyspiel.State.legal_actions(state, p)
            if state.is_terminal():
                continue
            values = pyspiel.State.observation_tensor(state, p)
            tensor = state.observation_tensor(p)
            assert tensor.dtype == np.float32 and tensor.tolist() == values
            assert state.information_state_tensor(p).tolist() == pyspiel.State.information_state_tensor(state, p)
            observer.set_from(state, p)
            assert observer.tensor.tolist() == values
        if state.is_terminal():
            break
        state.apply_action(int(rng.choice(state.legal_actions())))
    with pytest.raises(ValueError, match="not one of the"):
        state.observation_tensor()  # no current player at the end
