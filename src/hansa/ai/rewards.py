"""Rewards shared by the AI adapters: the end-of-game reward, the potential-based margin shaping and the reward of a
truncated game (docs/ai.md, "Learning").

* ``reward="win"``: 1/k for each of k winners, 0 for the others; ``reward="margin"``: (own final score - best other
  final score) / 10.  Paid when the game ends and, with ``truncation="score"``, when it is truncated at
  ``max_moves`` (the final scoring of the position reached, as if the game ended there); with
  ``truncation="zero"`` a truncated game pays 0.
* ``shaping="margin"``: potential-based shaping (Ng, Harada & Russell 1999).  Every step adds
  ``F = gamma * phi(s') - phi(s)`` to the reward, with ``phi(s) = margin(s) / scale`` the seat's projected margin
  (:func:`margin_potential`: the final scoring of ``s`` as if the game ended now, own total minus the best other
  total) and ``phi = 0`` once the game has ended (the absorbing state).  With ``gamma = 1`` the shaped return of an
  episode telescopes: ``sum F = phi(end) - phi(start)``, so the return is the end reward - ``phi(start)`` for a
  finished game (``phi(end) = 0``) and the truncation reward + ``phi(end) - phi(start)`` for a truncated one;
  ``phi(start)`` does not depend on the learner's actions, so the optimal policy is unchanged.  With
  ``gamma < 1`` the same holds for the discounted return when ``gamma`` is the learner's discount.
"""

from __future__ import annotations

from ..core.scoring import final_scores, winners
from ..core.state import GameState

#: ``win``: 1/k for each of k winners, 0 for the others; ``margin``: (own final score - best other final score) / 10.
REWARDS = ("win", "margin")
#: ``none``: no shaping; ``margin``: potential-based shaping on the projected score margin (see the module docstring).
SHAPINGS = ("none", "margin")
#: ``score``: a game truncated at ``max_moves`` pays the reward of its final scoring; ``zero``: it pays 0.
TRUNCATIONS = ("score", "zero")


def check_reward(kind: str) -> None:
    """``ValueError`` unless ``kind`` is one of :data:`REWARDS`."""
    if kind not in REWARDS:
        raise ValueError(f"reward must be one of {REWARDS}, not {kind!r}")


def check_shaping(shaping: str, scale: float, gamma: float) -> None:
    """``ValueError`` unless the shaping options are valid: ``shaping`` in :data:`SHAPINGS`, ``scale`` > 0 and
    ``0 < gamma <= 1``."""
    if shaping not in SHAPINGS:
        raise ValueError(f"shaping must be one of {SHAPINGS}, not {shaping!r}")
    if not (isinstance(scale, (int, float)) and scale > 0 and scale < float("inf")):
        raise ValueError(f"shaping_scale must be a positive number, not {scale!r}")
    if not (isinstance(gamma, (int, float)) and 0 < gamma <= 1):
        raise ValueError(f"shaping_gamma must be in (0, 1], not {gamma!r}")


def check_truncation(kind: str) -> None:
    """``ValueError`` unless ``kind`` is one of :data:`TRUNCATIONS`."""
    if kind not in TRUNCATIONS:
        raise ValueError(f"truncation must be one of {TRUNCATIONS}, not {kind!r}")


def final_rewards(state: GameState, kind: str = "win") -> list[float]:
    """Every seat's reward for the game as it stands (final scoring applied even when it has not ended)."""
    scores = final_scores(state)
    if kind == "win":
        won = winners(state, scores)
        return [1.0 / len(won) if p in won else 0.0 for p in range(state.players)]
    totals = [s.total for s in scores]
    return [(totals[p] - max(t for q, t in enumerate(totals) if q != p)) / 10 for p in range(state.players)]


def projected_margins(state: GameState) -> list[int]:
    """Every seat's margin in points if the game ended now: its final-scoring total minus the best other seat's."""
    totals = [s.total for s in final_scores(state)]
    return [totals[p] - max(t for q, t in enumerate(totals) if q != p) for p in range(state.players)]


def margin_potential(state: GameState, seat: int, scale: float = 10.0) -> float:
    """The shaping potential ``phi`` of ``seat``: its projected margin / ``scale``, and 0 once the game is over."""
    if state.is_over:
        return 0.0
    return projected_margins(state)[seat] / scale
