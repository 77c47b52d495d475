"""End-of-game rewards shared by the AI adapters."""

from __future__ import annotations

from ..core.scoring import final_scores, winners
from ..core.state import GameState

#: ``win``: 1/k for each of k winners, 0 for the others; ``margin``: (own final score - best other final score) / 10.
REWARDS = ("win", "margin")


def check_reward(kind: str) -> None:
    if kind not in REWARDS:
        raise ValueError(f"reward must be one of {REWARDS}, not {kind!r}")


def final_rewards(state: GameState, kind: str = "win") -> list[float]:
    """Every seat's reward for the game as it stands (final scoring applied even when it has not ended)."""
    scores = final_scores(state)
    if kind == "win":
        won = winners(state, scores)
        return [1.0 / len(won) if p in won else 0.0 for p in range(state.players)]
    totals = [s.total for s in scores]
    return [(totals[p] - max(t for q, t in enumerate(totals) if q != p)) / 10 for p in range(state.players)]
