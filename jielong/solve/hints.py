"""The hint policy: a real solver within a deadline, else a plausible move.

FreeCell: Freecell Solver first when it is installed, then the own solver with
the time left; when neither answers in time, a heuristic move.  ``unsolvable``
comes only from an exhaustive search, ``none`` when there is no legal move.
Klondike hints come from :func:`jielong.solve.klondike.hint`.

:func:`compute_hint` takes only picklable arguments, so a server may run it in
a process-pool worker and drop the answer when the player moves first.
"""

from __future__ import annotations

import time
from importlib import import_module
from typing import Any

from jielong.rules.freecell import FreeCell, FreeCellPosition
from jielong.rules.variants import get_variant, rules_for
from jielong.solve import freecell as own
from jielong.solve.result import Hint, SolveResult

FCSOLVE_SHARE = 0.4
"""Part of the deadline given to Freecell Solver before the own solver runs."""


def _from_result(result: SolveResult) -> Hint | None:
    if result.status == "solved" and result.moves:
        return Hint("solver", result.moves[0], result.moves[1:], result.solver)
    if result.status == "unsolvable":
        return Hint("unsolvable", None, (), result.solver)
    return None


def heuristic_move(rules: FreeCell, position: FreeCellPosition) -> Hint:
    """The legal move whose result the search's heuristic likes best."""
    legal = rules.legal_moves(position)
    if not legal:
        return Hint("none")
    best = None
    best_score = 0
    for move in legal:
        if move.src.kind == "cell" and move.dst.kind == "cell":
            continue
        cols, cells, found = own.initial_state(rules.play(position, move))
        score = own.estimate(cols, cells, found)
        if best is None or score < best_score:
            best, best_score = move, score
    return Hint("heuristic", best or legal[0], (), "heuristic")


def freecell_hint(
    rules: FreeCell,
    position: FreeCellPosition,
    deadline_seconds: float,
    *,
    use_fcsolve: bool = True,
) -> Hint:
    start = time.monotonic()
    if not rules.legal_moves(position):
        return Hint("none")
    if use_fcsolve:
        from jielong.solve import fcsolve

        if fcsolve.available():
            hint = _from_result(
                fcsolve.solve(rules, position, max_seconds=deadline_seconds * FCSOLVE_SHARE)
            )
            if hint is not None:
                return hint
    left = deadline_seconds - (time.monotonic() - start)
    if left > 0:
        hint = _from_result(own.solve(rules, position, max_seconds=left))
        if hint is not None:
            return hint
    return heuristic_move(rules, position)


def compute_hint(variant_id: str, position: Any, *, deadline_seconds: float) -> Hint:
    """A hint for ``position`` of ``variant_id``, answered within about
    ``deadline_seconds``."""
    variant = get_variant(variant_id)
    rules = rules_for(variant_id)
    if variant.family == "freecell":
        assert isinstance(rules, FreeCell)
        return freecell_hint(rules, position, deadline_seconds)
    # imported by name: the Klondike search lives in its own module
    klondike = import_module("jielong.solve.klondike")
    hint: Hint = klondike.hint(rules, position, max_seconds=deadline_seconds)
    return hint
