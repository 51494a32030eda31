"""The store's own connections for the statements of every action, and SQLite
group commit.

An action reads one row and writes two; through the SQL toolkit's statement
building, caching and pool events that costs several times what the
database does for it, so these statements go to the driver directly, on
connections in autocommit mode with explicit transactions.  The toolkit's
engine still creates the schema and serves the rarer queries.

SQLite makes every commit wait for the disk (``synchronous=FULL``), one
writer at a time.  Writers of this process therefore queue, and whoever
holds the write lock commits the writes of everyone queued behind it in one
transaction: one disk flush for many actions, each answered only after the
commit that holds it.  Each write is still compare-and-set on its game's
version, run in order inside the transaction, so its outcome is the one it
would have had alone.

A write can also be handed over from the event loop (:meth:`Writer.write_soon`):
it joins the same queue, a thread of the writer's own commits it, and the
loop is told once per commit, not once per write.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from typing import Any, TypeVar, cast

import sqlalchemy as sa
from sqlalchemy.engine.interfaces import DBAPIConnection, DBAPICursor

T = TypeVar("T")

Query = tuple[str, tuple[object, ...]]
"""A statement and its parameters."""

IDLE_CONNECTIONS = 8
"""Connections kept open between uses (more may be open while in use)."""


class Connections:
    """A small pool of the engine's driver connections, taken out of its
    pool and switched to autocommit with explicit transactions.

    They are made by the engine, so its connect hooks (SQLite's pragmas)
    apply, and closed when the engine is disposed of.  A connection whose
    use raised is closed, not reused: a dropped server connection or a
    half-done transaction never comes back.  Driver errors of availability
    surface as the toolkit's ``OperationalError``, as the rest of the site's
    database work does."""

    def __init__(self, engine: sa.Engine, *, limit: int) -> None:
        self.engine = engine
        self.sqlite = engine.dialect.name == "sqlite"
        self.placeholder = "?" if self.sqlite else "%s"
        self._idle: list[DBAPIConnection] = []
        self._lock = threading.Lock()
        # one token per connection that may be open: a queue in C, where
        # threading's semaphore is Python code costing some microseconds a use
        self._slots: queue.SimpleQueue[None] = queue.SimpleQueue()
        for _ in range(limit):
            self._slots.put(None)
        self._generation = 0
        sa.event.listen(engine, "engine_disposed", lambda _engine: self.close())
        self._errors: tuple[type[Exception], ...] = (
            engine.dialect.loaded_dbapi.OperationalError,
            engine.dialect.loaded_dbapi.InterfaceError,
        )

    def _connect(self) -> DBAPIConnection:
        proxy = self.engine.raw_connection()
        proxy.detach()  # ours now: closed by us, never back in the engine's pool
        conn = proxy.dbapi_connection
        assert conn is not None  # a connection just made
        if self.sqlite:
            conn.isolation_level = None
        else:
            conn.autocommit = True
        return conn

    @contextlib.contextmanager
    def cursor(self) -> Iterator[DBAPICursor]:
        self._slots.get()
        try:
            with self._lock:
                conn = self._idle.pop() if self._idle else None
                generation = self._generation
            try:
                if conn is None:
                    conn = self._connect()
                yield conn.cursor()
            except self._errors as e:
                _close(conn)
                raise sa.exc.OperationalError(None, None, e) from e
            except BaseException:
                _close(conn)
                raise
            with self._lock:
                if generation == self._generation and len(self._idle) < IDLE_CONNECTIONS:
                    self._idle.append(conn)
                    conn = None
            _close(conn)
        finally:
            self._slots.put(None)

    def close(self) -> None:
        """Close the idle connections; those in use close when they return."""
        with self._lock:
            idle, self._idle = self._idle, []
            self._generation += 1
        for conn in idle:
            _close(conn)


class AsyncConnections:
    """The same for code on an event loop, on a server database: psycopg's
    asynchronous connections, in autocommit mode, at most ``limit`` open,
    made on first use on the loop that uses them.  A connection whose use
    raised is closed, and driver errors of availability surface as the
    toolkit's ``OperationalError``, as with :class:`Connections`."""

    def __init__(self, engine: sa.Engine, *, limit: int) -> None:
        self.url = engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
        self.limit = limit
        self._idle: list[Any] = []
        self._slots: asyncio.Semaphore | None = None
        self._errors: tuple[type[Exception], ...] = ()

    @contextlib.asynccontextmanager
    async def cursor(self) -> AsyncIterator[Any]:
        import psycopg

        if self._slots is None:
            self._slots = asyncio.Semaphore(self.limit)
            self._errors = (psycopg.OperationalError, psycopg.InterfaceError)
        async with self._slots:
            conn = self._idle.pop() if self._idle else None
            try:
                if conn is None:
                    conn = await psycopg.AsyncConnection.connect(self.url, autocommit=True)
                async with conn.cursor() as cur:
                    yield cur
            except self._errors as e:
                await _close_soon(conn)
                raise sa.exc.OperationalError(None, None, e) from e
            except BaseException:
                await _close_soon(conn)
                raise
            self._idle.append(conn)

    def close(self) -> None:
        """Close the idle connections (at once, off any event loop)."""
        idle, self._idle = self._idle, []
        for conn in idle:
            with contextlib.suppress(Exception):
                conn.pgconn.finish()


async def _close_soon(conn: Any) -> None:
    if conn is not None:
        with contextlib.suppress(Exception):
            await conn.close()


def _close(conn: DBAPIConnection | None) -> None:
    if conn is not None:
        with contextlib.suppress(Exception):
            conn.close()


class _Write:
    __slots__ = ("done", "error", "future", "result", "work")

    def __init__(
        self, work: Callable[[DBAPICursor], object], future: asyncio.Future[Any] | None = None
    ) -> None:
        self.work = work
        self.done = False
        self.result: object = None
        self.error: BaseException | None = None
        # set from the event loop: told there once the write is committed
        self.future = future


class Writer:
    """Runs writes in transactions: on SQLite, the queued ones together."""

    def __init__(self, connections: Connections) -> None:
        self.connections = connections
        self._begin = "BEGIN IMMEDIATE" if connections.sqlite else "BEGIN"
        self._queue: list[_Write] = []
        self._queue_lock = threading.Lock()
        self._write_lock = threading.Lock()
        # the committing thread of the writes handed over from an event loop:
        # one token per such write (False: stop)
        self._wakeups: queue.SimpleQueue[bool] = queue.SimpleQueue()
        self._committer: threading.Thread | None = None

    def write(self, work: Callable[[DBAPICursor], T]) -> T:
        """``work(cursor)`` inside a transaction, committed before this
        returns; what it raises rolls back its own writes only."""
        item = _Write(work)
        if not self.connections.sqlite:
            self._run([item])
        else:
            with self._queue_lock:
                self._queue.append(item)
            with self._write_lock:
                if not item.done:
                    self._commit_queued()
        if item.error is not None:
            raise item.error
        return cast(T, item.result)  # what ``work`` returned

    def write_soon(self, work: Callable[[DBAPICursor], T]) -> asyncio.Future[T]:
        """:meth:`write` for code on an event loop (SQLite only): the write
        is queued and the loop goes on; the future is done once it is
        committed (or refused), with what ``work`` returned or raised.  The
        write runs in the writer's thread, with the writes queued beside it."""
        if not self.connections.sqlite:
            raise RuntimeError("only SQLite writes are committed by the writer's thread")
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        with self._queue_lock:
            self._queue.append(_Write(work, future))
            if self._committer is None:
                self._committer = threading.Thread(
                    target=self._commit_handed_over, name="jielong-commit", daemon=True
                )
                self._committer.start()
        self._wakeups.put(True)
        return future

    def close(self) -> None:
        """Stop the committing thread (once the writes queued are done)."""
        self._wakeups.put(False)

    def _commit_handed_over(self) -> None:
        while self._wakeups.get():
            with self._write_lock:
                self._commit_queued()

    def _commit_queued(self) -> None:
        """Commit every write queued (the caller holds the write lock), and
        tell the event loops waiting for some of them."""
        with self._queue_lock:
            batch, self._queue = self._queue, []
        if not batch:
            return
        self._run(batch)
        waiting: dict[asyncio.AbstractEventLoop, list[_Write]] = {}
        for item in batch:
            if item.future is not None:
                waiting.setdefault(item.future.get_loop(), []).append(item)
        for loop, items in waiting.items():
            with contextlib.suppress(RuntimeError):  # a loop closed meanwhile
                loop.call_soon_threadsafe(_settle, items)

    def statement(self, sql: str, params: Sequence[object]) -> int:
        """One statement as its own transaction (no explicit one around it:
        one round trip to a server database); the rows it changed."""
        with self.connections.cursor() as cur:
            cur.execute(sql, params)
            return int(cur.rowcount)

    def _run(self, batch: list[_Write]) -> None:
        try:
            with self.connections.cursor() as cur:
                cur.execute(self._begin)
                try:
                    for item in batch:
                        item.result = item.work(cur)
                    cur.execute("COMMIT")
                except BaseException:
                    cur.execute("ROLLBACK")
                    raise
        except BaseException as e:
            if len(batch) == 1:
                batch[0].error = e
            else:
                # one write's failure must not fail the others: each alone
                for item in batch:
                    self._run([item])
        for item in batch:
            item.done = True


def _settle(items: list[_Write]) -> None:
    """On the event loop: the outcome of each committed write to its future."""
    for item in items:
        future = item.future
        if future is None or future.done():
            continue  # its waiter gave up: the write stands all the same
        if item.error is not None:
            future.set_exception(item.error)
        else:
            future.set_result(item.result)
