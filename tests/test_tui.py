"""Terminal play (`hansa play`): a whole game driven through the real command, and the prompt's behaviour
(bad input, undo, save/load, end of input, Ctrl-C) driven in-process with injected input and output."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from hansa import Game
from hansa.bots import make_bot
from hansa.core.errors import HansaError
from hansa.record import game_from_record, load_record
from hansa.tui.play import PlaySession, build_session, completion_candidates, ordered_moves, stream_ask
from hansa.tui.render import render_board, render_desks, render_log, render_moves, render_scores, render_status

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
