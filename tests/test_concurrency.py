"""Two clients acting on one game at once: one wins, the other gets 409; no
move is lost or doubled.  Each client talks to its own server process, both
on one database (SQLite file or PostgreSQL), as two tabs behind a load
balancer would."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from jielong.play.view import position_json
from jielong.session import Session
from jielong.testing.processes import ServerProcess

ROUNDS = 25


@pytest.fixture(params=["sqlite", "postgresql"])
def servers(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str]]:
    if request.param == "sqlite":
        database = f"sqlite:///{tmp_path / 'games.sqlite3'}"
    else:
        database = request.getfixturevalue("postgres_url")
    with (
        ServerProcess(database, "--hint-workers", "1") as a,
        ServerProcess(database, "--hint-workers", "1") as b,
    ):
        yield a.url, b.url


def test_racing_draws_never_lose_or_double_a_move(servers: tuple[str, str]) -> None:
    url_a, url_b = servers
    game = httpx.post(url_a + "/api/games", json={"variant": "klondike-1", "deal": 77}).json()
    path = f"/api/games/{game['id']}/actions"
    outcomes: list[tuple[int, int]] = []  # (round, status)
    lock = threading.Lock()

    def client(url: str, barrier: threading.Barrier) -> None:
        with httpx.Client(base_url=url, timeout=30) as http:
            for rnd in range(ROUNDS):
                version = http.get(f"/api/games/{game['id']}").json()["version"]
                barrier.wait()
                r = http.post(path, json={"version": version, "type": "draw"})
                if r.status_code == 409:
                    assert r.json()["error"]["code"] == "stale_version"
                    assert r.json()["state"]["version"] > version
                else:
                    assert r.status_code == 200, r.text
                with lock:
                    outcomes.append((rnd, r.status_code))
                barrier.wait()

    barrier = threading.Barrier(2)
    threads = [threading.Thread(target=client, args=(u, barrier)) for u in (url_a, url_b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(outcomes) == 2 * ROUNDS
    wins = sum(1 for _, status in outcomes if status == 200)
    # both read the same version each round, so exactly one of the two wins
    for rnd in range(ROUNDS):
        assert sorted(s for r, s in outcomes if r == rnd) == [200, 409]
    final: dict[str, Any] = httpx.get(f"{url_b}/api/games/{game['id']}").json()
    assert final["version"] == 1 + wins == 1 + ROUNDS
    assert final["counters"]["moves"] == ROUNDS
    expected = Session("klondike-1", deal=77)
    for _ in range(ROUNDS):
        expected.draw()
    assert final["position"] == position_json(expected.position)
