"""A hint and a position's analysis as answers: the data the page reads,
the same whether the server's pool or the browser's worker computed it."""

from __future__ import annotations

from jielong.engine.rules.core import Move
from jielong.engine.rules.registry import Position
from jielong.engine.rules.variants import get_variant
from jielong.engine.solve import api, fcsolve
from jielong.engine.solve.result import Hint, SolveResult

LINE_PREVIEW = 20
"""Moves of the solver's line sent after the hint's own move (more when the
line starts with a longer run of stock clicks: the page counts them)."""


def preview(line: tuple[Move, ...]) -> tuple[Move, ...]:
    """The start of ``line``: :data:`LINE_PREVIEW` moves, or its leading run
    of stock clicks whole and the move after it (the page says "click the
    stock n times, then ...")."""
    clicks = 0
    while clicks < len(line) and "stock" in (line[clicks].src.kind, line[clicks].dst.kind):
        clicks += 1
    return line[: max(LINE_PREVIEW, clicks + 1)]


def hint_json(hint: Hint) -> dict[str, object]:
    """The hint as JSON-ready data."""
    return {
        "kind": hint.kind,
        "move": None if hint.move is None else hint.move.to_json(),
        # the start of the line is enough to preview; a whole solution can
        # run to hundreds of moves
        "line": [m.to_json() for m in preview(hint.line)],
        # the single-card moves that carry a run "move" (see Hint.steps)
        "steps": [m.to_json() for m in hint.steps],
        "source": hint.source,
        "win_chance": hint.win_chance,
        "samples": hint.samples,
        "decided": hint.decided,
        # the next best moves of a sampled hint, for a second press
        "others": [{"move": m.to_json(), "won": won, "of": of} for m, won, of in hint.others],
    }


def solver_json(r: SolveResult) -> dict[str, object]:
    return {
        "solver": r.solver,
        "status": r.status,
        "length": len(r.moves),
        "seconds": round(r.seconds, 3),
    }


def analyse(variant_id: str, position: Position, seconds: float) -> dict[str, object]:
    """Run in a worker: every installed solver's verdict on ``position``; the
    shortest line found, or a proof that none exists."""
    results = [api.solve(variant_id, position, max_seconds=seconds)]
    if get_variant(variant_id).family == "freecell" and fcsolve.available():
        results.append(api.solve(variant_id, position, max_seconds=seconds, solver="fcsolve"))
    solved = [r for r in results if r.status == "solved"]
    best = min(solved, key=lambda r: len(r.moves)) if solved else None
    if best is not None:
        status = "solved"
    elif any(r.status == "unsolvable" for r in results):
        status = "unsolvable"  # an exhaustive search: a proof
    else:
        status = "unknown"
    moves = [] if best is None else [m.to_json() for m in best.moves]
    return {
        "status": status,
        "length": len(moves),
        "moves": moves,
        "solver": None if best is None else best.solver,
        "solvers": [solver_json(r) for r in results],
    }
