"""The compiled copies of the Klondike solver's modules
(``scripts/build_native.py``) answer exactly as the plain Python modules, and
are used only when they were built from the current sources."""

from __future__ import annotations

import importlib
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from klondike_brute import rules
from solver_checks import playout

from jielong.engine import native as compiled_copies
from jielong.engine.solve import klondike as K
from jielong.engine.solve.result import CarriedDeal

try:
    native = {
        p: importlib.import_module(f"{compiled_copies.PACKAGE}.{compiled_copies.PREFIX}{p}")
        for p in K.PARTS
    }
except ImportError:
    native = None

needs_native = pytest.mark.skipif(
    native is None, reason="compiled solver not built (scripts/build_native.py)"
)


@needs_native
def test_the_compiled_copy_comes_from_this_source_and_is_exported() -> None:
    assert native is not None
    for module in native.values():
        assert K.source_sha256() == module.SOURCE_SHA256
    for name, plain in K.PLAIN.items():
        assert getattr(K, name) is getattr(native[K.ENTRY_POINTS[name]], name) is not plain


@needs_native
@pytest.mark.parametrize("draw", [1, 3])
def test_compiled_and_plain_win_searches_agree_move_for_move(draw: int) -> None:
    r = rules(draw)
    for number in range(1, 9):
        pos = r.deal(number)
        plain = K.PLAIN["find_win"](r, pos, max_nodes=3_000)
        compiled = K.find_win(r, pos, max_nodes=3_000)
        assert (compiled.status, compiled.moves, compiled.nodes) == (
            plain.status,
            plain.moves,
            plain.nodes,
        )


@needs_native
@pytest.mark.parametrize("draw", [1, 3])
def test_compiled_and_plain_hints_agree(draw: int) -> None:
    r = rules(draw)
    for seed in range(4):
        pos = playout(r, 1 + seed, 20 + 30 * seed, seed)
        # CPU time: a busy machine must not cut the slower plain search short
        plain = K.PLAIN["hint"](r, pos, max_seconds=300, clock=time.process_time)
        compiled = K.hint(r, pos, max_seconds=300, clock=time.process_time)
        assert (compiled.kind, compiled.move) == (plain.kind, plain.move)
        if plain.kind != "solver" or not pos.all_revealed():
            assert compiled.line == plain.line


@needs_native
def test_compiled_and_plain_hints_agree_along_a_followed_plan() -> None:
    # each hint goes on with the deals the last one handed on, and keeps its plan
    r = rules(3)
    pos = playout(r, 2, 35, 1)
    plain_carry: tuple[CarriedDeal, ...] = ()
    compiled_carry: tuple[CarriedDeal, ...] = ()
    for _ in range(3):
        plain = K.PLAIN["hint"](
            r, pos, max_seconds=300, clock=time.process_time, carried=plain_carry
        )
        compiled = K.hint(r, pos, max_seconds=300, clock=time.process_time, carried=compiled_carry)
        assert (compiled.kind, compiled.move, compiled.line) == (plain.kind, plain.move, plain.line)
        assert compiled.carry == plain.carry
        assert plain.move is not None
        pos, plain_carry, compiled_carry = r.play(pos, plain.move), plain.carry, compiled.carry


@needs_native
def test_a_search_in_a_thread_lets_the_other_threads_run() -> None:
    """Compiled code keeps the GIL unless it gives it up: a server's
    background search must leave its request threads running."""
    r = rules(3)
    worker = threading.Thread(
        target=K.find_win, args=(r, r.deal(54)), kwargs={"max_nodes": 100_000}
    )
    ticks = 0
    worker.start()
    while worker.is_alive():
        ticks += 1
        time.sleep(0.001)
    worker.join()
    assert ticks >= 20


@needs_native
def test_an_edited_source_does_not_use_a_stale_compiled_copy(tmp_path: Path) -> None:
    """In a copy of the package the compiled module is used; once the
    solver's text differs from the one it was built from, the plain
    functions are."""
    package = Path(K.__file__).parent.parent.parent
    shutil.copytree(package, tmp_path / "jielong", ignore=shutil.ignore_patterns("__pycache__"))
    code = (
        "from jielong.engine.solve import klondike as K; "
        f"assert K.__file__.startswith({str(tmp_path)!r}), K.__file__; "
        "print(all(getattr(K, n) is f for n, f in K.PLAIN.items()))"
    )

    def plain_in_copy() -> str:
        out = subprocess.run(
            [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True
        )
        return out.stdout.strip()

    assert plain_in_copy() == "False"
    solver = tmp_path / "jielong" / "engine" / "solve" / "searches" / "klondike_relax.py"
    solver.write_text(solver.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    assert plain_in_copy() == "True"
