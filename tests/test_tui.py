"""Terminal play (`hansa play`): a whole game driven through the real command, and the prompt's behaviour
(bad input, undo, save/load, end of input, Ctrl-C) driven in-process with injected input and output."""

from __future__ import annotations

import io
import json
import os
import random
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

from hansa import Game
from hansa.bots import make_bot
from hansa.core.constants import MISSION_CARDS, PRIVILEGE_COLOURS
from hansa.core.errors import HansaError
from hansa.record import game_from_record, load_record
from hansa.tui.play import HELP, PlaySession, build_session, completion_candidates, ordered_moves, stream_ask
from hansa.tui.render import (
    COMPACT_LEGEND,
    choose_view,
    compact_fixed_lines,
    module_lines,
    render_board,
    render_compact,
    render_desks,
    render_log,
    render_moves,
    render_scores,
    render_status,
    render_view,
    secret_viewer,
)

HANSA = shutil.which("hansa") or str(Path(sys.executable).parent / "hansa")


def hansa(args: list[str], stdin: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, COLUMNS="130", TERM="dumb")
    return subprocess.run([HANSA, *args], input=stdin, capture_output=True, text=True, timeout=120, cwd=cwd, env=env)


def console() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, width=130, color_system=None, highlight=False), out


def flat(text: str) -> str:
    """``text`` with every run of whitespace made one space: the console wraps lines that a long temporary
    path makes longer than its width, wherever the path puts them."""
    return " ".join(text.split())


def text_of(renderable: Any) -> str:
    con, out = console()
    con.print(renderable)
    return out.getvalue()


class Script:
    """Injected input: answers prompts from a list of lines (then EOF, or KeyboardInterrupt for ``"^C"``) and
    remembers the position at every prompt."""

    def __init__(self, lines: list[str], con: Console) -> None:
        self.lines: Iterator[str] = iter(lines)
        self.console = con
        self.session: PlaySession | None = None
        self.seen: list[tuple[str, Any, int]] = []  # (line, position key at the prompt, moves at the prompt)

    def __call__(self, prompt: str) -> str:
        assert self.session is not None
        game = self.session.game
        line = next(self.lines, None)
        self.console.print(prompt + ("" if line is None else line), markup=False)
        self.seen.append((line or "", game.state.key(), len(game.moves)))
        if line is None:
            raise EOFError
        if line == "^C":
            raise KeyboardInterrupt
        return line


def run_session(
    game: Game, seats: list[str], lines: list[str], tmp_path: Path, *, interactive: bool = False
) -> tuple[PlaySession, str, Script]:
    con, out = console()
    script = Script(lines, con)
    session = PlaySession(game, seats, console=con, ask=script, interactive=interactive, autosave_dir=tmp_path)
    script.session = session
    assert session.run() == 0
    return session, out.getvalue(), script


def two_player(start: int = 0) -> Game:
    return Game(["Ann", "Bot"], seed=1, start_player=start)


# ---------------------------------------------------------------------------------------------- (1) whole games


@pytest.mark.parametrize(
    "args",
    [
        ["--players", "2", "--bots", "1", "--seed", "0", "--names", "Ann,Bot"],
        ["--seats", "human,heuristic,random", "--seed", "1"],
    ],
)
def test_complete_game_through_the_command(args: list[str], tmp_path: Path) -> None:
    # The human answers every prompt with "1": the first listed move, which is a claim whenever one is legal.
    proc = hansa(["play", *args], "1\n" * 3000, tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "Game over after" in out and "Final score" in out and "Winner:" in out
    assert "End of input" not in out  # the game ended before the script ran out
    table = out[out.index("Final score") :]
    for column in ("in-game", "abilities", "markers", "coellen", "control", "network", "total"):
        assert column in table
    assert "★" in table
    assert re.search(r"> 1\n→ ", out)  # the human's choices were played
    assert re.search(r"t\d+ Bot[^\n]*\((heuristic|random)\): ", out)  # and the bots moved by themselves
    assert "prestige points" in out or "cities were completed" in out or "marker could not be placed" in out


def test_command_rejects_bad_arguments(tmp_path: Path) -> None:
    for args, message in (
        (["--players", "7"], "2 to 5 players"),
        (["--seats", "human,wizard"], "unknown seat kind"),
        (["--players", "3", "--variant", "pawn"], "two-player games only"),
        (["--players", "2", "--bots", "1", "--names", "A,B,C"], "--names needs 2"),
        (["--bots", "1", "--seats", "human,random"], "either --bots or --seats"),
        (["--view", "tiny"], "--view must be auto, compact or full"),
    ):
        proc = hansa(["play", *args], "", tmp_path)
        assert proc.returncode == 2 and message in proc.stderr, (args, proc.stderr)


# ---------------------------------------------------------------------------------------------- (2) bad input


def test_bad_input_gets_a_message_and_the_prompt_again(tmp_path: Path) -> None:
    game = two_player()
    occupied = next(game.state.board.house_names[h] for h, code in enumerate(game.state.houses) if code >= 0)
    start = game.state.key()
    lines = ["garbage", f"place T {occupied}", "claim GRO-EMD", "999", "0", "place T GRO-EMD:9", "moves zzz", "save", "claim"]
    session, out, script = run_session(game, ["human", "heuristic"], lines, tmp_path)
    assert "cannot read move 'garbage'" in out
    assert f"illegal move 'place T {occupied}': house {occupied} is occupied (§2.3)" in out
    assert "route GRO-EMD has a free house; it cannot be claimed (§2.6)" in out
    assert "there is no move number 999: choose 1 to" in out and "there is no move number 0" in out
    assert "route GRO-EMD has 3 houses, not 9" in out
    assert "no legal move matches 'zzz'" in out and "usage: save FILE" in out
    assert "no legal move starts with 'claim'" in out
    # one prompt per line and one at the end of input, always in the starting position
    assert [line for line, _, _ in script.seen] == [*lines, ""]
    assert all(key == start for _, key, _ in script.seen)
    assert out.count("Ann> ") == len(lines) + 1
    assert session.game.moves == [] and session.autosaved is None  # nothing to save


def test_numbers_prefixes_and_case(tmp_path: Path) -> None:
    game = two_player()
    legal = ordered_moves(game.legal_moves())
    lines = ["place t emd-gro:1", "place M KAM-OSN", "place m kam-osn:2"]  # reversed route, ambiguous prefix, case
    session, out, _ = run_session(game, ["human", "heuristic"], lines, tmp_path)
    moves = [m.text() for m in session.game.moves]
    assert moves[:2] == ["place T GRO-EMD:3", "place M KAM-OSN:2"]
    assert "2 moves start with 'place M KAM-OSN'" in out and "place M KAM-OSN:1" in out
    assert legal[0].text() == "income 3T"  # no claim possible: the engine's order


def test_list_filter_and_help(tmp_path: Path) -> None:
    lines = ["moves place T GRO", "?", "help", "board", "score", "1"]
    session, out, _ = run_session(two_player(), ["human", "heuristic"], lines, tmp_path)
    assert "place T GRO-EMD:1" in out and "2 of " in out  # GRO-EMD:2 holds a neutral trader
    assert "undo" in out and "save FILE" in out and "Projected final score" in out
    assert session.game.moves[0].text() == "income 3T"


# ---------------------------------------------------------------------------------------------- (3) undo


def test_undo_own_moves_then_refused_after_a_bot_moved(tmp_path: Path) -> None:
    game = two_player()
    lines = ["place T GRO-EMD:1", "undo", "place T GRO-EMD:3", "place T EMD-OSN:1", "undo"]
    session, out, script = run_session(game, ["human", "heuristic"], lines, tmp_path)
    assert "Took back place T GRO-EMD:1." in out
    assert script.seen[2][1] == script.seen[0][1]  # after the undo: exactly the starting position
    assert "cannot undo: Bot has moved since your last move" in out
    # the refused undo changed nothing: the bot's moves and the human's two actions are still there
    assert script.seen[4][1] == script.seen[5][1]
    g = session.game
    assert [m.text() for m in g.moves[:2]] == ["place T GRO-EMD:3", "place T EMD-OSN:1"]
    assert g.movers[2] == 1 and len(g.moves) > 2


def test_undo_with_nothing_to_undo(tmp_path: Path) -> None:
    _, out, _ = run_session(two_player(), ["human", "heuristic"], ["undo"], tmp_path)
    assert "cannot undo: no move has been made yet" in out


# ---------------------------------------------------------------------------------------------- (4) save / load


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    lines = ["place T GRO-EMD:1", "place T EMD-OSN:1", "income 3T", f"save {path}"]
    first, out, _ = run_session(two_player(), ["human", "heuristic"], lines, tmp_path)
    assert f"Saved {len(first.game.moves)} moves to {path}" in flat(out)
    assert "hansa play --load" in flat(out) and "--seats human,heuristic" in flat(out)
    record = json.loads(path.read_text())
    assert record["players"] == ["Ann", "Bot"] and record["moves"][:2] == ["place T GRO-EMD:1", "place T EMD-OSN:1"]

    # load into a fresh table of the same size: same moves, same position (hidden marker order included)
    second, out2, script = run_session(Game(["X", "Y"], seed=99, start_player=0), ["human", "heuristic"], [f"load {path}"], tmp_path)
    assert f"Loaded {path}" in flat(out2)
    assert [m.text() for m in second.game.moves] == [m.text() for m in first.game.moves]
    assert second.game.state.key() == first.game.state.key() == script.seen[-1][1]
    assert second.game.names == ["Ann", "Bot"]

    # a bad file and a record of another size are refused, the game goes on
    other = tmp_path / "three.json"
    other.write_text(json.dumps(Game(3, seed=2).to_record()))
    lines3 = [f"load {tmp_path / 'missing.json'}", f"load {other}"]
    _, out3, script3 = run_session(two_player(), ["human", "heuristic"], lines3, tmp_path)
    assert "cannot load" in flat(out3) and "is a 3-player game and this table has 2 seats" in flat(out3)
    assert len({key for _, key, _ in script3.seen}) == 1

    # and `hansa play --load` sets up the same game
    con, _ = console()
    resumed = build_session(load=path, seats="human,heuristic", console=con, ask=stream_ask(io.StringIO(), con))
    assert resumed.game.state.key() == first.game.state.key() and resumed.seats == ["human", "heuristic"]
    with pytest.raises(HansaError, match="from the record"):
        build_session(load=path, names="A,B", console=con, ask=stream_ask(io.StringIO(), con))


# ---------------------------------------------------------------------------------------------- (5) EOF / Ctrl-C


def test_end_of_input_autosaves_a_replayable_record(tmp_path: Path) -> None:
    session, out, _ = run_session(two_player(), ["human", "heuristic"], ["1", "place T GRO-EMD:1"], tmp_path)
    path = session.autosaved
    assert path is not None and path.parent == tmp_path and re.fullmatch(r"hansa-autosave-[\d-]+\.json", path.name)
    assert "End of input." in out and str(path) in flat(out)
    replayed = game_from_record(load_record(path))
    assert replayed.state.key() == session.game.state.key()
    assert [m.text() for m in replayed.moves[:2]] == ["income 3T", "place T GRO-EMD:1"]


def test_end_of_input_through_the_command(tmp_path: Path) -> None:
    proc = hansa(["play", "--players", "3", "--bots", "2", "--level", "random", "--seed", "3"], "1\n1\n1\n", tmp_path)
    assert proc.returncode == 0, proc.stderr
    files = list(tmp_path.glob("hansa-autosave-*.json"))
    assert len(files) == 1 and files[0].name in proc.stdout
    replayed = game_from_record(load_record(files[0]))
    assert len(replayed.moves) >= 3 and not replayed.is_over


def test_ctrl_c_offers_to_save(tmp_path: Path) -> None:
    target = tmp_path / "kept.json"
    session, out, _ = run_session(two_player(), ["human", "heuristic"], ["1", "^C", str(target)], tmp_path, interactive=True)
    assert "Interrupted." in out and "Save the game?" in out and target.exists()
    assert game_from_record(load_record(target)).state.key() == session.game.state.key()
    # not a terminal: Ctrl-C saves by itself
    session2, out2, _ = run_session(two_player(), ["human", "heuristic"], ["1", "^C"], tmp_path)
    assert session2.autosaved is not None and session2.autosaved.exists()


def test_quit_offers_to_save(tmp_path: Path) -> None:
    target = tmp_path / "q.json"
    session, out, script = run_session(two_player(), ["human", "heuristic"], ["1", "quit", str(target), "1"], tmp_path)
    assert "Bye." in out and target.exists() and len(script.seen) == 3  # the last line was never read
    assert len(session.game.moves) == 1


# ---------------------------------------------------------------------------------------------- (6) rendering


def test_render_a_known_position() -> None:
    game = Game(["Ann", "Bo", "Cy"], seed=7, start_player=0)
    for move in ("place T GRO-EMD:2", "place M GRO-EMD:1"):
        game.play(move)
    state = game.state
    board = text_of(render_board(state))
    assert "Board (2-3 side)" in board
    for city in ("GRO Groningen", "LUB Luebeck", "COE Coellen", "STE Stendal"):
        assert city in board
    assert "GRO-EMD ●1 ■1 ·" in board  # Merchant and Trader of seat 1, one free house
    assert "Completed cities: 0/10" in board and "Coellen table: 7 (white)" in board
    markers = [r for r in range(len(state.board.routes)) if state.route_marker[r] >= 0]
    assert len(markers) == 3 and board.count("◆") == 3 + 1  # three tavern markers, plus the legend
    desks = text_of(render_desks(state, game.names, ["human", "heuristic", "heuristic"]))
    row = next(line for line in desks.splitlines() if "Ann" in line)
    assert "(human)" in row and "4T 0M" in row and "white" in row  # 5T 1M supply minus the two pieces placed
    status = text_of(render_status(state, game.names))
    assert "Turn 2: Bo — actions, 2 of 2 actions left" in status
    log = text_of(render_log(game.names, game.moves, game.movers, game.move_turns))
    assert "t1  Ann  place M GRO-EMD:1" in log
    listing = text_of(render_moves(list(enumerate(ordered_moves(game.legal_moves()), 1))[:4]))
    assert "1. income 3T" in listing


def test_render_final_scores() -> None:
    game = Game(["Ann", "Bo"], seed=0)
    bot = make_bot("heuristic", 0)
    while not game.is_over:
        game.play(bot.choose(game.state))
    table = text_of(render_scores(game.state, game.names))
    assert "Final score" in table
    scores = game.scores()
    wins = game.winners()
    for s in scores:
        row = next(line for line in table.splitlines() if game.names[s.player] in line)
        assert row.rstrip(" │").endswith(str(s.total))
        assert ("★" in row) == (s.player in wins)


def test_completion_candidates() -> None:
    words = ["place T GRO-EMD:1", "place T GRO-EMD:3", "place M GRO-EMD:1", "income 3T", "moves", "end"]
    assert completion_candidates("pl", words) == ["place "]
    assert completion_candidates("place t ", words) == ["place T GRO-EMD:1", "place T GRO-EMD:3"]
    assert completion_candidates("E", words) == ["end"]
    assert completion_candidates("x", words) == []


def test_bot_decides_off_turn_when_displaced(tmp_path: Path) -> None:
    """A human displacing a bot's piece: the bot relocates it by itself (the decider, not the active player)."""
    game = two_player(start=1)
    bot = make_bot("heuristic", 5)
    while game.state.decider == 1:  # the bot's first turn, played here
        game.play(bot.choose(game.state))
    bot_house = next(
        game.state.board.house_names[h] for h, code in enumerate(game.state.houses) if code >= 0 and code >> 1 == 1
    )
    displace = next(m for m in game.legal_moves() if m.text().startswith(f"displace {bot_house} with T"))
    session, out, script = run_session(game, ["human", "heuristic"], [displace.text()], tmp_path)
    relocations = [m for m, p in zip(session.game.moves, session.game.movers) if m.type in ("relocate", "take", "done") and p == 1]
    assert relocations and "Bot (heuristic): relocate" in out



def test_human_relocates_during_a_bot_turn(tmp_path: Path) -> None:
    """A bot displacing the human's piece: the prompt goes to the human (the decider) in the bot's turn."""
    game = two_player()
    for move in ("place T GRO-EMD:1", "place T GRO-EMD:3", "displace GRO-EMD:1 with T pay T"):
        game.play(move)
    assert game.state.current == 1 and game.state.decider == 0
    session, out, _ = run_session(game, ["human", "heuristic"], ["1", "done"], tmp_path)
    assert "Turn 2: Bot — relocating displaced pieces, decision: Ann" in out
    assert "1. relocate T EMD-OSN:1" in out and "5. take T" in out  # a short list is shown by itself
    g = session.game
    assert g.moves[3].text() == "relocate T EMD-OSN:1" and g.movers[3] == 0
    assert g.moves[4].text() == "done" and g.movers[4] == 0  # no extra pieces
    assert g.movers[5] == 1  # then the bot's turn went on


def test_markup_in_input_is_shown_verbatim(tmp_path: Path) -> None:
    lines = ["[/bold] [red]x", "moves [/]", "place [/]"]
    _, out, script = run_session(two_player(), ["human", "heuristic"], lines, tmp_path)
    assert "cannot read move '[/bold] [red]x'" in out and "no legal move matches '[/]'" in out
    assert len(script.seen) == 4


# ---------------------------------------------------------------------------------------------- (7) compact view

SEATS_OF = {2: ["Ann", "Wilhelmina"], 3: ["Ann", "Wilhelmina", "Cy"], 4: ["Ann", "Wilhelmina", "Cy", "Dee"],
            5: ["Ann", "Wilhelmina", "Cy", "Dee", "Eve"]}
TABLES = [(2, "neutral"), (2, "pawn"), (3, None), (4, None), (5, None)]
ABILITY_HEADER = re.compile(r"^  # Name +Key Act Priv Book Bag Supply Stock Off Score Used Markers$")


def positions(players: int, variant: str | None) -> Iterator[Game]:
    """The start and a few mid-game positions (seeded random and heuristic bots), and one finished game."""
    options = {"two_player_variant": variant} if variant else {}
    for kind, seed, stops in (("random", 3, (0, 40, 150, 400)), ("heuristic", 5, (60, 140, 10_000))):
        game = Game(SEATS_OF[players], seed=seed, options=options)
        bots = [make_bot(kind, seed * 10 + p) for p in range(players)]
        done = 0
        for stop in stops:
            while done < stop and not game.is_over:
                game.play(bots[game.state.decider].choose(game.state))
                done += 1
            yield game


def compact_text(game: Game, width: int = 80, height: int = 24, hint: str = "") -> list[str]:
    """The compact table as a terminal of ``width`` x ``height`` shows it, leaving the last line to the prompt."""
    con = Console(width=width, height=height, record=True, color_system=None, file=io.StringIO())
    con.print(render_compact(game.state, game.names, game.moves, game.movers, game.move_turns, width=width,
                             height=height - 1, hint=hint))
    return con.export_text().splitlines()


def check_compact(game: Game, lines: list[str], width: int = 80) -> None:
    state = game.state
    assert all(cell_len(line) <= width for line in lines), max(lines, key=cell_len)
    assert not any("…" in line for line in lines)
    text = "\n".join(lines)
    for city in state.board.cities:
        assert re.search(rf"(^| ){city.code}[↑ ]", text, re.M), city.code
    for route in state.board.routes:
        assert f"{route.code} " in text or f"{route.code}⚑" in text, route.code
    assert sum(line.count("◆") for line in lines) == state.markers_on_board() + 1  # + the face-down count
    assert "Table 7" in text and f"{state.completed}/10 full" in text
    header = [i for i, line in enumerate(lines) if ABILITY_HEADER.match(line)]
    assert len(header) == 1, text
    rows = lines[header[0] + 1 : header[0] + 1 + state.players]
    for p, row in enumerate(rows):
        m = re.match(rf"^[▶ ] {p + 1} {re.escape(game.names[p])} +(\S+) +(\S+) +(\S+) +(\S+) +(\S+) +(\d+)T (\d+)M +"
                     rf"(\d+)T (\d+)M +(\d+) +(\d+) +(\d+) ", row + " ")
        assert m, row
        assert int(m[6]) == state.sup_t[p] and int(m[8]) == state.stk_t[p] and int(m[10]) == state.office_count(p)
        assert int(m[11]) == state.score[p] and int(m[12]) == len(state.used_markers[p])
        assert m[3].rstrip("*") == PRIVILEGE_COLOURS[state.ability_value(p, 2) - 1][0]
        assert row.startswith("▶") == (p == state.current and not state.is_over)
    status = lines[header[0] + 1 + state.players]
    if state.is_over:
        assert "game over" in status
    else:
        assert game.names[state.decider] in status and re.match(rf"(Turn |T){state.turn}\b", status), status


@pytest.mark.parametrize(("players", "variant"), TABLES)
def test_compact_view_fits_80_by_24(players: int, variant: str | None) -> None:
    seen = 0
    for game in positions(players, variant):
        lines = compact_text(game, hint="57 moves: ? lists them")
        assert len(lines) <= 23, "\n".join(lines)  # and the prompt makes 24
        check_compact(game, lines)
        if game.moves and not game.state.is_over:
            last = game.moves[-1].text()
            assert last in "\n".join(lines[-2:])  # the last move is shown
        seen += 1
    assert seen == 7


def test_compact_view_line_counts() -> None:
    """16 board lines, one desk header and one line per player, the status line; the last moves take the rest
    (on the status line itself with five players)."""
    for players, variant in TABLES:
        game = next(g for i, g in enumerate(positions(players, variant)) if i == 2)
        lines = compact_text(game)
        fixed = compact_fixed_lines(game.state)
        assert fixed == 16 + players + 2
        assert len(lines) == min(23, fixed + 3)  # up to three lines of last moves
        if players == 5:
            assert " │ t" in lines[-1]  # status │ last moves
        else:
            assert lines[fixed].startswith("Last: t")


def test_compact_view_details() -> None:
    game = Game(["Ann", "Bo", "Cy"], seed=7, start_player=0)
    for move in ("place T GRO-EMD:2", "place M GRO-EMD:1"):
        game.play(move)
    text = "\n".join(compact_text(game))
    assert "GRO-EMD ●1■1·" in text  # Merchant and Trader of seat 1, one free house, two cells a house
    assert "GRO↑Book □w$○o" in text and "COE □w$□p" in text and "Table 7· 8· 9· 11·" in text
    assert "0/10 full, 13◆ left" in text and "E-W STE-ARN: -" in text
    assert "Turn 2: Bo — actions, 2 of 2 actions left" in text
    assert "Last: t1 Ann place T GRO-EMD:2, place M GRO-EMD:1" in text
    desk = next(line for line in text.splitlines() if line.startswith("  1 Ann"))
    assert re.search(r"Ann +1 +2 +w +2 +3 +4T 0M +6T 0M +0 +0 +0 -$", desk)
    # wider consoles keep the same layout, spaced out up to three cells between the grid columns
    assert "GRO-EMD ●1■1·" in "\n".join(compact_text(game, width=120))


def test_compact_markers_offices_and_controllers() -> None:
    """A long game: extra offices, controllers, held and used markers and the Coellen table all read."""
    game = Game(["Ann", "Bo", "Cy", "Dee"], seed=2)
    bot = make_bot("heuristic", 2)
    while not game.is_over:
        game.play(bot.choose(game.state))
    state = game.state
    lines = compact_text(game)
    check_compact(game, lines)
    text = "\n".join(lines)
    for city in state.board.cities:
        owner = state.controller(city.index)
        cell = re.search(rf"{city.code}(↑\w+)? (\S+)( »(\S))?", text)
        assert cell is not None
        assert cell[4] == (None if owner is None else str(owner + 1)), (city.code, cell[0])
        extras = len(state.extras[city.index])
        assert ("|" in cell[2]) == bool(extras) and cell[2].count("■") + cell[2].count("●") == (
            extras + state.city_filled[city.index]
        )


def test_compact_session_at_80_by_24(tmp_path: Path) -> None:
    """A PlaySession in an 80x24 console: every screen (table, choices and prompt) fits; bots move; the last
    moves and whose decision it is are on the screen."""
    for players in (2, 4, 5):
        names = SEATS_OF[players]
        game = Game(names, seed=4)
        out = io.StringIO()
        con = Console(file=out, width=80, height=24, color_system=None, highlight=False)
        screens: list[str] = []
        answers = iter(["1", "2", "undo", "1", "moves claim", "1"])

        def ask(prompt: str, out: io.StringIO = out, con: Console = con, answers: Iterator[str] = answers,
                screens: list[str] = screens) -> str:
            con.print(prompt, end="", markup=False)
            screens.append(out.getvalue())
            line = next(answers, None)
            if line is None:
                raise EOFError
            con.print(line, markup=False)
            return line

        seats = ["human"] + ["random"] * (players - 1)
        session = PlaySession(game, seats, console=con, ask=ask, autosave_dir=tmp_path)
        assert session.layout() == "compact"
        session.run()
        tables = 0
        for i, screen in enumerate(screens):
            lines = screen.split("\n")
            if i and screens[i - 1].count("GRO↑") == screen.count("GRO↑"):
                continue  # no new table (undo refused, the list command)
            start = max(k for k, line in enumerate(lines) if line.startswith("GRO↑Book"))
            shown = lines[start:]
            tables += 1
            assert len(shown) <= 24 and all(cell_len(line) <= 80 for line in shown), "\n".join(shown)
            assert shown[-1] == f"{names[0]}> " and "…" not in "\n".join(shown)
            header = next(k for k, line in enumerate(shown) if ABILITY_HEADER.match(line))
            assert len(shown) - header - 1 >= players + 2  # desks, status, prompt
            status = shown[header + 1 + players]
            assert re.match(r"(Turn |T)\d+", status) and names[0] in status, status  # the human decides
        assert tables >= 3
        assert len(session.game.moves) >= 3 and session.autosaved is not None


def test_view_is_chosen_from_the_console_size_and_can_be_forced(tmp_path: Path) -> None:
    def run(width: int, height: int, lines: list[str], view: str = "auto") -> tuple[PlaySession, str]:
        out = io.StringIO()
        con = Console(file=out, width=width, height=height, color_system=None, highlight=False)
        script = Script(lines, con)
        session = PlaySession(two_player(), ["human", "heuristic"], console=con, ask=script, autosave_dir=tmp_path,
                              view=view)
        script.session = session
        session.run()
        return session, out.getvalue()

    session, out = run(160, 60, [])
    assert session.layout() == "full" and "Board (2-3 side)" in out and "Desks" in out and "Key Act Priv" not in out
    session, out = run(80, 24, ["view", "view full", "view bogus"])
    assert out.count("Key Act Priv Book Bag") == 1 and "View: auto (compact at 80x24)" in out
    assert "View: full" in out and "Board (2-3 side)" in out and "usage: view compact|full|auto" in out
    assert session.view == "full"
    session, out = run(160, 60, ["view compact", "help"], view="auto")
    assert "Board (" in out and out.count("Key Act Priv Book Bag") >= 2 and "Compact view:" in out
    session, out = run(160, 60, ["1", "1", "1", "log 2"], view="compact")
    assert "Board (" not in out and "Key Act Priv Book Bag" in out
    log = out[out.index("> log 2") :]
    assert "Last moves (" in log and len([line for line in log.splitlines() if re.match(r" *t\d+ ", line)]) == 2
    with pytest.raises(HansaError, match="--view must be"):
        con, _ = console()
        build_session(players=2, view="tiny", console=con, ask=stream_ask(io.StringIO(), con))


def test_full_view_at_160_by_60_is_unchanged() -> None:
    game = Game(["Ann", "Bo", "Cy"], seed=7, start_player=0)
    for move in ("place T GRO-EMD:2", "place M GRO-EMD:1"):
        game.play(move)
    out = io.StringIO()
    con = Console(file=out, width=160, height=60, color_system=None, record=True)
    con.print(render_view(game.state, game.names, game.moves, game.movers, game.move_turns, ["human", "heuristic", "heuristic"]))
    text = out.getvalue()
    assert "Board (2-3 side)" in text and "GRO-EMD ●1 ■1 ·" in text and "Coellen table: 7 (white)" in text
    assert "Desks" in text and "Last moves (2 in all)" in text and "Turn 2: Bo — actions, 2 of 2 actions left" in text
    assert "(human)" in text and "…" not in text and choose_view(160, 60) == "full"
    assert choose_view(80, 24) == choose_view(200, 30) == choose_view(100, 60) == "compact"


def test_help_and_score_fit_80_columns(tmp_path: Path) -> None:
    out = io.StringIO()
    con = Console(file=out, width=80, height=24, color_system=None, highlight=False)
    script = Script(["help", "score"], con)
    session = PlaySession(Game(SEATS_OF[5], seed=1), ["human"] + ["heuristic"] * 4, console=con, ask=script,
                          autosave_dir=tmp_path)
    script.session = session
    session.run()
    text = out.getvalue()
    start = text.index("Your move")
    help_lines = text[start : text.index("> ", start)].splitlines()  # the last one is the prompt's name
    assert len(help_lines) <= 24 and help_lines[-1] == "Ann" and "Compact view:" in text and "Rm remove 3" in text
    assert "Projected final score" in text and "abilities" in text and "…" not in text
    for line in (*HELP.splitlines(), *COMPACT_LEGEND):
        assert Text.from_markup(line).cell_len <= 80 if "[" in line else cell_len(line) <= 80


# ---------------------------------------------------------------------------------------------- the Big Box modules

PROMO = "extra-office,extra-office,swap,+3,+4,improve,remove3,exchange,exchange,tribute,tribute,block"
MODULES = {"missions": True, "emperors_favour": True, "marker_supply": PROMO.split(",")}


def test_complete_module_game_through_the_command(tmp_path: Path) -> None:
    proc = hansa(["play", "--seats", "human,random,random", "--seed", "4", "-o", "missions=true",
                  "-o", "emperors_favour=true", "-o", f"marker_supply={PROMO}", "--view", "full"], "1\n" * 4000, tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "Game over after" in out and "End of input" not in out
    assert "Favour:" in out and "Your mission:" in out
    table = out[out.index("Final score") :]
    assert "missions" in table
    assert len(re.findall(r"^Mission ", out[out.rindex("Game over") :], re.M)) == 3  # every card shown at the end


def test_module_lines_show_only_the_viewers_mission() -> None:
    game = Game(["Ann", "Bo", "Cy"], seed=2, options=MODULES)
    state = game.state
    own = " ".join(MISSION_CARDS[state.missions[0]])
    text = "\n".join(str(line) for line in module_lines(state, game.names, 0))
    assert own in text and "Favour:" in text
    for other in (1, 2):
        cities = " ".join(MISSION_CARDS[state.missions[other]])
        assert cities not in text or cities == own
    assert secret_viewer(state, ["human", "random", "random"]) == 0
    assert secret_viewer(state, ["random"] * 3) is None
    assert module_lines(Game(["Ann", "Bo"], seed=1).state, ["Ann", "Bo"], 0) == []


@pytest.mark.parametrize("players", [3, 4])
def test_compact_view_with_modules_fits_80_by_24(players: int) -> None:
    game = Game([f"P{i}" for i in range(players)], seed=players, options=MODULES)
    rng = random.Random(players)
    for step in range(1500):
        if game.state.is_over:
            break
        game.play(rng.choice(game.state.legal_moves()))
        if step % 300 == 0:
            con = Console(width=80, height=24, record=True, color_system=None, file=io.StringIO())
            con.print(render_compact(game.state, game.names, game.moves, game.movers, game.move_turns, width=80,
                                     height=23, viewer=0))
            lines = con.export_text().splitlines()
            assert len(lines) <= 23 and all(cell_len(line) <= 80 for line in lines)
            text = "\n".join(lines)
            assert "Favour " in text and "Mission " in text
    assert compact_fixed_lines(game.state, 80, 0) == compact_fixed_lines(game.state, 80, 0, modules=False) + 1


def test_modules_command_and_five_players_at_80_by_24(tmp_path: Path) -> None:
    game = Game([f"P{i}" for i in range(5)], seed=5, options=MODULES)
    con = Console(width=80, height=24, record=True, color_system=None, file=io.StringIO())
    script = Script(["modules", "quit", ""], con)
    session = PlaySession(game, ["human"] + ["random"] * 4, console=con, ask=script, autosave_dir=tmp_path, view="compact")
    script.session = session
    session.run()
    out = con.export_text()
    assert "Your mission:" in out and "Favour:" in out
