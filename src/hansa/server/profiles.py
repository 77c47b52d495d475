"""The leaderboard and the players' profiles: reads of the ratings (hansa.server.ratings) and of the games the
accounts played, with their API routes (``GET /api/leaderboard``, ``/api/players/{name}``, ``/api/bots/{spec}/profile``; docs/api.md).

Every answer is made of a few indexed reads; no game is replayed.  A profile's statistics (win share by map and by
player count, favourite opponents, rating history) count rated games that ended ``over``, from ``rating_events``; its
list of games is every game the account played (``account_seats``), rated or not.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Query
from sqlalchemy import String, and_, case, cast, func, literal, or_, select
from sqlalchemy.engine import Connection, Engine

from .db import ACCOUNT_SEATS, ACCOUNTS, GAMES, RATING_EVENTS, RATINGS
from .errors import ServiceError, StrictRoute
from .names import name_key
from .ratings import PROVISIONAL_GAMES, account_subject, bot_subject, displayed, provisional
from .store import map_of_row

#: Leaderboard rows and games one request may ask for.
MAX_PAGE = 100
#: Highest offset of a page (deeper pages are refused: 400).
MAX_OFFSET = 100_000
#: Rating history points a profile holds at most (the most recent ones).
MAX_HISTORY = 500
#: Favourite opponents a profile lists.
OPPONENTS = 10
#: Games on a profile's first page.
PROFILE_GAMES = 20
#: Longest player name the routes look up (names are at most 80 characters when stored).
MAX_NAME = 200
#: The query parameters of a page (module-level: FastAPI resolves the routes' annotations in this module).
Limit = Annotated[int, Query(ge=1, le=MAX_PAGE)]
Offset = Annotated[int, Query(ge=0, le=MAX_OFFSET)]


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat() + "Z"


def _ordinal() -> Any:
    """The displayed rating's order in SQL (``mu - 3 sigma``; the display scale keeps the order)."""
    return RATINGS.c.mu - 3 * RATINGS.c.sigma


def _account_of_subject() -> Any:
    return literal("account:", String).concat(cast(ACCOUNTS.c.id, String))


def _listed() -> Any:
    """Subjects shown on the leaderboard: bot levels, and accounts not deleted."""
    return or_(RATINGS.c.subject.like("bot:%"), and_(ACCOUNTS.c.id.is_not(None), ACCOUNTS.c.deleted_at.is_(None)))


def _board_from() -> Any:
    return RATINGS.outerjoin(ACCOUNTS, _account_of_subject() == RATINGS.c.subject)


def _rating_json(mu: float, sigma: float, games: int, wins: int) -> dict[str, Any]:
    return {"rating": displayed(mu, sigma), "mu": mu, "sigma": sigma, "games": games, "wins": wins,
            "provisional": provisional(games)}


def _who(subject: str, names: dict[int, tuple[str, bool]]) -> dict[str, Any]:
    """A subject as the API shows it: an account by name, a bot level by its spec."""
    kind, _, rest = subject.partition(":")
    if kind == "bot":
        return {"kind": "bot", "bot": rest}
    name, deleted = names.get(int(rest), ("", True)) if rest.isdigit() else ("", True)
    return {"kind": "account", "name": name, "deleted": deleted}


def _names(conn: Connection, subjects: Sequence[str]) -> dict[int, tuple[str, bool]]:
    ids = {int(s[8:]) for s in subjects if s.startswith("account:") and s[8:].isdigit()}
    if not ids:
        return {}
    rows = conn.execute(select(ACCOUNTS.c.id, ACCOUNTS.c.name, ACCOUNTS.c.deleted_at).where(ACCOUNTS.c.id.in_(ids)))
    return {r.id: (r.name, r.deleted_at is not None) for r in rows}


def leaderboard(engine: Engine, limit: int, offset: int, established: bool) -> dict[str, Any]:
    """A page of the leaderboard, best first (ties: more games first, then by subject); ``established``: without
    provisional ratings."""
    where = [_listed()]
    if established:
        where.append(RATINGS.c.games >= PROVISIONAL_GAMES)
    with engine.connect() as conn:
        total = conn.execute(select(func.count()).select_from(_board_from()).where(*where)).scalar_one()
        rows = list(conn.execute(
            select(RATINGS.c.subject, RATINGS.c.mu, RATINGS.c.sigma, RATINGS.c.games, RATINGS.c.wins)
            .select_from(_board_from()).where(*where)
            .order_by(_ordinal().desc(), RATINGS.c.games.desc(), RATINGS.c.subject)
            .limit(limit).offset(offset)
        ))
        names = _names(conn, [r.subject for r in rows])
    players = [
        {"rank": offset + i + 1, **_who(r.subject, names), **_rating_json(r.mu, r.sigma, r.games, r.wins)}
        for i, r in enumerate(rows)
    ]
    return {"players": players, "total": total, "limit": limit, "offset": offset}


def _rank(conn: Connection, mu: float, sigma: float) -> int:
    """1 + the listed subjects rated above ``mu - 3 sigma`` (on the whole leaderboard, provisional ones included)."""
    above = conn.execute(select(func.count()).select_from(_board_from())
                         .where(_listed(), _ordinal() > mu - 3 * sigma)).scalar_one()
    return int(above) + 1


def _share(games: int, wins: int) -> float:
    return round(wins / games, 4) if games else 0.0


def _statistics(conn: Connection, subject: str) -> dict[str, Any]:
    """Rating, history, win share by map and player count, and favourite opponents of a subject."""
    row = conn.execute(select(RATINGS.c.mu, RATINGS.c.sigma, RATINGS.c.games, RATINGS.c.wins)
                       .where(RATINGS.c.subject == subject)).first()
    rating = None
    if row is not None:
        rating = {**_rating_json(row.mu, row.sigma, row.games, row.wins), "rank": _rank(conn, row.mu, row.sigma)}
    recent = list(conn.execute(
        select(RATING_EVENTS.c.game_id, RATING_EVENTS.c.rated_at, RATING_EVENTS.c.place, RATING_EVENTS.c.players,
               RATING_EVENTS.c.mu_after, RATING_EVENTS.c.sigma_after)
        .where(RATING_EVENTS.c.subject == subject).order_by(RATING_EVENTS.c.id.desc()).limit(MAX_HISTORY)
    ))
    history = [{"at": _iso(e.rated_at), "game": e.game_id, "rating": displayed(e.mu_after, e.sigma_after),
                "place": e.place, "players": e.players} for e in reversed(recent)]
    by_map: dict[str, list[int]] = {}
    by_players: dict[int, list[int]] = {}
    for e in conn.execute(
        select(RATING_EVENTS.c.place, RATING_EVENTS.c.players, GAMES.c.options)
        .select_from(RATING_EVENTS.outerjoin(GAMES, GAMES.c.id == RATING_EVENTS.c.game_id))
        .where(RATING_EVENTS.c.subject == subject)
    ).mappings():
        won = 1 if e["place"] == 1 else 0
        for counts in (by_map.setdefault(map_of_row(e) if e["options"] is not None else "unknown", [0, 0]),
                       by_players.setdefault(int(e["players"]), [0, 0])):
            counts[0] += 1
            counts[1] += won
    me, them = RATING_EVENTS.alias("me"), RATING_EVENTS.alias("them")
    met = list(conn.execute(
        select(them.c.subject, func.count().label("games"),
               func.sum(case((me.c.place < them.c.place, 1), else_=0)).label("wins"),
               func.sum(case((me.c.place > them.c.place, 1), else_=0)).label("losses"))
        .select_from(me.join(them, and_(them.c.game_id == me.c.game_id, them.c.subject != me.c.subject)))
        .where(me.c.subject == subject)
        .group_by(them.c.subject)
        .order_by(func.count().desc(), them.c.subject)
        .limit(OPPONENTS)
    ))
    names = _names(conn, [m.subject for m in met])
    return {
        "rating": rating,
        "history": history,
        "by_map": [{"map": k, "games": v[0], "wins": v[1], "share": _share(*v)} for k, v in sorted(by_map.items())],
        "by_players": [{"players": k, "games": v[0], "wins": v[1], "share": _share(*v)}
                       for k, v in sorted(by_players.items())],
        "opponents": [{**_who(m.subject, names), "games": int(m.games), "wins": int(m.wins or 0),
                       "losses": int(m.losses or 0)} for m in met],
    }


def _game_json(row: Any, seat: int, place: int | None) -> dict[str, Any]:
    try:
        players = [str(p.get("name", "")) for p in row["players"]] if isinstance(row["players"], list) else []
    except AttributeError:
        players = []
    return {"id": row["id"], "created": _iso(row["created_at"]), "map": map_of_row(row), "players": players,
            "status": row["status"], "rated": bool(row["rated"]), "seat": seat, "place": place}


def _account(conn: Connection, name: str) -> Any:
    if not 1 <= len(name) <= MAX_NAME:
        raise ServiceError(404, "there is no such player")
    row = conn.execute(select(ACCOUNTS.c.id, ACCOUNTS.c.name, ACCOUNTS.c.created_at)
                       .where(ACCOUNTS.c.name_key == name_key(name), ACCOUNTS.c.deleted_at.is_(None))).first()
    if row is None:
        raise ServiceError(404, "there is no such player")
    return row


def account_games(engine: Engine, name: str, limit: int, offset: int) -> dict[str, Any]:
    """A page of the games an account played (every game, rated or not), newest first."""
    with engine.connect() as conn:
        return _account_games(conn, _account(conn, name).id, limit, offset)


def _account_games(conn: Connection, account_id: int, limit: int, offset: int) -> dict[str, Any]:
    subject = account_subject(account_id)
    total = conn.execute(select(func.count()).select_from(ACCOUNT_SEATS)
                         .where(ACCOUNT_SEATS.c.account_id == account_id)).scalar_one()
    rows = conn.execute(
        select(GAMES.c.id, GAMES.c.created_at, GAMES.c.options, GAMES.c.players, GAMES.c.status, GAMES.c.rated,
               ACCOUNT_SEATS.c.seat, RATING_EVENTS.c.place)
        .select_from(ACCOUNT_SEATS.join(GAMES, GAMES.c.id == ACCOUNT_SEATS.c.game_id).outerjoin(
            RATING_EVENTS, and_(RATING_EVENTS.c.game_id == GAMES.c.id, RATING_EVENTS.c.subject == subject)))
        .where(ACCOUNT_SEATS.c.account_id == account_id)
        .order_by(GAMES.c.created_at.desc(), GAMES.c.id.desc(), ACCOUNT_SEATS.c.seat)
        .limit(limit).offset(offset)
    ).mappings()
    games = [_game_json(r, r["seat"], r["place"]) for r in rows]
    return {"games": games, "total": total, "limit": limit, "offset": offset}


def _bot_games(conn: Connection, spec: str, limit: int, offset: int) -> dict[str, Any]:
    subject = bot_subject(spec)
    total = conn.execute(select(func.count()).select_from(RATING_EVENTS)
                         .where(RATING_EVENTS.c.subject == subject)).scalar_one()
    rows = conn.execute(
        select(GAMES.c.id, GAMES.c.created_at, GAMES.c.options, GAMES.c.players, GAMES.c.status, GAMES.c.rated,
               RATING_EVENTS.c.seat, RATING_EVENTS.c.place)
        .select_from(RATING_EVENTS.join(GAMES, GAMES.c.id == RATING_EVENTS.c.game_id))
        .where(RATING_EVENTS.c.subject == subject)
        .order_by(RATING_EVENTS.c.id.desc())
        .limit(limit).offset(offset)
    ).mappings()
    games = [_game_json(r, r["seat"], r["place"]) for r in rows]
    return {"games": games, "total": total, "limit": limit, "offset": offset}


def account_profile(engine: Engine, name: str) -> dict[str, Any]:
    """The profile of the account called ``name`` (in any case or form; 404 if none or deleted)."""
    with engine.connect() as conn:
        account = _account(conn, name)
        return {"kind": "account", "name": account.name, "since": _iso(account.created_at),
                **_statistics(conn, account_subject(account.id)),
                "games": _account_games(conn, account.id, PROFILE_GAMES, 0)}


def bot_profile(engine: Engine, spec: str) -> dict[str, Any]:
    """The profile of a bot level (its games are the rated ones)."""
    with engine.connect() as conn:
        return {"kind": "bot", "bot": spec, **_statistics(conn, bot_subject(spec)),
                "games": _bot_games(conn, spec, PROFILE_GAMES, 0)}


def bot_games(engine: Engine, spec: str, limit: int, offset: int) -> dict[str, Any]:
    """A page of a bot level's rated games, most recently rated first."""
    with engine.connect() as conn:
        return _bot_games(conn, spec, limit, offset)


def router(engine: Callable[[], Engine], bots: Sequence[str]) -> APIRouter:
    """The routes of the leaderboard and the profiles; ``engine`` gives the app's database engine, ``bots`` the bot
    levels the server knows."""
    api = APIRouter(route_class=StrictRoute)

    def level(spec: str) -> str:
        if spec not in bots:
            raise ServiceError(404, f"there is no bot {spec[:40]!r}; bots are {', '.join(bots)}")
        return spec

    @api.get("/api/leaderboard")
    async def get_leaderboard(limit: Limit = 50, offset: Offset = 0, established: bool = False) -> dict[str, Any]:
        """Rated players (accounts and bot levels), best first; ``established=true`` leaves out provisional ones."""
        return await asyncio.to_thread(leaderboard, engine(), limit, offset, established)

    @api.get("/api/bots/{spec}/profile")
    async def get_bot(spec: str) -> dict[str, Any]:
        """A bot level's profile."""
        return await asyncio.to_thread(bot_profile, engine(), level(spec))

    @api.get("/api/bots/{spec}/games")
    async def get_bot_games(spec: str, limit: Limit = PROFILE_GAMES, offset: Offset = 0) -> dict[str, Any]:
        """A page of a bot level's rated games."""
        return await asyncio.to_thread(bot_games, engine(), level(spec), limit, offset)

    @api.get("/api/players/{name}")
    async def get_player(name: str) -> dict[str, Any]:
        """An account's profile."""
        return await asyncio.to_thread(account_profile, engine(), name)

    @api.get("/api/players/{name}/games")
    async def get_player_games(name: str, limit: Limit = PROFILE_GAMES, offset: Offset = 0) -> dict[str, Any]:
        """A page of an account's games, newest first."""
        return await asyncio.to_thread(account_games, engine(), name, limit, offset)

    return api
