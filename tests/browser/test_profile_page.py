"""Browser tests of the leaderboard (/leaderboard) and the profiles (/player/NAME, /bot/SPEC) with real ratings:
bot games played to the end by the server, then made rated games of accounts in the database (what an open table of
accounts writes), rated by the server's rating keeper; the pages must show those ratings, the history chart's
points, the games, the win shares and the opponents.  Also the empty and unknown states, paging, and a phone in
Czech."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy
from browser_support import CHROMIUM, SCREENSHOTS, Server
from sqlalchemy import func, insert, select, update
from test_no_english import EnglishChecker, english_on, proper_names

from hansa.server.db import ACCOUNT_SEATS, ACCOUNTS, GAMES, RATED_GAMES, RATINGS, utcnow

pytest.importorskip("playwright.sync_api", reason="the Python playwright package is not installed")
pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"browser tests need Debian chromium at {CHROMIUM}")

DESKTOP = {"width": 1280, "height": 800}
I18N = Path(__file__).resolve().parents[2] / "src" / "hansa" / "server" / "static" / "i18n"
EN = json.loads((I18N / "en.json").read_text(encoding="utf-8"))
CS = json.loads((I18N / "cs.json").read_text(encoding="utf-8"))
OVERFLOW = "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"


def shot(page: Any, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"club-{name}.png"), full_page=True)


def bot_game(server: Server, players: int, seed: int) -> str:
    players_in = [{"name": f"B{i}", "type": "bot", "bot": "heuristic"} for i in range(players)]
    return str(server.call("POST", "/api/games", {"players": players_in, "seed": seed})["id"])


def wait_over(server: Server, ids: list[str], timeout: float = 120.0) -> None:
    deadline = time.time() + timeout
    left = set(ids)
    while left:
        assert time.time() < deadline, f"games not over: {left}"
        for gid in list(left):
            status = server.call("GET", f"/api/games/{gid}")["status"]
            assert status in ("running", "over"), status
            if status == "over":
                left.discard(gid)
        time.sleep(0.2)


def mark_rated(eng: sqlalchemy.Engine, gid: str, accounts: list[tuple[int, str] | None]) -> None:
    """What an open table of accounts and bots writes: seat ``i`` played by the account ``accounts[i]`` (id, name;
    None: the bot stays), the account seats indexed, the game rated (as tests/server/test_ratings.py does)."""
    with eng.begin() as conn:
        players = conn.execute(select(GAMES.c.players).where(GAMES.c.id == gid)).scalar_one()
        for seat, account in enumerate(accounts):
            if account is not None:
                players[seat] = {**players[seat], "name": account[1], "type": "human", "bot": None, "account": account[0]}
                conn.execute(insert(ACCOUNT_SEATS).values(game_id=gid, seat=seat, account_id=account[0], created_at=utcnow()))
        conn.execute(update(GAMES).where(GAMES.c.id == gid).values(players=players, rated=True))


def wait_rated(eng: sqlalchemy.Engine, ids: list[str], timeout: float = 30.0) -> None:
    deadline = time.time() + timeout
    while True:
        with eng.connect() as conn:
            done = conn.execute(select(func.count()).select_from(RATED_GAMES).where(RATED_GAMES.c.game_id.in_(ids))).scalar_one()
        if done == len(ids):
            return
        assert time.time() < deadline, f"{done} of {len(ids)} games rated"
        time.sleep(0.1)


@pytest.fixture(scope="module")
def club(club_server: Server) -> dict[str, Any]:
    """Ada played three rated games (one against Bea and the heuristic bot), Bea two, the heuristic bot two; and 55
    established players rated below them, so that the leaderboard has two pages."""
    eng = sqlalchemy.create_engine(f"sqlite:///{club_server.db}")
    ada = (club_server.call("POST", "/api/account/signup", {"name": "Ada", "password": "ada's password"})["account"]["id"], "Ada")
    bea = (club_server.call("POST", "/api/account/signup", {"name": "Bea", "password": "bea's password"})["account"]["id"], "Bea")
    games = [bot_game(club_server, 2, 11), bot_game(club_server, 3, 12), bot_game(club_server, 2, 13)]
    wait_over(club_server, games)
    for gid, seats in zip(games, [[ada, None], [ada, bea, None], [bea, ada]], strict=True):
        mark_rated(eng, gid, seats)
    wait_rated(eng, games)
    with eng.begin() as conn:
        for i in range(55):
            aid = conn.execute(insert(ACCOUNTS).values(name=f"Pager{i:02d}", name_key=f"pager{i:02d}", created_at=utcnow())
                               .returning(ACCOUNTS.c.id)).scalar_one()
            conn.execute(insert(RATINGS).values(subject=f"account:{aid}", mu=-10.0 + i / 10, sigma=2.0, games=12, wins=3,
                                                updated_at=utcnow()))
    eng.dispose()
    return {"games": games}


def test_a_profile_with_rated_games(new_page: Any, club_server: Server, club: dict[str, Any]) -> None:
    ada = club_server.call("GET", "/api/players/Ada")
    assert len(ada["history"]) == 3 and ada["rating"]["provisional"]
    page = new_page(viewport=DESKTOP)
    page.goto(club_server.base + "/player/Ada")
    page.wait_for_selector("body[data-ready='1']")
    assert page.locator("#pf-name").text_content() == "Ada"
    assert page.title() == "Ada — hansa"
    rating = page.locator("#pf-rating .rating")
    assert rating.text_content() == f"{ada['rating']['rating']}?"
    assert rating.get_attribute("title") == EN["club.provisional"]
    assert page.locator("#pf-rank").text_content() == f"#{ada['rating']['rank']}"
    assert page.locator("#pf-rated-games").text_content() == "3"
    assert page.locator("#pf-wins").text_content() == str(ada["rating"]["wins"])
    assert page.locator("#pf-since").text_content().startswith("Member since ")
    assert page.locator("#pf-new").is_hidden()

    # The chart: a point per rated game, each a link to its replay, at the ratings of the history.
    points = page.locator("svg.rating-chart circle.point")
    assert points.count() == 3
    assert [points.nth(i).get_attribute("data-game") for i in range(3)] == [h["game"] for h in ada["history"]]
    titles = [points.nth(i).locator("title").text_content() for i in range(3)]
    for title, h in zip(titles, ada["history"], strict=True):
        assert f": {h['rating']} " in title and f"place {h['place']} of {h['players']}" in title
    assert page.locator("svg.rating-chart a").first.get_attribute("href") == f"/replay/{ada['history'][0]['game']}"

    # Win shares by map and by player count, as the server counts them.
    by_players = page.locator("#pf-by-players tbody tr")
    assert by_players.count() == len(ada["by_players"])
    assert by_players.first.locator("th").text_content() == f"{ada['by_players'][0]['players']} players"
    assert page.locator("#pf-by-map tbody tr th").first.text_content() == EN["map.base"]

    # Favourite opponents: Bea (an account) and the heuristic bot, each a link to its profile.
    opponents = page.locator("#pf-opp-list li")
    assert opponents.count() == len(ada["opponents"]) == 2
    assert page.locator("#pf-opp-list a[href='/player/Bea']").count() == 1
    bot = page.locator("#pf-opp-list a[href='/bot/heuristic']")
    assert bot.locator(".bot-mark").text_content() == "bot"

    # The games: each links to its replay (they are over), Ada's own name marked.
    items = page.locator("#pf-game-list .pf-game")
    assert items.count() == 3
    assert {items.nth(i).get_attribute("data-id") for i in range(3)} == set(club["games"])
    first = items.first
    assert first.locator("a.btn").get_attribute("href") == f"/replay/{first.get_attribute('data-id')}"
    assert first.locator(".rated-tag").text_content() == EN["club.rated"]
    assert first.locator(".pname.me").text_content() == "Ada"
    assert page.locator("#pf-games .pager").is_hidden()  # one page only
    shot(page, "profile-desktop")

    # To an opponent's profile, then the bot level's.
    page.locator("#pf-opp-list a[href='/player/Bea']").click()
    page.wait_for_selector("body[data-ready='1']")
    assert page.locator("#pf-name").text_content() == "Bea"
    assert page.locator("svg.rating-chart circle.point").count() == 2
    page.goto(club_server.base + "/bot/heuristic")
    page.wait_for_selector("body[data-ready='1']")
    heuristic = club_server.call("GET", "/api/bots/heuristic/profile")
    assert page.locator("#pf-name .bot-mark").count() == 1
    assert page.locator("#pf-name").text_content() == "bot Bot heuristic"
    assert page.locator("#pf-rating .rating").text_content().rstrip("?") == str(heuristic["rating"]["rating"])
    assert page.locator("svg.rating-chart circle.point").count() == len(heuristic["history"]) == 2


def test_new_and_unknown_players(new_page: Any, club_server: Server, club: dict[str, Any]) -> None:
    club_server.call("POST", "/api/account/signup", {"name": "Newbie", "password": "newbie's password"})
    page = new_page(viewport=DESKTOP)
    page.goto(club_server.base + "/player/newbie")  # any case finds the account
    page.wait_for_selector("body[data-ready='1']")
    assert page.locator("#pf-name").text_content() == "Newbie"
    assert page.locator("#pf-new").is_visible()
    assert page.locator("#pf-new-text").text_content() == EN["club.noRatedText"]
    assert page.locator("#pf-rating").text_content() == "—"
    assert page.locator("#pf-history").is_hidden() and page.locator("#pf-opponents").is_hidden()
    assert page.locator("#pf-game-list").text_content() == EN["club.noGames"]
    shot(page, "profile-new-desktop")
    page.goto(club_server.base + "/player/Nobody%20Here")
    page.wait_for_selector("body[data-ready='1']")
    assert page.locator("#pf-missing").is_visible()
    assert page.locator("#pf-missing h1").text_content() == EN["club.noSuchPlayer"]
    assert page.locator("#pf-card").is_hidden()
    shot(page, "profile-missing-desktop")


def test_the_leaderboard(new_page: Any, club_server: Server, club: dict[str, Any]) -> None:
    board = club_server.call("GET", "/api/leaderboard?limit=50")
    page = new_page(viewport=DESKTOP)
    page.goto(club_server.base + "/")
    page.locator("#leaderboard-link").click()
    page.wait_for_selector("body[data-ready='1']")
    rows = page.locator("table.leaderboard tbody tr")
    assert rows.count() == 50
    assert page.locator("#lb-range").text_content() == f"1–50 of {board['total']}"
    for i, p in enumerate(board["players"][:6]):
        row = rows.nth(i)
        assert row.locator("td.rank").text_content() == str(p["rank"])
        mark = "?" if p["provisional"] else ""
        assert row.locator(".rating").text_content() == f"{p['rating']}{mark}"
        if p["kind"] == "bot":
            assert row.locator("a.who").get_attribute("href") == f"/bot/{p['bot']}"
            assert row.locator(".bot-mark").count() == 1
        else:
            assert row.locator("a.who").get_attribute("href") == f"/player/{p['name']}"
    ada = rows.filter(has=page.locator("a[href='/player/Ada']"))
    assert ada.locator(".prov-mark").count() == 1
    assert ada.locator(".rating").get_attribute("title") == EN["club.provisional"]
    assert ada.locator("td").nth(3).text_content() == "3"
    shot(page, "leaderboard-desktop")

    # The second page, kept in the address.
    page.locator("#lb-next").click()
    page.wait_for_function("() => document.querySelector('#lb-range').textContent.startsWith('51')")
    assert rows.count() == board["total"] - 50
    assert "page=2" in page.url
    assert page.locator("#lb-next").is_disabled() and page.locator("#lb-prev").is_enabled()

    # Established players only: no provisional rating, the first page again.
    page.locator("#established").check()
    page.wait_for_function("() => document.querySelector('#lb-range').textContent.startsWith('1–')")
    established = club_server.call("GET", "/api/leaderboard?limit=50&established=true")
    assert page.locator("#lb-range").text_content() == f"1–{min(50, established['total'])} of {established['total']}"
    assert page.locator("table.leaderboard .prov-mark").count() == 0
    assert page.locator("table.leaderboard a[href='/player/Ada']").count() == 0
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    assert page.locator("#established").is_checked()


def test_profile_and_leaderboard_on_a_phone_in_czech(new_page: Any, club_server: Server, club: dict[str, Any]) -> None:
    checker = EnglishChecker("cs", proper_names(club_server) | {"Ada", "Bea"})
    page = new_page(phone=True)
    page.add_init_script("localStorage.setItem('hansa.lang', 'cs')")
    page.goto(club_server.base + "/player/Ada")
    page.wait_for_selector("body[data-ready='1']")
    assert page.locator("#pf-history h2").text_content() == CS["club.history"]
    assert page.locator("svg.rating-chart circle.point").count() == 3
    assert page.evaluate(OVERFLOW) <= 0
    assert not english_on(page, checker), english_on(page, checker)
    shot(page, "profile-phone-cs")
    page.goto(club_server.base + "/leaderboard")
    page.wait_for_selector("body[data-ready='1']")
    assert page.locator("table.leaderboard thead th").nth(2).text_content() == CS["club.rating"]
    assert page.evaluate(OVERFLOW) <= 0
    assert not english_on(page, checker), english_on(page, checker)
    shot(page, "leaderboard-phone-cs")
