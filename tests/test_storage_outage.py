"""The database away or the disk full: 503 storage_unavailable in the JSON
error shape with Retry-After, one log line for the first failure and a count,
and service again as soon as the database is back, without a restart."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from api_checks import new_game
from fastapi.testclient import TestClient

from jielong.store import Store
from jielong.testing.processes import PostgresCluster, ServerProcess, postgres_bin
from jielong.web.app import Settings, create_app


def _unavailable(r: Any) -> None:
    assert r.status_code == 503, r.text
    assert r.json()["error"]["code"] == "storage_unavailable"
    assert r.json()["error"]["message"]
    assert int(r.headers["retry-after"]) > 0


def test_a_full_disk_answers_503_and_recovers(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = Store(f"sqlite:///{tmp_path / 'games.sqlite3'}")
    pages = {"limit": 2**30}

    def cap(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.execute(f"PRAGMA max_page_count = {pages['limit']}")

    sa.event.listen(store.engine, "connect", cap)
    app = create_app(Settings(hint_workers=1), store=store)
    with TestClient(app) as client, caplog.at_level(logging.ERROR, "jielong.storage"):
        game = new_game(client, variant="freecell", deal=1)
        # the file may not grow: every write fails as on a full disk
        with store.engine.connect() as conn:
            used = conn.exec_driver_sql("PRAGMA page_count").scalar_one()
        pages["limit"] = used
        store.engine.dispose()
        store._replays.clear()
        fails = 0
        for deal in range(2, 60):
            r = client.post("/api/games", json={"variant": "freecell", "deal": deal})
            assert r.status_code in (201, 503), r.text
            if r.status_code == 503:
                _unavailable(r)
                fails += 1
        assert fails >= 10
        assert client.get(f"/api/games/{game['id']}").status_code == 200  # reads still work
        records = [r for r in caplog.records if r.name == "jielong.storage"]
        assert len(records) == 1 and records[0].exc_info is not None
        pages["limit"] = 2**30
        store.engine.dispose()
        assert new_game(client, variant="freecell", deal=40)["deal"] == 40


@pytest.mark.slow
@pytest.mark.skipif(postgres_bin() is None, reason="PostgreSQL is not installed")
def test_postgresql_down_answers_503_then_serves_again(tmp_path: Path) -> None:
    with PostgresCluster() as cluster:
        server = ServerProcess(cluster.url, "--hint-workers", "1")
        with server, httpx.Client(base_url=server.url, timeout=10) as http:
            game = http.post("/api/games", json={"variant": "freecell", "deal": 3}).json()
            cluster.pause()
            answers = []
            for _ in range(20):
                r = http.get(f"/api/games/{game['id']}")
                answers.append(r.status_code)
                if r.status_code == 503:
                    _unavailable(r)
                r = http.post("/api/games", json={"variant": "freecell", "deal": 4})
                answers.append(r.status_code)
            assert set(answers) <= {200, 503} and answers.count(503) >= 30
            cluster.resume()
            r = http.post(
                f"/api/games/{game['id']}/actions",
                json={"version": 1, "type": "move", **game["moves"][0]},
            )
            assert r.status_code == 200, r.text
            # one report of the outage with its traceback, not one per request
            log = server.log.read_text()
            assert log.count("storage unavailable;") == 1
            assert "Exception in ASGI application" not in log
            assert "storage back after" in log
