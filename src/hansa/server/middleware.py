"""ASGI middleware: request body limit (413) and security headers on every response."""

from __future__ import annotations

import json
from collections.abc import MutableMapping
from typing import Any

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

#: The browser client is plain ES modules, CSS and SVG from this server: nothing inline, nothing from elsewhere.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
#: FastAPI's interactive API pages load Swagger UI / ReDoc from a CDN (they work only with a network).
DOCS_CSP = (
    "default-src 'self'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
    "style-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net https://fonts.googleapis.com; "
    "img-src 'self' data: https://fastapi.tiangolo.com https://cdn.redoc.ly; font-src 'self' https://fonts.gstatic.com; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
)
SECURITY_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
    (b"permissions-policy", b"camera=(), microphone=(), geolocation=(), payment=()"),
]


def error_body(message: str, rule: str | None = None) -> bytes:
    return json.dumps({"error": message, "rule": rule}).encode()


async def send_error(send: Send, status: int, message: str, headers: list[tuple[bytes, bytes]] | None = None) -> None:
    """Answer a plain HTTP request with the API's error format (from middleware, outside FastAPI)."""
    body = error_body(message)
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
                *(headers or []),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


class BodyTooLarge(HTTPException):
    """Raised while reading a body past the limit.  An HTTPException, so FastAPI passes it to the app's handler
    (which answers 413 in the API's format) instead of turning it into "error parsing the body"."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, f"the request body is larger than {limit} bytes")


class SecurityHeaders:
    """Adds the security headers (CSP, nosniff, no referrer, no framing) to every HTTP response, and
    ``Cache-Control: no-store`` to the API's (views carry what a seat may see, creation answers carry tokens)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope.get("path", "")
        csp = DOCS_CSP if path in ("/docs", "/redoc") else CSP
        extra = [*SECURITY_HEADERS, (b"content-security-policy", csp.encode())]
        if path.startswith("/api/"):
            extra.append((b"cache-control", b"no-store"))

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [h for h in message.get("headers", []) if h[0].lower() not in _REPLACED]
                message = {**message, "headers": headers + extra}
            await send(message)

        await self.app(scope, receive, with_headers)


_REPLACED = {name for name, _ in SECURITY_HEADERS} | {b"content-security-policy", b"cache-control"}


class BodyLimit:
    """Refuses request bodies larger than ``max_body`` bytes with 413, before reading them when Content-Length
    says so, else as soon as the bytes received pass the limit; nothing of the body is echoed."""

    def __init__(self, app: ASGIApp, max_body: int) -> None:
        self.app = app
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        error = BodyTooLarge(self.max_body)
        length = _content_length(scope)
        if length is not None and length > self.max_body:
            await send_error(send, 413, error.detail)
            return
        received = 0
        started = False

        async def limited_receive() -> Message:
            nonlocal received
            msg = await receive()
            if msg["type"] == "http.request":
                received += len(msg.get("body", b""))
                if received > self.max_body:
                    raise error
            return msg

        async def tracking_send(msg: Message) -> None:
            nonlocal started
            if msg["type"] == "http.response.start":
                started = True
            await send(msg)

        try:
            await self.app(scope, limited_receive, tracking_send)
        except BodyTooLarge:
            if not started:
                await send_error(send, 413, error.detail)
        except BaseExceptionGroup as group:  # anyio task groups wrap it
            match, rest = group.split(BodyTooLarge)
            if match is None or rest is not None:
                raise
            if not started:
                await send_error(send, 413, error.detail)


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", []):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


def client_key(scope: MutableMapping[str, Any]) -> str:
    """The client's address (the key of the per-client limits)."""
    client = scope.get("client")
    return str(client[0]) if client else "unknown"
