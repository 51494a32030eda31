"""Time ``POST /api/games`` with ``"winnable": true``: from a ready pool of
checked deals, and with no pool (each deal checked in the request).

Through the HTTP app in this process (Starlette's test client, SQLite in a
temporary folder); wall-clock seconds per request, median / p90 / max, and a
plain random deal as the yardstick.

    python bench/winnable_deals.py              # 20 requests of each kind
    python bench/winnable_deals.py --smoke      # 3 of each
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable

from fastapi.testclient import TestClient

from jielong.web.app import Settings, create_app
from jielong.web.services.winnable import WinnablePool
from jielong.web.state import app_state

VARIANTS = ("klondike-3", "klondike-1")


def _line(name: str, seconds: list[float]) -> str:
    s = sorted(seconds)
    p90 = s[int(0.9 * (len(s) - 1))]
    return (
        f"{name:<32} n={len(s):3d}  median {1000 * statistics.median(s):7.1f} ms"
        f"  p90 {1000 * p90:7.1f} ms  max {1000 * s[-1]:7.1f} ms"
    )


def _timed(client: TestClient, body: dict[str, object], before: Callable[[], None]) -> float:
    before()
    start = time.perf_counter()
    answer = client.post("/api/games", json=body)
    seconds = time.perf_counter() - start
    if answer.status_code != 201 or (body.get("winnable") and not answer.json()["winnable"]):
        raise SystemExit(f"unexpected answer {answer.status_code}: {answer.text[:200]}")
    return seconds


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--requests", type=int, default=20, help="requests of each kind")
    p.add_argument("--smoke", action="store_true", help="3 requests of each kind")
    args = p.parse_args(argv)
    n = 3 if args.smoke else args.requests
    with tempfile.TemporaryDirectory() as folder:
        app = create_app(Settings(database=f"sqlite:///{folder}/bench.sqlite3", hint_workers=1))
        with TestClient(app) as client:
            pool = app_state(app).winnable

            def pool_full(variant: str) -> Callable[[], None]:
                def wait() -> None:
                    while len(pool.ready(variant)) < pool.size:
                        time.sleep(0.005)

                return wait

            for v in VARIANTS:
                times = [_timed(client, {"variant": v}, lambda: None) for _ in range(n)]
                print(_line(f"{v} random deal", times))
            start = time.perf_counter()
            _timed(client, {"variant": VARIANTS[0], "winnable": True}, lambda: None)
            for v in VARIANTS:
                pool_full(v)()
            print(f"first winnable deal, then both pools full: {time.perf_counter() - start:.2f} s")
            for v in VARIANTS:
                body = {"variant": v, "winnable": True}
                times = [_timed(client, body, pool_full(v)) for _ in range(n)]
                print(_line(f"{v} winnable, pool ready", times))
            pool.stop()
            app_state(app).winnable = WinnablePool(0)  # every deal checked in the request
            for v in VARIANTS:
                body = {"variant": v, "winnable": True}
                times = [_timed(client, body, lambda: None) for _ in range(n)]
                print(_line(f"{v} winnable, no pool", times))


if __name__ == "__main__":
    main()
