"""Request limits: oversized bodies are refused unread, slow and surplus
connections are closed, and a flood of one log message is held back."""

from __future__ import annotations

import asyncio
import logging
import socket
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from jielong.testing.processes import ServerProcess
from jielong.web.app import Settings, create_app
from jielong.web.http.limits import MAX_BODY_BYTES, BodyLimit, RepeatLimiter


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    db = tmp_path_factory.mktemp("limits") / "games.sqlite3"
    with TestClient(create_app(Settings(database=f"sqlite:///{db}", hint_workers=1))) as c:
        yield c


def test_a_large_body_is_refused_before_it_is_read() -> None:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        raise AssertionError("the app was reached")

    async def receive() -> Any:
        raise AssertionError("the body was read")

    sent: list[Any] = []

    async def send(message: Any) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "method": "POST",
        "path": "/api/games",
        "query_string": b"",
        "headers": [(b"content-length", b"200000000"), (b"accept-language", b"en")],
    }
    # a thread of its own: the browser tests' synchronous Playwright leaves an
    # event loop running in this one
    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(asyncio.run, BodyLimit(app)(scope, receive, send)).result()
    assert sent[0]["status"] == 413 and (b"connection", b"close") in sent[0]["headers"]
    assert b'"body_too_large"' in sent[1]["body"] and b"65536" in sent[1]["body"]


def test_bodies_over_the_limit_answer_413(client: TestClient) -> None:
    big = {"variant": "freecell", "position": "x" * (MAX_BODY_BYTES + 10)}
    r = client.post("/api/games", json=big)
    assert r.status_code == 413 and r.json()["error"]["code"] == "body_too_large"
    # a body sent without a length is cut off once past the limit
    chunks = (b"x" * 8192 for _ in range(MAX_BODY_BYTES // 8192 + 2))
    r = client.post("/api/games", content=chunks, headers={"content-type": "application/json"})
    assert r.status_code == 413 and r.json()["error"]["code"] == "body_too_large"
    assert client.post("/api/games", json={"variant": "freecell", "deal": 1}).status_code == 201


def test_the_same_log_message_is_held_back() -> None:
    limiter = RepeatLimiter(interval=0.2)
    logger = logging.getLogger("jielong.test-limits")
    records = [
        logger.makeRecord(
            logger.name, logging.ERROR, __file__, 1, "accept failed: %s", ("x",), None
        )
        for _ in range(1001)
    ]
    passed = [r for r in records[:1000] if limiter.filter(r)]
    assert len(passed) == 1
    other = logger.makeRecord(logger.name, logging.ERROR, __file__, 1, "other", (), None)
    assert limiter.filter(other)
    time.sleep(0.25)
    assert limiter.filter(records[1000])
    assert "999 more like this" in records[1000].getMessage()


def _half_sent(port: int) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.sendall(b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Length: 50\r\n")
    return s


def _closed(s: socket.socket, within: float) -> bool:
    s.settimeout(within)
    try:
        return s.recv(1024) == b""
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True


@pytest.mark.slow
def test_slow_and_surplus_connections_are_closed(tmp_path: Path) -> None:
    database = f"sqlite:///{tmp_path / 'games.sqlite3'}"
    args = ("--hint-workers", "1", "--read-timeout", "1.5", "--max-connections", "20")
    with ServerProcess(database, *args) as server:
        slow = [_half_sent(server.port) for _ in range(20)]
        surplus = _half_sent(server.port)
        assert _closed(surplus, 0.5)
        assert all(_closed(s, 3.0) for s in slow)
        for s in [*slow, surplus]:
            s.close()
        # a body that stops half-way is cut off too; whole requests still work
        partial = socket.create_connection(("127.0.0.1", server.port), timeout=5)
        partial.sendall(b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Length: 50\r\n\r\n{")
        assert _closed(partial, 3.0)
        partial.close()
        r = httpx.post(server.url + "/api/games", json={"variant": "freecell", "deal": 2})
        assert r.status_code == 201
