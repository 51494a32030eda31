"""scripts/debs.sh: `make run` goes on without its Debian packages where it
cannot install them (not root, not Debian); `make test` stops and says what
is missing."""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "debs.sh"


def run(
    *args: str, path: str | None = None, user: str | None = None
) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if path is not None:
        env["PATH"] = path
    prefix = ["runuser", "-u", user, "--"] if user else []
    return subprocess.run(
        [*prefix, shutil.which("bash") or "/bin/bash", str(SCRIPT), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_without_dpkg(tmp_path: Path) -> None:
    # a PATH with the shell's tools and no dpkg-query, as on macOS or Fedora
    for tool in ("grep", "id"):
        found = shutil.which(tool)
        assert found
        (tmp_path / tool).symlink_to(found)
    optional = run("--optional", "libfreecell-solver0", path=str(tmp_path))
    assert optional.returncode == 0 and optional.stdout == optional.stderr == ""
    required = run("libfreecell-solver0", path=str(tmp_path))
    assert required.returncode == 1
    assert "not a Debian system" in required.stderr and "libfreecell-solver0" in required.stderr


@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("dpkg-query") is None or shutil.which("runuser") is None,
    reason="needs root on Debian to act as another user",
)
def test_not_root() -> None:
    user = pwd.getpwnam("nobody").pw_name
    optional = run("--optional", "jielong-no-such-package", user=user)
    assert optional.returncode == 0 and optional.stderr == ""
    required = run("jielong-no-such-package", user=user)
    assert required.returncode == 1
    assert "missing Debian packages: jielong-no-such-package" in required.stderr
