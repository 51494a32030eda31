"""Compile the solvers with mypyc, for speed.

Two groups of modules in ``jielong/engine/solve/searches/``: the Klondike
solver (``klondike_*.py``) and the own FreeCell solver (``freecell_*.py``), as
listed in ``jielong.engine.native.GROUPS``.  They stay plain Python and are
what is read, typed and tested.  This script compiles copies of each group
together, as ``jielong.engine.solve.searches._native_*``, into C extensions
beside them; each copy carries the SHA-256 of the sources it came from, and
the solver uses the compiled entry points only when that hash matches the
sources' text, so an edited source never runs stale compiled code.  Without
a C compiler or mypyc, or when the build fails, everything runs as plain
Python (the same answers, several times slower); this script then says so
and exits 0.

    python scripts/build_native.py          # build what changed
    python scripts/build_native.py --clean  # remove the compiled modules
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "jielong" / "engine" / "solve" / "searches"


def _native() -> ModuleType:
    """``jielong.engine.native``, read by its path: the build needs no
    package import (the package would load the very copies being rebuilt)."""
    spec = importlib.util.spec_from_file_location(
        "_build_native_list", ROOT / "jielong" / "engine" / "native.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_LIST = _native()
GROUPS: dict[str, tuple[str, ...]] = _LIST.GROUPS
"""Each group's modules: the one list, in ``jielong.engine.native``."""
PREFIX: str = _LIST.PREFIX
MODULE: str = _LIST.PACKAGE
"""The package of the modules and their copies, ``jielong.engine.solve.searches``."""


def stamp(group: str) -> Path:
    return PACKAGE / f"{PREFIX}{group}.sha256"


def compiled(group: str) -> list[Path]:
    """The group's extension modules and the shared library of their code."""
    found = {p for part in GROUPS[group] for p in PACKAGE.glob(f"{PREFIX}{part}.*.so")}
    found |= set(PACKAGE.glob(f"{PREFIX}{group}_lib*.so"))
    found |= set(PACKAGE.glob(f"{PREFIX}{group}.*.so"))  # the library's earlier name
    return sorted(found)


def clean(group: str) -> None:
    for path in [*compiled(group), stamp(group)]:
        path.unlink(missing_ok=True)


def source_sha256(group: str) -> str:
    sha: str = _LIST.source_sha256(group)
    return sha


def main(argv: list[str]) -> int:
    if "--clean" in argv:
        for group in GROUPS:
            clean(group)
        return 0
    if argv[:1] == ["--compile"]:
        build(argv[1], argv[2])
        return 0
    for group in GROUPS:
        build_group(group)
    return 0


def build_group(group: str) -> None:
    parts = GROUPS[group]
    sha = source_sha256(group)
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    targets = [PACKAGE / f"{PREFIX}{p}{suffix}" for p in parts]
    done_stamp = stamp(group)
    built = all(t.exists() for t in targets) and done_stamp.exists()
    if built and done_stamp.read_text().strip() == sha:
        return
    clean(group)
    copies = [PACKAGE / f"{PREFIX}{p}.py" for p in parts]
    for part, copy in zip(parts, copies, strict=True):
        text = (PACKAGE / f"{part}.py").read_text(encoding="utf-8")
        # the copies import each other, and each says which sources it was built from
        for family in GROUPS:
            text = text.replace(f"{MODULE}.{family}_", f"{MODULE}.{PREFIX}{family}_")
        copy.write_text(text + f'\nSOURCE_SHA256 = "{sha}"\n', encoding="utf-8")
    try:
        with tempfile.TemporaryDirectory() as temp:
            done = subprocess.run(
                [sys.executable, __file__, "--compile", group, temp],
                cwd=ROOT,
                capture_output=True,
                text=True,
            )
    finally:
        for copy in copies:
            copy.unlink(missing_ok=True)
    if done.returncode != 0 or not all(t.exists() for t in targets):
        clean(group)
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-5:])
        print(f"build_native: {group} not compiled, its solver runs as plain Python\n{tail}")
        return
    done_stamp.write_text(sha + "\n")
    print(f"build_native: compiled the {group} solver ({len(targets)} modules)")


def build(group: str, temp: str) -> None:
    """The compilation itself, in its own process so that a failure stays
    contained: mypyc writes its C into ``temp``, setuptools the extensions
    in place."""
    from mypyc.build import mypycify
    from setuptools import setup

    files = [(PACKAGE / f"{PREFIX}{p}.py").relative_to(ROOT).as_posix() for p in GROUPS[group]]
    setup(
        name=f"{PREFIX}{group}",
        # the shared library beside the modules, not at the top of the tree
        ext_modules=mypycify(files, target_dir=temp, group_name=f"{MODULE}.{PREFIX}{group}_lib"),
        script_args=["-q", "build_ext", "--inplace", "--build-temp", temp, "--build-lib", temp],
    )


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
