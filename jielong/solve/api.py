"""One entry point to every solver, by variant."""

from __future__ import annotations

from typing import Any, Literal

from jielong.rules.freecell import FreeCell
from jielong.rules.klondike import Klondike
from jielong.rules.registry import rules_for
from jielong.solve import fcsolve, freecell, klondike
from jielong.solve.result import SolveResult

SolverName = Literal["own", "fcsolve"]


def solve(
    variant_id: str,
    position: Any,
    *,
    max_nodes: int | None = None,
    max_seconds: float | None = None,
    solver: SolverName = "own",
) -> SolveResult:
    """Solve ``position`` of ``variant_id`` within the budget."""
    rules = rules_for(variant_id)
    if isinstance(rules, FreeCell):
        if solver == "fcsolve":
            return fcsolve.solve(rules, position, max_nodes=max_nodes, max_seconds=max_seconds)
        return freecell.solve(rules, position, max_nodes=max_nodes, max_seconds=max_seconds)
    assert isinstance(rules, Klondike)
    return klondike.solve(rules, position, max_nodes=max_nodes, max_seconds=max_seconds)


def thoughtful(position: Any) -> bool:
    """Whether a verdict on ``position`` is "thoughtful": a Klondike position
    with cards face down (in the piles or the stock), which the solvers see
    and a player does not.  The verdict holds for the cards as they lie."""
    hidden = getattr(position, "hidden", None)
    return hidden is not None and (any(hidden) or bool(position.stock))
