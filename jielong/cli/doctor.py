"""``jielong doctor``: which optional parts are installed, and what each
missing one costs.  ``jielong serve`` prints the same notes for the parts the
site itself would use."""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import sys
from dataclasses import asdict, dataclass
from importlib import metadata
from pathlib import Path
from types import ModuleType

from jielong.engine import native as compiled_copies
from jielong.optional import installed


@dataclass(frozen=True)
class Part:
    name: str
    present: bool
    detail: str
    """What was found, or why it is not used."""
    cost: str
    """What its absence costs."""
    fix: str
    """How to install it."""
    site: bool
    """Used by the site itself (not only by the command line or the tests)."""


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "?"


def freecell_solver() -> Part:
    from jielong.engine.solve import fcsolve

    present = fcsolve.available()
    if present:
        detail = f"libfreecell-solver through freecell_solver {_version('freecell_solver')}"
    elif importlib.util.find_spec("freecell_solver") is None:
        detail = "the freecell_solver binding is not installed"
    else:
        detail = "the library libfreecell-solver.so.0 is not found"
    return Part(
        "Freecell Solver",
        present,
        detail,
        "FreeCell hints use the built-in solver: about 50 times slower per deal "
        "(median 19 ms against 0.4 ms, hints p95 228 ms against 17 ms; docs/solvers.md), "
        "still within the hint deadline; jielong solve --solver fcsolve is refused",
        "apt-get install libfreecell-solver0 (Debian, Ubuntu), or build Freecell Solver",
        True,
    )


def _compiled(module: ModuleType) -> tuple[bool, str]:
    """Whether a solver module runs its compiled copy (scripts/build_native.py),
    and what was found."""
    present = module.solve is not module.PLAIN["solve"]
    prefix = f"{compiled_copies.PACKAGE}.{compiled_copies.PREFIX}"
    native = [prefix + part for part in module.PARTS]
    if present:
        return True, ", ".join(native) + ", built from this source"
    if os.environ.get("JIELONG_PURE_PYTHON"):
        return False, "turned off by JIELONG_PURE_PYTHON"
    if any(importlib.util.find_spec(name) is None for name in native):
        return False, "not built"
    return False, "built from another version of the source, so not used"


NATIVE_FIX = (
    "make native (in a source tree: pip install 'jielong[native]', a C compiler, "
    "python scripts/build_native.py)"
)


def compiled_klondike() -> Part:
    from jielong.engine.solve import klondike

    present, detail = _compiled(klondike)
    return Part(
        "compiled Klondike solver",
        present,
        detail,
        "Klondike hints, daily deals and winnable deals run as plain Python: "
        "about 5.5 times the CPU time (docs/solvers.md), the same answers",
        NATIVE_FIX,
        True,
    )


def compiled_freecell() -> Part:
    from jielong.engine.solve import freecell

    present, detail = _compiled(freecell)
    return Part(
        "compiled FreeCell solver",
        present,
        detail,
        "the built-in FreeCell solver (hints without Freecell Solver, proofs, "
        "jielong solve) runs as plain Python, several times slower, the same answers",
        NATIVE_FIX,
        True,
    )


def postgres_driver() -> Part:
    present = installed("postgres")
    return Part(
        "PostgreSQL driver (psycopg)",
        present,
        f"psycopg {_version('psycopg')}" if present else "not installed",
        "--database postgresql://... is refused; SQLite works",
        "pip install 'jielong[postgres]'",
        False,
    )


def dask() -> Part:
    present = installed("survey")
    return Part(
        "Dask (distributed)",
        present,
        f"distributed {_version('distributed')}" if present else "not installed",
        "jielong survey --dask is refused; surveys on local processes work",
        "pip install 'jielong[survey]'",
        False,
    )


def chromium() -> Part:
    from jielong.testing.browser import CHROMIUM

    browser = Path(CHROMIUM).exists()
    playwright = importlib.util.find_spec("playwright") is not None
    if browser and playwright:
        detail = f"{CHROMIUM}, playwright {_version('playwright')}"
    else:
        missing = [] if browser else [CHROMIUM]
        missing += [] if playwright else ["the playwright package"]
        detail = "missing: " + ", ".join(missing)
    return Part(
        "Chromium for the tests",
        browser and playwright,
        detail,
        "the browser tests (tests/browser) and bench/page_speed.py cannot run",
        "make test (as root on Debian it installs chromium and the test extras)",
        False,
    )


def postgres_server() -> Part:
    from jielong.testing.processes import postgres_bin

    bindir = postgres_bin()
    return Part(
        "PostgreSQL server for the tests",
        bindir is not None,
        str(bindir) if bindir else "no /usr/lib/postgresql/*/bin/initdb",
        "the PostgreSQL tests are skipped and bench/server_load.py measures SQLite only",
        "apt-get install postgresql (make test does as root)",
        False,
    )


def fc_solve_programs() -> Part:
    found = shutil.which("fc-solve"), shutil.which("make-microsoft-freecell-board")
    return Part(
        "Freecell Solver programs",
        all(found),
        ", ".join(p for p in found if p) or "not found",
        "the tests comparing deals and solutions with fc-solve are skipped",
        "apt-get install freecell-solver-bin (make test does as root)",
        False,
    )


def browser_engine() -> Part:
    from jielong.web.services import runtime

    present = runtime.installed()
    where = runtime.runtime_dir()
    return Part(
        "Browser engine",
        present,
        f"pyodide {runtime.VERSION} in {where}" if present else f"not in {where}",
        "every hint and analysis is computed on the server, and the installed app "
        "cannot play offline",
        "python -m jielong.web.services.runtime (make run does; it fetches the pinned "
        "pyodide package from the npm registry and checks its checksum)",
        True,
    )


def parts() -> list[Part]:
    return [
        browser_engine(),
        freecell_solver(),
        compiled_klondike(),
        compiled_freecell(),
        postgres_driver(),
        dask(),
        chromium(),
        postgres_server(),
        fc_solve_programs(),
    ]


def startup_notes() -> list[str]:
    """One line for each missing part the site would use: what it costs."""
    notes = []
    if not browser_engine().present:
        notes.append(
            "the browser engine is not installed: hints are computed on the server and "
            "the app cannot play offline (jielong doctor says more)"
        )
    if not freecell_solver().present:
        notes.append(
            "FreeCell hints use the built-in solver; install libfreecell-solver0 "
            "for faster ones (jielong doctor says more)"
        )
    plain = [p for p in (compiled_klondike(), compiled_freecell()) if not p.present]
    if plain and not os.environ.get("JIELONG_PURE_PYTHON"):
        notes.append(
            "the built-in solvers run as plain Python; `make native` compiles them, "
            "several times faster"
        )
    return notes


def cmd_doctor(args: argparse.Namespace) -> int:
    found = parts()
    if args.json:
        print(json.dumps([asdict(p) for p in found], indent=2))
        return 0
    import jielong

    print(f"jielong {_version('jielong')} in {Path(jielong.__file__).parent}")
    print(f"Python {sys.version.split()[0]} at {sys.executable}")
    for part in found:
        mark = "ok  " if part.present else "--  "
        print(f"\n{mark}{part.name}: {part.detail}")
        if not part.present:
            print(f"    without it: {part.cost}")
            print(f"    to install: {part.fix}")
    missing = sum(not p.present for p in found)
    print(f"\n{len(found) - missing} of {len(found)} optional parts installed.")
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser("doctor", help="say which optional parts are installed")
    p.add_argument("--json", action="store_true", help="the same as a JSON list")
    p.set_defaults(func=cmd_doctor)
