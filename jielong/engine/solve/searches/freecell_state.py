"""The own FreeCell solver's state: columns, free cells and foundations in a
compact form, the safe automatic moves, the state key, the estimates and the
successors of a state (see :mod:`jielong.engine.solve.freecell` for the whole).

Columns are numbered by a :class:`Columns` table as they first appear: the
number of a column with one card more is found from the shorter one's and
the card, of one card less from a list, so a successor's columns are known
without building them.  A state is its key: its free cells' cards in one
small int (:func:`cells_code`, stored as ``-1 - code``), then its eight
column numbers sorted (empty columns first), which ignores the order of
columns and cells and is exact:
equal keys are equal positions (the foundations follow from the cards left,
and a search keeps them beside the key, packed four bits a suit).  So a
successor already seen is dropped on its key alone, before anything else of
it is kept, and a state costs the search one tuple of ints.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from jielong.engine.rules.core import FITS_ON, foundation_heights
from jielong.engine.rules.freecell import FreeCellPosition

_OPPOSITE: Final = ((1, 2), (0, 3), (0, 3), (1, 2))

# A step of a found line, independent of pile indices: (card, kind, target, count)
# with kind "f" foundation, "c" free cell, "e" empty column, "t" onto ``target``.
Step = tuple[int, str, int, int]
State = tuple[tuple[bytes, ...], tuple[int, ...], tuple[int, int, int, int]]
"""A position as columns of bytes, sorted free cells and foundation heights."""
Key = tuple[int, ...]
"""A state's key: its cells' code as ``-1 - code``, then its column numbers
sorted (see :func:`key_of`)."""

_FITS: Final = tuple(t in FITS_ON[c] for c in range(52) for t in range(52))
"""``_FITS[card * 52 + target]``: the card may lie on the target in a column."""


def column_facts(col: bytes) -> tuple[int, bytes, bytes, int]:
    """What the search needs of one column: the cards lying above a lower
    card; two tables by card, 0 for a card not in the column: how many cards
    lie on it, and how many runs lie on it (the tables run to 56 so that the
    next card of a finished suit, rank 14, reads 0); and the length of the
    ordered run at its end."""
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
    run = 1 if n else 0
    while run < n and _FITS[col[n - run] * 52 + col[n - run - 1]]:
        run += 1
    return buried, bytes(depths), bytes(breaks), run


class Columns:
    """Every column a search has met, numbered; number 0 is the empty column.
    Searches of one position share a table (columns recur across them)."""

    def __init__(self) -> None:
        self.cards: list[bytes] = []
        self.top: list[int] = []
        self.under: list[int] = []
        self.run: list[int] = []
        self.buried: list[int] = []
        self.depths: list[bytes] = []
        self.breaks: list[bytes] = []
        self.pushed: dict[int, int] = {}
        self._add(b"", 0)

    def _add(self, col: bytes, under: int) -> int:
        number = len(self.cards)
        buried, depths, breaks, run = column_facts(col)
        self.cards.append(col)
        self.top.append(col[-1] if col else -1)
        self.under.append(under)
        self.run.append(run)
        self.buried.append(buried)
        self.depths.append(depths)
        self.breaks.append(breaks)
        return number

    def push(self, number: int, card: int) -> int:
        """The column ``number`` with ``card`` laid on it."""
        k = number * 64 + card
        got = self.pushed.get(k, -1)
        if got >= 0:
            return got
        new = self._add(self.cards[number] + bytes((card,)), number)
        self.pushed[k] = new
        return new

    def number(self, col: bytes) -> int:
        n = 0
        for c in col:
            n = self.push(n, c)
        return n


def pack_found(found: Sequence[int]) -> int:
    return found[0] | found[1] << 4 | found[2] << 8 | found[3] << 12


def unpack_found(code: int) -> list[int]:
    return [code & 15, (code >> 4) & 15, (code >> 8) & 15, code >> 12]


def cells_of(code: int) -> list[int]:
    """The cards of a cells' code (see :func:`cells_code`), lowest first."""
    out: list[int] = []
    while code:
        out.append((code & 63) - 1)
        code >>= 6
    return out


def cells_code(cells: Sequence[int]) -> int:
    """The free cells' cards in one small int: each card plus one in six
    bits, the lowest card in the lowest bits, so equal sets of cards have
    equal codes."""
    code = 0
    for c in sorted(cells, reverse=True):
        code = code << 6 | (c + 1)
    return code


def _with_cell(cells: list[int], card: int) -> int:
    """The code of ``cells`` (sorted) with ``card`` added."""
    code = 0
    shift = 0
    for c in cells:
        if card < c and card >= 0:
            code |= (card + 1) << shift
            shift += 6
            card = -1
        code |= (c + 1) << shift
        shift += 6
    if card >= 0:
        code |= (card + 1) << shift
    return code


def _without_cell(cells: list[int], card: int) -> int:
    """The code of ``cells`` (sorted) without ``card``."""
    code = 0
    shift = 0
    for c in cells:
        if c != card:
            code |= (c + 1) << shift
            shift += 6
    return code


def key_of(ids: Sequence[int], cells: int) -> Key:
    """The key of a state: its cells' code as ``-1 - code`` (so that it
    sorts first), then its column numbers, all sorted."""
    return tuple(sorted([-1 - cells, *ids]))


def safe_home(card: int, found: Sequence[int]) -> bool:
    """Whether ``card`` goes home now and can never be needed on the
    tableau again: an ace or a two, or a card whose opposite-colour
    foundations hold one rank below it."""
    r = card >> 2  # cards of its suit already home when it may go up
    if found[card & 3] != r:
        return False
    if r <= 1:
        return True
    a, b = _OPPOSITE[card & 3]
    return found[a] >= r and found[b] >= r


def auto_home(
    table: Columns, ids: list[int], cells: list[int], found: list[int], steps: list[Step] | None
) -> None:
    """Send every safe card home, in place (cells sorted), recording the
    steps in ``steps`` unless it is ``None``."""
    top, under = table.top, table.under
    changed = True
    while changed:
        changed = False
        for i in range(8):
            col = ids[i]
            while col and safe_home(top[col], found):
                c = top[col]
                found[c & 3] += 1
                if steps is not None:
                    steps.append((c, "f", 0, 1))
                col = under[col]
                changed = True
            ids[i] = col
        for c in list(cells):
            if safe_home(c, found):
                found[c & 3] += 1
                cells.remove(c)
                if steps is not None:
                    steps.append((c, "f", 0, 1))
                changed = True


def initial_state(pos: FreeCellPosition) -> State:
    cols = tuple(bytes(col) for col in pos.tableau)
    cells = tuple(sorted(c for c in pos.cells if c is not None))
    return cols, cells, foundation_heights(pos.foundations)


def root_of(
    table: Columns, pos: FreeCellPosition, steps: list[Step] | None
) -> tuple[list[int], list[int], list[int]]:
    """The position's column numbers, sorted cells and foundations, after the
    safe automatic moves."""
    cols, cells, found = initial_state(pos)
    ids = [table.number(c) for c in cols]
    lcells, lfound = list(cells), list(found)
    auto_home(table, ids, lcells, lfound, steps)
    return ids, lcells, lfound


# -- estimates --------------------------------------------------------------------


def _score(left: int, ncells: int, buried: int, depth: int, empty: int, deep: bool) -> int:
    """Lower is closer to a win: cards still out; cards lying above a lower
    card (each must move again); how deep the next card of each suit lies;
    cells in use; empty columns count in favour.  ``deep`` is a second
    opinion for the portfolio: each suit's next card weighs by the runs
    lying on it (those must go elsewhere before it can go home), and the
    room to move runs counts.  The first weighs cards still out and cells
    in use most: the first search of the portfolio then solves the median
    deal of 1..200 in 140 states instead of 249 (weights 3, 2, 1, 1, 2 in
    the order above), its lines no longer, and 600001..600200, never tuned
    on, in 157 instead of 279."""
    if deep:
        room = (5 - ncells) << empty
        return 3 * left + 2 * buried + 3 * depth - min(room, 16)
    return 5 * left + 2 * buried + depth + 4 * ncells - 2 * empty


def estimate_ids(table: Columns, key: Key, code: int, deep: bool) -> int:
    """The estimate of a state given by its key and packed foundations (see
    :func:`_score`)."""
    f0, f1, f2, f3 = code & 15, (code >> 4) & 15, (code >> 8) & 15, code >> 12
    n0, n1, n2, n3 = f0 * 4, f1 * 4 + 1, f2 * 4 + 2, f3 * 4 + 3
    tables = table.breaks if deep else table.depths
    buried_of = table.buried
    buried = 0
    depth = 0
    empty = 0
    for i in range(1, 9):
        col = key[i]
        if not col:
            empty += 1
            continue
        buried += buried_of[col]
        t = tables[col]
        depth += t[n0] + t[n1] + t[n2] + t[n3]
    ncells = 0
    code = -1 - key[0]
    while code:
        ncells += 1
        code >>= 6
    return _score(52 - f0 - f1 - f2 - f3, ncells, buried, depth, empty, deep)


def estimate(cols: Sequence[bytes], cells: Sequence[int], found: Sequence[int]) -> int:
    """The search's estimate of a position given as in :func:`initial_state`."""
    buried = 0
    depth = 0
    empty = 0
    n = [found[s] * 4 + s for s in range(4)]
    for col in cols:
        if not col:
            empty += 1
            continue
        b, depths, _, _ = column_facts(col)
        buried += b
        depth += depths[n[0]] + depths[n[1]] + depths[n[2]] + depths[n[3]]
    return _score(52 - sum(found), len(cells), buried, depth, empty, False)


# -- successors -------------------------------------------------------------------


def _move(table: Columns, src: int, dst: int, k: int) -> tuple[int, int]:
    """Columns ``src`` and ``dst`` after ``k`` cards go from one to the other."""
    col = table.cards[src]
    n = len(col)
    for x in range(n - k, n):
        dst = table.push(dst, col[x])
    under = table.under
    for _ in range(k):
        src = under[src]
    return src, dst


KINDS: Final = "fcet"
"""The kinds of step, numbered in a step's code (see :func:`step_code`)."""


def step_code(card: int, kind: int, target: int, k: int) -> int:
    """A step packed in an int: card, kind (index in :data:`KINDS`), target
    card and count, six, two, six and eight bits."""
    return card | kind << 6 | target << 8 | k << 14


def step_of(code: int) -> Step:
    return (code & 63, KINDS[(code >> 6) & 3], (code >> 8) & 63, code >> 14)


class Successors:
    """Where an expansion puts the new successors: their keys, foundations
    packed, and links (``base`` with the step's code, :func:`step_code`),
    each list appended to, in the same order; a search passes its own."""

    def __init__(self, keys: list[Key], found: list[int], links: list[int]) -> None:
        self.keys = keys
        self.found = found
        self.links = links
        self.base = 0


def _emit(
    table: Columns,
    seen: set[Key],
    out: Successors,
    nc: list[int],
    found: list[int],
    step: int,
    src: int,
) -> None:
    """Add a successor (``nc`` laid out as a key, unsorted) unless its key
    was seen: the check comes right after the automatic moves, before
    anything of the state is kept, since many successors are duplicates.
    The parent had no safe card left, and a move other than to a foundation
    only exposes its source column's new end (at ``src`` in ``nc``), so
    only then is a full pass of automatic moves needed."""
    if (step >> 6) & 3 == 0 or (src > 0 and nc[src] and safe_home(table.top[nc[src]], found)):
        found = list(found)
        cells = cells_of(-1 - nc[0])
        cols = nc[1:]
        auto_home(table, cols, cells, found, None)
        nc = [-1 - cells_code(cells), *cols]
    nc.sort()
    ck = tuple(nc)  # copies the ints as they are (no unboxing and boxing)
    if ck in seen:
        return
    seen.add(ck)
    out.keys.append(ck)
    out.found.append(pack_found(found))
    out.links.append(out.base | step)


def expand(
    table: Columns, seen: set[Key], macros: bool, key: Key, code: int, out: Successors
) -> None:
    """Put in ``out`` the successors of a state (after auto-moves) whose keys
    are not in ``seen``, in a fixed order, entering each key in ``seen`` at
    once.  The columns are taken in the order of the key.  Macros move a
    whole run through free cells and empty columns as one step."""
    fits = _FITS
    top, runs, cards, under = table.top, table.run, table.cards, table.under
    ids = list(key)  # the cells' code, then the columns from 1, empty ones first
    found = unpack_found(code)
    cells = cells_of(-1 - ids[0])
    nfree = 4 - len(cells)
    e = 1
    while e < 9 and not ids[e]:
        e += 1
    ne = e - 1  # empty columns, at 1..ne
    cap_card = (nfree + 1) << ne if macros else 1
    cap_empty = ((nfree + 1) << (ne - 1)) if macros and ne else (1 if ne else 0)
    tops = [-1] * 9  # the columns' last cards, read once
    for i in range(e, 9):
        tops[i] = top[ids[i]]
    for i in range(e, 9):
        col = ids[i]
        t0 = tops[i]
        if found[t0 & 3] == t0 >> 2:
            nc = ids.copy()
            nc[i] = under[col]
            nf = list(found)
            nf[t0 & 3] += 1
            _emit(table, seen, out, nc, nf, step_code(t0, 0, 0, 1), i)
        run = runs[col] if macros else 1
        rank = t0 >> 2
        body = cards[col]
        for j in range(e, 9):
            t = tops[j]
            k = (t >> 2) - rank
            if 1 <= k <= run and k <= cap_card and j != i and fits[body[-k] * 52 + t]:
                target = ids[j]
                nc = ids.copy()
                if k == 1:
                    nc[i] = under[col]
                    nc[j] = table.push(target, t0)
                else:
                    nc[i], nc[j] = _move(table, col, target, k)
                _emit(table, seen, out, nc, found, step_code(body[-k], 3, t, k), i)
        if ne and len(body) > 1:
            for k in range(1, min(run, cap_empty, len(body) - 1) + 1):
                nc = ids.copy()
                nc[i], nc[1] = _move(table, col, 0, k)
                _emit(table, seen, out, nc, found, step_code(body[-k], 2, 0, k), i)
        if nfree:
            nc = ids.copy()
            nc[i] = under[col]
            nc[0] = -1 - _with_cell(cells, t0)
            _emit(table, seen, out, nc, found, step_code(t0, 1, 0, 1), i)
    for c in cells:
        rest = -1 - _without_cell(cells, c)
        if found[c & 3] == c >> 2:
            nc = ids.copy()
            nc[0] = rest
            nf = list(found)
            nf[c & 3] += 1
            _emit(table, seen, out, nc, nf, step_code(c, 0, 0, 1), -1)
        for j in range(e, 9):
            t = tops[j]
            if fits[c * 52 + t]:
                nc = ids.copy()
                nc[0] = rest
                nc[j] = table.push(ids[j], c)
                _emit(table, seen, out, nc, found, step_code(c, 3, t, 1), -1)
        if ne:
            nc = ids.copy()
            nc[0] = rest
            nc[1] = table.push(0, c)
            _emit(table, seen, out, nc, found, step_code(c, 2, 0, 1), -1)


def apply_step(
    table: Columns, ids: list[int], cells: list[int], found: list[int], step: Step
) -> list[Step]:
    """Play one search step on a state in place, as :func:`expand` made it,
    with the automatic moves after it: the step and those moves."""
    card, kind, target, k = step
    cards = table.cards
    src = -1
    for i in range(8):
        col = cards[ids[i]]
        if len(col) >= k and col[-k] == card:
            src = i
    if kind == "f":
        if src >= 0:
            ids[src] = table.under[ids[src]]
        else:
            cells.remove(card)
        found[card & 3] += 1
    elif kind == "c":
        ids[src] = table.under[ids[src]]
        cells.append(card)
        cells.sort()
    else:
        if kind == "e":
            dst = ids.index(0)
        else:
            dst = next(i for i in range(8) if ids[i] and table.top[ids[i]] == target)
        if src >= 0:
            ids[src], ids[dst] = _move(table, ids[src], ids[dst], k)
        else:
            cells.remove(card)
            ids[dst] = table.push(ids[dst], card)
    steps = [step]
    if kind == "f" or (src >= 0 and ids[src] and safe_home(table.top[ids[src]], found)):
        auto_home(table, ids, cells, found, steps)
    return steps
