"""Opponents of a learning seat given as bot specs, bots, policies or plain functions (self-play without files).

:func:`as_bot` turns any of these into a :class:`hansa.bots.base.Bot`:

* a bot spec string (``"purpose"``, ``"mcts:easy"``, ``"policy:NAME"`` ... as in ``hansa arena``), made with the
  seed given;
* a :class:`~hansa.bots.base.Bot` object, used as it is (its own seed; it is reused from episode to episode);
* a :class:`~hansa.ai.policy.PolicyNet` (a numpy policy), played greedily by a :class:`~hansa.ai.policy.PolicyBot`;
* a callable of **one** positional argument, ``(GameState) -> Move`` (it must answer a legal move);
* a callable of **two** positional arguments, ``(observation, mask) -> action index``: the seat's flat observation
  (:func:`hansa.ai.observation.observe`) and its bool mask over :class:`~hansa.ai.actions.ActionIndex`; a shift
  (exchange) takes two calls, the second with the chosen house marked in the observation, as in the environments.
  A frozen copy of the learner fits here, e.g. ``lambda obs, mask: int(model.predict(obs, action_masks=mask)[0])``.

Anything else, or a callable whose arity is not 1 or 2, is a ``TypeError`` that says so.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from ..bots import make_bot
from ..bots.base import Bot
from ..core.moves import Move
from ..core.state import GameState
from .actions import ActionIndex
from .observation import observe
from .policy import PolicyBot, PolicyNet, _as_legal

__all__ = ["ActionPolicyBot", "MovePolicyBot", "Opponent", "as_bot"]

#: What an opponent may be (see the module docstring).
Opponent = str | Bot | PolicyNet | Callable[..., Any]


class MovePolicyBot(Bot):
    """A function ``(GameState) -> Move`` as a bot."""

    name = "callable"

    def __init__(self, fn: Callable[[GameState], Move]) -> None:
        self.fn = fn

    def choose(self, state: GameState, legal: list[Move] | None = None) -> Move:
        moves = legal if legal is not None else state.legal_moves()
        move = self.fn(state)
        if move not in moves:
            raise ValueError(f"the opponent function answered {move!r}, which is not a legal move here")
        return move


class ActionPolicyBot(Bot):
    """A function ``(observation, mask) -> action index`` as a bot (see the module docstring)."""

    name = "action-callable"

    def __init__(self, fn: Callable[[npt.NDArray[np.float32], npt.NDArray[np.bool_]], Any]) -> None:
        self.fn = fn

    def _pick(self, observation: npt.NDArray[np.float32], mask: npt.NDArray[np.bool_]) -> int:
        answer = self.fn(observation, mask)
        try:
            a = int(answer)
        except (TypeError, ValueError):
            raise ValueError(f"the opponent function answered {answer!r}, not an action index") from None
        if not (0 <= a < mask.shape[0] and mask[a]):
            raise ValueError(f"the opponent function answered action {a}, which the mask does not allow")
        return a

    def choose(self, state: GameState, legal: list[Move] | None = None) -> Move:
        moves = legal if legal is not None else state.legal_moves()
        if len(moves) == 1:
            return moves[0]
        actions = ActionIndex.for_state(state)
        seat = state.decider
        first = self._pick(observe(state, seat), actions.mask(state).astype(bool))
        move = actions.move(first)
        if move is None:  # a shift-from (exchange-from): the second step with the chosen house marked
            house, exchange = actions.pending_house(first), actions.pending_exchange(first)
            second = self._pick(observe(state, seat, house, exchange), actions.mask(state, pending=first).astype(bool))
            move = actions.move(second, pending=first)
        assert move is not None
        return _as_legal(move, moves)


def _positional_arity(fn: Callable[..., Any]) -> int | None:
    """The number of positional parameters ``fn`` takes (None if it cannot be told)."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return None
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    required = [p for p in params if p.kind in kinds and p.default is inspect.Parameter.empty]
    return len(required)


def as_bot(opponent: Opponent, seed: int | None = None) -> Bot:
    """The bot that plays ``opponent`` (see the module docstring); ``seed`` seeds spec bots and policy bots."""
    if isinstance(opponent, str):
        return make_bot(opponent, seed)
    if isinstance(opponent, Bot):
        return opponent
    if isinstance(opponent, PolicyNet):
        return PolicyBot(opponent, seed)
    if callable(opponent):
        arity = _positional_arity(opponent)
        if arity == 1:
            return MovePolicyBot(opponent)
        if arity == 2:
            return ActionPolicyBot(opponent)
        raise TypeError(f"an opponent function takes (state) or (observation, mask); {opponent!r} takes {arity} "
                        "required positional arguments")
    raise TypeError(f"an opponent is a bot spec, a Bot, a PolicyNet or a callable, not {type(opponent).__name__}")
