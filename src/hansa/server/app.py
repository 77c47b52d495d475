"""The FastAPI application: REST for the lobby and moves, a WebSocket per game for live updates, the static
browser client.  See docs/api.md (every limit and error is listed there).

No ``from __future__ import annotations`` here: the request models are built per app (their limits come from the
configuration), and FastAPI must see the classes themselves in the endpoints' annotations.
"""

import asyncio
import gc
import logging
import math
import os
import random
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import asdict, fields
from pathlib import Path
from typing import Annotated, Any, Literal, get_args, get_type_hints

from fastapi import FastAPI, Header, Query, Request, WebSocket
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator, model_validator

from ..core.board import load_board
from ..core.constants import MARKER_NAMES, MARKER_SUPPLY_MAX, MARKER_SUPPLY_SIZE
from ..core.options import GameOptions
from ..engine.protocol import decide_message
from ..view import board_layout
from .accounts import DELETED_NAME, Accounts
from .accounts import routes as account_routes
from .answers import HISTORY_LIMIT, LOG_LIMIT, MAX_HISTORY_LIMIT, MAX_LOG_LIMIT
from .chat import CHAT_CHANNEL, Chat
from .chat import routes as chat_routes
from .clocks import TIMEOUT_BOTS
from .config import ServerConfig
from .db import DEFAULT_URL, make_engine, migrate
from .errors import ServiceError, StrictRoute, install_handlers
from .games import SERVER_BOTS, GameService, server_bots
from .live import AccountKey, Credential, LiveGame, view_json, view_message, with_now
from .mail import MailKeeper
from .mail import routes as mail_routes
from .middleware import BodyLimit, SecurityHeaders, client_key
from .moderation import Moderation, ModerationKeeper
from .moderation import routes as moderation_routes
from .names import BadName, clean_name, duplicate_names
from .notify import conninfo, listen
from .profiles import router as profiles_router
from .ratelimit import RateLimiter
from .ratings import RatingKeeper
from .rematch import Rematches
from .rematch import routes as rematch_routes
from .rules import LANGUAGES, rules_page
from .sockets import SocketHub, Subscriber
from .store import DEFAULT_COLOURS, MAX_WEBHOOK, PALETTE, RUNNING, Store
from .tables import Tables
from .tables import routes as table_routes
from .tutorial import CHAPTERS
from .tutorial import players as tutorial_players
from .tutorial import prefix as tutorial_prefix
from .tutorial import public as tutorial_public

STATIC = Path(__file__).parent / "static"
log = logging.getLogger("hansa.server")

#: Game ids are made by the server: 8 characters of [A-Za-z0-9]; anything else cannot name a game.
MAX_ID = 16
MAX_TOKEN = 64
TOKEN_PROTOCOL = "hansa.token."
STATUSES = Literal["running", "over", "stopped", "abandoned", "damaged"]
#: Seeds up to 2^53 - 1: JSON numbers every client reads exactly.
MAX_SEED = 2**53 - 1
#: Games one "my games" request may ask about.
MAX_MY_GAMES = 100
#: Settings /api/limits does not show (the SMTP URL may hold a password).
SECRET_SETTINGS = ("smtp_url", "engines")
#: Request bodies: no unknown fields, no type coercion ("7" is not 7, true is not 1).
STRICT = ConfigDict(extra="forbid", strict=True)


def request_models(config: ServerConfig) -> tuple[type[BaseModel], type[BaseModel], type[BaseModel]]:
    """The request bodies, bounded by ``config``: every string, list and mapping has a maximum size."""
    # raw names may be longer than max_name before white space is collapsed; clean_name bounds the stored form
    Name = Annotated[str, StringConstraints(min_length=1, max_length=4 * config.max_name)]
    Text = Annotated[str, StringConstraints(min_length=1, max_length=config.max_move_text)]
    Key = Annotated[str, StringConstraints(min_length=1, max_length=40)]
    Word = Annotated[str, StringConstraints(max_length=40)]
    allowed_bots = server_bots(config)
    Scalar = bool | int | Word | None
    #: an option's value: a scalar, or a list of words (``marker_supply``: 12 marker names; the engine checks it)
    OptionValue = Scalar | Annotated[list[Word], Field(max_length=16)]
    Colour = Literal[tuple(PALETTE)]  # type: ignore[valid-type]

    class PlayerIn(BaseModel):
        model_config = STRICT
        name: Name
        type: Literal["human", "bot"] = "human"
        bot: Word | None = None
        colour: Colour | None = None  # type: ignore[valid-type]

        @field_validator("name")
        @classmethod
        def _clean_name(cls, v: str) -> str:
            try:
                return clean_name(v, config.max_name)
            except BadName as exc:
                raise ValueError(str(exc)) from None

        @model_validator(mode="after")
        def _bot_spec(self) -> "PlayerIn":
            if self.type == "bot":
                self.bot = "heuristic" if self.bot is None else self.bot
                if self.bot not in allowed_bots:  # engine:NAME only for a NAME of the operator's --engines
                    raise ValueError(f"unknown bot {self.bot!r}; bots are {', '.join(allowed_bots)}")
            else:
                self.bot = None
            return self

    class TableIn(BaseModel):
        model_config = STRICT
        hints: bool = True
        hotseat: bool = False
        spectator_chat: bool = False
        bot_chat: bool = False

    class ClockIn(BaseModel):
        """Checked here for shape; the bounds of each kind are ClockSettings.from_json's (400 with the range)."""
        model_config = STRICT
        kind: Literal["none", "realtime", "turn"] = "none"
        base: float | None = Field(default=None, ge=0, le=10**8)
        increment: float | None = Field(default=None, ge=0, le=10**8)
        bank: float | None = Field(default=None, ge=0, le=10**8)
        on_timeout: Literal["bot", "end-turn"] = "bot"
        bot: Literal[TIMEOUT_BOTS] = "heuristic"  # type: ignore[valid-type]

        @field_validator("base", "increment", "bank", mode="before")
        @classmethod
        def _number(cls, v: Any) -> Any:
            return float(v) if isinstance(v, int) and not isinstance(v, bool) else v

    class CreateGame(BaseModel):
        model_config = STRICT
        players: list[PlayerIn] = Field(min_length=2, max_length=5)
        table: TableIn = Field(default_factory=TableIn)
        clock: ClockIn | None = None
        options: dict[Key, OptionValue] = Field(default_factory=dict, max_length=32)
        seed: int | None = Field(default=None, ge=0, le=MAX_SEED)

        @model_validator(mode="after")
        def _distinct_names(self) -> "CreateGame":
            same = duplicate_names([p.name for p in self.players])
            if same is not None:
                raise ValueError(
                    f"seats {same[0]} and {same[1]} have the same name (names that differ only in case or in "
                    "the form of their letters are the same)"
                )
            return self

    class MoveIn(BaseModel):
        model_config = STRICT
        move: Text | dict[Key, bool | int | Text | None] = Field(union_mode="left_to_right")
        version: int | None = Field(default=None, ge=0, le=10**9)
        seat: int | None = Field(default=None, ge=0, le=4)

        @field_validator("move")
        @classmethod
        def _bounded(cls, v: Any) -> Any:
            if isinstance(v, dict) and len(v) > 8:
                raise ValueError("a move's JSON form has at most 8 fields")
            return v

    return CreateGame, MoveIn, UndoIn


def tutorial_model(config: ServerConfig) -> type[BaseModel]:
    """The body of POST /api/tutorial: the chapter and the learner's name (as a seat's name is bounded)."""
    Name = Annotated[str, StringConstraints(min_length=1, max_length=4 * config.max_name)]

    class TutorialIn(BaseModel):
        model_config = STRICT
        chapter: Literal[CHAPTERS]  # type: ignore[valid-type]
        name: Name | None = None

        @field_validator("name")
        @classmethod
        def _clean_name(cls, v: str | None) -> str | None:
            try:
                return None if v is None else clean_name(v, config.max_name)
            except BadName as exc:
                raise ValueError(str(exc)) from None

    return TutorialIn


class UndoIn(BaseModel):
    model_config = STRICT
    version: int | None = Field(default=None, ge=0, le=10**9)
    seat: int | None = Field(default=None, ge=0, le=4)


class SeatIn(BaseModel):
    model_config = STRICT
    seat: int | None = Field(default=None, ge=0, le=4)


class TakeoverIn(BaseModel):
    model_config = STRICT
    seat: int = Field(ge=0, le=4)
    bot: Literal[TIMEOUT_BOTS] | None = "heuristic"  # type: ignore[valid-type]


class WebhookIn(BaseModel):
    model_config = STRICT
    seat: int | None = Field(default=None, ge=0, le=4)
    url: Annotated[str, StringConstraints(min_length=1, max_length=MAX_WEBHOOK)] | None


class MyGameIn(BaseModel):
    model_config = STRICT
    id: Annotated[str, StringConstraints(min_length=1, max_length=MAX_ID, pattern="^[A-Za-z0-9]+$")]
    token: Annotated[str, StringConstraints(min_length=1, max_length=MAX_TOKEN)]


class AttachIn(BaseModel):
    model_config = STRICT
    game: Annotated[str, StringConstraints(min_length=1, max_length=MAX_ID, pattern="^[A-Za-z0-9]+$")]


class MyGamesIn(BaseModel):
    model_config = STRICT
    games: list[MyGameIn] = Field(max_length=MAX_MY_GAMES)


def token_of(header: str | None) -> str | None:
    """The seat or creator token of a request (``X-Hansa-Token``); an oversized one is no token at all."""
    if header is None or len(header) > MAX_TOKEN:
        return None
    return header


def socket_token(ws: WebSocket) -> str | None:
    """A WebSocket's token: the ``X-Hansa-Token`` header (programs) or a ``hansa.token.<token>`` subprotocol
    (browsers cannot set headers on a WebSocket)."""
    header = ws.headers.get("x-hansa-token")
    if header:
        return token_of(header)
    for protocol in ws.scope.get("subprotocols", ()):
        if protocol.startswith(TOKEN_PROTOCOL):
            return token_of(protocol[len(TOKEN_PROTOCOL):])
    return None


def still_wanted(request: Request) -> Callable[[], Awaitable[bool]]:
    """For the service: is the client still waiting for this request's answer?"""

    async def wanted() -> bool:
        return not await request.is_disconnected()

    return wanted


def create_app(
    database_url: str | None = None, config: ServerConfig | None = None, now: Callable[[], float] | None = None,
    **overrides: Any,
) -> FastAPI:
    """Build the app.  ``database_url`` defaults to $HANSA_DATABASE_URL or ``sqlite:///hansa.sqlite3``; ``config``
    to :meth:`ServerConfig.from_env` with ``overrides`` (e.g. ``bot_delay=0``); ``now`` is the clocks' time
    source (seconds since the epoch; default :func:`time.time`), which tests replace to drive clocks."""
    import time

    url = database_url or os.environ.get("HANSA_DATABASE_URL") or DEFAULT_URL
    cfg = config if config is not None else ServerConfig.from_env(overrides)
    CreateGame, MoveIn, _ = request_models(cfg)
    TutorialIn = tutorial_model(cfg)
    clock_now = now or time.time
    allowed_bots = server_bots(cfg)
    hub = SocketHub(cfg, clock_now)
    creations = RateLimiter(cfg.create_per_minute / 60.0, cfg.create_per_minute)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[dict[str, Any]]:
        engine = make_engine(url, cfg.db_busy_timeout)
        await asyncio.to_thread(migrate, engine)
        service = GameService(Store(engine), cfg, hub, clock_now)
        app.state.service = service
        app.state.accounts = Accounts(engine, cfg)
        app.state.tables = Tables(engine, cfg, service, app.state.accounts)
        app.state.rematches = Rematches(app.state.tables)
        app.state.chat = Chat(engine, cfg, hub, service, app.state.accounts, service.store.origin)
        app.state.moderation = Moderation(engine, service.store.origin)
        app.state.moderation_keeper = ModerationKeeper(app.state.moderation, service, cfg.janitor_interval)
        moderator = asyncio.create_task(app.state.moderation_keeper.run(), name="hansa-moderation")
        bot_talk = asyncio.create_task(app.state.chat.keep(cfg.janitor_interval), name="hansa-bot-chat")
        chat_listener = None
        if service.store.notifies:
            chat_listener = asyncio.create_task(listen(
                conninfo(engine), app.state.chat.on_notice, app.state.chat.on_reconnect, lambda: False,
                channel=CHAT_CHANNEL), name="hansa-chat-listen")
        await service.start()
        sweeper = asyncio.create_task(app.state.accounts.sweep_forever())
        keeper = asyncio.create_task(app.state.tables.keep(cfg.janitor_interval))
        app.state.ratings = RatingKeeper(engine, cfg.rating_interval)
        app.state.ratings.start()
        app.state.mail = MailKeeper(engine, cfg.smtp_url, cfg.public_url, cfg.mail_from, cfg.notice_period,
                                    cfg.reminder_before, cfg.mail_interval, cfg.mail_retry)
        app.state.mail.start()
        # Move everything loaded so far (modules, the board, restored games) out of the garbage collector's
        # view: full collections then scan only what was created since, which keeps their pauses (felt as
        # move latency) short.
        gc.collect()
        gc.freeze()
        try:
            yield {"hansa_config": cfg}  # uvicorn hands this state to the connection protocols (protocols.py)
        finally:
            sweeper.cancel()
            keeper.cancel()
            moderator.cancel()
            bot_talk.cancel()
            if chat_listener is not None:
                chat_listener.cancel()
            await app.state.ratings.stop()
            await app.state.mail.stop()
            await service.stop()
            engine.dispose()

    app = FastAPI(title="hansa", version="0.2.0", lifespan=lifespan)
    app.router.route_class = StrictRoute  # every route parses JSON bodies strictly
    install_handlers(app)
    app.add_middleware(BodyLimit, max_body=cfg.max_body)
    app.add_middleware(SecurityHeaders)
    api = app

    def service() -> GameService:
        return app.state.service  # type: ignore[no-any-return]

    def club() -> Accounts:
        return app.state.accounts  # type: ignore[no-any-return]

    async def forget_account(account: int) -> None:
        """An account is deleted: its seats in games are renamed (a bot plays on in running games), its open
        tables are closed and its seats at them freed."""
        await service().forget_account(account, DELETED_NAME)
        await asyncio.to_thread(app.state.tables.store.forget_account, account)
        await asyncio.to_thread(app.state.mail.store.forget, account)

    app.include_router(account_routes(club, cfg, on_delete=[forget_account]))
    app.include_router(table_routes(lambda: app.state.tables, cfg))
    app.include_router(rematch_routes(lambda: app.state.rematches))
    app.include_router(mail_routes(lambda: app.state.mail, club))

    async def game(game_id: str) -> LiveGame:
        if not 1 <= len(game_id) <= MAX_ID or not game_id.isascii() or not game_id.isalnum():
            raise ServiceError(404, "there is no such game")
        return await service().get(game_id)

    app.include_router(chat_routes(lambda: app.state.chat, game))
    app.include_router(moderation_routes(lambda: app.state.moderation, club, lambda: app.state.chat,
                                         lambda: app.state.moderation_keeper))

    # -------------------------------------------------------------- pages

    @app.get("/", include_in_schema=False)
    async def lobby_page() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/game/{game_id}", include_in_schema=False)
    async def game_page(game_id: str) -> FileResponse:
        return FileResponse(STATIC / "game.html")

    @app.get("/table/{table_id}", include_in_schema=False)
    async def table_page(table_id: str) -> FileResponse:
        return FileResponse(STATIC / "table-page.html")

    @app.get("/replay/{game_id}", include_in_schema=False)
    async def replay_page(game_id: str) -> FileResponse:
        return FileResponse(STATIC / "replay.html")

    @app.get("/rules", include_in_schema=False)
    async def rules_html() -> FileResponse:
        return FileResponse(STATIC / "rules.html")

    @app.get("/rules/quick", include_in_schema=False)
    async def quick_rules_html() -> FileResponse:
        return FileResponse(STATIC / "quick-rules.html")

    @app.get("/admin", include_in_schema=False)
    async def admin_page() -> FileResponse:
        return FileResponse(STATIC / "admin.html")

    @app.get("/leaderboard", include_in_schema=False)
    async def leaderboard_page() -> FileResponse:
        return FileResponse(STATIC / "leaderboard.html")

    @app.get("/player/{name}", include_in_schema=False)
    @app.get("/bot/{spec}", include_in_schema=False)
    async def profile_page() -> FileResponse:
        return FileResponse(STATIC / "player.html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    # -------------------------------------------------------------- reference data

    @api.get("/api/bots")
    async def bots() -> dict[str, Any]:
        return {"bots": list(allowed_bots), "default": "heuristic"}

    @api.get("/api/options")
    async def options() -> dict[str, Any]:
        hints = get_type_hints(GameOptions)
        default = GameOptions()
        out: dict[str, dict[str, Any]] = {}
        for f in fields(GameOptions):
            hint = hints[f.name]
            if f.name == "marker_supply":  # a list of marker names, each at most so often (docs/rules.md §8.5)
                out[f.name] = {"values": list(MARKER_NAMES), "default": None, "length": MARKER_SUPPLY_SIZE,
                               "most": dict(zip(MARKER_NAMES, MARKER_SUPPLY_MAX))}
                continue
            values = [True, False] if hint is bool else list(get_args(hint))
            out[f.name] = {"values": values, "default": getattr(default, f.name)}
        # The defaults that differ on a map (Move 3 is Britannia's default).
        by_map = {}
        for name in get_args(hints["map"]):
            changed = {k: v for k, v in GameOptions(map=name).to_dict().items() if k != "map" and getattr(default, k) != v}
            if changed:
                by_map[name] = changed
        return {"options": out, "map_defaults": by_map}

    @api.get("/api/rules/{lang}")
    async def rules(lang: str) -> dict[str, Any]:
        """The rules the engine implements, as HTML with an id on every numbered section, in ``lang``."""
        try:
            return rules_page(lang)
        except (KeyError, FileNotFoundError):
            raise ServiceError(404, f"there are no rules in {lang[:8]!r}; languages are {', '.join(LANGUAGES)}") from None

    @api.get("/api/colours")
    async def colours() -> dict[str, Any]:
        """The player colours a seat may choose, with the symbol each draws in colour-blind mode."""
        return {
            "colours": [{"name": k, "colour": v[0], "symbol": v[1]} for k, v in PALETTE.items()],
            "default": list(DEFAULT_COLOURS),
        }

    @api.get("/api/limits")
    async def limits() -> dict[str, Any]:
        """The server's limits (docs/api.md), so that clients can respect them."""
        return {"limits": {k: v for k, v in asdict(cfg).items() if k not in SECRET_SETTINGS}}

    @api.get("/api/stats")
    async def stats() -> dict[str, Any]:
        """What this server process holds now (for operators and the hostile-load tests)."""
        svc = service()
        return {
            "pid": os.getpid(),
            "games_in_memory": len(svc.games),
            "sockets": hub.total(),
            "bot_decisions_waiting": svc.bots.waiting(),
            "bot_workers": svc.bots.worker_pids(),
            "damaged": len(svc.damaged),
            "webhooks_sent": svc.webhooks.sent,
            "webhooks_failed": svc.webhooks.failed,
            "webhooks_coalesced": svc.webhooks.coalesced,
            "webhooks_suspended": svc.webhooks.suspended,
            "webhooks_pending": svc.webhooks.pending,
            "answers_cached": len(svc.answers),
            "answers_cached_bytes": svc.answers.size,
            "answers_built": svc.builders.done,
            "answers_refused": svc.builders.refused,
            "answer_workers": svc.builders.worker_pids(),
            **app.state.ratings.stats(),
            **app.state.mail.stats(),
        }

    @api.get("/api/boards/{side}")
    async def board(side: str) -> dict[str, Any]:
        try:
            return board_layout(load_board(side))
        except ValueError as exc:
            raise ServiceError(
                404, f"there is no board side {side[:12]!r}; sides are 2-3, 4-5, east, britannia_3 and britannia_45",
            ) from exc

    app.include_router(profiles_router(lambda: service().store.engine, SERVER_BOTS))

    # -------------------------------------------------------------- games

    def creation_allowed(request: Request) -> None:
        """429 when this client has used up its --create-per-minute (games and tutorials count together)."""
        wait = creations.take(client_key(request.scope))
        if wait > 0:
            raise ServiceError(
                429, f"this client may create {cfg.create_per_minute} games a minute; wait {math.ceil(wait)} s",
                None, {"Retry-After": str(math.ceil(wait))},
            )

    @api.post("/api/games", status_code=201)
    async def create_game(body: CreateGame, request: Request) -> dict[str, Any]:  # type: ignore[valid-type]
        creation_allowed(request)
        data = body.model_dump()  # type: ignore[attr-defined]
        clock = data["clock"]
        if clock is not None:
            clock = {k: v for k, v in clock.items() if v is not None}
        live, tokens, hotseat, creator = await service().create(
            data["players"], data["options"], data["seed"], data["table"], clock, client=client_key(request.scope),
        )
        return created(live, tokens, hotseat, creator)

    @api.post("/api/tutorial", status_code=201)
    async def create_tutorial(body: TutorialIn, request: Request) -> dict[str, Any]:  # type: ignore[valid-type]
        """A "Learn to play" game: a hot-seat game of the chapter's script, counted and bounded as POST /api/games."""
        creation_allowed(request)
        chapter = body.chapter  # type: ignore[attr-defined]
        seats = tutorial_players(chapter, body.name or "You")  # type: ignore[attr-defined]
        same = duplicate_names([p["name"] for p in seats])
        if same is not None:
            raise ServiceError(400, f"the name {seats[0]['name']!r} is taken by a player of the tutorial; choose another")
        live, tokens, hotseat, creator = await service().create(
            seats, {}, tutorial_public(chapter)["seed"], {"hints": False, "hotseat": True, "tutorial": chapter}, None,
            client=client_key(request.scope), prefix=tutorial_prefix(chapter),
        )
        return created(live, tokens, hotseat, creator)

    @api.get("/api/tutorial/{chapter}")
    async def tutorial_script(chapter: str) -> dict[str, Any]:
        if chapter not in CHAPTERS:
            raise ServiceError(404, f"there is no tutorial chapter {chapter[:20]!r}; chapters are {', '.join(CHAPTERS)}")
        return tutorial_public(chapter)

    def created(live: LiveGame, tokens: list[str | None], hotseat: str | None, creator: str) -> dict[str, Any]:
        """The answer to a game's creation: its id, links and every seat's token."""
        return {
            "id": live.id,
            "version": live.version,
            "seed": live.game.seed if live.seed_public else None,
            "creator_token": creator,
            "hotseat_token": hotseat,
            "hotseat_url": f"/game/{live.id}#token={hotseat}" if hotseat else None,
            "spectator_url": f"/game/{live.id}",
            "seats": [
                {
                    "seat": i,
                    "name": s.name,
                    "type": s.type,
                    "bot": s.bot,
                    "token": tokens[i],
                    "url": f"/game/{live.id}#token={tokens[i]}" if tokens[i] else None,
                }
                for i, s in enumerate(live.seats)
            ],
        }

    @api.get("/api/games")
    async def list_games(
        limit: Annotated[int, Query(ge=1, le=100)] = 50,
        before: Annotated[str | None, Query(max_length=100)] = None,
        status: STATUSES | None = None,
    ) -> Response:
        return Response(await service().lobby(limit, before, status), media_type="application/json")

    def view_response(live: LiveGame, token: Credential) -> Response:
        return Response(with_now(view_json(live, live.seats_of(token)), clock_now()), media_type="application/json")

    TokenHeader = Annotated[str | None, Header(alias="X-Hansa-Token")]

    async def credential(request: Request, header: str | None) -> Credential:
        """What a request acts with: its ``X-Hansa-Token`` if it has one (the cookie is then ignored), else its
        account's session (state-changing requests must carry the session's CSRF token: 403 otherwise)."""
        if header is not None:
            return token_of(header)
        session = await club().session_of(request)
        return AccountKey(session.account) if session is not None else None

    @api.get("/api/games/{game_id}")
    async def get_game(game_id: str, request: Request, x_hansa_token: TokenHeader = None) -> Response:
        return view_response(await game(game_id), await credential(request, x_hansa_token))

    @api.get("/api/games/{game_id}/position")
    async def get_position(game_id: str, request: Request, x_hansa_token: TokenHeader = None) -> dict[str, Any]:
        """The decision of the token's seat (or the signed-in account's seat: only its own) as an engine-protocol
        request (docs/engine-protocol.md): hidden markers and the other seats' mission cards dealt again at random,
        the record without its seed."""
        live = await game(game_id)
        seats = [s for s in live.seats_of(await credential(request, x_hansa_token)) if live.seats[s].type == "human"]
        if not seats:
            raise ServiceError(403, "the position is for a seat of this game: its token, or the session of the account that holds it")
        state = live.game.state
        if live.status != RUNNING or state.is_over or state.decider not in seats:
            raise ServiceError(409, "none of the token's seats must decide now")
        message = decide_message(live.version, state, cfg.engine_seconds, random.Random(secrets.randbits(64)),
                                 game=live.game)
        return {"version": live.version, "seat": state.decider, "request": message}

    @api.post("/api/games/{game_id}/moves")
    async def post_move(game_id: str, body: MoveIn, request: Request, x_hansa_token: TokenHeader = None) -> Response:  # type: ignore[valid-type]
        await game(game_id)
        tok = await credential(request, x_hansa_token)
        live = await service().play(game_id, tok, body.move, body.version, body.seat, still_wanted(request))  # type: ignore[attr-defined]
        return view_response(live, tok)

    @api.post("/api/games/{game_id}/undo")
    async def post_undo(game_id: str, body: UndoIn, request: Request, x_hansa_token: TokenHeader = None) -> Response:
        await game(game_id)
        tok = await credential(request, x_hansa_token)
        live = await service().undo(game_id, tok, body.version, body.seat, still_wanted(request))
        return view_response(live, tok)

    @api.post("/api/games/{game_id}/back")
    async def come_back(game_id: str, body: SeatIn, request: Request, x_hansa_token: TokenHeader = None) -> Response:
        """The player of a seat a bot plays after a timeout takes it back."""
        await game(game_id)
        tok = await credential(request, x_hansa_token)
        return view_response(await service().come_back(game_id, tok, body.seat), tok)

    @api.post("/api/games/{game_id}/takeover")
    async def takeover(game_id: str, body: TakeoverIn, request: Request, x_hansa_token: TokenHeader = None) -> Response:
        """Vote for a bot to take over an abandoned seat (``bot: null`` withdraws the vote)."""
        await game(game_id)
        tok = await credential(request, x_hansa_token)
        return view_response(await service().vote_takeover(game_id, tok, body.seat, body.bot), tok)

    @api.put("/api/games/{game_id}/webhook")
    async def webhook(game_id: str, body: WebhookIn, request: Request,
                      x_hansa_token: TokenHeader = None) -> dict[str, Any]:
        """Set (``url``) or remove (``null``) the seat's "your turn" webhook."""
        await game(game_id)
        return await service().set_webhook(game_id, await credential(request, x_hansa_token), body.seat, body.url)

    @api.post("/api/my-games")
    async def my_games(body: MyGamesIn) -> dict[str, Any]:
        """The games of the seat tokens a browser holds: status, whose decision, the tokens' seats, time left."""
        return await service().my_games([(g.id, g.token) for g in body.games])

    @api.post("/api/account/seats")
    async def attach_seat(body: AttachIn, request: Request, x_hansa_token: TokenHeader = None) -> dict[str, Any]:
        """Make the seat of the link in ``X-Hansa-Token`` the signed-in account's (the link then only watches)."""
        session = await club().require(request)
        if not x_hansa_token or token_of(x_hansa_token) is None:
            raise ServiceError(400, "send the seat's link token in the X-Hansa-Token header")
        await game(body.game)
        seat = await service().attach_seat(body.game, x_hansa_token, session.account)
        return {"game": body.game, "seat": seat}

    @api.get("/api/account/games")
    async def account_games(request: Request) -> dict[str, Any]:
        """The signed-in account's games, newest first (at most 100), as "my games" entries."""
        session = await club().require(request)
        return await service().account_games(session.account)

    @api.get("/my-games", include_in_schema=False)
    async def my_games_page() -> FileResponse:
        return FileResponse(STATIC / "my-games.html")

    @api.post("/api/games/{game_id}/stop")
    async def stop_game(game_id: str, x_hansa_token: TokenHeader = None) -> Response:
        await game(game_id)
        live = await service().stop_game(game_id, token_of(x_hansa_token))
        return view_response(live, None)

    @api.delete("/api/games/{game_id}", status_code=204)
    async def delete_game(game_id: str, x_hansa_token: TokenHeader = None) -> Response:
        await game(game_id)
        await service().delete_game(game_id, token_of(x_hansa_token))
        return Response(status_code=204)

    @api.post("/api/games/{game_id}/hint")
    async def hint(game_id: str, request: Request, x_hansa_token: TokenHeader = None) -> Response:
        """The heuristic bot's move for the deciding seat, with a reason (``{"kind", ...}``, see hints.py)."""
        await game(game_id)
        answer = await service().hint(game_id, await credential(request, x_hansa_token), client_key(request.scope))
        return Response(answer, media_type="application/json")

    @api.get("/api/games/{game_id}/record")
    async def record(game_id: str, request: Request) -> Response:
        live = await game(game_id)
        return Response(
            await service().record_json(live, client_key(request.scope)),
            media_type="application/json",
            headers={"Content-Disposition": f'attachment; filename="hansa-{live.id}.json"'},
        )

    Start = Annotated[int, Query(ge=0, le=10**9)]

    @api.get("/api/games/{game_id}/history")
    async def history(
        game_id: str, request: Request, start: Start = 0,
        limit: Annotated[int, Query(ge=1, le=MAX_HISTORY_LIMIT)] = HISTORY_LIMIT,
    ) -> Response:
        """In-game scores after every move (a page), and the final breakdown once over, for the score chart."""
        live = await game(game_id)
        return Response(await service().history(live, start, limit, client_key(request.scope)),
                        media_type="application/json")

    @api.get("/api/games/{game_id}/log")
    async def move_log(
        game_id: str, request: Request, start: Start = 0,
        limit: Annotated[int, Query(ge=1, le=MAX_LOG_LIMIT)] = LOG_LIMIT,
    ) -> Response:
        """A page of the moves with their seat, turn, JSON form, delta and maker, for the replay viewer (public
        information only)."""
        live = await game(game_id)
        return Response(await service().move_log(live, start, limit, client_key(request.scope)),
                        media_type="application/json")

    @api.get("/api/games/{game_id}/replay/{k}")
    async def replay(game_id: str, k: int, request: Request) -> Response:
        live = await game(game_id)
        return Response(await service().replay_at(live, k, client_key(request.scope)), media_type="application/json")

    @app.websocket("/api/games/{game_id}/ws")
    async def game_socket(ws: WebSocket, game_id: str) -> None:
        offered = ws.scope.get("subprotocols", ())
        subprotocol = "hansa" if "hansa" in offered else None
        try:
            live = await game(game_id)
        except ServiceError as exc:
            await ws.accept(subprotocol=subprotocol)
            await ws.close(code=4404 if exc.status == 404 else 4409, reason=exc.message[:120])
            return
        token: Credential = socket_token(ws)
        if token is None:  # a signed-in page: its session (only from this server's own pages)
            session = await club().socket_session(ws)
            token = AccountKey(session.account) if session is not None else None
        seats = tuple(live.seats_of(token))
        client = client_key(ws.scope)
        refusal = hub.refusal(live.id, client, seats)
        if refusal is not None:
            await ws.send_denial_response(
                JSONResponse({"error": refusal, "rule": None}, status_code=429, headers={"Retry-After": "30"})
            )
            return
        sub = Subscriber(ws, live.id, seats, client, cfg, lambda: live.version, clock_now)
        hub.add(sub)
        try:
            await ws.accept(subprotocol=subprotocol)
            sub.offer_view(view_message(live, seats))
            await sub.run()
        finally:
            hub.remove(sub)

    return app


def app_from_env() -> FastAPI:
    """The app of one process of ``hansa serve --workers N`` (database URL and settings from the environment)."""
    return create_app()
