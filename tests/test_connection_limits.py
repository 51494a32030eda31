"""What one connection and one address may hold, against a real server:
request heads bounded (431 before they are buffered), connections capped
per address with room kept for new addresses, and the player cookie's check
remembering the cookie's value only."""

from __future__ import annotations

import contextlib
import json
import socket
import time
from collections.abc import Iterator

import httpx
import pytest

from jielong.testing.processes import ServerProcess
from jielong.web.http.connections import MAX_HEAD_BYTES, MAX_HEADERS
from jielong.web.http.security import HOST_COOKIE, PLAYER_COOKIE, PlayerIds


def _answer(s: socket.socket) -> bytes:
    s.settimeout(5)
    data = b""
    try:
        while chunk := s.recv(65536):
            data += chunk
    except (TimeoutError, ConnectionResetError):
        pass
    return data


def _status_and_error(data: bytes) -> tuple[int, dict[str, object]]:
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body)["error"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db = f"sqlite:///{tmp_path_factory.mktemp('heads') / 'g.sqlite3'}"
    # 127.0.0.1 is a client here, not a trusted proxy
    args = ["--hint-workers", "1", "--forwarded-allow-ips", "10.9.9.9"]
    args += ["--max-address-connections", "8", "--max-connections", "16"]
    with ServerProcess(db, *args) as s:
        yield s


def test_a_large_head_is_refused_with_431(server: ServerProcess) -> None:
    for head in (
        b"GET /api/variants HTTP/1.1\r\nHost: x\r\nX-Pad: " + b"a" * (1 << 20) + b"\r\n\r\n",
        b"GET /api/variants HTTP/1.1\r\nHost: x\r\n" + b"X-A: b\r\n" * (MAX_HEADERS + 1) + b"\r\n",
        b"GET /api/variants?" + b"q" * (MAX_HEAD_BYTES + 1) + b" HTTP/1.1\r\nHost: x\r\n\r\n",
    ):
        with socket.create_connection(("127.0.0.1", server.port)) as s:
            with contextlib.suppress(OSError):  # closed before all of it was sent
                s.sendall(head)
            status, error = _status_and_error(_answer(s))
        assert status == 431 and error["code"] == "headers_too_large", head[:60]
        assert str(MAX_HEAD_BYTES) in str(error["message"])
    # a head within the bounds is served as before
    r = httpx.get(server.url + "/api/variants", headers={"X-Pad": "a" * 8000})
    assert r.status_code == 200


def test_an_address_holding_its_share_leaves_room_for_others(server: ServerProcess) -> None:
    held = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(12)]
    try:
        time.sleep(0.3)
        # past its eight, this address's connections are closed at once
        assert sum(_answer_closed(s) for s in held) == 4
        # another address is answered
        with httpx.Client(transport=httpx.HTTPTransport(local_address="127.0.0.2")) as other:
            assert other.get(f"http://127.0.0.1:{server.port}/api/variants").status_code == 200
    finally:
        for s in held:
            s.close()


def _answer_closed(s: socket.socket) -> bool:
    s.settimeout(0.2)
    try:
        return s.recv(1) == b""
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True


def test_a_full_process_closes_an_idle_connection_of_the_richest_address(
    server: ServerProcess,
) -> None:
    mine = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(8)]
    others = []
    try:
        for n in range(2, 10):  # eight more addresses: the process is full at sixteen
            s = socket.socket()
            s.bind((f"127.0.0.{n}", 0))
            s.connect(("127.0.0.1", server.port))
            others.append(s)
        time.sleep(0.3)
        newcomer = httpx.Client(transport=httpx.HTTPTransport(local_address="127.0.0.20"))
        with newcomer:
            assert newcomer.get(f"http://127.0.0.1:{server.port}/api/variants").status_code == 200
        time.sleep(0.2)
        assert sum(_answer_closed(s) for s in mine) >= 1
        assert not any(_answer_closed(s) for s in others)
    finally:
        for s in [*mine, *others]:
            s.close()


def test_the_cookie_check_remembers_the_value_only() -> None:
    players = PlayerIds(b"k" * 32)
    player, cookie = players.issue()
    for n in range(200):
        pad = f"pad{n}={'x' * 4000}"
        header = f"{pad}; {PLAYER_COOKIE}={cookie}; lang=en".encode()
        assert players.from_cookie_headers([header]) == (player, None)
    assert list(players._known) == [cookie]
    # a longer value is not looked at
    other, new = players.from_cookie_headers([f"{PLAYER_COOKIE}={cookie}{'x' * 9000}".encode()])
    assert other != player and new is not None and not players._known.get(new)
    # a name that only ends like the cookie's is another cookie
    assert players.from_cookie_headers([f"x{PLAYER_COOKIE}={cookie}".encode()])[0] != player


def test_over_https_a_plain_cookie_is_replaced_by_a_host_cookie() -> None:
    players = PlayerIds(b"k" * 32)
    planted, cookie = players.issue()
    plain = f"{PLAYER_COOKIE}={cookie}".encode()
    assert players.from_cookie_headers([plain]) == (planted, None)
    fresh, value = players.from_cookie_headers([plain], https=True)
    assert fresh != planted and value is not None
    host = f"{HOST_COOKIE}={value}; {PLAYER_COOKIE}={cookie}".encode()
    assert players.from_cookie_headers([host], https=True) == (fresh, None)


def test_requests_in_progress_are_capped_per_address() -> None:
    import asyncio
    import concurrent.futures

    from jielong.web.http.limits import AddressRequests, refuse_busy_address

    requests = AddressRequests(limit=2)
    assert requests.enter("10.0.0.1") and requests.enter("10.0.0.1")
    assert not requests.enter("10.0.0.1") and requests.enter("10.0.0.2")
    requests.leave("10.0.0.1")
    assert requests.enter("10.0.0.1")
    sent: list[dict[str, object]] = []

    async def send(message: dict[str, object]) -> None:
        sent.append(message)

    scope = {"type": "http", "headers": [], "query_string": b""}
    # in a thread of its own: a browser test's Playwright may hold this
    # thread's event loop for the rest of the session
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, refuse_busy_address(scope, send)).result()  # type: ignore[arg-type]
    assert sent[0]["status"] == 429 and (b"retry-after", b"1") in sent[0]["headers"]  # type: ignore[operator]
    assert json.loads(sent[1]["body"])["error"]["code"] == "rate_limited"  # type: ignore[arg-type]
