"""The hint policy: a real solver within a deadline, else a plausible move.

FreeCell: Freecell Solver first when it is installed, then the own solver with
the time left; when neither answers in time, a heuristic move.  ``unsolvable``
comes only from an exhaustive search, ``none`` when there is no legal move.
Solvers answer in single-card moves; a line that starts by carrying a run
through free cells and empty columns is hinted as that run (a move the hand
may make, or, in a variant whose hint plays on a second click, a run played
by its steps).  Klondike hints come from :func:`jielong.solve.klondike.hint`.

:func:`compute_hint` takes only picklable arguments, so a server may run it in
a process-pool worker and drop the answer when the player moves first.
"""

from __future__ import annotations

import time
from importlib import import_module
from typing import Any

from jielong.rules.core import Move
from jielong.rules.freecell import FreeCell, FreeCellPosition, ordered_run_length
from jielong.rules.variants import get_variant, rules_for
from jielong.solve import freecell as own
from jielong.solve.result import Hint, SolveResult

FCSOLVE_SHARE = 0.4
"""Part of the deadline given to Freecell Solver before the own solver runs."""


RUN_SCAN = 64
"""How many moves at the start of a solver's line are searched for a run."""


def leading_run(
    rules: FreeCell, position: FreeCellPosition, line: tuple[Move, ...]
) -> tuple[Move, int] | None:
    """When ``line`` starts by carrying a run of two or more cards from one
    column onto another (one card at a time, through free cells and empty
    columns, everything else as it was), that run as one move and how many
    of the line's moves carry it: the longest such run, since carrying a
    long run carries shorter ones on the way."""
    if len(line) < 3 or line[0].src.kind != "tableau":
        return None
    a = line[0].src.index
    size = len(position.tableau[a])
    longest = ordered_run_length(position.tableau[a])
    found = None
    pos = position
    for used, move in enumerate(line[:RUN_SCAN], start=1):
        if move.count != 1 or move.dst.kind == "foundation":
            break  # a card gone home never comes back: no run can match after it
        pos = rules.play(pos, move)
        if used < 3 or move.dst.kind != "tableau" or move.dst.index == a:
            continue
        n = size - len(pos.tableau[a])  # the only run that can have left column a
        if 2 <= n <= longest:
            run = Move(line[0].src, move.dst, n)
            if pos == rules.play(position, run):
                found = run, used
    return found


def _from_result(rules: FreeCell, position: FreeCellPosition, result: SolveResult) -> Hint | None:
    if result.status == "solved" and result.moves:
        found = leading_run(rules, position, result.moves)
        if found is not None:
            run, used = found
            rest = result.moves[used:]
            if run in rules.legal_moves(position):
                return Hint("solver", run, rest, result.solver)
            if rules.variant.hint_plays_on_second_click:
                # longer than the hand may move: played by its steps
                return Hint("solver", run, rest, result.solver, steps=result.moves[:used])
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
                rules,
                position,
                fcsolve.solve(rules, position, max_seconds=deadline_seconds * FCSOLVE_SHARE),
            )
            if hint is not None:
                return hint
    left = deadline_seconds - (time.monotonic() - start)
    if left > 0:
        hint = _from_result(rules, position, own.solve(rules, position, max_seconds=left))
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
