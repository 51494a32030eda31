"""The real server: `jielong serve` in its own process
(:class:`jielong.testing.processes.ServerProcess`), killed and restarted."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from jielong.testing.processes import ServerProcess


def _without_clock(state: dict[str, Any]) -> dict[str, Any]:
    counters = {k: v for k, v in state["counters"].items() if k != "elapsed_ms"}
    return {**state, "counters": counters}


def test_a_killed_server_loses_nothing(tmp_path: Path) -> None:
    database = f"sqlite:///{tmp_path / 'games.sqlite3'}"
    first = ServerProcess(database, "--hint-workers", "1")
    with first, httpx.Client(base_url=first.url, timeout=10) as http:
        start = http.post("/api/games", json={"variant": "klondike-3", "deal": 31}).json()
        game = start
        played = 0
        for i in range(12):
            # alternate draws with the last listed move, undo now and then
            if i % 5 == 4:
                body: dict[str, Any] = {"type": "undo"}
            elif i % 2:
                body = {"type": "draw"}
            else:
                body = {"type": "move", **game["moves"][-1]}
            r = http.post(
                f"/api/games/{game['id']}/actions", json={"version": game["version"], **body}
            )
            assert r.status_code == 200, r.text
            game = r.json()
            played += 1
        assert game["version"] == 1 + played
        first.kill()  # SIGKILL right after the last answer
    second = ServerProcess(database, "--hint-workers", "1")
    with second, httpx.Client(base_url=second.url, timeout=10) as http:
        after = http.get(f"/api/games/{game['id']}").json()
        assert _without_clock(after) == _without_clock(game)
        assert after["counters"]["elapsed_ms"] >= game["counters"]["elapsed_ms"]
        # the whole history is there: undo goes back to the deal's start
        undos = 0
        while after["flags"]["can_undo"]:
            r = http.post(
                f"/api/games/{game['id']}/actions",
                json={"version": after["version"], "type": "undo"},
            )
            assert r.status_code == 200, r.text
            after = r.json()
            undos += 1
        assert after["position"] == start["position"] and after["moves"] == start["moves"]
        assert after["counters"]["moves"] == 0
        assert undos == played - 2 * (played // 5)


def test_serve_rejects_bad_options() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "jielong.cli", "serve", "--workers", "0"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2 and "--workers" in result.stderr


@pytest.mark.slow
def test_two_server_processes_share_one_sqlite_file(tmp_path: Path) -> None:
    database = f"sqlite:///{tmp_path / 'shared.sqlite3'}"
    with (
        ServerProcess(database, "--hint-workers", "1") as a,
        ServerProcess(database, "--hint-workers", "1") as b,
    ):
        game = httpx.post(a.url + "/api/games", json={"variant": "freecell", "deal": 4}).json()
        seen = httpx.get(f"{b.url}/api/games/{game['id']}").json()
        assert seen["version"] == 1
        body = {"version": 1, "type": "move", **game["moves"][0]}
        assert httpx.post(f"{b.url}/api/games/{game['id']}/actions", json=body).status_code == 200
        r = httpx.post(f"{a.url}/api/games/{game['id']}/actions", json=body)
        assert r.status_code == 409 and r.json()["state"]["version"] == 2


def test_serve_is_a_jielong_command_and_settings_travel_by_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from jielong.cli import build_parser
    from jielong.web.app import Settings

    args = build_parser().parse_args(
        ["serve", "--port", "9", "--database", "sqlite:////x", "--hint-seconds", "3.5"]
    )
    assert (args.port, args.database, args.hint_seconds, args.workers) == (
        9,
        "sqlite:////x",
        3.5,
        1,
    )
    settings = Settings(
        database="postgresql://u@h/db", hint_workers=3, hint_queue=5, hint_seconds=1.5
    )
    for key, value in settings.to_env().items():
        monkeypatch.setenv(key, value)
    assert Settings.from_env() == settings


def _state_and_parent(pid: int) -> tuple[str, int] | None:
    """A process's state letter and parent pid from ``/proc``; None once gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # the fields after the command name, which may itself hold spaces
    state, ppid = stat.rsplit(")", 1)[1].split()[:2]
    return state, int(ppid)


def _alive(pid: int) -> bool:
    """Running or sleeping, not gone and not a zombie."""
    found = _state_and_parent(pid)
    return found is not None and found[0] != "Z"


def _children(pid: int) -> dict[int, str]:
    """Live (not zombie) processes whose parent is ``pid``, with their command lines."""
    found: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        child = int(entry.name)
        info = _state_and_parent(child)
        if info is None or info[1] != pid or info[0] == "Z":
            continue
        try:
            found[child] = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
    return found


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_hint_workers_end_with_a_killed_server(tmp_path: Path) -> None:
    server = ServerProcess(f"sqlite:///{tmp_path / 'games.sqlite3'}", "--hint-workers", "2")
    with server:
        deadline = time.monotonic() + 60
        workers: dict[int, str] = {}
        while time.monotonic() < deadline:
            workers = {
                pid: cmd for pid, cmd in _children(server.pid).items() if "spawn_main" in cmd
            }
            if len(workers) == 2:
                break
            time.sleep(0.2)
        assert len(workers) == 2, _children(server.pid)
        # the server process alone, as the OOM killer would: not its group
        os.kill(server.pid, signal.SIGKILL)
        assert server.proc is not None
        server.proc.wait(timeout=30)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and any(_alive(pid) for pid in workers):
            time.sleep(0.2)
        assert not [pid for pid in workers if _alive(pid)]


def _descendants(pid: int) -> dict[int, str]:
    found = _children(pid)
    for child in list(found):
        found.update(_descendants(child))
    return found


@pytest.mark.slow
def test_killing_the_supervisor_of_several_workers_leaves_no_orphan(tmp_path: Path) -> None:
    database = f"sqlite:///{tmp_path / 'games.sqlite3'}"
    args = ("--workers", "2", "--hint-workers", "1")
    server = ServerProcess(database, *args)
    with server:
        deadline = time.monotonic() + 60
        tree: dict[int, str] = {}
        while time.monotonic() < deadline:
            tree = _descendants(server.pid)
            # two server workers, each with its hint worker
            if sum("spawn_main" in cmd for cmd in tree.values()) >= 4:
                break
            time.sleep(0.2)
        assert sum("spawn_main" in cmd for cmd in tree.values()) >= 4, tree
        # the supervising process alone, as the OOM killer would: not its group
        os.kill(server.pid, signal.SIGKILL)
        assert server.proc is not None
        server.proc.wait(timeout=30)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and any(_alive(pid) for pid in tree):
            time.sleep(0.2)
        assert not {pid: cmd for pid, cmd in tree.items() if _alive(pid)}
        # the port is free again: a new server starts on it
        again = ServerProcess(database, *args, port=server.port)
        with again:
            assert httpx.get(again.url + "/api/variants").status_code == 200


def _sockets(port: int, state: str) -> set[str]:
    """The inodes of the TCP sockets on local ``port`` in ``state`` (01:
    established, 0A: listening)."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if int(fields[1].rsplit(":", 1)[1], 16) == port and fields[3] == state:
                inodes.add(fields[9])
    return inodes


def _accepted_by(pids: list[int], port: int) -> dict[int, int]:
    """How many established connections to ``port`` each process holds."""
    inodes = _sockets(port, "01")
    held = {}
    for pid in pids:
        links = []
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            with contextlib.suppress(OSError):
                links.append(os.readlink(fd))
        held[pid] = sum(1 for link in links if link[8:-1] in inodes and link.startswith("socket:"))
    return held


@pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="reads /proc")
def test_connections_opened_at_once_spread_over_the_workers(tmp_path: Path) -> None:
    """40 keep-alive connections opened together: each worker process gets
    a share (with one shared listening socket, the first to wake took them
    all)."""
    server = ServerProcess(
        f"sqlite:///{tmp_path / 'games.sqlite3'}", "--workers", "2", "--hint-workers", "1"
    )
    with server:
        deadline = time.monotonic() + 60
        while len(_sockets(server.port, "0A")) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)  # the second worker is still starting
        assert len(_sockets(server.port, "0A")) == 2
        connections = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(40)]
        try:
            for conn in connections:
                conn.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            for conn in connections:
                assert conn.recv(65536).startswith(b"HTTP/1.1 200")
            workers = [pid for pid, cmd in _children(server.pid).items() if "spawn_main" in cmd]
            held = _accepted_by(workers, server.port)
            assert sum(held.values()) == 40, held
            # an even hash gives fewer than 5 of 40 to one of two with odds of 1e-7
            assert sorted(held.values())[-2] >= 5, held
        finally:
            for conn in connections:
                conn.close()


def test_a_worker_socket_answers_without_delay() -> None:
    """A connection accepted on a worker's own socket has Nagle's algorithm
    off, as asyncio sets it for TCP: with it on, a response written in two
    parts waited for the client's delayed acknowledgement, about 40 ms a
    request with two workers."""
    import asyncio
    import concurrent.futures

    from jielong.web.http.spread import _reuse_port_socket

    async def accepted_nodelay() -> int:
        sock = _reuse_port_socket(socket.AF_INET, ("127.0.0.1", 0))
        sock.listen()
        loop = asyncio.get_running_loop()
        got: asyncio.Future[int] = loop.create_future()

        class Probe(asyncio.Protocol):
            def connection_made(self, transport: asyncio.BaseTransport) -> None:
                conn = transport.get_extra_info("socket")
                got.set_result(conn.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
                transport.close()

        server = await loop.create_server(Probe, sock=sock)
        async with server:
            _, writer = await asyncio.open_connection(*sock.getsockname()[:2])
            try:
                return await asyncio.wait_for(got, 10)
            finally:
                writer.close()

    # a thread of its own: the browser tests' synchronous driver keeps an
    # event loop running in the test thread
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        nodelay = pool.submit(asyncio.run, accepted_nodelay()).result(timeout=30)
    assert nodelay != 0
