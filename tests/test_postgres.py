"""PostgreSQL: a throw-away cluster of Debian's PostgreSQL for the test run.

The store tests in ``test_store.py`` run against it too (their ``store``
fixture is parametrized over SQLite and PostgreSQL); the tests here are the
ones only a server database makes sense for: several engines (as several
server processes or machines would hold) racing on one game.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from jielong.session import Session
from jielong.store import StaleVersion, Store


def postgres_bin() -> Path | None:
    """The newest installed PostgreSQL's binary directory."""
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"),
        key=lambda p: int(Path(p).parts[-3]) if Path(p).parts[-3].isdigit() else 0,
    )
    return Path(found[-1]).parent if found else None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PostgresCluster:
    """initdb + pg_ctl on a temporary directory and a free port on 127.0.0.1.

    As root the server runs as the ``postgres`` user (PostgreSQL refuses to
    run as root)."""

    def __init__(self, *, fsync: bool = False) -> None:
        bindir = postgres_bin()
        if bindir is None:
            raise FileNotFoundError("PostgreSQL binaries not found under /usr/lib/postgresql")
        self.bindir = bindir
        self.fsync = fsync
        self.port = free_port()
        self.root = Path(tempfile.mkdtemp(prefix="jielong-pg-"))
        self.data = self.root / "data"
        self.prefix: list[str] = []
        if os.geteuid() == 0:
            user = pwd.getpwnam("postgres")
            os.chown(self.root, user.pw_uid, user.pw_gid)
            self.prefix = ["runuser", "-u", "postgres", "--"]
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, *args: str) -> None:
        subprocess.run(
            [*self.prefix, *args], check=True, capture_output=True, timeout=120, cwd=self.root
        )

    def start(self) -> None:
        self._run(
            str(self.bindir / "initdb"),
            "-D",
            str(self.data),
            "-U",
            "postgres",
            "-A",
            "trust",
            "-E",
            "UTF8",
            "--locale=C",
            "--no-sync",
        )
        options = (
            f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.root} "
            f"-c fsync={'on' if self.fsync else 'off'} -c max_connections=200"
        )
        self._run(
            str(self.bindir / "pg_ctl"),
            "-D",
            str(self.data),
            "-o",
            options,
            "-l",
            str(self.root / "log"),
            "-w",
            "start",
        )

    def stop(self) -> None:
        try:
            self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> PostgresCluster:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    if postgres_bin() is None:
        pytest.skip("PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb)")
    with PostgresCluster() as cluster:
        yield cluster.url


def _reset(url: str) -> None:
    store = Store(url)
    with store.engine.begin() as conn:
        conn.exec_driver_sql("DELETE FROM games")
    store.close()


def test_plain_postgresql_urls_use_psycopg_3(postgres_url: str) -> None:
    store = Store(postgres_url)
    assert store.engine.url.drivername == "postgresql+psycopg"
    assert store.dialect == "postgresql"
    store.close()


def test_two_engines_racing_on_one_game_never_both_win(postgres_url: str) -> None:
    """Like two server processes: separate engines and connection pools."""
    _reset(postgres_url)
    setup = Store(postgres_url)
    record = setup.create(Session("freecell", deal=617), "p" * 20, 0)
    racers = [Store(postgres_url) for _ in range(4)]
    rounds = 15
    wins = [0] * len(racers)
    stale = [0] * len(racers)

    def race(i: int, barrier: threading.Barrier) -> None:
        barrier.wait()
        mine = racers[i].load(record.id)
        assert mine is not None
        legal = mine.session.legal_moves()
        if legal:
            mine.session.move(legal[i % len(legal)])
        else:
            mine.session.undo()
        try:
            racers[i].save(mine, mine.version, 1)
            wins[i] += 1
        except StaleVersion:
            stale[i] += 1

    for _ in range(rounds):
        barrier = threading.Barrier(len(racers))
        threads = [threading.Thread(target=race, args=(i, barrier)) for i in range(len(racers))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    final = setup.load(record.id)
    assert final is not None
    # every accepted write is exactly one more version: none lost, none doubled
    assert sum(wins) == final.version - 1
    assert sum(wins) + sum(stale) == rounds * len(racers)
    assert sum(wins) >= rounds  # each round someone read the fresh version
    for s in (setup, *racers):
        s.close()
