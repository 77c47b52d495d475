"""The arena's Ray backend (``hansa arena --backend ray``, :mod:`hansa.arena_ray`): the same rows as the process
pool for seeded bots, records, the CLI, and clear errors without Ray.

Ray's ``local_mode`` is gone (Ray 2.60 raises "`local_mode` is no longer supported"), so the Ray tests run on a
local single-node Ray instance (``ray.init(num_cpus=2)``), started once for this module and shared; each
pytest-xdist worker starts its own, which do not meet (``ray.init()`` without an address never joins another
process's local instance).  The tests that need Ray are skipped when it is not installed; the error tests run
without it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from hansa.arena import ArenaConfig, ArenaError, ArenaResult, GameRow, run_arena
from hansa.cli import app

HANSA = shutil.which("hansa") or str(Path(sys.executable).parent / "hansa")
SEATS = "heuristic,purpose,random"


@pytest.fixture(scope="module")
def ray_module() -> Any:
    """The ``ray`` module; the test is skipped when Ray is not installed."""
    return pytest.importorskip("ray")


@pytest.fixture(scope="module")
def ray_session(ray_module: Any) -> Iterator[Any]:
    """A local Ray instance shared by this module's tests (run_arena uses a session that is already up)."""
    ray = ray_module
    started = not ray.is_initialized()
    if started:
        ray.init(address="local", num_cpus=2, include_dashboard=False, logging_level="WARNING")
    yield ray
    if started:
        ray.shutdown()


@pytest.fixture(scope="module")
def pool() -> ArenaResult:
    """The reference: 4 games of 3 players in a pool of 2 worker processes."""
    return run_arena(ArenaConfig.build(3, SEATS, games=4, seed=11, jobs=2))


def outcomes(rows: list[GameRow]) -> list[dict[str, Any]]:
    return [r.outcome() for r in rows]


def test_ray_rows_identical_to_process_pool(ray_session: Any, pool: ArenaResult) -> None:
    seen: list[int] = []
    config = ArenaConfig.build(3, SEATS, games=4, seed=11, backend="ray")
    result = run_arena(config, on_game=lambda row: seen.append(row.index))
    assert ray_session.is_initialized()  # the shared session was used, not shut down
    assert sorted(seen) == [0, 1, 2, 3]
    assert [r.index for r in result.rows] == [0, 1, 2, 3]
    assert all(r.finished for r in result.rows)
    assert outcomes(result.rows) == outcomes(pool.rows)
    assert result.ratings == pool.ratings
    for a, b in zip(result.bots, pool.bots):
        assert (a.games, a.wins, a.mean_total, a.sd_total, a.mean_breakdown, a.mean_moves, a.decisions) == (
            b.games, b.wins, b.mean_total, b.sd_total, b.mean_breakdown, b.mean_moves, b.decisions)
    data = result.to_json()["config"]
    assert (data["backend"], data["address"]) == ("ray", None)
    assert pool.to_json()["config"]["backend"] == "process"


def test_ray_cut_games_and_records_identical(ray_session: Any, tmp_path: Path) -> None:
    """Two-player pawn games cut at 120 moves, with records: rows and record files match the process pool's."""
    rows = {}
    for backend, jobs in (("process", 2), ("ray", 1)):
        config = ArenaConfig.build(2, "heuristic,random", games=3, seed=5, jobs=jobs, variant="pawn", max_moves=120,
                                   records_dir=tmp_path / backend, backend=backend)
        rows[backend] = run_arena(config).rows
    assert outcomes(rows["ray"]) == outcomes(rows["process"])
    assert [r.moves for r in rows["ray"]] == [120, 120, 120] and not any(r.finished for r in rows["ray"])
    names = sorted(p.name for p in (tmp_path / "process").iterdir())
    assert len(names) == 3 and names == sorted(p.name for p in (tmp_path / "ray").iterdir())
    for name in names:
        assert (tmp_path / "ray" / name).read_text() == (tmp_path / "process" / name).read_text()


def test_cli_arena_backend_ray(ray_module: Any, pool: ArenaResult, tmp_path: Path) -> None:
    """``hansa arena --backend ray`` in a fresh process starts (and stops) its own local Ray."""
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    out = subprocess.run(
        [HANSA, "arena", "--players", "3", "--seats", SEATS, "--games", "4", "--seed", "11", "--backend", "ray",
         "--out", str(tmp_path / "out"), "--json"],
        capture_output=True, text=True, timeout=300, env=env,
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["config"]["backend"] == "ray" and data["games_played"] == 4
    assert outcomes([GameRow.from_json(g) for g in data["games"]]) == outcomes(pool.rows)
    assert (tmp_path / "out" / "results.json").exists() and (tmp_path / "out" / "scores.png").exists()


# ---------------------------------------------------------------------------------------------- errors (no Ray needed)


def test_missing_ray_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray raises ImportError
    config = ArenaConfig.build(3, SEATS, games=1, backend="ray")
    with pytest.raises(ArenaError, match=r"pip install 'hansa\[ray\]'"):
        run_arena(config)
    result = CliRunner().invoke(app, ["arena", "--players", "3", "--seats", SEATS, "--games", "1", "--backend", "ray",
                                      "--out", str(tmp_path)])
    assert result.exit_code != 0
    assert "pip install 'hansa[ray]'" in result.output and "Traceback" not in result.output


def test_unreachable_cluster_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def init(**kwargs: Any) -> None:
        raise ConnectionError("Could not find any running Ray instance.")

    fake = types.SimpleNamespace(is_initialized=lambda: False, init=init)
    monkeypatch.setitem(sys.modules, "ray", fake)
    with pytest.raises(ArenaError, match="cannot start or reach the Ray cluster at 'auto': Could not find"):
        run_arena(ArenaConfig.build(3, SEATS, games=1, backend="ray", address="auto"))


def test_backend_and_address_validated(tmp_path: Path) -> None:
    with pytest.raises(ArenaError, match="--backend must be process or ray, not 'dask'"):
        ArenaConfig.build(3, SEATS, 1, backend="dask")
    with pytest.raises(ArenaError, match="--address applies to --backend ray only"):
        ArenaConfig.build(3, SEATS, 1, address="auto")
    with pytest.raises(ArenaError, match="--address is empty"):
        ArenaConfig.build(3, SEATS, 1, backend="ray", address=" ")
    assert ArenaConfig.build(3, SEATS, 1).backend == "process"
    runner = CliRunner()
    base = ["arena", "--players", "3", "--seats", SEATS, "--games", "1", "--out", str(tmp_path)]
    result = runner.invoke(app, [*base, "--backend", "dask"])
    assert result.exit_code != 0 and "--backend must be process or ray, not 'dask'" in result.output
    result = runner.invoke(app, [*base, "--address", "auto"])
    assert result.exit_code != 0 and "--address applies to --backend ray only" in result.output
    assert not (tmp_path / "results.json").exists()
