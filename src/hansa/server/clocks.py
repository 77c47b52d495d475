"""Game clocks, chosen when a game is created: none, real time, or turn-based (games that last days).

Pure bookkeeping over explicit times: every function takes ``now`` (seconds since the epoch) from the caller, the
server's injectable time source, so tests drive clocks without sleeping, and a clock is plain JSON stored with its
game, so it survives a restart (time keeps running while the server is down, as it does for the players).

A seat's clock runs while that seat must decide: its own turn, and the decisions asked of it off-turn (relocating a
displaced piece, the neutral office, the pawn). A *period* is a run of decisions by one seat; it ends when another
seat must decide.

* **real time** (``realtime``): each seat has ``base`` seconds for the whole game; a period's time comes off the
  seat's remaining time, and ``increment`` seconds are added when the seat's turn ends (the turn passes on).
* **turn-based** (``turn``): each period may take ``base`` seconds (hours or days); time beyond that comes out of
  the seat's time bank (``bank`` seconds at the start, never refilled).

When the deciding seat's time runs out (:func:`expired`), the server applies the game's ``on_timeout`` policy:
``bot`` (a bot of level ``bot`` plays the seat, which is marked away, until its player returns) or ``end-turn``
(the seat's pending decisions are made for it: its turn is ended). The time of a seat that is away does not run;
a returning real-time player gets at least ``grace`` seconds.

Games without a clock (``none``) still keep the running period (who decides since when), so that a seat that
has left the game blocked for long can be recognised as abandoned; and every game keeps the takeover votes of
the other players (:meth:`Clock.vote`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

KINDS = ("none", "realtime", "turn")
POLICIES = ("bot", "end-turn")
TIMEOUT_BOTS = ("random", "purpose", "heuristic", "mcts:easy", "mcts:medium")
#: Bounds of the settings (seconds): a real-time game of 1 minute to 3 hours per player, an increment of at most
#: 10 minutes; a turn-based period of 1 minute to 14 days, a bank of at most 30 days.
LIMITS = {
    "realtime": {"base": (60.0, 3 * 3600.0), "increment": (0.0, 600.0), "bank": (0.0, 0.0)},
    "turn": {"base": (60.0, 14 * 86400.0), "increment": (0.0, 0.0), "bank": (0.0, 30 * 86400.0)},
}
GRACE = 30.0


class ClockError(ValueError):
    """Settings outside what a clock allows (the API answers 400)."""


@dataclass(frozen=True)
class ClockSettings:
    """What the creator chose."""

    kind: str = "none"
    base: float = 0.0
    increment: float = 0.0
    bank: float = 0.0
    on_timeout: str = "bot"
    bot: str = "heuristic"

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> ClockSettings:
        """Validated settings from the API's ``clock`` object (``None``: no clock)."""
        if data is None:
            return cls()
        if not isinstance(data, dict):
            raise ClockError("clock: an object {kind, base, increment, bank, on_timeout, bot}")
        unknown = set(data) - {"kind", "base", "increment", "bank", "on_timeout", "bot"}
        if unknown:
            raise ClockError(f"clock: unknown field(s) {', '.join(sorted(unknown))}")
        kind = data.get("kind", "none")
        if kind not in KINDS:
            raise ClockError(f"clock.kind: one of {', '.join(KINDS)}")
        if kind == "none":
            return cls()
        values: dict[str, float] = {}
        for name, (low, high) in LIMITS[kind].items():
            raw = data.get(name, low)
            if isinstance(raw, bool) or not isinstance(raw, (int, float)) or not low <= raw <= high:
                raise ClockError(f"clock.{name}: seconds from {low:g} to {high:g} for a {kind} clock")
            values[name] = float(raw)
        policy = data.get("on_timeout", "bot")
        if policy not in POLICIES:
            raise ClockError(f"clock.on_timeout: one of {', '.join(POLICIES)}")
        bot = data.get("bot", "heuristic")
        if bot not in TIMEOUT_BOTS:
            raise ClockError(f"clock.bot: one of {', '.join(TIMEOUT_BOTS)}")
        return cls(kind, values["base"], values["increment"], values["bank"], policy, bot)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "base": self.base, "increment": self.increment, "bank": self.bank,
                "on_timeout": self.on_timeout, "bot": self.bot}


@dataclass
class Clock:
    """The clocks of one game: settings, each seat's time left, and the running period."""

    settings: ClockSettings
    #: Seconds left per seat: real time, the remaining time; turn-based, the bank.
    left: list[float]
    #: The seat whose period runs (-1: none, e.g. the game is over) and when it started.
    seat: int = -1
    since: float = 0.0
    #: Seats whose player is away (a bot plays them after a timeout); their time does not run.
    away: list[bool] | None = None
    #: Takeover votes: target seat -> {voting seat: the bot level it voted for}.
    votes: dict[int, dict[int, str]] = field(default_factory=dict)
    #: Moves up to this number cannot be taken back: a bot (or the end-turn policy) made the last of them for a
    #: human seat, and a player takes back only their own moves.
    undo_floor: int = 0

    @classmethod
    def start(cls, settings: ClockSettings, seats: int, decider: int, now: float) -> Clock:
        first = settings.base if settings.kind == "realtime" else settings.bank
        clock = cls(settings, [first] * seats, away=[False] * seats)
        clock.seat, clock.since = decider, now
        return clock

    @property
    def running(self) -> bool:
        return self.settings.kind != "none" and self.seat >= 0

    def _away(self, seat: int) -> bool:
        return bool(self.away and self.away[seat])

    def is_away(self, seat: int) -> bool:
        """A bot plays ``seat`` until its player returns."""
        return self._away(seat)

    def idle(self, seat: int, now: float) -> float:
        """Seconds ``seat`` has been deciding without a move (0 when another seat decides)."""
        return max(0.0, now - self.since) if seat == self.seat else 0.0

    def used(self, now: float) -> float:
        """Seconds the running period has taken so far."""
        return max(0.0, now - self.since) if self.running else 0.0

    def time_left(self, seat: int, now: float) -> float:
        """What ``seat`` has left now: real time, its remaining time; turn-based, its period's time plus its bank
        (for a seat not deciding now: what its next period will have)."""
        s = self.settings
        if s.kind == "none":
            return float("inf")
        running = self.running and seat == self.seat and not self._away(seat)
        used = self.used(now) if running else 0.0
        if s.kind == "realtime":
            return max(0.0, self.left[seat] - used)
        return max(0.0, s.base + self.left[seat] - used)

    def deadline(self) -> float | None:
        """When the running period's seat runs out of time (None: no clock, nobody deciding, or the seat away)."""
        if not self.running or self._away(self.seat):
            return None
        s = self.settings
        return self.since + (self.left[self.seat] if s.kind == "realtime" else s.base + self.left[self.seat])

    def expired(self, now: float) -> bool:
        deadline = self.deadline()
        return deadline is not None and now >= deadline

    def advance(self, decider: int, turn_ended: bool, now: float, over: bool = False) -> None:
        """A move was played at ``now``: charge the running period if another seat must decide now (``decider``;
        ``turn_ended``: the seat's turn passed on, which earns the real-time increment), then start the next one.
        ``over``: the game ended, the clocks stop."""
        if over:
            self._charge(now, turn_ended)
            self.seat = -1
            return
        if decider == self.seat:
            return  # the same seat decides again: its period goes on
        self._charge(now, turn_ended)
        self.seat, self.since = decider, now

    def undo(self, decider: int, turns_back: int, now: float) -> None:
        """Moves were taken back and ``decider`` decides again.  ``turns_back``: how many of the undoing seat's turn
        ends were taken back; their real-time increments are taken back too (ending a turn and undoing it gains no
        time).  The period the undo interrupted becomes part of the undoing seat's period: the seat that was
        deciding is charged nothing, the undoing seat pays for the time since its move."""
        if self.settings.kind == "realtime" and turns_back > 0 and decider >= 0:
            self.left[decider] = max(0.0, self.left[decider] - turns_back * self.settings.increment)
        if decider != self.seat:
            self.seat = decider
            if self.seat < 0:
                self.since = now

    def _charge(self, now: float, turn_ended: bool) -> None:
        seat = self.seat
        if seat < 0 or self._away(seat) or self.settings.kind == "none":
            return
        s, used = self.settings, self.used(now)
        if s.kind == "realtime":
            self.left[seat] = max(0.0, self.left[seat] - used) + (s.increment if turn_ended else 0.0)
        else:
            self.left[seat] = max(0.0, self.left[seat] - max(0.0, used - s.base))

    def set_away(self, seat: int, away: bool, now: float) -> None:
        """Mark ``seat`` away (a bot plays it) or back.  A seat coming back resumes its running period from now and
        gets at least ``GRACE`` seconds on a real-time clock."""
        if self.away is None:
            self.away = [False] * len(self.left)
        if self.away[seat] == away:
            return
        if away and seat == self.seat:
            self._charge(now, turn_ended=False)
        self.away[seat] = away
        if not away:
            self.votes.pop(seat, None)
            if seat == self.seat:
                self.since = now
            if self.settings.kind == "realtime":
                self.left[seat] = max(self.left[seat], GRACE)

    def vote(self, target: int, voter: int, bot: str | None) -> None:
        """``voter`` votes for a bot of level ``bot`` to take over ``target`` (None withdraws its vote)."""
        ballots = self.votes.setdefault(target, {})
        if bot is None:
            ballots.pop(voter, None)
            if not ballots:
                del self.votes[target]
        else:
            ballots[voter] = bot

    def to_json(self) -> dict[str, Any]:
        return {"settings": self.settings.to_json(), "left": self.left, "seat": self.seat, "since": self.since,
                "away": self.away or [False] * len(self.left),
                "votes": {str(t): {str(v): b for v, b in ballots.items()} for t, ballots in self.votes.items()},
                "undo_floor": self.undo_floor}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Clock:
        """A stored clock; raises ``ValueError`` (the game is reported damaged) when it does not make sense."""
        try:
            settings = ClockSettings.from_json(data["settings"])
            left = [float(x) for x in data["left"]]
            seat, since = int(data["seat"]), float(data["since"])
            away = [bool(x) for x in data["away"]]
            votes = {int(t): {int(v): str(b) for v, b in ballots.items()} for t, ballots in data.get("votes", {}).items()}
            floor = int(data.get("undo_floor", 0))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ValueError(f"unreadable clock: {exc}") from None
        n = len(left)
        if len(away) != n or not -1 <= seat < n or any(x < 0 for x in left):
            raise ValueError("unreadable clock: seats do not match")
        if any(not 0 <= t < n or any(not 0 <= v < n for v in b) for t, b in votes.items()):
            raise ValueError("unreadable clock: a vote names no seat")
        return cls(settings, left, seat, since, away, votes, max(0, floor))
