"""What every request goes through, in one pure-ASGI layer: one pass over
its headers and one hook on its answer.

* the body limit (:mod:`jielong.web.http.limits`): 413 before an oversized body
  is read; and requests in progress per client address (behind a proxy
  its connections are shared: the address it forwarded counts);
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

from fastapi import FastAPI, Request
from starlette.requests import ClientDisconnect
from starlette.responses import Response
from starlette.types import ASGIApp, HTTPExceptionHandler, Message, Receive, Scope, Send

from jielong.web.http import telemetry
from jielong.web.http.fastbody import JsonBodyRoute
from jielong.web.http.limits import (
    MAX_BODY_BYTES,
    AddressRequests,
    BodyLimit,
    client_address,
    refuse_busy_address,
)
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


class _Heads:
    """What the site's work reads of a request's headers, in one pass."""

    __slots__ = ("chunked", "cookies", "takes_gzip", "too_large")

    def __init__(self, headers: list[tuple[bytes, bytes]], limit: BodyLimit) -> None:
        self.too_large = self.chunked = self.takes_gzip = False
        self.cookies: list[bytes] = []
        for name, value in headers:
            if name == b"content-length":
                self.too_large = self.too_large or limit.refuses(value)
            elif name == b"transfer-encoding":
                self.chunked = True
            elif name == b"cookie":
                self.cookies.append(value)
            elif name == b"accept-encoding":
                self.takes_gzip = b"gzip" in value


class _Exchange:
    """One request's answer as it goes out (its headers completed, its
    status and size seen) and what is counted of it once it is done."""

    __slots__ = (
        "answer_body",
        "api",
        "extra",
        "games",
        "gzipped",
        "kind",
        "method",
        "outage",
        "path",
        "size",
        "start",
        "status",
        "upstream",
    )

    def __init__(
        self,
        method: str,
        path: str,
        extra: list[tuple[bytes, bytes]],
        outage: Outage,
        upstream: Send,
    ) -> None:
        self.start = time.perf_counter()
        self.method, self.path, self.extra = method, path, extra
        self.outage, self.upstream = outage, upstream
        self.api = path.startswith("/api/")
        self.games = path.startswith("/api/games")
        self.kind = telemetry.request_kind(method, path)
        self.answer_body = bytearray()
        self.status = 500
        self.size = 0
        self.gzipped = False

    async def send(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self._start(message)
        elif message["type"] == "http.response.body":
            chunk = message.get("body", b"")
            self.size += len(chunk)
            if self.kind == "hint" and len(self.answer_body) < telemetry.BODY_LIMIT:
                self.answer_body.extend(chunk)
        await self.upstream(message)

    def _start(self, message: Message) -> None:
        self.status = status = message["status"]
        headers: list[tuple[bytes, bytes]] = list(message.get("headers", ()))
        cached = page = False
        for name, value in headers:
            if name == b"content-type":
                page = value.startswith(_HTML)
            elif name == b"cache-control":
                cached = True
            elif name == b"content-encoding":
                self.gzipped = value == b"gzip"
        if page:
            headers.append((_SHELL_HEADER, shell_version().encode()))
        headers += self.extra
        if self.api and not cached:
            headers.append((b"cache-control", b"no-store"))
        message["headers"] = headers
        if self.outage.failing and self.games and 200 <= status < 300:
            self.outage.succeeded()

    def finish(self, scope: Scope) -> None:
        """Metrics and the access log."""
        seconds = time.perf_counter() - self.start
        route = getattr(scope.get("route"), "path", None) or "unmatched"
        telemetry.request_done(self.method, route, self.status, seconds)
        if self.kind:
            answer = bytes(self.answer_body)
            if self.gzipped:
                answer = telemetry.gunzip(answer)
            telemetry.count(self.kind, self.status, telemetry.label_of(scope), answer)
        if telemetry.access_log.isEnabledFor(telemetry.INFO):
            telemetry.log(scope, route, self.status, seconds, self.size)


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
        self.requests = AddressRequests()
        self._handlers: dict[type[BaseException], HTTPExceptionHandler] | None = None

    def _handler(self, fastapi: FastAPI, exc: Exception) -> HTTPExceptionHandler | None:
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
        heads = _Heads(scope["headers"], self.limit)
        exchange = self._exchange(scope, heads, send)
        address = client_address(scope)
        pool = scope["app"].state.hints if exchange.kind == "hint" else None
        if pool is not None:
            telemetry.HINT_QUEUE.set(pool.submitted + 1)
        try:
            if not self.requests.enter(address):
                await refuse_busy_address(scope, exchange.send)
                return
            try:
                await self._dispatch(scope, receive, heads, exchange)
            finally:
                self.requests.leave(address)
        finally:
            exchange.finish(scope)
            if pool is not None:
                telemetry.HINT_QUEUE.set(pool.submitted)

    def _exchange(self, scope: Scope, heads: _Heads, send: Send) -> _Exchange:
        """The player (from the cookie, or a new one) in the scope, and the
        hook on the answer with the headers it gets."""
        https = scope.get("scheme") == "https"
        player, new_cookie = self.players.from_cookie_headers(heads.cookies, https=https)
        scope.setdefault("state", {})["player"] = player
        path: str = scope["path"]
        extra = self.headers.for_request(path, new_cookie, https)
        return _Exchange(scope["method"], path, extra, self.outage, send)

    async def _dispatch(
        self, scope: Scope, receive: Receive, heads: _Heads, exchange: _Exchange
    ) -> None:
        """The request to its handler: a refusal, the move route or the app."""
        send = exchange.send
        if heads.too_large:
            await self.limit.refuse(scope, send)
            return
        fast = None
        if exchange.kind == "action":
            fast = self._match(scope, exchange.method, exchange.path)
        inner = receive
        if heads.chunked:
            replay = await self.limit.whole_body(scope, inner, send)
            if replay is None:
                return
            inner = replay
        if fast is None:
            await self.app(scope, inner, send)
            return
        raw = await _whole_body(inner)
        await self._fast(fast, scope, inner, raw, send, heads.takes_gzip)

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
            answer = handler(request, exc)
            response = await answer if inspect.isawaitable(answer) else answer
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
