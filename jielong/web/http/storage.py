"""The database down or the disk full: 503 ``storage_unavailable``, not a 500.

A request whose database work fails for want of the database (it cannot be
reached, the connection dropped, the disk is full, a pool timed out) gets the
JSON error shape with ``Retry-After``, and its keep-alive connection stays
usable.  The first failure is logged with its traceback, then one line with
a count every :data:`REPORT_SECONDS` while the outage lasts, and one line
when an answer from the database shows it is back.  Nothing needs
restarting: the engine's pool reconnects by itself.
"""

from __future__ import annotations

import logging
import threading
import time

import sqlalchemy as sa
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from jielong.web.errors import ApiError, error_response

RETRY_AFTER_SECONDS = 2
REPORT_SECONDS = 10.0

# Errors of the database's availability, not of the request or the code:
# an IntegrityError or a ProgrammingError stays a bug to see (a 500).
UNAVAILABLE: tuple[type[Exception], ...] = (
    sa.exc.OperationalError,
    sa.exc.InterfaceError,
    sa.exc.TimeoutError,
    sa.exc.DisconnectionError,
)

log = logging.getLogger("jielong.storage")


class Outage:
    """Counts failed requests while the database is away, and says so in
    the log without a line per request."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.failing = False
        self.failures = 0
        self._since = 0.0
        self._reported = 0.0

    def failed(self, exc: BaseException) -> None:
        now = time.monotonic()
        with self._lock:
            first = not self.failing
            if first:
                self.failing, self.failures, self._since = True, 0, now
                self._reported = now
            self.failures += 1
            count, report = self.failures, now - self._reported >= REPORT_SECONDS
            if report:
                self._reported = now
        if first:
            log.error("storage unavailable; answering 503 until it is back", exc_info=exc)
        elif report:
            log.error(
                "storage still unavailable: %d requests refused in %.0f s: %s",
                count,
                now - self._since,
                str(exc).splitlines()[0] if str(exc) else type(exc).__name__,
            )

    def succeeded(self) -> None:
        with self._lock:
            if not self.failing:
                return
            self.failing = False
            count, seconds = self.failures, time.monotonic() - self._since
        log.warning("storage back after %.1f s; %d requests were refused", seconds, count)


def install(app: FastAPI) -> Outage:
    """Answer storage failures with 503; :mod:`jielong.web.http.site` marks the
    outage over at the first game answer (a 2xx from /api/games) after it."""
    outage = Outage()

    async def unavailable(request: Request, exc: Exception) -> JSONResponse:
        outage.failed(exc)
        error = ApiError(
            503, "storage_unavailable", headers={"Retry-After": str(RETRY_AFTER_SECONDS)}
        )
        return error_response(request, error)

    for kind in UNAVAILABLE:
        app.add_exception_handler(kind, unavailable)
    return outage
