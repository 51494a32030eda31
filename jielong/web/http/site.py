"""What every request goes through, in one pure-ASGI layer: one pass over
its headers and one hook on its answer.

* the body limit (:mod:`jielong.web.http.limits`): 413 before an oversized body
  is read;
* the player id from the signed cookie, or a new one, and the security
  headers (:mod:`jielong.web.http.security`); ``Cache-Control: no-store`` on the
  API's answers; the shell version on pages (:mod:`jielong.web.views.pwa`);
* the end of a storage outage seen in a game answer
  (:mod:`jielong.web.http.storage`);
* metrics and the access log (:mod:`jielong.web.http.telemetry`).

Each was a middleware of its own, each wrapping the answer again and parsing
the headers again: with the router, they took about two fifths of a move's
CPU in the app.

The move route (:class:`~jielong.web.http.fastbody.JsonBodyRoute`) is also
dispatched from here, past the router and the framework's per-route
layers: its answer is small JSON, sent as is (under :data:`GZIP_JSON_FROM`
bytes it fits in the first round trip of a connection either way, and
compressing it would cost a tenth of the action), and what it raises is
answered by the app's own exception handlers, as the framework would.
Everything else goes on through gzip, the framework and the router.
"""

from __future__ import annotations

import gzip
import inspect
import re
import time
from concurrent.futures import Executor
from typing import Any

from fastapi import FastAPI, Request
from starlette.requests import ClientDisconnect
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from jielong.web.http import telemetry
from jielong.web.http.fastbody import JsonBodyRoute
from jielong.web.http.limits import MAX_BODY_BYTES, BodyLimit
from jielong.web.http.security import PlayerIds, SiteHeaderValues
from jielong.web.http.storage import Outage
from jielong.web.views.pwa import SHELL_HEADER, shell_version

GZIP_JSON_FROM = 4096
"""A move's answer this large or larger is compressed when the client takes gzip."""

_HTML = b"text/html"
_SHELL_HEADER = SHELL_HEADER.lower().encode()


class _FastRoute:
    __slots__ = ("method", "regex", "respond", "route")

    def __init__(self, route: JsonBodyRoute, threads: Executor) -> None:
        self.route = route
        self.regex: re.Pattern[str] = route.path_regex
        (self.method,) = route.methods or {"POST"}
        self.respond = route.responder(threads)


class Site:
    """The per-request work of the whole site (see the module's text)."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        players: PlayerIds,
        outage: Outage,
        direct: list[JsonBodyRoute],
        threads: Executor,
        limit: int = MAX_BODY_BYTES,
    ) -> None:
        """``direct``: the routes dispatched here (as the app serves them,
        with their full paths), their endpoints run in ``threads``."""
        self.app = app
        self.players = players
        self.outage = outage
        self.limit = BodyLimit(app, limit=limit)
        self.headers = SiteHeaderValues()
        self._routes = [_FastRoute(r, threads) for r in direct]
        self._handlers: dict[type[BaseException], Any] | None = None

    def _handler(self, fastapi: FastAPI, exc: Exception) -> Any:
        if self._handlers is None:
            # as the framework's exception layer takes them: by class, 500s aside
            self._handlers = {
                k: v
                for k, v in fastapi.exception_handlers.items()
                if isinstance(k, type) and k is not Exception
            }
        return next((self._handlers[c] for c in type(exc).__mro__ if c in self._handlers), None)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        method: str = scope["method"]
        path: str = scope["path"]
        too_large = chunked = takes_gzip = False
        cookies: list[bytes] = []
        for name, value in scope["headers"]:
            if name == b"content-length":
                too_large = too_large or self.limit.refuses(value)
            elif name == b"transfer-encoding":
                chunked = True
            elif name == b"cookie":
                cookies.append(value)
            elif name == b"accept-encoding":
                takes_gzip = b"gzip" in value
        player, new_cookie = self.players.from_cookie_headers(cookies)
        scope.setdefault("state", {})["player"] = player
        extra = self.headers.for_request(path, new_cookie, scope.get("scheme") == "https")
        api = path.startswith("/api/")
        games = path.startswith("/api/games")
        kind = telemetry.request_kind(method, path)
        counted = kind in ("create", "action")
        request_body = bytearray()
        answer_body = bytearray()
        status = 500
        size = 0
        gzipped = False
        outage = self.outage

        async def receive_copy() -> Message:
            message = await receive()
            if message["type"] == "http.request" and len(request_body) < telemetry.BODY_LIMIT:
                request_body.extend(message.get("body", b""))
            return message

        async def send_marked(message: Message) -> None:
            nonlocal status, size, gzipped
            if message["type"] == "http.response.start":
                status = message["status"]
                headers: list[tuple[bytes, bytes]] = list(message.get("headers", ()))
                cached = page = False
                for name, value in headers:
                    if name == b"content-type":
                        page = value.startswith(_HTML)
                    elif name == b"cache-control":
                        cached = True
                    elif name == b"content-encoding":
                        gzipped = value == b"gzip"
                if page:
                    headers.append((_SHELL_HEADER, shell_version().encode()))
                headers += extra
                if api and not cached:
                    headers.append((b"cache-control", b"no-store"))
                message["headers"] = headers
                if outage.failing and games and 200 <= status < 300:
                    outage.succeeded()
            elif message["type"] == "http.response.body":
                chunk = message.get("body", b"")
                size += len(chunk)
                if kind == "hint" and len(answer_body) < telemetry.BODY_LIMIT:
                    answer_body.extend(chunk)
            await send(message)

        pool = scope["app"].state.hints if kind == "hint" else None
        if pool is not None:
            telemetry.HINT_QUEUE.set(pool.submitted + 1)
        try:
            if too_large:
                await self.limit.refuse(scope, send_marked)
                return
            fast = self._match(scope, method, path) if kind == "action" else None
            # a move's body is read here, whole, and counted from that
            inner = receive_copy if counted and fast is None else receive
            if chunked:
                replay = await self.limit.whole_body(scope, inner, send_marked)
                if replay is None:
                    return
                inner = replay
            if fast is not None:
                raw = await _whole_body(inner)
                request_body += raw[: telemetry.BODY_LIMIT]
                await self._fast(fast, scope, inner, raw, send_marked, takes_gzip)
            else:
                await self.app(scope, inner, send_marked)
        finally:
            seconds = time.perf_counter() - start
            route = getattr(scope.get("route"), "path", None) or "unmatched"
            telemetry.request_done(method, route, status, seconds)
            if kind:
                answer = bytes(answer_body)
                if gzipped:
                    answer = telemetry.gunzip(answer)
                telemetry.count(kind, status, bytes(request_body), answer)
            if pool is not None:
                telemetry.HINT_QUEUE.set(pool.submitted)
            if telemetry.access_log.isEnabledFor(telemetry.INFO):
                telemetry.log(scope, route, status, seconds, size)

    def _match(self, scope: Scope, method: str, path: str) -> _FastRoute | None:
        root = scope.get("root_path", "")
        if root and path.startswith(root):
            path = path[len(root) :]
        for fast in self._routes:
            if method == fast.method:
                matched = fast.regex.match(path)
                if matched is not None:
                    scope["route"] = fast.route
                    scope["endpoint"] = fast.route.endpoint
                    scope["path_params"] = matched.groupdict()
                    return fast
        return None

    async def _fast(
        self,
        fast: _FastRoute,
        scope: Scope,
        receive: Receive,
        raw: bytes,
        send: Send,
        takes_gzip: bool,
    ) -> None:
        request = Request(scope, receive)
        try:
            response = await fast.respond(request, raw)
        except Exception as exc:
            handler = self._handler(scope["app"], exc)
            if handler is None:
                raise
            response = handler(request, exc)
            if inspect.isawaitable(response):
                response = await response
        if takes_gzip and len(response.body) >= GZIP_JSON_FROM:
            _compress(response)
        await response(scope, receive, send)


async def _whole_body(receive: Receive) -> bytes:
    """A request's body, as the framework's request reads it."""
    chunks = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise ClientDisconnect()
        if message["type"] == "http.request":
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                return b"".join(chunks)


def _compress(response: Response) -> None:
    body = gzip.compress(response.body, compresslevel=6, mtime=0)
    response.body = body
    response.headers["Content-Encoding"] = "gzip"
    response.headers["Content-Length"] = str(len(body))
    response.headers.add_vary_header("Accept-Encoding")
