"""Limits that keep one client from taking the server's memory, sockets or logs.

* :class:`BodyLimit` refuses a request body over :data:`MAX_BODY_BYTES` with
  413 before reading it (by its Content-Length), or as soon as a body without
  one grows past the limit.
* What a connection may hold (its request's head, the connections of one
  address) is :mod:`jielong.web.http.connections`.
* :class:`RepeatLimiter` lets the same log message through once per interval
  with a count of those held back, so that a flood of one error cannot fill
  the disk.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections import OrderedDict

from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from jielong.web.i18n import message, negotiate

MAX_BODY_BYTES = 64 * 1024
"""The largest request body taken: a custom position text is the largest
legitimate one, and it needs a few kilobytes."""

LOG_INTERVAL_SECONDS = 10.0


def _replay(messages: list[Message], receive: Receive) -> Receive:
    """A receive that gives ``messages`` first, then what ``receive`` gives."""

    async def replayed() -> Message:
        if messages:
            return messages.pop(0)
        return await receive()

    return replayed


def error_body(scope: Scope, code: str, **params: object) -> bytes:
    """The JSON error shape, for answers given before the app is reached."""
    request = Request(scope)
    lang = negotiate(
        request.cookies.get("lang"),
        request.query_params.get("lang"),
        request.headers.get("accept-language"),
    )
    text = message(code, lang, **params)
    return json.dumps({"error": {"code": code, "message": text}}, ensure_ascii=False).encode()


class BodyLimit:
    """413 ``body_too_large`` for a body over ``limit`` bytes, decided from the
    Content-Length before any of it is read, or while a chunked body streams.
    An ASGI layer of its own, and the pieces of one for :mod:`jielong.web.http.site`,
    which scans the headers once for all its work."""

    def __init__(self, app: ASGIApp, *, limit: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if any(n == b"content-length" and self.refuses(v) for n, v in scope["headers"]):
            await self.refuse(scope, send)
            return
        if any(name == b"transfer-encoding" for name, _ in scope["headers"]):
            replay = await self.whole_body(scope, receive, send)
            if replay is None:
                return
            receive = replay
        await self.app(scope, receive, send)

    def refuses(self, length: bytes) -> bool:
        """Whether a Content-Length says too much (or is no length at all)."""
        # (a length of many digits is refused before int() reads it)
        return not length.isdigit() or len(length) > 12 or int(length) > self.limit

    async def whole_body(self, scope: Scope, receive: Receive, send: Send) -> Receive | None:
        """A body without a length, read here up to the limit (the app's body
        parser would turn an error raised while it reads into a 400): a
        receive that gives it whole, or ``None`` once it is refused."""
        body = bytearray()
        while True:
            part = await receive()
            if part["type"] != "http.request":
                return _replay([part], receive)
            body += part.get("body", b"")
            if len(body) > self.limit:
                await self.refuse(scope, send)
                return None
            if not part.get("more_body", False):
                break
        whole: Message = {"type": "http.request", "body": bytes(body), "more_body": False}
        return _replay([whole], receive)

    async def refuse(self, scope: Scope, send: Send) -> None:
        body = error_body(scope, "body_too_large", limit=self.limit)
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [
                    (b"content-type", b"application/json; charset=utf-8"),
                    (b"content-length", str(len(body)).encode()),
                    (b"cache-control", b"no-store"),
                    # the rest of the body is not read: the connection cannot be reused
                    (b"connection", b"close"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


class RepeatLimiter(logging.Filter):
    """Pass a message (by logger and format) once per ``interval`` seconds;
    the next one let through says how many were held back meanwhile."""

    def __init__(self, interval: float = LOG_INTERVAL_SECONDS) -> None:
        super().__init__()
        self.interval = interval
        self._lock = threading.Lock()
        self._seen: dict[tuple[str, str], tuple[float, int]] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        key = (record.name, str(record.msg)[:200])
        now = time.monotonic()
        with self._lock:
            last, held = self._seen.get(key, (-self.interval, 0))
            if now - last < self.interval:
                self._seen[key] = (last, held + 1)
                return False
            if len(self._seen) > 1000:
                self._seen.clear()
            self._seen[key] = (now, 0)
        if held:
            record.msg = f"{record.msg} [{held} more like this in the last {now - last:.0f} s]"
        return True


_limiter = RepeatLimiter()


def limit_repeated_logs() -> None:
    """Install the repeat limiter on the loggers that a flood of connections
    or failures fills: asyncio's (accept errors), the server's and the app's."""
    for name in ("asyncio", "uvicorn.error", "jielong"):
        logger = logging.getLogger(name)
        if _limiter not in logger.filters:
            logger.addFilter(_limiter)


class TokenBuckets:
    """A rate limit per key (a player, an address): ``burst`` requests at once,
    then ``per_second`` on average.  Thread-safe; the number of keys held is
    bounded (the oldest are dropped, which only ever lets a request through)."""

    def __init__(self, per_second: float, burst: int, *, max_keys: int = 100_000) -> None:
        self.per_second = per_second
        self.burst = burst
        self.max_keys = max_keys
        self._lock = threading.Lock()
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def take(self, key: str, now: float | None = None) -> float:
        """0 when a request of ``key`` may go, else the seconds until it may."""
        now = time.monotonic() if now is None else now
        with self._lock:
            tokens, since = self._buckets.pop(key, (float(self.burst), now))
            tokens = min(float(self.burst), tokens + (now - since) * self.per_second)
            wait = 0.0
            if tokens >= 1.0:
                tokens -= 1.0
            else:
                wait = (1.0 - tokens) / self.per_second
            self._buckets[key] = (tokens, now)
            while len(self._buckets) > self.max_keys:
                self._buckets.popitem(last=False)
        return wait


def client_address(scope: Scope) -> str:
    """The client's address: the peer's, or the one a trusted proxy named
    (uvicorn's --forwarded-allow-ips has already put it in the scope)."""
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


MAX_ADDRESS_REQUESTS = 64
"""Requests in progress at once per client address (as many as the
connections an address may open: this bites behind a proxy, whose
connections carry many clients' requests)."""


class AddressRequests:
    """Requests in progress per client address, in one event loop."""

    def __init__(self, limit: int = MAX_ADDRESS_REQUESTS) -> None:
        self.limit = limit
        self._in_progress: dict[str, int] = {}

    def enter(self, address: str) -> bool:
        """Count one more request of ``address``, or ``False`` at the limit."""
        held = self._in_progress.get(address, 0)
        if held >= self.limit:
            return False
        self._in_progress[address] = held + 1
        return True

    def leave(self, address: str) -> None:
        held = self._in_progress[address] - 1
        if held:
            self._in_progress[address] = held
        else:
            del self._in_progress[address]


async def refuse_busy_address(scope: Scope, send: Send) -> None:
    """429 ``rate_limited``: the address has its share of requests in progress."""
    body = error_body(scope, "rate_limited", seconds=1)
    await send(
        {
            "type": "http.response.start",
            "status": 429,
            "headers": [
                (b"content-type", b"application/json; charset=utf-8"),
                (b"content-length", str(len(body)).encode()),
                (b"cache-control", b"no-store"),
                (b"retry-after", b"1"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
