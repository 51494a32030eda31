"""The own FreeCell solver's state: columns, free cells and foundations in a
compact form, the safe automatic moves, the state key, the estimates and the
successors of a state (see :mod:`jielong.solve.freecell` for the whole)."""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence

from jielong.rules.core import FITS_ON, foundation_heights
from jielong.rules.freecell import FreeCellPosition

_OPPOSITE = ((1, 2), (0, 3), (0, 3), (1, 2))
_SEP = b"\xff"

# A step of a found line, independent of pile indices: (card, kind, target, count)
# with kind "f" foundation, "c" free cell, "e" empty column, "t" onto ``target``.
Step = tuple[int, str, int, int]
State = tuple[tuple[bytes, ...], tuple[int, ...], tuple[int, int, int, int]]


def _run_length(col: bytes) -> int:
    """The ordered run at the column's end (a column recurs in many states:
    read from :func:`_column`'s memory)."""
    return _column(col)[2]


def _safe_home(card: int, found: Sequence[int]) -> bool:
    r = card >> 2  # cards of its suit already home when it may go up
    if found[card & 3] != r:
        return False
    if r <= 1:
        return True
    a, b = _OPPOSITE[card & 3]
    return found[a] >= r and found[b] >= r


def auto_home(cols: list[bytes], cells: list[int], found: list[int], steps: list[Step]) -> None:
    """Send every safe card home, in place."""
    changed = True
    while changed:
        changed = False
        for i, col in enumerate(cols):
            while col and _safe_home(col[-1], found):
                c = col[-1]
                found[c & 3] += 1
                steps.append((c, "f", 0, 1))
                col = col[:-1]
                changed = True
            cols[i] = col
        for c in list(cells):
            if _safe_home(c, found):
                found[c & 3] += 1
                cells.remove(c)
                steps.append((c, "f", 0, 1))
                changed = True


def state_key(cols: Sequence[bytes], cells: Sequence[int]) -> bytes:
    return _SEP.join(sorted(cols)) + b"\xfe" + bytes(cells)


def _tally(cols: Sequence[bytes], found: Sequence[int], runs: bool) -> tuple[int, int, int]:
    """What both estimates sum over the columns: cards lying above a lower
    card, the next card of each suit read from one of :func:`_column`'s
    tables (the runs lying on it, or else the cards), and empty columns."""
    n0, n1, n2, n3 = found[0] * 4, found[1] * 4 + 1, found[2] * 4 + 2, found[3] * 4 + 3
    buried = 0
    depth = 0
    empty = 0
    for col in cols:
        if not col:
            empty += 1
            continue
        b, tables, _ = _column(col)
        buried += b
        t = tables[runs]
        depth += t[n0] + t[n1] + t[n2] + t[n3]
    return buried, depth, empty


def estimate(cols: Sequence[bytes], cells: Sequence[int], found: Sequence[int]) -> int:
    """Lower is closer to a win: cards still out; cards lying above a lower
    card (each must move again); how deep the next card of each suit lies;
    cells in use; empty columns count in favour."""
    left = 52 - found[0] - found[1] - found[2] - found[3]
    buried, depth, empty = _tally(cols, found, False)
    return 3 * left + 2 * buried + depth + len(cells) - 2 * empty


def estimate_deep(cols: Sequence[bytes], cells: Sequence[int], found: Sequence[int]) -> int:
    """A second opinion for the portfolio: like :func:`estimate`, but each
    suit's next card weighs by the cards above it that are out of order
    (those must go elsewhere before it can go home), and the room to move
    runs counts."""
    left = 52 - found[0] - found[1] - found[2] - found[3]
    buried, depth, empty = _tally(cols, found, True)
    room = (5 - len(cells)) << empty
    return 3 * left + 2 * buried + 3 * depth - min(room, 16)


@functools.lru_cache(maxsize=1 << 17)
def _column(col: bytes) -> tuple[int, tuple[bytes, bytes], int]:
    """What the search needs of one column, remembered (most columns recur
    in many states): the cards lying above a lower card; two tables by
    card, 0 for a card not in the column: how many cards lie on it, and how
    many runs lie on it (the tables run to 56 so that the next card of a
    finished suit, rank 14, reads 0); and the length of the ordered run at
    its end."""
    low = 99
    buried = 0
    for c in col:
        if c > low:
            buried += 1
        else:
            low = c
    n = len(col)
    depths = bytearray(56)
    breaks = bytearray(56)
    runs = 1  # the runs lying on place i, counted from the top down
    for i in range(n - 2, -1, -1):
        depths[col[i]] = n - 1 - i
        breaks[col[i]] = runs
        if not _FITS[col[i + 1] * 52 + col[i]]:
            runs += 1
    run = 1
    while run < n and _FITS[col[n - run] * 52 + col[n - run - 1]]:
        run += 1
    return buried, (bytes(depths), bytes(breaks)), run


_FITS = tuple(t in FITS_ON[c] for c in range(52) for t in range(52))
"""``_FITS[card * 52 + target]``: the card may lie on the target in a column."""

Child = tuple[list[bytes], list[int], list[int], Step, int]


def children(
    cols: tuple[bytes, ...], cells: tuple[int, ...], found: tuple[int, int, int, int], macros: bool
) -> Iterator[Child]:
    """Every successor before auto-moves: (columns, cells, foundations, step,
    source column or -1)."""
    fits = _FITS
    nfree = 4 - len(cells)
    empties = [i for i, c in enumerate(cols) if not c]
    ne = len(empties)
    cap_card = (nfree + 1) << ne if macros else 1
    cap_empty = ((nfree + 1) << (ne - 1)) if macros and ne else (1 if ne else 0)
    first_empty = empties[0] if empties else -1
    tops = [(j, target[-1]) for j, target in enumerate(cols) if target]
    for i, col in enumerate(cols):
        if not col:
            continue
        top = col[-1]
        if found[top & 3] == top >> 2:
            nc = list(cols)
            nc[i] = col[:-1]
            nf = list(found)
            nf[top & 3] += 1
            yield nc, list(cells), nf, (top, "f", 0, 1), i
        run = _run_length(col) if macros else 1
        rank = top >> 2
        for j, t in tops:
            k = (t >> 2) - rank
            if 1 <= k <= run and k <= cap_card and j != i and fits[col[-k] * 52 + t]:
                nc = list(cols)
                nc[i] = col[:-k]
                nc[j] = cols[j] + col[-k:]
                yield nc, list(cells), list(found), (col[-k], "t", t, k), i
        if first_empty >= 0 and len(col) > 1:
            for k in range(1, min(run, cap_empty, len(col) - 1) + 1):
                nc = list(cols)
                nc[i] = col[:-k]
                nc[first_empty] = col[-k:]
                yield nc, list(cells), list(found), (col[-k], "e", 0, k), i
        if nfree:
            nc = list(cols)
            nc[i] = col[:-1]
            yield nc, sorted((*cells, top)), list(found), (top, "c", 0, 1), i
    for c in cells:
        rest = [x for x in cells if x != c]
        if found[c & 3] == c >> 2:
            nf = list(found)
            nf[c & 3] += 1
            yield list(cols), rest, nf, (c, "f", 0, 1), -1
        for j, t in tops:
            if fits[c * 52 + t]:
                nc = list(cols)
                nc[j] = cols[j] + bytes((c,))
                yield nc, rest, list(found), (c, "t", t, 1), -1
        if first_empty >= 0:
            nc = list(cols)
            nc[first_empty] = bytes((c,))
            yield nc, rest, list(found), (c, "e", 0, 1), -1


def settle(
    nc: list[bytes], ncells: list[int], nf: list[int], step: Step, src: int, steps: list[Step]
) -> None:
    """Auto-moves after one step.  The parent had no safe card left, and a
    move other than to a foundation only exposes its source column's new end,
    so only then is a full pass needed."""
    if step[1] == "f" or (src >= 0 and nc[src] and _safe_home(nc[src][-1], nf)):
        auto_home(nc, ncells, nf, steps)


def initial_state(pos: FreeCellPosition) -> State:
    cols = tuple(bytes(col) for col in pos.tableau)
    cells = tuple(sorted(c for c in pos.cells if c is not None))
    return cols, cells, foundation_heights(pos.foundations)
