"""OpenSpiel's own search bots as hansa bots: outside baselines for the arena (needs the ``openspiel`` extra).

Bot specs (see :func:`hansa.bots.make_bot`):

* ``openspiel-ismcts:seconds=S`` — OpenSpiel's ``ISMCTSBot`` (information-set MCTS; every simulation starts from a
  world drawn by :meth:`hansa.ai.openspiel_game.HansaState.resample_from_infostate`, hansa's determinization);
* ``openspiel-mcts:seconds=S`` — OpenSpiel's ``MCTSBot`` (plain UCT; it searches one determinized copy of the
  position, drawn afresh for every decision, so it never sees the real face-down order nor another seat's card).

Both evaluate a leaf with :class:`RolloutEvaluator`, a subclass of OpenSpiel's ``mcts.Evaluator`` (the search code
is OpenSpiel's, unchanged): from the leaf every seat is played by a hansa bot (the *rollout policy*, ``rollout=``,
default ``purpose``: random with purpose, which claims and completes routes) for at most ``horizon`` moves; a
rollout that ends the game returns the win shares (OpenSpiel's returns), one cut at the horizon returns for each
seat a logistic of its margin in the final scoring of that position (its total minus the best other total, as if
the game ended there) over ``scale`` points.  The prior is uniform over the legal actions, as in OpenSpiel's
``RandomRolloutEvaluator``.

Settings, joined by ``/``: ``seconds=S`` (time per decision, default 1) or ``simulations=N`` (a fixed count,
reproducible for a seed); ``c=X`` (UCT exploration, default 0.5: the values are in [0, 1] and a rollout's noise is
small); ``rollouts=K`` (rollouts per leaf, default 1); ``rollout=SPEC`` (``purpose``, ``random``, ``uniform`` or
``heuristic``; default ``purpose``); ``horizon=H`` (moves per rollout, default 60); ``scale=K`` (points per unit of
the logistic, default 3); for ISMCTS ``final=visits|value`` (the move played: the most visited, OpenSpiel's
default, or the best mean value, the default here: below one simulation per legal action every child has one visit
and ``visits`` would pick among them at random).

Time budgets: both run simulations until the deadline (at least two), with OpenSpiel's search steps unchanged:
ISMCTS's ``run_search`` loop is rerun under a clock instead of a count; MCTS's ``mcts_search`` is given an
unbounded count and stopped at the first simulation that would start after the deadline (before it touches the
tree).  Both read :mod:`hansa.bots.clock`, so ``hansa arena --clock cpu`` counts their thread CPU time.  A Move-3
shift is two OpenSpiel decisions (shift-from, then shift-to); each gets the whole budget.
"""

from __future__ import annotations

import math
import random
from typing import Any

import numpy as np
from open_spiel.python.algorithms import ismcts, mcts

from ..bots import clock
from ..bots.base import Bot
from ..core.moves import Move
from ..core.options import GameOptions
from ..core.scoring import final_scores
from ..core.state import GameState
from .openspiel_game import HansaGame, HansaState, module_params
from .rewards import final_rewards

#: Spec settings: name -> (attribute, type).
_SETTINGS: dict[str, tuple[str, Any]] = {
    "seconds": ("seconds", float), "simulations": ("simulations", int), "c": ("uct_c", float),
    "rollouts": ("rollouts", int), "horizon": ("horizon", int), "scale": ("scale", float),
    "rollout": ("rollout", str), "final": ("final", str),
}
#: Hansa bots a rollout may use: fast ones without a search of their own (``heuristic`` is ~40x slower than ``purpose``).
ROLLOUT_BOTS = ("purpose", "random", "uniform", "heuristic")
#: The OpenSpiel search game's move limit: deeper than any search reaches (rollouts stop at their own horizon).
SEARCH_MAX_MOVES = 3000


class RolloutEvaluator(mcts.Evaluator):  # type: ignore[misc]
    """OpenSpiel's ``Evaluator`` interface with a hansa bot as the rollout policy.

    ``evaluate`` plays the leaf's position on, every seat by ``policy``, for at most ``horizon`` moves; a game that
    ends returns its win shares (OpenSpiel's returns), a rollout cut at the horizon returns for each seat
    ``1 / (1 + exp(-margin / scale))`` where ``margin`` is the seat's total minus the best other seat's total in the
    final scoring of that position.  A leaf between the two halves of a Move-3 shift (or an exchange) first
    completes it with a uniformly random legal action.  ``prior`` is uniform, as in ``RandomRolloutEvaluator``.
    The leaf is a state of the search, so the rollout sees only what the search's world holds (determinized).
    """

    def __init__(
        self, policy: Bot, horizon: int, scale: float, random_state: np.random.RandomState, n_rollouts: int = 1,
    ) -> None:
        if horizon < 1 or scale <= 0 or n_rollouts < 1:
            raise ValueError("horizon and n_rollouts must be at least 1 and scale positive")
        self.policy = policy
        self.horizon = horizon
        self.scale = scale
        self.n_rollouts = n_rollouts
        self._random_state = random_state
        #: Moves played by the rollouts (for statistics).
        self.rollout_moves = 0

    def evaluate(self, state: HansaState) -> np.ndarray:
        """Every seat's value of ``state`` (see the class docstring), averaged over ``n_rollouts`` rollouts."""
        if state.is_terminal():
            return np.array(state.returns())
        total = np.zeros(state.players)
        for _ in range(self.n_rollouts):
            total += self._rollout(state)
        return total / self.n_rollouts

    def _rollout(self, state: HansaState) -> np.ndarray:
        if state.pending is not None:  # complete the pending two-step move first
            state = state.clone()
            legal = state.legal_actions()
            state.apply_action(legal[self._random_state.randint(len(legal))])
            if state.is_terminal():
                return np.array(state.returns())
        gs = state.gs.copy()
        budget = min(self.horizon, state.max_moves - state.moves)
        moves = 0
        while moves < budget and not gs.is_over:
            gs.play(self.policy.choose(gs))
            moves += 1
        self.rollout_moves += moves
        if gs.is_over:
            return np.array(final_rewards(gs, "win"))
        totals = [s.total for s in final_scores(gs)]
        return np.array([_logistic((t - max(u for q, u in enumerate(totals) if q != p)) / self.scale)
                         for p, t in enumerate(totals)])

    def prior(self, state: HansaState) -> list[tuple[int, float]]:
        """Uniform over the legal actions."""
        legal = state.legal_actions(state.current_player())
        return [(action, 1.0 / len(legal)) for action in legal]


def _logistic(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, x))))


class _TimedISMCTS(ismcts.ISMCTSBot):  # type: ignore[misc]
    """OpenSpiel's ISMCTSBot whose search loop stops at a deadline rather than after a count."""

    seconds: float | None = None
    simulations_done = 0

    def run_search(self, state: Any) -> Any:
        if self.seconds is None:
            return super().run_search(state)
        # ISMCTSBot.run_search with `for _ in range(max_simulations)` replaced by the clock.
        self.reset()
        legal_actions = state.legal_actions()
        if len(legal_actions) == 1:
            return [(legal_actions[0], 1.0)]
        self._root_node = self.create_new_node(state)
        root_key = self.get_state_key(state)
        deadline = clock.now() + self.seconds
        done = 0
        while done < 2 or clock.now() < deadline:  # the first simulation only expands the root
            sampled = self.sample_root_state(state)
            assert root_key == self.get_state_key(sampled)
            self.run_simulation(sampled)
            done += 1
        self.simulations_done = done
        return self.get_final_policy(state, self._root_node)


class _TimeUp(Exception):
    """Raised by :class:`_TimedMCTS` where a simulation would start after the deadline."""


class _TimedMCTS(mcts.MCTSBot):  # type: ignore[misc]
    """OpenSpiel's MCTSBot whose search stops at a deadline rather than after a count.

    ``mcts_search`` is OpenSpiel's, run with an unbounded count; ``_apply_tree_policy`` (the first step of every
    simulation) ends it by raising before the simulation changes the tree, and the root searched so far is returned.
    """

    seconds: float | None = None
    simulations_done = 0
    _deadline = 0.0
    _root: Any = None

    def mcts_search(self, state: Any) -> Any:
        if self.seconds is None:
            return super().mcts_search(state)
        self.max_simulations = 2**62
        self._deadline = clock.now() + self.seconds
        self.simulations_done = 0
        self._root = None
        try:
            return super().mcts_search(state)
        except _TimeUp:
            return self._root
        finally:
            self._root = None

    def _apply_tree_policy(self, root: Any, state: Any) -> Any:
        if self.seconds is not None:
            if self.simulations_done >= 2 and clock.now() >= self._deadline:
                self._root = root
                raise _TimeUp
            self.simulations_done += 1
        return super()._apply_tree_policy(root, state)


class OpenSpielBot(Bot):
    """A hansa bot that asks an OpenSpiel bot for each decision on a :class:`HansaState` of the position."""

    def __init__(
        self,
        kind: str,
        seed: int | None = None,
        seconds: float | None = None,
        simulations: int | None = None,
        uct_c: float = 0.5,
        rollouts: int = 1,
        horizon: int = 60,
        scale: float = 3.0,
        rollout: str = "purpose",
        final: str = "value",
    ) -> None:
        if kind not in ("ismcts", "mcts"):
            raise ValueError(f"unknown OpenSpiel bot {kind!r}: ismcts or mcts")
        if rollout not in ROLLOUT_BOTS:
            raise ValueError(f"openspiel-{kind}: rollout must be one of {', '.join(ROLLOUT_BOTS)}, not {rollout!r}")
        if final not in ("visits", "value"):
            raise ValueError(f"openspiel-{kind}: final must be visits or value, not {final!r}")
        if seconds is None and simulations is None:
            seconds = 1.0
        self.kind = kind
        self.name = f"openspiel-{kind}"
        self.seconds = seconds
        self.simulations = simulations
        self.uct_c = uct_c
        self.rollouts = rollouts
        self.horizon = horizon
        self.scale = scale
        self.rollout = rollout
        self.final = final
        self.random = np.random.RandomState(None if seed is None else seed % 2**32)
        self._games: dict[tuple[Any, ...], HansaGame] = {}
        self._bots: dict[tuple[Any, ...], tuple[Any, RolloutEvaluator]] = {}
        #: Statistics of the last decision: simulations, seconds and rollout moves.
        self.last_stats: dict[str, float] = {}

    @classmethod
    def from_spec(cls, kind: str, spec: str, seed: int | None = None) -> OpenSpielBot:
        """``kind`` is ``ismcts`` or ``mcts``; ``spec`` the settings (see the module docstring)."""
        kwargs: dict[str, float | int | str] = {}
        try:
            for part in filter(None, spec.split("/")):
                key, _, value = part.partition("=")
                name, convert = _SETTINGS[key.strip()]
                setting = convert(value.strip())
                if isinstance(setting, str):
                    if setting not in (ROLLOUT_BOTS if name == "rollout" else ("visits", "value")):
                        raise ValueError
                elif not 0 < setting <= (3600 if name == "seconds" else 10**7):
                    raise ValueError
                kwargs[name] = setting
        except (KeyError, ValueError):
            raise ValueError(
                f"unknown openspiel-{kind} settings {spec!r}: use seconds=S or simulations=N "
                f"[/c=X][/rollouts=K][/rollout={'|'.join(ROLLOUT_BOTS)}][/horizon=H][/scale=K][/final=visits|value]"
            ) from None
        if "seconds" in kwargs and "simulations" in kwargs:
            raise ValueError(f"openspiel-{kind}: give seconds=S or simulations=N, not both")
        bot = cls(kind, seed, **kwargs)  # type: ignore[arg-type]
        bot.name = f"openspiel-{kind}:{spec}" if spec else f"openspiel-{kind}"
        return bot

    def _game(self, state: GameState) -> HansaGame:
        variant = state.options.two_player_variant if state.players == 2 else "neutral"
        modules = module_params(state.options)
        key = (state.players, variant, state.options.map, *modules.values())
        game = self._games.get(key)
        if game is None:
            params = {
                "players": state.players, "variant": variant, "max_moves": SEARCH_MAX_MOVES, "map": state.options.map,
                **modules,
            }
            game = self._games[key] = HansaGame(params)
        return game

    def _bot(self, game: HansaGame) -> tuple[Any, RolloutEvaluator]:
        params = game.get_parameters()
        key = (game.players, str(params["variant"]), game.map, *(params[name] for name in module_params(GameOptions())))
        found = self._bots.get(key)
        if found is not None:
            return found
        from ..bots import make_bot

        policy = make_bot(self.rollout, int(self.random.randint(2**31)))
        evaluator = RolloutEvaluator(policy, self.horizon, self.scale, self.random, self.rollouts)
        if self.kind == "ismcts":
            final = (ismcts.ISMCTSFinalPolicyType.MAX_VALUE if self.final == "value"
                     else ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT)
            bot = _TimedISMCTS(
                game, evaluator, self.uct_c, max_simulations=max(2, self.simulations or 2), random_state=self.random,
                final_policy_type=final,
            )
            bot.seconds = self.seconds
            bot.set_resampler(self._resample)
        else:
            bot = _TimedMCTS(
                game, self.uct_c, self.simulations or 4, evaluator, solve=False, random_state=self.random,
            )
            bot.seconds = self.seconds
        self._bots[key] = (bot, evaluator)
        return bot, evaluator

    def _step(self, bot: Any, evaluator: RolloutEvaluator, ps: HansaState) -> int:
        """One OpenSpiel decision at ``ps`` within the budget."""
        start = clock.now()
        before = evaluator.rollout_moves
        action = int(bot.step(ps))
        count = bot.simulations_done if self.seconds is not None else self.simulations
        self.last_stats = {"simulations": float(count or 0), "seconds": clock.now() - start,
                           "rollout_moves": float(evaluator.rollout_moves - before)}
        return action

    def choose(self, state: GameState, legal: list[Move] | None = None) -> Move:
        moves = legal if legal is not None else state.legal_moves()
        if len(moves) == 1:
            return moves[0]
        game = self._game(state)
        bot, evaluator = self._bot(game)
        ps = HansaState(game, self._world(state))
        action = self._step(bot, evaluator, ps)
        move = ps.actions.move(action)
        if move is None:  # a shift-from: the shift-to is a second decision
            ps.apply_action(action)
            move = ps.actions.move(self._step(bot, evaluator, ps), action)
        assert move is not None
        return move

    def _world(self, state: GameState) -> GameState:
        """The position the search starts from: a determinized copy, so the real face-down order (and the other
        seats' mission cards) never reaches it; ISMCTS draws a new world for every simulation as well.  The hidden
        markers are put in a fixed order before they are shuffled, so the world depends only on what the seat may
        know and this bot's random stream (a seed gives the same decision whatever the real order)."""
        return hidden_sorted(state).determinized(random.Random(int(self.random.randint(2**31))))

    def _resample(self, state: HansaState, player: int) -> HansaState:
        """ISMCTS's world for one simulation: hansa's determinization for ``player``, drawn from this bot's own
        random stream (OpenSpiel's default sampler is not seeded by us)."""
        return state.resample_from_infostate(player, self.random.uniform)


def hidden_sorted(state: GameState) -> GameState:
    """A copy of ``state`` whose hidden markers (face-down supply, then every plate) hold the same markers in sorted
    order: two positions that differ only in the hidden order give the same copy."""
    out = state.copy()
    pool = sorted([*state.marker_supply, *(m for plate in state.plate for m in plate)])
    k = len(state.marker_supply)
    out.marker_supply = pool[:k]
    for p, plate in enumerate(state.plate):
        out.plate[p] = tuple(pool[k : k + len(plate)])
        k += len(plate)
    return out


def make_openspiel_bot(name: str, spec: str, seed: int | None = None) -> Bot:
    """The bot of spec ``name:spec`` (``name`` is ``openspiel-ismcts`` or ``openspiel-mcts``)."""
    return OpenSpielBot.from_spec(name.removeprefix("openspiel-"), spec, seed)
