"""The second hostile round (issue "Hardening, second round"): long games, floods, one token too many, names that
look like nothing.  Each test names the audit item it covers and fails on the server before that round.

The slow-loris connections, proxy headers, orphaned workers and invalid UTF-8 frames are in test_connections.py,
the webhooks' fairness in test_webhooks.py.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from server_support import Server
from test_api import auth, create, run_coroutine, view, wait_for
from test_hostile import is_api_error, play_random_moves, post_move, rss_kb, sqlite_file

from hansa.core.state import GameState
from hansa.record import game_from_record
from hansa.server.names import BadName, clean_name, name_key
from hansa.view import move_delta, public_state

THREE = [{"name": "Ada"}, {"name": "Bea"}, {"name": "Cy"}]
HOT = {"hotseat": True}


def new_game(server: Server, players: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    """Create a game (whatever tokens the server gives out: these tests also run against the server before this
    round, to see them fail there)."""
    r = httpx.post(server.url + "/api/games", json={"players": players, **extra}, timeout=30)
    assert r.status_code == 201, r.text
    return r.json()  # type: ignore[no-any-return]


def seat_tokens(game: dict[str, Any]) -> list[str]:
    return [s["token"] for s in game["seats"]]


def other_client(server: Server, **kw: Any) -> httpx.Client:
    """A client from another address: on Linux all of 127.0.0.0/8 is loopback, and the server counts per address."""
    return httpx.Client(base_url=server.url, transport=httpx.HTTPTransport(local_address="127.0.0.2"), timeout=30, **kw)


def all_pages(server: Server, path: str, key: str, limit: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Every entry of a paged answer, following ``next``; and the pages themselves."""
    entries: list[dict[str, Any]] = []
    pages = []
    start: int | None = 0
    while start is not None:
        r = httpx.get(server.url + path, params={"start": start, "limit": limit}, timeout=30)
        assert r.status_code == 200, r.text
        page = r.json()
        pages.append(page)
        assert page["start"] == start
        entries += page[key]
        start = page["next"]
    return entries, pages


# ---------------------------------------------------------------------------------------------- 1. long games


def test_move_cap_stops_a_game_and_bounds_what_it_stores(make_server: Any) -> None:
    """Item 1 and 12: a game has a move cap (``--max-moves``); the move that reaches it stops the game, which says
    so in its note, its record and the lobby, and takes no more moves, also after a restart."""
    server = make_server("--max-moves", "120")
    g = create(server, THREE, seed=5, table=HOT)
    gid, hot = g["id"], g["hotseat_token"]
    assert len(play_random_moves(server, gid, hot, 300)) == 120
    v = view(server, gid, hot)
    assert v["version"] == 120 and v["status"] == "stopped" and "move cap" in v["note"] and v["legal"] == []
    assert v["seed"] is not None  # an ended game publishes its seed
    r = post_move(server, gid, hot, {"move": "end"})
    assert is_api_error(r, 409) and "stopped" in r.json()["error"]
    record = httpx.get(f"{server.url}/api/games/{gid}/record").json()
    assert len(record["moves"]) == 120 and "move cap" in record["result"]["ended"]["note"]
    assert game_from_record(record).state.turn == v["state"]["turn"]["number"]  # the record replays
    lobby = httpx.get(server.url + "/api/games").json()["games"]
    assert next(e for e in lobby if e["id"] == gid)["status"] == "stopped"
    server.restart()
    v = view(server, gid, hot)
    assert v["version"] == 120 and v["status"] == "stopped" and "move cap" in v["note"]


def test_log_history_and_replays_are_paged_and_exact(make_server: Any) -> None:
    """Item 1: the log and the history come in pages (``start``, ``limit``, ``next``); every page agrees with a
    replay of the record made here, move for move (delta, JSON form, who moved, scores), and so do replayed
    positions on both sides of a checkpoint."""
    server = make_server()
    g = new_game(server, THREE, seed=9)
    gid, tokens = g["id"], seat_tokens(g)
    play_random_moves(server, gid, tokens, 430)
    record = httpx.get(f"{server.url}/api/games/{gid}/record").json()
    total = len(record["moves"])
    assert total >= 400
    first = httpx.get(f"{server.url}/api/games/{gid}/log").json()
    assert first["start"] == 0 and len(first["log"]) == 200 and first["next"] == 200 and first["moves"] == total
    log, pages = all_pages(server, f"/api/games/{gid}/log", "log", 137)
    assert len(pages) == -(-total // 137) and pages[-1]["next"] is None
    history, _ = all_pages(server, f"/api/games/{gid}/history", "turns", 150)
    # the same game replayed here, with the seed the record leaves out while the game runs
    game = game_from_record({**record, "seed": 9}, check_result=False)
    state = GameState.new(3, 9, game.options)
    scores = [list(state.score)]
    expected = []
    positions = {0: public_state(state)}
    for i, move in enumerate(game.moves):
        before = state.copy()
        seat, turn = state.decider, state.turn
        state.play(move)
        expected.append({"n": i + 1, "seat": seat, "turn": turn, "move": move.text(), "json": move.to_json(),
                         "delta": move_delta(before, state), "by": "seat"})
        scores.append(list(state.score))
        positions[i + 1] = public_state(state)
    assert log == expected
    assert [h["n"] for h in history] == list(range(total + 1))
    assert [h["scores"] for h in history] == scores
    for k in (0, 1, 199, 200, 201, 399, 400, total):
        answer = httpx.get(f"{server.url}/api/games/{gid}/replay/{k}").json()
        assert answer["k"] == k and answer["moves"] == total and answer["state"] == positions[k], k
        assert answer["move"] == (record["moves"][k - 1] if k else None)
    # bounds: a page is at most 1,000 moves of log, 5,000 of history; a start past the end is an empty last page
    assert is_api_error(httpx.get(f"{server.url}/api/games/{gid}/log", params={"limit": 1001}), 400)
    assert is_api_error(httpx.get(f"{server.url}/api/games/{gid}/history", params={"limit": 5001}), 400)
    assert is_api_error(httpx.get(f"{server.url}/api/games/{gid}/log", params={"start": -1}), 400)
    past = httpx.get(f"{server.url}/api/games/{gid}/log", params={"start": total + 50}).json()
    assert past["log"] == [] and past["next"] is None
    # an undo changes the last page, never leaves an old one in the cache
    mover = tokens[expected[-1]["seat"]]
    v = view(server, gid, mover)
    if v["undo"]:
        r = httpx.post(f"{server.url}/api/games/{gid}/undo", headers=auth(mover), json={"version": v["version"]})
        assert r.status_code == 200
        log_after, _ = all_pages(server, f"/api/games/{gid}/log", "log", 1000)
        assert log_after == expected[:-1]


def test_long_answers_stay_within_their_byte_budget(make_server: Any) -> None:
    """Item 1: alternating a move and the long answers of a long game keeps the cache of built answers within
    ``--replay-cache`` bytes and the server's memory flat (it grew by gigabytes before)."""
    budget = 400_000
    server = make_server("--replay-cache", str(budget))
    g = create(server, THREE, seed=4, table=HOT)
    gid, hot = g["id"], g["hotseat_token"]
    play_random_moves(server, gid, hot, 400)
    assert server.proc is not None
    pid = server.proc.pid
    with httpx.Client(base_url=server.url, timeout=30) as client:
        for path in ("/log?limit=1000", "/record", "/history", "/replay/333"):  # warm up: the worker process starts
            assert client.get(f"/api/games/{gid}{path}").status_code == 200
        start_rss = rss_kb(pid)
        for i in range(60):
            play_random_moves(server, gid, hot, 1, seed=i)
            for path in ("/log?start=0&limit=1000", "/log?start=200&limit=1000", "/record", "/history", f"/replay/{i}"):
                assert client.get(f"/api/games/{gid}{path}").status_code == 200
            stats = client.get("/api/stats").json()
            assert stats["answers_cached_bytes"] <= budget
        grown = rss_kb(pid) - start_rss
    assert grown < 40_000, f"the server grew by {grown} kB"


def test_one_client_cannot_starve_others_of_long_answers(make_server: Any) -> None:
    """Item 9: a client firing many replays at once gets 429 for those beyond its share (``--replay-per-client``)
    while another client's record, log and replays are all answered (503 for 15 % of them before)."""
    server = make_server()
    g = new_game(server, THREE, seed=12)
    gid = g["id"]
    play_random_moves(server, gid, seat_tokens(g), 450)
    assert httpx.get(f"{server.url}/api/games/{gid}/replay/1").status_code == 200  # the worker process is up

    async def scenario() -> tuple[list[int], list[int]]:
        stop = asyncio.Event()

        async def hog(client: httpx.AsyncClient) -> list[int]:
            statuses = []
            k = 2
            while not stop.is_set():
                batch = await asyncio.gather(*[client.get(f"/api/games/{gid}/replay/{k + j}") for j in range(12)])
                k += 12
                statuses += [r.status_code for r in batch]
            return statuses

        async def victim(client: httpx.AsyncClient) -> list[int]:
            statuses = []
            for i in range(8):
                for path in ("/record", f"/log?start={i * 50}", f"/replay/{440 - i}", f"/replay/{400 - i}",
                             f"/replay/{300 - i}", "/history"):
                    statuses.append((await client.get(f"/api/games/{gid}{path}")).status_code)
            stop.set()
            return statuses

        transport = httpx.AsyncHTTPTransport(local_address="127.0.0.2")
        async with httpx.AsyncClient(base_url=server.url, timeout=30) as a, \
                httpx.AsyncClient(base_url=server.url, timeout=30, transport=transport) as b:
            hogged, served = await asyncio.gather(hog(a), victim(b))
        return hogged, served

    hogged, served = run_coroutine(scenario())
    assert set(served) == {200}, served
    assert 429 in hogged and set(hogged) <= {200, 429}


# ---------------------------------------------------------------------------------------------- 3, 8. undo and votes


def test_undo_is_rate_limited_per_seat(make_server: Any) -> None:
    """Item 3: undo has a rate per seat (``--undo-per-minute``, default 30, in bursts of 10): move + undo spam is
    cut off with 429 (and Retry-After), and a refused undo changes nothing."""
    server = make_server()
    g = new_game(server, [{"name": "Ada"}, {"name": "Bea"}], seed=2)
    gid = g["id"]
    decider = view(server, gid)["state"]["turn"]["decider"]
    statuses = []
    with httpx.Client(base_url=server.url, headers=auth(seat_tokens(g)[decider]), timeout=30) as client:
        for _ in range(14):
            v = client.get(f"/api/games/{gid}").json()
            text = next(m["text"] for m in v["legal"] if m["text"].startswith("place"))
            v = client.post(f"/api/games/{gid}/moves", json={"move": text, "version": v["version"]}).json()
            r = client.post(f"/api/games/{gid}/undo", json={"version": v["version"]})
            statuses.append(r.status_code)
            if r.status_code == 429:
                assert is_api_error(r, 429) and int(r.headers["Retry-After"]) >= 1
                assert client.get(f"/api/games/{gid}").json()["version"] == v["version"]  # nothing undone
                break
    assert statuses[:10] == [200] * 10 and statuses[-1] == 429


def test_votes_write_only_real_changes_and_never_keep_a_game_alive(make_server: Any) -> None:
    """Item 8: withdrawing a vote one does not have is refused (409, nothing written or pushed); votes are rate
    limited; and votes (any change that is not a move) do not keep a stalled game from being marked abandoned."""
    server = make_server("--takeover-after", "0.6", "--abandon-after", "4", "--janitor-interval", "0.3")
    g = new_game(server, THREE, seed=3)
    gid = g["id"]
    tokens = [s["token"] for s in g["seats"]]
    decider = view(server, gid)["state"]["turn"]["decider"]
    voter = tokens[(decider + 1) % 3]
    r = httpx.post(f"{server.url}/api/games/{gid}/takeover", headers=auth(voter), json={"seat": decider, "bot": None})
    assert is_api_error(r, 409) and "no vote" in r.json()["error"]
    started = time.monotonic()
    statuses = []
    status = "running"
    time.sleep(0.7)  # the deciding seat is now abandoned: voting is allowed
    while time.monotonic() - started < 9 and status == "running":
        for bot in ("random", None):
            statuses.append(httpx.post(f"{server.url}/api/games/{gid}/takeover", headers=auth(voter),
                                       json={"seat": decider, "bot": bot}).status_code)
        status = view(server, gid)["status"]
        time.sleep(0.25)
    assert status == "abandoned", statuses
    assert 200 in statuses and 429 in statuses and set(statuses) <= {200, 409, 429}
    # the repeated identical vote is no change: answered, nothing written (the view's revision does not move)


# ---------------------------------------------------------------------------------------------- 4. per-client caps


def test_running_games_are_capped_per_client(make_server: Any) -> None:
    """Item 4: one client may have ``--max-live-games-per-client`` running games it created (default 20); others
    are not affected, and a finished (stopped) game frees a place."""
    server = make_server("--create-per-minute", "100")
    body = {"players": [{"name": "Ada"}, {"name": "Bot", "type": "bot", "bot": "random"}]}
    made = [new_game(server, body["players"]) for _ in range(20)]
    r = httpx.post(server.url + "/api/games", json=body)
    assert is_api_error(r, 429) and "still in play" in r.json()["error"] and int(r.headers["Retry-After"]) > 0
    with other_client(server) as other:
        assert other.post("/api/games", json=body).status_code == 201
    r = httpx.post(f"{server.url}/api/games/{made[0]['id']}/stop", headers=auth(made[0]["creator_token"]))
    assert r.status_code == 200
    assert httpx.post(server.url + "/api/games", json=body).status_code == 201


# ---------------------------------------------------------------------------------------------- 7. least authority


def test_tokens_act_only_for_their_seats_and_the_log_says_which_token_moved(make_server: Any, tmp_path: Path) -> None:
    """Item 7: a game of seat links has no hot-seat token (nothing can act for every seat); a hot-seat game has no
    seat links; a seat token cannot move, undo, vote or set a webhook for another seat, nor read its webhook; the
    log and the undo audit say which kind of token acted."""
    server = make_server("--webhook-hosts", "hooks.example.org")
    g = create(server, THREE, seed=6)
    assert g["hotseat_token"] is None and g["hotseat_url"] is None
    gid = g["id"]
    tokens = [s["token"] for s in g["seats"]]
    assert all(tokens)
    decider = view(server, gid)["state"]["turn"]["decider"]
    other = (decider + 1) % 3
    r = httpx.put(f"{server.url}/api/games/{gid}/webhook", headers=auth(tokens[decider]),
                  json={"url": "https://hooks.example.org/a"})
    assert r.status_code == 200
    for path, body in (("moves", {"move": "end", "seat": decider}), ("undo", {"seat": decider})):
        r = httpx.post(f"{server.url}/api/games/{gid}/{path}", headers=auth(tokens[other]), json=body)
        assert is_api_error(r, 403), (path, r.text)
    r = httpx.put(f"{server.url}/api/games/{gid}/webhook", headers=auth(tokens[other]),
                  json={"url": "https://hooks.example.org/b", "seat": decider})
    assert is_api_error(r, 403)
    assert view(server, gid, tokens[other])["webhooks"] == {}
    assert view(server, gid, tokens[decider])["webhooks"] == {str(decider): "https://hooks.example.org/a"}
    v = view(server, gid, tokens[decider])
    text = next(m["text"] for m in v["legal"] if m["text"].startswith("place"))
    v = post_move(server, gid, tokens[decider], {"move": text, "version": 0}).json()
    assert v["log"][-1]["by"] == "seat"
    r = httpx.post(f"{server.url}/api/games/{gid}/undo", headers=auth(tokens[decider]), json={"version": 1})
    assert r.status_code == 200
    # a hot-seat game: one token for every human seat, no seat links
    h = create(server, [{"name": "Ada"}, {"name": "Bea"}, {"name": "Bot", "type": "bot", "bot": "random"}],
               seed=6, table=HOT)
    assert h["hotseat_token"] and all(s["token"] is None and s["url"] is None for s in h["seats"])
    assert sorted(view(server, h["id"], h["hotseat_token"])["you"]) == [0, 1]
    assert view(server, h["id"])["table"] == {"hints": True, "hotseat": True}
    play_random_moves(server, h["id"], h["hotseat_token"], 3)
    wait_for(lambda: any(e["by"] == "bot" for e in view(server, h["id"])["log"]) or view(server, h["id"])["version"] < 3)
    bys = {e["by"] for e in view(server, h["id"])["log"]}
    assert "hotseat" in bys
    server.stop()
    db = sqlite3.connect(sqlite_file(server))
    undos = db.execute("SELECT game_id, n, seat, actor, move FROM undos").fetchall()
    actors = db.execute("SELECT DISTINCT actor FROM moves WHERE game_id = ?", (h["id"],)).fetchall()
    db.close()
    assert undos == [(gid, 1, decider, "seat", text)]
    assert ("hotseat",) in actors


# ---------------------------------------------------------------------------------------------- 10. names


@pytest.mark.parametrize("raw, why", [
    ("\u200b\u200b", "invisible"),            # zero-width spaces only
    ("Ann\u200b", "invisible"),               # passes for "Ann"
    ("\u202eAnn", "invisible"),               # right-to-left override
    ("\ufeffAnn", "invisible"),               # byte-order mark
    ("Ann\U000e0041", "invisible"),           # a tag character
    ("\u3164", "invisible"),                  # Hangul filler
    ("\u2800\u2800", "invisible"),            # blank Braille pattern
    ("A\x07B", "invisible"),                  # a control character (BEL)
    ("\u0301\u0301", "a letter"),             # combining marks alone
    ("Ann\ue000", "invisible"),               # private use
])
def test_names_that_show_nothing_are_refused(raw: str, why: str) -> None:
    """Item 10: names made of invisible, control or format characters, or hiding them, are refused."""
    with pytest.raises(BadName, match=why):
        clean_name(raw, 30)


def test_names_are_normalized_and_compared_without_case() -> None:
    """Item 10: NFC, white space collapsed, emoji presentation kept; "ANN", "ann" and full-width "Ａｎｎ" are the
    same name."""
    assert clean_name("  A\u0301na   \u3000Li ", 30) == "\u00c1na Li"
    assert clean_name("A\u2028B", 30) == "A B"  # line and paragraph separators are white space
    assert clean_name("Bo \u2764\ufe0f", 30) == "Bo \u2764\ufe0f"
    assert name_key("ANN") == name_key("ann") == name_key("\uff21\uff4e\uff4e")
    with pytest.raises(BadName):
        clean_name("x" * 31, 30)


def test_the_server_refuses_such_names_and_same_names_in_a_game(make_server: Any) -> None:
    """Item 10 through the API: 400 in the documented format, nothing created."""
    server = make_server()
    before = len(httpx.get(server.url + "/api/games").json()["games"])
    for players in ([{"name": "Ann"}, {"name": "Ann\u200b"}], [{"name": "Ann"}, {"name": "ANN"}],
                    [{"name": "\u202e\u202e"}, {"name": "Bo"}], [{"name": "Ann"}, {"name": "Ann", "type": "bot"}]):
        r = httpx.post(server.url + "/api/games", json={"players": players})
        assert is_api_error(r, 400), r.text
    assert len(httpx.get(server.url + "/api/games").json()["games"]) == before
    g = new_game(server, [{"name": "A\u0301na"}, {"name": "Bo"}])
    assert view(server, g["id"])["players"][0]["name"] == "\u00c1na"


# ---------------------------------------------------------------------------------------------- 12. smaller points


def test_seat_sockets_count_against_a_cap_per_seat(make_server: Any) -> None:
    """Item 12: a seat's token may hold ``--ws-per-seat`` sockets on its game (default 4; players were admitted
    without bound); spectators are refused once the game has ``--ws-per-game`` sockets."""
    server = make_server("--ws-per-game", "6")
    g = new_game(server, [{"name": "Ada"}, {"name": "Bea"}])
    ws_url = server.url.replace("http", "ws") + f"/api/games/{g['id']}/ws"
    token = g["seats"][0]["token"]

    async def scenario() -> list[int | str]:
        opened = []
        outcomes: list[int | str] = []
        for protocols in [["hansa", "hansa.token." + token]] * 5 + [["hansa"]] * 3:
            try:
                opened.append(await websockets.connect(ws_url, subprotocols=protocols))  # type: ignore[arg-type]
                outcomes.append("open")
            except websockets.exceptions.InvalidStatus as exc:
                outcomes.append(exc.response.status_code)
        for ws in opened:
            await ws.close()
        return outcomes

    # the per-game cap counts every socket; players get in past it, up to their own cap
    assert run_coroutine(scenario()) == ["open"] * 4 + [429, "open", "open", 429]


def test_lobby_never_lists_a_damaged_game_as_running_after_a_restart(make_server: Any) -> None:
    """Item 12: right after a restart, with hundreds of stored games the background check has not reached yet, the
    lobby lists a damaged game as damaged (it said "running" until someone opened it)."""
    server = make_server()
    g = new_game(server, [{"name": "Ada"}, {"name": "Bea"}], seed=1)
    play_random_moves(server, g["id"], seat_tokens(g), 30)
    server.stop()
    db = sqlite3.connect(sqlite_file(server))
    columns = [row[1] for row in db.execute("PRAGMA table_info(games)")]
    move_columns = [row[1] for row in db.execute("PRAGMA table_info(moves)")]
    for i in range(600):  # copies of the game, each one second newer than the last
        game_id = f"c{i:05d}"
        values = ", ".join(
            "?" if c == "id" else (f"datetime(created_at, '+{i + 1} seconds')" if c == "created_at" else c)
            for c in columns
        )
        db.execute(f"INSERT INTO games ({', '.join(columns)}) SELECT {values} FROM games WHERE id = ?",
                   (game_id, g["id"]))
        move_values = ", ".join("?" if c == "game_id" else c for c in move_columns)
        db.execute(f"INSERT INTO moves ({', '.join(move_columns)}) SELECT {move_values} FROM moves WHERE game_id = ?",
                   (game_id, g["id"]))
    db.execute("UPDATE moves SET text = 'fly me to the moon' WHERE game_id = 'c00599' AND n = 9")
    db.commit()
    db.close()
    server.start()
    games = httpx.get(server.url + "/api/games", params={"limit": 5}).json()["games"]
    assert games[0]["id"] == "c00599"
    assert games[0]["status"] == "damaged" and "move 9" in games[0]["note"]
    assert [e["status"] for e in games[1:]] == ["running"] * 4
    r = httpx.get(f"{server.url}/api/games/c00599")
    assert is_api_error(r, 409)
    assert json.loads(httpx.get(f"{server.url}/api/games/c00598").text)["version"] == 30
