"""One entry point to every solver, by variant."""

from __future__ import annotations

from typing import Any, Literal

from jielong.rules.registry import rules_for
from jielong.rules.variants import get_variant
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
    variant = get_variant(variant_id)
    rules = rules_for(variant_id)
    if variant.family == "freecell":
        if solver == "fcsolve":
            from jielong.solve.fcsolve import solve as fcsolve_solve

            return fcsolve_solve(rules, position, max_nodes=max_nodes, max_seconds=max_seconds)
        from jielong.solve.freecell import solve as freecell_solve

        return freecell_solve(rules, position, max_nodes=max_nodes, max_seconds=max_seconds)
    from jielong.rules.klondike import Klondike
    from jielong.solve.klondike import solve as klondike_solve

    assert isinstance(rules, Klondike)
    return klondike_solve(rules, position, max_nodes=max_nodes, max_seconds=max_seconds)
