"""The clock that bots with a time budget read (``mcts:seconds=S``, ``mcts:hard``, ``openspiel-*:seconds=S``).

* ``wall`` (the default): real time (:func:`time.perf_counter`).  A bot at a table thinks for S seconds as the
  players see them.
* ``cpu``: the CPU time of the thinking thread (:func:`time.thread_time`).  A bot gets the same amount of search
  whatever else the machine is running.  ``hansa arena --clock cpu`` uses it to compare bots fairly on a shared or
  busy machine.

The choice is per process.  :func:`using` switches it for a block, and the arena's workers use it around each game.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

#: Clock name -> function returning seconds.
CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.thread_time}

_now: Callable[[], float] = time.perf_counter


def now() -> float:
    """Seconds on the current budget clock (only differences are meaningful)."""
    return _now()


@contextmanager
def using(name: str) -> Iterator[None]:
    """Within the block, budgets are counted on clock ``name`` (``wall`` or ``cpu``)."""
    global _now
    if name not in CLOCKS:
        raise ValueError(f"unknown clock {name!r}: wall or cpu")
    before = _now
    _now = CLOCKS[name]
    try:
        yield
    finally:
        _now = before
