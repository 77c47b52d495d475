"""The clock bookkeeping (hansa.server.clocks), driven by explicit times: no test sleeps."""

from __future__ import annotations

import json

import pytest

from hansa.server.clocks import GRACE, Clock, ClockError, ClockSettings

T0 = 1_800_000_000.0


def realtime(base: float = 600, increment: float = 10, **kw: object) -> ClockSettings:
    return ClockSettings.from_json({"kind": "realtime", "base": base, "increment": increment, **kw})


def turn_based(base: float = 86400, bank: float = 3600, **kw: object) -> ClockSettings:
    return ClockSettings.from_json({"kind": "turn", "base": base, "bank": bank, **kw})


def test_no_clock_never_runs_or_expires() -> None:
    clock = Clock.start(ClockSettings.from_json(None), 3, 0, T0)
    assert not clock.running and clock.deadline() is None and not clock.expired(T0 + 10**9)
    clock.advance(1, True, T0 + 5)
    assert clock.time_left(1, T0 + 10**9) == float("inf")


@pytest.mark.parametrize(
    "data",
    [
        "fast", {"kind": "blitz"}, {"kind": "realtime", "base": 10}, {"kind": "realtime", "base": 600, "increment": -1},
        {"kind": "realtime", "base": 600, "bank": 5}, {"kind": "turn", "base": 86400, "increment": 5},
        {"kind": "turn", "base": 20 * 86400}, {"kind": "realtime", "base": True}, {"kind": "realtime", "base": "600"},
        {"kind": "turn", "base": 86400, "on_timeout": "forfeit"}, {"kind": "turn", "base": 86400, "bot": "mcts:hard"},
        {"kind": "turn", "base": 86400, "colour": "red"},
    ],
)
def test_settings_out_of_bounds_are_refused(data: object) -> None:
    with pytest.raises(ClockError):
        ClockSettings.from_json(data)  # type: ignore[arg-type]


def test_realtime_charges_the_deciding_seat_and_adds_the_increment_when_its_turn_ends() -> None:
    clock = Clock.start(realtime(600, 10), 3, 0, T0)
    assert clock.deadline() == T0 + 600
    clock.advance(0, False, T0 + 30)  # seat 0 goes on deciding (its second action): nothing charged yet
    assert clock.left == [600, 600, 600] and clock.time_left(0, T0 + 30) == 570
    clock.advance(2, False, T0 + 50)  # an off-turn relocation for seat 2: seat 0's turn has not ended
    assert clock.left == [550, 600, 600] and clock.seat == 2
    assert clock.time_left(0, T0 + 100) == 550  # not running while seat 2 decides
    clock.advance(0, False, T0 + 60)  # seat 2 took 10 s
    assert clock.left == [550, 600, 590]
    clock.advance(1, True, T0 + 100)  # seat 0 ends its turn: 40 s used, 10 s increment
    assert clock.left == [520, 600, 590] and clock.seat == 1 and clock.deadline() == T0 + 100 + 600


def test_realtime_timeout_and_game_end() -> None:
    clock = Clock.start(realtime(60, 0), 2, 1, T0)
    assert not clock.expired(T0 + 59.9) and clock.expired(T0 + 60)
    clock.advance(0, True, T0 + 59)
    clock.advance(0, True, T0 + 70, over=True)
    assert clock.left == [49, 1] and not clock.running and clock.deadline() is None


def test_turn_based_uses_the_period_first_then_the_bank() -> None:
    clock = Clock.start(turn_based(86400, 3600), 3, 0, T0)
    assert clock.deadline() == T0 + 86400 + 3600
    clock.advance(1, True, T0 + 3 * 3600)  # within the day: the bank is untouched
    assert clock.left == [3600, 3600, 3600]
    clock.advance(2, True, T0 + 3 * 3600 + 86400 + 600)  # 10 minutes over the day
    assert clock.left == [3600, 3000, 3600]
    assert clock.time_left(1, T0 + 10**7) == 86400 + 3000  # its next period
    assert clock.expired(T0 + 3 * 3600 + 86400 + 600 + 86400 + 3600)


def test_away_seat_does_not_run_and_comes_back_with_grace() -> None:
    clock = Clock.start(realtime(120, 0), 3, 0, T0)
    clock.advance(1, True, T0 + 100)
    clock.advance(2, True, T0 + 220)  # seat 1 used all 120 s
    clock.advance(0, True, T0 + 230)
    clock.advance(1, True, T0 + 240)
    assert clock.left[1] == 0 and clock.expired(T0 + 240)
    clock.set_away(1, True, T0 + 241)  # a bot plays seat 1 now: its clock stops
    assert clock.deadline() is None and not clock.expired(T0 + 10**6)
    clock.advance(2, True, T0 + 242)
    clock.advance(0, True, T0 + 250)
    clock.advance(1, True, T0 + 260)
    clock.set_away(1, False, T0 + 300)  # the player is back
    assert clock.left[1] == GRACE and clock.since == T0 + 300 and clock.deadline() == T0 + 300 + GRACE


def test_a_clock_survives_json_and_damaged_clocks_are_reported() -> None:
    clock = Clock.start(turn_based(), 4, 2, T0)
    clock.advance(3, True, T0 + 90000)
    again = Clock.from_json(json.loads(json.dumps(clock.to_json())))
    assert again == clock
    for broken in ({}, {**clock.to_json(), "left": [1, 2]}, {**clock.to_json(), "seat": 9},
                   {**clock.to_json(), "left": [-1, 0, 0, 0]}, {**clock.to_json(), "settings": {"kind": "x"}}):
        with pytest.raises(ValueError):
            Clock.from_json(broken)
