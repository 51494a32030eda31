"""The own FreeCell solver: best-first search over single-card moves.

The search works on a compact state of its own: columns are ``bytes`` (one
card per byte, bottom first), free cells a sorted tuple, foundations four
counts by suit.  A state's key sorts the columns and the cells, so the order
of columns and of free cells does not matter.  After every move, cards that
can never be needed on the tableau again go home automatically (the safe
rule: a card of rank r whose opposite-colour foundations hold r - 1 or more,
and every ace and two); this never turns a winnable state into a lost one, so
a search that runs out of states proves the position unsolvable.

Besides single-card moves the search may move a whole run through free cells
and empty columns as one step (a macro); macros are compositions of
single-card moves, so they add shortcuts without changing which states are
reachable.  Solutions are expanded into single-card :class:`Move`\\ s on the
real position, foundation moves included, and checked by replaying them
through the rules before they are returned.

:func:`solve` runs a portfolio: searches with different weightings of the
moves made, tie orders and heuristics take turns of growing length, each
resuming where it paused, so a deal that is hard for one of them costs a few
times what the best of them needs rather than every budget in a row.

The code lies in three modules of :mod:`jielong.engine.solve.searches`,
compiled together by ``scripts/build_native.py``: ``freecell_state`` (the
state and its successors), ``freecell_search`` (the searches and the
portfolio) and ``freecell_line`` (lines on the real position).  This module
exports their entry points, the compiled ones when they were built from
these very sources.
"""

from __future__ import annotations

from collections.abc import Callable

from jielong.engine import native
from jielong.engine.solve.result import SolverError
from jielong.engine.solve.searches.freecell_line import (
    foundation_slot,
    replay_check,
    run_move_length,
    run_moves,
    step_moves,
    steps_to_moves,
)
from jielong.engine.solve.searches.freecell_search import Proof, Search, prove, search, solve
from jielong.engine.solve.searches.freecell_state import (
    Columns,
    State,
    Step,
    estimate,
    initial_state,
)

__all__ = [
    "Columns",
    "Proof",
    "Search",
    "SolverError",
    "State",
    "Step",
    "estimate",
    "foundation_slot",
    "initial_state",
    "prove",
    "replay_check",
    "run_move_length",
    "run_moves",
    "search",
    "solve",
    "step_moves",
    "steps_to_moves",
]

PARTS = native.GROUPS["freecell"]
"""The modules of the solver, compiled together by ``scripts/build_native.py``."""

ENTRY_POINTS = {
    "solve": "freecell_search",
    "search": "freecell_search",
    "prove": "freecell_search",
    "Search": "freecell_search",
    "Proof": "freecell_search",
    "estimate": "freecell_state",
    "initial_state": "freecell_state",
}
"""Each entry point and the module that defines it."""

PLAIN: dict[str, Callable[..., object]] = {
    "solve": solve,
    "search": search,
    "prove": prove,
    "Search": Search,
    "Proof": Proof,
    "estimate": estimate,
    "initial_state": initial_state,
}
"""The entry points as plain Python, whichever ones the module exports."""


def source_sha256() -> str:
    """The SHA-256 of the solver's modules, in the order of :data:`PARTS`."""
    return native.source_sha256("freecell")


# the compiled copies' entry points (the same code, several times faster) in
# place of the plain ones, when they were built from these very sources
native.use_compiled("freecell", ENTRY_POINTS, globals())
