"""Freecell Solver, in-process through the ``freecell_solver`` binding.

Its moves arrive as 4-byte records (kind, source, destination, count) with
columns and free cells numbered as in the board text we give it; they are
translated into the rules' single-card :class:`Move`\\ s (a run move is
expanded through free cells and empty columns) and replayed through the rules
before anything is returned.

The fast preset ``lg`` is not a proof: when it gives up or calls a position
unsolvable, the exhaustive atomic-move preset ``cn`` decides.  When the
library is missing, :func:`available` is false and :func:`solve` raises
:class:`FcsolveUnavailable`.
"""

from __future__ import annotations

import atexit
import time
from functools import cache
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from typing_extensions import Buffer

from jielong.engine.rules.core import Move, cell, foundation, foundation_heights, tableau
from jielong.engine.rules.freecell import FreeCell, FreeCellPosition
from jielong.engine.solve.freecell import foundation_slot, replay_check, run_moves
from jielong.engine.solve.result import SolverError, SolveResult, Status

FAST = "lg"
EXHAUSTIVE = "cn"
_CHUNK = 20_000  # iterations between deadline checks


class FcsolveUnavailable(RuntimeError):
    """The ``freecell_solver`` binding or its shared library is not installed."""


@cache
def available() -> bool:
    try:
        _solver(FAST)
    except FcsolveUnavailable:
        return False
    return True


class _Ffi(Protocol):
    def buffer(self, cdata: object, size: int, /) -> Buffer: ...


class _Binding(Protocol):
    """What this module uses of the ``freecell_solver`` binding's solver
    (the library has no type hints)."""

    ffi: _Ffi

    def input_cmd_line(self, args: list[str], /) -> object: ...

    def recycle(self) -> None: ...

    def limit_iterations(self, limit: int, /) -> None: ...

    def solve_board(self, text: str, /) -> int: ...

    def resume_solution(self) -> int: ...

    def get_next_move(self) -> object | None: ...

    def get_num_times(self) -> int: ...


_SOLVERS: dict[str, _Binding] = {}
# Free the kept solvers while the binding still works: left to the interpreter's
# shutdown, their finalizers may run after cffi's own state is gone.
atexit.register(_SOLVERS.clear)


def _solver(preset: str) -> _Binding:
    fcs = _SOLVERS.get(preset)
    if fcs is not None:
        fcs.recycle()
        return fcs
    try:
        from freecell_solver import FreecellSolver

        made: _Binding = FreecellSolver()
    except (ImportError, OSError) as e:
        raise FcsolveUnavailable(str(e)) from None
    made.input_cmd_line(["-l", preset])
    _SOLVERS[preset] = made
    return made


def board_text(pos: FreeCellPosition) -> str:
    """The position in Freecell Solver's text, cells and columns in our order."""
    found = foundation_heights(pos.foundations)
    ranks = "0A23456789TJQK"
    lines = ["Foundations: " + " ".join(f"{s}-{ranks[found[i]]}" for i, s in enumerate("CDHS"))]
    lines.append("Freecells: " + " ".join("-" if c is None else c.code() for c in pos.cells))
    for col in pos.tableau:
        lines.append(": " + " ".join(c.code() for c in col))
    return "\n".join(lines) + "\n"


def translate(rules: FreeCell, pos: FreeCellPosition, records: list[bytes]) -> list[Move]:
    """Freecell Solver's move records as the rules' single-card moves."""
    out: list[Move] = []
    for rec in records:
        kind, src, dst, n = rec[0], rec[1], rec[2], rec[3]
        if kind == 3:  # free cell to free cell changes nothing
            continue
        moves: list[Move]
        if kind == 0:
            empties = [i for i, c in enumerate(pos.tableau) if not c and i not in (src, dst)]
            free = [i for i, c in enumerate(pos.cells) if c is None]
            moves = run_moves(max(n, 1), tableau(src), dst, free, empties)
        elif kind == 1:
            target = dst if pos.cells[dst] is None else pos.cells.index(None)
            moves = [Move(tableau(src), cell(target))]
        elif kind == 2:
            moves = [Move(cell(src), tableau(dst))]
        elif kind == 4:
            card = pos.tableau[src][-1]
            moves = [Move(tableau(src), foundation(foundation_slot(rules, pos, card)))]
        elif kind == 5:
            card_or_none = pos.cells[src]
            if card_or_none is None:
                raise SolverError("Freecell Solver moved from an empty free cell")
            moves = [Move(cell(src), foundation(foundation_slot(rules, pos, card_or_none)))]
        else:
            raise SolverError(f"unknown Freecell Solver move kind {kind}")
        for m in moves:
            pos = rules.play(pos, m)
            out.append(m)
    return out


def _run(
    preset: str, text: str, max_nodes: int | None, deadline: float | None
) -> tuple[int, list[bytes], int]:
    """(return code, move records, iterations): 0 solved, 1 unsolvable, 5 cut off."""
    fcs = _solver(preset)
    limit = min(max_nodes, _CHUNK) if max_nodes is not None else _CHUNK
    fcs.limit_iterations(limit)
    ret = fcs.solve_board(text)
    while ret == 5:
        if max_nodes is not None and limit >= max_nodes:
            break
        if deadline is not None and time.monotonic() > deadline:
            break
        limit = limit * 2 if max_nodes is None else min(limit * 2, max_nodes)
        fcs.limit_iterations(limit)
        ret = fcs.resume_solution()
    records: list[bytes] = []
    if ret == 0:
        while True:
            m = fcs.get_next_move()
            if m is None:
                break
            records.append(bytes(fcs.ffi.buffer(m, 4)))
    return ret, records, int(fcs.get_num_times())


def solve(
    rules: object,
    position: object,
    *,
    max_nodes: int | None = None,
    max_seconds: float | None = None,
    proof: bool = True,
) -> SolveResult:
    """Solve with ``lg``; when that does not find a line and ``proof`` is set,
    let the exhaustive ``cn`` decide (the only source of ``unsolvable``)."""
    if not isinstance(rules, FreeCell) or not isinstance(position, FreeCellPosition):
        raise TypeError("Freecell Solver takes FreeCell rules and a FreeCell position")
    start = time.monotonic()
    deadline = None if max_seconds is None else start + max_seconds
    status, records, nodes, _ = _decide(board_text(position), max_nodes, deadline, proof)
    moves: tuple[Move, ...] = ()
    if status == "solved":
        moves = tuple(translate(rules, position, records))
        if not replay_check(rules, position, list(moves)):
            raise SolverError("Freecell Solver's line does not replay through the rules")
    return SolveResult(status, moves, nodes, time.monotonic() - start, "fcsolve")


def verdict(
    position: FreeCellPosition,
    *,
    max_nodes: int | None = None,
    max_seconds: float | None = None,
    proof: bool = True,
) -> tuple[str, int, int, str]:
    """Only the verdict, for surveys: (status, solution length in Freecell
    Solver's own count, iterations, preset that decided).  Nothing is
    translated, so this runs at the library's speed."""
    deadline = None if max_seconds is None else time.monotonic() + max_seconds
    status, records, nodes, preset = _decide(board_text(position), max_nodes, deadline, proof)
    return status, len(records), nodes, preset


def _decide(
    text: str, max_nodes: int | None, deadline: float | None, proof: bool
) -> tuple[Status, list[bytes], int, str]:
    """``lg`` first; when it finds no line and ``proof`` is set, the
    exhaustive ``cn``, the only source of ``unsolvable``.  Returns the status,
    the move records of a solution, the iterations and the last preset run."""
    nodes = 0
    preset = FAST
    for preset in (FAST, EXHAUSTIVE) if proof else (FAST,):
        ret, records, n = _run(preset, text, max_nodes, deadline)
        nodes += n
        if ret == 0:
            return "solved", records, nodes, preset
        if ret == 1 and preset == EXHAUSTIVE:
            return "unsolvable", [], nodes, preset
        if deadline is not None and time.monotonic() > deadline:
            break
    return "unknown", [], nodes, preset
