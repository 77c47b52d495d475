"""Rich renderables for a position: schematic board, players' desks, status line, move log, score table.

Every function here is pure: it reads a :class:`~hansa.core.state.GameState` (and, where needed, the player
names and the move history) and returns a ``rich`` renderable; nothing is printed.  Colour is decoration only:
every piece also carries its seat number (``■1`` is a Trader of seat 1, ``●2`` a Merchant of seat 2, ``■N`` a
neutral Trader), so the text reads the same on a monochrome terminal or in a log file.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from ..core.board import OfficeSpec
from ..core.constants import (
    ABILITY_NAMES,
    ABILITY_VALUES,
    ACTIONS,
    BAGS,
    BAGS_ALL,
    BOOK,
    CITIES_TO_END,
    KEYS,
    MARKER_NAMES,
    NEUTRAL,
    PRIVILEGE,
    PRIVILEGE_COLOURS,
    WIN_SCORE,
)
from ..core.moves import Move
from ..core.scoring import CATEGORIES, ScoreBreakdown, final_scores, winners
from ..core.state import GameState, Phase

#: Rich colours of seats 1..5, and of the neutral pieces of the two-player variant.
SEAT_COLOURS = ("bright_red", "dodger_blue1", "green3", "gold1", "medium_orchid1")
NEUTRAL_COLOUR = "grey62"
#: Rich colours of the privilege colours white, orange, pink, black (black shown dark grey to stay visible).
PRIVILEGE_STYLES = ("bright_white", "dark_orange", "hot_pink", "grey50")

TRADER_GLYPH = "■"
MERCHANT_GLYPH = "●"
FREE_GLYPH = "·"
SQUARE_OFFICE = "□"
ROUND_OFFICE = "○"
MARKER_GLYPH = "◆"
COIN_GLYPH = "$"

_END_TRIGGERS = {
    "score": f"a player reached {WIN_SCORE} prestige points",
    "markers": "a replacement bonus marker could not be placed (supply exhausted)",
    "cities": f"{CITIES_TO_END} cities were completed",
}

_PHASE_TEXT = {
    Phase.ACTIONS: "actions",
    Phase.MOVE: "Move action (lift / drop)",
    Phase.RELOCATE: "relocating displaced pieces",
    Phase.REMOVE: "Remove 3",
    Phase.MARKERS: "placing replacement markers",
    Phase.PAWN_SETUP: "placing the pawn",
    Phase.PAWN_END: "free pawn move",
    Phase.NEUTRAL_OFFICE: "neutral claim: choose the city",
    Phase.OVER: "game over",
}


def seat_colour(owner: int) -> str:
    """Rich colour of a seat (0-based), or of the neutral owner."""
    return NEUTRAL_COLOUR if owner == NEUTRAL else SEAT_COLOURS[owner % len(SEAT_COLOURS)]


def seat_label(owner: int) -> str:
    """The short label of a seat shown next to its pieces: ``1``..``5``, ``N`` for neutral."""
    return "N" if owner == NEUTRAL else str(owner + 1)


def player_name(names: Sequence[str], seat: int) -> Text:
    """``name`` in the seat's colour, bold."""
    return Text(names[seat], style=f"bold {seat_colour(seat)}")


def piece_text(code: int) -> Text:
    """A piece code (``owner * 2 + kind``) as glyph + seat label in the owner's colour; a free space as ``·``."""
    if code < 0:
        return Text(FREE_GLYPH, style="dim")
    owner, kind = code >> 1, code & 1
    return Text((MERCHANT_GLYPH if kind else TRADER_GLYPH) + seat_label(owner), style=seat_colour(owner))


def office_text(spec: OfficeSpec, code: int) -> Text:
    """A printed office: free = its shape (□ square, ○ round) and privilege initial in the privilege colour
    (``$`` when it shows a coin); occupied = the occupying piece."""
    if code >= 0:
        return piece_text(code)
    shape = ROUND_OFFICE if spec.round else SQUARE_OFFICE
    label = shape + spec.colour[0] + (COIN_GLYPH if spec.coin else "")
    return Text(label, style=PRIVILEGE_STYLES[spec.privilege - 1])


def marker_name(marker: int) -> str:
    """Short name of a bonus marker type."""
    return MARKER_NAMES[marker]


def route_text(state: GameState, route: int) -> Text:
    """``GRO-EMD ·■1· ◆+3``: the route code, its houses from the first city, and its bonus marker if any."""
    r = state.board.routes[route]
    out = Text(r.code, style="bold")
    out.append(" ")
    for i, h in enumerate(r.houses):
        if i:
            out.append(" ")
        out.append_text(piece_text(state.houses[h]))
    marker = state.route_marker[route]
    if marker >= 0:
        out.append(f" {MARKER_GLYPH}{marker_name(marker)}", style="bold cyan")
    if state.pawn >= 0 and route in state.board.provinces[state.pawn].routes:
        out.append(" ⚑", style="bold")
    return out


def city_offices_text(state: GameState, city: int) -> Text:
    """A city's offices left to right: extra offices (newest first), ``|``, then the printed offices."""
    c = state.board.cities[city]
    out = Text()
    for code in state.extras[city]:
        out.append_text(piece_text(code))
        out.append(" ")
    if state.extras[city]:
        out.append("| ", style="dim")
    for i, spec in enumerate(c.offices):
        if i:
            out.append(" ")
        out.append_text(office_text(spec, state.offices[c.office_base + i]))
    return out


def render_board(state: GameState) -> RenderableType:
    """The schematic board: one row per city (offices left to right, ability, controller, the routes that start
    there with their houses), then the Coellen table, the counters and a legend."""
    board = state.board
    table = Table(title=f"Board ({board.side} side)", title_justify="left", expand=False, pad_edge=False, show_lines=False)
    table.add_column("City", no_wrap=True)
    table.add_column("Offices", no_wrap=True)
    table.add_column("Ctl", no_wrap=True)
    table.add_column("Routes from here (houses numbered from the first city)")
    starting: list[list[int]] = [[] for _ in board.cities]
    for r in board.routes:
        starting[r.cities[0]].append(r.index)
    for c in board.cities:
        name = Text(f"{c.code} ", style="bold")
        name.append(c.name)
        if c.ability is not None:
            name.append(f" ↑{ABILITY_NAMES[c.ability]}", style="italic cyan")
        if state.city_filled[c.index] >= len(c.offices):
            name.append(" ✓", style="bold green")
        owner = state.controller(c.index)
        ctl = Text("") if owner is None else Text(seat_label(owner), style=f"bold {seat_colour(owner)}")
        routes = Text("   ").join(route_text(state, r) for r in starting[c.index]) if starting[c.index] else Text("")
        table.add_row(name, city_offices_text(state, c.index), ctl, routes)

    parts: list[RenderableType] = [table]
    if board.coellen_table:
        coellen = Text("Coellen table: ", style="bold")
        for i, (points, privilege) in enumerate(board.coellen_table):
            if i:
                coellen.append("  ")
            coellen.append(f"{points} ", style=PRIVILEGE_STYLES[privilege - 1])
            coellen.append(f"({PRIVILEGE_COLOURS[privilege - 1]}) ", style=PRIVILEGE_STYLES[privilege - 1])
            coellen.append_text(piece_text(state.table[i]))
        parts.append(coellen)
    counters = Text(f"Completed cities: {state.completed}/{CITIES_TO_END}", style="bold")
    counters.append(f"   Markers on the board: {state.markers_on_board()}   Face-down supply: {state.hidden_marker_count()}")
    if board.east_west:
        ew = "-".join(board.cities[c].code for c in board.east_west)
        paid = ", ".join(seat_label(p) for p in state.ew_paid) or "nobody yet"
        counters.append(f"   East-West ({ew}) bonus paid to: {paid}")
    parts.append(counters)
    if state.pawn >= 0:
        province = board.provinces[state.pawn]
        allowed = ", ".join(board.routes[r].code for r in province.routes)
        parts.append(Text(f"Pawn in {province.code} {province.name}: actions only on the routes marked ⚑ ({allowed})"))
    parts.append(
        Text(
            f"{TRADER_GLYPH}n Trader / {MERCHANT_GLYPH}n Merchant of seat n (N neutral), {FREE_GLYPH} free house, "
            f"{MARKER_GLYPH} bonus marker; free office {SQUARE_OFFICE} square / {ROUND_OFFICE} round + privilege "
            f"(w/o/p/b), {COIN_GLYPH} coin; Ctl = controlling seat",
            style="dim",
        )
    )
    return Group(*parts)


def _track(state: GameState, seat: int, ability: int) -> Text:
    value = state.ability_value(seat, ability)
    if ability == PRIVILEGE:
        colour = PRIVILEGE_COLOURS[value - 1]
        text = Text(colour, style=PRIVILEGE_STYLES[value - 1])
    else:
        text = Text("C" if value == BAGS_ALL else str(value))
    if state.ability_level(seat, ability) == len(ABILITY_VALUES[ability]) - 1:
        text.append("*", style="bold green")
    return text


def render_desks(state: GameState, names: Sequence[str], kinds: Sequence[str] | None = None) -> Table:
    """Every player's desk: abilities (``*`` = track full), supply, stock, bonus markers, offices and score.
    ``kinds`` labels seats (``human``, ``heuristic``...)."""
    table = Table(title="Desks", title_justify="left", pad_edge=False)
    table.add_column("Seat", no_wrap=True)
    for title in ("keys", "act", "priv", "book", "bags"):
        table.add_column(title, justify="center")
    table.add_column("supply", justify="right", no_wrap=True)
    table.add_column("stock", justify="right", no_wrap=True)
    table.add_column("markers")
    table.add_column("offices", justify="right")
    table.add_column("score", justify="right", style="bold")
    for p in range(state.players):
        seat = Text("▶ " if p == state.current and not state.is_over else "  ")
        seat.append(f"{p + 1} ")
        seat.append_text(player_name(names, p))
        if kinds is not None:
            seat.append(f" ({kinds[p]})", style="dim")
        held = " ".join(marker_name(m) for m in state.markers[p]) or "-"
        markers = Text(held)
        if state.used_markers[p]:
            markers.append(f" (+{len(state.used_markers[p])} used)", style="dim")
        if state.plate[p]:
            markers.append(f" [{len(state.plate[p])} to place]", style="yellow")
        table.add_row(
            seat,
            *(_track(state, p, a) for a in (KEYS, ACTIONS, PRIVILEGE, BOOK, BAGS)),
            f"{state.sup_t[p]}T {state.sup_m[p]}M",
            f"{state.stk_t[p]}T {state.stk_m[p]}M",
            markers,
            str(state.office_count(p)),
            str(state.score[p]),
        )
    return table


def phase_text(state: GameState) -> str:
    """What kind of decision is pending, in words."""
    return _PHASE_TEXT[state.phase]


def render_status(state: GameState, names: Sequence[str]) -> Text:
    """Turn number, active player, pending decision, actions left, pieces in hand."""
    if state.is_over:
        out = Text(f"Turn {state.turn}: game over", style="bold")
        if state.end_triggers:
            out.append(" — " + "; ".join(end_trigger_text(t) for t in state.end_triggers))
        return out
    out = Text(f"Turn {state.turn}: ", style="bold")
    out.append_text(player_name(names, state.current))
    out.append(f" — {phase_text(state)}")
    if state.phase in (Phase.ACTIONS, Phase.MOVE, Phase.REMOVE):
        out.append(f", {state.actions_left()} of {state.allowance()} actions left")
    if state.phase == Phase.REMOVE:
        out.append(f", up to {state.rm_left} more to remove")
    decider = state.decider
    if decider != state.current:
        out.append(", decision: ")
        out.append_text(player_name(names, decider))
    if state.hand:
        out.append("; in hand: " + " ".join("TM"[k] for k in state.hand))
    if state.phase == Phase.MARKERS:
        out.append(f"; markers on the plate: {len(state.plate[state.current])}")
    return out


def render_log(
    names: Sequence[str], moves: Sequence[Move], movers: Sequence[int], turns: Sequence[int], count: int = 8
) -> RenderableType:
    """The last ``count`` moves, with the turn and the seat that made each."""
    if not moves:
        return Text("No moves yet.", style="dim")
    table = Table(title=f"Last moves ({len(moves)} in all)", title_justify="left", show_header=False, box=None, pad_edge=False)
    table.add_column(justify="right", style="dim")
    table.add_column(no_wrap=True)
    table.add_column()
    start = max(0, len(moves) - count)
    for i in range(start, len(moves)):
        table.add_row(f"t{turns[i]}", player_name(names, movers[i]), moves[i].text())
    return table


def end_trigger_text(trigger: str) -> str:
    """A game-end trigger (``score``, ``markers``, ``cities``) in words."""
    return _END_TRIGGERS.get(trigger, trigger)


def render_scores(state: GameState, names: Sequence[str], scores: list[ScoreBreakdown] | None = None) -> Table:
    """The final score breakdown by category (a projection while the game runs); ★ marks the winner(s)."""
    scores = scores if scores is not None else final_scores(state)
    wins = winners(state, scores) if state.is_over else []
    title = "Final score" if state.is_over else "Projected final score"
    table = Table(title=title, title_justify="left")
    table.add_column("Player", no_wrap=True)
    for cat in CATEGORIES:
        table.add_column(cat.replace("_", "-"), justify="right")
    table.add_column("total", justify="right", style="bold")
    for s in sorted(scores, key=lambda s: (-s.total, s.player)):
        name = player_name(names, s.player)
        if s.player in wins:
            name.append(" ★", style="bold yellow")
        table.add_row(name, *(str(getattr(s, c)) for c in CATEGORIES), str(s.total))
    return table


def render_moves(numbered: Sequence[tuple[int, Move]], columns: int = 3) -> Table:
    """A numbered list of moves in ``columns`` columns (``numbered`` = ``(number, move)`` pairs)."""
    table = Table(show_header=False, box=None, pad_edge=False, padding=(0, 2, 0, 0))
    rows = (len(numbered) + columns - 1) // columns
    for _ in range(min(columns, len(numbered))):
        table.add_column(no_wrap=True)
    for r in range(rows):
        cells: list[RenderableType] = []
        for c in range(columns):
            i = c * rows + r
            if i < len(numbered):
                number, move = numbered[i]
                cell = Text(f"{number:>3}. ", style="cyan")
                cell.append(move.text())
                cells.append(cell)
            elif c < len(table.columns):
                cells.append(Text(""))
        table.add_row(*cells)
    return table


def render_view(
    state: GameState,
    names: Sequence[str],
    moves: Sequence[Move] = (),
    movers: Sequence[int] = (),
    turns: Sequence[int] = (),
    kinds: Sequence[str] | None = None,
) -> RenderableType:
    """The whole table: board, desks, last moves and the status line."""
    return Group(render_board(state), render_desks(state, names, kinds), render_log(names, moves, movers, turns), render_status(state, names))
