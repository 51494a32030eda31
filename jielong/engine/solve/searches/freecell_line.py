"""The own FreeCell solver's line on the real position: search steps expanded
into the rules' single-card moves, loops cut, the replay check and the length
counted by hand."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Final

from jielong.engine.rules.core import Move, Pile, cell, foundation, tableau
from jielong.engine.rules.freecell import FreeCell, FreeCellPosition
from jielong.engine.solve.result import SolverError, without_circles
from jielong.engine.solve.searches.freecell_state import Step

_T: Final = tuple(tableau(i) for i in range(8))
_C: Final = tuple(cell(i) for i in range(4))
_NONE: Final = 255


def run_moves(
    k: int, src: Pile, dst: int, free: Sequence[int], empties: Sequence[int]
) -> list[Move]:
    """Single-card moves taking ``k`` cards from ``src`` onto column ``dst``
    through the free cells ``free`` and empty columns ``empties`` (neither
    ``src`` nor ``dst``): at most (f + 1) * 2**e cards."""
    if k <= len(free) + 1:
        parked = list(free[: k - 1])
        return (
            [Move(src, _C[c]) for c in parked]
            + [Move(src, _T[dst])]
            + [Move(_C[c], _T[dst]) for c in reversed(parked)]
        )
    if not empties:
        raise SolverError(f"a run of {k} cannot move with {len(free)} free cells")
    spare, rest = empties[0], empties[1:]
    top = min((len(free) + 1) << len(rest), k - 1)
    return (
        run_moves(top, src, spare, free, rest)
        + run_moves(k - top, src, dst, free, rest)
        + run_moves(top, _T[spare], dst, free, rest)
    )


class Board:
    """A real position in bytes (an empty free cell reads 255) and a list of
    foundation tops (-1 for none), to turn a line's steps into moves without
    making a position for each move."""

    def __init__(self, pos: FreeCellPosition) -> None:
        self.cols = [bytearray(col) for col in pos.tableau]
        self.cells = bytearray(_NONE if c is None else c for c in pos.cells)
        self.found = [-1 if f is None else int(f) for f in pos.foundations]

    def play(self, move: Move) -> None:
        """Play a single-card move (one the rules allow: they judge the line)."""
        src, dst = move.src, move.dst
        if src.kind == "tableau":
            card = self.cols[src.index].pop()
        else:
            card = self.cells[src.index]
            self.cells[src.index] = _NONE
        if dst.kind == "tableau":
            self.cols[dst.index].append(card)
        elif dst.kind == "cell":
            self.cells[dst.index] = card
        else:
            self.found[dst.index] = card

    def key(self) -> bytes:
        """Equal for equal tableaus and free cells: along one line, equal
        positions (the cards at home are the rest, and go there for good)."""
        return bytes(self.cells) + b"\xff".join(self.cols)


def _slot(by_suit: bool, found: Sequence[int], card: int) -> int:
    if by_suit:
        return card & 3
    for i, top in enumerate(found):
        if (top < 0 and card < 4) or (top >= 0 and top + 4 == card):
            return i
    raise SolverError(f"no foundation takes card {card}")


def foundation_slot(rules: FreeCell, pos: FreeCellPosition, card: int) -> int:
    """The foundation slot that takes ``card`` now (the first, where any would)."""
    return _slot(rules.by_suit, [-1 if f is None else int(f) for f in pos.foundations], card)


def _step_moves(by_suit: bool, board: Board, step: Step) -> list[Move]:
    card, kind, target, k = step
    src: Pile | None = None
    cells = board.cells
    for i in range(len(cells)):
        if cells[i] == card:
            src = _C[i]
    for i, col in enumerate(board.cols):
        if len(col) >= k and col[-k] == card:
            src = _T[i]
    if src is None:
        raise SolverError(f"card {card} is not where the line expects it")
    if kind == "f":
        return [Move(src, foundation(_slot(by_suit, board.found, card)))]
    free = [i for i in range(len(cells)) if cells[i] == _NONE]
    if kind == "c":
        return [Move(src, _C[free[0]])]
    if kind == "e":
        dst = next(i for i, col in enumerate(board.cols) if not col)
    else:
        dst = next(i for i, col in enumerate(board.cols) if col and col[-1] == target)
    empties = [i for i, col in enumerate(board.cols) if not col and i != dst and _T[i] != src]
    return run_moves(k, src, dst, free, empties)


def step_moves(rules: FreeCell, pos: FreeCellPosition, step: Step) -> list[Move]:
    """The single-card moves of one search step on the real position."""
    return _step_moves(rules.by_suit, Board(pos), step)


def steps_to_moves(rules: FreeCell, pos: FreeCellPosition, steps: Sequence[Step]) -> list[Move]:
    board = Board(pos)
    moves: list[Move] = []
    for step in steps:
        for m in _step_moves(rules.by_suit, board, step):
            board.play(m)
            moves.append(m)
    return moves


def line_moves(rules: FreeCell, pos: FreeCellPosition, steps: Sequence[Step]) -> list[Move]:
    """The search's steps as single-card moves on the real position, every
    stretch that comes back to a position already seen cut out.  The rules
    judge the line afterwards
    (:func:`replay_check`)."""
    board = Board(pos)
    return without_circles(board.key(), _played(rules.by_suit, board, steps))


def _played(by_suit: bool, board: Board, steps: Sequence[Step]) -> Iterator[tuple[Move, bytes]]:
    """Each single-card move of ``steps``, played on ``board``, with the
    key of the position it leads to."""
    for step in steps:
        for m in _step_moves(by_suit, board, step):
            board.play(m)
            yield m, board.key()


def replay_check(rules: FreeCell, pos: FreeCellPosition, moves: Sequence[Move]) -> bool:
    """True when the rules accept every move in the position it is played on
    and the last position is won.  (The rules' ``explain`` judges one move
    as their ``legal_moves`` list does, a property the suite tests, without
    listing all of them at every step.)"""
    for m in moves:
        if rules.explain(pos, m) is not None:
            return False
        pos = rules.play(pos, m)
    return bool(rules.is_won(pos))


def run_move_length(rules: FreeCell, pos: FreeCellPosition, moves: Sequence[Move]) -> int:
    """The line's length counted by hand: a stretch of single-card moves that
    the rules allow as one run move counts one, each card sent home one."""
    count = 0
    i = 0
    n = len(moves)
    while i < n:
        runs = {rules.play(pos, m): m.count for m in rules.legal_moves(pos) if m.count > 1}
        p = rules.play(pos, moves[i])
        best = i + 1
        best_pos = p
        if runs:
            q = p
            for j in range(i + 1, min(n, i + 60)):
                q = rules.play(q, moves[j])
                if moves[j].dst.kind == "foundation":
                    break
                if q in runs:
                    best, best_pos = j + 1, q
        count += 1
        pos = best_pos
        i = best
    return count
