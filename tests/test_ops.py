"""What an operator sees: /healthz, /metrics and the JSON access log, in the
app and in `jielong serve` with several workers on PostgreSQL."""

from __future__ import annotations

import json
import logging
import re
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from jielong.testing.processes import PostgresCluster, ServerProcess, postgres_bin
from jielong.web.app import Settings, create_app
from jielong.web.http.telemetry import game_tag, redact


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of a Prometheus text page, by name and labels."""
    out = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def value(page: dict[Any, float], name: str, **labels: str) -> float:
    return page.get((name, tuple(sorted(labels.items()))), 0.0)


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    db = tmp_path_factory.mktemp("ops") / "ops.sqlite"
    with TestClient(create_app(Settings(database=f"sqlite:///{db}", hint_workers=1))) as c:
        yield c


def test_healthz_says_the_database_answers(client: TestClient) -> None:
    answer = client.get("/healthz")
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "application/json"
    body = answer.json()
    assert body["status"] == "ok" and body["database"] == "ok"
    assert body["hint_queue"] == 0 and body["database_ms"] >= 0


def test_metrics_count_requests_games_actions_and_hints(client: TestClient) -> None:
    before = samples(client.get("/metrics").text)
    created = client.post("/api/games", json={"variant": "freecell", "deal": 5})
    assert created.status_code == 201
    assert client.post("/api/games", json={"deal_id": "freecell-6"}).status_code == 201
    game = created.json()
    actions = f"/api/games/{game['id']}/actions"
    move = game["moves"][0]
    assert client.post(actions, json={"version": 1, "type": "move", **move}).status_code == 200
    assert client.post(actions, json={"version": 1, "type": "move", **move}).status_code == 409
    illegal = {"from": "tableau:0", "to": "foundation:0", "count": 1}
    assert client.post(actions, json={"version": 2, "type": "move", **illegal}).status_code == 422
    assert client.post(actions, json={"version": 2, "type": "jump"}).status_code == 422
    hint = client.post(f"/api/games/{game['id']}/hint", json={"version": 2})
    assert hint.status_code == 200
    kind = hint.json()["kind"]

    page = client.get("/metrics")
    assert page.headers["content-type"].startswith("text/plain")
    assert game["id"] not in page.text
    after = samples(page.text)

    def grew(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    route = "/api/games/{game_id}/actions"
    assert grew("jielong_requests_total", method="POST", route=route, status="200") == 1
    assert grew("jielong_requests_total", method="POST", route=route, status="409") == 1
    assert grew("jielong_requests_total", method="POST", route=route, status="422") == 2
    assert grew("jielong_request_seconds_count", method="POST", route=route) == 4
    assert grew("jielong_games_created_total", variant="freecell") == 1
    assert grew("jielong_games_created_total", variant="by-id") == 1
    assert grew("jielong_actions_total", type="move", outcome="done") == 1
    assert grew("jielong_actions_total", type="move", outcome="stale") == 1
    assert grew("jielong_actions_total", type="move", outcome="refused") == 1
    assert grew("jielong_actions_total", type="other", outcome="refused") == 1
    assert grew("jielong_hints_total", kind=kind, outcome="answered") == 1
    assert value(after, "jielong_hint_queue_depth") == 0
    assert grew("jielong_requests_total", method="GET", route="/metrics", status="200") == 1


def test_access_log_is_one_json_line_per_request_without_game_ids(
    client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    game = client.post("/api/games", json={"variant": "klondike-1", "deal": 3}).json()
    gid = game["id"]
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="jielong.access"):
        client.get(f"/api/games/{gid}")
        client.get(f"/play/klondike-1?game={gid}&lang=en")
        client.get("/api/games/nope-not-a-game")
    lines = [r.getMessage() for r in caplog.records if r.name == "jielong.access"]
    assert len(lines) == 3
    assert all(gid not in line for line in lines)
    entries = [json.loads(line) for line in lines]
    assert entries[0]["target"] == f"/api/games/{game_tag(gid)}"
    assert entries[0]["route"] == "/api/games/{game_id}" and entries[0]["status"] == 200
    assert entries[1]["target"] == f"/play/klondike-1?game={game_tag(gid)}&lang=en"
    assert entries[2]["status"] == 404
    for entry in entries:
        assert set(entry) == {
            "time",
            "method",
            "target",
            "route",
            "status",
            "ms",
            "bytes",
            "client",
        }
        assert entry["method"] == "GET" and entry["ms"] >= 0 and entry["bytes"] > 0


def test_redact_hashes_every_game_id() -> None:
    assert redact("/api/games/abc/hint", "") == f"/api/games/{game_tag('abc')}/hint"
    assert redact("/play/freecell", "deal=5") == "/play/freecell?deal=5"
    assert game_tag("abc") != game_tag("abd") and len(game_tag("abc")) == 14


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def post(url: str, body: object) -> tuple[int, Any]:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST")
    req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


@pytest.mark.slow
@pytest.mark.skipif(postgres_bin() is None, reason="PostgreSQL is not installed")
def test_serve_with_workers_on_postgresql(tmp_path: Path) -> None:
    with PostgresCluster() as cluster:
        server = ServerProcess(cluster.url, "--workers", "2", "--hint-workers", "1", "--access-log")
        with server:
            status, text = get(server.url + "/healthz")
            assert status == 200 and json.loads(text)["database"] == "ok"
            ids = []
            for deal in range(1, 9):
                status, game = post(
                    server.url + "/api/games", {"variant": "kongdang", "deal": deal}
                )
                assert status == 201
                ids.append(game["id"])
            # whichever worker answers, it adds up both
            for _ in range(3):
                status, text = get(server.url + "/metrics")
                assert status == 200
                page = samples(text)
                assert value(page, "jielong_games_created_total", variant="kongdang") == 8

            cluster.pause()
            try:
                status, text = get(server.url + "/healthz")
                body = json.loads(text)
                assert status == 503
                assert body["status"] == "unavailable" and body["database"] == "unreachable"
            finally:
                cluster.resume()
            status, text = get(server.url + "/healthz")
            assert status == 200, text

            # a request's line is written once its answer has gone out, by
            # whichever worker took it: wait for the last one
            deadline = time.monotonic() + 10
            while True:
                log = server.log.read_text()
                entries = [json.loads(line) for line in log.splitlines() if line.startswith("{")]
                checks = [e["status"] for e in entries if e["route"] == "/healthz"]
                if len(checks) >= 3 or time.monotonic() > deadline:
                    break
                time.sleep(0.05)
            assert not any(gid in log for gid in ids)
            created = [e for e in entries if e["route"] == "/api/games" and e["status"] == 201]
            assert len(created) == 8
            assert checks == [200, 503, 200]
            assert not re.search(r"/api/games/[A-Za-z0-9_-]{24}", log)
