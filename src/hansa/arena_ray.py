"""The Ray backend of the arena (``hansa arena --backend ray``): every game is a Ray task.

Ray is an optional dependency (``pip install 'hansa[ray]'``); it is imported only here, and this module only by
:func:`hansa.arena.run_arena` when the config asks for the ``ray`` backend, so the engine, the rest of the
arena and the web app never import it.

* **Where.**  Without an address Ray is initialised by its own rules: ``RAY_ADDRESS`` when set, a cluster
  started on this machine with ``ray start``, otherwise a new local Ray instance with every core of the machine.
  An address connects to a cluster (``auto``, ``HOST:PORT`` or ``ray://HOST:10001`` for Ray Client); every node
  needs the same version of hansa installed.  A Ray session already initialised in this process is used as it
  is; only a session started here is shut down at the end.
* **How many at once.**  Each game is a task asking for one CPU, so Ray runs as many games at once as the
  cluster has CPUs; ``jobs`` (the process pool's size) is not used.  At most :data:`IN_FLIGHT_PER_CPU` tasks
  per CPU of the cluster (at the start) are submitted at a time, so that a run of many thousands of games keeps
  little state and ``ray.wait`` stays cheap.
* **Same results.**  A task runs :func:`hansa.arena.play_game` on the same :class:`hansa.arena.GameTask` as
  the process pool does, so rows are identical to the process pool's for bots without a time budget.
* **Records.**  A game's record is written by the worker into a temporary file, sent back with the row and
  saved here at the task's ``record_path``, so ``--records`` works on a cluster whose nodes do not share this
  machine's file system.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .arena import ArenaError, GameRow, GameTask, play_game

__all__ = ["IN_FLIGHT_PER_CPU", "INSTALL_HINT", "import_ray", "play_game_with_record", "run_games"]

#: Tasks submitted at a time per CPU of the cluster.
IN_FLIGHT_PER_CPU = 4
#: The error when Ray is not installed.
INSTALL_HINT = "the ray backend needs `pip install 'hansa[ray]'` (or `pip install 'ray>=2.9'`)"


def import_ray() -> Any:
    """The ``ray`` module, or :class:`ArenaError` with the install hint when it is missing."""
    try:
        import ray
    except ImportError:
        raise ArenaError(INSTALL_HINT) from None
    return ray


def run_games(
    tasks: Sequence[GameTask], address: str | None = None, on_game: Callable[[GameRow], None] | None = None
) -> list[GameRow]:
    """Play ``tasks`` as Ray tasks (one CPU each); ``on_game`` is called here in completion order.

    Returns the rows in completion order (the caller sorts them).  Raises :class:`ArenaError` when Ray is
    missing or the cluster cannot be reached; an exception of a game is raised here as Ray raises it (a
    ``RayTaskError`` that is also an instance of the game's exception class)."""
    ray = import_ray()
    started = False
    if not ray.is_initialized():
        try:
            ray.init(address=address, logging_level=logging.WARNING, log_to_driver=True)
        except (ConnectionError, ValueError, RuntimeError) as exc:
            where = f"at {address!r}" if address else "(local)"
            raise ArenaError(f"cannot start or reach the Ray cluster {where}: {exc}") from None
        started = True
    try:
        return _play(ray, tasks, on_game)
    finally:
        if started:
            ray.shutdown()


def play_game_with_record(task: GameTask) -> tuple[GameRow, str | None]:
    """:func:`play_game`, and the text of the game's record when the task asks for one (written into a
    temporary file on the worker, wherever it runs)."""
    if task.record_path is None:
        return play_game(task), None
    fd, tmp = tempfile.mkstemp(prefix="hansa-arena-", suffix=".json")
    os.close(fd)
    try:
        row = play_game(dataclasses.replace(task, record_path=tmp))
        return row, Path(tmp).read_text(encoding="utf-8")
    finally:
        os.unlink(tmp)


def _play(ray: Any, tasks: Sequence[GameTask], on_game: Callable[[GameRow], None] | None) -> list[GameRow]:
    remote = ray.remote(num_cpus=1)(play_game_with_record)
    paths = {task.index: task.record_path for task in tasks}
    cpus = int(ray.cluster_resources().get("CPU", 1))
    window = max(1, cpus) * IN_FLIGHT_PER_CPU
    todo = list(reversed(tasks))
    pending: list[Any] = []
    rows: list[GameRow] = []
    try:
        while todo or pending:
            while todo and len(pending) < window:
                pending.append(remote.remote(todo.pop()))
            ready, pending = ray.wait(pending, num_returns=1)
            for ref in ready:
                row, record = ray.get(ref)
                path = paths[row.index]
                if path is not None and record is not None:
                    Path(path).write_text(record, encoding="utf-8")
                rows.append(row)
                if on_game is not None:
                    on_game(row)
    except BaseException:
        for ref in pending:
            ray.cancel(ref, force=True)
        raise
    return rows
