"""Information-set Monte Carlo tree search (single-observer ISMCTS with determinization and an opponent model).

The tree holds the searching seat's own decisions only.  Each iteration

1. draws a **determinization** of the hidden information (the face-down marker supply and the plates are
   reshuffled with :meth:`~hansa.core.state.GameState.determinized`, so the bot never learns them);
2. **selects** own moves with UCB1 among the moves legal in that determinization (the candidates are the
   heuristic bot's: every non-house move and the best ``width`` house moves by its route prior);
3. after every own move it selects, plays a **heuristic-guided playout** up to the seat's next real choice: every
   other seat's decision (a whole turn, a relocation, ...) and every forced move of its own is played by the
   heuristic bot's one-action lookahead (:class:`~hansa.bots.heuristic.HeuristicBot` with ``model_width``
   house candidates).  The playout is cached on the edge and replayed by later iterations (recomputed from the
   first move that a different determinization makes illegal), and the model's answers are kept by public
   position, so a position reached again (own moves in another order) costs no new lookahead;
4. **expands** one untried own move and scores the position right after it with
   :func:`hansa.bots.evaluation.evaluate` (or the final scores when the game is over); the other seats' answers
   to it are played out only when the search comes back to that node, so a move tried once costs no opponent
   modelling.  The reward is a logistic of how much the seat's margin over its best rival changed since the root
   (plus its actions left and, in the pawn variant, the pawn's reach);
5. **backs up** the reward along the path.

The move played is the root child with the most visits.  So the search plans the seat's own turn (and turns beyond
it, as the budget allows) against opponents who answer as a sensible greedy player would, instead of against
random play.  In a game that has gone on far longer than real games do (past ``Weights.long_game_rounds``), the
bot plays the heuristic bot's move instead, whose stall breaker (:func:`~hansa.bots.heuristic.progress_pressure`)
pushes the game to its end.  An iteration is one playout; ``last_stats`` reports how many ran.  The search's
weights (:data:`MCTS_WEIGHTS`) keep at least six pieces free to move, so that a bot far ahead can still fill a route
and end the game (with four, a small budget against random opponents stranded it and the game stalled).

With the Big Box modules the tree and the playouts take the heuristic bot's candidates and model as they are (tiles,
Tribute, Block, Exchange, F-INC's share, a tribute's mix); each determinization also deals the other seats' mission
cards again, and every evaluation (the root's baseline included) counts only the searching seat's own card, so the
search never reads another seat's card.

Budgets: ``iterations`` or ``seconds`` per decision.  Levels: easy = 60 iterations, medium = 250 iterations,
hard = 1.0 second.
"""

from __future__ import annotations

import dataclasses
import math
import random

from ..core.errors import IllegalMoveError
from ..core.moves import Move
from ..core.scoring import final_scores
from ..core.state import GameState
from . import clock
from .base import Bot
from .evaluation import DEFAULT, Weights, evaluate, pawn_reach, tempo
from .heuristic import HeuristicBot, progress_pressure

#: The search's weights: :data:`~hansa.bots.evaluation.DEFAULT` with the mobility floor at 6 pieces instead of 4.
#: With a small budget (``mcts:seconds=0.02``, ``mcts:iterations=8``) against random opponents, whose pieces
#: clog the routes for good, the bot took an office with every claim until it had 2 pieces left to move; it then
#: led by 50 points but could fill no route of three houses, so it scored a point every few hundred moves and the
#: game reached a 2,000-move cap unfinished (arena game 2 of ``--seats mcts:iterations=8,uniform,uniform --seed
#: 301``).  From 6 down, every office costs more than it brings and an ability (which frees a piece) is preferred.
MCTS_WEIGHTS = dataclasses.replace(DEFAULT, mobile_floor=6)

LEVELS: dict[str, dict[str, float]] = {
    "easy": {"iterations": 60},
    "medium": {"iterations": 250},
    "hard": {"seconds": 1.0},
}


class Node:
    """A decision of the searching seat: the own move that led here, the playout after it, and statistics."""

    __slots__ = ("move", "parent", "children", "visits", "total", "options", "playout")

    def __init__(self, move: Move | None, parent: Node | None) -> None:
        self.move = move
        self.parent = parent
        self.children: dict[Move, Node] = {}
        self.visits = 0
        self.total = 0.0
        #: Candidate own moves here (computed on the first visit).
        self.options: list[Move] | None = None
        #: The moves played after ``move`` until the searching seat chooses again (cached playout).
        self.playout: list[Move] = []


class MctsBot(Bot):
    """ISMCTS over the bot's own decisions, with the heuristic bot as the model of everyone else."""

    name = "mcts"

    def __init__(
        self,
        seed: int | None = None,
        iterations: int | None = None,
        seconds: float | None = None,
        exploration: float = 0.5,
        width: int = 6,
        model_width: int = 3,
        weights: Weights = MCTS_WEIGHTS,
        scale: float = 2.0,
    ) -> None:
        if iterations is None and seconds is None:
            iterations = LEVELS["medium"]["iterations"]  # type: ignore[assignment]
        self.rng = random.Random(seed)
        self.iterations = iterations
        self.seconds = seconds
        self.exploration = exploration
        self.weights = weights
        self.scale = scale
        self.prior = HeuristicBot(seed, weights, width=width)
        self.model = HeuristicBot(None if seed is None else seed + 7919, weights, width=model_width)
        self._me = 0
        self._baseline = 0.0
        #: The opponent model's answers in this search, by public position (transpositions: own moves in another
        #: order, or another determinization, reach the same position, and the model's answer depends only on it).
        self._answers: dict[tuple[object, ...], Move] = {}
        #: Statistics of the last search (iterations, seconds, playouts per second).
        self.last_stats: dict[str, float] = {}

    @classmethod
    def from_spec(cls, spec: str, seed: int | None = None) -> MctsBot:
        """``easy`` / ``medium`` / ``hard``, or settings joined by ``/``: ``iterations=N``, ``seconds=S``,
        ``width=W`` (own house-move candidates), ``model=M`` (the opponent model's house-move candidates),
        ``c=X`` (exploration), ``scale=K`` (points per unit of the reward's logistic)."""
        if spec in LEVELS:
            bot = cls(seed, **LEVELS[spec])  # type: ignore[arg-type]
            bot.name = f"mcts:{spec}"
            return bot
        kwargs: dict[str, float | int] = {}
        names = {"iterations": ("iterations", int), "seconds": ("seconds", float), "width": ("width", int),
                 "model": ("model_width", int), "c": ("exploration", float), "scale": ("scale", float)}
        try:
            for part in spec.split("/"):
                key, _, value = part.partition("=")
                name, kind = names[key.strip()]
                number = kind(value)
                if number < 0 or (name != "exploration" and number <= 0):
                    raise ValueError
                kwargs[name] = number
        except (KeyError, ValueError):
            raise ValueError(
                f"unknown mcts budget {spec!r}: use easy, medium, hard, or iterations=N / seconds=S "
                "[/width=W][/model=M][/c=X][/scale=K]"
            ) from None
        bot = cls(seed, **kwargs)  # type: ignore[arg-type]
        bot.name = f"mcts:{spec}"
        return bot

    # ------------------------------------------------------------------ search

    def choose(self, state: GameState, legal: list[Move] | None = None) -> Move:
        start = clock.now()
        moves = legal if legal is not None else state.legal_moves()
        if len(moves) == 1:
            return moves[0]
        me = state.decider
        if progress_pressure(state, self.weights):  # a stalled game (see progress_pressure): play to end it
            self.last_stats = {"iterations": 0, "seconds": clock.now() - start, "playouts_per_second": 0.0}
            return self.prior.choose(state, moves)
        self._me = me
        self._answers = {}
        root = Node(None, None)
        root.options = self.prior.candidates(state, moves, me)
        if len(root.options) == 1:
            return root.options[0]
        deadline = start + self.seconds if self.seconds is not None else math.inf
        reserve = min(0.002, 0.01 * self.seconds) if self.seconds is not None else 0.0
        limit = self.iterations if self.iterations is not None else 10**9
        self._baseline = self._standing(state, evaluate(state, self.weights, me))
        done = 0
        while done < limit:
            if done:  # time budget: stop when two more iterations of the average length (and the choice of
                now = clock.now()  # the move, 2 ms) would overrun it: some iterations are longer
                if now + 2.0 * (now - start) / done + reserve > deadline:
                    break
            self._iterate(state, root)
            done += 1
        elapsed = clock.now() - start
        self.last_stats = {"iterations": done, "seconds": elapsed, "playouts_per_second": done / elapsed if elapsed else 0.0}
        best = max(root.children.values(), key=lambda n: (n.visits, n.total / n.visits))
        assert best.move is not None
        return best.move

    def _iterate(self, state: GameState, root: Node) -> None:
        s = state.determinized(self.rng)
        node = root
        me = self._me
        while True:
            if s.is_over or s.decider != me:
                break
            if node.options is None:
                node.options = self.prior.candidates(s, s.legal_moves(), me)
            options = node.options
            untried = None
            for m in options:
                if m not in node.children:
                    untried = m
                    break
            if untried is not None:  # expansion: one new own move, its playout, then the evaluation
                try:
                    s.play(untried)
                except IllegalMoveError:  # not legal in this determinization (hidden markers): skip it here
                    break
                child = Node(untried, node)  # its playout is played when the search comes back to it
                node.children[untried] = child
                node = child
                break
            log_n = math.log(node.visits + 1)
            c = self.exploration
            best: Node | None = None
            best_score = -math.inf
            for m in options:
                ch = node.children[m]
                score = ch.total / ch.visits + c * math.sqrt(log_n / ch.visits)
                if score > best_score:
                    best, best_score = ch, score
            assert best is not None and best.move is not None
            try:
                s.play(best.move)
            except IllegalMoveError:
                break
            best.playout = self._playout(s, best.playout)
            node = best
        value = self._reward(s)
        while node is not None:
            node.visits += 1
            node.total += value
            node = node.parent  # type: ignore[assignment]

    def _playout(self, s: GameState, cached: list[Move]) -> list[Move]:
        """Play every decision that is not a real choice of the searching seat (other seats' decisions by the
        heuristic model, own forced moves) until the seat must choose or the game ends; return the moves.
        ``cached`` is replayed first for as long as it stays legal."""
        me = self._me
        played: list[Move] = []
        for move in cached:
            if s.is_over:
                return played
            try:
                s.play(move)
            except IllegalMoveError:
                break
            played.append(move)
        while not s.is_over:
            if s.decider == me:
                legal = s.legal_moves()
                if len(legal) != 1:
                    break
                move = legal[0]
            else:
                key = s.public_key()
                move = self._answers.get(key)  # type: ignore[assignment]
                if move is None:
                    move = self._answers[key] = self.model.choose(s)
                else:
                    try:
                        s.play(move)
                    except IllegalMoveError:  # hidden markers make it illegal in this determinization
                        move = self.model.choose(s)
                    else:
                        played.append(move)
                        continue
            s.play(move)
            played.append(move)
        return played

    def _reward(self, s: GameState) -> float:
        """Logistic of the change of the searching seat's margin over its best rival since the root, in (0, 1)."""
        if s.is_over:
            values = [float(b.total) for b in final_scores(s)]
        else:
            values = evaluate(s, self.weights, self._me)
        d = (self._standing(s, values) - self._baseline) / self.scale
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, d))))

    def _standing(self, s: GameState, values: list[float]) -> float:
        """The searching seat's margin over its best rival in ``values``, plus its actions left and pawn reach."""
        me, w = self._me, self.weights
        return _margin(values, me) + tempo(s, me, w) + pawn_reach(s, me, w)


def _margin(values: list[float], p: int) -> float:
    """``values[p]`` minus the best other seat's value."""
    return values[p] - max(v for q, v in enumerate(values) if q != p)
