"""Compile the Klondike solver with mypyc, for speed.

The solver's modules (``jielong/solve/klondike_*.py``, listed in
``klondike.PARTS``) stay plain Python and are what is read, typed and tested.
This script compiles copies of them together, as
``jielong.solve._native_klondike_*``, into C extensions beside them; each copy
carries the SHA-256 of the sources it came from, and ``klondike.py`` uses the
compiled entry points only when that hash matches the sources' text, so an
edited source never runs stale compiled code.  Without a C compiler or
mypyc, or when the build fails, everything runs as plain Python (the same
answers, about five times slower); this script then says so and
exits 0.

    python scripts/build_native.py          # build when the source changed
    python scripts/build_native.py --clean  # remove the compiled module
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "jielong" / "solve"
PARTS = (
    "klondike_state",
    "klondike_relax",
    "klondike_search",
    "klondike_sample",
    "klondike_hint",
)
"""As ``jielong.solve.klondike.PARTS`` (not imported: the build needs no
package import)."""
PREFIX = "_native_"
STAMP = PACKAGE / "_native_klondike.sha256"


def compiled() -> list[Path]:
    return sorted(PACKAGE.glob(f"{PREFIX}*.so"))


def clean() -> None:
    for path in [*compiled(), STAMP]:
        path.unlink(missing_ok=True)


def source_sha256() -> str:
    digest = hashlib.sha256()
    for part in PARTS:
        digest.update((PACKAGE / f"{part}.py").read_bytes())
    return digest.hexdigest()


def main(argv: list[str]) -> int:
    if "--clean" in argv:
        clean()
        return 0
    if argv[:1] == ["--compile"]:
        build(argv[1])
        return 0
    sha = source_sha256()
    targets = [PACKAGE / f"{PREFIX}{p}{sysconfig.get_config_var('EXT_SUFFIX')}" for p in PARTS]
    if all(t.exists() for t in targets) and STAMP.exists() and STAMP.read_text().strip() == sha:
        return 0
    clean()
    copies = [PACKAGE / f"{PREFIX}{p}.py" for p in PARTS]
    for part, copy in zip(PARTS, copies, strict=True):
        text = (PACKAGE / f"{part}.py").read_text(encoding="utf-8")
        # the copies import each other, and each says which sources it was built from
        text = text.replace("jielong.solve.klondike_", f"jielong.solve.{PREFIX}klondike_")
        copy.write_text(text + f'\nSOURCE_SHA256 = "{sha}"\n', encoding="utf-8")
    try:
        with tempfile.TemporaryDirectory() as temp:
            done = subprocess.run(
                [sys.executable, __file__, "--compile", temp],
                cwd=ROOT,
                capture_output=True,
                text=True,
            )
    finally:
        for copy in copies:
            copy.unlink(missing_ok=True)
    if done.returncode != 0 or not all(t.exists() for t in targets):
        clean()
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-5:])
        print(f"build_native: not compiled, the solver runs as plain Python\n{tail}")
        return 0
    STAMP.write_text(sha + "\n")
    print(f"build_native: compiled {len(targets)} modules of jielong/solve")
    return 0


def build(temp: str) -> None:
    """The compilation itself, in its own process so that a failure stays
    contained: mypyc writes its C into ``temp``, setuptools the extension
    in place."""
    from mypyc.build import mypycify
    from setuptools import setup

    files = [f"jielong/solve/{PREFIX}{p}.py" for p in PARTS]
    setup(
        name=f"{PREFIX}klondike",
        # the shared library beside the modules, not at the top of the tree
        ext_modules=mypycify(files, target_dir=temp, group_name="jielong.solve._native_klondike"),
        script_args=["-q", "build_ext", "--inplace", "--build-temp", temp, "--build-lib", temp],
    )


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
