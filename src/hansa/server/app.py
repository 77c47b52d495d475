"""The FastAPI application: REST for the lobby and moves, a WebSocket per game for live updates, the static
browser client.  See docs/api.md."""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import multiprocessing
import os
from collections.abc import AsyncIterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import fields
from pathlib import Path
from typing import Any, Literal, get_args, get_type_hints

from fastapi import FastAPI, Header, Query, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field, field_validator, model_validator

from ..bots import bot_spec_ok
from ..core.board import load_board
from ..core.options import GameOptions
from ..record import game_to_record
from ..view import board_layout
from .db import DEFAULT_URL, make_engine, make_sessionmaker, migrate
from .games import SERVER_BOTS, GameService, LiveGame, ServiceError

STATIC = Path(__file__).parent / "static"
log = logging.getLogger("hansa.server")


class PlayerIn(BaseModel):
    name: str = Field(min_length=1, max_length=30)
    type: Literal["human", "bot"] = "human"
    bot: str | None = None

    @field_validator("name")
    @classmethod
    def _clean_name(cls, v: str) -> str:
        v = " ".join(v.split())
        if not v or any(ord(ch) < 32 for ch in v):
            raise ValueError("a name needs visible characters")
        return v

    @model_validator(mode="after")
    def _bot_spec(self) -> PlayerIn:
        if self.type == "bot":
            self.bot = self.bot or "heuristic"
            if not bot_spec_ok(self.bot) or self.bot in ("uniform",):
                raise ValueError(f"unknown bot {self.bot!r}; bots are {', '.join(SERVER_BOTS)}")
        else:
            self.bot = None
        return self


class CreateGame(BaseModel):
    players: list[PlayerIn] = Field(min_length=2, max_length=5)
    options: dict[str, Any] = Field(default_factory=dict)
    seed: int | None = Field(default=None, ge=0, le=2**62)


class MoveIn(BaseModel):
    move: str | dict[str, Any]
    version: int | None = None
    seat: int | None = None


class UndoIn(BaseModel):
    version: int | None = None
    seat: int | None = None


def create_app(
    database_url: str | None = None,
    *,
    bot_delay: float | None = None,
    bot_processes: int | None = None,
) -> FastAPI:
    """Build the app.  ``database_url`` defaults to $HANSA_DATABASE_URL or ``sqlite:///hansa.sqlite3``."""
    url = database_url or os.environ.get("HANSA_DATABASE_URL") or DEFAULT_URL
    delay = bot_delay if bot_delay is not None else float(os.environ.get("HANSA_BOT_DELAY", "0.3"))
    processes = bot_processes if bot_processes is not None else int(os.environ.get("HANSA_BOT_PROCESSES", "1"))

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        engine = make_engine(url)
        await asyncio.to_thread(migrate, engine)
        pool = None
        if processes > 0:
            pool = ProcessPoolExecutor(processes, mp_context=multiprocessing.get_context("spawn"))
        service = GameService(make_sessionmaker(engine), bot_delay=delay, process_pool=pool)
        service.on_change = broadcast
        app.state.service = service
        await service.start()
        # Move everything loaded so far (modules, the board, restored games) out of the garbage collector's
        # view: full collections then scan only what was created since, which keeps their pauses (felt as
        # move latency) short.
        gc.collect()
        gc.freeze()
        try:
            yield
        finally:
            await service.stop()
            engine.dispose()

    app = FastAPI(title="hansa", version="0.1.0", lifespan=lifespan)
    sockets: dict[str, set[tuple[WebSocket, tuple[int, ...]]]] = {}

    async def broadcast(live: LiveGame) -> None:
        service: GameService = app.state.service
        for ws, seats in list(sockets.get(live.id, ())):
            try:
                await ws.send_text('{"type":"view","view":' + service.view_json(live, list(seats)) + "}")
            except Exception:  # noqa: BLE001 - a dead socket is dropped
                sockets.get(live.id, set()).discard((ws, seats))

    @app.exception_handler(ServiceError)
    async def _service_error(_request: Request, exc: ServiceError) -> JSONResponse:
        return JSONResponse({"error": exc.message, "rule": exc.rule}, status_code=exc.status)

    def service() -> GameService:
        return app.state.service  # type: ignore[no-any-return]

    def token_of(token: str | None, header: str | None) -> str | None:
        return token or header

    # -------------------------------------------------------------- pages

    @app.get("/", include_in_schema=False)
    async def lobby_page() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/game/{game_id}", include_in_schema=False)
    async def game_page(game_id: str) -> FileResponse:
        return FileResponse(STATIC / "game.html")

    @app.get("/replay/{game_id}", include_in_schema=False)
    async def replay_page(game_id: str) -> FileResponse:
        return FileResponse(STATIC / "replay.html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    # -------------------------------------------------------------- reference data

    @app.get("/api/bots")
    async def bots() -> dict[str, Any]:
        return {"bots": list(SERVER_BOTS), "default": "heuristic"}

    @app.get("/api/options")
    async def options() -> dict[str, Any]:
        hints = get_type_hints(GameOptions)
        default = GameOptions()
        out = {}
        for f in fields(GameOptions):
            hint = hints[f.name]
            values = [True, False] if hint is bool else list(get_args(hint))
            out[f.name] = {"values": values, "default": getattr(default, f.name)}
        return {"options": out}

    @app.get("/api/boards/{side}")
    async def board(side: str) -> dict[str, Any]:
        try:
            return board_layout(load_board(side))
        except ValueError as exc:
            raise ServiceError(404, str(exc)) from exc

    # -------------------------------------------------------------- games

    @app.post("/api/games", status_code=201)
    async def create_game(body: CreateGame) -> dict[str, Any]:
        live, tokens, hotseat = await service().create([p.model_dump() for p in body.players], body.options, body.seed)
        return {
            "id": live.id,
            "version": live.version,
            "hotseat_token": hotseat,
            "hotseat_url": f"/game/{live.id}?token={hotseat}",
            "spectator_url": f"/game/{live.id}",
            "seats": [
                {
                    "seat": i,
                    "name": s.name,
                    "type": s.type,
                    "bot": s.bot,
                    "token": tokens[i],
                    "url": f"/game/{live.id}?token={tokens[i]}" if tokens[i] else None,
                }
                for i, s in enumerate(live.seats)
            ],
        }

    @app.get("/api/games")
    async def list_games(limit: int = Query(50, ge=1, le=500)) -> dict[str, Any]:
        return {"games": await service().db_call(service().list_games, limit)}

    def view_response(live: LiveGame, token: str | None) -> Response:
        return Response(service().view_json(live, live.seats_of(token)), media_type="application/json")

    @app.get("/api/games/{game_id}")
    async def get_game(game_id: str, token: str | None = None, x_hansa_token: str | None = Header(None)) -> Response:
        live = await service().get(game_id)
        return view_response(live, token_of(token, x_hansa_token))

    @app.post("/api/games/{game_id}/moves")
    async def post_move(
        game_id: str, body: MoveIn, token: str | None = None, x_hansa_token: str | None = Header(None)
    ) -> Response:
        tok = token_of(token, x_hansa_token)
        live = await service().play(game_id, tok, body.move, body.version, body.seat)
        return view_response(live, tok)

    @app.post("/api/games/{game_id}/undo")
    async def post_undo(
        game_id: str, body: UndoIn, token: str | None = None, x_hansa_token: str | None = Header(None)
    ) -> Response:
        tok = token_of(token, x_hansa_token)
        live = await service().undo(game_id, tok, body.version, body.seat)
        return view_response(live, tok)

    @app.get("/api/games/{game_id}/record")
    async def record(game_id: str) -> Response:
        live = await service().get(game_id)
        data = game_to_record(live.game)
        return Response(
            json.dumps(data, indent=1) + "\n",
            media_type="application/json",
            headers={"Content-Disposition": f'attachment; filename="hansa-{game_id}.json"'},
        )

    @app.get("/api/games/{game_id}/history")
    async def history(game_id: str) -> dict[str, Any]:
        live = await service().get(game_id)
        return service().history(live)

    @app.get("/api/games/{game_id}/replay/{k}")
    async def replay(game_id: str, k: int) -> dict[str, Any]:
        live = await service().get(game_id)
        return service().replay_at(live, k)

    @app.websocket("/api/games/{game_id}/ws")
    async def game_socket(ws: WebSocket, game_id: str, token: str | None = None) -> None:
        try:
            live = await service().get(game_id)
        except ServiceError as exc:
            await ws.close(code=4404, reason=exc.message[:120])
            return
        await ws.accept()
        seats = tuple(live.seats_of(token))
        entry = (ws, seats)
        sockets.setdefault(game_id, set()).add(entry)
        try:
            await ws.send_text('{"type":"view","view":' + service().view_json(live, list(seats)) + "}")
            while True:
                message = await ws.receive_text()
                if message and '"ping"' in message:
                    await ws.send_text(json.dumps({"type": "pong", "version": live.version}))
        except WebSocketDisconnect:
            pass
        finally:
            sockets.get(game_id, set()).discard(entry)

    return app
