"""What one connection, and one address, may hold in a server process.

:class:`GuardedHttpToolsProtocol` is uvicorn's HTTP/1.1 protocol on the C
parser (httptools; its h11 one, in pure Python, costs about a fifth of an
action) with:

* a deadline for receiving a whole request (headers and body);
* a bound on a request's head (its request line and headers): past
  :data:`MAX_HEAD_BYTES` bytes or :data:`MAX_HEADERS` headers it is answered
  431 ``headers_too_large`` and the connection closed, counted as the bytes
  arrive, before the parser has buffered more than one read of them; beyond
  each head's first :data:`HEAD_FREE_BYTES`, the unfinished heads of all
  connections share :data:`HEAD_BUDGET_BYTES`;
* a cap on open connections per process and per address (a trusted proxy's
  connections are counted per process only: its clients are told apart by
  their forwarded address, see :mod:`jielong.web.http.site`).  A process at
  its cap takes a new address's connection by closing an idle one of the
  address holding the most.

Configured from the environment (``jielong serve`` sets it for its worker
processes, like the app's settings).
"""

from __future__ import annotations

import asyncio
import json
import os
import resource
from typing import Any

import httptools
from uvicorn.config import Config
from uvicorn.middleware.proxy_headers import _TrustedHosts
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.server import ServerState

from jielong.web.i18n import DEFAULT_LANGUAGE, message

READ_SECONDS = 10.0
"""Time a client has to send a whole request once its connection is open or
its previous answer was sent."""

MAX_CONNECTIONS = 2000
"""Open connections per server process, past which new ones are closed at once."""

MAX_ADDRESS_CONNECTIONS = 64
"""Open connections per client address (a browser opens six or so)."""

MAX_HEAD_BYTES = 32 * 1024
"""A request's line and headers: browsers send well under 8 KiB (nginx's
default buffers take 4 x 8 KiB)."""

MAX_HEADERS = 100

HEAD_FREE_BYTES = 8 * 1024
HEAD_BUDGET_BYTES = 8 * 1024 * 1024
"""Bytes of unfinished heads past each one's first :data:`HEAD_FREE_BYTES`,
all connections of a process together."""

LINGER_SECONDS = 1.0
"""How long a refused connection's input is still read (and dropped)."""


def _env_float(name: str, default: float) -> float:
    try:
        return float(os.environ.get(name, default))
    except ValueError:
        return default


def connection_cap(wanted: int) -> int:
    """``wanted``, lowered to leave file descriptors for the database, the
    hint workers and the log when the process may open fewer files."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return wanted
    return max(16, min(wanted, soft - 200))


def _head_refusal() -> bytes:
    # no request to read a language from: the default one
    body = json.dumps(
        {
            "error": {
                "code": "headers_too_large",
                "message": message("headers_too_large", DEFAULT_LANGUAGE, limit=MAX_HEAD_BYTES),
                "limit": MAX_HEAD_BYTES,
                "max_headers": MAX_HEADERS,
            }
        }
    ).encode()
    return (
        b"HTTP/1.1 431 Request Header Fields Too Large\r\n"
        b"content-type: application/json; charset=utf-8\r\n"
        b"cache-control: no-store\r\n"
        b"connection: close\r\n"
        b"content-length: " + str(len(body)).encode() + b"\r\n\r\n" + body
    )


class _HeadRefused(Exception):
    """Raised from a parser callback to stop the parser."""


class _Holdings:
    """What the connections of one server process hold together."""

    def __init__(self, trusted: _TrustedHosts) -> None:
        self.trusted = trusted
        self.by_address: dict[str, set[GuardedHttpToolsProtocol]] = {}
        self.head_bytes = 0
        """Bytes of unfinished heads past each one's free share."""

    def add(self, conn: GuardedHttpToolsProtocol) -> None:
        self.by_address.setdefault(conn.address, set()).add(conn)

    def remove(self, conn: GuardedHttpToolsProtocol) -> None:
        held = self.by_address.get(conn.address)
        if held is not None:
            held.discard(conn)
            if not held:
                del self.by_address[conn.address]

    def held(self, address: str) -> int:
        return len(self.by_address.get(address, ()))

    def make_room(self, address: str) -> bool:
        """Close an idle connection of the address holding the most, when it
        holds more than ``address`` would; whether one was closed."""
        if not self.by_address:
            return False
        richest = max(self.by_address, key=lambda a: len(self.by_address[a]))
        if richest == address or len(self.by_address[richest]) <= self.held(address) + 1:
            return False
        for conn in self.by_address[richest]:
            if conn.idle():
                conn.transport.abort()  # connection_lost removes it
                return True
        return False


_holdings: dict[int, _Holdings] = {}


def _holdings_of(server_state: ServerState, config: Config) -> _Holdings:
    # one per server (a process runs one; tests may run several)
    found = _holdings.get(id(server_state))
    if found is None:
        found = _holdings[id(server_state)] = _Holdings(_TrustedHosts(config.forwarded_allow_ips))
    return found


class GuardedHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with the limits of the module's text
    (``JIELONG_READ_SECONDS``, ``JIELONG_MAX_CONNECTIONS``,
    ``JIELONG_MAX_ADDRESS_CONNECTIONS``)."""

    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self.read_seconds = _env_float("JIELONG_READ_SECONDS", READ_SECONDS)
        self.max_connections = connection_cap(
            int(_env_float("JIELONG_MAX_CONNECTIONS", MAX_CONNECTIONS))
        )
        self.max_per_address = int(
            _env_float("JIELONG_MAX_ADDRESS_CONNECTIONS", MAX_ADDRESS_CONNECTIONS)
        )
        self.holdings = _holdings_of(server_state, config)
        self.address = ""
        self._read_deadline: asyncio.TimerHandle | None = None
        self._in_head = True
        self._head = 0
        self._headers = 0
        self._charged = 0
        self._discarding = False

    # -- connections ----------------------------------------------------------

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.address = self.client[0] if self.client else "unknown"
        holdings = self.holdings
        proxy = self.address in holdings.trusted
        if not proxy and holdings.held(self.address) >= self.max_per_address:
            self._refuse_connection("Too many open connections from one address: refused one")
            return
        if len(self.connections) > self.max_connections and not holdings.make_room(self.address):
            self._refuse_connection("Too many open connections: refused a new one")
            return
        holdings.add(self)
        self._arm()

    def _refuse_connection(self, why: str) -> None:
        self.logger.warning(why)
        self.address = ""  # not among the holdings
        self.transport.abort()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self._release_head()
        if self.address:
            self.holdings.remove(self)
        super().connection_lost(exc)

    def idle(self) -> bool:
        """Between requests, or still sending one's head: nothing to answer."""
        cycle = self.cycle
        return self._in_head and (cycle is None or cycle.response_complete)

    # -- the head of each request ---------------------------------------------

    def data_received(self, data: bytes) -> None:
        if self._discarding:
            return
        if self._in_head and not self._head_fits(len(data)):
            self._refuse_head()
            return
        # uvicorn's, with a refusal from a callback answered 431
        self._unset_keepalive_if_required()
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserError as exc:
            if isinstance(exc.__context__, _HeadRefused):
                self._refuse_head()
                return
            msg = "Invalid HTTP request received."
            self.logger.warning(msg)
            self.send_400_response(msg)
        except httptools.HttpParserUpgrade:
            if self._should_upgrade():
                self.handle_websocket_upgrade()
            else:
                self._unsupported_upgrade_warning()

    def _head_fits(self, size: int) -> bool:
        self._head += size
        if self._head > MAX_HEAD_BYTES:
            return False
        over = max(0, self._head - HEAD_FREE_BYTES) - self._charged
        if over and self.holdings.head_bytes + over > HEAD_BUDGET_BYTES:
            return False
        self.holdings.head_bytes += over
        self._charged += over
        return True

    def _release_head(self) -> None:
        self.holdings.head_bytes -= self._charged
        self._charged = 0
        self._head = 0
        self._headers = 0

    def _refuse_head(self) -> None:
        self._release_head()
        self._in_head = False
        self._discarding = True
        if self.transport.is_closing():
            return
        self.logger.warning("Request head too large: answered 431")
        self.transport.write(_head_refusal())
        # closed for writing, and what still comes is read and dropped for a
        # moment: closing with unread data would reset the connection, and
        # the client might lose the answer
        if self.transport.can_write_eof():
            self.transport.write_eof()
            self.loop.call_later(LINGER_SECONDS, self.transport.abort)
        else:
            self.transport.close()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._in_head = True

    def on_header(self, name: bytes, value: bytes) -> None:
        self._headers += 1
        if self._headers > MAX_HEADERS:
            raise _HeadRefused()
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._in_head = False
        self._release_head()
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._in_head = True

    # -- the deadline for a whole request ---------------------------------------

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm()

    def _arm(self) -> None:
        self._disarm()
        self._read_deadline = self.loop.call_later(self.read_seconds, self._read_timed_out)

    def _disarm(self) -> None:
        if self._read_deadline is not None:
            self._read_deadline.cancel()
            self._read_deadline = None

    def _read_timed_out(self) -> None:
        self._read_deadline = None
        cycle = self.cycle
        # a whole request is in and the app is answering it: not the client's delay
        if cycle is not None and not cycle.response_complete and not cycle.more_body:
            return
        if not self.transport.is_closing():
            self.transport.abort()
