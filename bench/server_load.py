"""Load on the move endpoint: actions per second and latency percentiles.

``jielong serve`` runs as its own process on a free port; this process is the
load generator: 50 concurrent clients (asyncio + httpx), each playing its own
FreeCell game by random legal moves (an undo when stuck), each action sent
with the version it was made on and committed before its answer.  Once on
SQLite (a temporary file, WAL, synchronous=FULL) and, when Debian's
PostgreSQL is installed, once on a throw-away PostgreSQL cluster (fsync on).

    python bench/server_load.py             # 20 s per database
    python bench/server_load.py --smoke     # 3 s per database
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

# the server and database launchers are shared with the test suite
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from test_postgres import PostgresCluster, postgres_bin
from test_server_process import ServerProcess


async def client(
    http: httpx.AsyncClient,
    rng: random.Random,
    start_at: float,
    stop_at: float,
    latencies: list[float],
    errors: list[int],
) -> None:
    game = (await http.post("/api/games", json={"variant": "freecell"})).json()
    while time.perf_counter() < stop_at:
        moves = [m for m in game["moves"] if not m["from"].startswith("cell") or rng.random() < 0.5]
        if moves and not game["flags"]["won"]:
            body = {"version": game["version"], "type": "move", **rng.choice(moves)}
        else:
            body = {"version": game["version"], "type": "undo"}
        t0 = time.perf_counter()
        r = await http.post(f"/api/games/{game['id']}/actions", json=body)
        t1 = time.perf_counter()
        if r.status_code != 200:
            errors.append(r.status_code)
            game = (await http.get(f"/api/games/{game['id']}")).json()
            continue
        game = r.json()
        if t0 >= start_at:  # skip the warm-up
            latencies.append(t1 - t0)


async def load(url: str, clients: int, warmup: float, seconds: float) -> dict[str, Any]:
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=60) as http:
        start_at = time.perf_counter() + warmup
        stop_at = start_at + seconds
        latencies: list[float] = []
        errors: list[int] = []
        await asyncio.gather(
            *(
                client(http, random.Random(i), start_at, stop_at, latencies, errors)
                for i in range(clients)
            )
        )
        measured = time.perf_counter() - start_at
    latencies.sort()
    q = statistics.quantiles(latencies, n=100) if len(latencies) > 1 else [0.0] * 99
    return {
        "actions": len(latencies),
        "seconds": measured,
        "rate": len(latencies) / measured,
        "p50_ms": q[49] * 1000,
        "p99_ms": q[98] * 1000,
        "errors": len(errors),
    }


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process and its children (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = sum(int(f) for f in fields[11:15])
    return ticks / os.sysconf("SC_CLK_TCK")


def run(name: str, database: str, args: argparse.Namespace) -> None:
    server_args = ["--workers", str(args.server_workers), "--hint-workers", "1"]
    with ServerProcess(database, *server_args) as server:
        cpu_before, own_before = _cpu_seconds(server.pid), time.process_time()
        figures = asyncio.run(load(server.url, args.clients, args.warmup, args.seconds))
        server_cpu = _cpu_seconds(server.pid) - cpu_before
        own_cpu = time.process_time() - own_before
    print(
        f"{name:<11} {args.clients} clients, {args.server_workers} server process(es): "
        f"{figures['actions']} actions in {figures['seconds']:.1f} s = "
        f"{figures['rate']:.0f} actions/s, p50 {figures['p50_ms']:.1f} ms, "
        f"p99 {figures['p99_ms']:.1f} ms, non-200 answers {figures['errors']}; "
        f"CPU per action: server {server_cpu / figures['actions'] * 1000:.1f} ms, "
        f"load generator {own_cpu / figures['actions'] * 1000:.1f} ms (warm-up included)",
        flush=True,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="a few seconds per database")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=None)
    parser.add_argument("--server-workers", type=int, default=1)
    parser.add_argument("--no-postgres", action="store_true")
    args = parser.parse_args(argv)
    if args.seconds is None:
        args.seconds = 3.0 if args.smoke else 20.0
    args.warmup = 1.0 if args.smoke else 3.0
    with tempfile.TemporaryDirectory(prefix="jielong-bench-") as tmp:
        run("sqlite", f"sqlite:///{Path(tmp) / 'games.sqlite3'}", args)
    if args.no_postgres:
        return 0
    if postgres_bin() is None:
        print("postgresql  skipped: PostgreSQL is not installed")
        return 0
    with PostgresCluster(fsync=True) as cluster:
        run("postgresql", cluster.url, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
