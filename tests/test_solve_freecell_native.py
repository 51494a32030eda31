"""The compiled copy of the own FreeCell solver (``scripts/build_native.py``)
answers exactly as the plain Python module, and is used only when it was
built from the current source."""

from __future__ import annotations

import importlib

import pytest

from jielong.engine import native as compiled_copies
from jielong.engine.rules.registry import rules_for
from jielong.engine.solve import freecell as own

try:
    native = {
        p: importlib.import_module(f"{compiled_copies.PACKAGE}.{compiled_copies.PREFIX}{p}")
        for p in own.PARTS
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
        assert own.source_sha256() == module.SOURCE_SHA256
    for name, part in own.ENTRY_POINTS.items():
        assert getattr(own, name) is getattr(native[part], name) is not own.PLAIN[name]


@needs_native
@pytest.mark.parametrize("variant", ["freecell", "kongdang"])
def test_compiled_and_plain_searches_agree_step_for_step(variant: str) -> None:
    rules = rules_for(variant)
    for deal in (1, 617, 11982):
        pos = rules.deal(deal)
        plain, compiled = own.PLAIN["Search"](pos), own.Search(pos)
        assert compiled.run(4_000) == plain.run(4_000)
        assert (compiled.nodes, compiled.steps) == (plain.nodes, plain.steps)
        assert own.prove(pos, max_nodes=3_000) == own.PLAIN["prove"](pos, max_nodes=3_000)
        assert own.solve(rules, pos).moves == own.PLAIN["solve"](rules, pos).moves
