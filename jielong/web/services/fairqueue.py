"""Work waiting for a hint process, taken in turn per address and per player.

The next piece of work is that of the address served least recently (one
never served first), and within it that of its player served least
recently; a player's own work goes in the order it came.  So an address
that keeps the queue full gets its turn as often as any other address that
waits, not as often as it asks, and a newcomer goes first.
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Callable, Iterator
from typing import Generic, Protocol, TypeVar


class Keyed(Protocol):
    @property
    def address(self) -> str: ...

    @property
    def player(self) -> str: ...


W = TypeVar("W", bound=Keyed)

REMEMBERED_TURNS = 4096
"""Addresses and players whose last turn is remembered."""


class FairQueue(Generic[W]):
    """Waiting work by address, then player (see the module's text)."""

    def __init__(self) -> None:
        self._waiting: dict[str, dict[str, deque[W]]] = {}
        self._served: dict[str, int] = {}
        """When each address and player was last served (a counter)."""
        self._clock = itertools.count(1)
        self._count = 0

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[W]:
        for players in self._waiting.values():
            for works in players.values():
                yield from works

    def held(self, address: str) -> int:
        """Pieces of work ``address`` has waiting."""
        return sum(len(w) for w in self._waiting.get(address, {}).values())

    def push(self, work: W) -> None:
        players = self._waiting.setdefault(work.address, {})
        players.setdefault(work.player, deque()).append(work)
        self._count += 1

    def pop(self, keep: Callable[[W], bool] = lambda w: True) -> W | None:
        """The next piece of work, past (and dropping) those ``keep`` refuses."""
        while self._waiting:
            address = min(self._waiting, key=lambda a: self._served.get(a, 0))
            players = self._waiting[address]
            player = min(players, key=lambda p: self._served.get(f"{address} {p}", 0))
            work = self._take(address, player)
            now = next(self._clock)
            self._served[address] = now
            self._served[f"{address} {player}"] = now
            if keep(work):
                return work
        return None

    def remove(self, work: W) -> bool:
        """Take ``work`` out of the queue; whether it was there."""
        works = self._waiting.get(work.address, {}).get(work.player)
        if works is None or work not in works:
            return False
        works.remove(work)
        self._count -= 1
        self._tidy(work.address, work.player)
        return True

    def newest_of_richest(self, than: str) -> W | None:
        """The last-come work of the address with the most waiting, when it
        has more waiting than ``than`` would with one more."""
        if not self._waiting:
            return None
        richest = max(self._waiting, key=self.held)
        if richest == than or self.held(richest) <= self.held(than) + 1:
            return None
        players = self._waiting[richest]
        return max((w[-1] for w in players.values()), key=lambda w: len(players[w.player]))

    def _take(self, address: str, player: str) -> W:
        work = self._waiting[address][player].popleft()
        self._count -= 1
        self._tidy(address, player)
        return work

    def _tidy(self, address: str, player: str) -> None:
        players = self._waiting[address]
        if not players[player]:
            del players[player]
        if not players:
            del self._waiting[address]
        if len(self._served) > REMEMBERED_TURNS:
            # those without work waiting are forgotten: a newcomer again next time
            waiting = {f"{a} {p}" for a, ps in self._waiting.items() for p in ps}
            waiting.update(self._waiting)
            self._served = {k: v for k, v in self._served.items() if k in waiting}
