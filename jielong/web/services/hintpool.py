"""Hints in a bounded process pool, off the event loop.

At most ``workers + queue`` computations (hints and analyses) wait or run
at once; past that, a request is refused at once (:class:`HintBusy`) instead
of waiting, so memory stays bounded however many requests arrive, unless
another address has more waiting: its newest is refused instead.  The
computations wait here, not in the process pool, and go to a worker only
when one is free, in turn per address and per player
(:mod:`jielong.web.services.fairqueue`), hints and analyses alternately;
analyses take all workers but one, so that a hint never waits behind more
than one hint per address ahead of it.  A worker's memory is bounded
(:data:`WORKER_MEMORY_BYTES`; past it, that computation fails).

One computation per game is in flight: a second request for the same game
and version waits for the first one's answer.  An action on the game
cancels the wait; a worker that is already computing finishes within its
deadline and its answer is dropped.

The pool remembers each game's last hint (a bounded number of games), so the
next one goes on with its line when the player followed it.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import multiprocessing
import os
import resource
import signal
import threading
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import TypeVar, TypeVarTuple

from jielong.engine.rules.registry import Position
from jielong.engine.solve.hints import compute_hint
from jielong.engine.solve.result import Hint
from jielong.play.answers import hint_json
from jielong.web.http.lifeline import die_with_parent
from jielong.web.services.fairqueue import FairQueue

T = TypeVar("T")
Args = TypeVarTuple("Args")

# Time past the solver's own deadline before the server gives up on a worker.
GRACE_SECONDS = 3.0
# A worker's deadline counts its CPU time, so that hints computed side by side
# on a busy machine each get their share; but at most this many times the
# deadline passes on the wall clock.
WALL_FACTOR = 3.0
# The longest a computation waits for a worker (then 503 hint_busy), beside
# its own deadline: a longer one may wait behind a longer one.
QUEUE_SECONDS = 16.0
# The longest a request waits, queue included: below the read timeout a
# reverse proxy is commonly given (30 s).
MAX_WAIT_SECONDS = 28.0
# The memory a worker may take (its data segment and private mappings).
WORKER_MEMORY_BYTES = 768 * 1024 * 1024
# How often a waiting request asks whether the game moved on elsewhere (another
# server process may have taken the action).
POLL_SECONDS = 0.5
# How often a worker checks that the server process that started it lives.
PARENT_CHECK_SECONDS = 1.0
# Games whose last hint is remembered.
REMEMBERED_GAMES = 4096


class HintBusy(Exception):
    """The pool and its queue are full."""


class HintCancelled(Exception):
    """The game changed while its hint was being computed."""


class HintUnavailable(Exception):
    """No hint could be computed (no hint module, a failed or late worker)."""


def compute(
    variant_id: str,
    position: Position,
    deadline_seconds: float,
    seen: tuple[Position, ...] = (),
    previous: tuple[Position, Hint] | None = None,
    known_lost: bool = False,
) -> Hint:
    """Run in a worker: the hint."""
    return compute_hint(
        variant_id,
        position,
        deadline_seconds=deadline_seconds,
        seen=seen,
        previous=previous,
        known_lost=known_lost,
    )


def cpu_clock(wall_factor: float) -> Callable[[], float]:
    """A clock that runs with the process's CPU time, or with the wall clock
    slowed ``wall_factor`` times when that is ahead: a deadline on it is CPU
    time, bounded in wall time."""
    wall, cpu = time.monotonic, time.process_time
    wall0, cpu0 = wall(), cpu()

    def clock() -> float:
        return wall0 + max(cpu() - cpu0, (wall() - wall0) / wall_factor)

    return clock


def _start_worker(parent: int, memory_bytes: int) -> None:
    """Run in each new worker: the solvers' deadlines (taken on
    ``time.monotonic``) count this process's CPU time, its memory is bounded,
    and the worker ends with the server process."""
    time.monotonic = cpu_clock(WALL_FACTOR)
    # a search past the bound gets MemoryError (its request: 503), not the
    # machine's memory
    _soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
    if hard == resource.RLIM_INFINITY or memory_bytes < hard:
        resource.setrlimit(resource.RLIMIT_DATA, (memory_bytes, hard))
    die_with_parent(signal.SIGKILL, parent)  # a hint holds no state worth a clean stop
    _watch_parent(parent)


def _watch_parent(parent: int) -> None:
    """Run in each worker: exit once the server process is gone.  A server
    killed outright (SIGKILL, the OOM killer) cannot stop its pool, and an
    idle worker would otherwise wait on its queue for ever."""

    def watch() -> None:
        # (time.sleep is not affected by the CPU clock above)
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_SECONDS)
        os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _warm() -> None:
    """Submitted once to each fresh worker: unpickling it there imports this
    module, and with it the solvers, so that the first hint is quick."""


@dataclass(eq=False)
class _Work:
    """One computation for a hint process, waiting or running."""

    address: str
    player: str
    fn: Callable[..., object]
    args: tuple[object, ...]
    seconds: float
    """Its deadline: on the worker's CPU clock, at most WALL_FACTOR times
    that on the wall clock."""
    analysis: bool
    result: asyncio.Future[object]
    queued_at: float
    give_up: float
    """Loop time past which the answer is not waited for any more."""


@dataclass
class _Job:
    """A game's hint being computed, and those who wait for it."""

    version: int
    work: _Work
    cancelled: asyncio.Event = field(default_factory=asyncio.Event)
    waiters: int = 0


_NOBODY = ("", "")


def _trimmed(fn: Callable[..., T], *args: object) -> T:
    """Run in a worker: ``fn(*args)``, then the memory it freed given back
    to the system (glibc keeps freed heap otherwise, and a worker stayed at
    the size of its largest search)."""
    try:
        return fn(*args)
    finally:
        _malloc_trim()


def _malloc_trim() -> None:
    with contextlib.suppress(OSError, AttributeError):  # not glibc
        ctypes.CDLL("libc.so.6").malloc_trim(0)


class HintPool:
    """Hints and analyses in a bounded process pool (see the module's text)."""

    def __init__(self, workers: int = 2, queue: int = 8, deadline_seconds: float = 2.0) -> None:
        self.workers = max(1, workers)
        self.capacity = self.workers + max(0, queue)
        self.deadline_seconds = deadline_seconds
        # analyses run on all workers but one, which is kept for hints
        self.analysis_workers = max(1, self.workers - 1)
        self._executor: ProcessPoolExecutor | None = None
        self._jobs: dict[str, _Job] = {}
        self._last: OrderedDict[str, tuple[Position, Hint]] = OrderedDict()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._hints: FairQueue[_Work] = FairQueue()
        self._analyses: FairQueue[_Work] = FairQueue()
        self._running: set[_Work] = set()
        self._running_analyses = 0
        self._analysis_next = False

    @property
    def submitted(self) -> int:
        """Computations waiting or running."""
        return len(self._hints) + len(self._analyses) + len(self._running)

    @property
    def waiting_games(self) -> int:
        return len(self._jobs)

    def start(self, loop: asyncio.AbstractEventLoop, *, warm: bool = True) -> None:
        self._loop = loop
        if warm:
            executor = self._get_executor()
            for _ in range(self.workers):
                executor.submit(_warm)

    def shutdown(self) -> None:
        """Stop the workers and wait for them: a hint being computed ends
        within its deadline, and no worker outlives the server."""
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None

    def _get_executor(self) -> ProcessPoolExecutor:
        if self._executor is None:
            # spawn: forking a threaded server process is unsafe
            self._executor = ProcessPoolExecutor(
                self.workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_start_worker,
                initargs=(os.getpid(), WORKER_MEMORY_BYTES),
            )
        return self._executor

    def cancel(self, game_id: str) -> None:
        """The game moved on: answer its waiting hint requests with
        :class:`HintCancelled`.  Safe to call from any thread."""
        loop = self._loop
        if loop is None or game_id not in self._jobs:
            return
        loop.call_soon_threadsafe(self._cancel_now, game_id)

    def _cancel_now(self, game_id: str) -> None:
        job = self._jobs.pop(game_id, None)
        if job is not None:
            job.cancelled.set()

    async def hint(
        self,
        game_id: str,
        version: int,
        variant_id: str,
        position: Position,
        is_stale: Callable[[], Awaitable[bool]] | None = None,
        *,
        seen: tuple[Position, ...] = (),
        known_lost: bool = False,
        gave_up: Callable[[], Awaitable[bool]] | None = None,
        who: tuple[str, str] = _NOBODY,
    ) -> dict[str, object]:
        """The hint for ``game_id`` at ``version`` as JSON-ready data
        (``seen``: the positions the game has been in; ``known_lost``: it
        started from a deal proven unsolvable; ``who``: the address and
        player asking, whose turn it waits for); raises :class:`HintBusy`,
        :class:`HintCancelled` or :class:`HintUnavailable`.  ``gave_up`` tells
        whether the caller went away: a computation nobody waits for any more
        (the caller gave up or timed out) is taken off the queue."""
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
        job = self._jobs.get(game_id)
        if job is not None and job.version != version:
            self._cancel_now(game_id)
            job = None
        if job is None:
            args: tuple[object, ...] = (variant_id, position, self.deadline_seconds, seen)
            args += (self._last.get(game_id), known_lost)
            work = self._submit(who, compute, args, self.deadline_seconds, analysis=False)
            job = self._new_job(game_id, version, work)
        job.waiters += 1
        try:
            hint = await self._wait(job.work, job.cancelled, is_stale, gave_up, game_id)
        finally:
            job.waiters -= 1
            if job.waiters == 0 and not job.work.result.done():
                self._drop_job(game_id, job)
        assert isinstance(hint, Hint)
        self._last[game_id] = (position, hint)
        self._last.move_to_end(game_id)
        while len(self._last) > REMEMBERED_GAMES:
            self._last.popitem(last=False)
        return hint_json(hint)

    async def run(
        self,
        fn: Callable[[*Args], T],
        *args: *Args,
        seconds: float,
        who: tuple[str, str] = _NOBODY,
        gave_up: Callable[[], Awaitable[bool]] | None = None,
    ) -> T:
        """``fn(*args)`` in a worker (a position's analysis, taking up to
        ``seconds`` of a worker's CPU): in turn with hints per address and
        player, on all workers but one; raises :class:`HintBusy` when the
        pool is full and :class:`HintUnavailable` when the worker fails or is
        late."""
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
        work = self._submit(who, fn, tuple(args), seconds, analysis=True)
        try:
            return await self._wait(work, None, None, gave_up)  # type: ignore[return-value]
        finally:
            if not work.result.done():
                self._withdraw(work)

    # -- the queues --------------------------------------------------------------

    def _submit(
        self,
        who: tuple[str, str],
        fn: Callable[..., object],
        args: tuple[object, ...],
        seconds: float,
        *,
        analysis: bool,
    ) -> _Work:
        loop = asyncio.get_running_loop()
        address, player = who
        if self.submitted >= self.capacity and not self._make_room(address):
            raise HintBusy()
        now = loop.time()
        give_up = now + QUEUE_SECONDS + seconds
        future = loop.create_future()
        work = _Work(address, player, fn, args, seconds, analysis, future, now, give_up)
        (self._analyses if analysis else self._hints).push(work)
        self._pump()
        return work

    def _make_room(self, address: str) -> bool:
        """A full pool refuses the newest waiting work of the address with
        the most waiting, for a place for another address."""
        richest = [q.newest_of_richest(address) for q in (self._hints, self._analyses)]
        work = next((w for w in richest if w is not None), None)
        if work is None:
            return False
        (self._analyses if work.analysis else self._hints).remove(work)
        work.result.set_exception(HintBusy())
        return True

    def _pump(self) -> None:
        """Hand waiting work to free workers, hints and analyses in turn."""
        while len(self._running) < self.workers:
            work = self._next()
            if work is None:
                return
            self._start(work)

    def _next(self) -> _Work | None:
        def waited_for(work: _Work) -> bool:
            return not work.result.done()

        analyses_free = self._running_analyses < self.analysis_workers
        order = [self._hints, self._analyses] if analyses_free else [self._hints]
        if analyses_free and self._analysis_next:
            order.reverse()
        for queue in order:
            work = queue.pop(waited_for)
            if work is not None:
                self._analysis_next = not work.analysis
                return work
        return None

    def _start(self, work: _Work) -> None:
        loop = asyncio.get_running_loop()
        try:
            future = self._get_executor().submit(_trimmed, work.fn, *work.args)
        except (BrokenProcessPool, RuntimeError):
            self._executor = None  # a worker died: start a fresh pool next time
            work.result.set_exception(HintUnavailable())
            return
        self._running.add(work)
        if work.analysis:
            self._running_analyses += 1
        work.give_up = min(
            loop.time() + work.seconds * WALL_FACTOR + GRACE_SECONDS,
            work.queued_at + MAX_WAIT_SECONDS,
        )

        def finished(done: Future[object]) -> None:
            loop.call_soon_threadsafe(self._finished, work, done)

        future.add_done_callback(finished)

    def _finished(self, work: _Work, done: Future[object]) -> None:
        self._running.discard(work)
        if work.analysis:
            self._running_analyses -= 1
        if not work.result.done():
            exc = done.exception()
            if exc is None:
                work.result.set_result(done.result())
            else:
                if isinstance(exc, BrokenProcessPool):
                    self._executor = None  # a worker died: start a fresh pool next time
                work.result.set_exception(HintUnavailable())
        self._pump()

    def _withdraw(self, work: _Work) -> None:
        """Nobody waits for ``work`` any more: off its queue (a running one
        ends at its deadline)."""
        (self._analyses if work.analysis else self._hints).remove(work)
        work.result.cancel()

    def _new_job(self, game_id: str, version: int, work: _Work) -> _Job:
        job = _Job(version, work)
        self._jobs[game_id] = job

        def forget(_: object) -> None:
            if self._jobs.get(game_id) is job:
                del self._jobs[game_id]

        work.result.add_done_callback(forget)
        return job

    def _drop_job(self, game_id: str, job: _Job) -> None:
        if self._jobs.get(game_id) is job:
            del self._jobs[game_id]
        self._withdraw(job.work)

    async def _wait(
        self,
        work: _Work,
        cancelled_event: asyncio.Event | None,
        is_stale: Callable[[], Awaitable[bool]] | None,
        gave_up: Callable[[], Awaitable[bool]] | None,
        game_id: str = "",
    ) -> object:
        loop = asyncio.get_running_loop()
        cancelled = asyncio.ensure_future(
            cancelled_event.wait() if cancelled_event is not None else asyncio.Event().wait()
        )
        try:
            while True:
                # (the deadline moves once the work is handed to a worker)
                left = work.give_up - loop.time()
                if left <= 0:
                    raise HintBusy() if work not in self._running else HintUnavailable()
                done, _ = await asyncio.wait(
                    (work.result, cancelled),
                    timeout=min(POLL_SECONDS, left),
                    return_when=asyncio.FIRST_COMPLETED,
                )
                if cancelled in done:
                    raise HintCancelled()
                if work.result in done:
                    break
                if gave_up is not None and await gave_up():
                    raise HintUnavailable()
                if is_stale is not None and await is_stale():
                    self._cancel_now(game_id)
                    raise HintCancelled()
        finally:
            cancelled.cancel()
        return work.result.result()
