"""Load on the move endpoint: actions per second and latency percentiles.

``jielong serve`` runs as its own process on a free port; this process is the
load generator: 50 concurrent clients (asyncio, one keep-alive connection
each), each playing its own FreeCell game by random legal moves (an undo
when stuck), each action sent with the version it was made on and committed
before its answer.  Once on SQLite (a temporary file, WAL,
synchronous=FULL) and, when Debian's PostgreSQL is installed, once on a
throw-away PostgreSQL cluster (fsync on).

    python bench/server_load.py             # 20 s per database
    python bench/server_load.py --smoke     # 3 s per database
    python bench/server_load.py --server-workers 2
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import os
import random
import statistics
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from jielong.testing.processes import PostgresCluster, ServerProcess, postgres_bin


class Connection:
    """A minimal HTTP/1.1 keep-alive client for JSON: the load generator must
    cost far less CPU than the server it measures (httpx costs about as much
    per request as the server does)."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        # the player cookie the server issued, sent back like a browser would
        self.cookie = ""
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        assert self.reader is not None
        data = b"" if body is None else json.dumps(body).encode()
        head = (
            f"{method} {path} HTTP/1.1\r\nHost: {self.host}\r\n"
            f"{self.cookie}Content-Type: application/json\r\n"
            f"Content-Length: {len(data)}\r\n\r\n"
        )
        self.writer.write(head.encode() + data)
        status = int((await self.reader.readline()).split()[1])
        length = 0
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.partition(b":")
            if name.lower() == b"content-length":
                length = int(value)
            elif name.lower() == b"set-cookie" and value.strip().startswith(b"jl_player="):
                self.cookie = f"Cookie: {value.strip().split(b';')[0].decode()}\r\n"
        return status, json.loads(await self.reader.readexactly(length))

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


async def client(
    conn: Connection,
    rng: random.Random,
    start_at: float,
    stop_at: float,
    latencies: list[float],
    errors: list[int],
) -> None:
    _, game = await conn.request("POST", "/api/games", {"variant": "freecell"})
    path = f"/api/games/{game['id']}/actions"
    while time.perf_counter() < stop_at:
        # random legal moves, but not many free cell shuffles; undo when stuck
        moves = [m for m in game["moves"] if not m["from"].startswith("cell") or rng.random() < 0.3]
        if moves and not game["flags"]["won"]:
            body = {"version": game["version"], "type": "move", **rng.choice(moves)}
        else:
            body = {"version": game["version"], "type": "undo"}
        t0 = time.perf_counter()
        status, answer = await conn.request("POST", path, body)
        t1 = time.perf_counter()
        if status != 200:
            errors.append(status)
            _, game = await conn.request("GET", f"/api/games/{game['id']}")
            continue
        game = answer
        if t0 >= start_at:  # skip the warm-up
            latencies.append(t1 - t0)
    conn.close()


async def _clients(
    port: int, seeds: range, start_at: float, stop_at: float
) -> tuple[list[float], int]:
    latencies: list[float] = []
    errors: list[int] = []
    await asyncio.gather(
        *(
            client(
                Connection("127.0.0.1", port),
                random.Random(i),
                start_at,
                stop_at,
                latencies,
                errors,
            )
            for i in seeds
        )
    )
    return latencies, len(errors)


def _load_process(
    port: int, seeds: range, start_at: float, stop_at: float
) -> tuple[list[float], int, float]:
    """One load process's clients; their latencies, errors and the CPU time
    the process spent."""
    before = time.process_time()
    latencies, errors = asyncio.run(_clients(port, seeds, start_at, stop_at))
    return latencies, errors, time.process_time() - before


def load(
    port: int, clients: int, warmup: float, seconds: float, processes: int = 1
) -> dict[str, Any]:
    """The clients, split over ``processes`` load processes (one event loop
    each: on a busy machine one loop's share of a core can cap the rate)."""
    start_at = time.perf_counter() + warmup
    stop_at = start_at + seconds
    parts = [range(p, clients, processes) for p in range(processes)]
    if processes == 1:
        results = [_load_process(port, parts[0], start_at, stop_at)]
    else:
        # perf_counter is the system's monotonic clock: the same in every process
        with ProcessPoolExecutor(processes, mp_context=mp.get_context("spawn")) as pool:
            running = [pool.submit(_load_process, port, p, start_at, stop_at) for p in parts]
            results = [r.result() for r in running]
    latencies = [t for r in results for t in r[0]]
    errors = sum(r[1] for r in results)
    measured = time.perf_counter() - start_at
    latencies.sort()
    q = statistics.quantiles(latencies, n=100) if len(latencies) > 1 else [0.0] * 99
    return {
        "actions": len(latencies),
        "seconds": measured,
        "rate": len(latencies) / measured,
        "p50_ms": q[49] * 1000,
        "p99_ms": q[98] * 1000,
        "errors": errors,
        "load_cpu": sum(r[2] for r in results),
    }


def _cpu_seconds(session: int, system_only: bool = False) -> float:
    """User + system CPU time (or the system's alone) of the live processes
    of a session (the server and its worker processes; Linux)."""
    return _cpu_of(lambda pid, ppid, sid: sid == session, system_only)


def _database_cpu_seconds(postmaster: int | None) -> float:
    """The same for PostgreSQL: its postmaster and the processes it started
    (a backend per connection)."""
    if postmaster is None:
        return 0.0
    return _cpu_of(lambda pid, ppid, sid: postmaster in (pid, ppid))


def _cpu_of(chosen: Any, system_only: bool = False) -> float:
    ticks = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # the process ended meanwhile
        if chosen(int(stat.parent.name), int(fields[1]), int(fields[3])):
            ticks += int(fields[12]) + (0 if system_only else int(fields[11]))
    return ticks / os.sysconf("SC_CLK_TCK")


def run(
    name: str,
    database: str,
    args: argparse.Namespace,
    tree: Path | None = None,
    postmaster: int | None = None,
) -> float:
    """One load run; the server's CPU time per action (seconds)."""
    server_args = ["--workers", str(args.server_workers), "--hint-workers", "1"]
    if tree is not None:
        name = f"{name} ({tree.name})"
    env = None if tree is None else {**os.environ, "PYTHONPATH": str(tree)}
    with ServerProcess(database, *server_args, env=env, cwd=tree) as server:
        cpu_before = _cpu_seconds(server.pid)
        system_before = _cpu_seconds(server.pid, system_only=True)
        db_before = _database_cpu_seconds(postmaster)
        figures = load(server.port, args.clients, args.warmup, args.seconds, args.load_processes)
        server_cpu = _cpu_seconds(server.pid) - cpu_before
        system_cpu = _cpu_seconds(server.pid, system_only=True) - system_before
        own_cpu = figures["load_cpu"]
        db_cpu = _database_cpu_seconds(postmaster) - db_before
    database_cpu = ""
    if postmaster is not None:
        database_cpu = f"PostgreSQL {db_cpu / figures['actions'] * 1000:.2f} ms, "
    print(
        f"{name:<11} {args.clients} clients, {args.server_workers} server process(es): "
        f"{figures['actions']} actions in {figures['seconds']:.1f} s = "
        f"{figures['rate']:.0f} actions/s, p50 {figures['p50_ms']:.1f} ms, "
        f"p99 {figures['p99_ms']:.1f} ms, non-200 answers {figures['errors']}; "
        f"CPU per action: server {server_cpu / figures['actions'] * 1000:.2f} ms "
        f"(of which system {system_cpu / figures['actions'] * 1000:.2f} ms), "
        f"{database_cpu}load generator {own_cpu / figures['actions'] * 1000:.2f} ms "
        "(warm-up included)",
        flush=True,
    )
    return float(server_cpu / max(1, figures["actions"]))


def side_by_side(
    name: str, database: Any, args: argparse.Namespace, postmaster: int | None = None
) -> None:
    """This tree's server, and the anchor tree's when given, each on a fresh
    database from ``database()``."""
    cpu = run(name, database(), args, postmaster=postmaster)
    if args.anchor is not None:
        anchor_cpu = run(name, database(), args, tree=args.anchor, postmaster=postmaster)
        print(f"{name:<11} CPU per action, this tree / anchor: {cpu / anchor_cpu:.2f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="a few seconds per database")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=None)
    parser.add_argument("--server-workers", type=int, default=1)
    parser.add_argument(
        "--load-processes",
        type=int,
        default=1,
        help="processes the clients are split over (default 1)",
    )
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument("--no-sqlite", action="store_true")
    parser.add_argument(
        "--anchor",
        type=Path,
        default=None,
        metavar="TREE",
        help="also load the server of another source tree (say, a clone of an older "
        "commit), right after this one's, and print the ratio of CPU per action",
    )
    args = parser.parse_args(argv)
    if args.seconds is None:
        args.seconds = 3.0 if args.smoke else 20.0
    args.warmup = 1.0 if args.smoke else 3.0
    with tempfile.TemporaryDirectory(prefix="jielong-bench-") as tmp:
        files = (Path(tmp) / f"games-{i}.sqlite3" for i in range(2))
        if not args.no_sqlite:
            side_by_side("sqlite", lambda: f"sqlite:///{next(files)}", args)
    if args.no_postgres:
        return 0
    if postgres_bin() is None:
        print("postgresql  skipped: PostgreSQL is not installed")
        return 0
    with PostgresCluster(fsync=True) as cluster:
        schemas = iter(range(2))

        def fresh() -> str:
            # one database per run, so neither server reads the other's games
            import psycopg

            name = f"bench{next(schemas)}"
            with psycopg.connect(cluster.url, autocommit=True) as conn:
                conn.execute(f"CREATE DATABASE {name}")
            return cluster.url.rsplit("/", 1)[0] + "/" + name

        postmaster = int((cluster.data / "postmaster.pid").read_text().split()[0])
        side_by_side("postgresql", fresh, args, postmaster)
    return 0


if __name__ == "__main__":
    sys.exit(main())
