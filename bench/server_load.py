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
    python bench/server_load.py --rate 1000  # paced: 1,000 actions/s offered

Closed loop (the default) gives the capacity: with 50 clients each waiting
for its answer, the rate is 50 / the mean latency (Little's law), so a high
rate and a low latency cannot both show there.  Paced, the clients offer a
fixed rate whatever the answers do, and the latencies are those a player
sees at that rate.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
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
    pace: tuple[float, float] | None = None,
) -> int:
    """One player's actions until ``stop_at``; latencies of those from
    ``start_at`` on.  Closed loop (``pace`` None): each action is sent the
    moment the last answer arrives.  Paced (``pace`` = (first, interval)):
    action k is due at ``first + k * interval``, sent then or, if the last
    answer came later, at once; its latency counts from when it was due, so
    a slow answer also counts against the actions it held back.  Returns
    the paced actions due before ``stop_at`` that were never sent."""
    _, game = await conn.request("POST", "/api/games", {"variant": "freecell"})
    path = f"/api/games/{game['id']}/actions"
    due = 0.0
    k = 0
    while time.perf_counter() < stop_at:
        if pace is not None:
            due = pace[0] + k * pace[1]
            if due >= stop_at:
                break
            k += 1
            wait = due - time.perf_counter()
            if wait > 0:
                await asyncio.sleep(wait)
        # random legal moves, but not many free cell shuffles; undo when stuck
        moves = [m for m in game["moves"] if not m["from"].startswith("cell") or rng.random() < 0.3]
        if moves and not game["flags"]["won"]:
            body = {"version": game["version"], "type": "move", **rng.choice(moves)}
        else:
            body = {"version": game["version"], "type": "undo"}
        t0 = time.perf_counter() if pace is None else due
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
    if pace is None:
        return 0
    return max(0, math.ceil((stop_at - pace[0]) / pace[1]) - k)


async def _clients(
    port: int, seeds: range, clients: int, start_at: float, stop_at: float, rate: float | None
) -> tuple[list[float], int, int]:
    latencies: list[float] = []
    errors: list[int] = []
    begin = time.perf_counter()
    paces: list[tuple[float, float] | None] = [None] * clients
    if rate is not None:
        # each client offers rate / clients actions a second, the clients'
        # schedules spread evenly over one interval
        interval = clients / rate
        paces = [(begin + 0.5 + interval * i / clients, interval) for i in range(clients)]
    unsent = await asyncio.gather(
        *(
            client(
                Connection("127.0.0.1", port),
                random.Random(i),
                start_at,
                stop_at,
                latencies,
                errors,
                paces[i],
            )
            for i in seeds
        )
    )
    return latencies, len(errors), sum(unsent)


def _load_process(
    port: int, seeds: range, clients: int, start_at: float, stop_at: float, rate: float | None
) -> tuple[list[float], int, int, float]:
    """One load process's clients; their latencies, errors, paced actions
    never sent, and the CPU time the process spent."""
    before = time.process_time()
    latencies, errors, unsent = asyncio.run(_clients(port, seeds, clients, start_at, stop_at, rate))
    return latencies, errors, unsent, time.process_time() - before


def load(
    port: int,
    clients: int,
    warmup: float,
    seconds: float,
    processes: int = 1,
    rate: float | None = None,
) -> dict[str, Any]:
    """The clients, split over ``processes`` load processes (one event loop
    each: on a busy machine one loop's share of a core can cap the rate);
    closed loop, or paced to offer ``rate`` actions a second in all."""
    start_at = time.perf_counter() + warmup
    stop_at = start_at + seconds
    parts = [range(p, clients, processes) for p in range(processes)]
    if processes == 1:
        results = [_load_process(port, parts[0], clients, start_at, stop_at, rate)]
    else:
        # perf_counter is the system's monotonic clock: the same in every process
        with ProcessPoolExecutor(processes, mp_context=mp.get_context("spawn")) as pool:
            running = [
                pool.submit(_load_process, port, p, clients, start_at, stop_at, rate) for p in parts
            ]
            results = [r.result() for r in running]
    latencies = [t for r in results for t in r[0]]
    errors = sum(r[1] for r in results)
    # closed loop: until the last answer; paced: the window the actions were due in
    measured = time.perf_counter() - start_at if rate is None else seconds
    latencies.sort()
    q = statistics.quantiles(latencies, n=1000) if len(latencies) > 1 else [0.0] * 999
    return {
        "actions": len(latencies),
        "seconds": measured,
        "rate": len(latencies) / measured,
        "p50_ms": q[499] * 1000,
        "p99_ms": q[989] * 1000,
        "p999_ms": q[998] * 1000,
        "max_ms": (latencies[-1] if latencies else 0.0) * 1000,
        "errors": errors,
        "unsent": sum(r[2] for r in results),
        "load_cpu": sum(r[3] for r in results),
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


def _machine_ticks() -> list[int]:
    """The machine's CPU time so far by kind (/proc/stat: user, nice,
    system, idle, iowait, ...; Linux)."""
    return [int(t) for t in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]


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
        machine_before = _machine_ticks()
        figures = load(
            server.port, args.clients, args.warmup, args.seconds, args.load_processes, args.rate
        )
        machine = [b - a for a, b in zip(machine_before, _machine_ticks(), strict=True)]
        server_cpu = _cpu_seconds(server.pid) - cpu_before
        system_cpu = _cpu_seconds(server.pid, system_only=True) - system_before
        own_cpu = figures["load_cpu"]
        db_cpu = _database_cpu_seconds(postmaster) - db_before
    database_cpu = ""
    if postmaster is not None:
        database_cpu = f"PostgreSQL {db_cpu / figures['actions'] * 1000:.2f} ms, "
    offered = "closed loop" if args.rate is None else f"offered {args.rate:.0f} actions/s"
    unsent = "" if args.rate is None else f", due but never sent {figures['unsent']}"
    print(
        f"{name:<11} {args.clients} clients ({offered}), "
        f"{args.server_workers} server process(es): "
        f"{figures['actions']} actions in {figures['seconds']:.1f} s = "
        f"{figures['rate']:.0f} actions/s{unsent}, p50 {figures['p50_ms']:.1f} ms, "
        f"p99 {figures['p99_ms']:.1f} ms, p99.9 {figures['p999_ms']:.0f} ms, "
        f"max {figures['max_ms']:.0f} ms, non-200 answers {figures['errors']}; "
        f"CPU per action: server {server_cpu / figures['actions'] * 1000:.2f} ms "
        f"(of which system {system_cpu / figures['actions'] * 1000:.2f} ms), "
        f"{database_cpu}load generator {own_cpu / figures['actions'] * 1000:.2f} ms "
        "(warm-up included); the machine's CPU meanwhile: "
        f"{100 * (machine[3] + machine[4]) / sum(machine):.0f}% idle, "
        f"{100 * machine[1] / sum(machine):.0f}% to niced processes",
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
        "--rate",
        type=float,
        default=None,
        metavar="ACTIONS_PER_S",
        help="paced (open loop): the clients offer this many actions a second in all, "
        "latency counted from when each action was due (default: closed loop, each "
        "client sending as soon as its last answer arrives)",
    )
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
        files = (Path(tmp) / f"games-{i}.sqlite3" for i in range(4))
        if not args.no_sqlite:
            side_by_side("sqlite", lambda: f"sqlite:///{next(files)}", args)
            if args.smoke and args.rate is None:
                # the paced mode too, briefly
                paced = argparse.Namespace(**{**vars(args), "rate": 100.0})
                side_by_side("sqlite", lambda: f"sqlite:///{next(files)}", paced)
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
