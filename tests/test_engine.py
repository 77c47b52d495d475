"""Bring your own bot: the engine protocol hansa-engine/1 with real subprocess engines (examples/ and
tests/engines/bad_engine.py), in games, in the arena and in ``hansa play``."""

from __future__ import annotations

import io
import json
import os
import random
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hansa import Game
from hansa.arena import ArenaConfig, run_arena
from hansa.bots import bot_spec_ok, make_bot
from hansa.core.state import GameState
from hansa.engine import (
    PROTOCOL,
    EngineBot,
    EngineCrashed,
    EngineError,
    EngineIllegalMove,
    EngineProtocolError,
    EngineRefused,
    EngineStartError,
    EngineTimeout,
    decide_message,
    serve,
)
from hansa.record import replay_record

ROOT = Path(__file__).resolve().parent.parent
HANSA = shutil.which("hansa") or str(Path(sys.executable).parent / "hansa")
PY = shlex.quote(sys.executable)
RANDOM_ENGINE = f"{PY} {shlex.quote(str(ROOT / 'examples' / 'engine_random.py'))}"
FIRST_LEGAL = f"{PY} {shlex.quote(str(ROOT / 'examples' / 'engine_first_legal.py'))}"
BAD = f"{PY} {shlex.quote(str(ROOT / 'tests' / 'engines' / 'bad_engine.py'))}"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as fh:  # a zombie is dead
        return fh.read().split()[2] != "Z"


# ---------------------------------------------------------------------------------------------- the protocol


def test_decide_message_hides_what_the_seat_cannot_see() -> None:
    game = Game(3, seed=4, options={"missions": True}, undo=False)
    bots = [make_bot("purpose", s) for s in range(3)]
    for _ in range(60):
        game.play(bots[game.state.decider].choose(game.state))
    state = game.state
    messages = [decide_message(7, state, 1.5, random.Random(k), game=game) for k in range(6)]
    m = messages[0]
    assert (m["type"], m["id"], m["seat"], m["seconds"]) == ("decide", 7, state.decider, 1.5)
    assert m["legal"] == [mv.text() for mv in state.legal_moves()]
    assert m["game"]["seed"] is None and m["game"]["moves"] == [mv.text() for mv in game.moves]
    assert m["game"]["players"] == game.names and m["game"]["options"] == {"missions": True}
    rebuilt = [GameState.from_snapshot(json.loads(json.dumps(x["position"]))) for x in messages]
    assert all(r.public_key() == state.public_key() and r.seed == 0 for r in rebuilt)  # the seed is never sent
    assert all(r.missions[state.decider] == state.missions[state.decider] for r in rebuilt)
    # the face-down order and the other seats' cards are dealt again: some deal differs from the true one
    assert any(r.key() != state.key() for r in rebuilt)
    assert "legal" not in decide_message(8, state, 1.0, random.Random(0), legal=False)


def _serve(lines: list[str], player: object = None) -> list[dict[str, object]]:
    out = io.BytesIO()
    bot = player if player is not None else make_bot("random", 1)
    assert serve(bot, name="t", author="me", stdin=io.BytesIO("".join(x + "\n" for x in lines).encode()),  # type: ignore[arg-type]
                 stdout=out) == 0
    return [json.loads(x) for x in out.getvalue().decode().splitlines()]


def test_serve_answers_and_survives_bad_input() -> None:
    state = GameState.new(3, 9)
    request = decide_message(1, state, 1.0, random.Random(0))
    bad_seat = dict(request, id=2, seat=(state.decider + 1) % 3)
    answers = _serve([
        json.dumps({"type": "hello", "protocol": "hansa-engine/0"}),
        json.dumps({"type": "hello", "protocol": PROTOCOL}),
        "this is not json",
        json.dumps([1, 2]),
        json.dumps({"type": "decide", "id": 5, "seat": 0, "position": {"side": "nowhere"}}),
        json.dumps(bad_seat),
        json.dumps({"type": "dance", "id": 3}),
        json.dumps(request),
        json.dumps({"type": "quit"}),
        json.dumps(request),  # after quit: never read
    ])
    kinds = [(a["type"], a.get("id")) for a in answers]
    assert kinds == [("error", None), ("hello", None), ("error", None), ("error", None), ("error", 5), ("error", 2),
                     ("error", 3), ("move", 1)]
    assert answers[1] == {"type": "hello", "protocol": PROTOCOL, "name": "t", "author": "me"}
    assert "cannot be read" in str(answers[4]["message"]) and "decides" in str(answers[5]["message"])
    state.copy().play(state.legal_moves()[[m.text() for m in state.legal_moves()].index(answers[-1]["move"])])


def test_serve_takes_a_function_and_reports_its_bug() -> None:
    state = GameState.new(2, 1)
    request = json.dumps(decide_message(1, state, 1.0, random.Random(0)))
    assert _serve([request], lambda s: s.legal_moves()[-1])[0]["move"] == state.legal_moves()[-1].text()
    broken = _serve([request, request], lambda s: 1 / 0)
    assert [a["type"] for a in broken] == ["error", "error"] and "ZeroDivisionError" in str(broken[0]["message"])


# ---------------------------------------------------------------------------------------------- specs


def test_engine_spec() -> None:
    bot = make_bot(f"engine:seconds=0.5/grace=0.25/restarts=1/fallback=purpose:{FIRST_LEGAL}", 3)
    assert isinstance(bot, EngineBot)
    assert (bot.seconds, bot.grace, bot.restarts, bot.fallback) == (0.5, 0.25, 1, "purpose")
    assert bot.starts == 0  # no process until the first decision (bot_spec_ok starts none)
    assert bot_spec_ok(f"engine:{FIRST_LEGAL}")
    for bad in ("engine:", "engine:no-such-program-xyz --x", "engine:seconds=0:python3", "engine:colour=red:python3",
                "engine:fallback=mcts:easy:python3", "engine:'unclosed", "engine:restarts=x:python3"):
        assert not bot_spec_ok(bad), bad
    with pytest.raises(ValueError, match="not found"):
        make_bot("engine:no-such-program-xyz", 0)


# ---------------------------------------------------------------------------------------------- failures


def _play(bot: EngineBot, decisions: int, players: int = 2) -> Game:
    game = Game(players, seed=5, undo=False)
    bot.bind(game)
    others = [make_bot("purpose", s) for s in range(players)]
    with bot:
        while not game.is_over and decisions > 0:
            seat = game.state.decider
            if seat == 0:
                decisions -= 1
                game.play(bot.choose(game.state))
            else:
                game.play(others[seat].choose(game.state))
    return game


@pytest.mark.parametrize("mode,error,said,fallbacks", [
    # 10 decisions; a broken engine is started again once (restarts=1), then the fallback plays the rest
    ("crash 3", EngineCrashed, "crashing at decision 4", 4),  # 3 answers in each of its two starts
    ("hang 3", EngineTimeout, "", 4),
    ("garbage 2", EngineProtocolError, "Hello from a debug print!", 6),
    ("illegal 2", EngineIllegalMove, "", 8),  # not broken: kept, asked again, wrong each time
    ("malformed", EngineIllegalMove, '"type": "move"', 10),
    ("refuse 1", EngineRefused, "no idea", 9),
    ("crash-start", EngineStartError, "cannot start (on purpose)", 10),
    ("hello-error", EngineStartError, "hansa-engine/0 only", 10),
    ("slow-hello", EngineStartError, "", 10),
])
def test_failures_fall_back_with_a_clear_error(mode: str, error: type[EngineError], said: str, fallbacks: int) -> None:
    bot = EngineBot(f"{BAD} {mode}", seed=1, seconds=0.3, grace=0.2, restarts=1, start_timeout=1.0)
    pids: list[int] = []
    original = bot._engine

    def spy():  # type: ignore[no-untyped-def]
        process = original()
        if process.pid not in pids:
            pids.append(process.pid)  # type: ignore[arg-type]
        return process

    bot._engine = spy  # type: ignore[method-assign]
    _play(bot, 10)
    assert bot.fallbacks == fallbacks and bot.answered == 10 - fallbacks
    assert bot.errors and all(isinstance(e, error) for e in bot.errors)
    first = bot.errors[0]
    assert first.engine == bot.label and f"{mode.split()[0]}" in str(first) and said in first.said
    assert not any(_alive(p) for p in pids)  # every process it started is gone
    if error.fatal:
        assert bot.starts == 2 and bot.retired  # started again once, then the fallback plays on
    else:
        assert bot.starts == 1 and not bot.retired


def test_stderr_is_logged_never_parsed(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level("INFO", logger="hansa.engine")
    bot = EngineBot(f"{BAD} stderr", seed=2)
    _play(bot, 6)
    assert bot.answered == 6 and bot.fallbacks == 0 and not bot.errors
    assert sum("stderr: " in r.getMessage() and "junk" in r.getMessage() for r in caplog.records) == 6


def test_without_fallback_the_error_is_raised() -> None:
    bot = EngineBot(f"{BAD} refuse", fallback=None)
    with pytest.raises(EngineRefused, match="refused decision 1.*no idea"):
        _play(bot, 1)
    bot = EngineBot(f"{BAD} crash-start", fallback=None, restarts=0)
    with pytest.raises(EngineStartError):
        _play(bot, 1)
    with pytest.raises(EngineCrashed, match="not started again"):
        bot.choose(GameState.new(2, 5))


# ---------------------------------------------------------------------------------------------- hosts


def test_good_engine_finishes_an_arena_game_and_a_hung_one_goes_on(tmp_path: Path) -> None:
    good = f"engine:{RANDOM_ENGINE}"
    hung = f"engine:seconds=0.2/grace=0.1/restarts=1:{BAD} hang 5"
    config = ArenaConfig.build(3, [good, hung, "heuristic"], games=1, seed=21, records_dir=tmp_path / "records")
    row = run_arena(config).rows[0]
    assert row.finished
    by_spec = {s.spec: s for s in row.seats}
    assert by_spec[good].fallbacks == 0 and by_spec[good].decisions > 50
    assert by_spec[hung].fallbacks == by_spec[hung].decisions - 10  # 5 answers before each of its two hangs
    game = replay_record(next((tmp_path / "records").glob("*.json")))
    assert game.is_over and len(game.moves) == row.moves


def test_cli_arena_with_engines_reports_fallbacks(tmp_path: Path) -> None:
    seats = f"engine:{FIRST_LEGAL},engine:{BAD} crash 4,heuristic"
    proc = subprocess.run([HANSA, "arena", "-p", "3", "--seats", seats, "-n", "1", "--seed", "3", "--out",
                           str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    # rich wraps long lines at the console's width (the engine's label holds the checkout's path): compare words
    assert "decisions played by the fallback bot" in " ".join(proc.stdout.split())
    games = list(json.loads((tmp_path / "results.json").read_text())["games"])
    seats_ = {s["spec"]: s for s in games[0]["seats"]}
    assert seats_[f"engine:{FIRST_LEGAL}"]["fallbacks"] == 0
    crashing = seats_[f"engine:{BAD} crash 4"]
    assert crashing["fallbacks"] == crashing["decisions"] - 12  # 4 answers in each of its three starts
    assert "exited with status 5" in proc.stderr


def test_hansa_play_with_an_engine_seat(tmp_path: Path) -> None:
    seats = f"engine:{RANDOM_ENGINE},engine:{BAD} illegal 20,heuristic"
    proc = subprocess.run([HANSA, "play", "--seats", seats, "--seed", "8"], capture_output=True, text=True,
                          timeout=300, stdin=subprocess.DEVNULL, cwd=tmp_path, env={**os.environ, "COLUMNS": "200"})
    assert proc.returncode == 0, proc.stderr
    assert "Winner:" in proc.stdout
    assert "answered an illegal move 'place T GRO-EMD:9'" in proc.stdout
    assert "its fallback bot random played this move" in proc.stdout
