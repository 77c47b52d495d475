"""Typed, validated game options (docs/rules.md §6, option catalogue).

Every option has the documented default.  ``GameOptions.from_dict`` rejects unknown names and invalid
values with an :class:`~hansa.core.errors.InvalidOptionError` naming the option and the allowed values.
The camelCase names of docs/rules.md (``markerSet`` ...) are accepted as aliases of the snake_case fields.
"""

from __future__ import annotations

import functools
from dataclasses import asdict, dataclass, fields
from typing import Any, Literal, get_args, get_type_hints

from .constants import MARKER_NAMES, MARKER_SUPPLY_MAX, MARKER_SUPPLY_SIZE
from .errors import InvalidOptionError

MarkerSet = Literal["IT4", "EN16", "PT15", "BB15"]
MarkerCityRule = Literal["freeOffice", "hasOffice"]
Remove3Targets = Literal["any", "opponents"]
Remove3Mode = Literal["remove", "move"]
TieBreak = Literal["PT", "SHARED", "BB"]
TwoPlayerVariant = Literal["neutral", "pawn"]
PawnFreeMoves = Literal["once", "beforeAndAfter"]
MapName = Literal["base", "east", "britannia"]
PermissionHolder = Literal["rightmost", "controller"]
PermissionTiming = Literal["live", "turnStart"]
RelocationRings = Literal["allRoutes", "eligibleOnly"]
GreenCitySwap = Literal["permanentOnly", "none", "all"]


@dataclass(frozen=True, slots=True)
class GameOptions:
    """The rule switches of docs/rules.md §6 and docs/rules-expansions.md §E7.  Field names are the snake_case
    forms of ``opt.<name>``.

    ``map`` chooses the board (``base``, ``east`` or ``britannia``; the side follows the player count).
    ``remove3_mode`` left unset (``None``) becomes ``move`` on Britannia and ``remove`` elsewhere (§E1.3).
    """

    map: MapName = "base"
    marker_set: MarkerSet = "IT4"
    marker_city_rule: MarkerCityRule = "freeOffice"
    swap_needs_own: bool = True
    remove3_targets: Remove3Targets = "any"
    remove3_mode: Remove3Mode = None  # type: ignore[assignment]  # resolved by the map in __post_init__
    income_up_to: bool = False
    tie_break: TieBreak = "PT"
    two_player_variant: TwoPlayerVariant = "neutral"
    neutral_coellen: bool = True
    neutral_keep_on_ability_route: bool = True
    neutral_extra_mandatory: bool = True
    pawn_free_moves: PawnFreeMoves = "once"
    permission_holder: PermissionHolder = "rightmost"
    permission_timing: PermissionTiming = "live"
    relocation_rings: RelocationRings = "allRoutes"
    green_city_swap: GreenCitySwap = "permanentOnly"
    green_city_free_for_markers: bool = False
    missions: bool = False
    emperors_favour: bool = False
    marker_supply: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if self.remove3_mode is None:
            object.__setattr__(self, "remove3_mode", "move" if self.map == "britannia" else "remove")
        hints = _hints()
        for f in fields(self):
            value = getattr(self, f.name)
            hint = hints[f.name]
            if f.name == "marker_supply":
                if value is not None:
                    object.__setattr__(self, "marker_supply", _marker_supply(value))
                continue
            if hint is bool:
                if not isinstance(value, bool):
                    raise InvalidOptionError(f"option {f.name!r} must be true or false, not {value!r}")
            else:
                allowed = get_args(hint)
                if value not in allowed:
                    choices = ", ".join(repr(a) for a in allowed)
                    raise InvalidOptionError(f"option {f.name!r} must be one of {choices}, not {value!r}")

        if self.missions and self.map != "base":
            raise InvalidOptionError(
                f"option 'missions' is played on the base map only (the mission cards name its cities), not on {self.map}"
            )

    @property
    def modules(self) -> bool:
        """True when a Big Box module is on (docs/rules.md §8): missions, Emperor's Favour or a marker supply."""
        return self.missions or self.emperors_favour or self.marker_supply is not None

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> GameOptions:
        """Build options from a mapping, rejecting unknown names.  ``None`` or ``{}`` gives the defaults."""
        if data is None:
            return cls()
        if not isinstance(data, dict):
            raise InvalidOptionError(f"options must be a mapping of names to values, not {type(data).__name__}")
        names = {f.name for f in fields(cls)}
        aliases = {_camel(n): n for n in names}
        aliases["board"] = "map"
        values: dict[str, Any] = {}
        for key, value in data.items():
            name = key if key in names else aliases.get(str(key).removeprefix("opt."))
            if name is None:
                known = ", ".join(sorted(names))
                raise InvalidOptionError(f"unknown option {key!r}; known options: {known}")
            if name in values:
                raise InvalidOptionError(f"option {name!r} given twice")
            values[name] = value
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        """All options as a JSON-ready mapping (snake_case names)."""
        out = asdict(self)
        if self.marker_supply is not None:
            out["marker_supply"] = list(self.marker_supply)
        return out

    def changed(self) -> dict[str, Any]:
        """Only the options that differ from the defaults: the map if not ``base``, then what differs from that
        map's defaults (Move 3 is Britannia's default)."""
        if self.map == "base":
            default = _DEFAULT
            return {k: v for k, v in self.to_dict().items() if getattr(default, k) != v}
        default = GameOptions(map=self.map)
        out: dict[str, Any] = {"map": self.map}
        out.update({k: v for k, v in self.to_dict().items() if k != "map" and getattr(default, k) != v})
        return out


@functools.cache
def _hints() -> dict[str, Any]:
    """The resolved type hints of the options (resolved once: ``get_type_hints`` is slow)."""
    return get_type_hints(GameOptions)


_DEFAULT = GameOptions()


def _marker_supply(value: Any) -> tuple[str, ...]:
    """Check a ``marker_supply`` option (docs/rules.md §8.5): exactly 12 marker names, no type more often than the
    Big Box holds it after the taverns."""
    if isinstance(value, str) or not isinstance(value, (list, tuple)):
        raise InvalidOptionError(f"option 'marker_supply' must be a list of {MARKER_SUPPLY_SIZE} marker names, not {value!r}")
    names = tuple(value)
    for name in names:
        if not isinstance(name, str) or name not in MARKER_NAMES:
            raise InvalidOptionError(
                f"option 'marker_supply' names markers {', '.join(MARKER_NAMES)}, not {name!r}"
            )
    if len(names) != MARKER_SUPPLY_SIZE:
        raise InvalidOptionError(
            f"option 'marker_supply' lists the {MARKER_SUPPLY_SIZE} markers of the face-down supply, not {len(names)}"
        )
    for kind, most in enumerate(MARKER_SUPPLY_MAX):
        n = names.count(MARKER_NAMES[kind])
        if n > most:
            raise InvalidOptionError(
                f"option 'marker_supply' has {n} {MARKER_NAMES[kind]} markers; the game has at most {most} for the supply"
            )
    return names


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p.capitalize() for p in rest)


def parse_option_value(name: str, text: str) -> Any:
    """Convert a command-line ``name=value`` string to the option's type (``true``/``false`` for switches)."""
    field_names = {f.name for f in fields(GameOptions)}
    aliases = {_camel(n): n for n in field_names}
    aliases["board"] = "map"
    real = name if name in field_names else aliases.get(name.removeprefix("opt."))
    if real is None:
        raise InvalidOptionError(f"unknown option {name!r}; known options: {', '.join(sorted(field_names))}")
    if real == "marker_supply":
        return [part.strip() for part in text.split(",") if part.strip()]
    if get_type_hints(GameOptions)[real] is bool:
        low = text.strip().lower()
        if low in ("true", "yes", "on", "1"):
            return True
        if low in ("false", "no", "off", "0"):
            return False
        raise InvalidOptionError(f"option {real!r} must be true or false, not {text!r}")
    return text
