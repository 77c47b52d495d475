"""Terminal play: the interactive loop behind ``hansa play``.

:class:`PlaySession` runs one game between people at the keyboard and bots.  Input and output are injected:
``ask(prompt) -> line`` (raising :class:`EOFError` at the end of input, :class:`KeyboardInterrupt` on Ctrl-C)
and a ``rich`` console, so tests drive a whole game with a list of lines.  :func:`play_command` is the
``hansa play`` command (argument checks, readline completion when stdin is a terminal).
"""

from __future__ import annotations

import enum
import random
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from ..bots import Bot, bot_spec_ok, make_bot
from ..core.errors import HansaError, MalformedMoveError
from ..core.moves import Claim, Move, PlaceMarker
from ..game import Game
from ..record import game_from_record, load_record, save_record
from .render import (
    COMPACT_LEGEND,
    VIEWS,
    choose_view,
    compact_fixed_lines,
    end_trigger_text,
    module_lines,
    player_name,
    render_compact,
    render_log,
    render_moves,
    render_scores,
    render_view,
    secret_viewer,
)

#: ``ask(prompt)`` returns one line of input without its newline; raises EOFError / KeyboardInterrupt.
AskFn = Callable[[str], str]

HUMAN = "human"
#: Show the numbered list of legal moves by itself when there are at most this many.
LIST_LIMIT = 40
#: Moves the ``log`` command shows by default.
LOG_COUNT = 20
COMMANDS = ("help", "moves", "undo", "save", "load", "board", "score", "view", "log", "modules", "quit")
#: First words of the move notation (docs/notation.md).
MOVE_WORDS = frozenset(
    "income place displace lift drop claim relocate take done use remove shift end marker pawn neutral tile share "
    "tribute".split()
)

HELP = """\
[bold]Your move[/]: type it in notation (case-insensitive; a route either way round;
a unique prefix is enough, e.g. [cyan]claim GRO[/]), or its number from the list.  E.g.:
  [cyan]income 3T[/]  [cyan]place T GRO-EMD:2[/]  [cyan]displace GRO-EMD:2 with M pay TT[/]  [cyan]lift HAM-LUB:1[/]
  [cyan]drop T HAM-LUB:2[/]  [cyan]claim GRO-EMD office GRO[/]  [cyan]relocate T BRE-HAM:3[/]  [cyan]take T[/]  [cyan]done[/]
  [cyan]claim GOE-QUE ability GOE[/]  [cyan]use +3[/]  [cyan]use improve book[/]  [cyan]use swap LUB 1[/]  [cyan]end[/]
[bold]Commands[/]:
  [cyan]moves[/] [FILTER], [cyan]?[/]   numbered list of your legal moves ([cyan]moves place[/], [cyan]moves GRO[/])
  [cyan]undo[/]               take back your own last move of this turn (until another
                     player moves or a bonus marker is revealed)
  [cyan]save[/] FILE, [cyan]load[/] FILE  write the game record / resume one
  [cyan]board[/]              show the table again     [cyan]score[/]  projected final score
  [cyan]view[/] \\[compact|full|auto]  the table's layout (auto: from the terminal size)
  [cyan]log[/] [N]            the last N moves (20)    [cyan]help[/]   this text     [cyan]quit[/]  leave
Tab completes moves and commands in a terminal.  Notation: docs/notation.md."""

#: ``help`` in a game with the Big Box modules adds their moves and the ``modules`` command.
MODULES_HELP = """\
[bold]Big Box modules[/] (rules §8): [cyan]tile F-ACT +3 improve[/]  [cyan]share T[/]  [cyan]tribute 1T1M[/]
  [cyan]use tribute GRO-EMD[/]  [cyan]use block GRO-EMD[/]  [cyan]use exchange 2 improve[/]  [cyan]place T GRO-EMD:2 pay T[/]
  [cyan]modules[/]            the Emperor's Favour tiles, Tribute/Block markers and your mission
  (compact view: Xc exchange, Tr tribute, Bl block; Favour: the tiles, F-ACT·2 = seat 2's)"""

#: ``help`` in the compact view adds what its signs mean.
COMPACT_HELP = "[bold]Compact view[/]:\n" + "\n".join(escape(line) for line in COMPACT_LEGEND)


class PlayError(HansaError):
    """Bad ``hansa play`` arguments."""


class _Outcome(enum.Enum):
    STAY = 0  #: ask again, same position
    CHANGED = 1  #: the position changed (move, undo, load)
    QUIT = 2


def ordered_moves(legal: Sequence[Move]) -> list[Move]:
    """The order of the numbered list: claims first (the moves that matter most), then the engine's order."""
    return [m for m in legal if type(m) is Claim] + [m for m in legal if type(m) is not Claim]


def completion_candidates(text: str, words: Sequence[str]) -> list[str]:
    """Completions of ``text`` (the line typed so far) among ``words``, one word at a time: ``pl`` gives
    ``place ``, ``place T GRO-`` gives every ``place T GRO-...`` house."""
    low = text.lower()
    out: dict[str, None] = {}
    for word in words:
        if word.lower().startswith(low):
            cut = word.find(" ", len(text))
            out[word if cut < 0 else word[: cut + 1]] = None
    return list(out)


def _normal(text: str) -> str:
    return " ".join(text.split()).lower()


def stream_ask(stream: TextIO, console: Console) -> AskFn:
    """An ``ask`` reading lines from a stream (a pipe, a test script): prints the prompt and echoes the line,
    so the output reads like a transcript."""

    def ask(prompt: str) -> str:
        console.print(prompt, end="", markup=False, highlight=False)
        line = stream.readline()
        if not line:
            console.print()
            raise EOFError
        line = line.rstrip("\r\n")
        console.print(line, markup=False, highlight=False)
        return line

    return ask


class PlaySession:
    """One game at the terminal.  ``seats[i]`` is ``"human"`` or a bot spec (see :func:`hansa.bots.make_bot`)."""

    def __init__(
        self,
        game: Game,
        seats: Sequence[str],
        *,
        console: Console,
        ask: AskFn,
        interactive: bool = False,
        bot_seed: int | None = None,
        autosave_dir: Path | None = None,
        list_limit: int = LIST_LIMIT,
        view: str = "auto",
    ) -> None:
        if len(seats) != len(game.names):
            raise PlayError(f"{len(seats)} seat kinds for {len(game.names)} players")
        if view not in VIEWS:
            raise PlayError(f"unknown view {view!r}: use {', '.join(VIEWS)}")
        self.game = game
        self.seats = list(seats)
        self.console = console
        self.ask = ask
        self.interactive = interactive
        self.autosave_dir = autosave_dir if autosave_dir is not None else Path.cwd()
        self.list_limit = list_limit
        #: ``auto`` (from the console size at every drawing), ``compact`` or ``full``: see :meth:`layout`.
        self.view = view
        base = bot_seed if bot_seed is not None else (game.seed or 0)
        self.bots: dict[int, Bot] = {
            i: make_bot(spec, base * 7 + 101 * (i + 1)) for i, spec in enumerate(seats) if spec != HUMAN
        }
        for bot in self.bots.values():
            bot.bind(game)
        #: Words the readline completer offers (legal move texts and commands), updated at every prompt.
        self.completions: list[str] = list(COMMANDS)
        self._matches: list[str] = []
        self._dirty = True
        #: Path of the last automatic save (tests read it).
        self.autosaved: Path | None = None

    # ------------------------------------------------------------------ the loop

    def run(self) -> int:
        """Play until the game ends or a player quits; returns the exit code (0, also after Ctrl-C).  The bots
        are closed at the end (an engine seat's process ends)."""
        try:
            return self._run()
        finally:
            for bot in self.bots.values():
                bot.close()

    def _run(self) -> int:
        try:
            self._loop()
        except KeyboardInterrupt:
            self.console.print("\n[bold]Interrupted.[/]")
            if self.interactive:
                self._offer_save()
            else:
                self._autosave()
        except EOFError:
            self.console.print("[bold]End of input.[/]")
            self._autosave()
        return 0

    def _loop(self) -> None:
        game = self.game
        while not game.is_over:
            seat = game.state.decider
            bot = self.bots.get(seat)
            if bot is not None:
                self._bot_move(seat, bot)
                continue
            if self._human(seat) is _Outcome.QUIT:
                return
        self._finish()

    def layout(self) -> str:
        """The layout the table is drawn in now: the forced one, or the one that suits the console's size."""
        if self.view != "auto":
            return self.view
        width, height = self.console.size
        return choose_view(width, height)

    def show(self, legal: list[Move] | None = None) -> None:
        """Print the whole table (board, desks, status, last moves) and, given the legal moves, the choices:
        the full view, or the compact one that fits the console (see :meth:`_show_compact`)."""
        g = self.game
        if self.layout() == "compact":
            self._show_compact(legal)
        else:
            self.console.print(render_view(g.state, g.names, g.moves, g.movers, g.move_turns, self.seats))
            if legal is not None:
                self._show_choices(legal)
        self._dirty = False

    def _show_compact(self, legal: list[Move] | None) -> None:
        """The compact table and the prompt in the console's height: the numbered list of legal moves when it
        fits below the table with at least one line of last moves, else a hint in the status line; the lines
        left over show more of the last moves (up to three lines)."""
        g = self.game
        width, height = self.console.size
        viewer = secret_viewer(g.state, self.seats)
        fixed = compact_fixed_lines(g.state, width, viewer)
        modules = True
        if fixed >= height and compact_fixed_lines(g.state, width, viewer, modules=False) < fixed:
            modules = False  # no room for the modules' line: the `modules` command shows it
            fixed -= 1
        room = height - 1 - fixed  # lines between the status line and the prompt
        listing: Table | None = None
        hint = ""
        if legal is not None:
            if len(legal) <= self.list_limit:
                columns = _list_columns(legal, width)
                rows = -(-len(legal) // columns)
                if rows + 1 <= room:
                    listing = render_moves(list(enumerate(legal, 1)), columns)
                    room -= rows
            if listing is None:
                hint = f"{len(legal)} moves: ? lists them"
        self.console.print(
            render_compact(
                g.state, g.names, g.moves, g.movers, g.move_turns, width=width, height=fixed + max(0, room), hint=hint,
                viewer=viewer if modules else None, modules=modules,
            )
        )
        if listing is not None:
            self.console.print(listing)

    def _bot_move(self, seat: int, bot: Bot) -> None:
        state = self.game.state
        turn = state.turn
        failed = getattr(bot, "fallbacks", 0)
        move = bot.choose(state)
        self.game.play(move, player=seat)
        line = Text(f"t{turn} ", style="dim")
        line.append_text(player_name(self.game.names, seat))
        line.append(f" ({self.seats[seat]}): ", style="dim")
        line.append(move.text())
        self.console.print(line)
        if getattr(bot, "fallbacks", 0) > failed:  # an engine seat failed: say so, and that its fallback moved
            errors = getattr(bot, "errors", [])
            self.console.print(Text(f"  {errors[-1] if errors else 'the engine failed'}; its fallback bot "
                                    f"{getattr(bot, 'fallback', '')} played this move "
                                    f"({bot.fallbacks} so far)", style="yellow"))  # type: ignore[attr-defined]
        self._dirty = True

    def _prompt(self, seat: int) -> str:
        return f"{self.game.names[seat]}> "

    def _human(self, seat: int) -> _Outcome:
        legal = ordered_moves(self.game.legal_moves())
        if self._dirty:
            self.show(legal)
        else:
            self._show_choices(legal)
        self.completions = [m.text() for m in legal] + list(COMMANDS)
        while True:
            line = self.ask(self._prompt(seat)).strip()
            if not line:
                continue
            outcome = self._handle(seat, line, legal)
            if outcome is not _Outcome.STAY:
                return outcome

    def _show_choices(self, legal: list[Move]) -> None:
        if len(legal) <= self.list_limit:
            self.console.print(render_moves(list(enumerate(legal, 1)), _list_columns(legal, self.console.size.width)))
            return
        kinds: dict[str, int] = {}
        for m in legal:
            kinds[m.type] = kinds.get(m.type, 0) + 1
        summary = ", ".join(f"{k} {n}" for k, n in kinds.items())
        self.console.print(
            f"{len(legal)} legal moves ({summary}).  Type a move, [cyan]moves[/] [FILTER] for the numbered list, "
            "[cyan]help[/] for help.",
            highlight=False,
        )

    # ------------------------------------------------------------------ one line of input

    def _handle(self, seat: int, line: str, legal: list[Move]) -> _Outcome:
        word, _, rest = line.partition(" ")
        command = word.lower()
        rest = rest.strip()
        if command in ("help", "h") and not rest:
            self.console.print(HELP, highlight=False)
            if self.game.options.modules:
                self.console.print(MODULES_HELP, highlight=False)
            if self.layout() == "compact":
                self.console.print(COMPACT_HELP, highlight=False)
            return _Outcome.STAY
        if command in ("moves", "?", "list"):
            self._list(legal, rest)
            return _Outcome.STAY
        if command == "undo" and not rest:
            return self._undo(seat)
        if command == "save":
            if not rest:
                self._error("usage: save FILE")
            else:
                self._save(Path(rest))
            return _Outcome.STAY
        if command == "load":
            if not rest:
                self._error("usage: load FILE")
                return _Outcome.STAY
            return self._load(Path(rest))
        if command == "board" and not rest:
            self.show(legal)
            return _Outcome.STAY
        if command == "view":
            return self._view(rest, legal)
        if command == "log" and (not rest or rest.isdigit()):
            g = self.game
            self.console.print(render_log(g.names, g.moves, g.movers, g.move_turns, int(rest or LOG_COUNT)))
            return _Outcome.STAY
        if command == "modules" and not rest:
            g = self.game
            lines = module_lines(g.state, g.names, secret_viewer(g.state, self.seats), self.console.size.width)
            for text in lines or [Text("This game is played without the Big Box modules.")]:
                self.console.print(text)
            return _Outcome.STAY
        if command in ("score", "scores") and not rest:
            self.console.print(render_scores(self.game.state, self.game.names, compact=self.layout() == "compact"))
            return _Outcome.STAY
        if command in ("quit", "exit") and not rest:
            if self.game.moves:
                self._offer_save()
            self.console.print("Bye.")
            return _Outcome.QUIT
        if line.isdigit():
            number = int(line)
            if not 1 <= number <= len(legal):
                self._error(f"there is no move number {number}: choose 1 to {len(legal)} (type `moves` for the list)")
                return _Outcome.STAY
            return self._play(seat, legal[number - 1])
        return self._typed_move(seat, line, legal)

    def _typed_move(self, seat: int, line: str, legal: list[Move]) -> _Outcome:
        parsed: Move | None = None
        problem = ""
        try:
            parsed = self.game.parse(line)
        except MalformedMoveError as exc:
            problem = str(exc)
        except (HansaError, KeyError, ValueError) as exc:  # defensive: any parser complaint is bad input
            problem = str(exc)
        if parsed is not None and parsed in legal:
            return self._play(seat, parsed)
        typed = _normal(line)
        matches = [(i, m) for i, m in enumerate(legal, 1) if m.text().lower().startswith(typed)]
        if len(matches) == 1:
            return self._play(seat, matches[0][1])
        if matches:
            self.console.print(Text(f"{len(matches)} moves start with ", style="yellow") + Text(f"{line!r}:"))
            shown = matches[: self.list_limit]
            self.console.print(render_moves(shown, _list_columns([m for _, m in shown], self.console.size.width)))
            if len(matches) > self.list_limit:
                self.console.print(f"... and {len(matches) - self.list_limit} more; type more of the move.")
            return _Outcome.STAY
        if parsed is not None:
            try:
                self.game.play(parsed, player=seat)
            except HansaError as exc:
                self._error(f"illegal move {parsed.text()!r}: {exc}")
                return _Outcome.STAY
            self._dirty = True  # legal after all (cannot happen while legal_moves() is exact)
            return _Outcome.CHANGED
        if typed.split()[0] in MOVE_WORDS:
            self._error(f"no legal move starts with {line!r} now ({problem})")
        else:  # the parser's message already quotes the input ("cannot read move 'x': ...")
            self._error(problem if repr(line) in problem else f"cannot read {line!r}: {problem}")
        self.console.print("Type a move, its number, [cyan]moves[/] for the list or [cyan]help[/].", highlight=False)
        return _Outcome.STAY

    def _play(self, seat: int, move: Move) -> _Outcome:
        try:
            self.game.play(move, player=seat)
        except HansaError as exc:  # cannot happen for a listed move; keep the prompt alive anyway
            self._error(str(exc))
            return _Outcome.STAY
        self.console.print(Text("→ ", style="dim") + Text(move.text(), style="bold"))
        self._dirty = True
        return _Outcome.CHANGED

    def _view(self, rest: str, legal: list[Move]) -> _Outcome:
        choice = rest.lower()
        if choice and choice not in VIEWS:
            self._error(f"usage: view {'|'.join(VIEWS[1:])}|{VIEWS[0]} (not {rest!r})")
            return _Outcome.STAY
        if choice:
            self.view = choice
        width, height = self.console.size
        self.console.print(
            f"View: {self.view}" + (f" ({self.layout()} at {width}x{height})" if self.view == "auto" else ""),
            highlight=False,
        )
        if choice:
            self.show(legal)
        return _Outcome.STAY

    def _list(self, legal: list[Move], flt: str) -> None:
        words = flt.lower().split()
        numbered = [(i, m) for i, m in enumerate(legal, 1) if all(w in m.text().lower() for w in words)]
        if not numbered:
            self._error(f"no legal move matches {flt!r}")
            return
        self.console.print(render_moves(numbered, _list_columns([m for _, m in numbered], self.console.size.width)))
        if flt:
            self.console.print(f"{len(numbered)} of {len(legal)} legal moves match {escape(repr(flt))}.", highlight=False)

    def _undo(self, seat: int) -> _Outcome:
        game = self.game
        if game.undoable(seat) < 1:
            if not game.moves:
                why = "no move has been made yet"
            elif game.movers[-1] != seat:
                why = (
                    f"{game.names[game.movers[-1]]} has moved since your last move; you can only take back your own "
                    "moves of the current turn"
                )
            elif isinstance(game.moves[-1], PlaceMarker):
                why = "a replacement bonus marker has been revealed"
            else:
                why = "the engine does not allow it here"
            self._error(f"cannot undo: {why}")
            return _Outcome.STAY
        move = game.undo_own(seat)
        self.console.print(f"Took back [bold]{escape(move.text())}[/].", highlight=False)
        self._dirty = True
        return _Outcome.CHANGED

    def _error(self, message: str) -> None:
        """Print a complaint (plain text: it may quote the player's input)."""
        self.console.print(Text("✗ ", style="bold red") + Text(message))

    # ------------------------------------------------------------------ files

    def resume_hint(self, path: Path) -> str:
        """The command that resumes a saved game with the same seats."""
        return f"hansa play --load {path} --seats {','.join(self.seats)}"

    def _save(self, path: Path) -> bool:
        try:
            save_record(self.game, path)
        except OSError as exc:
            self._error(f"cannot save to {path}: {exc.strerror or exc}")
            return False
        self.console.print(f"Saved {len(self.game.moves)} moves to [bold]{escape(str(path))}[/]", highlight=False)
        if not self.game.is_over:
            self.console.print(f"Resume with: {escape(self.resume_hint(path))}", highlight=False)
        return True

    def _load(self, path: Path) -> _Outcome:
        try:
            game = game_from_record(load_record(path))
        except HansaError as exc:
            self._error(f"cannot load {path}: {exc}")
            return _Outcome.STAY
        if len(game.names) != len(self.seats):
            self._error(
                f"{path} is a {len(game.names)}-player game and this table has {len(self.seats)} seats; "
                f"start it with: hansa play --load {path}"
            )
            return _Outcome.STAY
        self.game = game
        for bot in self.bots.values():
            bot.bind(game)
        self.console.print(f"Loaded {escape(str(path))}: {len(game.moves)} moves, turn {game.state.turn}.", highlight=False)
        self._dirty = True
        return _Outcome.CHANGED

    def _autosave(self) -> None:
        if not self.game.moves and not self.game.is_over:
            return
        stamp = time.strftime("%Y%m%d-%H%M%S")
        path = self.autosave_dir / f"hansa-autosave-{stamp}.json"
        k = 1
        while path.exists():
            k += 1
            path = self.autosave_dir / f"hansa-autosave-{stamp}-{k}.json"
        if self._save(path):
            self.autosaved = path

    def _offer_save(self) -> None:
        try:
            answer = self.ask("Save the game? File name (Enter: do not save): ").strip()
        except (EOFError, KeyboardInterrupt):
            self.console.print()
            self._autosave()
            return
        if not answer:
            self.console.print("Not saved.")
        elif not self._save(Path(answer)):
            self._autosave()

    # ------------------------------------------------------------------ the end

    def _finish(self) -> None:
        game = self.game
        state = game.state
        self.show()
        self.console.print(
            f"[bold]Game over[/] after {len(game.moves)} moves (turn {state.turn}): "
            + "; ".join(end_trigger_text(t, state.board.cities_to_end) for t in state.end_triggers),
            highlight=False,
        )
        self.console.print(render_scores(state, game.names, compact=self.layout() == "compact"))
        if state.missions:  # every card is shown at the end
            for line in module_lines(state, game.names, None, self.console.size.width)[-state.players :]:
                self.console.print(line)
        wins = game.winners()
        names = " and ".join(game.names[w] for w in wins)
        self.console.print(f"[bold]Winner: {escape(names)}[/]" + (" (shared)" if len(wins) > 1 else ""), highlight=False)
        if self.interactive and HUMAN in self.seats:
            try:
                answer = self.ask("Save the record? File name (Enter: do not save): ").strip()
            except (EOFError, KeyboardInterrupt):
                return
            if answer:
                self._save(Path(answer))

    # ------------------------------------------------------------------ readline

    def complete(self, text: str, index: int) -> str | None:
        """A readline completer over :attr:`completions` (the whole line is the text: no delimiters)."""
        if index == 0:
            self._matches = completion_candidates(text, self.completions)
        return self._matches[index] if index < len(self._matches) else None


def _list_columns(moves: Sequence[Move], width: int) -> int:
    """Columns (1 to 3) of a numbered move list that fit in ``width`` cells (see :func:`render_moves`)."""
    widest = max((len(m.text()) for m in moves), default=0) + 5 + 2  # "nnn. " and the gap
    return max(1, min(3, (width + 2) // widest))


# ---------------------------------------------------------------------------------------------- the command


def seat_kinds(players: int | None, bots: int | None, seats: str | None, level: str, default_players: int = 4) -> list[str]:
    """The kind of every seat from ``--players/--bots/--level`` or ``--seats``."""
    if seats is not None:
        if bots is not None:
            raise PlayError("give either --bots or --seats, not both")
        kinds = [s.strip().lower() if s.strip().lower() == HUMAN else s.strip() for s in seats.split(",")]
        if players is not None and players != len(kinds):
            raise PlayError(f"--seats names {len(kinds)} seats but --players is {players}")
    else:
        n = players if players is not None else default_players
        if not 2 <= n <= 5:
            raise PlayError(f"Hansa Teutonica is played by 2 to 5 players, not {n}")
        k = n - 1 if bots is None else bots
        if not 0 <= k <= n:
            raise PlayError(f"--bots must be between 0 and {n}")
        kinds = [HUMAN] * (n - k) + [level] * k
    if not 2 <= len(kinds) <= 5:
        raise PlayError(f"Hansa Teutonica is played by 2 to 5 players, not {len(kinds)}")
    for kind in kinds:
        if kind != HUMAN and not bot_spec_ok(kind):
            raise PlayError(
                f"unknown seat kind {kind!r}: use human, random, purpose, heuristic, mcts:easy, mcts:medium or mcts:hard"
            )
    return kinds


def default_names(kinds: Sequence[str]) -> list[str]:
    """``You`` for a lone human, ``Player N`` for several, ``Bot N`` for bots."""
    humans = kinds.count(HUMAN)
    return [
        ("You" if humans == 1 else f"Player {i + 1}") if kind == HUMAN else f"Bot {i + 1}" for i, kind in enumerate(kinds)
    ]


def build_session(
    *,
    players: int | None = None,
    bots: int | None = None,
    seats: str | None = None,
    level: str = "heuristic",
    names: str | None = None,
    seed: int | None = None,
    variant: str | None = None,
    options: dict[str, Any] | None = None,
    load: Path | None = None,
    console: Console,
    ask: AskFn,
    interactive: bool = False,
    autosave_dir: Path | None = None,
    view: str = "auto",
) -> PlaySession:
    """Check the ``hansa play`` arguments and set up the game and the session (raises :class:`HansaError`)."""
    if view not in VIEWS:
        raise PlayError(f"--view must be {', '.join(VIEWS[:-1])} or {VIEWS[-1]}, not {view!r}")
    if load is not None:
        if names is not None or variant is not None or options or seed is not None:
            raise PlayError("--load takes names, seed, variant and options from the record; do not give them")
        game = game_from_record(load_record(load))
        kinds = seat_kinds(players, bots, seats, level, default_players=len(game.names))
        if len(kinds) != len(game.names):
            raise PlayError(f"the record is a {len(game.names)}-player game, not {len(kinds)}")
        return PlaySession(
            game, kinds, console=console, ask=ask, interactive=interactive, autosave_dir=autosave_dir, view=view
        )
    kinds = seat_kinds(players, bots, seats, level)
    opts: dict[str, Any] = dict(options or {})
    if variant is not None:
        if len(kinds) != 2:
            raise PlayError("--variant applies to two-player games only")
        opts["two_player_variant"] = variant
    if names is not None:
        listed = [n.strip() for n in names.split(",")]
        if len(listed) != len(kinds) or not all(listed):
            raise PlayError(f"--names needs {len(kinds)} non-empty comma-separated names")
        player_names = listed
    else:
        player_names = default_names(kinds)
    if seed is None:
        seed = random.randrange(1_000_000)
    game = Game(player_names, seed=seed, options=opts)
    return PlaySession(game, kinds, console=console, ask=ask, interactive=interactive, autosave_dir=autosave_dir, view=view)


def _install_readline(session: PlaySession) -> None:
    try:
        import readline
    except ImportError:  # pragma: no cover - platforms without readline
        return
    readline.set_completer_delims("\n")
    readline.set_completer(session.complete)
    if "libedit" in (readline.__doc__ or ""):  # pragma: no cover - macOS
        readline.parse_and_bind("bind ^I rl_complete")
    else:
        readline.parse_and_bind("tab: complete")


def play_command(
    *,
    players: int | None = None,
    bots: int | None = None,
    seats: str | None = None,
    level: str = "heuristic",
    names: str | None = None,
    seed: int | None = None,
    variant: str | None = None,
    options: dict[str, Any] | None = None,
    load: Path | None = None,
    view: str = "auto",
) -> int:
    """``hansa play``: set up from the arguments and play at this terminal; returns the exit code."""
    console = Console()
    interactive = sys.stdin.isatty()
    ask: AskFn = input if interactive else stream_ask(sys.stdin, console)
    session = build_session(
        players=players, bots=bots, seats=seats, level=level, names=names, seed=seed, variant=variant,
        options=options, load=load, console=console, ask=ask, interactive=interactive, view=view,
    )
    if interactive:
        _install_readline(session)
    game = session.game
    who = ", ".join(f"{n} ({k})" for n, k in zip(game.names, session.seats))
    console.print(
        f"[bold]Hansa Teutonica[/], {len(game.names)} players, seed {game.seed}: {escape(who)}.  Type [cyan]help[/] for help.",
        highlight=False,
    )
    return session.run()
