"""OpenSpiel's own search bots as hansa bots: outside baselines for the arena (needs the ``openspiel`` extra).

Bot specs (see :func:`hansa.bots.make_bot`):

* ``openspiel-ismcts:seconds=S`` — OpenSpiel's ``ISMCTSBot`` (information-set MCTS; every simulation starts from a
  world drawn by :meth:`hansa.ai.openspiel_game.HansaState.resample_from_infostate`, hansa's determinization);
* ``openspiel-mcts:seconds=S`` — OpenSpiel's ``MCTSBot`` (plain UCT; it searches the position it is given, whose
  hidden markers the bot gets only as a determinized copy, so it never sees the real face-down order).

Both evaluate a leaf with OpenSpiel's ``RandomRolloutEvaluator`` (uniformly random legal actions to the end), the
algorithms' code unchanged.  Settings, joined by ``/``: ``seconds=S`` (time per decision, default 1) or
``simulations=N`` (a fixed count, reproducible for a seed); ``c=X`` (UCT exploration, default 2 as in OpenSpiel's
examples); ``rollouts=K`` (rollouts per leaf, default 1); ``horizon=H`` (a rollout stops after H moves and is scored
as if the game had ended there: the final scoring of that position, win share; default 3000, the game's
``max_moves``).

Time budgets: both run simulations until the deadline (at least two), with OpenSpiel's search steps unchanged:
ISMCTS's ``run_search`` loop is rerun under a clock instead of a count; MCTS's ``mcts_search`` is given an
unbounded count and stopped at the first simulation that would start after the deadline (before it touches the
tree).  Both read :mod:`hansa.bots.clock`, so ``hansa arena --clock cpu`` counts their thread CPU time.  A Move-3
shift is two OpenSpiel decisions (shift-from, then shift-to); each gets the whole budget.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from open_spiel.python.algorithms import ismcts, mcts

from ..bots import clock
from ..bots.base import Bot
from ..core.moves import Move
from ..core.options import GameOptions
from ..core.state import GameState
from .openspiel_game import HansaGame, HansaState, module_params

#: Spec settings: name -> (attribute, type).
_SETTINGS = {
    "seconds": ("seconds", float), "simulations": ("simulations", int), "c": ("uct_c", float),
    "rollouts": ("rollouts", int), "horizon": ("horizon", int),
}


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
        uct_c: float = 2.0,
        rollouts: int = 1,
        horizon: int = 3000,
    ) -> None:
        if kind not in ("ismcts", "mcts"):
            raise ValueError(f"unknown OpenSpiel bot {kind!r}: ismcts or mcts")
        if seconds is None and simulations is None:
            seconds = 1.0
        self.kind = kind
        self.name = f"openspiel-{kind}"
        self.seconds = seconds
        self.simulations = simulations
        self.uct_c = uct_c
        self.rollouts = rollouts
        self.horizon = horizon
        self.random = np.random.RandomState(None if seed is None else seed % 2**32)
        self._games: dict[tuple[Any, ...], HansaGame] = {}
        self._bots: dict[tuple[Any, ...], Any] = {}
        #: Statistics of the last decision: simulations and seconds.
        self.last_stats: dict[str, float] = {}

    @classmethod
    def from_spec(cls, kind: str, spec: str, seed: int | None = None) -> OpenSpielBot:
        """``kind`` is ``ismcts`` or ``mcts``; ``spec`` the settings (see the module docstring)."""
        kwargs: dict[str, float | int] = {}
        try:
            for part in filter(None, spec.split("/")):
                key, _, value = part.partition("=")
                name, convert = _SETTINGS[key.strip()]
                number = convert(value)
                if not 0 < number <= (3600 if name == "seconds" else 10**7):
                    raise ValueError
                kwargs[name] = number
        except (KeyError, ValueError):
            raise ValueError(
                f"unknown openspiel-{kind} settings {spec!r}: use seconds=S or simulations=N "
                "[/c=X][/rollouts=K][/horizon=H]"
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
                "players": state.players, "variant": variant, "max_moves": self.horizon, "map": state.options.map,
                **modules,
            }
            game = self._games[key] = HansaGame(params)
        return game

    def _bot(self, game: HansaGame) -> Any:
        params = game.get_parameters()
        key = (game.players, str(params["variant"]), game.map, *(params[name] for name in module_params(GameOptions())))
        bot = self._bots.get(key)
        if bot is not None:
            return bot
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=self.rollouts, random_state=self.random)
        if self.kind == "ismcts":
            bot = _TimedISMCTS(
                game, evaluator, self.uct_c, max_simulations=max(2, self.simulations or 2), random_state=self.random,
            )
            bot.seconds = self.seconds
            # Worlds drawn from this bot's own random stream (OpenSpiel's default sampler is not seeded by us).
            bot.set_resampler(lambda st, player: st.resample_from_infostate(player, self.random.uniform))
        else:
            bot = _TimedMCTS(
                game, self.uct_c, self.simulations or 4, evaluator, solve=False, random_state=self.random,
            )
            bot.seconds = self.seconds
        self._bots[key] = bot
        return bot

    def _step(self, bot: Any, ps: HansaState) -> int:
        """One OpenSpiel decision at ``ps`` within the budget."""
        start = clock.now()
        action = int(bot.step(ps))
        count = bot.simulations_done if self.seconds is not None else self.simulations
        self.last_stats = {"simulations": float(count or 0), "seconds": clock.now() - start}
        return action

    def choose(self, state: GameState, legal: list[Move] | None = None) -> Move:
        moves = legal if legal is not None else state.legal_moves()
        if len(moves) == 1:
            return moves[0]
        game = self._game(state)
        bot = self._bot(game)
        # The search gets a determinized copy: the real face-down order (and the other seats' mission cards) never
        # reaches it.
        world = random.Random(int(self.random.randint(2**31)))
        ps = HansaState(game, state.determinized(world))
        action = self._step(bot, ps)
        move = ps.actions.move(action)
        if move is None:  # a shift-from: the shift-to is a second decision
            ps.apply_action(action)
            move = ps.actions.move(self._step(bot, ps), action)
        assert move is not None
        return move


def make_openspiel_bot(name: str, spec: str, seed: int | None = None) -> Bot:
    """The bot of spec ``name:spec`` (``name`` is ``openspiel-ismcts`` or ``openspiel-mcts``)."""
    return OpenSpielBot.from_spec(name.removeprefix("openspiel-"), spec, seed)
