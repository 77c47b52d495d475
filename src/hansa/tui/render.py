"""Rich renderables for a position: schematic board, players' desks, status line, move log, score table; the
full view (:func:`render_view`, ~115 columns by 50 lines) and the compact one that fits 80x24
(:func:`render_compact`).

Every function here is pure: it reads a :class:`~hansa.core.state.GameState` (and, where needed, the player
names and the move history) and returns a ``rich`` renderable; nothing is printed.  Colour is decoration only:
every piece also carries its seat number (``■1`` is a Trader of seat 1, ``●2`` a Merchant of seat 2, ``■N`` a
neutral Trader), so the text reads the same on a monochrome terminal or in a log file.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from ..core.board import COUNTRIES, OfficeSpec
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
    MISSION_CARDS,
    NEUTRAL,
    PRIVILEGE,
    PRIVILEGE_COLOURS,
    TILE_CODES,
    TILE_DISPLAY,
    WIN_SCORE,
)
from ..core.moves import Move
from ..core.scoring import ScoreBreakdown, categories, final_scores, mission_score, winners
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
    Phase.PERMANENT: "permanent bonus marker of the claimed sea route",
    Phase.SHARE: "F-INC: take a piece from the stock, or not",
    Phase.TRIBUTE: "Tribute: choose the pieces it pays",
}


SHIP_GLYPH = "≈"
PERMANENT_GLYPH = "★"
#: Styles of the countries (England, Wales, Scotland).
COUNTRY_STYLES = ("", "bold dark_orange3", "bold blue")


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
    label = shape + spec.colour[0] + (COIN_GLYPH * max(1, spec.points) if spec.coin else "")
    return Text(label, style=PRIVILEGE_STYLES[spec.privilege - 1])


def marker_name(marker: int) -> str:
    """Short name of a bonus marker type."""
    return MARKER_NAMES[marker]


def route_text(state: GameState, route: int) -> Text:
    """``GRO-EMD ·■1· ◆+3``: the route code, its houses from the first city, and its bonus marker if any."""
    r = state.board.routes[route]
    out = Text(r.code, style="bold")
    if r.country:
        out.append(f"({COUNTRIES[r.country][0]})", style=COUNTRY_STYLES[r.country])
    out.append(" ")
    for i, h in enumerate(r.houses):
        if i:
            out.append(" ")
        code = state.houses[h]
        if code < 0 and i in r.ships:
            out.append(SHIP_GLYPH, style="dim cyan")  # a free ship space: Merchants only
        else:
            out.append_text(piece_text(code))
    marker = state.route_marker[route]
    if marker >= 0:
        out.append(f" {MARKER_GLYPH}{marker_name(marker)}", style="bold cyan")
    if r.permanent:
        out.append(f" {PERMANENT_GLYPH}{r.permanent.replace('_', ' ')}", style="bold magenta")
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
    if state.extras[city] and c.offices:
        out.append("| ", style="dim")
    for i, spec in enumerate(c.offices):
        if i:
            out.append(" ")
        out.append_text(office_text(spec, state.offices[c.office_base + i]))
    if c.green:
        if state.right_offices[city] and state.extras[city]:
            out.append("| ", style="dim")
        for code in state.right_offices[city]:
            out.append_text(piece_text(code))
            out.append(" ")
        if not (state.extras[city] or state.right_offices[city]):
            out.append("green city: no office yet", style="green")
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
        if c.abilities:
            name.append(f" ↑{'/'.join(ABILITY_NAMES[a] for a in c.abilities)}", style="italic cyan")
        if board.countries and c.countries != 1:
            countries = "+".join(COUNTRIES[k] for k in range(len(COUNTRIES)) if c.countries >> k & 1)
            name.append(f" [{countries}]", style=COUNTRY_STYLES[1 if c.countries & 2 else 2])
        if c.green:
            done = bool(state.extras[c.index] or state.right_offices[c.index])
        else:
            done = state.city_filled[c.index] >= len(c.offices)
        if done:
            name.append(" ✓", style="bold green")
        owner = state.controller(c.index)
        ctl = Text("") if owner is None else Text(seat_label(owner), style=f"bold {seat_colour(owner)}")
        routes = Text("   ").join(route_text(state, r) for r in starting[c.index]) if starting[c.index] else Text("")
        table.add_row(name, city_offices_text(state, c.index), ctl, routes)

    parts: list[RenderableType] = [table]
    if board.coellen_table:
        coellen = Text(f"{board.cities[board.coellen].name} table: " if board.coellen >= 0 else "Table: ", style="bold")
        for i, (points, privilege) in enumerate(board.coellen_table):
            if i:
                coellen.append("  ")
            coellen.append(f"{points} ", style=PRIVILEGE_STYLES[privilege - 1])
            coellen.append(f"({PRIVILEGE_COLOURS[privilege - 1]}) ", style=PRIVILEGE_STYLES[privilege - 1])
            coellen.append_text(piece_text(state.table[i]))
        parts.append(coellen)
    counters = Text(f"Completed cities: {state.completed}/{board.cities_to_end}", style="bold")
    counters.append(f"   Markers on the board: {state.markers_on_board()}   Face-down supply: {state.hidden_marker_count()}")
    if board.east_west:
        ew = "-".join(board.cities[c].code for c in board.east_west)
        paid = ", ".join(seat_label(p) for p in state.ew_paid) or "nobody yet"
        counters.append(f"   East-West ({ew}) bonus paid to: {paid}")
    parts.append(counters)
    if board.permission_cities:
        perms = Text("Permissions: ", style="bold")
        for i, (pc, mask) in enumerate(board.permission_cities):
            if i:
                perms.append("   ")
            countries = "/".join(COUNTRIES[k] for k in range(len(COUNTRIES)) if mask >> k & 1)
            holder = state.holder(pc) if state.options.permission_timing == "live" else state.perm_holders[i]
            perms.append(f"{board.cities[pc].code} ({countries}): ")
            perms.append(seat_label(holder) if holder >= 0 else "nobody", style=seat_colour(holder) if holder >= 0 else "dim")
            if state.perm_used >> i & 1:
                perms.append(" used", style="dim")
        parts.append(perms)
    if state.phase == Phase.PERMANENT:
        route = board.routes[state.pm_route]
        parts.append(Text(
            f"Permanent marker of {route.code}: {(route.permanent or '').replace('_', ' ')} "
            f"({state.pm_left} left; 'done' to stop)", style="bold magenta",
        ))
    if state.pawn >= 0:
        province = board.provinces[state.pawn]
        allowed = ", ".join(board.routes[r].code for r in province.routes)
        parts.append(Text(f"Pawn in {province.code} {province.name}: actions only on the routes marked ⚑ ({allowed})"))
    parts.append(
        Text(
            f"{TRADER_GLYPH}n Trader / {MERCHANT_GLYPH}n Merchant of seat n (N neutral), {FREE_GLYPH} free house, "
            f"{MARKER_GLYPH} bonus marker; free office {SQUARE_OFFICE} square / {ROUND_OFFICE} round + privilege "
            f"(w/o/p/b), {COIN_GLYPH} coin; Ctl = controlling seat"
            + (f"; {SHIP_GLYPH} ship space (Merchants only), {PERMANENT_GLYPH} permanent marker" if board.expansion else "")
            + ("; (W) Wales, (S) Scotland route" if board.countries else ""),
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
        if state.facedown[p]:
            markers.append(f" ({len(state.facedown[p])} face down)", style="dim")
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
            out.append(" — " + "; ".join(end_trigger_text(t, state.board.cities_to_end) for t in state.end_triggers))
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
    title = f"Last moves ({len(moves)} in all)"
    table = Table(title=title, title_justify="left", show_header=False, box=None, pad_edge=False, min_width=len(title))
    table.add_column(justify="right", style="dim")
    table.add_column(no_wrap=True)
    table.add_column()
    start = max(0, len(moves) - count)
    for i in range(start, len(moves)):
        table.add_row(f"t{turns[i]}", player_name(names, movers[i]), moves[i].text())
    return table


def end_trigger_text(trigger: str, cities_to_end: int = CITIES_TO_END) -> str:
    """A game-end trigger (``score``, ``markers``, ``cities``) in words (``cities_to_end``: the map's threshold)."""
    if trigger == "cities":
        return f"{cities_to_end} cities were completed"
    return _END_TRIGGERS.get(trigger, trigger)


def render_scores(
    state: GameState, names: Sequence[str], scores: list[ScoreBreakdown] | None = None, compact: bool = False
) -> Table:
    """The final score breakdown by category (a projection while the game runs); ★ marks the winner(s).
    ``compact``: without vertical rules, to fit 80 columns."""
    scores = scores if scores is not None else final_scores(state)
    wins = winners(state, scores) if state.is_over else []
    title = "Final score" if state.is_over else "Projected final score"
    if compact:
        table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, show_edge=False, padding=(0, 0, 0, 1), pad_edge=False)
    else:
        table = Table(title=title, title_justify="left")
    table.add_column("Player", no_wrap=True)
    shown = categories(state)
    for cat in shown:
        table.add_column(cat.replace("_", "-"), justify="right")
    table.add_column("total", justify="right", style="bold")
    for s in sorted(scores, key=lambda s: (-s.total, s.player)):
        name = player_name(names, s.player)
        if s.player in wins:
            name.append(" ★", style="bold yellow")
        table.add_row(name, *(str(getattr(s, c)) for c in shown), str(s.total))
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


def compact_module_line(state: GameState, viewer: int | None, width: int = 80) -> Text | None:
    """The modules in one line of the compact view (``None`` without them): tiles on display and taken (``F-ACT·2``:
    seat 2's), Tribute/Block markers (``Tr GRO-EMD·1``) and the viewer's mission with its points so far."""
    parts: list[str] = []
    if state.favour:
        shown = [TILE_CODES[t] for t, w in enumerate(state.favour) if w == TILE_DISPLAY]
        taken = [f"{TILE_CODES[t]}·{seat_label(w)}" for t, w in enumerate(state.favour) if w >= 0]
        parts.append("Favour " + " ".join(shown + taken))
    routes = state.board.routes
    levies = [f"Tr {routes[r].code}·{seat_label(q)}" for r, q in state.tributes]
    levies += [f"Bl {routes[r].code}·{seat_label(q)}" for r, q in state.blocks]
    if levies:
        parts.append(" ".join(levies))
    if state.missions and viewer is not None and viewer >= 0 and not state.is_over:
        card = state.missions[viewer]
        parts.append(f"Mission {' '.join(MISSION_CARDS[card])} {mission_score(state, viewer)}/8")
    if not parts:
        return None
    line = Text(" │ ".join(parts), no_wrap=True, overflow="crop")
    line.truncate(width)
    return line


def module_lines(state: GameState, names: Sequence[str], viewer: int | None, width: int = 80) -> list[Text]:
    """The Big Box modules in play (docs/rules.md §8), a line each: the Emperor's Favour tiles (on display, and
    whose), the Tribute and Block markers beside routes, and ``viewer``'s own mission card with its points so far
    (every card once the game is over).  Empty without the modules."""
    out: list[Text] = []
    if state.favour:
        line = Text("Favour: ", style="bold")
        shown = [TILE_CODES[t] for t, w in enumerate(state.favour) if w == TILE_DISPLAY]
        line.append(" ".join(shown) or "-")
        for t, w in enumerate(state.favour):
            if w >= 0:
                line.append(f"  {TILE_CODES[t]} ")
                line.append_text(Text(seat_label(w), style=seat_colour(w)))
        out.append(line)
    if state.tributes or state.blocks:
        line = Text("Beside routes: ", style="bold")
        routes = state.board.routes
        parts = [(f"Tr {routes[r].code} ", q) for r, q in state.tributes] + [(f"Bl {routes[r].code} ", q) for r, q in state.blocks]
        for i, (label, q) in enumerate(parts):
            line.append(("  " if i else "") + label)
            line.append_text(Text(seat_label(q), style=seat_colour(q)))
        out.append(line)
    if state.missions:
        seats = range(state.players) if state.is_over else ([viewer] if viewer is not None and viewer >= 0 else [])
        for q in seats:
            line = Text("Mission " if state.is_over else "Your mission: ", style="bold")
            if state.is_over:
                line.append_text(player_name(names, q))
                line.append(": ")
            line.append(" ".join(MISSION_CARDS[state.missions[q]]))
            line.append(f" ({mission_score(state, q)} of 8 points now)", style="dim")
            out.append(line)
    for line in out:
        line.no_wrap, line.overflow = True, "crop"
        line.truncate(width)
    return out


def secret_viewer(state: GameState, kinds: Sequence[str] | None) -> int | None:
    """Whose secret mission card the terminal shows: the lone human's, or with several humans at one terminal the
    deciding human's; none when only bots play."""
    if kinds is None:
        return None
    humans = [i for i, kind in enumerate(kinds) if kind == "human"]
    if len(humans) == 1:
        return humans[0]
    return state.decider if state.decider in humans else None


def render_view(
    state: GameState,
    names: Sequence[str],
    moves: Sequence[Move] = (),
    movers: Sequence[int] = (),
    turns: Sequence[int] = (),
    kinds: Sequence[str] | None = None,
) -> RenderableType:
    """The whole table: board, desks, the modules in play, last moves and the status line."""
    extra = module_lines(state, names, secret_viewer(state, kinds), 200)
    return Group(
        render_board(state), render_desks(state, names, kinds), *extra, render_log(names, moves, movers, turns),
        render_status(state, names),
    )


# ---------------------------------------------------------------------------------------------- compact view
#
# The compact view fits a standard 80x24 terminal: a grid of cities (with the Coellen table) and a grid of
# routes (with the end-game counters), four cells to a row, then the desks (one header line and one row per
# player), the status line and the last moves.  Every line is built here to an exact width, so nothing wraps
# or is cut with an ellipsis; see :func:`render_compact`.

#: The views ``hansa play`` can draw; ``auto`` picks one from the console size (:func:`choose_view`).
VIEWS = ("auto", "compact", "full")
#: The full view needs at least this many columns and lines (its board table alone is ~115 x 30).
FULL_MIN_WIDTH = 110
FULL_MIN_HEIGHT = 40
#: Short labels of the bonus marker types in the compact view (order of ``MARKER_NAMES``).
COMPACT_MARKERS = ("Ex", "Sw", "+3", "+4", "Im", "Rm", "Xc", "Tr", "Bl")
#: Short labels of the abilities in the compact view (order of ``ABILITY_NAMES``).
ABILITY_LABELS = ("Key", "Act", "Priv", "Book", "Bag")
CONTROL_GLYPH = "»"
PAWN_GLYPH = "⚑"
#: Columns of the board grids: 27 cities and the Coellen table in 7 rows, 32 or 34 routes and 2-3 counter
#: cells in 9 rows, on either board side.
GRID_COLUMNS = 4
#: What the compact view's signs mean (``help`` prints it); every line fits 80 columns.
COMPACT_LEGEND = (
    f"{TRADER_GLYPH}n {MERCHANT_GLYPH}n  Trader / Merchant of seat n (N neutral); {FREE_GLYPH} free house",
    f"{SQUARE_OFFICE}w {ROUND_OFFICE}o  free square / round office, privilege w o p b, {COIN_GLYPH} coin; "
    "extras|printed",
    f"{CONTROL_GLYPH}n     the seat controlling the city;  ↑Book  the city's ability",
    f"{MARKER_GLYPH}      bonus marker: Ex extra office, Sw swap, +3 / +4, Im improve, Rm remove 3",
    "Table  the Coellen table: 7 white, 8 orange, 9 pink, 11 black privilege",
    f"n/10 full  completed cities;  n{MARKER_GLYPH} left  face-down markers;  E-W  bonus paid to",
    "Desk   Key Act Priv Book Bag abilities (* track full, C all); Supply, Stock in",
    "       Traders T / Merchants M; Off offices; Used markers; Markers held (+n new)",
)


def choose_view(width: int, height: int) -> str:
    """``full`` on a console of at least :data:`FULL_MIN_WIDTH` x :data:`FULL_MIN_HEIGHT`, else ``compact``."""
    return "full" if width >= FULL_MIN_WIDTH and height >= FULL_MIN_HEIGHT else "compact"


def _marker_label(marker: int) -> Text:
    return Text(MARKER_GLYPH + COMPACT_MARKERS[marker], style="bold cyan")


def compact_route_cell(state: GameState, route: int) -> Text:
    """``GOS-QUE ■1· · ■3 ◆Sw``: the route code, its houses from the first city two cells each (a free house is
    ``·``), the bonus marker; ``⚑`` after the code marks a route the pawn allows."""
    r = state.board.routes[route]
    out = Text(r.code, style="bold")
    pawn = state.pawn >= 0 and route in state.board.provinces[state.pawn].routes
    out.append(PAWN_GLYPH if pawn else " ", style="bold")
    houses = Text()
    for h in r.houses:
        code = state.houses[h]
        houses.append_text(piece_text(code) if code >= 0 else Text(FREE_GLYPH + " ", style="dim"))
    houses.rstrip()
    out.append_text(houses)
    marker = state.route_marker[route]
    if marker >= 0:
        out.append(" ")
        out.append_text(_marker_label(marker))
    return out


def compact_city_cell(state: GameState, city: int) -> Text:
    """``GRO↑Book ■1|□w$○o »1``: the code (in the controller's colour), the ability, the extra offices (newest
    first) before ``|``, the printed offices left to right without spaces, and the controlling seat."""
    c = state.board.cities[city]
    owner = state.controller(city)
    out = Text(c.code, style="bold" if owner is None else f"bold {seat_colour(owner)}")
    if c.ability is not None:
        out.append(f"↑{ABILITY_LABELS[c.ability]}", style="italic cyan")
    out.append(" ")
    for code in state.extras[city]:
        out.append_text(piece_text(code))
    if state.extras[city]:
        out.append("|", style="dim")
    for i, spec in enumerate(c.offices):
        out.append_text(office_text(spec, state.offices[c.office_base + i]))
    if owner is not None:
        out.append(f" {CONTROL_GLYPH}{seat_label(owner)}", style=f"bold {seat_colour(owner)}")
    return out


def coellen_cell(state: GameState) -> Text:
    """``Table 7· 8●2 9· 11·``: the Coellen table's spaces (points in their privilege colour) and occupants."""
    out = Text("Table", style="bold")
    for i, (points, privilege) in enumerate(state.board.coellen_table):
        out.append(f" {points}", style=PRIVILEGE_STYLES[privilege - 1])
        out.append_text(piece_text(state.table[i]))
    return out


def counter_cells(state: GameState) -> list[Text]:
    """The end-game counters (completed cities, face-down markers), the East-West bonus and the pawn."""
    board = state.board
    cells = [Text(f"{state.completed}/{state.board.cities_to_end} full, {state.hidden_marker_count()}{MARKER_GLYPH} left", style="bold")]
    if board.east_west:
        ew = "-".join(board.cities[c].code for c in board.east_west)
        cell = Text(f"E-W {ew}: ", style="bold")
        if state.ew_paid:
            for i, p in enumerate(state.ew_paid):
                cell.append(("" if i == 0 else " ") + seat_label(p), style=f"bold {seat_colour(p)}")
        else:
            cell.append("-")
        cells.append(cell)
    if state.pawn >= 0:
        cells.append(Text(f"Pawn {board.provinces[state.pawn].code}: {PAWN_GLYPH} routes", style="bold"))
    return cells


def grid_lines(cells: Sequence[Text], columns: int, width: int = 80, max_gap: int = 3) -> list[Text]:
    """``cells`` in ``columns`` columns filled top to bottom, each column as wide as its widest cell, the
    columns as far apart (up to ``max_gap`` cells) as ``width`` allows."""
    rows = max(1, (len(cells) + columns - 1) // columns)
    widths = [max((cells[i].cell_len for i in range(c * rows, min(len(cells), (c + 1) * rows))), default=0) for c in range(columns)]
    gap = max(1, min(max_gap, (width - sum(widths)) // max(1, columns - 1)))
    lines: list[Text] = []
    for r in range(rows):
        line = Text(no_wrap=True, overflow="crop", end="")
        for c in range(columns):
            i = c * rows + r
            if i >= len(cells):
                break
            if c:
                line.append(" " * gap)
            line.append_text(cells[i])
            if c + 1 < columns and i + rows < len(cells):
                line.append(" " * (widths[c] - cells[i].cell_len))
        line.rstrip()
        lines.append(line)
    return lines


def compact_board_lines(state: GameState, width: int = 80) -> list[Text]:
    """The board in the compact view: the city grid (with the Coellen table), then the route grid (with the
    counters), four cells to a row: 16 lines on either side.  A grid that would be wider than ``width`` (it
    never is in play: its cells leave 4 columns to spare at 80) takes three columns instead."""
    board = state.board
    cities = [compact_city_cell(state, c.index) for c in board.cities]
    if board.coellen_table:
        cities.append(coellen_cell(state))
    routes = [compact_route_cell(state, r.index) for r in board.routes] + counter_cells(state)
    out: list[Text] = []
    for cells in (cities, routes):
        for columns in range(GRID_COLUMNS, 0, -1):
            lines = grid_lines(cells, columns, width)
            if columns == 1 or max(line.cell_len for line in lines) <= width:
                break
        out += lines
    return out


def _markers_text(state: GameState, seat: int) -> Text:
    """Held bonus markers (``Sw×2 +3``), then ``(+n)`` for markers drawn this turn and waiting to be placed."""
    counts: dict[int, int] = {}
    for m in state.markers[seat]:
        counts[m] = counts.get(m, 0) + 1
    out = Text(" ".join(COMPACT_MARKERS[m] + (f"×{n}" if n > 1 else "") for m, n in sorted(counts.items())) or "-")
    if state.plate[seat]:
        out.append(f" (+{len(state.plate[seat])})", style="yellow")
    return out


def _compact_track(state: GameState, seat: int, ability: int) -> Text:
    value = state.ability_value(seat, ability)
    if ability == PRIVILEGE:
        text = Text(PRIVILEGE_COLOURS[value - 1][0], style=PRIVILEGE_STYLES[value - 1])
    else:
        text = Text("C" if value == BAGS_ALL else str(value))
    if state.ability_level(seat, ability) == len(ABILITY_VALUES[ability]) - 1:
        text.append("*", style="bold green")
    return text


def compact_desk_lines(state: GameState, names: Sequence[str], width: int = 80) -> list[Text]:
    """The desks in the compact view: a header line and one line per player (``▶`` = the active player), with
    the columns ``Key Act Priv Book Bag`` (privilege as w/o/p/b, ``*`` = track full), supply and stock,
    offices, score and bonus markers.  A name is cut (never with an ellipsis) only when a line would
    otherwise be wider than ``width``."""
    header = ["", "#", "Name", *ABILITY_LABELS, "Supply", "Stock", "Off", "Score", "Used", "Markers"]
    right = {1, 10, 11, 12}  # right-aligned columns: seat, offices, score, used markers
    centred = {3, 4, 5, 6, 7}  # the abilities
    rows: list[list[Text]] = []
    for p in range(state.players):
        rows.append(
            [
                Text("▶" if p == state.current and not state.is_over else ""),
                Text(seat_label(p)),
                player_name(names, p),
                *(_compact_track(state, p, a) for a in (KEYS, ACTIONS, PRIVILEGE, BOOK, BAGS)),
                Text(f"{state.sup_t[p]}T {state.sup_m[p]}M"),
                Text(f"{state.stk_t[p]}T {state.stk_m[p]}M"),
                Text(str(state.office_count(p))),
                Text(str(state.score[p]), style="bold"),
                Text(str(len(state.used_markers[p]))),
                _markers_text(state, p),
            ]
        )
    widths = [max(len(header[i]), *(row[i].cell_len for row in rows)) for i in range(len(header))]
    widths[0] = 1
    excess = sum(widths) + len(widths) - 1 - width
    if excess > 0:  # long names: cut them (never below 8 cells, then never below 3), then the markers
        cut = min(excess, max(0, widths[2] - 8))
        cut += min(excess - cut, max(0, widths[2] - cut - 3))
        widths[2] -= cut
        widths[-1] = max(1, widths[-1] - (excess - cut))
    lines: list[Text] = []
    for cells in [[Text(h, style="bold") for h in header], *rows]:
        line = Text(no_wrap=True, overflow="crop", end="")
        for i, cell in enumerate(cells):
            if i:
                line.append(" ")
            if cell.cell_len > widths[i]:
                cell = cell.copy()
                cell.truncate(widths[i], overflow="crop")
            pad = " " * (widths[i] - cell.cell_len)
            if i in centred:
                half = (widths[i] - cell.cell_len) // 2
                line.append(" " * half)
                line.append_text(cell)
                line.append(" " * (widths[i] - cell.cell_len - half))
            elif i in right:
                line.append(pad)
                line.append_text(cell)
            elif i + 1 < len(cells):
                line.append_text(cell)
                line.append(pad)
            else:
                line.append_text(cell)
        line.rstrip()
        lines.append(line)
    return lines


_SHORT_PHASE = {
    Phase.ACTIONS: "actions",
    Phase.MOVE: "Move (lift/drop)",
    Phase.RELOCATE: "relocating",
    Phase.REMOVE: "Remove 3",
    Phase.MARKERS: "placing markers",
    Phase.PAWN_SETUP: "placing the pawn",
    Phase.PAWN_END: "free pawn move",
    Phase.NEUTRAL_OFFICE: "neutral claim: city",
    Phase.OVER: "game over",
    Phase.PERMANENT: "permanent marker",
    Phase.SHARE: "F-INC share",
    Phase.TRIBUTE: "tribute",
}


def compact_status(state: GameState, names: Sequence[str], width: int = 80, short: bool = False) -> Text:
    """The status line (:func:`render_status`), in shorter words when it would not fit in ``width`` or when
    ``short`` is true (``T12 Ann: actions 2/3 left``)."""
    full = render_status(state, names)
    if (full.cell_len <= width and not short) or state.is_over:
        full.truncate(width, overflow="crop")
        return full
    out = Text(f"T{state.turn} ", style="bold")
    out.append_text(player_name(names, state.current))
    out.append(f": {_SHORT_PHASE[state.phase]}")
    if state.phase in (Phase.ACTIONS, Phase.MOVE, Phase.REMOVE):
        out.append(f" {state.actions_left()}/{state.allowance()} left")
    if state.phase == Phase.REMOVE:
        out.append(f", remove {state.rm_left}")
    if state.decider != state.current:
        out.append(", decides: ")
        out.append_text(player_name(names, state.decider))
    if state.hand:
        out.append(", hand " + " ".join("TM"[k] for k in state.hand))
    if state.phase == Phase.MARKERS:
        out.append(f", plate {len(state.plate[state.current])}")
    out.truncate(width, overflow="crop")
    return out


def _pack_moves(
    prefix: Text, names: Sequence[str], items: Sequence[tuple[int, int, Move]], lines: int, width: int
) -> list[Text] | None:
    """``prefix`` then the moves ``items`` (``(turn, mover, move)``, oldest first) in at most ``lines`` lines
    of ``width`` cells, or None if they do not fit.  A run of moves of one player in one turn reads
    ``t12 Ann place T GRO-EMD:1, income 3T``; runs are `` · ``-separated; a move is never split."""
    out = [prefix.copy()]
    filled = False  # the last line holds a move already
    previous: tuple[int, int] | None = None
    for turn, mover, move in items:
        for attempt in (0, 1):
            line = out[-1]
            same = filled and previous == (turn, mover)
            piece = Text(move.text())
            if not same:
                head = Text(f"t{turn} ", style="dim")
                head.append_text(player_name(names, mover))
                head.append(" ")
                piece = head + piece
            gap = ", " if same else (" · " if filled else "")
            if line.cell_len + len(gap) + piece.cell_len <= width:
                line.append(gap, style="dim")
                line.append_text(piece)
                filled = True
                break
            if attempt or len(out) == lines:
                return None
            out.append(Text())
            filled = False
        previous = (turn, mover)
    return out


def compact_log_lines(
    names: Sequence[str],
    moves: Sequence[Move],
    movers: Sequence[int],
    turns: Sequence[int],
    lines: int,
    width: int = 80,
    prefix: Text | None = None,
) -> list[Text]:
    """As many of the last moves as fit, oldest first, in at most ``lines`` lines of ``width`` cells, after
    ``prefix`` (default ``Last:``) on the first line (see :func:`_pack_moves`)."""
    if lines <= 0:
        return []
    start = prefix.copy() if prefix is not None else Text("Last: ", style="dim")
    if not moves:
        if prefix is None:
            start.append("no moves yet", style="dim")
        return [start]
    best = [start]
    for count in range(1, len(moves) + 1):
        items = [(turns[i], movers[i], moves[i]) for i in range(len(moves) - count, len(moves))]
        packed = _pack_moves(start, names, items, lines, width)
        if packed is None:
            break
        best = packed
    for line in best:
        line.no_wrap, line.overflow, line.end = True, "crop", ""
    return best


def compact_fixed_lines(state: GameState, width: int = 80, viewer: int | None = None, modules: bool = True) -> int:
    """Lines of the compact view without the last moves: board (16), desks (header + one per player), the modules'
    line (with ``modules``, in a game that has them), status."""
    extra = 1 if modules and compact_module_line(state, viewer, width) is not None else 0
    return len(compact_board_lines(state, width)) + state.players + 1 + 1 + extra


def _short_end(trigger: str, cities_to_end: int = CITIES_TO_END) -> str:
    return {"score": f"{WIN_SCORE} points reached", "markers": "no marker left", "cities": f"{cities_to_end} cities full"}.get(
        trigger, trigger
    )


def render_compact(
    state: GameState,
    names: Sequence[str],
    moves: Sequence[Move] = (),
    movers: Sequence[int] = (),
    turns: Sequence[int] = (),
    *,
    width: int = 80,
    height: int = 23,
    hint: str = "",
    max_log: int = 3,
    viewer: int | None = None,
    modules: bool = True,
) -> Group:
    """The whole table in at most ``height`` lines (at least :func:`compact_fixed_lines`) of at most ``width``
    cells (at least 80): the board grids, the desks, the status line (with ``hint`` at its end when it fits)
    and the last moves (up to ``max_log`` lines, as many as the height leaves; with no line left they follow
    the status on its line)."""
    lines = compact_board_lines(state, width) + compact_desk_lines(state, names, width)
    extra = compact_module_line(state, viewer, width) if modules else None
    if extra is not None:
        lines.append(extra)
    if state.is_over:
        status = Text(f"Turn {state.turn}: game over", style="bold")
        if state.end_triggers:
            status.append(" (" + "; ".join(_short_end(t, state.board.cities_to_end) for t in state.end_triggers) + ")")
    else:
        status = compact_status(state, names, width)
    room = height - len(lines) - 1
    if room <= 0:  # the last moves follow the status on its line, in short words if that makes room for one
        status.append(" │ ", style="dim")
        merged = compact_log_lines(names, moves, movers, turns, 1, width, prefix=status)
        if moves and merged[0].cell_len == status.cell_len and not state.is_over:
            status = compact_status(state, names, width, short=True)
            status.append(" │ ", style="dim")
            merged = compact_log_lines(names, moves, movers, turns, 1, width, prefix=status)
        if merged[0].cell_len == status.cell_len:
            merged[0].right_crop(3)
        lines += merged
    else:
        if hint and status.cell_len + 3 + len(hint) <= width:
            status.append(" · " + hint, style="dim")
        lines.append(status)
        lines += compact_log_lines(names, moves, movers, turns, min(room, max_log), width)
    for line in lines:
        line.no_wrap, line.overflow, line.end = True, "crop", "\n"
    return Group(*lines)
