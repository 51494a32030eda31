"""One entry point to every solver, by variant."""

from __future__ import annotations

from typing import Literal

from jielong.engine.rules.freecell import FreeCell, FreeCellPosition
from jielong.engine.rules.klondike import Klondike, KlondikePosition
from jielong.engine.rules.registry import Position, rules_for
from jielong.engine.solve import fcsolve, freecell, klondike
from jielong.engine.solve.result import SolveResult

SolverName = Literal["own", "fcsolve"]


def solve(
    variant_id: str,
    position: Position,
    *,
    max_nodes: int | None = None,
    max_seconds: float | None = None,
    solver: SolverName = "own",
) -> SolveResult:
    """Solve ``position`` of ``variant_id`` within the budget."""
    rules = rules_for(variant_id)
    if isinstance(rules, FreeCell):
        assert isinstance(position, FreeCellPosition)
        if solver == "fcsolve":
            return fcsolve.solve(rules, position, max_nodes=max_nodes, max_seconds=max_seconds)
        return freecell.solve(rules, position, max_nodes=max_nodes, max_seconds=max_seconds)
    assert isinstance(rules, Klondike) and isinstance(position, KlondikePosition)
    return klondike.solve(rules, position, max_nodes=max_nodes, max_seconds=max_seconds)


def thoughtful(position: Position) -> bool:
    """Whether a verdict on ``position`` is "thoughtful": a Klondike position
    with cards face down (in the piles or the stock), which the solvers see
    and a player does not.  The verdict holds for the cards as they lie."""
    if not isinstance(position, KlondikePosition):
        return False
    return any(position.hidden) or bool(position.stock)
