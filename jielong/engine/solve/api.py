"""One entry point to every solver, by variant."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from jielong.engine.families import family_of, family_of_position
from jielong.engine.rules.registry import Position, rules_for
from jielong.engine.solve import fcsolve
from jielong.engine.solve.result import SolveResult

SolverName = Literal["own", "fcsolve"]


def solve(
    variant_id: str,
    position: Position,
    *,
    max_nodes: int | None = None,
    max_seconds: float | None = None,
    solver: SolverName = "own",
    clock: Callable[[], float] | None = None,
) -> SolveResult:
    """Solve ``position`` of ``variant_id`` within the budget (Freecell
    Solver for a FreeCell variant only).  ``clock`` counts ``max_seconds``
    in the Klondike solver (``time.process_time``: CPU seconds); the
    FreeCell solvers count them on ``time.monotonic``."""
    rules = rules_for(variant_id)
    if solver == "fcsolve":
        return fcsolve.solve(rules, position, max_nodes=max_nodes, max_seconds=max_seconds)
    return family_of(variant_id).solve(rules, position, max_nodes, max_seconds, clock)


def thoughtful(position: Position) -> bool:
    """Whether a verdict on ``position`` is "thoughtful": a Klondike position
    with cards face down (in the piles or the stock), which the solvers see
    and a player does not.  The verdict holds for the cards as they lie."""
    return family_of_position(position).thoughtful(position)
