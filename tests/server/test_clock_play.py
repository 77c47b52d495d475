"""Clocks on the server, driven by an injected time source (no test sleeps for a clock): time charged per move,
timeouts in every phase (own turn, an off-turn relocation) under both policies, bots taking over and handing back,
takeover votes, undo, clocks surviving a restart, "my games" and webhooks."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import websockets
from clock_support import T0, ClockServer, FakeTime, Receiver, clock_server
from server_support import POSTGRES_URL, postgres_database

REALTIME = {"kind": "realtime", "base": 600, "increment": 10, "on_timeout": "bot", "bot": "purpose"}
HUMANS = [{"name": "Ada"}, {"name": "Bea"}, {"name": "Cy"}]


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "postgresql":
        if not POSTGRES_URL:
            pytest.skip("HANSA_TEST_POSTGRES_URL is not set (scripts/test.sh sets it up with Debian's PostgreSQL)")
        return postgres_database()
    return f"sqlite:///{tmp_path / 'hansa.sqlite3'}"


@pytest.fixture
def srv(database: str) -> Iterator[ClockServer]:
    with clock_server(database) as s:
        yield s


def create(srv: ClockServer, clock: dict[str, Any] | None, players: list[dict[str, Any]] | None = None,
           seed: int = 4, hotseat: bool = False) -> dict[str, Any]:
    """Create a game of seat links (a token per human seat) or, with ``hotseat``, a hot-seat game (one token for every
    human seat, no seat tokens)."""
    body: dict[str, Any] = {"players": players or HUMANS, "seed": seed}
    if clock is not None:
        body["clock"] = clock
    if hotseat:
        body["table"] = {"hotseat": True}
    r = srv.post("/api/games", body)
    assert r.status_code == 201, r.text
    game: dict[str, Any] = r.json()
    assert (game["hotseat_token"] is not None) is hotseat
    assert all((s["token"] is None) is (hotseat or s["type"] == "bot") for s in game["seats"])
    return game


def legal(view: dict[str, Any], kind: str) -> str:
    return next(m["text"] for m in view["legal"] if m["json"]["type"] == kind)


def test_moves_charge_the_deciding_seat_and_the_turn_end_earns_the_increment(srv: ClockServer) -> None:
    g = create(srv, REALTIME, hotseat=True)
    gid, hot = g["id"], g["hotseat_token"]
    v = srv.view(gid, hot)
    clock = v["clock"]
    assert clock["kind"] == "realtime" and clock["seat"] == 0 and clock["left"] == [600, 600, 600]
    assert clock["since"] == T0 and clock["deadline"] == T0 + 600 and v["now"] == T0
    srv.time.advance(25)
    v = srv.move(gid, hot, legal(v, "place"))  # the same seat goes on: its period goes on
    assert v["clock"]["left"] == [600, 600, 600] and v["now"] == T0 + 25
    srv.time.advance(15)
    v = srv.move(gid, hot, legal(v, "place"))  # the turn passes to seat 1: 40 s used, 10 s back
    assert v["clock"]["left"] == [570, 600, 600] and v["clock"]["seat"] == 1 and v["clock"]["since"] == T0 + 40
    assert v["clock"]["deadline"] == T0 + 40 + 600
    srv.tick()
    assert srv.view(gid, hot)["clock"] == v["clock"]  # nobody ran out of time


def test_timeout_in_own_turn_a_bot_plays_the_seat_until_its_player_comes_back(srv: ClockServer) -> None:
    g = create(srv, REALTIME)
    gid = g["id"]
    ada, bea, cy = (s["token"] for s in g["seats"])
    srv.time.advance(599)
    srv.tick()
    assert srv.view(gid, bea)["players"][0]["away"] is False
    srv.time.advance(1)
    srv.tick()
    srv.idle(gid)
    v = srv.view(gid, bea)
    assert v["players"][0]["away"] is True
    assert v["version"] >= 1 and all(e["seat"] == 0 for e in v["log"])  # the purpose bot played seat 0's turn
    assert v["clock"]["seat"] == 1 and v["clock"]["left"][0] == 0  # an away seat earns no increment
    # Ada cannot take back what the bot played for her
    assert srv.view(gid, ada)["undo"] == 0
    assert srv.post(f"/api/games/{gid}/undo", {}, ada).status_code == 422
    # Seats 1 and 2 end their turns; the bot plays seat 0's next turn at once.
    n = v["version"]
    srv.move(gid, bea, "end")
    srv.move(gid, cy, "end")
    srv.idle(gid)
    v = srv.view(gid, bea)
    assert v["players"][0]["away"] is True and v["clock"]["seat"] == 1
    assert [e["seat"] for e in v["log"] if e["n"] > n][:2] == [1, 2] and v["log"][-1]["seat"] == 0
    # Ada comes back (only her token may): she gets the grace time, and the bot stops playing her seat.
    assert srv.post(f"/api/games/{gid}/back", {"seat": 0}, bea).status_code == 403
    r = srv.post(f"/api/games/{gid}/back", {}, ada)
    assert r.status_code == 200, r.text
    v = r.json()
    assert v["players"][0]["away"] is False and v["clock"]["left"][0] == 30
    assert srv.post(f"/api/games/{gid}/back", {}, ada).status_code == 409  # not away any more
    srv.move(gid, bea, "end")
    srv.move(gid, cy, "end")
    srv.idle(gid)
    v = srv.view(gid, ada)
    assert v["clock"]["seat"] == 0 and v["log"][-1]["seat"] == 2  # her decision waits for her


def test_timeout_in_an_off_turn_relocation_under_both_policies(srv: ClockServer) -> None:
    for policy in ("bot", "end-turn"):
        g = create(srv, {**REALTIME, "on_timeout": policy}, hotseat=True)
        gid, hot = g["id"], g["hotseat_token"]
        v = srv.view(gid, hot)
        v = srv.move(gid, hot, legal(v, "place"))
        v = srv.move(gid, hot, legal(v, "place"))
        v = srv.move(gid, hot, legal(v, "displace"))  # seat 1 displaces seat 0's trader
        assert v["state"]["turn"]["decider"] == 0 and v["clock"]["seat"] == 0  # seat 0 must relocate, off-turn
        n = v["version"]
        srv.time.advance(v["clock"]["deadline"] - srv.time())
        srv.tick()
        srv.idle(gid)
        v = srv.view(gid, hot)
        relocation = [e for e in v["log"] if e["n"] > n]
        assert relocation and relocation[0]["seat"] == 0
        assert relocation[0]["json"]["type"] in ("relocate", "take", "take-from", "done")
        assert v["state"]["turn"]["decider"] == 1 and v["clock"]["seat"] == 1  # back to seat 1's turn
        assert v["players"][0]["away"] is (policy == "bot")


def test_end_turn_policy_ends_the_turn_and_the_seat_plays_on_next_turn(srv: ClockServer) -> None:
    turn = {"kind": "turn", "base": 86400, "bank": 3600, "on_timeout": "end-turn"}
    g = create(srv, turn, hotseat=True)
    gid, hot = g["id"], g["hotseat_token"]
    v = srv.view(gid, hot)
    assert v["clock"]["deadline"] == T0 + 86400 + 3600
    srv.time.advance(86400 + 3600)
    srv.tick()
    v = srv.view(gid, hot)
    assert [e["move"] for e in v["log"]] == ["end"] and v["log"][0]["seat"] == 0
    assert v["log"][0]["by"] == "clock"  # ended by the clock, not by a token
    assert v["clock"]["seat"] == 1 and v["clock"]["left"] == [0, 3600, 3600]
    assert v["players"][0]["away"] is False  # nobody plays for seat 0: its next turn waits for its player
    srv.time.advance(10)
    v = srv.move(gid, hot, "end")
    v = srv.move(gid, hot, "end")
    assert v["clock"]["seat"] == 0 and v["clock"]["deadline"] == srv.time() + 86400  # a new day, no bank left


def test_undo_takes_back_the_increment(srv: ClockServer) -> None:
    g = create(srv, {**REALTIME, "increment": 30}, [{"name": "Ada"}, {"name": "Bea"}, {"name": "Cy"}])
    gid, ada = g["id"], g["seats"][0]["token"]
    v = srv.view(gid, ada)
    srv.time.advance(5)
    v = srv.move(gid, ada, legal(v, "place"))
    v = srv.move(gid, ada, legal(v, "place"))  # turn ends: 600 - 5 + 30
    assert v["clock"]["left"][0] == 625 and v["clock"]["seat"] == 1
    srv.time.advance(3)
    r = srv.post(f"/api/games/{gid}/undo", {}, ada)
    assert r.status_code == 200, r.text
    v = r.json()
    # Ada's running period goes on from her move (seat 1 is charged nothing for the time her undo took back)
    assert v["clock"]["seat"] == 0 and v["clock"]["left"][0] == 595 and v["clock"]["since"] == T0 + 5
    assert v["clock"]["left"][1] == 600 and v["clock"]["deadline"] == T0 + 5 + 595


def test_takeover_vote_of_the_other_players(srv: ClockServer) -> None:
    g = create(srv, None)  # no clock: a seat is abandoned after takeover_after (a day) without a move
    gid = g["id"]
    ada, bea, cy = (s["token"] for s in g["seats"])
    v = srv.view(gid, bea)
    assert v["clock"]["kind"] == "none" and v["clock"]["deadline"] is None and v["clock"]["takeover_after"] == 86400
    r = srv.post(f"/api/games/{gid}/takeover", {"seat": 0, "bot": "heuristic"}, bea)
    assert r.status_code == 409 and "not abandoned" in r.json()["error"]
    srv.time.advance(86400)
    assert srv.post(f"/api/games/{gid}/takeover", {"seat": 0}, ada).status_code == 403  # not one's own seat
    assert srv.post(f"/api/games/{gid}/takeover", {"seat": 0, "bot": "mcts:hard"}, bea).status_code == 400
    assert srv.post(f"/api/games/{gid}/takeover", {"seat": 0}, None).status_code == 403
    r = srv.post(f"/api/games/{gid}/takeover", {"seat": 0, "bot": "heuristic"}, bea)
    assert r.status_code == 200 and r.json()["players"][0]["takeover_votes"] == [1]
    assert r.json()["players"][0]["type"] == "human"  # one vote of two is not a majority
    r = srv.post(f"/api/games/{gid}/takeover", {"seat": 0, "bot": None}, bea)  # withdrawn
    assert r.json()["players"][0]["takeover_votes"] == []
    srv.post(f"/api/games/{gid}/takeover", {"seat": 0, "bot": "heuristic"}, bea)
    url = srv.url.replace("http", "ws") + f"/api/games/{gid}/ws"

    async def vote_and_watch() -> dict[str, Any]:
        """Cy's vote decides while Ada's page (a socket opened with her seat's token) is open: what it is sent."""
        async with websockets.connect(url, subprotocols=["hansa", "hansa.token." + ada]) as ws:
            first = json.loads(await asyncio.wait_for(ws.recv(), 10))["view"]
            assert first["you"] == [0]
            r = srv.post(f"/api/games/{gid}/takeover", {"seat": 0, "bot": "purpose"}, cy)
            assert r.status_code == 200
            while True:
                msg = json.loads(await asyncio.wait_for(ws.recv(), 10))
                if msg.get("type") == "view" and msg["view"]["players"][0]["type"] == "bot":
                    return dict(msg["view"])

    pushed = asyncio.run(vote_and_watch())
    # the socket only watches now: not "you", no legal moves, nothing to undo
    assert pushed["you"] == [] and pushed["legal"] == [] and pushed["undo"] == 0
    srv.idle(gid)
    v = srv.view(gid, ada)
    assert v["players"][0]["type"] == "bot" and v["players"][0]["bot"] == "purpose" and v["you"] == []
    assert [p["taken_over"] for p in v["players"]] == [True, False, False]  # a player's seat, now a bot's
    assert v["version"] >= 1 and v["state"]["turn"]["decider"] == 1  # the bot played seat 0's turn
    assert srv.post(f"/api/games/{gid}/moves", {"move": "end", "seat": 0}, ada).status_code == 403


def test_a_takeover_is_remembered_after_a_restart(database: str) -> None:
    fake = FakeTime()
    with clock_server(database, fake, takeover_after=3600.0) as srv:
        g = create(srv, None)
        gid = g["id"]
        srv.time.advance(3600)
        for voter in (1, 2):
            assert srv.post(f"/api/games/{gid}/takeover", {"seat": 0, "bot": "random"}, g["seats"][voter]["token"]).status_code == 200
        srv.idle(gid)
    with clock_server(database, fake, takeover_after=3600.0) as srv:
        v = srv.view(gid)
        assert [p["taken_over"] for p in v["players"]] == [True, False, False]
        assert [e["by"] for e in v["log"] if e["seat"] == 0] and all(e["by"] == "bot" for e in v["log"] if e["seat"] == 0)


def test_clocks_survive_a_restart_and_time_runs_while_the_server_is_down(database: str) -> None:
    fake = FakeTime()
    with clock_server(database, fake) as srv:
        g = create(srv, REALTIME, hotseat=True)
        gid, hot = g["id"], g["hotseat_token"]
        v = srv.view(gid, hot)
        srv.time.advance(20)
        v = srv.move(gid, hot, legal(v, "place"))
        v = srv.move(gid, hot, legal(v, "place"))
        before = v["clock"]
    fake.advance(500)  # down for 500 s: seat 1's time ran on meanwhile
    with clock_server(database, fake) as srv:
        v = srv.view(gid, hot)
        assert v["clock"] == before and v["clock"]["deadline"] - v["now"] == 100
        srv.time.advance(100)
        srv.tick()
        srv.idle(gid)
        v = srv.view(gid, hot)
        assert v["players"][1]["away"] is True and v["clock"]["seat"] != 1 and v["log"][-1]["seat"] == 1


def test_the_timer_task_wakes_on_its_own(database: str) -> None:
    with clock_server(database, clock_poll=0.05) as srv:
        g = create(srv, REALTIME, hotseat=True)
        gid, hot = g["id"], g["hotseat_token"]
        srv.time.advance(601)
        import time as real_time

        deadline = real_time.monotonic() + 20
        while not srv.view(gid, hot)["players"][0]["away"]:
            assert real_time.monotonic() < deadline, "the timer did not time the seat out"
            real_time.sleep(0.05)


def test_my_games(srv: ClockServer) -> None:
    a = create(srv, REALTIME)
    b = create(srv, None, [{"name": "Ada"}, {"name": "Bot", "type": "bot", "bot": "random"}], hotseat=True)
    srv.time.advance(100)
    r = srv.post("/api/my-games", {"games": [
        {"id": a["id"], "token": a["seats"][0]["token"]},
        {"id": a["id"], "token": a["seats"][1]["token"]},
        {"id": b["id"], "token": b["hotseat_token"]},
        {"id": a["id"], "token": "not-a-token"},
        {"id": "nosuchgame", "token": "x"},
    ]})
    assert r.status_code == 200, r.text
    data = r.json()
    assert data["now"] == T0 + 100
    first, second, third, stranger, unknown = data["games"]
    assert first["you"] == [0] and first["your_turn"] is True and first["time_left"] == 500 and first["clock"] == "realtime"
    assert second["you"] == [1] and second["your_turn"] is False and second["decider"] == 0
    assert third["you"] == [0] and third["players"][1]["type"] == "bot"
    assert stranger["you"] == [] and stranger["your_turn"] is False and "token" not in str(stranger)
    assert unknown == {"id": "nosuchgame", "error": "there is no such game"}
    for bad in ({"games": [{"id": "x" * 17, "token": "t"}]}, {"games": [{"id": "a/b", "token": "t"}]},
                {"games": [{"id": "a", "token": "t" * 65}]}, {"games": [{"id": "a", "token": "t"}] * 101},
                {"games": "all"}, {}):
        assert srv.post("/api/my-games", bad).status_code == 400, bad


def test_clock_settings_are_validated(srv: ClockServer) -> None:
    for clock, words in (
        ({"kind": "realtime", "base": 10}, "clock.base"), ({"kind": "turn", "base": 86400, "increment": 5}, "increment"),
        ({"kind": "blitz"}, "kind"), ({"kind": "turn", "base": 86400, "bot": "mcts:hard"}, "bot"),
        ({"kind": "turn", "base": "86400"}, "base"), ({"kind": "turn", "base": 86400, "colour": 1}, "colour"),
        ({"kind": "realtime", "base": 600, "on_timeout": "forfeit"}, "on_timeout"),
    ):
        r = srv.post("/api/games", {"players": HUMANS, "clock": clock})
        assert r.status_code == 400 and words in r.json()["error"], (clock, r.text)


def test_webhooks_are_off_by_default(srv: ClockServer) -> None:
    g = create(srv, None)
    r = srv.put(f"/api/games/{g['id']}/webhook", {"url": "https://example.org/hook"}, g["seats"][0]["token"])
    assert r.status_code == 403 and "off" in r.json()["error"]


def test_webhook_notices_go_only_to_allowed_public_or_listed_addresses(tmp_path: Path) -> None:
    receiver = Receiver()
    try:
        url = f"sqlite:///{tmp_path / 'hooks.sqlite3'}"
        # The receiver listens on 127.0.0.2, which the allow-list names as an address; "localhost" is allowed as a
        # name, but it resolves to 127.0.0.1, an internal address the list does not name: refused when sending.
        with clock_server(url, webhook_hosts="127.0.0.2, localhost, *.example.org",
                          public_url="https://hansa.example.org/") as srv:
            g = create(srv, REALTIME)
            gid = g["id"]
            ada, bea, cy = (s["token"] for s in g["seats"])
            for bad, why in (("ftp://127.0.0.2/x", "https://"), ("http://user:pw@127.0.0.2/x", "user name"),
                             ("http://127.0.0.1/x", "does not call"), ("http://example.org.evil.net/", "does not call"),
                             ("http://127.0.0.2:99999/", "not a URL"), ("http://127.0.0.2/a b", "spaces")):
                r = srv.put(f"/api/games/{gid}/webhook", {"url": bad}, bea)
                assert r.status_code == 400 and why in r.json()["error"], (bad, r.text)
            hook = f"http://127.0.0.2:{receiver.port}/notify?k=1"
            r = srv.put(f"/api/games/{gid}/webhook", {"url": hook}, bea)
            assert r.status_code == 200 and r.json() == {"seat": 1, "webhook": hook}
            assert srv.view(gid, bea)["webhooks"] == {"1": hook}
            # shown only to the seat's own token: not to another seat's, nor to spectators
            assert srv.view(gid, ada)["webhooks"] == {}
            assert "webhooks" not in str(srv.view(gid)["webhooks"]) and srv.view(gid)["webhooks"] == {}
            srv.put(f"/api/games/{gid}/webhook", {"url": f"http://localhost:{receiver.port}/x"}, cy)
            v = srv.view(gid, ada)
            srv.time.advance(42)
            v = srv.move(gid, ada, legal(v, "place"))
            srv.move(gid, ada, legal(v, "place"))  # Bea's turn: one notice
            (notice,) = receiver.wait(1)
            assert notice == {"type": "your-turn", "game": gid, "seat": 1, "player": "Bea", "version": 2, "turn": 2,
                              "url": f"https://hansa.example.org/game/{gid}", "time_left": 600.0}
            srv.move(gid, bea, "end")  # Cy's turn: "localhost" resolves to an internal address, not listed as such
            stats: dict[str, Any] = {}
            import time as real_time

            deadline = real_time.monotonic() + 20
            while not stats.get("webhooks_failed"):
                assert real_time.monotonic() < deadline
                stats = srv.get("/api/stats").json()
                real_time.sleep(0.05)
            assert stats["webhooks_sent"] == 1 and len(receiver.bodies) == 1
            assert srv.put(f"/api/games/{gid}/webhook", {"url": None}, bea).json() == {"seat": 1, "webhook": None}
            assert srv.view(gid, bea)["webhooks"] == {}
    finally:
        receiver.close()


#: For each phase of a turn: players, options, and the bot and seed whose game reaches the phase soonest.
PHASES = {
    "actions": (3, {}, "heuristic", 4),
    "move": (3, {}, "random", 1),
    "relocate": (3, {}, "random", 1),
    "remove": (3, {}, "heuristic", 23),
    "markers": (3, {}, "heuristic", 2),
    "neutral_office": (2, {"two_player_variant": "neutral"}, "random", 1),
    "pawn_setup": (2, {"two_player_variant": "pawn"}, "random", 1),
    "pawn_end": (2, {"two_player_variant": "pawn"}, "random", 1),
}


def moves_to_phase(phase: str) -> tuple[int, dict[str, Any], int, list[str]]:
    """Players, options, seed and the moves (found with the engine and a seeded bot) that reach ``phase``."""
    from hansa.bots import make_bot
    from hansa.core.state import GameState
    from hansa.view import public_state

    players, options, spec, seed = PHASES[phase]
    state = GameState.new(players, seed, options)
    bot = make_bot(spec, seed)
    moves: list[str] = []
    while public_state(state)["turn"]["phase"] != phase:
        move = bot.choose(state)
        moves.append(move.text())
        state.play(move)
        assert len(moves) < 3000 and not state.is_over
    return players, options, seed, moves


@pytest.mark.parametrize("policy", ["bot", "end-turn"])
@pytest.mark.parametrize("phase", list(PHASES))
def test_a_timeout_in_every_phase_lets_the_game_go_on(srv: ClockServer, phase: str, policy: str) -> None:
    players, options, seed, moves = moves_to_phase(phase)
    body = {"players": HUMANS[:players], "seed": seed, "options": options, "clock": {**REALTIME, "on_timeout": policy},
            "table": {"hotseat": True}}
    r = srv.post("/api/games", body)
    assert r.status_code == 201, r.text
    gid, hot = r.json()["id"], r.json()["hotseat_token"]
    for text in moves:
        r = srv.post(f"/api/games/{gid}/moves", {"move": text}, hot)
        assert r.status_code == 200, (text, r.text)
    v = r.json() if moves else srv.view(gid, hot)
    assert v["state"]["turn"]["phase"] == phase
    seat, n = v["state"]["turn"]["decider"], v["version"]
    assert v["clock"]["seat"] == seat
    srv.time.advance(v["clock"]["deadline"] - srv.time())
    srv.tick()
    srv.idle(gid)
    after = srv.view(gid, hot)
    made = [e for e in after["log"] if e["n"] > n]
    assert made and made[0]["seat"] == seat  # the timed-out seat's decision was made for it
    assert after["state"]["over"] or after["state"]["turn"]["decider"] != seat  # and the game went on to others
    assert after["players"][seat]["away"] is (policy == "bot")
