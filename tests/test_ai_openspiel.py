"""The OpenSpiel game ``python_hansa``: OpenSpiel's own random simulation test, hansa's determinization as
resample_from_infostate (public information kept, hidden markers reshuffled), and OpenSpiel's ISMCTS and MCTS bots
running on it unchanged."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="the openspiel extra is not installed")

from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402

import hansa.ai.openspiel_game  # noqa: E402,F401 - registers python_hansa


@pytest.mark.parametrize(
    "params",
    [{"players": 2, "variant": "neutral"}, {"players": 2, "variant": "pawn"}, {"players": 3}, {"players": 5},
     {"players": 3, "map": "east"}, {"players": 4, "map": "britannia"}],
    ids=["2n", "2p", "3", "5", "east-3", "britannia-4"],
)
def test_random_sim_test(params: dict) -> None:
    game = pyspiel.load_game("python_hansa", {**params, "max_moves": 250})
    assert game.num_players() == params["players"]
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)


def test_game_type_and_sizes() -> None:
    game = pyspiel.load_game("python_hansa", {"players": 4})
    t = game.get_type()
    assert t.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert t.chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC
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
    state = game.new_initial_state()
    assert state.gs.board.side == side and state.gs.options.map == params["map"]
    assert game.get_parameters()["map"] == params["map"]


def test_two_players_refused_on_an_expansion_map() -> None:
    with pytest.raises(ValueError, match="3 to 5 players"):
        pyspiel.load_game("python_hansa", {"players": 2, "map": "east"})


def test_resample_keeps_what_the_player_knows() -> None:
    game = pyspiel.load_game("python_hansa", {"players": 3, "rng_seed": 5})
    state = game.new_initial_state()
    rng = np.random.RandomState(0)
    while len(state.history()) < 150 and not state.is_terminal():
        state.apply_action(int(rng.choice(state.legal_actions())))
    differ = 0
    for _ in range(10):
        other = state.resample_from_infostate(0, pyspiel.UniformProbabilitySampler(0.0, 1.0))
        assert other.history() == state.history() and other.legal_actions() == state.legal_actions()
        for p in range(3):
            assert other.information_state_string(p) == state.information_state_string(p)
            assert other.observation_tensor(p) == state.observation_tensor(p)
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
    state = game.new_initial_state()
    for _ in range(12):
        action = bots[len(state.history()) % 2].step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
