"""Hints under load: a bounded pool and queue, one computation per game, quick
refusals when full, cancellation by a newer action, and moves on other games
answered while hints are computed.

Kongdang deal 11982 is unsolvable: each hint on its position keeps a worker
busy with a proof (about 0.3 s on a two-core machine), so the tests act on
hints still being computed.
"""

from __future__ import annotations

import asyncio
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from jielong.engine.rules.registry import rules_for
from jielong.testing.processes import ServerProcess
from jielong.web.services import hintpool
from jielong.web.services.hintpool import HintBusy, HintCancelled, HintPool

SLOW = rules_for("kongdang").deal(11982)


def _run(coro: Any) -> Any:
    # A thread of its own: the browser tests' Playwright session keeps an
    # event loop running in the main thread for the whole test session.
    with ThreadPoolExecutor(max_workers=1) as ex:
        return ex.submit(asyncio.run, coro).result()


def test_the_pool_refuses_past_its_capacity_and_forgets_finished_work() -> None:
    async def scenario() -> tuple[list[Any], int, HintPool]:
        pool = HintPool(workers=1, queue=1, deadline_seconds=1.0)
        pool.start(asyncio.get_running_loop())
        peak = 0
        done = asyncio.Event()

        async def watch() -> None:
            nonlocal peak
            while not done.is_set():
                peak = max(peak, pool.submitted)
                await asyncio.sleep(0.01)

        async def one(i: int) -> Any:
            try:
                return await pool.hint(f"game-{i:020d}", 1, "kongdang", SLOW)
            except HintBusy as e:
                return e

        watcher = asyncio.ensure_future(watch())
        results = await asyncio.gather(*(one(i) for i in range(20)))
        done.set()
        await watcher
        # the answers are in; the workers' done-callbacks arrive just after
        for _ in range(50):
            if pool.submitted == 0:
                break
            await asyncio.sleep(0.05)
        pool.shutdown()
        return list(results), peak, pool

    results, peak, pool = _run(scenario())
    answered = [r for r in results if isinstance(r, dict)]
    busy = [r for r in results if isinstance(r, HintBusy)]
    assert len(answered) == 2 and len(busy) == 18
    assert all(r["kind"] in ("heuristic", "solver", "unsolvable") for r in answered)
    assert peak <= pool.capacity == 2
    assert pool.submitted == 0 and pool.waiting_games == 0


def test_one_computation_per_game_and_version() -> None:
    async def scenario() -> tuple[list[Any], int]:
        pool = HintPool(workers=1, queue=0, deadline_seconds=1.0)
        pool.start(asyncio.get_running_loop())
        first = asyncio.ensure_future(pool.hint("g" * 22, 4, "kongdang", SLOW))
        await asyncio.sleep(0)
        second = asyncio.ensure_future(pool.hint("g" * 22, 4, "kongdang", SLOW))
        await asyncio.sleep(0)
        submitted = pool.submitted
        results = await asyncio.gather(first, second)
        pool.shutdown()
        return list(results), submitted

    results, submitted = _run(scenario())
    # capacity is one, yet the second request joined the first instead of
    # being refused
    assert submitted == 1 and results[0] == results[1]


def test_an_action_cancels_the_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    # the stale check comes long before the proof ends (about 0.3 s here)
    monkeypatch.setattr(hintpool, "POLL_SECONDS", 0.05)

    async def scenario() -> tuple[Any, Any]:
        pool = HintPool(workers=1, queue=2, deadline_seconds=2.0)
        pool.start(asyncio.get_running_loop())
        waiting = asyncio.ensure_future(pool.hint("c" * 22, 1, "kongdang", SLOW))
        await asyncio.sleep(0.2)
        pool.cancel("c" * 22)
        try:
            await waiting
            cancelled: Any = None
        except HintCancelled as e:
            cancelled = e

        async def stale() -> bool:
            return True

        try:
            await pool.hint("d" * 22, 1, "kongdang", SLOW, stale)
            probed: Any = None
        except HintCancelled as e:
            probed = e
        pool.shutdown()
        return cancelled, probed

    cancelled, probed = _run(scenario())
    assert isinstance(cancelled, HintCancelled) and isinstance(probed, HintCancelled)


def _rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


@pytest.mark.slow
def test_many_hints_at_once_on_a_real_server(tmp_path: Path) -> None:
    database = f"sqlite:///{tmp_path / 'games.sqlite3'}"
    args = ("--hint-workers", "1", "--hint-queue", "0", "--hint-seconds", "4")
    with (
        ServerProcess(database, *args) as server,
        httpx.Client(base_url=server.url, timeout=30) as http,
    ):
        # started from the deal's position, not its number: a game of a deal
        # known to be unsolvable is answered at once, the position is proven
        # afresh, so the hints overlap
        start = {"variant": "kongdang", "position": rules_for("kongdang").to_text(SLOW)}
        games = [http.post("/api/games", json=start).json() for _ in range(20)]
        player = http.post("/api/games", json={"variant": "freecell", "deal": 12}).json()
        events: list[tuple[float, str, int]] = []
        lock = threading.Lock()

        # (asked, answered) of each accepted hint: the time it was in flight
        in_flight: list[tuple[float, float]] = []

        def ask(game: dict[str, Any]) -> None:
            asked = time.monotonic()
            r = httpx.post(
                f"{server.url}/api/games/{game['id']}/hint", json={"version": 1}, timeout=30
            )
            with lock:
                events.append((time.monotonic(), "hint", r.status_code))
                if r.status_code == 200:
                    in_flight.append((asked, time.monotonic()))
            if r.status_code == 503:
                assert r.json()["error"]["code"] == "hint_busy"
                assert r.headers["retry-after"] == "1"
            elif r.status_code == 429:  # one address asks for many hints at once
                assert r.json()["error"]["code"] == "rate_limited"
                assert int(r.headers["retry-after"]) >= 1
            else:
                assert r.status_code == 200 and r.json()["kind"] in ("heuristic", "unsolvable")

        current = [player]

        def play() -> None:
            state = current[0]
            for _ in range(15):
                legal = [m for m in state["moves"] if m["to"].startswith("cell")] or state["moves"]
                if legal:
                    body = {"version": state["version"], "type": "move", **legal[0]}
                else:
                    body = {"version": state["version"], "type": "undo"}
                r = httpx.post(f"{server.url}/api/games/{player['id']}/actions", json=body)
                assert r.status_code == 200, r.text
                state = r.json()
                with lock:
                    events.append((time.monotonic(), "move", r.status_code))
                # paced, so that the moves span the time a hint is computed
                time.sleep(0.02)
            current[0] = state

        def wave() -> None:
            threads = [threading.Thread(target=ask, args=(g,)) for g in games]
            mover = threading.Thread(target=play)
            for t in (mover, *threads):
                t.start()
            for t in (mover, *threads):
                t.join()

        wave()
        before = _rss_kb(server.pid)
        accepted_first = sum(1 for _, kind, s in events if kind == "hint" and s == 200)
        for _ in range(2):
            events.clear()
            in_flight.clear()
            wave()
            hints = [e for e in events if e[1] == "hint"]
            moves = [e for e in events if e[1] == "move"]
            assert len(hints) == 20 and len(moves) == 15
            assert any(s == 503 for _, _, s in hints) and any(s == 200 for _, _, s in hints)
            # the moves did not wait for the hints: moves were answered while
            # an accepted hint was still being computed
            assert any(
                asked < t < answered for asked, answered in in_flight for t, _, _ in moves
            ), (in_flight, [t for t, _, _ in moves])
        after = _rss_kb(server.pid)
        assert accepted_first >= 1
        # two more waves of 20 hint requests: no growth worth the name
        assert after - before < 40_000, (before, after)
