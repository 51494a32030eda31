"""Run every benchmark script of this folder, one after another.

Every ``bench/*.py`` except this one and modules starting with ``_`` is run as
a subprocess (``--smoke`` is passed on when given here); each one's output is
printed, and the exit status is non-zero if any of them failed.

    python bench/run_all.py --smoke     # what CI runs after the tests
    python bench/run_all.py             # the full figures
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def scripts() -> list[Path]:
    me = Path(__file__).resolve()
    return sorted(p for p in HERE.glob("*.py") if p.resolve() != me and not p.name.startswith("_"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="run every bench/*.py script")
    parser.add_argument("--smoke", action="store_true", help="pass --smoke to every script")
    parser.add_argument(
        "--timeout",
        type=float,
        default=None,
        help="seconds allowed per script (default: 600 with --smoke, none otherwise)",
    )
    args = parser.parse_args(argv)
    timeout = args.timeout if args.timeout is not None else (600.0 if args.smoke else None)

    failed: list[str] = []
    found = scripts()
    if not found:
        print("no benchmark scripts found")
    for script in found:
        cmd = [sys.executable, str(script)] + (["--smoke"] if args.smoke else [])
        print(f"== {script.name} ==", flush=True)
        start = time.perf_counter()
        try:
            done = subprocess.run(
                cmd, cwd=HERE.parent, capture_output=True, text=True, timeout=timeout
            )
        except subprocess.TimeoutExpired as e:
            out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
            print(out, end="")
            print(f"!! {script.name}: no answer within {timeout:g} s")
            failed.append(script.name)
            continue
        print(done.stdout, end="")
        if done.returncode != 0:
            print(done.stderr, end="", file=sys.stderr)
            print(f"!! {script.name}: exit status {done.returncode}")
            failed.append(script.name)
        else:
            print(f"-- {script.name}: ok in {time.perf_counter() - start:.1f} s")
    if failed:
        print(f"failed: {', '.join(failed)}")
        return 1
    print(f"all {len(found)} benchmark scripts ran")
    return 0


if __name__ == "__main__":
    sys.exit(main())
