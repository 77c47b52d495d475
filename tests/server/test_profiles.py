"""The leaderboard and profile routes (hansa.server.profiles) on hand-made ratings: order, paging, the provisional
mark, a profile's fields, and the bounds of every parameter.  Real games (bot games through the API) give the
profiles their games; accounts, seats, ratings and rating events are written into the database by hand (the parts of
the club that write them in play are tested in test_ratings.py and the accounts' tests)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from server_support import Server
from sqlalchemy import insert
from test_ratings import bot_game, wait_over

from hansa.server.db import ACCOUNT_SEATS, ACCOUNTS, RATED_GAMES, RATING_EVENTS, RATINGS, make_engine, utcnow
from hansa.server.ratings import displayed

RATINGS_ROWS = {  # subject: mu, sigma, games, wins
    "account:1": (30.0, 2.0, 12, 5),  # Ada: 30 - 6 = 24
    "account:2": (28.0, 6.0, 3, 1),  # Bea: 10, provisional
    "account:3": (40.0, 1.0, 20, 15),  # Cy: deleted, not listed
    "bot:heuristic": (26.0, 1.0, 50, 10),  # 23
    "bot:random": (20.0, 1.0, 15, 0),  # 17
}


@pytest.fixture
def club(sqlite_server: Server) -> Iterator[tuple[Server, list[str]]]:
    server = sqlite_server
    games = [bot_game(server, 2, 31), bot_game(server, 3, 32), bot_game(server, 2, 33)]
    wait_over(server, games)
    eng = make_engine(server.database_url)
    now = utcnow()
    with eng.begin() as conn:
        conn.execute(insert(ACCOUNTS), [
            {"id": 1, "name": "Ada", "name_key": "ada", "created_at": now, "deleted_at": None},
            {"id": 2, "name": "Bea", "name_key": "bea", "created_at": now, "deleted_at": None},
            {"id": 3, "name": "deleted player", "name_key": "deleted:3", "created_at": now, "deleted_at": now},
        ])
        conn.execute(insert(ACCOUNT_SEATS), [
            {"game_id": games[0], "seat": 0, "account_id": 1, "created_at": now},
            {"game_id": games[0], "seat": 1, "account_id": 2, "created_at": now},
            {"game_id": games[1], "seat": 0, "account_id": 1, "created_at": now},
            {"game_id": games[1], "seat": 1, "account_id": 2, "created_at": now},
            {"game_id": games[2], "seat": 0, "account_id": 1, "created_at": now},
            {"game_id": games[2], "seat": 1, "account_id": 3, "created_at": now},
        ])
        conn.execute(insert(RATINGS), [
            {"subject": s, "mu": mu, "sigma": sigma, "games": g, "wins": w, "updated_at": now}
            for s, (mu, sigma, g, w) in RATINGS_ROWS.items()
        ])
        finishes = [  # game, subject, seat, place, players, mu after, sigma after
            (games[0], "account:1", 0, 1, 2, 27.0, 7.0), (games[0], "account:2", 1, 2, 2, 23.0, 7.0),
            (games[1], "account:1", 0, 2, 3, 26.5, 6.0), (games[1], "account:2", 1, 1, 3, 28.0, 6.0),
            (games[1], "bot:heuristic", 2, 3, 3, 26.0, 1.0),
            (games[2], "account:1", 0, 1, 2, 30.0, 2.0), (games[2], "account:3", 1, 2, 2, 40.0, 1.0),
        ]
        conn.execute(insert(RATING_EVENTS), [
            {"game_id": g, "subject": s, "seat": seat, "place": place, "players": n, "mu_before": 25.0,
             "sigma_before": 8.0, "mu_after": mu, "sigma_after": sigma, "rated_at": now}
            for g, s, seat, place, n, mu, sigma in finishes
        ])
        conn.execute(insert(RATED_GAMES), [{"game_id": g, "rated_at": now} for g in games])
    eng.dispose()
    yield server, games


def get(server: Server, path: str, **params: Any) -> httpx.Response:
    return httpx.get(server.url + path, params=params, timeout=10)


def test_leaderboard_order_paging_and_provisional(club: tuple[Server, list[str]]) -> None:
    server, _ = club
    board = get(server, "/api/leaderboard").json()
    who = [p.get("name") or p.get("bot") for p in board["players"]]
    assert who == ["Ada", "heuristic", "random", "Bea"]  # the deleted account is not listed
    assert board["total"] == 4 and board["offset"] == 0 and board["limit"] == 50
    ada = board["players"][0]
    assert ada == {"rank": 1, "kind": "account", "name": "Ada", "deleted": False, "rating": displayed(30.0, 2.0),
                   "mu": 30.0, "sigma": 2.0, "games": 12, "wins": 5, "provisional": False}
    assert [p["rank"] for p in board["players"]] == [1, 2, 3, 4]
    assert [p["provisional"] for p in board["players"]] == [False, False, False, True]
    assert [p["rating"] for p in board["players"]] == sorted((p["rating"] for p in board["players"]), reverse=True)
    page = get(server, "/api/leaderboard", limit=2, offset=1).json()
    assert [(p["rank"], p.get("name") or p.get("bot")) for p in page["players"]] == [(2, "heuristic"), (3, "random")]
    established = get(server, "/api/leaderboard", established="true").json()
    assert [p.get("name") or p.get("bot") for p in established["players"]] == ["Ada", "heuristic", "random"]
    assert established["total"] == 3
    assert get(server, "/api/leaderboard", offset=4).json()["players"] == []


def test_a_profile(club: tuple[Server, list[str]]) -> None:
    server, games = club
    r = get(server, "/api/players/ADA")  # names are looked up as the same name in any case
    assert r.status_code == 200, r.text
    p = r.json()
    assert p["kind"] == "account" and p["name"] == "Ada"
    assert p["rating"] == {"rating": displayed(30.0, 2.0), "mu": 30.0, "sigma": 2.0, "games": 12, "wins": 5,
                           "provisional": False, "rank": 1}
    assert [(h["game"], h["place"], h["players"], h["rating"]) for h in p["history"]] == [
        (games[0], 1, 2, displayed(27.0, 7.0)), (games[1], 2, 3, displayed(26.5, 6.0)),
        (games[2], 1, 2, displayed(30.0, 2.0)),
    ]
    assert p["by_map"] == [{"map": "base", "games": 3, "wins": 2, "share": 0.6667}]
    assert p["by_players"] == [{"players": 2, "games": 2, "wins": 2, "share": 1.0},
                               {"players": 3, "games": 1, "wins": 0, "share": 0.0}]
    assert p["opponents"] == [
        {"kind": "account", "name": "Bea", "deleted": False, "games": 2, "wins": 1, "losses": 1},
        {"kind": "account", "name": "deleted player", "deleted": True, "games": 1, "wins": 1, "losses": 0},
        {"kind": "bot", "bot": "heuristic", "games": 1, "wins": 1, "losses": 0},
    ]
    listed = p["games"]
    assert listed["total"] == 3
    assert {(g["id"], g["place"], g["seat"]) for g in listed["games"]} == {(games[0], 1, 0), (games[1], 2, 0),
                                                                          (games[2], 1, 0)}
    assert [g["created"] for g in listed["games"]] == sorted((g["created"] for g in listed["games"]), reverse=True)
    first = listed["games"][0]
    assert first["map"] == "base" and first["status"] == "over" and first["rated"] is False
    assert len(first["players"]) in (2, 3)
    page = get(server, "/api/players/ada/games", limit=1, offset=1).json()
    assert page["total"] == 3 and [g["id"] for g in page["games"]] == [listed["games"][1]["id"]]
    bea = get(server, "/api/players/Bea").json()
    assert bea["rating"]["provisional"] is True and bea["rating"]["rank"] == 4


def test_bot_profiles(club: tuple[Server, list[str]]) -> None:
    server, games = club
    h = get(server, "/api/bots/heuristic/profile").json()
    assert h["kind"] == "bot" and h["bot"] == "heuristic" and h["rating"]["rank"] == 2
    assert [(x["game"], x["place"]) for x in h["history"]] == [(games[1], 3)]
    assert [(o["name"], o["games"], o["wins"], o["losses"]) for o in h["opponents"]] == [("Ada", 1, 0, 1),
                                                                                         ("Bea", 1, 0, 1)]
    assert [(g["id"], g["seat"], g["place"]) for g in h["games"]["games"]] == [(games[1], 2, 3)]
    assert get(server, "/api/bots/heuristic/games", limit=1).json()["total"] == 1
    unrated = get(server, "/api/bots/mcts:hard/profile").json()
    assert unrated["rating"] is None and unrated["history"] == [] and unrated["opponents"] == []


def is_error(r: httpx.Response, status: int) -> bool:
    body = r.json()
    return r.status_code == status and set(body) == {"error", "rule"} and isinstance(body["error"], str)


def test_bounds_and_unknown_players(club: tuple[Server, list[str]]) -> None:
    server, _ = club
    for params in ({"limit": 0}, {"limit": 101}, {"limit": "x"}, {"offset": -1}, {"offset": 100_001},
                   {"established": "maybe"}):
        assert is_error(get(server, "/api/leaderboard", **params), 400), params
        assert is_error(get(server, "/api/players/Ada/games", **params), 400) or "established" in params
        assert is_error(get(server, "/api/bots/heuristic/games", **params), 400) or "established" in params
    assert get(server, "/api/leaderboard", limit=100, offset=100_000).status_code == 200
    for path in ("/api/players/nobody", "/api/players/deleted%20player", "/api/players/" + "x" * 201,
                 "/api/players/nobody/games", "/api/bots/genius/profile", "/api/bots/genius/games",
                 "/api/bots/" + "x" * 300 + "/profile"):
        assert is_error(get(server, path), 404), path
    assert "bots are" in get(server, "/api/bots/genius/profile").json()["error"]
