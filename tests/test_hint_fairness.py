"""Hints shared fairly: limits per player and per address (429 with
Retry-After), one computation per game, and no computation for a caller that
gave up or timed out.

Kongdang deal 11982 is unsolvable and its proof takes longer than any hint
deadline here, so each of its hints keeps a worker busy for the whole
deadline.
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
from jielong.web.services.hintgate import HintGate, HintRefused
from jielong.web.services.hintpool import HintBusy, HintPool, HintUnavailable

SLOW = rules_for("kongdang").deal(11982)


def _run(coro: Any) -> Any:
    with ThreadPoolExecutor(max_workers=1) as ex:
        return ex.submit(asyncio.run, coro).result()


def test_the_gate_limits_players_and_addresses() -> None:
    gate = HintGate(player_in_flight=2, address_in_flight=3, player_rate=(4, 0.5))
    with gate.admit("p1", "a"), gate.admit("p1", "a"):
        with pytest.raises(HintRefused) as refused, gate.admit("p1", "a"):
            pass
        assert refused.value.seconds == 1
        with gate.admit("p2", "a"), pytest.raises(HintRefused), gate.admit("p3", "a"):
            pass
    with gate.admit("p1", "b"), gate.admit("p1", "b"):
        pass  # the places were given back
    # four at once, then one every two seconds
    with pytest.raises(HintRefused) as refused, gate.admit("p1", "c"):
        pass
    assert refused.value.seconds == 2
    with gate.admit("p9", "c"):
        pass


def test_a_caller_that_gave_up_leaves_no_computation_behind(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the caller is found gone long before the first proof ends (about 0.3 s)
    monkeypatch.setattr(hintpool, "POLL_SECONDS", 0.05)

    async def scenario() -> tuple[int, int, Any]:
        pool = HintPool(workers=1, queue=8, deadline_seconds=1.0)
        pool.start(asyncio.get_running_loop())
        gone = asyncio.Event()

        async def gave_up() -> bool:
            return gone.is_set()

        asks = [
            asyncio.ensure_future(pool.hint(f"g{i:021d}", 1, "kongdang", SLOW, gave_up=gave_up))
            for i in range(8)
        ]
        await asyncio.sleep(0.1)
        queued = pool.submitted
        gone.set()
        results = await asyncio.gather(*asks, return_exceptions=True)
        await asyncio.sleep(0.2)
        left = pool.submitted
        pool.shutdown()
        return queued, left, results

    queued, left, results = _run(scenario())
    assert queued == 8
    assert all(isinstance(r, HintUnavailable) for r in results), results
    # the queued ones are cancelled at once; only the computations already
    # handed to the worker (one running, one or two in its pipe) finish
    assert left <= 3 < queued


@pytest.mark.slow
def test_a_flooding_client_does_not_starve_another_player(tmp_path: Path) -> None:
    database = f"sqlite:///{tmp_path / 'games.sqlite3'}"
    args = ("--hint-workers", "2", "--hint-queue", "8", "--hint-seconds", "1")
    with (
        ServerProcess(database, *args) as server,
        httpx.Client(base_url=server.url, timeout=30) as attacker,
        httpx.Client(base_url=server.url, timeout=30) as victim,
    ):
        # as a custom position, so that its hints are searched, not known lost
        slow = {"variant": "kongdang", "position": rules_for("kongdang").to_text(SLOW)}
        games = [attacker.post("/api/games", json=slow).json() for _ in range(12)]
        own = victim.post("/api/games", json={"variant": "freecell", "deal": 12}).json()
        statuses: list[int] = []
        lock = threading.Lock()

        def flood(game: dict[str, Any]) -> None:
            r = attacker.post(f"/api/games/{game['id']}/hint", json={"version": 1})
            with lock:
                statuses.append(r.status_code)
            if r.status_code == 429:
                assert r.json()["error"]["code"] == "rate_limited"
                assert int(r.headers["retry-after"]) >= 1

        threads = [threading.Thread(target=flood, args=(g,)) for g in games]
        for t in threads:
            t.start()
        r = victim.post(f"/api/games/{own['id']}/hint", json={"version": 1})
        for t in threads:
            t.join()
        assert r.status_code == 200, r.text
        assert r.json()["move"] is not None
        # the flood got two places: the rest were refused at once
        assert statuses.count(429) >= 10, statuses


def test_a_workers_deadline_counts_its_cpu_time() -> None:
    from jielong.web.services.hintpool import cpu_clock

    clock = cpu_clock(3.0)
    start, wall = clock(), time.monotonic()
    time.sleep(0.3)  # waiting for a core: a third of the wall time counts
    waited, walled = clock() - start, time.monotonic() - wall
    assert walled / 3 - 0.01 <= waited <= walled / 3 + 0.05, (waited, walled)
    busy_until = time.process_time() + 0.4
    while time.process_time() < busy_until:
        pass
    # working: the CPU time counts whole (it is ahead of a third of the wall time)
    assert clock() - start >= 0.39


def test_a_player_over_its_limit_leaves_the_address_its_share() -> None:
    gate = HintGate(player_rate=(2, 0.01), address_rate=(4, 0.01))
    for _ in range(2):
        with gate.admit("greedy", "a"):
            pass
    for _ in range(10):
        with pytest.raises(HintRefused), gate.admit("greedy", "a"):
            pass
    with gate.admit("neighbour", "a"), gate.admit("other", "a"):
        pass


def test_the_queue_takes_addresses_then_players_in_turn() -> None:
    from dataclasses import dataclass

    from jielong.web.services.fairqueue import FairQueue

    @dataclass(eq=False)
    class W:
        address: str
        player: str
        n: int

    q: FairQueue[W] = FairQueue()
    for n in range(4):
        q.push(W("flood", f"p{n % 2}", n))
    q.push(W("quiet", "v", 99))
    order = [w.n for w in iter(lambda: q.pop(), None)]
    # one address's four against another's one: the other goes second, not
    # last; within the flooding address its two players take turns
    assert order == [0, 99, 1, 2, 3]
    for n in range(3):
        q.push(W("flood", "p", n))
    q.push(W("quiet", "v", 99))
    assert len(q) == 4 and q.held("flood") == 3
    richest = q.newest_of_richest("new")
    assert richest is not None and richest.n == 2
    assert q.remove(richest) and not q.remove(richest)
    assert q.newest_of_richest("flood") is None
    # the address served least recently goes first: the quiet one
    popped = q.pop()
    assert popped is not None and popped.n == 99


def test_analyses_leave_a_worker_to_hints_and_take_turns_per_address() -> None:
    async def scenario() -> tuple[list[float], float, float, Any]:
        pool = HintPool(workers=2, queue=8, deadline_seconds=1.0)
        pool.start(asyncio.get_running_loop())
        await asyncio.sleep(1.0)  # the workers are up
        t0 = time.monotonic()

        async def analysis(address: str, player: str, seconds: float) -> float:
            await pool.run(time.sleep, seconds, seconds=seconds, who=(address, player))
            return time.monotonic() - t0

        flood = [asyncio.ensure_future(analysis("10.0.0.1", f"p{i}", 1.0)) for i in range(6)]
        await asyncio.sleep(0.1)
        own = asyncio.ensure_future(analysis("10.0.0.2", "v", 0.5))
        await asyncio.sleep(0.1)
        # a hint meanwhile: a worker is kept for it
        hinted = await pool.hint(
            "h" * 22, 1, "freecell", rules_for("freecell").deal(5), who=("10.0.0.2", "v")
        )
        hint_at = time.monotonic() - t0
        own_at = await own
        flooded = await asyncio.gather(*flood)
        pool.shutdown()
        return list(flooded), own_at, hint_at, hinted

    flooded, own_at, hint_at, hinted = _run(scenario())
    assert hinted["move"] is not None
    # within three times its deadline (1 s), not behind the flood's 6 s
    assert hint_at < 3.5, hint_at
    # the other address's analysis ran second, after one of the flood's
    assert sorted(flooded)[0] < own_at < sorted(flooded)[1], (own_at, flooded)
    assert max(flooded) > 6.0


def test_a_full_pool_refuses_the_richest_address_for_a_newcomer() -> None:
    async def scenario() -> tuple[list[Any], Any]:
        pool = HintPool(workers=1, queue=2, deadline_seconds=1.0)
        pool.start(asyncio.get_running_loop())

        async def one(address: str) -> Any:
            try:
                return await pool.run(time.sleep, 0.5, seconds=0.5, who=(address, "p"))
            except HintBusy as e:
                return e

        flood = [asyncio.ensure_future(one("10.0.0.1")) for _ in range(3)]
        await asyncio.sleep(0.1)
        newcomer = await one("10.0.0.2")
        results = await asyncio.gather(*flood)
        pool.shutdown()
        return list(results), newcomer

    flood, newcomer = _run(scenario())
    assert newcomer is None  # time.sleep's answer
    assert sum(isinstance(r, HintBusy) for r in flood) == 1


def test_a_worker_s_memory_is_bounded() -> None:
    async def scenario() -> tuple[Any, Any]:
        pool = HintPool(workers=1, queue=1, deadline_seconds=1.0)
        pool.start(asyncio.get_running_loop())
        try:
            # a gigabyte and a half, past the worker's bound
            await pool.run(bytearray, 1536 << 20, seconds=5.0)
            big: Any = None
        except HintUnavailable as e:
            big = e
        after = await pool.run(sum, [1, 2], seconds=1.0)
        pool.shutdown()
        return big, after

    big, after = _run(scenario())
    assert isinstance(big, HintUnavailable) and after == 3


@pytest.mark.slow
def test_an_analysis_flood_from_one_address_leaves_others_their_answers(tmp_path: Path) -> None:
    database = f"sqlite:///{tmp_path / 'games.sqlite3'}"
    with ServerProcess(database, "--hint-workers", "2") as server:
        slow = {"variant": "kongdang", "position": rules_for("kongdang").to_text(SLOW)}
        stop = threading.Event()
        flood_statuses: list[int] = []

        def flood(player: int) -> None:
            with httpx.Client(base_url=server.url, timeout=60) as attacker:
                game = attacker.post("/api/games", json=slow).json()
                while not stop.is_set():
                    r = attacker.get(f"/api/games/{game['id']}/analysis")
                    flood_statuses.append(r.status_code)
                    if r.status_code != 200:
                        time.sleep(0.2)

        threads = [threading.Thread(target=flood, args=(i,)) for i in range(6)]
        for t in threads:
            t.start()
        time.sleep(2.0)
        other = httpx.Client(
            base_url=server.url,
            timeout=60,
            transport=httpx.HTTPTransport(local_address="127.0.0.2"),
        )
        answered: list[tuple[str, int, float]] = []
        with other:
            for kind, deal in (("analysis", 5), ("analysis", 6), ("hint", 7), ("hint", 8)):
                game = other.post("/api/games", json={"variant": "freecell", "deal": deal}).json()
                started = time.monotonic()
                if kind == "hint":
                    r = other.post(f"/api/games/{game['id']}/hint", json={"version": 1})
                else:
                    r = other.get(f"/api/games/{game['id']}/analysis")
                answered.append((kind, r.status_code, time.monotonic() - started))
        stop.set()
        for t in threads:
            t.join()
    assert all(status == 200 for _, status, _ in answered), answered
    # three times the hint deadline (2 s)
    assert all(seconds < 6.0 for kind, _, seconds in answered if kind == "hint"), answered
    assert 429 in flood_statuses
