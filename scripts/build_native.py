"""Compile the Klondike solver with mypyc, for speed.

``jielong/solve/klondike.py`` stays plain Python and is what is read, typed
and tested.  This script compiles a copy of it, under the module name
``jielong.solve._klondike_native``, into a C extension beside it; the copy
carries the SHA-256 of the source it came from, and ``klondike.py`` uses the
compiled entry points only when that hash matches its own text, so an
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
SOURCE = PACKAGE / "klondike.py"
NAME = "_klondike_native"


def compiled() -> list[Path]:
    return sorted(PACKAGE.glob(f"{NAME}*.so"))


def clean() -> None:
    for path in [*compiled(), PACKAGE / f"{NAME}.sha256"]:
        path.unlink(missing_ok=True)


def main(argv: list[str]) -> int:
    if "--clean" in argv:
        clean()
        return 0
    if argv[:1] == ["--compile"]:
        build(argv[1])
        return 0
    source = SOURCE.read_bytes()
    text = source.decode("utf-8")
    sha = hashlib.sha256(source).hexdigest()
    stamp = PACKAGE / f"{NAME}.sha256"
    target = PACKAGE / f"{NAME}{sysconfig.get_config_var('EXT_SUFFIX')}"
    if target.exists() and stamp.exists() and stamp.read_text().strip() == sha:
        return 0
    clean()
    copy = PACKAGE / f"{NAME}.py"
    # the copy says which source it was built from
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
        copy.unlink(missing_ok=True)
    if done.returncode != 0 or not target.exists():
        clean()
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-5:])
        print(f"build_native: not compiled, the solver runs as plain Python\n{tail}")
        return 0
    stamp.write_text(sha + "\n")
    print(f"build_native: compiled {target.relative_to(ROOT)}")
    return 0


def build(temp: str) -> None:
    """The compilation itself, in its own process so that a failure stays
    contained: mypyc writes its C into ``temp``, setuptools the extension
    in place."""
    from mypyc.build import mypycify
    from setuptools import setup

    setup(
        name=NAME,
        ext_modules=mypycify([f"jielong/solve/{NAME}.py"], target_dir=temp),
        script_args=["-q", "build_ext", "--inplace", "--build-temp", temp, "--build-lib", temp],
    )


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
