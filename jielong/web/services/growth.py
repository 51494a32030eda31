"""Bounded growth: how fast games may be started, and how long an abandoned
one is kept.

Game creation is rate-limited per player and per address (429 with
``Retry-After``), so that one client cannot fill the database.  An unfinished
game nobody has touched for ``expire_days`` is deleted with its undo steps;
the statistics stay, as they are an aggregate kept apart from the games.
Every server process runs the sweep now and then: the deletes are the same
whoever runs them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from jielong.store.tables import game_steps, games
from jielong.web.http.limits import TokenBuckets

PLAYER_BURST, PLAYER_PER_SECOND = 60, 1.0
ADDRESS_BURST, ADDRESS_PER_SECOND = 300, 5.0
SWEEP_SECONDS = 3600.0
BATCH = 500

log = logging.getLogger("jielong.growth")


class CreationLimit:
    """Games started per player and per address: a burst, then a steady rate."""

    def __init__(
        self,
        player: tuple[int, float] = (PLAYER_BURST, PLAYER_PER_SECOND),
        address: tuple[int, float] = (ADDRESS_BURST, ADDRESS_PER_SECOND),
    ) -> None:
        self._players = TokenBuckets(player[1], player[0])
        self._addresses = TokenBuckets(address[1], address[0])

    def wait(self, player: str, address: str) -> int:
        """0 if a game may be started now, else whole seconds to wait."""
        seconds = self._players.take(player)
        if seconds == 0:
            seconds = self._addresses.take(address)
        return 0 if seconds == 0 else max(1, math.ceil(seconds))


def expire_games(engine: Engine, older_than_ms: int) -> int:
    """Delete the unfinished games last changed before ``older_than_ms`` (epoch
    ms) and their steps, a batch per transaction; the number deleted."""
    total = 0
    while True:
        stale = (
            sa.select(games.c.id)
            .where(games.c.won_ms.is_(None), games.c.updated_ms < older_than_ms)
            .limit(BATCH)
        )
        with engine.begin() as conn:
            ids = list(conn.execute(stale).scalars())
            if not ids:
                return total
            conn.execute(game_steps.delete().where(game_steps.c.game.in_(ids)))
            conn.execute(games.delete().where(games.c.id.in_(ids), games.c.won_ms.is_(None)))
        total += len(ids)


async def sweep_forever(engine: Engine, expire_days: float) -> None:
    """Expire abandoned games every :data:`SWEEP_SECONDS` (first at start-up)."""
    from jielong.session import now_ms as clock

    loop = asyncio.get_running_loop()
    while True:
        cutoff = clock() - int(expire_days * 86_400_000)
        try:
            count = await loop.run_in_executor(None, expire_games, engine, cutoff)
        except sa.exc.SQLAlchemyError as e:  # the database away: next time
            log.warning("expiring abandoned games failed: %s", str(e).splitlines()[0])
        else:
            if count:
                log.info("expired %d abandoned games (untouched for %g days)", count, expire_days)
        await asyncio.sleep(SWEEP_SECONDS)


def start_sweeping(engine: Engine, expire_days: float) -> asyncio.Task[None] | None:
    if expire_days <= 0:
        return None
    return asyncio.ensure_future(sweep_forever(engine, expire_days))


async def stop_sweeping(task: asyncio.Task[None] | None) -> None:
    if task is not None:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
