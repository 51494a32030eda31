"""The daily deal of each variant and date, fixed once it has been served.

:func:`jielong.engine.catalogue.daily_deal` chooses a Klondike daily deal with the
solver (the first deal from the date's number that its win search wins), so
a change to that search can change the choice for some dates.  A server
therefore keeps the deal it serves for a date near today (from yesterday to
tomorrow, so that every time zone's "today" is covered) in the games'
database, and every server on that database, before or after an upgrade,
serves the kept deal for that date.  Other dates are not kept (anyone may
ask for any date), and are computed afresh.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections import OrderedDict

from sqlalchemy.engine import Engine

from jielong.engine.catalogue import daily_deal, today_utc
from jielong.store import keep_daily_deal, kept_daily_deal

KEPT_DAYS = 1
"""Dates up to this many days from today (UTC) are kept once served."""

CACHED = 4096
"""Answers kept in memory: every variant's dates a year either side of today."""


class DailyDeals:
    """The daily deal of a variant and a date, kept in the database for
    dates near today; answers are cached per process."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._lock = threading.Lock()
        # (deal, whether it is the database's kept one)
        self._kept: OrderedDict[tuple[str, dt.date], tuple[int, bool]] = OrderedDict()

    def cached(self, variant: str, date: dt.date) -> bool:
        """Whether the answer is at hand (no solver run, no database)."""
        return self._cached(variant, date) is not None

    def _cached(self, variant: str, date: dt.date) -> int | None:
        near = abs((date - today_utc()).days) <= KEPT_DAYS
        with self._lock:
            number, kept = self._kept.get((variant, date), (None, False))
        # a date cached before it came near today is read from the database now
        return number if kept or not near else None

    def __call__(self, variant: str, date: dt.date) -> int:
        number = self._cached(variant, date)
        if number is not None:
            return number
        kept = abs((date - today_utc()).days) <= KEPT_DAYS
        number = kept_daily_deal(self.engine, variant, date) if kept else daily_deal(variant, date)
        if number is None:
            keep_daily_deal(self.engine, variant, date, daily_deal(variant, date))
            number = kept_daily_deal(self.engine, variant, date)  # whichever server kept it first
            if number is None:
                raise RuntimeError(f"the daily deal of {variant} {date} was not kept")
        with self._lock:
            self._kept[(variant, date)] = (number, kept)
            while len(self._kept) > CACHED:
                self._kept.popitem(last=False)
        return number
