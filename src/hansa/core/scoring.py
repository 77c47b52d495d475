"""Final scoring (docs/rules.md §4.3) and the winner with the configured tie-break (§4.4)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from .board import Board
from .constants import (
    ABILITY_MAX,
    ACTIONS,
    BAGS,
    BOOK,
    CONTROL_POINTS,
    F_ABIL,
    F_CITY,
    FAVOUR_ABILITY_POINTS,
    FAVOUR_CONTROL_POINTS,
    FULL_ABILITY_POINTS,
    KEYS,
    MISSION_ALL_POINTS,
    MISSION_CARDS,
    MISSION_CITY_POINTS,
    NEUTRAL,
    PRIVILEGE,
    marker_points,
)
from .state import GameState

CATEGORIES = ("in_game", "abilities", "markers", "coellen", "control", "network", "countries", "missions")


@dataclass(frozen=True, slots=True)
class ScoreBreakdown:
    """One player's final score by category (docs/rules.md §4.3).  ``coellen`` is the special table of the map
    (Coellen, Koenigsberg or Plymouth); ``countries`` the Wales and Scotland scoring of Britannia
    (docs/rules-expansions.md §E4.9), 0 on the other maps; ``missions`` the Mission Cards (docs/rules.md §8.2),
    ``None`` (and absent from :meth:`to_json`) without them."""

    player: int
    in_game: int
    abilities: int
    markers: int
    coellen: int
    control: int
    network: int
    countries: int = 0
    missions: int | None = None

    @property
    def total(self) -> int:
        return (
            self.in_game + self.abilities + self.markers + self.coellen + self.control + self.network + self.countries
            + (self.missions or 0)
        )

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        if self.missions is None:
            del out["missions"]
        out["total"] = self.total
        return out


def categories(state: GameState) -> tuple[str, ...]:
    """The score categories of ``state``'s game (``countries`` only where the map scores countries, ``missions``
    only with Mission Cards)."""
    return tuple(
        c for c in CATEGORIES
        if (c != "countries" or state.board.country_scoring) and (c != "missions" or state.missions)
    )


def network_score(state: GameState, player: int) -> int:
    """Largest component's office count × current Town-keys value (§2.8.3)."""
    comps = state.network_components(player)
    best = max((n for _, n in comps), default=0)
    return best * state.ability_value(player, KEYS)


def country_scores(state: GameState, controllers: list[int | None] | None = None) -> list[int]:
    """Britannia's final scoring of Wales and Scotland (docs/rules-expansions.md §E4.9), per seat."""
    if not state.board.country_scoring:
        return [0] * state.players
    if controllers is None:
        controllers = [state.controller(c) for c in range(len(state.board.cities))]
    per_city = [state.cities_with_office(p) for p in range(state.players)]
    return country_points(state.board, state.players, controllers, lambda p, c: per_city[p][c])


def country_points(
    board: Board, players: int, controllers: list[int | None], offices: Callable[[int, int], int]
) -> list[int]:
    """The Wales and Scotland scoring from the cities' ``controllers`` and ``offices(seat, city)``.

    Candidates hold an office in a city of the country; they rank by (cities of it they control, their offices
    there); tied candidates share the awards of the places they cover, each taking the floor of the mean."""
    out = [0] * players
    for _, cities, awards in board.country_scoring:
        ranked = []
        for p in range(players):
            held = sum(offices(p, c) for c in cities)
            if held:
                ranked.append(((sum(1 for c in cities if controllers[c] == p), held), p))
        ranked.sort(key=lambda kp: kp[0], reverse=True)
        place = i = 0
        while i < len(ranked):
            j = i
            while j < len(ranked) and ranked[j][0] == ranked[i][0]:
                j += 1
            n = j - i
            pot = sum(awards[k] for k in range(place, place + n) if k < len(awards))
            for _, p in ranked[i:j]:
                out[p] += pot // n
            place += n
            i = j
    return out


def mission_score(state: GameState, player: int, controllers: list[int | None] | None = None) -> int:
    """Mission Cards (docs/rules.md §8.2): 1 per listed city with an office of ``player``, +5 for controlling all
    three; 0 without a card."""
    if not state.missions:
        return 0
    if controllers is None:
        controllers = [state.controller(c) for c in range(len(state.board.cities))]
    per_city = state.cities_with_office(player)
    cities = [state.board.city_index[code] for code in MISSION_CARDS[state.missions[player]]]
    points = MISSION_CITY_POINTS * sum(1 for c in cities if per_city[c])
    if all(controllers[c] == player for c in cities):
        points += MISSION_ALL_POINTS
    return points


def collected_markers(state: GameState, player: int) -> int:
    """Bonus markers ``player`` collected (§4.3): unused, used, turned face down for Emperor's Favour tiles, and
    Tribute and Block markers put beside routes (§8.9)."""
    n = len(state.markers[player]) + len(state.used_markers[player]) + len(state.facedown[player])
    return n + sum(1 for _, owner in state.tributes + state.blocks if owner == player)


def final_scores(state: GameState) -> list[ScoreBreakdown]:
    """Score breakdown of every player, computed from the current position (meaningful once the game is over,
    but usable at any time as a projection)."""
    controllers = [state.controller(c) for c in range(len(state.board.cities))]
    countries = country_scores(state, controllers)
    out = []
    favour = state.favour
    for p in range(state.players):
        full = FAVOUR_ABILITY_POINTS if favour and favour[F_ABIL] == p else FULL_ABILITY_POINTS
        abilities = sum(full for a in (ACTIONS, PRIVILEGE, BOOK, BAGS) if state.ability_level(p, a) == ABILITY_MAX[a])
        markers = marker_points(collected_markers(state, p))
        coellen = sum(points for (points, _), code in zip(state.board.coellen_table, state.table) if code >= 0 and code >> 1 == p)
        per_city = FAVOUR_CONTROL_POINTS if favour and favour[F_CITY] == p else CONTROL_POINTS
        control = per_city * sum(1 for owner in controllers if owner == p and owner != NEUTRAL)
        out.append(ScoreBreakdown(
            p, state.score[p], abilities, markers, coellen, control, network_score(state, p), countries[p],
            mission_score(state, p, controllers) if state.missions else None,
        ))
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
