"""``hansa bot-bridge``: an engine plays one seat of a game on a running hansa server, through the public API.

It acts as a seat token (the ``X-Hansa-Token`` header) or as a signed-in account (its session cookie, the CSRF token
on every post: :class:`~hansa.engine.account.AccountSession`), playing the account's seat.
It watches the game on its WebSocket (``/api/games/{id}/ws``);
whenever the seat must decide it reads ``GET /api/games/{id}/position`` (the decision as an engine-protocol request,
hidden information dealt again), asks the engine (an :class:`~hansa.engine.EngineBot`, one process for the whole
game, with its fallback bot for the decisions it fails) and posts the move with the view's ``version``.  A dropped
connection is opened again (backoff up to 5 s) for up to ``reconnect_for`` seconds; it ends when the game is over,
stopped or abandoned.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NoReturn
from urllib.parse import urlsplit

from ..core.errors import HansaError
from ..core.state import GameState
from .client import EngineBot

if TYPE_CHECKING:
    from .account import AccountSession

log = logging.getLogger("hansa.engine")

#: WebSocket close codes after which the game is gone (docs/api.md): no reconnecting.
GONE = {4404: "unknown game", 4409: "the game is damaged", 4410: "the game was deleted"}


class BridgeError(HansaError):
    """The bridge cannot go on (bad arguments, the game is gone, the server unreachable for too long)."""


@dataclass
class BridgeResult:
    """What the bridge did: the game's final status, the moves it posted, how many its fallback bot played, and
    how often it connected."""

    status: str
    moves: int
    fallbacks: int
    connections: int


def server_base(server: str) -> str:
    """The server's base URL (``scheme://host:port``) from ``--server``."""
    parts = urlsplit(server)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise BridgeError(f"--server must be an http:// or https:// address, not {server!r}")
    return f"{parts.scheme}://{parts.netloc}"


def game_address(server: str, game: str | None) -> tuple[str, str]:
    """``(base URL, game id)`` from ``--server`` (the server, or a game's page ``.../game/ID``) and ``--game``."""
    base = server_base(server)
    path = urlsplit(server).path.rstrip("/")
    if game is None and "/game/" in path:
        game = path.rsplit("/game/", 1)[1]
    if not game or not game.isascii() or not game.isalnum() or len(game) > 40:
        raise BridgeError("give the game: --game ID, or --server http://HOST/game/ID")
    return base, game


class Bridge:
    """One seat of one game, played by ``bot``: the seat of ``token``, or the seat ``account`` (signed in) holds."""

    def __init__(self, server: str, token: str | None, bot: EngineBot, game: str | None = None, *,
                 account: AccountSession | None = None, reconnect_for: float = 60.0,
                 say: Callable[[str], None] = print) -> None:
        import httpx

        if (token is None) == (account is None):
            raise BridgeError("play as a seat (--token) or as an account (--account), not both")
        if token is not None and (not token or len(token) > 200):
            raise BridgeError("--token: the seat's token (from its link, after #token=)")
        if not 0 < reconnect_for <= 86400:
            raise BridgeError("--reconnect-for: above 0 and at most 86400 seconds")
        self.base, self.game = game_address(server, game)
        self.token = token
        self.account = account
        self.bot = bot
        self.reconnect_for = reconnect_for
        self.say = say
        self.http = account.http if account is not None else httpx.Client(
            base_url=self.base, headers={"X-Hansa-Token": token or ""}, timeout=15.0)
        self.moves = 0
        self.connections = 0
        self._played: set[int] = set()

    def run(self) -> BridgeResult:
        """Play until the game ends; the result."""
        from websockets.exceptions import ConnectionClosed, InvalidStatus
        from websockets.sync.client import connect

        ws_url = self.base.replace("http", "ws", 1) + f"/api/games/{self.game}/ws"
        last_ok = time.monotonic()
        failures = 0
        try:
            while True:
                try:
                    with connect(ws_url, additional_headers=self._socket_headers(), open_timeout=10,
                                 max_size=1 << 24) as ws:
                        self.connections += 1
                        failures = 0
                        while True:
                            try:
                                raw = ws.recv(timeout=30.0)
                            except TimeoutError:
                                ws.send(json.dumps({"type": "ping"}))
                                continue
                            last_ok = time.monotonic()
                            data = json.loads(raw)
                            if data.get("type") != "view":
                                continue
                            status = self._on_view(data["view"])
                            if status is not None:
                                return self._result(status)
                except ConnectionClosed as exc:
                    code = exc.rcvd.code if exc.rcvd is not None else None
                    if code in GONE:
                        raise BridgeError(f"game {self.game}: {GONE[code]}") from None
                    why = f"connection closed ({code})"
                except InvalidStatus as exc:
                    code = exc.response.status_code
                    if code in (403, 404):
                        raise BridgeError(f"game {self.game}: the server refused the connection ({code})") from None
                    why = f"connection refused ({code})"
                except (OSError, TimeoutError) as exc:
                    why = f"cannot connect: {exc}"
                failures += 1
                if time.monotonic() - last_ok > self.reconnect_for:
                    raise BridgeError(f"{self.base}: no connection for {self.reconnect_for:g} s ({why})")
                wait = min(5.0, 0.25 * 2 ** failures)
                self.say(f"{why}; connecting again in {wait:g} s")
                time.sleep(wait)
        finally:
            self.bot.close()
            self.http.close()

    def _socket_headers(self) -> dict[str, str]:
        return self.account.socket_headers() if self.account is not None else {"X-Hansa-Token": self.token or ""}

    def _refused(self, what: str, answer: Any) -> NoReturn:
        """A 401/403 of the server: as an account, :class:`SessionEnded` when its session is gone."""
        if self.account is not None and answer.status_code in (401, 403):
            self.account.check(what)
        raise BridgeError(f"{what}: {answer.status_code} {answer.text[:200]}")

    def _result(self, status: str) -> BridgeResult:
        return BridgeResult(status, self.moves, self.bot.fallbacks, self.connections)

    def _on_view(self, view: dict[str, Any]) -> str | None:
        """Act on a view: the game's status when it has ended, else None (after moving if the seat decides)."""
        if view.get("status") != "running":
            return str(view.get("status"))
        if self.account is not None and not view.get("you"):  # the socket no longer (or never) knew the account
            self.account.check(f"game {self.game}", f"account {self.account.name!r} holds no seat of game {self.game}")
        version = int(view["version"])
        if view.get("legal") and version not in self._played:
            self._move(version)
        return None

    def _move(self, version: int) -> None:
        import httpx

        try:
            answer = self.http.get(f"/api/games/{self.game}/position")
        except httpx.HTTPError as exc:
            raise OSError(f"reading the position: {exc}") from None  # reconnect, then look again
        if answer.status_code == 409:
            return  # the game moved on meanwhile
        if answer.status_code != 200:
            self._refused("GET position", answer)
        body = answer.json()
        if body["version"] != version:
            return  # an older view: a newer one is on its way
        request = body["request"]
        state = GameState.from_snapshot(request["position"])
        self.bot.record = request.get("game")
        move = self.bot.choose(state)
        try:
            posted = self.http.post(f"/api/games/{self.game}/moves",
                                    json={"move": move.text(), "version": version, "seat": body["seat"]},
                                    headers=self.account.headers() if self.account is not None else None)
        except httpx.HTTPError as exc:
            raise OSError(f"posting the move: {exc}") from None
        if posted.status_code == 200:
            self._played.add(version)
            self.moves += 1
        elif posted.status_code == 409:
            log.info("game %s changed before move %s arrived; looking again", self.game, move.text())
        else:
            self._refused(f"the server refused {move.text()!r}", posted)
