"""The daily deal of each variant and date, fixed once it has been served.

:func:`jielong.catalogue.daily_deal` chooses a Klondike daily deal with the
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

from sqlalchemy.engine import Engine

from jielong.catalogue import daily_deal, today_utc
from jielong.store import keep_daily_deal, kept_daily_deal

KEPT_DAYS = 1
"""Dates up to this many days from today (UTC) are kept once served."""


class DailyDeals:
    """The daily deal of a variant and a date, kept in the database for
    dates near today; answers are cached per process."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._lock = threading.Lock()
        self._kept: dict[tuple[str, dt.date], int] = {}

    def __call__(self, variant: str, date: dt.date) -> int:
        key = (variant, date)
        with self._lock:
            number = self._kept.get(key)
        if number is not None:
            return number
        if abs((date - today_utc()).days) > KEPT_DAYS:
            return daily_deal(variant, date)
        number = kept_daily_deal(self.engine, variant, date)
        if number is None:
            keep_daily_deal(self.engine, variant, date, daily_deal(variant, date))
            number = kept_daily_deal(self.engine, variant, date)  # whichever server kept it first
            if number is None:
                raise RuntimeError(f"the daily deal of {variant} {date} was not kept")
        with self._lock:
            if len(self._kept) > 64:
                self._kept.clear()  # a server up for weeks: read them again
            self._kept[key] = number
        return number
