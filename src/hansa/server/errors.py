"""Errors in the API's one format, ``{"error": message, "rule": "§2.4" | null}``, for every failure.

* :class:`ServiceError` carries a status, a message and the rule it names;
* request bodies are parsed strictly (UTF-8, standard JSON: no NaN or Infinity, bounded nesting) by
  :class:`StrictRoute`;
* :func:`install_handlers` turns validation errors (FastAPI's 422 ``{"detail": [...]}``) into 400 in the API's
  format without echoing the input, HTTP errors (404, 405, 413) into the same format, and anything unexpected into a
  logged 500 that says nothing about the server's insides.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import FastAPI, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException as StarletteHTTPException

log = logging.getLogger("hansa.server")

#: Longest error message sent back (messages quote bounded input only; this is a last guard).
MAX_MESSAGE = 400


class ServiceError(Exception):
    """An error for the client: HTTP ``status``, message, the rule it names (if any), extra response headers."""

    def __init__(self, status: int, message: str, rule: str | None = None, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.rule = rule
        self.headers = headers


def error_response(status: int, message: str, rule: str | None = None, headers: dict[str, str] | None = None) -> JSONResponse:
    if len(message) > MAX_MESSAGE:
        message = message[: MAX_MESSAGE - 1] + "…"
    return JSONResponse({"error": message, "rule": rule}, status_code=status, headers=headers)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def strict_json(body: bytes) -> Any:
    """Parse a request body: UTF-8, standard JSON only.  Raises a 400 HTTPException otherwise (FastAPI passes
    HTTPExceptions raised while it reads a body on to the app's handler)."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise StarletteHTTPException(400, f"the request body is not UTF-8 (byte {exc.start})") from None
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise StarletteHTTPException(400, f"the request body is not valid JSON: {exc.msg} (line {exc.lineno} column {exc.colno})") from None
    except ValueError as exc:  # NaN, Infinity, an integer with too many digits
        raise StarletteHTTPException(400, f"the request body is not valid JSON: {exc}"[:200]) from None
    except RecursionError:
        raise StarletteHTTPException(400, "the request body is nested too deeply") from None


class StrictRequest(Request):
    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            self._json = strict_json(await self.body())
        return self._json


class StrictRoute(APIRoute):
    """Routes whose JSON bodies are parsed by :func:`strict_json`."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def strict_handler(request: Request) -> Response:
            return await handler(StrictRequest(request.scope, request.receive))

        return strict_handler


def _location(error: dict[str, Any]) -> str:
    # pydantic also names the union branch it tried ("constrained-str", "dict[str,...]"): a reader wants the field
    parts = [
        str(p) for p in error.get("loc", ())
        if isinstance(p, int) or (p not in ("body", "query", "path", "header", "str", "int", "bool") and str(p).isidentifier())
    ]
    return ".".join(parts)


def validation_message(errors: list[Any]) -> str:
    """A short description of pydantic errors, without the input that caused them."""
    seen: list[str] = []
    for error in errors[:5]:
        where = _location(error)
        text = f"{where}: {error.get('msg', 'invalid')}" if where else str(error.get("msg", "invalid"))
        if text not in seen:
            seen.append(text)
    more = len(errors) - 5
    return "; ".join(seen) + (f" (and {more} more)" if more > 0 else "")


def install_handlers(app: FastAPI) -> None:
    @app.exception_handler(ServiceError)
    async def _service_error(_request: Request, exc: ServiceError) -> JSONResponse:
        return error_response(exc.status, exc.message, exc.rule, exc.headers)

    @app.exception_handler(RequestValidationError)
    async def _validation_error(_request: Request, exc: RequestValidationError) -> JSONResponse:
        return error_response(400, validation_message(list(exc.errors())))

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        return error_response(exc.status_code, str(exc.detail), None, dict(exc.headers) if exc.headers else None)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error on %s %s", request.method, request.url.path)
        return error_response(500, "internal error (logged on the server)")
