"""The compiled engine core (mypyc) and its pure-Python sources: the same games, and the switch between them."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import hansa
from hansa import _native
from hansa.bots import make_bot
from hansa.core.state import GameState

# (players, options, bot) for the games both engines must play move for move alike
CONFIGS = [
    (2, {"two_player_variant": "neutral"}, "random"),
    (2, {"two_player_variant": "pawn"}, "random"),
    (3, {}, "random"),
    (4, {}, "random"),
    (5, {}, "random"),
    (3, {"marker_set": "EN16", "remove3_mode": "move", "income_up_to": True, "swap_needs_own": False}, "purpose"),
    (5, {"marker_set": "PT15", "marker_city_rule": "hasOffice", "remove3_targets": "opponents"}, "random"),
    (4, {}, "heuristic"),
]
GAMES = 2


def play_all() -> str:
    """A digest of every move, score and final position of the games in :data:`CONFIGS`."""
    digest = hashlib.sha256()
    for players, options, bot in CONFIGS:
        for seed in range(GAMES):
            state = GameState.new(players, seed, options)
            bots = [make_bot(bot, seed * 10 + i) for i in range(players)]
            while not state.is_over and state.turn < 3000:
                legal = state.legal_moves()
                move = bots[state.decider].choose(state, legal)
                digest.update(move.text().encode())
                state.play(move)
            digest.update(repr((state.turn, state.score, state.end_triggers, state.key())).encode())
    return digest.hexdigest()


def pure_python(code: str) -> str:
    env = dict(os.environ, HANSA_PURE_PYTHON="1")
    tests = str(Path(__file__).parent)
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=tests, capture_output=True, text=True, check=True)
    return out.stdout.strip()


def test_pure_python_switch() -> None:
    """HANSA_PURE_PYTHON=1 runs the ``.py`` sources of every compiled module."""
    files = json.loads(pure_python(
        "import hansa, importlib, json; "
        f"print(json.dumps([hansa.compiled()] + [importlib.import_module(n).__file__ for n in {_native.COMPILED_MODULES!r}]))"
    ))
    assert files[0] is False
    assert all(f.endswith(".py") for f in files[1:])


@pytest.mark.skipif(not hansa.compiled(), reason="the engine is not compiled here (pure-Python install)")
def test_compiled_and_pure_python_engines_play_the_same_games() -> None:
    assert all(not (sys.modules[n].__file__ or "").endswith(".py") for n in _native.COMPILED_MODULES if n in sys.modules)
    assert pure_python("import test_native; print(test_native.play_all())") == play_all()


def test_sources_are_used_when_compiled_files_are_stale_or_incomplete(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "pyproject.toml").write_text("")  # a source checkout: src/hansa beside pyproject.toml
    root = tmp_path / "src" / "hansa"
    suffix = _native._SUFFIXES[0]
    for name in _native.COMPILED_MODULES:
        source = root.joinpath(*name.split(".")[1:]).with_suffix(".py")
        source.parent.mkdir(parents=True, exist_ok=True)
        source.write_text("")
    monkeypatch.setattr(_native, "_PACKAGE_DIR", root)
    monkeypatch.delenv("HANSA_PURE_PYTHON", raising=False)
    assert _native._why_sources() is None  # nothing compiled: nothing to switch

    binaries = []
    for name in _native.COMPILED_MODULES:
        binary = _native._source(name).with_suffix(suffix)
        binary.write_text("")
        binaries.append(binary)
    assert _native._why_sources() == "the compiled engine is incomplete"  # no shared mypyc library
    (tmp_path / "src" / f"0123abcd__mypyc{suffix}").write_text("")
    assert _native._why_sources() is None  # complete and fresh: compiled code runs

    monkeypatch.setenv("HANSA_PURE_PYTHON", "1")
    assert _native._why_sources() == "HANSA_PURE_PYTHON is set"
    monkeypatch.setenv("HANSA_PURE_PYTHON", "0")
    assert _native._why_sources() is None

    state_py = _native._source("hansa.core.state")
    os.utime(state_py, (binaries[0].stat().st_mtime + 10,) * 2)
    why = _native._why_sources()
    assert why is not None and why.startswith("hansa.core.state changed since it was compiled")
    (tmp_path / "pyproject.toml").unlink()
    assert _native._why_sources() is None  # an installed wheel: file times are not a sign of editing
    (tmp_path / "pyproject.toml").write_text("")

    binaries[0].unlink()
    assert _native._why_sources() == "the compiled engine is incomplete"
