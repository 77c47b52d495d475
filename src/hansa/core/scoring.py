"""Final scoring (docs/rules.md §4.3) and the winner with the configured tie-break (§4.4)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from .constants import (
    ABILITY_MAX,
    ACTIONS,
    BAGS,
    BOOK,
    CONTROL_POINTS,
    FULL_ABILITY_POINTS,
    KEYS,
    NEUTRAL,
    PRIVILEGE,
    marker_points,
)
from .state import GameState

CATEGORIES = ("in_game", "abilities", "markers", "coellen", "control", "network")


@dataclass(frozen=True, slots=True)
class ScoreBreakdown:
    """One player's final score by category (docs/rules.md §4.3)."""

    player: int
    in_game: int
    abilities: int
    markers: int
    coellen: int
    control: int
    network: int

    @property
    def total(self) -> int:
        return self.in_game + self.abilities + self.markers + self.coellen + self.control + self.network

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["total"] = self.total
        return out


def network_score(state: GameState, player: int) -> int:
    """Largest component's office count × current Town-keys value (§2.8.3)."""
    comps = state.network_components(player)
    best = max((n for _, n in comps), default=0)
    return best * state.ability_value(player, KEYS)


def final_scores(state: GameState) -> list[ScoreBreakdown]:
    """Score breakdown of every player, computed from the current position (meaningful once the game is over,
    but usable at any time as a projection)."""
    controllers = [state.controller(c) for c in range(len(state.board.cities))]
    out = []
    for p in range(state.players):
        abilities = sum(
            FULL_ABILITY_POINTS for a in (ACTIONS, PRIVILEGE, BOOK, BAGS) if state.ability_level(p, a) == ABILITY_MAX[a]
        )
        markers = marker_points(len(state.markers[p]) + len(state.used_markers[p]))
        coellen = sum(points for (points, _), code in zip(state.board.coellen_table, state.table) if code >= 0 and code >> 1 == p)
        control = CONTROL_POINTS * sum(1 for owner in controllers if owner == p and owner != NEUTRAL)
        out.append(ScoreBreakdown(p, state.score[p], abilities, markers, coellen, control, network_score(state, p)))
    return out


def winners(state: GameState, scores: list[ScoreBreakdown] | None = None) -> list[int]:
    """The winning seat(s): highest total, ties broken by ``options.tie_break`` (§4.4).  Several seats = shared."""
    scores = scores if scores is not None else final_scores(state)
    best = max(s.total for s in scores)
    tied = [s.player for s in scores if s.total == best]
    rule = state.options.tie_break
    if len(tied) == 1 or rule == "SHARED":
        return tied
    keys: list[Callable[[int], int]]
    if rule == "PT":
        keys = [
            lambda p: -state.ability_value(p, ACTIONS),  # fewer actions per turn wins
            lambda p: state.office_count(p),  # then more offices
        ]
    else:  # BB
        keys = [
            lambda p: -state.ability_level(p, ACTIONS),  # least developed Actions track
            lambda p: network_score(state, p),  # then higher network score
        ]
    for key in keys:
        top = max(key(p) for p in tied)
        tied = [p for p in tied if key(p) == top]
        if len(tied) == 1:
            break
    return tied
