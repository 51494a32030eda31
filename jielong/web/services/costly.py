"""Open endpoints whose answer may take a solver run: a daily deal not yet
cached, a winnable deal when none is ready.  Such work is limited per
address (429 ``rate_limited``) and to a few computations at once per server
process (503 ``busy``), so that a crowd of such requests cannot take the
CPU from everyone else's moves.  A request that waits does not hold a thread:
it is refused at once."""

from __future__ import annotations

import datetime as dt
import math
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from fastapi import Request

from jielong.web.errors import ApiError
from jielong.web.http.limits import TokenBuckets, client_address
from jielong.web.services.daily import DailyDeals

AT_ONCE = 2
ADDRESS_BURST, ADDRESS_PER_SECOND = 20, 0.5


class CostlyRefused(Exception):
    def __init__(self, status: int, seconds: float) -> None:
        super().__init__(status)
        self.status = status
        self.seconds = max(1, math.ceil(seconds))


class CostlyWork:
    def __init__(
        self,
        at_once: int = AT_ONCE,
        address: tuple[int, float] = (ADDRESS_BURST, ADDRESS_PER_SECOND),
    ) -> None:
        self._running = threading.BoundedSemaphore(at_once)
        self._addresses = TokenBuckets(address[1], address[0])

    @contextmanager
    def admit(self, address: str) -> Iterator[None]:
        """A place for one costly computation; raises :class:`CostlyRefused`
        (429 over the address's rate, 503 while the places are taken)."""
        wait = self._addresses.take(address)
        if wait > 0:
            raise CostlyRefused(429, wait)
        if not self._running.acquire(blocking=False):
            raise CostlyRefused(503, 1)
        try:
            yield
        finally:
            self._running.release()


@contextmanager
def costly(request: Request) -> Iterator[None]:
    """Hold a place for costly work done by ``request``; refusals become
    429 ``rate_limited`` or 503 ``busy`` with ``Retry-After``."""
    work: CostlyWork = request.app.state.costly
    try:
        with work.admit(client_address(request.scope)):
            yield
    except CostlyRefused as e:
        code = "rate_limited" if e.status == 429 else "busy"
        raise ApiError(
            e.status,
            code,
            {"seconds": e.seconds},
            details={"retry_after": e.seconds},
            headers={"Retry-After": str(e.seconds)},
        ) from None


def daily_deal_for(request: Request, variant: str, date: dt.date) -> int:
    """The daily deal; one not yet at hand may take a solver run, so it is
    limited like other costly work."""
    daily_deals: DailyDeals = request.app.state.daily_deals
    if daily_deals.cached(variant, date):
        return daily_deals(variant, date)
    with costly(request):
        return daily_deals(variant, date)
