"""The server under abuse and faults, this tree beside an anchor tree.

Scenarios, each on a fresh ``jielong serve`` on 127.0.0.1:

* ``flood``: 50 clients playing FreeCell by random moves (as in
  server_load.py) while one client (one player cookie) keeps 12 hint requests
  open on slow positions, and a second player asks for a hint on a fresh deal
  every half second: actions/s, p99, and that player's hint success rate.
* ``body``: one POST with a 200 MB body: the server's peak RSS while it
  arrives, and the answer.
* ``outage``: PostgreSQL stopped for 10 s under 5 clients reading and acting:
  the answers given meanwhile, connections dropped, tracebacks logged, and
  whether the clients are served again once it is back.
* ``cookies``: 2,000 requests with a valid player cookie beside a different
  padding cookie each (256 KB, then 24 KB): the server's RSS before and after.
* ``heads``: a 1 MB header, 20,000 headers, then 1,000 connections each
  holding an unfinished 1 MB header: the answers, and the RSS before, while
  they are held and once they are closed.
* ``analyses``: ten players of one address asking three analyses each of a
  hard board, again and again, while a player of another address asks three
  analyses and five hints: how many of theirs are answered, and how fast.
* ``idle``: one address holding 2,100 idle connections (reopened as they are
  closed) while a new address makes 68 requests: how many are answered.
* ``draws``: 10,000 draws in one Klondike game (the first 100 one request
  each, the rest as a device's offline actions): the game's rows and bytes
  of undo steps, its record's size, and the undos back to the deal.

    python bench/hardening.py --anchor /path/to/old-clone
    python bench/hardening.py --smoke
    python bench/hardening.py --only cookies --only heads
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import socket
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from server_load import Connection, client

from jielong.engine.rules.registry import rules_for
from jielong.testing.processes import PostgresCluster, ServerProcess, postgres_bin

# a kongdang deal whose hints keep a worker busy for the whole deadline
SLOW = {
    "variant": "kongdang",
    "position": rules_for("kongdang").to_text(rules_for("kongdang").deal(11982)),
}


def _server(database: str, tree: Path | None, *args: str) -> ServerProcess:
    env = None if tree is None else {**os.environ, "PYTHONPATH": str(tree)}
    return ServerProcess(database, *args, env=env, cwd=tree)


# -- flood ---------------------------------------------------------------------


async def _flood(port: int, seconds: float, flooders: int) -> dict[str, Any]:
    start_at = time.perf_counter() + 2.0
    stop_at = start_at + seconds
    latencies: list[float] = []
    errors: list[int] = []
    attacker = [Connection("127.0.0.1", port) for _ in range(flooders)]
    await attacker[0].request("GET", "/api/variants")
    for conn in attacker[1:]:
        conn.cookie = attacker[0].cookie  # one player holding many requests open
    flood_answers: Counter[int] = Counter()

    async def flood(conn: Connection) -> None:
        status, game = await conn.request("POST", "/api/games", SLOW)
        if status != 201:
            flood_answers[status] += 1
            return
        while time.perf_counter() < stop_at:
            status, _ = await conn.request("POST", f"/api/games/{game['id']}/hint", {"version": 1})
            flood_answers[status] += 1
            if status != 200:
                await asyncio.sleep(0.05)  # a refusal is immediate: do not spin
        conn.close()

    victim_answers: Counter[int] = Counter()

    async def victim() -> None:
        conn = Connection("127.0.0.1", port)
        rng = random.Random(7)
        while time.perf_counter() < start_at:
            await asyncio.sleep(0.05)
        while time.perf_counter() < stop_at:
            deal = rng.randint(1, 30000)
            _, game = await conn.request(
                "POST", "/api/games", {"variant": "freecell", "deal": deal}
            )
            path = f"/api/games/{game['id']}/hint"
            status, _ = await conn.request("POST", path, {"version": game["version"]})
            victim_answers[status] += 1
            await asyncio.sleep(0.5)
        conn.close()

    players = [
        client(
            Connection("127.0.0.1", port), random.Random(i), start_at, stop_at, latencies, errors
        )
        for i in range(50)
    ]
    await asyncio.gather(*players, *(flood(c) for c in attacker), victim())
    latencies.sort()
    q = statistics.quantiles(latencies, n=100) if len(latencies) > 1 else [0.0] * 99
    return {
        "rate": len(latencies) / seconds,
        "p99_ms": q[98] * 1000,
        "victim_ok": victim_answers[200],
        "victim_asked": sum(victim_answers.values()),
        "victim": dict(victim_answers),
        "flood": dict(flood_answers),
    }


def flood(tree: Path | None, args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="jielong-bench-") as tmp:
        server = _server(f"sqlite:///{Path(tmp) / 'g.sqlite3'}", tree, "--hint-workers", "2")
        with server:
            f = asyncio.run(_flood(server.port, args.seconds, 12))
    print(
        f"flood   {_name(tree)}: {f['rate']:.0f} actions/s, p99 {f['p99_ms']:.0f} ms; "
        f"the other player's hints: {f['victim_ok']}/{f['victim_asked']} answered "
        f"(statuses {f['victim']}); the flood's statuses {f['flood']}",
        flush=True,
    )


# -- body ----------------------------------------------------------------------


def _rss_kb(pid: int) -> int:
    """The resident memory of a process and its descendants (kB)."""
    total = 0
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            text = status.read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in text.splitlines() if ":" in line)
        if int(fields.get("Pid", "0")) == pid or int(fields.get("PPid", "0")) == pid:
            total += int(fields.get("VmRSS", "0 kB").split()[0] or 0)
    return total


def body(tree: Path | None, args: argparse.Namespace) -> None:
    size = (20 if args.smoke else 200) * 1024 * 1024
    with tempfile.TemporaryDirectory(prefix="jielong-bench-") as tmp:
        server = _server(f"sqlite:///{Path(tmp) / 'g.sqlite3'}", tree, "--hint-workers", "1")
        with server:
            before = _rss_kb(server.pid)
            peak = [before]
            done = threading.Event()

            def watch() -> None:
                while not done.is_set():
                    peak[0] = max(peak[0], _rss_kb(server.pid))
                    time.sleep(0.02)

            watcher = threading.Thread(target=watch)
            watcher.start()
            sent = 0
            answer = b""
            started = time.perf_counter()
            with socket.create_connection(("127.0.0.1", server.port), timeout=60) as s:
                head = (
                    f"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    f"Content-Length: {size}\r\n\r\n"
                ).encode()
                s.sendall(head)
                chunk = b"x" * (1024 * 1024)
                try:
                    while sent < size:
                        s.sendall(chunk)
                        sent += len(chunk)
                except OSError:
                    pass  # the server closed the connection: the rest is not read
                try:
                    answer = s.recv(200)
                except OSError:
                    answer = b""
            seconds = time.perf_counter() - started
            time.sleep(0.3)
            done.set()
            watcher.join()
    status = answer.split(b"\r\n", 1)[0].decode(errors="replace") or "(connection closed)"
    print(
        f"body    {_name(tree)}: {size >> 20} MB body: server RSS {before // 1024} MB before, "
        f"{peak[0] // 1024} MB at most; {sent >> 20} MB accepted in {seconds:.1f} s; "
        f"answer {status!r}",
        flush=True,
    )


# -- outage --------------------------------------------------------------------


async def _outage(
    port: int,
    game_ids: list[str],
    down: float,
    pause: Callable[[], None],
    resume: Callable[[], None],
) -> dict[str, Any]:
    phase = ["before"]
    answers: dict[str, Counter[Any]] = {p: Counter() for p in ("before", "down", "after")}
    dropped = Counter[str]()
    stop = asyncio.Event()

    async def one(game_id: str) -> None:
        conn = Connection("127.0.0.1", port)
        while not stop.is_set():
            status: int | str
            try:
                status, _ = await conn.request("GET", f"/api/games/{game_id}")
            except ValueError:  # an answer that is not JSON: a plain-text 500
                status = "text 500"
                conn.close()
                conn = Connection("127.0.0.1", port)
            except (OSError, IndexError, asyncio.IncompleteReadError):
                dropped[phase[0]] += 1
                conn.close()
                conn = Connection("127.0.0.1", port)
                status = "dropped"
            answers[phase[0]][status] += 1
            await asyncio.sleep(0.01)
        conn.close()

    loop = asyncio.get_running_loop()
    tasks = [asyncio.ensure_future(one(g)) for g in game_ids]
    await asyncio.sleep(2)
    phase[0] = "down"
    await loop.run_in_executor(None, pause)
    await asyncio.sleep(down)
    await loop.run_in_executor(None, resume)
    phase[0] = "after"
    await asyncio.sleep(3)
    stop.set()
    await asyncio.gather(*tasks)
    return {"answers": {p: dict(c) for p, c in answers.items()}, "dropped": dict(dropped)}


def outage(tree: Path | None, args: argparse.Namespace) -> None:
    if postgres_bin() is None:
        print("outage  skipped: PostgreSQL is not installed")
        return
    down = 2.0 if args.smoke else 10.0
    with PostgresCluster() as cluster:
        server = _server(cluster.url, tree, "--hint-workers", "1")
        with server:
            import httpx

            games = [
                httpx.post(f"{server.url}/api/games", json={"variant": "freecell"}).json()["id"]
                for _ in range(5)
            ]
            log_before = server.log.stat().st_size
            f = asyncio.run(_outage(server.port, games, down, cluster.pause, cluster.resume))
            log = server.log.read_bytes()[log_before:].decode(errors="replace")
    print(
        f"outage  {_name(tree)}: {down:.0f} s without PostgreSQL, 5 clients reading: "
        f"answers before {f['answers']['before']}, while down {f['answers']['down']}, "
        f"after {f['answers']['after']}; connections dropped {f['dropped'] or 0}; "
        f"log: {len(log.encode()) // 1024} kB, {log.count('Exception in ASGI application')} "
        f"'Exception in ASGI application', {log.count('storage unavailable;')} outage reports",
        flush=True,
    )


# -- cookies and heads ---------------------------------------------------------


async def _send(
    port: int, head: bytes, local: str = "127.0.0.1", timeout: float = 30.0
) -> int | str:
    """One request on a connection of its own: its status, or what happened."""
    try:
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection("127.0.0.1", port, local_addr=(local, 0)), timeout
        )
    except (OSError, TimeoutError):
        return "not connected"
    try:
        writer.write(head)
        await asyncio.wait_for(writer.drain(), timeout)
        line = await asyncio.wait_for(reader.readline(), timeout)
        return int(line.split()[1]) if line else "closed"
    except (OSError, TimeoutError, IndexError, ValueError):
        return "closed"
    finally:
        writer.close()


def _valid_cookie(port: int) -> str:
    import httpx

    return httpx.get(f"http://127.0.0.1:{port}/api/variants").cookies["jl_player"]


async def _padded(port: int, cookie: str, requests: int, pad: int) -> Counter[int | str]:
    statuses: Counter[int | str] = Counter()
    rng = random.Random(3)

    async def one(i: int) -> None:
        padding = "".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=16)) + "x" * pad
        head = (
            f"GET /api/variants HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
            f"Cookie: jl_player={cookie}; pad{i}={padding}\r\n\r\n"
        ).encode()
        statuses[await _send(port, head)] += 1

    for batch in range(0, requests, 8):
        await asyncio.gather(*(one(i) for i in range(batch, min(batch + 8, requests))))
    return statuses


def cookies(tree: Path | None, args: argparse.Namespace) -> None:
    requests = 200 if args.smoke else 2000
    for pad in (256 * 1024, 24 * 1024):
        with tempfile.TemporaryDirectory(prefix="jielong-bench-") as tmp:
            server = _server(f"sqlite:///{Path(tmp) / 'g.sqlite3'}", tree, "--hint-workers", "1")
            with server:
                cookie = _valid_cookie(server.port)
                before = _rss_kb(server.pid)
                statuses = asyncio.run(_padded(server.port, cookie, requests, pad))
                time.sleep(1.0)
                after = _rss_kb(server.pid)
        print(
            f"cookies {_name(tree)}: {requests} requests, a valid cookie and a {pad >> 10} KB "
            f"padding cookie each: RSS {before // 1024} MB before, {after // 1024} MB after "
            f"({(after - before) / 1024:+.0f} MB); answers {dict(statuses)}",
            flush=True,
        )


async def _held_heads(port: int, count: int, size: int, pid: int) -> tuple[int, int]:
    """RSS with ``count`` connections each holding ``size`` bytes of an
    unfinished head, and once they are closed."""
    writers: list[asyncio.StreamWriter] = []
    pad = b"GET /api/variants HTTP/1.1\r\nHost: x\r\nX-Pad: " + b"a" * size

    async def hold() -> None:
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            return
        writers.append(writer)
        writer.write(pad)
        with contextlib.suppress(OSError, TimeoutError):
            await asyncio.wait_for(writer.drain(), 20)

    for batch in range(0, count, 50):
        await asyncio.gather(*(hold() for _ in range(batch, min(batch + 50, count))))
    await asyncio.sleep(2.0)
    held = _rss_kb(pid)
    for writer in writers:
        writer.close()
    await asyncio.sleep(3.0)
    return held, _rss_kb(pid)


def heads(tree: Path | None, args: argparse.Namespace) -> None:
    count = 200 if args.smoke else 1000
    with tempfile.TemporaryDirectory(prefix="jielong-bench-") as tmp:
        server = _server(f"sqlite:///{Path(tmp) / 'g.sqlite3'}", tree, "--hint-workers", "1")
        with server:
            big = b"GET /api/variants HTTP/1.1\r\nHost: x\r\nX-Pad: " + b"a" * (1 << 20)
            many = b"GET /api/variants HTTP/1.1\r\nHost: x\r\n" + b"X-A: b\r\n" * 20_000
            one_big = asyncio.run(_send(server.port, big + b"\r\n\r\n"))
            many_small = asyncio.run(_send(server.port, many + b"\r\n"))
            before = _rss_kb(server.pid)
            held, after = asyncio.run(_held_heads(server.port, count, 1 << 20, server.pid))
    print(
        f"heads   {_name(tree)}: a 1 MB header: {one_big}; 20,000 headers: {many_small}; "
        f"{count} connections each holding an unfinished 1 MB header: RSS {before // 1024} MB "
        f"before, {held // 1024} MB held ({(held - before) / 1024:+.0f} MB), "
        f"{after // 1024} MB once closed ({(after - before) / 1024:+.0f} MB)",
        flush=True,
    )


# -- analyses --------------------------------------------------------------------


async def _open_from(conn: Connection, local: str) -> None:
    conn.reader, conn.writer = await asyncio.open_connection(
        conn.host, conn.port, local_addr=(local, 0)
    )


async def _analyses(port: int, seconds: float) -> dict[str, Any]:
    stop_at = time.perf_counter() + seconds
    flood_answers: Counter[int] = Counter()

    async def flooder(player: int) -> None:
        first = Connection("127.0.0.1", port)
        _, game = await first.request("POST", "/api/games", SLOW)
        conns = [first] + [Connection("127.0.0.1", port) for _ in range(2)]
        for conn in conns[1:]:
            conn.cookie = first.cookie  # one player, three analyses at once

        async def ask(conn: Connection) -> None:
            while time.perf_counter() < stop_at:
                status, _ = await conn.request("GET", f"/api/games/{game['id']}/analysis")
                flood_answers[status] += 1
                if status != 200:
                    await asyncio.sleep(0.2)  # a refusal is immediate: do not spin

        await asyncio.gather(*(ask(c) for c in conns))
        for conn in conns:
            conn.close()

    analyses: list[tuple[int, float]] = []
    hints: list[tuple[int, float]] = []

    async def other() -> None:
        await asyncio.sleep(2.0)  # the flood first
        conn = Connection("127.0.0.1", port)
        await _open_from(conn, "127.0.0.2")
        rng = random.Random(11)
        for asks, path in ((analyses, "analysis"), (hints, "hint")):
            for _ in range(3 if path == "analysis" else 5):
                deal = rng.randint(1, 30000)
                _, game = await conn.request(
                    "POST", "/api/games", {"variant": "freecell", "deal": deal}
                )
                started = time.perf_counter()
                if path == "hint":
                    body = {"version": game["version"]}
                    status, _ = await conn.request("POST", f"/api/games/{game['id']}/hint", body)
                else:
                    status, _ = await conn.request("GET", f"/api/games/{game['id']}/analysis")
                asks.append((status, time.perf_counter() - started))
                await asyncio.sleep(0.5)
        conn.close()

    await asyncio.gather(*(flooder(i) for i in range(10)), other())
    return {"analyses": analyses, "hints": hints, "flood": dict(flood_answers)}


def analyses(tree: Path | None, args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="jielong-bench-") as tmp:
        server = _server(f"sqlite:///{Path(tmp) / 'g.sqlite3'}", tree, "--hint-workers", "2")
        with server:
            f = asyncio.run(_analyses(server.port, max(args.seconds, 40.0)))
            rss = _rss_kb(server.pid)
    ok = [s for s, _ in f["analyses"] if s == 200]
    hint_ok = [t for s, t in f["hints"] if s == 200]
    print(
        f"analyses {_name(tree)}: another address's analyses {len(ok)}/{len(f['analyses'])} "
        f"answered (statuses {[s for s, _ in f['analyses']]}, "
        f"{max(t for _, t in f['analyses']):.1f} s at most); its hints "
        f"{len(hint_ok)}/{len(f['hints'])} answered, "
        f"{max(hint_ok, default=0.0):.1f} s at most; the flood's statuses {f['flood']}; "
        f"server and hint processes' RSS {rss // 1024} MB",
        flush=True,
    )


# -- idle connections ------------------------------------------------------------


async def _hold_idle(port: int, held: int, stop: threading.Event, open_now: list[int]) -> None:
    """``held`` connections that send nothing, each reopened once closed."""

    async def hold() -> None:
        while not stop.is_set():
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
            except OSError:
                await asyncio.sleep(0.05)
                continue
            open_now[0] += 1
            with contextlib.suppress(OSError, TimeoutError):
                # until the server closes it, then again
                await asyncio.wait_for(reader.read(1), 1.0)
            open_now[0] -= 1
            writer.close()

    await asyncio.gather(*(hold() for _ in range(held)))


def _idle(port: int, held: int, asks: int) -> tuple[Counter[int | str], int]:
    stop = threading.Event()
    open_now = [0]
    # the holders on a loop and a thread of their own, as another client's
    holder = threading.Thread(target=asyncio.run, args=(_hold_idle(port, held, stop, open_now),))
    holder.start()
    time.sleep(3.0)
    peak = open_now[0]
    answers: Counter[int | str] = Counter()
    head = b"GET /api/variants HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    for _ in range(asks):
        answers[asyncio.run(_send(port, head, local="127.0.0.2", timeout=5.0))] += 1
        time.sleep(0.1)
    stop.set()
    holder.join()
    return answers, peak


def idle(tree: Path | None, args: argparse.Namespace) -> None:
    held = 500 if args.smoke else 2100
    with tempfile.TemporaryDirectory(prefix="jielong-bench-") as tmp:
        # 127.0.0.1 as a client, not a trusted proxy
        options = ["--hint-workers", "1", "--forwarded-allow-ips", "10.9.9.9"]
        if args.smoke:
            options += ["--max-connections", "400"]
        server = _server(f"sqlite:///{Path(tmp) / 'g.sqlite3'}", tree, *options)
        with server:
            answers, peak = _idle(server.port, held, 68)
    print(
        f"idle    {_name(tree)}: one address holding {held} idle connections "
        f"({peak} open at once on its side): a new address got {answers.get(200, 0)} answers of 68 "
        f"({dict(answers)})",
        flush=True,
    )


# -- draws ---------------------------------------------------------------------


def _stored(database: Path, game_id: str) -> tuple[int, int]:
    """The rows of a game's undo steps and their bytes of JSON."""
    with contextlib.closing(sqlite3.connect(database)) as conn:
        rows, size = conn.execute(
            "SELECT COUNT(*), COALESCE(SUM(LENGTH(step)), 0) FROM game_steps WHERE game = ?",
            (game_id,),
        ).fetchone()
    return int(rows), int(size)


def draws(tree: Path | None, args: argparse.Namespace) -> None:
    import httpx

    total, one_by_one = (1000, 100) if args.smoke else (10_000, 100)
    with tempfile.TemporaryDirectory(prefix="jielong-bench-") as tmp:
        database = Path(tmp) / "g.sqlite3"
        server = _server(f"sqlite:///{database}", tree, "--hint-workers", "1")
        with server, httpx.Client(base_url=server.url, timeout=60) as http:
            game = start = http.post("/api/games", json={"variant": "klondike-3", "deal": 7}).json()
            path = f"/api/games/{start['id']}"
            for _ in range(one_by_one):
                draw = {"version": game["version"], "type": "draw"}
                game = http.post(f"{path}/actions", json=draw).json()
            for done in range(one_by_one, total, 500):
                actions = [{"type": "draw"}] * min(500, total - done)
                sync = {"version": game["version"], "actions": actions}
                game = http.post(f"{path}/sync", json=sync).json()
            rows, size = _stored(database, start["id"])
            record = len(http.get(f"{path}/record").content)
            undos = 0
            while game["flags"]["can_undo"]:
                undo = {"version": game["version"], "type": "undo"}
                game, undos = http.post(f"{path}/actions", json=undo).json(), undos + 1
        back = game["position"] == start["position"] and game["counters"]["moves"] == 0
    print(
        f"draws {_name(tree)}: {total} draws in one Klondike game: {rows} rows, {size} bytes "
        f"of undo steps, a record of {record} bytes; {undos} undos back to the deal ({back})",
        flush=True,
    )


def _name(tree: Path | None) -> str:
    return "this tree" if tree is None else f"anchor {tree.name}"


SCENARIOS = {
    "flood": flood,
    "body": body,
    "outage": outage,
    "cookies": cookies,
    "heads": heads,
    "analyses": analyses,
    "idle": idle,
    "draws": draws,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="short runs")
    parser.add_argument("--seconds", type=float, default=None, help="length of the flood")
    parser.add_argument("--only", choices=sorted(SCENARIOS), action="append")
    parser.add_argument("--anchor", type=Path, default=None, metavar="TREE")
    args = parser.parse_args(argv)
    if args.seconds is None:
        args.seconds = 3.0 if args.smoke else 20.0
    for name in args.only or list(SCENARIOS):
        SCENARIOS[name](None, args)
        if args.anchor is not None:
            SCENARIOS[name](args.anchor.resolve(), args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
