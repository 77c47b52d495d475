"""How a rating is updated: from a finished rated game to the players' new ratings, exactly once.

**The model.**  OpenSkill's Plackett-Luce model (``openskill.models.PlackettLuce`` with its default parameters:
a new player starts at mu 25, sigma 25/3).  It rates free-for-all finishes of any size, ties included, and a finish
in a field of five moves a rating more than one in a field of two, as it should.

**One pool.**  A player has one rating across all player counts (2 to 5 seats).  A club plays few games; split
into four pools by player count, most players would stay provisional in most of them and a leaderboard would need a
tab per count.  Plackett-Luce already weighs each finish by its field, and Hansa Teutonica's skills (the network,
the abilities, reading the other players) carry over between counts.

**Who is rated.**  Accounts (subject ``account:<id>``) and bot levels (``bot:<spec>``, e.g. ``bot:mcts:hard``): a
human sees how they stand against a level.  A bot level that fills several seats of one game is rated from each of
its seats as if they were different players of the same rating (so the others' updates are the library's own), and
its new rating is the mean of those seats' new mu and sigma; its one event has its best place.

**What is rated.**  Games created as rated (``games.rated``, open tables of accounts and bots) that ended ``over``
(the game's own end).  Stopped, abandoned and damaged games are not rated, nor is a rated game deleted before it
was rated.

**Places.**  The winners (``hansa.core.scoring.winners``: the highest total, ties broken by the game's tie-break
rule, several winners = a shared win) share place 1.  The others are placed by their final total; equal totals
share a place (the rules' tie-break decides only the winner, §4.4), and places are counted the standard way
(1, 2, 2, 4).  A player who lost the tie-break for first place comes after the winners.

**The displayed rating** is the library's conservative *ordinal* ``mu - 3 sigma`` scaled like Elo:
``24 * (mu - 3 sigma) + 1000``, so a new player shows 1000 and climbs as the model becomes sure of them.  A rating
is **provisional** while its player has fewer than :data:`PROVISIONAL_GAMES` rated games.

**Exactly once, in one order.**  :func:`apply_game` rates one game in one transaction: it inserts the game's
``rated_games`` row first (its primary key refuses a second insert: the game is rated already, nothing happens),
then reads the players' ratings, rates, and writes ``ratings`` and ``rating_events``.  Either all of it commits or
none (a ``kill -9`` in the middle leaves the game unrated, and it is rated after the restart).  Games are rated one
at a time across processes: on PostgreSQL the transaction first takes an advisory lock (:data:`RATING_LOCK`); on
SQLite the ``rated_games`` insert takes the database's one write lock before anything is read.

:class:`RatingKeeper` is the background task of every server process that looks for finished rated games without
a ``rated_games`` row (at start, then every ``--rating-interval`` seconds) and rates them, oldest finish first.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from openskill.models import PlackettLuce, PlackettLuceRating
from sqlalchemy import func, insert, select, update
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError

from ..core.scoring import final_scores, winners
from .db import GAMES, RATED_GAMES, RATING_EVENTS, RATINGS, utcnow
from .store import OVER, Damaged, Store

log = logging.getLogger("hansa.server.ratings")

#: The model every rating is computed with (its defaults: mu 25, sigma 25/3, beta 25/6, tau 25/300).
MODEL = PlackettLuce()
#: The displayed rating: ``DISPLAY_SCALE * (mu - DISPLAY_Z * sigma) + DISPLAY_TARGET`` (openskill's ordinal).
DISPLAY_Z = 3.0
DISPLAY_SCALE = 24.0
DISPLAY_TARGET = 1000.0
#: A rating is provisional while its player has fewer rated games than this.
PROVISIONAL_GAMES = 10
#: The PostgreSQL advisory lock held while a game is rated (one game at a time, whatever the process).
RATING_LOCK = 7_157_342
#: Games one look of the keeper rates at most (the next look takes the rest).
BATCH = 200


def account_subject(account_id: int) -> str:
    """The ratings' name of an account."""
    return f"account:{account_id}"


def bot_subject(spec: str) -> str:
    """The ratings' name of a bot level (``heuristic``, ``mcts:hard``, ...)."""
    return f"bot:{spec}"


def displayed(mu: float, sigma: float) -> int:
    """The rating shown to players: openskill's ordinal, scaled like Elo and rounded (a new player: 1000)."""
    ordinal = MODEL.rating(mu=mu, sigma=sigma).ordinal(z=DISPLAY_Z, alpha=DISPLAY_SCALE, target=DISPLAY_TARGET)
    return round(ordinal)


def provisional(games: int) -> bool:
    """Whether a rating after ``games`` rated games is still provisional."""
    return games < PROVISIONAL_GAMES


def places(totals: Sequence[int], winning: Sequence[int]) -> list[int]:
    """Every seat's place (1 = first) from the final totals and the winning seats (see the module's docstring)."""
    keys = [(0 if seat in winning else 1, -total) for seat, total in enumerate(totals)]
    return [1 + sum(1 for other in keys if other < key) for key in keys]


@dataclass(frozen=True)
class Rating:
    """A subject's rating: the model's mu and sigma, and its counts of rated games and wins."""

    mu: float
    sigma: float
    games: int = 0
    wins: int = 0

    @classmethod
    def new(cls) -> Rating:
        """A subject's rating before its first rated game: the model's defaults."""
        return cls(MODEL.mu, MODEL.sigma)


def rate(ratings: Sequence[tuple[float, float]], ranks: Sequence[int]) -> list[tuple[float, float]]:
    """New ``(mu, sigma)`` of the players of one finish (one player per team; ``ranks``: 1 = first, equal = tied)."""
    teams = [[MODEL.rating(mu=mu, sigma=sigma)] for mu, sigma in ratings]
    out: list[list[PlackettLuceRating]] = MODEL.rate(teams, ranks=[float(r) for r in ranks])
    return [(team[0].mu, team[0].sigma) for team in out]


@dataclass(frozen=True)
class Outcome:
    """What one rated game does to one subject."""

    subject: str
    seat: int
    place: int
    before: Rating
    after: Rating


def outcomes(subjects: Sequence[str], seat_places: Sequence[int], current: dict[str, Rating]) -> list[Outcome]:
    """The rating changes of one finish: ``subjects`` and ``seat_places`` by seat; ``current`` the subjects' ratings
    (missing ones are new).  A subject on several seats (a bot level) gets the mean of its seats' results and its
    best place (see the module's docstring)."""
    before = [current.get(s, Rating.new()) for s in subjects]
    new = rate([(r.mu, r.sigma) for r in before], seat_places)
    out: list[Outcome] = []
    for subject in dict.fromkeys(subjects):
        seats = [i for i, s in enumerate(subjects) if s == subject]
        best = min(seats, key=lambda i: (seat_places[i], i))
        mu = sum(new[i][0] for i in seats) / len(seats)
        sigma = sum(new[i][1] for i in seats) / len(seats)
        old = before[best]
        won = seat_places[best] == 1
        out.append(Outcome(subject, best, seat_places[best], old,
                           Rating(mu, sigma, old.games + 1, old.wins + (1 if won else 0))))
    return out


class Unratable(Exception):
    """A game that is marked rated but cannot be rated (a seat of a guest, a record that does not replay)."""


def finish(store: Store, game_id: str) -> tuple[list[str], list[int]] | None:
    """The subjects and places, by seat, of a finished rated game; None if it is not (or no longer) one."""
    stored = store.load(game_id)
    if stored is None or stored.status != OVER:
        return None
    state = stored.game.state
    if not state.is_over:
        raise Unratable(f"game {game_id} is marked over but its position has not ended")
    subjects = []
    for i, seat in enumerate(stored.seats):
        if seat.account is not None:
            subjects.append(account_subject(seat.account))
        elif seat.type == "bot" and seat.bot:
            subjects.append(bot_subject(seat.bot))
        else:
            raise Unratable(f"seat {i} of rated game {game_id} has neither an account nor a bot")
    scores = final_scores(state)
    return subjects, places([s.total for s in scores], winners(state, scores))


def _lock(conn: Connection) -> None:
    if conn.dialect.name == "postgresql":
        conn.execute(select(func.pg_advisory_xact_lock(RATING_LOCK)))


def apply_finish(engine: Engine, game_id: str, subjects: Sequence[str], seat_places: Sequence[int],
                 now: datetime | None = None) -> bool:
    """Rate one finish in one transaction, exactly once: False (and nothing written) if ``game_id`` is rated
    already."""
    now = now or utcnow()
    try:
        with engine.begin() as conn:
            _lock(conn)
            # first: the one write that may exist already (and, on SQLite, the write lock before any read)
            conn.execute(insert(RATED_GAMES).values(game_id=game_id, rated_at=now))
            rows = conn.execute(select(RATINGS.c.subject, RATINGS.c.mu, RATINGS.c.sigma, RATINGS.c.games,
                                       RATINGS.c.wins).where(RATINGS.c.subject.in_(set(subjects))))
            current = {r.subject: Rating(r.mu, r.sigma, r.games, r.wins) for r in rows}
            changes = outcomes(subjects, seat_places, current)
            for c in changes:
                values = {"mu": c.after.mu, "sigma": c.after.sigma, "games": c.after.games, "wins": c.after.wins,
                          "updated_at": now}
                if c.subject in current:
                    conn.execute(update(RATINGS).where(RATINGS.c.subject == c.subject).values(**values))
                else:
                    conn.execute(insert(RATINGS).values(subject=c.subject, **values))
            conn.execute(insert(RATING_EVENTS), [
                {"game_id": game_id, "subject": c.subject, "seat": c.seat, "place": c.place,
                 "players": len(subjects), "mu_before": c.before.mu, "sigma_before": c.before.sigma,
                 "mu_after": c.after.mu, "sigma_after": c.after.sigma, "rated_at": now}
                for c in changes
            ])
    except IntegrityError:
        with engine.connect() as conn:
            if conn.execute(select(RATED_GAMES.c.game_id).where(RATED_GAMES.c.game_id == game_id)).first():
                return False
        raise
    return True


def apply_game(engine: Engine, game_id: str) -> bool:
    """Rate the finished rated game ``game_id`` if it has not been rated: True if this call rated it; False if it
    was rated already or is not a finished rated game.  Raises :class:`Unratable` for a game that cannot be rated,
    and database errors as they come (nothing is written then)."""
    with engine.connect() as conn:
        if conn.execute(select(RATED_GAMES.c.game_id).where(RATED_GAMES.c.game_id == game_id)).first():
            return False
        rated = conn.execute(select(GAMES.c.rated).where(GAMES.c.id == game_id)).scalar()
    if not rated:
        return False
    try:
        found = finish(Store(engine), game_id)
    except Damaged as exc:
        raise Unratable(f"game {game_id} does not replay: {exc}") from exc
    if found is None:
        return False
    return apply_finish(engine, game_id, *found)


def waiting(engine: Engine, limit: int = BATCH) -> list[str]:
    """Finished rated games not rated yet, oldest finish first."""
    with engine.connect() as conn:
        rows = conn.execute(
            select(GAMES.c.id)
            .outerjoin(RATED_GAMES, RATED_GAMES.c.game_id == GAMES.c.id)
            .where(GAMES.c.rated.is_(True), GAMES.c.status == OVER, RATED_GAMES.c.game_id.is_(None))
            .order_by(GAMES.c.updated_at, GAMES.c.id)
            .limit(limit)
        )
        return [r[0] for r in rows]


class RatingKeeper:
    """A server process's background rating of finished rated games (see the module's docstring).

    ``rated`` counts the games this process rated, ``failed`` the failed tries (each logged; the game is tried
    again at the next look)."""

    def __init__(self, engine: Engine, interval: float) -> None:
        self.engine = engine
        self.interval = interval
        self.rated = 0
        self.failed = 0
        self._task: asyncio.Task[None] | None = None
        self._look: asyncio.Future[None] | None = None
        self._closing = False

    def start(self) -> None:
        """Start looking (the first look at once)."""
        self._task = asyncio.create_task(self._run(), name="hansa-ratings")

    async def stop(self) -> None:
        """Stop looking: a look under way ends after the game it is rating (whose transaction commits)."""
        self._closing = True
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        if self._look is not None:
            with contextlib.suppress(Exception):
                await self._look

    def stats(self) -> dict[str, Any]:
        """For /api/stats."""
        return {"ratings_applied": self.rated, "ratings_failed": self.failed}

    def rate_waiting(self) -> None:
        """One look (blocking): rate every waiting game, oldest first; failures are logged and counted."""
        try:
            ids = waiting(self.engine)
        except Exception as exc:
            self.failed += 1
            log.warning("looking for games to rate failed: %s", str(exc).splitlines()[0][:200])
            return
        for game_id in ids:
            if self._closing:
                return
            try:
                if apply_game(self.engine, game_id):
                    self.rated += 1
            except Exception as exc:
                self.failed += 1
                log.warning("rating game %s failed (tried again later): %s", game_id,
                            (str(exc).splitlines() or [type(exc).__name__])[0][:300])

    async def _run(self) -> None:
        while True:
            self._look = asyncio.ensure_future(asyncio.to_thread(self.rate_waiting))
            await asyncio.shield(self._look)
            self._look = None
            await asyncio.sleep(self.interval)
