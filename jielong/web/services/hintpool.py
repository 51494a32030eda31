"""Hints in a bounded process pool, off the event loop.

At most ``workers + queue`` hint computations are submitted at once; past
that, a request is refused at once (:class:`HintBusy`) instead of waiting, so
memory stays bounded however many requests arrive.  One computation per game
is in flight: a second request for the same game and version waits for the
first one's answer.  An action on the game cancels the wait; a worker that
is already computing finishes within its deadline and its answer is dropped.

The pool remembers each game's last hint (a bounded number of games), so the
next one goes on with its line when the player followed it.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
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

T = TypeVar("T")
Args = TypeVarTuple("Args")

# Time past the solver's own deadline before the server gives up on a worker.
GRACE_SECONDS = 3.0
# A worker's deadline counts its CPU time, so that hints computed side by side
# on a busy machine each get their share; but at most this many times the
# deadline passes on the wall clock.
WALL_FACTOR = 3.0
# The longest a request waits for its hint, queue included: below the read
# timeout a reverse proxy is commonly given.
MAX_WAIT_SECONDS = 25.0
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


def _start_worker(parent: int) -> None:
    """Run in each new worker: the solvers' deadlines (taken on
    ``time.monotonic``) count this process's CPU time, and the worker ends
    with the server process."""
    time.monotonic = cpu_clock(WALL_FACTOR)
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


@dataclass
class _Job:
    version: int
    result: asyncio.Future[Hint]
    cancelled: asyncio.Event = field(default_factory=asyncio.Event)
    give_up: float = 0.0
    """Loop time past which the answer is not waited for any more."""
    waiters: int = 0


class HintPool:
    def __init__(self, workers: int = 2, queue: int = 8, deadline_seconds: float = 2.0) -> None:
        self.workers = max(1, workers)
        self.capacity = self.workers + max(0, queue)
        self.deadline_seconds = deadline_seconds
        self._executor: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()
        self._submitted = 0
        self._jobs: dict[str, _Job] = {}
        self._last: OrderedDict[str, tuple[Position, Hint]] = OrderedDict()
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def submitted(self) -> int:
        """Computations submitted and not yet finished."""
        return self._submitted

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
                initargs=(os.getpid(),),
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

    def _finished(self, _future: object) -> None:
        with self._lock:
            self._submitted -= 1

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
    ) -> dict[str, object]:
        """The hint for ``game_id`` at ``version`` as JSON-ready data
        (``seen``: the positions the game has been in; ``known_lost``: it
        started from a deal proven unsolvable); raises :class:`HintBusy`,
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
            args = (seen, self._last.get(game_id), known_lost)
            job = self._submit(game_id, version, variant_id, position, args)
        job.waiters += 1
        try:
            hint = await self._wait(game_id, job, is_stale, gave_up)
        finally:
            job.waiters -= 1
            if job.waiters == 0 and not job.result.done():
                self._drop(game_id, job)
        self._last[game_id] = (position, hint)
        self._last.move_to_end(game_id)
        while len(self._last) > REMEMBERED_GAMES:
            self._last.popitem(last=False)
        return hint_json(hint)

    async def run(self, fn: Callable[[*Args], T], *args: *Args, seconds: float) -> T:
        """``fn(*args)`` in a worker, under the same bound as hints (a
        position's analysis): raises :class:`HintBusy` when the pool is full
        and :class:`HintUnavailable` when the worker fails or is late."""
        with self._lock:
            if self._submitted >= self.capacity:
                raise HintBusy()
            self._submitted += 1
        try:
            future = self._get_executor().submit(fn, *args)
        except (BrokenProcessPool, RuntimeError):
            self._finished(Future())
            self._executor = None
            raise HintUnavailable() from None
        future.add_done_callback(self._finished)
        try:
            return await asyncio.wait_for(asyncio.wrap_future(future), seconds + GRACE_SECONDS)
        except BrokenProcessPool:
            self._executor = None
            raise HintUnavailable() from None
        except Exception:  # late, or the computation failed
            raise HintUnavailable() from None

    def _submit(
        self,
        game_id: str,
        version: int,
        variant_id: str,
        position: Position,
        args: tuple[tuple[Position, ...], tuple[Position, Hint] | None, bool],
    ) -> _Job:
        with self._lock:
            if self._submitted >= self.capacity:
                raise HintBusy()
            ahead = self._submitted
            self._submitted += 1
        try:
            future = self._get_executor().submit(
                compute, variant_id, position, self.deadline_seconds, *args
            )
        except (BrokenProcessPool, RuntimeError):
            self._finished(Future())
            self._executor = None  # a worker died: start a fresh pool next time
            raise HintUnavailable() from None
        future.add_done_callback(self._finished)
        # each computation ahead in the queue may take its whole deadline
        turns = ahead // self.workers + 1
        give_up = asyncio.get_running_loop().time() + GRACE_SECONDS
        give_up += min(turns * self.deadline_seconds * WALL_FACTOR, MAX_WAIT_SECONDS)
        job = _Job(version, asyncio.wrap_future(future), give_up=give_up)
        self._jobs[game_id] = job

        def forget(_: object) -> None:
            if self._jobs.get(game_id) is job:
                del self._jobs[game_id]

        job.result.add_done_callback(forget)
        return job

    def _drop(self, game_id: str, job: _Job) -> None:
        """Nobody waits for ``job`` any more: cancel its computation (a queued
        one never starts; a running one ends at its deadline)."""
        if self._jobs.get(game_id) is job:
            del self._jobs[game_id]
        job.result.cancel()  # cancels the pool's future through wrap_future

    async def _wait(
        self,
        game_id: str,
        job: _Job,
        is_stale: Callable[[], Awaitable[bool]] | None,
        gave_up: Callable[[], Awaitable[bool]] | None,
    ) -> Hint:
        loop = asyncio.get_running_loop()
        give_up = job.give_up
        cancelled = asyncio.ensure_future(job.cancelled.wait())
        try:
            while True:
                left = give_up - loop.time()
                if left <= 0:
                    raise HintUnavailable()
                done, _ = await asyncio.wait(
                    (job.result, cancelled),
                    timeout=min(POLL_SECONDS, left),
                    return_when=asyncio.FIRST_COMPLETED,
                )
                if cancelled in done:
                    raise HintCancelled()
                if job.result in done:
                    break
                if gave_up is not None and await gave_up():
                    raise HintUnavailable()
                if is_stale is not None and await is_stale():
                    self._cancel_now(game_id)
                    raise HintCancelled()
        finally:
            cancelled.cancel()
        try:
            return job.result.result()
        except BrokenProcessPool:
            self._executor = None  # a worker died: start a fresh pool next time
            raise HintUnavailable() from None
        except Exception:  # no hint module yet, or the solver failed
            raise HintUnavailable() from None
