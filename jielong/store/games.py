"""Persistence of games: SQLite (WAL) by default, PostgreSQL by URL.

A game is a row of its own (deal, version, clock, win) plus one row per undo
step on its stack, each explicit JSON (pile ids and counts), never pickle.
An action writes only what it changed: the game row's small columns and the
step it pushed (or the removal of the step it undid), so its cost does not
grow with the game's length.  Writes are compare-and-set on the game's
version inside one transaction (``UPDATE ... WHERE id = ? AND version = ?``),
so of two writers that read the same version exactly one wins, whichever
process or machine they run on.  Statistics are an aggregate per player and
variant, updated in the transaction that creates or wins a game.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import functools
import threading
from collections import OrderedDict
from collections.abc import Callable, Generator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

import orjson
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlalchemy.engine.interfaces import DBAPIConnection, DBAPICursor
from sqlalchemy.pool import ConnectionPoolEntry

from jielong.optional import require
from jielong.session import Frame, Session, Step, common_frame
from jielong.store.dbapi import AsyncConnections, Connections, Query, Writer
from jielong.store.rows import (
    GameRecord,
    StaleVersion,
    json_text,
    new_game_id,
    record_from_row,
    row_values,
    session_root,
)
from jielong.store.tables import (
    GAME_COLUMNS,
    RECENT_COLUMNS,
    STATS_COLUMNS,
    GameRow,
    Queries,
    game_steps,
    metadata,
    player_stats,
)
from jielong.store.upgrade import upgrade


def default_url() -> str:
    from platformdirs import user_data_dir

    directory = Path(user_data_dir("jielong"))
    directory.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{directory / 'jielong.sqlite3'}"


def normalise_url(url: str) -> str:
    """Use the psycopg 3 driver for plain ``postgresql://`` URLs."""
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


REPLAY_CACHE_SIZE = 256
"""Games whose replayed undo stacks are kept in memory."""


class Store:
    def __init__(self, url: str | None = None, *, pool_size: int = 10) -> None:
        self.url = normalise_url(url or default_url())
        # A game's replayed undo stack at its latest version seen here: a read
        # at that version needs no step, a read at a later one only the steps
        # pushed since (another process may have served those actions).
        self._replays: OrderedDict[str, tuple[int, Frame]] = OrderedDict()
        self._replays_lock = threading.Lock()
        sa_url = sa.make_url(self.url)
        self.dialect = sa_url.get_backend_name()
        if self.dialect == "postgresql":
            require("postgres")  # a clear message rather than the driver's import error
        if self.dialect == "sqlite":
            database = sa_url.database
            if database and database != ":memory:":
                Path(database).parent.mkdir(parents=True, exist_ok=True)
            self.engine: Engine = sa.create_engine(
                self.url, connect_args={"timeout": 30, "check_same_thread": False}
            )
            sa.event.listen(self.engine, "connect", _sqlite_pragmas)
        else:
            self.engine = sa.create_engine(
                self.url, pool_size=pool_size, max_overflow=pool_size, pool_pre_ping=True
            )
        self._connections = Connections(self.engine, limit=2 * pool_size)
        # the connections of the actions run on the event loop (server database)
        self._async_connections = AsyncConnections(self.engine, limit=pool_size)
        self._writer = Writer(self._connections)
        self._sql = Queries(self._connections.placeholder)
        metadata.create_all(self.engine)
        upgrade(self.engine, game_steps, player_stats)

    @property
    def local(self) -> bool:
        """Whether the database is a file of this machine (SQLite): a read is
        shorter than handing it to a thread, and a write can be handed to
        the writer's thread from the event loop (:meth:`save_soon`)."""
        return self.dialect == "sqlite"

    def close(self) -> None:
        self._writer.close()
        self._async_connections.close()
        self.engine.dispose()  # and the store's own connections with it

    # -- games --------------------------------------------------------------
    # The reads and writes of games go to the driver directly, with SQL
    # written once (jielong.store.dbapi says why).

    def create(self, session: Session, player: str | None, now: int) -> GameRecord:
        record = GameRecord(
            id=new_game_id(),
            version=1,
            session=session,
            player=player,
            created_ms=now,
            updated_ms=now,
        )
        row = row_values(record)
        won = session.won_ms is not None

        def write(cur: DBAPICursor) -> None:
            cur.execute(self._sql.insert_game, (record.id, *(row[c] for c in GAME_COLUMNS[1:])))
            self._write_steps(cur, record.id, 1, session.top.root, session.top)
            # a game counts in the statistics from its first move: here when
            # it comes with moves made, else at its first action (_saving)
            if _counted(record) and (session.moves_count or won):
                cur.execute(self._sql.count_game, (player, session.variant.id, record.id, False))
                if won and not record.demo:
                    self._count_win(cur, record)

        self._writer.write(write)
        record.stored_top, record.stored_won = session.top, won
        self._remember(record.id, record.version, session.top)
        return record

    def load(self, game_id: str) -> GameRecord | None:
        with self._connections.cursor() as cur:
            return self._load(cur, game_id)

    async def load_soon(self, game_id: str) -> GameRecord | None:
        """:meth:`load` from the event loop, on a server database: its
        statements on the store's asynchronous connections."""
        async with self._async_connections.cursor() as cur:
            reading = self._loading(game_id)
            try:
                query = next(reading)
                while True:
                    await cur.execute(*query)
                    query = reading.send(await cur.fetchall())
            except StopIteration as done:
                return cast(GameRecord | None, done.value)

    def _load(self, cur: DBAPICursor, game_id: str) -> GameRecord | None:
        reading = self._loading(game_id)
        try:
            query = next(reading)
            while True:
                cur.execute(*query)
                query = reading.send(cur.fetchall())
        except StopIteration as done:
            return cast(GameRecord | None, done.value)

    def _loading(self, game_id: str) -> Generator[Query, Sequence[Any], GameRecord | None]:
        """The game, its undo stack replayed (or taken from memory): each
        statement is yielded, its rows sent back (the same reading for a
        driver that blocks and one that is awaited).  The game row and its
        step rows are read by two statements: a write between them is caught
        by the steps' versions, and read again."""
        for _ in range(20):
            found = yield self._sql.select_game, (game_id,)
            if not found:
                return None
            row = cast(GameRow, dict(zip(GAME_COLUMNS, found[0], strict=True)))
            top = yield from self._stacking(row)
            if top is not None:
                return record_from_row(row, top)
            with self._replays_lock:
                self._replays.pop(game_id, None)  # read it all again
        raise RuntimeError("a game kept changing while it was read")

    def _stacking(self, row: GameRow) -> Generator[Query, Sequence[Any], Frame | None]:
        """The undo stack at the row's version, or None if the step rows read
        are of another version."""
        game_id, version, depth = row["id"], row["version"], row["depth"]
        with self._replays_lock:
            cached = self._replays.get(game_id)
            if cached is not None:
                self._replays.move_to_end(game_id)
        if cached is not None and cached[0] == version:
            return cached[1]
        # only the steps pushed since the version in memory: those below them
        # are the same
        since = None if cached is None or cached[0] > version else cached[0]
        rows = yield self._sql.select_steps, (game_id, -1 if since is None else since)
        first = rows[0][0] if rows else (depth if since is not None else 0)
        if [r[0] for r in rows] != list(range(first, depth)) or any(r[1] > version for r in rows):
            return None  # steps written after the game row was read
        if cached is not None and since is not None:
            if cached[1].depth < first:
                return None
            base = cached[1].at_depth(first)
        else:
            base = session_root(row)
        session = Session(
            row["variant"],
            deal=None if row["deal"] is None else int(row["deal"]),
            start_text=row["start_text"],
            replayed=base,
            steps=[Step.from_json(orjson.loads(r[2])) for r in rows],
        )
        self._remember(game_id, version, session.top)
        return session.top

    def _remember(self, game_id: str, version: int, top: Frame) -> None:
        with self._replays_lock:
            cached = self._replays.get(game_id)
            if cached is None or cached[0] <= version:
                self._replays[game_id] = (version, top)
                self._replays.move_to_end(game_id)
            while len(self._replays) > REPLAY_CACHE_SIZE:
                self._replays.popitem(last=False)

    def _write_steps(
        self, cur: DBAPICursor, game_id: str, version: int, stored: Frame, top: Frame
    ) -> None:
        """Make the stored stack ``stored`` into ``top``: delete the steps
        undone, insert the steps pushed (tagged with ``version``)."""
        common = common_frame(stored, top)
        if stored.depth > common.depth:
            cur.execute(self._sql.delete_steps, (game_id, common.depth))
        frame: Frame | None = top
        pushed = []
        while frame is not None and frame is not common:
            assert frame.step is not None
            step = json_text(frame.step.to_json())
            pushed.append((game_id, frame.depth - 1, version, step))
            frame = frame.below
        if len(pushed) == 1:
            cur.execute(self._sql.insert_step, pushed[0])
        elif pushed:
            pushed.reverse()
            cur.executemany(self._sql.insert_step, pushed)

    def _count_win(self, cur: DBAPICursor, record: GameRecord) -> None:
        """A game's first win: one more win, the bests, and the streak if it
        is the player's latest game (winning an older one does not mend a
        streak that starting a newer one ended)."""
        s = record.session
        won = {
            "won_ms": s.won_ms,
            "won_moves": s.won_moves,
            "game": record.id,
            "player": record.player,
            "variant": s.variant.id,
        }
        cur.execute(self._sql.count_win.text, self._sql.count_win.bind(won))

    def save(self, record: GameRecord, expected_version: int, now: int) -> GameRecord:
        """Write ``record`` as version ``expected_version + 1`` if the stored
        game is still at ``expected_version``; else raise :class:`StaleVersion`."""
        values, write, counts_win = self._saving(record, expected_version, now)
        statement = self._one_statement(record, values, counts_win)
        if statement is not None:
            written = self._writer.statement(*statement)
        else:
            written = int(self._writer.write(write))
        return self._saved(record, expected_version, now, written)

    async def save_soon(self, record: GameRecord, expected_version: int, now: int) -> GameRecord:
        """:meth:`save` from the event loop.  On SQLite (:attr:`local`) the
        write is committed by the writer's thread, with the writes queued
        beside it, and awaited; on a server database a step pushed or undone
        is one statement on the store's asynchronous connections (anything
        else, a win counted say, runs as :meth:`save` in a thread)."""
        values, write, counts_win = self._saving(record, expected_version, now)
        if self.local:
            written = int(await self._writer.write_soon(write))
            return self._saved(record, expected_version, now, written)
        statement = self._one_statement(record, values, counts_win)
        if statement is None:
            loop = asyncio.get_running_loop()
            call = functools.partial(self.save, record, expected_version, now)
            return await loop.run_in_executor(None, call)
        async with self._async_connections.cursor() as cur:
            await cur.execute(*statement)
            written = cur.rowcount
        if written != 1:
            raise StaleVersion(await self.load_soon(record.id))
        return self._saved(record, expected_version, now, written)

    def _one_statement(
        self, record: GameRecord, values: dict[str, object], counts_win: bool
    ) -> Query | None:
        """On PostgreSQL, the save of a step pushed or undone as one statement
        (its own transaction: one round trip), or None."""
        stored = record.stored_top or record.session.top.root
        top = record.session.top
        if self.dialect != "postgresql" or counts_win or stored is top:
            return None
        if top.below is stored:
            assert top.step is not None
            step = json_text(top.step.to_json())
            push = self._sql.update_and_push
            return push.text, push.bind({**values, "idx": top.depth - 1, "step": step})
        if stored.below is top:
            pop = self._sql.update_and_pop
            return pop.text, pop.bind({**values, "idx": top.depth})
        return None

    def _saving(
        self, record: GameRecord, expected_version: int, now: int
    ) -> tuple[dict[str, object], Callable[[DBAPICursor], bool], bool]:
        """The game row's new values, the write (compare-and-set on the
        version, then the steps pushed or undone), and whether it counts a
        game or a win in the statistics."""
        session = record.session
        version = expected_version + 1
        stored = record.stored_top or session.top.root
        top = session.top
        won = session.won_ms is not None
        values: dict[str, object] = {
            "version": version,
            "depth": top.depth,
            "last": None if session.last is None else json_text(session.last.to_json()),
            "elapsed_ms": session.elapsed_ms,
            "running_since": session.running_since,
            "updated_ms": now,
            "won_ms": session.won_ms,
            "won_moves": session.won_moves,
            "moves": session.moves_count,
            "demo": record.demo,
            "id": record.id,
            "expected_version": expected_version,
        }
        counted = _counted(record)
        # the first action on a game dealt without moves is its first move
        # (there is nothing to undo or restart before it)
        fresh = record.stored_top is None or record.stored_top.count == 0
        counts_game = counted and expected_version == 1 and fresh and not record.stored_won
        counts_win = counted and won and not record.stored_won and not record.demo

        def write(cur: DBAPICursor) -> bool:
            cur.execute(self._sql.update_game.text, self._sql.update_game.bind(values))
            if cur.rowcount != 1:
                return False
            self._write_steps(cur, record.id, version, stored, top)
            if counts_game:
                counting = (record.player, session.variant.id, record.id, False)
                cur.execute(self._sql.count_game, counting)
            if counts_win:
                self._count_win(cur, record)
            return True

        return values, write, counts_game or counts_win

    def _saved(
        self, record: GameRecord, expected_version: int, now: int, written: int
    ) -> GameRecord:
        """The record as saved, or :class:`StaleVersion` with the game as it is."""
        if written != 1:
            raise StaleVersion(self.load(record.id))
        session = record.session
        saved = replace(record, version=expected_version + 1, updated_ms=now)
        saved.stored_top, saved.stored_won = session.top, session.won_ms is not None
        self._remember(record.id, expected_version + 1, session.top)
        return saved

    def save_clock(self, record: GameRecord) -> bool:
        """Write only the clock, if the game is still at ``record.version``
        (the version does not change: the position did not)."""
        values = (
            record.session.elapsed_ms,
            record.session.running_since,
            record.id,
            record.version,
        )

        def write(cur: DBAPICursor) -> bool:
            cur.execute(self._sql.update_clock, values)
            return bool(cur.rowcount == 1)

        return self._writer.write(write)

    def find_daily(self, player: str, variant: str, date: dt.date) -> GameRecord | None:
        """The player's game of the daily deal of ``date``, if they began it
        (the newest, should there be two)."""
        with self._connections.cursor() as cur:
            cur.execute(self._sql.find_daily, (player, variant, date.isoformat()))
            found = cur.fetchone()
            return None if found is None else self._load(cur, found[0])

    def version_of(self, game_id: str) -> int | None:
        with self._connections.cursor() as cur:
            cur.execute(self._sql.version_of, (game_id,))
            found = cur.fetchone()
        return None if found is None else int(found[0])

    # -- statistics ---------------------------------------------------------

    def stats(self, player: str) -> dict[str, dict[str, int | None]]:
        """Per variant: games, wins, best time and moves, current and best
        streak (one row per variant, whatever the number of games)."""
        with self._connections.cursor() as cur:
            cur.execute(self._sql.stats, (player,))
            rows = cur.fetchall()
        return {row[0]: dict(zip(STATS_COLUMNS, row[1:], strict=True)) for row in rows}

    def latest_unfinished(self, player: str) -> tuple[str, str] | None:
        """The id and variant of the player's most recently played game that
        has moves made and is not won."""
        with self._connections.cursor() as cur:
            cur.execute(self._sql.latest_unfinished, (player,))
            found = cur.fetchone()
        return None if found is None else (str(found[0]), str(found[1]))

    def recent(
        self, player: str, variants: list[str], limit: int
    ) -> dict[str, list[dict[str, Any]]]:
        """Per variant, the player's latest ``limit`` dealt games with a move
        made (custom positions do not count), oldest first, each a dict of
        :data:`RECENT_COLUMNS`.  One index range per variant."""
        out: dict[str, list[dict[str, Any]]] = {}
        with self._connections.cursor() as cur:
            for variant in variants:
                cur.execute(self._sql.recent, (player, variant, limit))
                rows = reversed(cur.fetchall())
                out[variant] = [dict(zip(RECENT_COLUMNS, row, strict=True)) for row in rows]
        return out


def _counted(record: GameRecord) -> bool:
    """Whether the game counts in its player's statistics (a dealt game of a
    known player; custom positions never count)."""
    return bool(record.player and record.session.deal is not None)


def _sqlite_pragmas(dbapi_connection: DBAPIConnection, _record: ConnectionPoolEntry) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")  # an accepted action survives a crash
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.close()
