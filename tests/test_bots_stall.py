"""No bot game may stall: hansa's MCTS drives a game it leads to its end, and ladder-style arena games all end
before a move cap.

The stall: with a small budget against random opponents (whose pieces clog the routes for good) ``mcts`` took an
office with every claim until it had two pieces left to move, then led by 50 points but could fill no route of three
houses, and the game reached the 2,000-move cap unfinished (arena game 2 of ``hansa arena --players 3 --seats
mcts:iterations=8,uniform,uniform --games 10 --seed 301 --max-moves 2000``; the issue's game at ``mcts:seconds=0.02``
against OpenSpiel bots playing at random was the same).  The search's weights now keep at least six pieces free
(:data:`hansa.bots.mcts.MCTS_WEIGHTS`)."""

from __future__ import annotations

from hansa.arena import ArenaConfig, bot_seed, play_game, run_arena
from hansa.bots import make_bot
from hansa.bots.evaluation import DEFAULT
from hansa.bots.mcts import MCTS_WEIGHTS, MctsBot
from hansa.core.state import GameState

STALLED = ArenaConfig.build(3, "mcts:iterations=8,uniform,uniform", games=10, seed=301, max_moves=2000)


def _mobile(state: GameState, p: int) -> int:
    """Pieces of ``p`` that can still move: supply, stock and houses on the routes (not offices)."""
    return state.sup_t[p] + state.sup_m[p] + state.stk_t[p] + state.stk_m[p] + len(state.own[p])


def _least_mobile(weights: object, moves: int) -> int:
    """Replay the stalled game's first ``moves`` moves with MCTS on ``weights``: its fewest movable pieces after
    move 100."""
    task = STALLED.task(2)
    state = GameState.new(3, task.seed, task.options)
    bots = [make_bot(spec, bot_seed(task.seed, s)) for s, spec in enumerate(task.specs)]
    me = task.specs.index("mcts:iterations=8")
    bots[me] = MctsBot(bot_seed(task.seed, me), iterations=8, weights=weights)  # type: ignore[arg-type]
    least = 99
    for n in range(moves):
        if state.is_over:
            break
        state.play(bots[state.decider].choose(state))
        if n >= 100 and not state.hand:  # not in the middle of a Move (a lifted piece is in hand)
            least = min(least, _mobile(state, me))
    return least


def test_the_stalled_game_now_ends_and_mcts_wins_it() -> None:
    row = play_game(STALLED.task(2))
    assert row.finished and row.moves < 2000
    mcts = next(s for s in row.seats if s.spec.startswith("mcts"))
    assert row.winners == [mcts.seat]


def test_the_cause_a_seat_without_pieces_to_move() -> None:
    """The replay's first 300 moves: on the evaluation's default weights MCTS strands itself (two or fewer pieces
    left to move: no route of three can be filled); on its own weights it keeps enough."""
    assert MCTS_WEIGHTS.mobile_floor > DEFAULT.mobile_floor
    assert _least_mobile(DEFAULT, 300) <= 2
    assert _least_mobile(MCTS_WEIGHTS, 300) >= 3


def test_ladder_games_all_end() -> None:
    """Ladder-style games (a pool, every combination in turn) of the fast bots with MCTS at a small budget: every
    game ends before a 2,000-move cap."""
    result = run_arena(ArenaConfig.build(3, "mcts:iterations=8,heuristic,purpose,random", games=4, seed=40,
                                         max_moves=2000, pool=True))
    assert [r.finished for r in result.rows] == [True] * len(result.rows)
    assert all(r.moves < 2000 for r in result.rows)
