"""The site installed as a newcomer installs it, in a fresh virtual
environment: `make install` (what `make run` does before serving) with the
optional parts absent, then a built wheel in place of the source tree.

The runtime dependencies are installed once, from pip's usual sources (its
cache when warm), for both tests; each starts `jielong serve` as its own
process."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from install_checks import call, fetch, follow_hints

from jielong.testing.processes import ServerProcess

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
# what the site must not pull in: each belongs to an extra
EXTRA_MODULES = ("psycopg", "dask", "distributed", "mypy", "mypyc")


def clean_env(**extra: str) -> dict[str, str]:
    """This environment without what points into the test run's own venv."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return {**env, **extra}


def run(*cmd: str | Path, cwd: Path | None = None) -> str:
    done = subprocess.run(
        [str(c) for c in cmd], cwd=cwd, env=clean_env(), capture_output=True, text=True
    )
    assert done.returncode == 0, f"{cmd}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout + done.stderr


def importable(python: Path, modules: tuple[str, ...]) -> list[str]:
    code = (
        "import importlib.util, sys\n"
        "print(' '.join(m for m in sys.argv[1:] if importlib.util.find_spec(m)))"
    )
    return run(python, "-c", code, *modules).split()


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A virtual environment as `make run` installs it."""
    venv = tmp_path_factory.mktemp("site") / "venv"
    run("make", "--no-print-directory", "install", f"VENV={venv}", cwd=ROOT)
    return venv


def test_make_install_serves_and_plays_without_the_optional_parts(
    venv: Path, tmp_path: Path
) -> None:
    python = venv / "bin" / "python"
    assert importable(python, EXTRA_MODULES) == []
    # Freecell Solver absent as on a machine without its library: the binding
    # then fails to load it in the same way
    run(python, "-m", "pip", "uninstall", "-q", "-y", "freecell-solver")
    assert importable(python, ("freecell_solver",)) == []

    doctor = run(venv / "bin" / "jielong", "doctor", cwd=tmp_path)
    assert "--  Freecell Solver: the freecell_solver binding is not installed" in doctor
    assert "pip install 'jielong[postgres]'" in doctor

    # a PostgreSQL URL without the driver: one clear line, not a traceback
    done = subprocess.run(
        [venv / "bin" / "jielong", "serve", "--database", "postgresql://nobody@127.0.0.1/none"],
        cwd=tmp_path,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "jielong: PostgreSQL databases (--database postgresql://...) need the psycopg "
        "package, which is not installed: pip install 'jielong[postgres]'"
    ]

    server = ServerProcess(
        f"sqlite:///{tmp_path / 'games.sqlite3'}",
        "--hint-workers",
        "1",
        "--hint-seconds",
        "1",
        command=[str(venv / "bin" / "jielong")],
        env=clean_env(JIELONG_PURE_PYTHON="1"),
        cwd=tmp_path,
    )
    with server:
        base = server.url
        assert "FreeCell hints use the built-in solver" in server.log.read_text()

        status, game = call(base, "POST", "/api/games", {"variant": "freecell", "deal": 617})
        assert status == 201
        game, kinds = follow_hints(base, game, hints=40)
        assert game["flags"]["won"], kinds
        assert set(kinds) <= {"solver", "heuristic"}, kinds

        # Klondike hints weigh the unseen cards for the whole deadline: a few
        # of them, each played as the server offers it
        status, game = call(base, "POST", "/api/games", {"variant": "klondike-3", "deal": 617})
        assert status == 201
        game, kinds = follow_hints(base, game, hints=5)
        assert len(kinds) == 5 and "none" not in kinds, kinds
        assert game["counters"]["moves"] >= 5
        status, undone = call(
            base,
            "POST",
            f"/api/games/{game['id']}/actions",
            {"version": game["version"], "type": "undo"},
        )
        assert status == 200 and undone["version"] == game["version"] + 1


def test_wheel_installs_and_serves_on_its_own(venv: Path, tmp_path: Path) -> None:
    # built from a copy: setuptools leaves a build/ directory in the tree it
    # builds, whose leftovers a later build would pack
    source = tmp_path / "source"
    for name in ("pyproject.toml", "README.md"):
        source.mkdir(exist_ok=True)
        shutil.copy(ROOT / name, source / name)
    # the browser engine's runtime is fetched by the install step, not packed
    skip = shutil.ignore_patterns("__pycache__", "*.so", "*.sha256", "*.egg-info", "runtime")
    shutil.copytree(ROOT / "jielong", source / "jielong", ignore=skip)
    dist = tmp_path / "dist"
    run(sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", dist, source, cwd=tmp_path)
    (wheel,) = dist.glob("jielong-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    # every data file of the package travels in the wheel
    data = [
        p.relative_to(ROOT).as_posix()
        for p in (ROOT / "jielong").rglob("*")
        if p.is_file()
        and "__pycache__" not in p.parts
        and not p.is_relative_to(ROOT / "jielong" / "web" / "runtime")
        and p.suffix not in (".py", ".pyc", ".so", ".sha256")
    ]
    assert data and not sorted(set(data) - names)

    # the wheel replaces the source tree's editable install; pip installs
    # what its metadata asks for that is missing
    python = venv / "bin" / "python"
    run(python, "-m", "pip", "uninstall", "-q", "-y", "jielong")
    run(python, "-m", "pip", "install", "-q", wheel)
    run(python, "-m", "pip", "check")
    server = ServerProcess(
        f"sqlite:///{tmp_path / 'games.sqlite3'}",
        "--hint-workers",
        "1",
        command=[str(venv / "bin" / "jielong")],
        env=clean_env(),
        cwd=tmp_path,  # not the source tree, whose jielong would be imported first
    )
    with server:
        status, kind, page = fetch(server.url, "/play/freecell")
        assert status == 200 and kind.startswith("text/html")
        # the page's own files come from the installed package
        for path in ("/static/css/site.css", "/static/js/main.js"):
            assert path in page
            status, _, text = fetch(server.url, path)
            assert status == 200 and text
        status, game = call(server.url, "POST", "/api/games", {"variant": "kongdang", "deal": 1})
        assert status == 201 and game["moves"]
    origin = run(python, "-c", "import jielong; print(jielong.__file__)", cwd=tmp_path)
    assert str(venv) in origin
