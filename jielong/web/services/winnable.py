"""Winnable Klondike deals for the "winnable deals only" option.

A deal qualifies when :func:`jielong.engine.catalogue.klondike_winnable` accepts it: the
solver's deterministic win search wins it with every card known.  A refused
deal can cost about a second of CPU, so :class:`WinnablePool` keeps a few
checked deal numbers per Klondike variant, found by one background thread
and refilled after each one is dealt; a request finds one ready, or, when
the pool is empty, checks deals itself (a late answer rather than a wrong
one).  The thread starts with the first deal asked for, so an app that never
deals one never spends CPU on it, and it sleeps while the pool is full.

:class:`WinnableDeals` remembers, in the games' database, which deals were
dealt this way, so that a game's state says so on every later read, from any
server process.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict, deque
from collections.abc import Callable

from sqlalchemy.engine import Engine

from jielong.engine.catalogue import klondike_winnable, random_deal
from jielong.engine.rules.variants import VARIANTS
from jielong.store import record_winnable_deal, winnable_deal_known

log = logging.getLogger(__name__)

POOL_SIZE = 3
"""Checked deals kept ready per Klondike variant."""

STOP_SECONDS = 10.0
"""How long stopping waits for a check in progress (one check is about a
second at worst)."""

KLONDIKE_VARIANTS = tuple(v.id for v in VARIANTS.values() if v.family == "klondike")


class WinnablePool:
    """A few winnable deal numbers per Klondike variant, ready to deal.

    ``check`` and ``candidate`` default to the real test and random deal
    numbers; tests pass cheaper ones.
    """

    def __init__(
        self,
        size: int = POOL_SIZE,
        *,
        variants: tuple[str, ...] = KLONDIKE_VARIANTS,
        check: Callable[[str, int], bool] = klondike_winnable,
        candidate: Callable[[str], int] = random_deal,
    ) -> None:
        if size < 0:
            raise ValueError("a pool holds zero deals or more")
        self.size = size
        self.variants = variants
        self._check = check
        self._candidate = candidate
        self._ready: dict[str, deque[int]] = {v: deque() for v in variants}
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self._stopped = False
        # a check that raised is not retried until the next deal is asked for,
        # so a broken check cannot spin the thread
        self._failed = False

    def take(self, variant: str) -> int:
        """A winnable deal number of ``variant``: one from the pool, else one
        checked now, in the caller's thread."""
        if variant not in self._ready:
            raise KeyError(f"no winnable-deal pool for {variant}")
        with self._cond:
            ready = self._ready[variant]
            number = ready.popleft() if ready else None
            self._wake()
        while number is None:
            number = self._find(variant, lambda: False)
        return number

    def ready(self, variant: str) -> tuple[int, ...]:
        """The checked deals of ``variant`` waiting in the pool, next first."""
        with self._cond:
            return tuple(self._ready[variant])

    def running(self) -> bool:
        """Whether the filling thread is alive."""
        return self._thread is not None and self._thread.is_alive()

    def stop(self) -> None:
        """Stop filling; a check in progress is finished, not interrupted.
        Deals can still be taken afterwards (checked in the caller's thread)."""
        with self._cond:
            self._stopped = True
            for ready in self._ready.values():
                ready.clear()
            self._cond.notify_all()
            thread = self._thread
        if thread is not None:
            thread.join(STOP_SECONDS)

    # -- the filling thread ---------------------------------------------------

    def _wake(self) -> None:
        # called with the lock held
        self._failed = False
        if self._stopped or self.size == 0:
            return
        if self._thread is None:
            self._thread = threading.Thread(target=self._fill, name="winnable-deals", daemon=True)
            self._thread.start()
        self._cond.notify_all()

    def _short(self) -> str | None:
        # called with the lock held: the variant with the fewest ready deals
        # that still lacks some
        lacking = [v for v in self.variants if len(self._ready[v]) < self.size]
        return min(lacking, key=lambda v: len(self._ready[v]), default=None)

    def _fill(self) -> None:
        while True:
            with self._cond:
                while not self._stopped and (self._failed or self._short() is None):
                    self._cond.wait()
                if self._stopped:
                    return
                variant = self._short()
            assert variant is not None
            try:
                number = self._find(variant, lambda: self._stopped)
            except Exception:
                log.exception("checking %s deals for the winnable pool failed", variant)
                with self._cond:
                    self._failed = True
                continue
            if number is None:
                return
            with self._cond:
                ready = self._ready[variant]
                if not self._stopped and len(ready) < self.size and number not in ready:
                    ready.append(number)

    def _find(self, variant: str, stopping: Callable[[], bool]) -> int | None:
        """A winnable deal number, or ``None`` once ``stopping()`` says so."""
        while not stopping():
            number = self._candidate(variant)
            if self._check(variant, number):
                return number
        return None


KNOWN_CACHE = 4096
"""Deals whose answer a server process keeps in memory."""


class WinnableDeals:
    """The deals dealt as winnable, kept in the games' database (the
    store's ``winnable_deals`` table).

    A win found for a deal stays a win whatever the solver becomes, so the
    record never needs checking again.  Answers are cached per process: a
    deal is recorded before any game of it is created, so a cached "no"
    can only concern a game that was not dealt as winnable.
    """

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._lock = threading.Lock()
        self._known: OrderedDict[tuple[str, int], bool] = OrderedDict()

    def _remember(self, key: tuple[str, int], value: bool) -> None:
        with self._lock:
            self._known[key] = value
            self._known.move_to_end(key)
            while len(self._known) > KNOWN_CACHE:
                self._known.popitem(last=False)

    def record(self, variant: str, deal: int) -> None:
        """Remember that ``deal`` of ``variant`` was dealt as winnable."""
        record_winnable_deal(self.engine, variant, deal)
        self._remember((variant, deal), True)

    def known(self, variant: str, deal: int) -> bool:
        """Whether ``deal`` of ``variant`` was ever dealt as winnable."""
        key = (variant, deal)
        with self._lock:
            cached = self._known.get(key)
            if cached is not None:
                self._known.move_to_end(key)
                return cached
        found = winnable_deal_known(self.engine, variant, deal)
        self._remember(key, found)
        return found
