"""Real processes for tests and benchmarks: ``jielong serve`` and PostgreSQL."""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from pathlib import Path


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def postgres_bin() -> Path | None:
    """The newest installed PostgreSQL's binary directory."""
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"),
        key=lambda p: int(Path(p).parts[-3]) if Path(p).parts[-3].isdigit() else 0,
    )
    return Path(found[-1]).parent if found else None


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
        self.resume()

    def resume(self) -> None:
        """Start the server (again, after :meth:`pause`)."""
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

    def pause(self) -> None:
        """Stop the server at once, as a crash would, keeping its data."""
        self._run(
            str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop"
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


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=1) as r:
            return bool(r.status == 200)
    except (urllib.error.URLError, OSError):
        return False


class ServerProcess:
    """``jielong serve`` on a free port, in its own process group so that a
    kill takes its hint workers with it."""

    def __init__(
        self,
        database: str,
        *args: str,
        port: int | None = None,
        command: Sequence[str] | None = None,
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
    ) -> None:
        self.database = database
        self.args = args
        # the ``jielong`` command to run: this interpreter's by default
        self.command = list(command or [sys.executable, "-m", "jielong.cli"])
        self.env = dict(env) if env is not None else None
        self.cwd = cwd
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = Path(tempfile.mkstemp(prefix="jielong-serve-", suffix=".log")[1])

    def start(self, timeout: float = 60.0) -> ServerProcess:
        cmd = [
            *self.command,
            "serve",
            "--port",
            str(self.port),
            "--database",
            self.database,
            *self.args,
        ]
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen(
                cmd,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                env=self.env,
                cwd=self.cwd,
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited: {self.log.read_text()[-2000:]}")
            if _answers(self.url + "/api/variants"):
                return self
            time.sleep(0.1)
        self.kill()
        raise RuntimeError(f"server did not start: {self.log.read_text()[-2000:]}")

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def _signal_group(self, sig: int) -> None:
        if self.proc is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, sig)

    def kill(self) -> None:
        """SIGKILL: the server gets no chance to flush or close anything."""
        self._signal_group(signal.SIGKILL)
        if self.proc is not None:
            self.proc.wait(timeout=30)
        self.proc = None

    def stop(self) -> None:
        if self.proc is None:
            return
        self._signal_group(signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=15)
        self.kill()

    def __enter__(self) -> ServerProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
        self.log.unlink(missing_ok=True)
