"""Ratings (hansa.server.ratings): the rating math against openskill's own results, places of real finishes, and
every finished rated game rated exactly once: by a real `hansa serve` (SQLite and PostgreSQL), by two processes on
one PostgreSQL database, and across a ``kill -9`` of a process in the middle of rating a game.

Rated games come from open tables of accounts, which another part of the club makes.  Until that exists these
tests make them the only other way: bot games created through the API (heuristic bots play a game to its end in a
second or so), then marked rated in the database, with some seats given to accounts inserted there (what a table
would have written when it started the game)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy
from openskill.models import PlackettLuce
from server_support import POSTGRES_URL, Server, postgres_database
from sqlalchemy import insert, select, update

from hansa.bots import make_bot
from hansa.core.scoring import final_scores, winners
from hansa.game import Game
from hansa.server.db import (
    ACCOUNT_SEATS,
    ACCOUNTS,
    GAMES,
    RATED_GAMES,
    RATING_EVENTS,
    RATINGS,
    make_engine,
    migrate,
    utcnow,
)
from hansa.server.ratings import (
    PROVISIONAL_GAMES,
    Rating,
    apply_finish,
    displayed,
    outcomes,
    places,
    provisional,
)

# ------------------------------------------------------------------------------------------------ the math


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[sqlalchemy.Engine]:
    eng = make_engine(f"sqlite:///{tmp_path / 'r.sqlite3'}")
    migrate(eng)
    yield eng
    eng.dispose()


def stored(eng: sqlalchemy.Engine) -> dict[str, tuple[float, float, int, int]]:
    with eng.connect() as conn:
        return {r.subject: (r.mu, r.sigma, r.games, r.wins) for r in conn.execute(select(RATINGS))}


def seed_rating(eng: sqlalchemy.Engine, subject: str, mu: float, sigma: float, games: int, wins: int) -> None:
    with eng.begin() as conn:
        conn.execute(insert(RATINGS).values(subject=subject, mu=mu, sigma=sigma, games=games, wins=wins,
                                            updated_at=utcnow()))


FINISHES = [
    # (places by seat, established players: seat -> (mu, sigma))
    ([1, 2], {}),
    ([2, 1], {0: (31.0, 3.1)}),
    ([1, 1], {1: (20.5, 6.0)}),  # a shared win of two
    ([1, 2, 3], {}),
    ([1, 1, 3], {0: (27.0, 4.0), 2: (22.0, 2.5)}),  # shared first
    ([3, 1, 2, 4], {1: (18.0, 5.5)}),
    ([1, 2, 2, 4], {0: (30.0, 2.0), 1: (25.0, 8.0), 3: (21.0, 3.0)}),  # shared middle
    ([1, 2, 3, 4, 5], {}),
    ([5, 4, 3, 2, 1], {0: (35.0, 1.5), 4: (15.0, 7.0)}),
    ([1, 3, 3, 1, 5], {2: (26.0, 4.4)}),  # five players, two ties
    ([2, 2, 2, 2, 1], {}),
]


@pytest.mark.parametrize(("ranks", "known"), FINISHES)
def test_a_finish_is_rated_as_openskill_rates_it(engine: sqlalchemy.Engine, ranks: list[int],
                                                 known: dict[int, tuple[float, float]]) -> None:
    subjects = [f"account:{i + 1}" for i in range(len(ranks))]
    for seat, (mu, sigma) in known.items():
        seed_rating(engine, subjects[seat], mu, sigma, 12, 3)
    model = PlackettLuce()
    teams = [[model.rating(*known[i]) if i in known else model.rating()] for i in range(len(ranks))]
    expected = model.rate(teams, ranks=ranks)

    assert apply_finish(engine, "G1", subjects, ranks)
    after = stored(engine)
    for seat, subject in enumerate(subjects):
        mu, sigma, games, wins = after[subject]
        assert (mu, sigma) == (expected[seat][0].mu, expected[seat][0].sigma)
        assert games == (13 if seat in known else 1)
        assert wins == (3 if seat in known else 0) + (1 if ranks[seat] == 1 else 0)
    with engine.connect() as conn:
        events = {e.subject: e for e in conn.execute(select(RATING_EVENTS).where(RATING_EVENTS.c.game_id == "G1"))}
    assert len(events) == len(ranks)
    for seat, subject in enumerate(subjects):
        e = events[subject]
        assert (e.seat, e.place, e.players) == (seat, ranks[seat], len(ranks))
        assert (e.mu_before, e.sigma_before) == (known.get(seat, (model.mu, model.sigma)))
        assert (e.mu_after, e.sigma_after) == after[subject][:2]


def test_a_game_is_rated_once(engine: sqlalchemy.Engine) -> None:
    assert apply_finish(engine, "G1", ["account:1", "bot:heuristic", "account:2"], [2, 1, 3])
    first = stored(engine)
    assert not apply_finish(engine, "G1", ["account:1", "bot:heuristic", "account:2"], [1, 2, 3])
    assert stored(engine) == first
    with engine.connect() as conn:
        assert conn.execute(select(sqlalchemy.func.count()).select_from(RATING_EVENTS)).scalar() == 3
        assert conn.execute(select(sqlalchemy.func.count()).select_from(RATED_GAMES)).scalar() == 1
    # a second game carries on from the first's ratings
    assert apply_finish(engine, "G2", ["bot:heuristic", "account:1"], [1, 2])
    model = PlackettLuce()
    h, a = first["bot:heuristic"], first["account:1"]
    new = model.rate([[model.rating(h[0], h[1])], [model.rating(a[0], a[1])]], ranks=[1, 2])
    now = stored(engine)
    assert now["bot:heuristic"] == (new[0][0].mu, new[0][0].sigma, 2, 2)
    assert now["account:1"] == (new[1][0].mu, new[1][0].sigma, 2, 0)


def test_a_bot_level_on_several_seats_gets_the_mean_of_its_seats() -> None:
    model = PlackettLuce()
    human = Rating(27.0, 5.0, 4, 1)
    out = outcomes(["bot:random", "account:7", "bot:random"], [3, 1, 2], {"account:7": human})
    new = model.rate([[model.rating()], [model.rating(27.0, 5.0)], [model.rating()]], ranks=[3, 1, 2])
    assert [(o.subject, o.seat, o.place) for o in out] == [("bot:random", 2, 2), ("account:7", 1, 1)]
    bot, acc = out
    assert bot.after.mu == pytest.approx((new[0][0].mu + new[2][0].mu) / 2, abs=1e-12)
    assert bot.after.sigma == pytest.approx((new[0][0].sigma + new[2][0].sigma) / 2, abs=1e-12)
    assert (bot.after.games, bot.after.wins) == (1, 0)
    assert (acc.after.mu, acc.after.sigma, acc.after.games, acc.after.wins) == (
        new[1][0].mu, new[1][0].sigma, 5, 2)


def test_places_winners_first_then_totals_with_shared_places() -> None:
    assert places([40, 55, 31], [1]) == [2, 1, 3]
    assert places([50, 50, 31, 31], [0, 1]) == [1, 1, 3, 3]  # a shared win, a shared third place
    assert places([50, 50, 31], [1]) == [2, 1, 3]  # seat 0 lost the tie-break: after the winner
    assert places([50, 50, 50, 12, 50], [2]) == [2, 2, 1, 5, 2]
    assert places([7, 9, 9, 8, 1], [1, 2]) == [4, 1, 1, 3, 5]


@pytest.mark.parametrize(("players", "seed", "options"), [(2, 3, {}), (3, 11, {"map": "east"}), (5, 7, {})])
def test_places_of_a_real_finish(players: int, seed: int, options: dict[str, Any]) -> None:
    game = Game([f"P{i}" for i in range(players)], seed=seed, options=options)
    bots = [make_bot("heuristic", seed=i) for i in range(players)]
    while not game.state.is_over:
        game.play(bots[game.state.decider].choose(game.state))
    scores = final_scores(game.state)
    won = winners(game.state, scores)
    got = places([s.total for s in scores], won)
    totals = [s.total for s in scores]
    assert sorted(i for i, p in enumerate(got) if p == 1) == sorted(won)
    for i in range(players):
        for j in range(players):
            if i not in won and j not in won:
                assert (got[i] < got[j]) == (totals[i] > totals[j])
                assert (got[i] == got[j]) == (totals[i] == totals[j])
            if i in won and j not in won:
                assert got[i] < got[j] and totals[i] >= totals[j]
        assert got[i] == 1 + sum(1 for j in range(players) if got[j] < got[i])


def test_displayed_rating_and_provisional_mark() -> None:
    model = PlackettLuce()
    assert displayed(model.mu, model.sigma) == 1000  # a new player
    assert displayed(25.0, 2.0) == round(24 * (25.0 - 6.0) + 1000)
    assert displayed(30.0, 2.0) > displayed(30.0, 3.0) > displayed(29.0, 3.0)
    assert provisional(0) and provisional(PROVISIONAL_GAMES - 1) and not provisional(PROVISIONAL_GAMES)


# ------------------------------------------------------------------------------------------- real servers

SEATS = (2, 3, 4, 5, 3)


def bot_game(server: Server, players: int, seed: int) -> str:
    body = {"players": [{"name": f"B{i}", "type": "bot", "bot": "heuristic"} for i in range(players)], "seed": seed}
    r = httpx.post(server.url + "/api/games", json=body, timeout=10)
    assert r.status_code == 201, r.text
    return str(r.json()["id"])


def wait_over(server: Server, ids: list[str], timeout: float = 60.0) -> dict[str, dict[str, Any]]:
    """The final views of the games (each must end ``over``)."""
    views: dict[str, dict[str, Any]] = {}
    deadline = time.time() + timeout
    while len(views) < len(ids):
        assert time.time() < deadline, f"games not over: {set(ids) - set(views)}"
        for gid in ids:
            if gid not in views:
                v = httpx.get(f"{server.url}/api/games/{gid}", timeout=10).json()
                assert v["status"] in ("running", "over"), v["status"]
                if v["status"] == "over":
                    views[gid] = v
        time.sleep(0.1)
    return views


def add_accounts(eng: sqlalchemy.Engine, names: list[str]) -> list[int]:
    with eng.begin() as conn:
        return [int(conn.execute(insert(ACCOUNTS).values(name=n, name_key=n.casefold(), created_at=utcnow())
                                 .returning(ACCOUNTS.c.id)).scalar_one()) for n in names]


def mark_rated(eng: sqlalchemy.Engine, gid: str, accounts: list[int | None]) -> None:
    """What an open table of accounts and bots writes: seat ``i`` played by ``accounts[i]`` (None: the bot stays),
    the account seats indexed, the game rated."""
    with eng.begin() as conn:
        players = conn.execute(select(GAMES.c.players).where(GAMES.c.id == gid)).scalar_one()
        for seat, account in enumerate(accounts):
            if account is not None:
                players[seat] = {**players[seat], "type": "human", "bot": None, "account": account}
                conn.execute(insert(ACCOUNT_SEATS).values(game_id=gid, seat=seat, account_id=account,
                                                          created_at=utcnow()))
        conn.execute(update(GAMES).where(GAMES.c.id == gid).values(players=players, rated=True))


def subjects_of(eng: sqlalchemy.Engine, gid: str) -> list[str]:
    with eng.connect() as conn:
        players = conn.execute(select(GAMES.c.players).where(GAMES.c.id == gid)).scalar_one()
    return [f"account:{p['account']}" if p.get("account") is not None else f"bot:{p['bot']}" for p in players]


def expected_places(view: dict[str, Any]) -> list[int]:
    """The documented places, from the game's own final result: winners first, then by total, ties shared."""
    result = view["state"]["result"]
    totals = [s["total"] for s in result["scores"]]
    won = result["winners"]

    def ahead(i: int, j: int) -> bool:  # does j finish ahead of i?
        return j in won and i not in won or (j in won) == (i in won) and totals[j] > totals[i]

    return [1 + sum(1 for j in range(len(totals)) if ahead(i, j)) for i in range(len(totals))]


def wait_rated(eng: sqlalchemy.Engine, count: int, timeout: float = 60.0) -> None:
    deadline = time.time() + timeout
    while True:
        with eng.connect() as conn:
            done = conn.execute(select(sqlalchemy.func.count()).select_from(RATED_GAMES)).scalar_one()
        if done >= count:
            return
        assert time.time() < deadline, f"{done} of {count} games rated"
        time.sleep(0.1)


def check_rated_once(eng: sqlalchemy.Engine, views: dict[str, dict[str, Any]]) -> None:
    """Every game rated exactly once, and the stored ratings equal openskill's, applied to the same finishes one
    after the other in the order the games were rated."""
    with eng.connect() as conn:
        rated = [r[0] for r in conn.execute(select(RATED_GAMES.c.game_id))]
        events = list(conn.execute(select(RATING_EVENTS).order_by(RATING_EVENTS.c.id)))
        ratings = {r.subject: r for r in conn.execute(select(RATINGS))}
    assert sorted(rated) == sorted(views)
    order = list(dict.fromkeys(e.game_id for e in events))
    assert sorted(order) == sorted(views)
    model = PlackettLuce()
    now: dict[str, Any] = {}
    games: dict[str, int] = {}
    wins: dict[str, int] = {}
    for gid in order:
        subjects = subjects_of(eng, gid)
        assert len(set(subjects)) == len(subjects)  # these tests seat distinct players
        mine = [e for e in events if e.game_id == gid]
        assert sorted(e.subject for e in mine) == sorted(subjects)
        ranks = expected_places(views[gid])
        assert {e.subject: e.place for e in mine} == dict(zip(subjects, ranks, strict=True))
        new = model.rate([[now.get(s, model.rating())] for s in subjects], ranks=ranks)
        for s, team, rank in zip(subjects, new, ranks, strict=True):
            now[s] = team[0]
            games[s] = games.get(s, 0) + 1
            wins[s] = wins.get(s, 0) + (rank == 1)
    assert set(ratings) == set(now)
    for s, r in ratings.items():
        assert (r.mu, r.sigma, r.games, r.wins) == (now[s].mu, now[s].sigma, games[s], wins[s]), s


def rated_games(server: Server, eng: sqlalchemy.Engine, seats: tuple[int, ...]) -> dict[str, dict[str, Any]]:
    """Finished bot games made rated: every seat but the last played by one of six accounts (the last stays
    ``heuristic``)."""
    ids = [bot_game(server, n, seed=100 + k) for k, n in enumerate(seats)]
    views = wait_over(server, ids)
    accounts = add_accounts(eng, ["Ada", "Bea", "Cy", "Dag", "Eve", "Fay"])
    for k, gid in enumerate(ids):
        n = seats[k]
        chosen: list[int | None] = [accounts[(k + i) % len(accounts)] for i in range(n - 1)]
        mark_rated(eng, gid, [*chosen, None])
    return views


def test_a_server_rates_each_finished_rated_game_once(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    for backend in ("sqlite", "postgresql"):
        if backend == "postgresql" and not POSTGRES_URL:
            continue
        url = postgres_database() if backend == "postgresql" else f"sqlite:///{tmp_path / 'once.sqlite3'}"
        server = Server(url, tmp_path / f"{backend}.log", "--rating-interval", "0.2")
        server.start()
        eng = make_engine(url)
        try:
            unrated = bot_game(server, 2, seed=9)  # over, but not rated: never rated
            views = rated_games(server, eng, SEATS)
            wait_over(server, [unrated])
            wait_rated(eng, len(SEATS))
            server.restart()  # the restart's first look finds nothing to do
            time.sleep(0.5)
            check_rated_once(eng, views)
            with eng.connect() as conn:
                assert conn.execute(select(RATED_GAMES).where(RATED_GAMES.c.game_id == unrated)).first() is None
                assert sum(r.games for r in conn.execute(select(RATINGS))) == sum(SEATS)
            stats = httpx.get(server.url + "/api/stats").json()
            assert stats["ratings_applied"] == 0 and stats["ratings_failed"] == 0
        finally:
            server.stop()
            eng.dispose()


@pytest.mark.skipif(not POSTGRES_URL, reason="HANSA_TEST_POSTGRES_URL is not set")
def test_two_processes_and_a_kill_in_the_middle_rate_each_game_once(tmp_path: Path) -> None:
    """Two processes on one PostgreSQL database rate the same games; one is killed (-9) while it is inside a
    game's rating transaction (held there by a row lock the test takes on the ratings), and restarted."""
    url = postgres_database()
    a = Server(url, tmp_path / "a.log", "--rating-interval", "0.1", "--create-per-minute", "100")
    b = Server(url, tmp_path / "b.log", "--rating-interval", "0.1")
    eng = make_engine(url)
    a.start()
    try:
        seats = (2, 3, 4, 5, 2, 3, 4, 5, 3, 4)
        ids = [bot_game(a, n, seed=200 + k) for k, n in enumerate(seats)]
        views = wait_over(a, ids)
        accounts = add_accounts(eng, ["Ada", "Bea", "Cy", "Dag", "Eve", "Fay"])
        chosen = [[accounts[(k + i) % 6] for i in range(n - 1)] + [None] for k, n in enumerate(seats)]
        mark_rated(eng, ids[0], chosen[0])
        wait_rated(eng, 1)
        with eng.connect() as holder:
            holder.execute(select(RATINGS.c.subject).with_for_update())  # A's next update of a rating waits here
            for gid, who in zip(ids[1:], chosen[1:], strict=True):
                mark_rated(eng, gid, who)
            deadline = time.time() + 30
            while True:
                with eng.connect() as conn:  # (a transaction sees one snapshot of pg_stat_activity)
                    waiting = conn.execute(sqlalchemy.text(
                        "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                        "AND query LIKE 'UPDATE ratings%'"
                    )).scalar_one()
                if waiting:
                    break
                assert time.time() < deadline, "the rating transaction never reached the ratings"
                time.sleep(0.05)
            with eng.connect() as conn:  # the game being rated has no committed rated_games row
                assert conn.execute(select(sqlalchemy.func.count()).select_from(RATED_GAMES)).scalar_one() == 1
            a.kill()
            b.start()  # waits for the killed transaction's advisory lock
            holder.rollback()
        a.start()
        wait_rated(eng, len(ids))
        time.sleep(0.5)
        check_rated_once(eng, views)
        applied = [httpx.get(s.url + "/api/stats").json()["ratings_applied"] for s in (a, b)]
        assert sum(applied) == len(ids) - 1  # the first game was rated by A before it was killed
    finally:
        a.stop()
        b.stop()
        eng.dispose()
