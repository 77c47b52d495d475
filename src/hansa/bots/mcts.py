"""Information-set Monte Carlo tree search (single-observer ISMCTS with determinization).

Each iteration draws a determinization of the hidden information (the face-down marker supply and the plates are
reshuffled with :meth:`~hansa.core.state.GameState.determinized`), descends the tree choosing among the moves
legal in that determinization with UCB1 on availability counts (multi-player: every node stores one reward sum
per seat and the seat to move maximises its own), expands one move, runs a short heuristic-guided playout and
backs up a reward per seat.  The playout stops after ``playout_depth`` decisions (or the end of the game) and
the position is scored with :func:`hansa.bots.evaluation.evaluate`.

Branching is kept small by expanding only the heuristic bot's candidate moves at each node (every non-house
move and the best ``width`` house moves by the heuristic prior).

Budgets: ``iterations`` or ``seconds`` per decision.  Levels: easy = 60 iterations, medium = 300 iterations,
hard = 1.0 second.
"""

from __future__ import annotations

import math
import random
import time

from ..core.moves import Claim, Done, Drop, EndTurn, Move, Place, Relocate
from ..core.scoring import final_scores
from ..core.state import GameState
from .base import Bot
from .evaluation import DEFAULT, Weights, evaluate
from .heuristic import HeuristicBot

LEVELS: dict[str, dict[str, float]] = {
    "easy": {"iterations": 60},
    "medium": {"iterations": 300},
    "hard": {"seconds": 1.0},
}


class Node:
    """A tree node: the move that led here, statistics, and children by move."""

    __slots__ = ("move", "parent", "seat", "children", "visits", "avail", "rewards")

    def __init__(self, move: Move | None, parent: Node | None, seat: int, players: int) -> None:
        self.move = move
        self.parent = parent
        self.seat = seat  # the seat that chose ``move``
        self.children: dict[Move, Node] = {}
        self.visits = 0
        self.avail = 1
        self.rewards = [0.0] * players


class MctsBot(Bot):
    """ISMCTS bot with heuristic move filtering, heuristic-guided playouts and evaluated cut-offs."""

    name = "mcts"

    def __init__(
        self,
        seed: int | None = None,
        iterations: int | None = None,
        seconds: float | None = None,
        exploration: float = 0.7,
        playout_depth: int = 16,
        width: int = 6,
        weights: Weights = DEFAULT,
        scale: float = 2.0,
        prior_visits: int = 8,
    ) -> None:
        if iterations is None and seconds is None:
            iterations = 300
        self.rng = random.Random(seed)
        self.iterations = iterations
        self.seconds = seconds
        self.exploration = exploration
        self.playout_depth = playout_depth
        self.weights = weights
        self.scale = scale
        self.prior = HeuristicBot(seed, weights, width=width)
        self.prior_visits = prior_visits
        self._baseline: list[float] = []
        #: Statistics of the last search (iterations, seconds, playouts per second).
        self.last_stats: dict[str, float] = {}

    @classmethod
    def from_spec(cls, spec: str, seed: int | None = None) -> MctsBot:
        """``easy`` / ``medium`` / ``hard``, or settings joined by ``/``: ``iterations=N``, ``seconds=S``,
        ``depth=D`` (playout length), ``width=W``, ``c=X`` (exploration), ``prior=V`` (virtual visits)."""
        if spec in LEVELS:
            bot = cls(seed, **LEVELS[spec])  # type: ignore[arg-type]
            bot.name = f"mcts:{spec}"
            return bot
        kwargs: dict[str, float | int] = {}
        names = {"iterations": ("iterations", int), "seconds": ("seconds", float), "depth": ("playout_depth", int),
                 "width": ("width", int), "c": ("exploration", float), "prior": ("prior_visits", int)}
        try:
            for part in spec.split("/"):
                key, _, value = part.partition("=")
                name, kind = names[key.strip()]
                number = kind(value)
                if number < 0 or (name in ("iterations", "seconds", "width") and number <= 0):
                    raise ValueError
                kwargs[name] = number
        except (KeyError, ValueError):
            raise ValueError(
                f"unknown mcts budget {spec!r}: use easy, medium, hard, or iterations=N / seconds=S "
                "[/depth=D][/width=W][/c=X][/prior=V]"
            ) from None
        bot = cls(seed, **kwargs)  # type: ignore[arg-type]
        bot.name = f"mcts:{spec}"
        return bot

    # ------------------------------------------------------------------ search

    def choose(self, state: GameState, legal: list[Move] | None = None) -> Move:
        moves = legal if legal is not None else state.legal_moves()
        if len(moves) == 1:
            return moves[0]
        me = state.decider
        players = state.players
        root = Node(None, None, me, players)
        start = time.perf_counter()
        deadline = start + self.seconds if self.seconds is not None else math.inf
        limit = self.iterations if self.iterations is not None else 10**9
        done = 0
        root_options = self.prior.candidates(state, moves, me)
        # Rewards measure how each seat's margin over its best rival changes from the root position.
        self._baseline = _margins(evaluate(state, self.weights))
        self._seed_root(state, root, root_options)
        while done < limit and (done == 0 or time.perf_counter() < deadline):
            self._iterate(state, root, root_options)
            done += 1
        elapsed = time.perf_counter() - start
        self.last_stats = {"iterations": done, "seconds": elapsed, "playouts_per_second": done / elapsed if elapsed else 0.0}
        best = max(root.children.values(), key=lambda n: (n.visits, n.rewards[me]))
        assert best.move is not None
        return best.move

    def _seed_root(self, state: GameState, root: Node, options: list[Move]) -> None:
        """Progressive bias at the root: every candidate starts with ``prior_visits`` virtual visits valued by the
        heuristic bot's one-action lookahead, so the search starts from the heuristic's opinion and must find
        evidence to overturn it."""
        if self.prior_visits <= 0:
            return
        base = state.determinized(self.rng)
        for move in options:
            child_state = base.copy()
            child_state.play(move)
            self.prior.complete_action(child_state, root.seat)
            if child_state.is_over:
                values = [float(b.total) for b in final_scores(child_state)]
            else:
                values = evaluate(child_state, self.weights)
            rewards = self._rewards(values)
            node = Node(move, root, root.seat, state.players)
            node.visits = self.prior_visits
            node.rewards = [r * self.prior_visits for r in rewards]
            root.children[move] = node

    def _iterate(self, state: GameState, root: Node, root_options: list[Move]) -> None:
        s = state.determinized(self.rng)
        node = root
        options = root_options
        # Selection and expansion.
        while True:
            if s.is_over:
                break
            seat = s.decider
            untried = [m for m in options if m not in node.children]
            if untried:
                move = untried[self.rng.randrange(len(untried))]
                s.play(move)
                child = Node(move, node, seat, s.players)
                node.children[move] = child
                node = child
                break
            log_total = 0.0
            best_score = -math.inf
            best_child = None
            for m in options:
                child = node.children[m]
                child.avail += 1
            for m in options:
                child = node.children[m]
                log_total = math.log(child.avail)
                score = child.rewards[seat] / child.visits + self.exploration * math.sqrt(log_total / child.visits)
                if score > best_score:
                    best_score, best_child = score, child
            assert best_child is not None and best_child.move is not None
            s.play(best_child.move)
            node = best_child
            if s.is_over:
                break
            options = self.prior.candidates(s, s.legal_moves(), s.decider)
        rewards = self._playout(s)
        while node is not None:
            node.visits += 1
            for p, r in enumerate(rewards):
                node.rewards[p] += r
            node = node.parent  # type: ignore[assignment]

    # ------------------------------------------------------------------ playouts

    def _playout(self, s: GameState) -> list[float]:
        rng = self.rng
        for _ in range(self.playout_depth):
            if s.is_over:
                break
            s.play(_playout_move(s, s.legal_moves(), rng))
        if s.is_over:
            values = [float(b.total) for b in final_scores(s)]
        else:
            values = evaluate(s, self.weights)
        return self._rewards(values)

    def _rewards(self, values: list[float]) -> list[float]:
        """Per-seat reward in (0, 1): logistic of the change of the seat's margin over its best rival since the
        root position (so that small differences between moves are not drowned by who is ahead)."""
        return [
            1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, (m - b) / self.scale))))
            for m, b in zip(_margins(values), self._baseline)
        ]


def _margins(values: list[float]) -> list[float]:
    """Each seat's value minus the best other seat's value."""
    return [v - max(x for q, x in enumerate(values) if q != p) for p, v in enumerate(values)]


def _playout_move(state: GameState, moves: list[Move], rng: random.Random, sample: int = 6) -> Move:
    """Cheap heuristic playout policy: claim when possible (preferring a benefit); otherwise draw a few random
    legal moves and keep the one that builds most on a route free of opponents (ending the turn or declining
    comes last)."""
    n = len(moves)
    if n == 1:
        return moves[0]
    claims = [m for m in moves if type(m) is Claim]
    if claims:
        with_benefit = [m for m in claims if m.benefit != "nothing"]
        return rng.choice(with_benefit or claims)
    me = state.decider
    board = state.board
    houses = state.houses
    house_route = board.house_route
    house_index = board.house_index
    best = moves[0]
    best_score = -10.0
    for _ in range(sample):
        m = moves[rng.randrange(n)]
        t = type(m)
        if t is Place or t is Drop or t is Relocate:
            own = 0
            for h in board.routes[house_route[house_index[m.house]]].houses:  # type: ignore[attr-defined]
                code = houses[h]
                if code >= 0:
                    if code >> 1 != me:
                        own = -1
                        break
                    own += 1
            score = 1.0 + 2 * own if own >= 0 else 0.2
        elif t is EndTurn or t is Done:
            score = -1.0
        else:
            score = 0.5
        score += rng.random() * 0.1
        if score > best_score:
            best, best_score = m, score
    return best
