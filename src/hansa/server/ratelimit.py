"""Token buckets: a rate per key (a client address, a socket) with a burst allowance."""

from __future__ import annotations

import time
from collections.abc import Callable

#: Keys kept before idle (full) buckets are forgotten.
MAX_KEYS = 10_000


class RateLimiter:
    """``rate`` tokens per second per key, at most ``burst`` saved up; :meth:`take` spends one."""

    def __init__(self, rate: float, burst: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self.burst = max(1.0, burst)
        self.clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}

    def take(self, key: str) -> float:
        """Spend a token for ``key``: 0.0 if there was one, else the seconds until there is (nothing spent)."""
        now = self.clock()
        tokens, last = self._buckets.get(key, (self.burst, now))
        tokens = min(self.burst, tokens + (now - last) * self.rate)
        if tokens < 1.0:
            self._buckets[key] = (tokens, now)
            return (1.0 - tokens) / self.rate if self.rate > 0 else float("inf")
        self._buckets[key] = (tokens - 1.0, now)
        if len(self._buckets) > MAX_KEYS:
            self._forget_full(now)
        return 0.0

    def _forget_full(self, now: float) -> None:
        full = [k for k, (t, last) in self._buckets.items() if t + (now - last) * self.rate >= self.burst]
        for k in full:
            del self._buckets[k]
