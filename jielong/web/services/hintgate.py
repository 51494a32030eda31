"""Who may ask for a hint now: limits per player and per address, so that one
client cannot fill the hint pool and starve every other player.

A player (by the signed cookie) may have requests costing
:data:`PLAYER_IN_FLIGHT` waiting at once (a hint costs one, an analysis,
which takes a worker for longer, :data:`ANALYSIS_COST`) and ask
:data:`PLAYER_BURST` at once, then one every ``1 / PLAYER_PER_SECOND``
seconds; an address (many players behind one router, or a client that drops
its cookie) a few times more.  Past a limit the answer is 429 with
``Retry-After``.  (One computation per game, and the turns of addresses and
players for the workers, are the hint pool's own rules.)
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from jielong.web.http.limits import TokenBuckets

PLAYER_IN_FLIGHT = 2
ADDRESS_IN_FLIGHT = 6
ANALYSIS_COST = 2
PLAYER_BURST, PLAYER_PER_SECOND = 20, 1.0
ADDRESS_BURST, ADDRESS_PER_SECOND = 60, 4.0


class HintRefused(Exception):
    """Over a limit: retry after ``seconds``."""

    def __init__(self, seconds: float) -> None:
        super().__init__(seconds)
        self.seconds = max(1, math.ceil(seconds))


class HintGate:
    def __init__(
        self,
        *,
        player_in_flight: int = PLAYER_IN_FLIGHT,
        address_in_flight: int = ADDRESS_IN_FLIGHT,
        player_rate: tuple[int, float] = (PLAYER_BURST, PLAYER_PER_SECOND),
        address_rate: tuple[int, float] = (ADDRESS_BURST, ADDRESS_PER_SECOND),
    ) -> None:
        self.player_in_flight = player_in_flight
        self.address_in_flight = address_in_flight
        self._players = TokenBuckets(player_rate[1], player_rate[0])
        self._addresses = TokenBuckets(address_rate[1], address_rate[0])
        self._lock = threading.Lock()
        self._waiting: dict[str, int] = {}

    @contextmanager
    def admit(self, player: str, address: str, cost: int = 1) -> Iterator[None]:
        """Hold a place for one request costing ``cost`` while it waits;
        raises :class:`HintRefused` when the player or the address is over a
        limit (a request costing more than the limit may go alone)."""
        keys = (f"p:{player}", f"a:{address}")
        with self._lock:
            held = (self._waiting.get(keys[0], 0), self._waiting.get(keys[1], 0))
            if (held[0] and held[0] + cost > self.player_in_flight) or (
                held[1] and held[1] + cost > self.address_in_flight
            ):
                raise HintRefused(1)
            for key in keys:
                self._waiting[key] = self._waiting.get(key, 0) + cost
        try:
            # the address's token only once the player's was given: a player
            # over its own limit must not use up its neighbours' share
            wait = self._players.take(player) or self._addresses.take(address)
            if wait > 0:
                raise HintRefused(wait)
            yield
        finally:
            with self._lock:
                for key in keys:
                    left = self._waiting[key] - cost
                    if left:
                        self._waiting[key] = left
                    else:
                        del self._waiting[key]
