"""The own FreeCell solver: best-first search over single-card moves.

The search works on a compact state of its own: columns are ``bytes`` (one
card per byte, bottom first), free cells a sorted tuple, foundations four
counts by suit.  A state's key sorts the columns and the cells, so the order
of columns and of free cells does not matter.  After every move, cards that
can never be needed on the tableau again go home automatically (the safe
rule: a card of rank r whose opposite-colour foundations hold r - 1 or more,
and every ace and two); this never turns a winnable state into a lost one, so
a search that runs out of states proves the position unsolvable.

Besides single-card moves the search may move a whole run through free cells
and empty columns as one step (a macro); macros are compositions of
single-card moves, so they add shortcuts without changing which states are
reachable.  Solutions are expanded into single-card :class:`Move`\\ s on the
real position, foundation moves included, and checked by replaying them
through the rules before they are returned.

:func:`solve` runs a portfolio: searches with different weightings of the
moves made, tie orders and heuristics take turns of growing length, each
resuming where it paused, so a deal that is hard for one of them costs a few
times what the best of them needs rather than every budget in a row.
"""

from __future__ import annotations

import functools
import hashlib
import heapq
import importlib
import os
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from jielong.rules.core import (
    FITS_ON,
    Move,
    Pile,
    Rules,
    cell,
    foundation,
    foundation_heights,
    tableau,
)
from jielong.rules.freecell import FreeCell, FreeCellPosition
from jielong.solve.result import SolverError, SolveResult

_OPPOSITE = ((1, 2), (0, 3), (0, 3), (1, 2))
_T = tuple(tableau(i) for i in range(8))
_C = tuple(cell(i) for i in range(4))
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


def _auto(cols: list[bytes], cells: list[int], found: list[int], steps: list[Step]) -> None:
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


def _key(cols: Sequence[bytes], cells: Sequence[int]) -> bytes:
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


def _children(
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


def _settle(
    nc: list[bytes], ncells: list[int], nf: list[int], step: Step, src: int, steps: list[Step]
) -> None:
    """Auto-moves after one step.  The parent had no safe card left, and a
    move other than to a foundation only exposes its source column's new end,
    so only then is a full pass needed."""
    if step[1] == "f" or (src >= 0 and nc[src] and _safe_home(nc[src][-1], nf)):
        _auto(nc, ncells, nf, steps)


def initial_state(pos: FreeCellPosition) -> State:
    cols = tuple(bytes(col) for col in pos.tableau)
    cells = tuple(sorted(c for c in pos.cells if c is not None))
    return cols, cells, foundation_heights(pos.foundations)


class Search:
    """A best-first search from ``pos`` that can pause and resume, so that a
    portfolio of searches can take turns without losing work.

    ``weight`` scales the moves made so far in the priority (weighted A*):
    higher gives shorter lines, lower finds them faster.  ``lifo`` breaks ties
    towards the newest state (deeper first) instead of the oldest.
    ``macros=False`` restricts the search to single-card moves.
    """

    def __init__(
        self,
        pos: FreeCellPosition,
        *,
        macros: bool = True,
        weight: float = 0.5,
        lifo: bool = False,
        deep: bool = False,
    ) -> None:
        self.macros = macros
        self.estimate = estimate_deep if deep else estimate
        self.weight = weight
        self.tie = -1 if lifo else 1
        self.nodes = 0
        self.status = "unknown"
        self.steps: list[Step] = []
        cols0, cells0, found0 = initial_state(pos)
        lc, lcells, lf = list(cols0), list(cells0), list(found0)
        self.steps0: list[Step] = []
        _auto(lc, lcells, lf, self.steps0)
        root: State = (tuple(lc), tuple(sorted(lcells)), (lf[0], lf[1], lf[2], lf[3]))
        root_key = _key(root[0], root[1])
        self.parent: dict[bytes, tuple[bytes, tuple[Step, ...]] | None] = {root_key: None}
        self.counter = 0
        self.heap: list[tuple[float, int, bytes, State, int]] = [(0.0, 0, root_key, root, 0)]
        if sum(root[2]) == 52:
            self.status, self.steps, self.heap = "solved", self.steps0, []

    def run(self, max_nodes: int | None = None, deadline: float | None = None) -> str:
        """Expand up to ``max_nodes`` more states (or until ``deadline`` on the
        monotonic clock): the status, ``unknown`` while the search may go on."""
        if self.status != "unknown":
            return self.status
        heap, parent, weight, tie = self.heap, self.parent, self.weight, self.tie
        macros, est = self.macros, self.estimate
        stop = None if max_nodes is None else self.nodes + max_nodes
        while heap:
            if stop is not None and self.nodes >= stop:
                return "unknown"
            if deadline is not None and self.nodes & 255 == 0 and time.monotonic() > deadline:
                return "unknown"
            _, _, key, state, g = heapq.heappop(heap)
            self.nodes += 1
            cols, cells, found = state
            for nc, ncells, nf, step, src in _children(cols, cells, found, macros):
                steps = [step]
                _settle(nc, ncells, nf, step, src, steps)
                ncells.sort()
                ck = _key(nc, ncells)
                if ck in parent:
                    continue
                parent[ck] = (key, tuple(steps))
                if nf[0] + nf[1] + nf[2] + nf[3] == 52:
                    line: list[Step] = []
                    k: bytes | None = ck
                    while k is not None:
                        link = parent[k]
                        if link is None:
                            break
                        line[:0] = link[1]
                        k = link[0]
                    self.status, self.steps = "solved", self.steps0 + line
                    self.release()
                    return self.status
                self.counter += 1
                h = est(nc, ncells, nf)
                child: State = (tuple(nc), tuple(ncells), (nf[0], nf[1], nf[2], nf[3]))
                heapq.heappush(heap, (h + weight * (g + 1), tie * self.counter, ck, child, g + 1))
        self.status = "unsolvable"
        self.release()
        return self.status

    def release(self) -> None:
        """Drop the search's tables (once it has ended or is abandoned)."""
        self.heap = []
        self.parent = {}


def search(
    pos: FreeCellPosition,
    *,
    max_nodes: int | None = None,
    max_seconds: float | None = None,
    macros: bool = True,
    weight: float = 0.5,
    lifo: bool = False,
) -> tuple[str, list[Step], int]:
    """One best-first search from ``pos``: (status, steps, nodes expanded)."""
    deadline = None if max_seconds is None else time.monotonic() + max_seconds
    s = Search(pos, macros=macros, weight=weight, lifo=lifo)
    status = s.run(max_nodes, deadline)
    return status, s.steps, s.nodes


class Proof:
    """Exhaustive depth-first search over single-card moves (with the safe
    automatic moves) that can pause and resume like :class:`Search`: its
    status ends ``solvable``, ``unsolvable`` (a proof) or stays ``unknown``.

    It keeps only the set of keys seen, not the paths, to bound memory, and
    costs less per state than a best-first search (no heap, no estimate)."""

    def __init__(self, pos: FreeCellPosition) -> None:
        cols0, cells0, found0 = initial_state(pos)
        lc, lcells, lf = list(cols0), list(cells0), list(found0)
        _auto(lc, lcells, lf, [])
        root: State = (tuple(lc), tuple(sorted(lcells)), (lf[0], lf[1], lf[2], lf[3]))
        self.nodes = 0
        self.status = "unknown"
        self.seen = {_key(root[0], root[1])}
        self.stack = [root]
        if sum(root[2]) == 52:
            self.status = "solvable"
            self.release()

    def run(self, max_nodes: int | None = None, deadline: float | None = None) -> str:
        if self.status != "unknown":
            return self.status
        stack, seen = self.stack, self.seen
        stop = None if max_nodes is None else self.nodes + max_nodes
        while stack:
            if stop is not None and self.nodes >= stop:
                return "unknown"
            if deadline is not None and self.nodes & 1023 == 0 and time.monotonic() > deadline:
                return "unknown"
            cols, cells, found = stack.pop()
            self.nodes += 1
            for nc, ncells, nf, step, src in _children(cols, cells, found, False):
                _settle(nc, ncells, nf, step, src, [])
                ncells.sort()
                ck = _key(nc, ncells)
                if ck in seen:
                    continue
                if nf[0] + nf[1] + nf[2] + nf[3] == 52:
                    self.status = "solvable"
                    self.release()
                    return self.status
                seen.add(ck)
                stack.append((tuple(nc), tuple(ncells), (nf[0], nf[1], nf[2], nf[3])))
        self.status = "unsolvable"
        self.release()
        return self.status

    def release(self) -> None:
        self.stack = []
        self.seen = set()


def prove(
    pos: FreeCellPosition, *, max_nodes: int | None = None, max_seconds: float | None = None
) -> tuple[str, int]:
    """Exhaustive verdict on ``pos`` (see :class:`Proof`): (status, nodes)."""
    deadline = None if max_seconds is None else time.monotonic() + max_seconds
    p = Proof(pos)
    status = p.run(max_nodes, deadline)
    return status, p.nodes


# -- from steps to the rules' moves ---------------------------------------------


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


def foundation_slot(rules: FreeCell, pos: FreeCellPosition, card: int) -> int:
    """The foundation slot that takes ``card`` now (the first, where any would)."""
    if rules.by_suit:
        return card & 3
    for i, top in enumerate(pos.foundations):
        if (top is None and card < 4) or (top is not None and top + 4 == card):
            return i
    raise SolverError(f"no foundation takes card {card}")


def step_moves(rules: FreeCell, pos: FreeCellPosition, step: Step) -> list[Move]:
    """The single-card moves of one search step on the real position."""
    card, kind, target, k = step
    src: Pile | None = None
    for i, c in enumerate(pos.cells):
        if c == card:
            src = _C[i]
    for i, col in enumerate(pos.tableau):
        if len(col) >= k and col[-k] == card:
            src = _T[i]
    if src is None:
        raise SolverError(f"card {card} is not where the line expects it")
    if kind == "f":
        return [Move(src, foundation(foundation_slot(rules, pos, card)))]
    free = [i for i, c in enumerate(pos.cells) if c is None]
    if kind == "c":
        return [Move(src, _C[free[0]])]
    if kind == "e":
        dst = next(i for i, col in enumerate(pos.tableau) if not col)
    else:
        dst = next(i for i, col in enumerate(pos.tableau) if col and col[-1] == target)
    empties = [i for i, col in enumerate(pos.tableau) if not col and i != dst and _T[i] != src]
    return run_moves(k, src, dst, free, empties)


def steps_to_moves(rules: FreeCell, pos: FreeCellPosition, steps: Sequence[Step]) -> list[Move]:
    moves: list[Move] = []
    for step in steps:
        for m in step_moves(rules, pos, step):
            pos = rules.play(pos, m)
            moves.append(m)
    return moves


def replay_check(rules: Any, pos: Any, moves: Sequence[Move]) -> bool:
    """True when the rules accept every move in the position it is played on
    and the last position is won.  (The rules' ``explain`` judges one move
    as their ``legal_moves`` list does, a property the suite tests, without
    listing all of them at every step.)"""
    for m in moves:
        if rules.explain(pos, m) is not None:
            return False
        pos = rules.play(pos, m)
    return bool(rules.is_won(pos))


def remove_loops(rules: FreeCell, pos: FreeCellPosition, moves: Sequence[Move]) -> list[Move]:
    """Cut every stretch of a line that comes back to a position already seen."""
    seen: dict[FreeCellPosition, int] = {pos: 0}
    out: list[Move] = []
    positions = [pos]
    for m in moves:
        pos = rules.play(positions[-1], m)
        if pos in seen:
            cut = seen[pos]
            for p in positions[cut + 1 :]:
                del seen[p]
            del out[cut:]
            del positions[cut + 1 :]
            continue
        out.append(m)
        positions.append(pos)
        seen[pos] = len(out)
    return out


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


FIRST_TURN = 15_000
"""Nodes the first search of the portfolio gets alone: most deals end there."""

PORTFOLIO: tuple[tuple[float, bool, bool], ...] = (
    (1.0, False, False),
    (2.0, True, True),
    (1.0, True, True),
    (0.0, False, True),
)
"""The searches of the portfolio: (weight of moves made, ties newest first,
the second heuristic).  A deal that one setting finds hard is often easy
under another, so they take turns, each turn longer than the last, and each
search resumes where it paused; the first runs alone for a while, since most
deals end there.  The set was chosen on hard deals of 1..32000 (a sample
of those the first search does not solve in its first turn, and the slowest
of a full survey): on each of them one of these four needs at most about
40,000 states, and the greedy one (weight 0) often finds in a few hundred
states what the others cannot in 150,000."""

TURN = 6_000
TURN_GROWTH = 1.4
PROOF_SHARE = 2
"""The exhaustive search's turn, in turns of the others: its states cost
about half as much, so it gets about as much time as each of them."""


def _portfolio(
    position: FreeCellPosition, max_nodes: int | None, deadline: float | None
) -> tuple[str, list[Step], int]:
    searches = [Search(position, weight=w, lifo=lifo, deep=d) for w, lifo, d in PORTFOLIO]
    # The exhaustive search takes turns too: on an impossible deal it ends
    # long before every best-first search has exhausted the space on its own.
    proof: Proof | None = Proof(position)
    nodes = 0
    turn = float(TURN)
    first = True
    try:
        while True:
            members: list[Search | Proof] = [*searches]
            if proof is not None and not first:
                members.append(proof)
            for s in members:
                share = FIRST_TURN if first else int(turn)
                if isinstance(s, Proof):
                    share *= PROOF_SHARE
                first = False
                if max_nodes is not None:
                    share = min(share, max_nodes - nodes)
                    if share <= 0:
                        return "unknown", [], nodes
                if deadline is not None and time.monotonic() > deadline:
                    return "unknown", [], nodes
                before = s.nodes
                status = s.run(share, deadline)
                nodes += s.nodes - before
                if isinstance(s, Proof):
                    if status == "unsolvable":
                        return status, [], nodes
                    if status == "solvable":
                        proof = None  # a line exists: the best-first searches will find it
                elif status != "unknown":
                    return status, s.steps, nodes
            turn *= TURN_GROWTH
    finally:
        for s in searches:
            s.release()
        if proof is not None:
            proof.release()


def solve(
    rules: Rules[Any],
    position: Any,
    *,
    max_nodes: int | None = None,
    max_seconds: float | None = None,
) -> SolveResult:
    """Solve ``position`` within the budget (nodes expanded and/or seconds)."""
    if not isinstance(rules, FreeCell) or not isinstance(position, FreeCellPosition):
        raise TypeError("the FreeCell solver takes FreeCell rules and a FreeCell position")
    start = time.monotonic()
    deadline = None if max_seconds is None else start + max_seconds
    status, steps, nodes = _portfolio(position, max_nodes, deadline)
    moves: tuple[Move, ...] = ()
    if status == "solved":
        line = remove_loops(rules, position, steps_to_moves(rules, position, steps))
        if not replay_check(rules, position, line):
            raise SolverError("a found line does not replay through the rules")
        moves = tuple(line)
    return SolveResult(status, moves, nodes, time.monotonic() - start, "own")  # type: ignore[arg-type]


PARTS = ("freecell",)
"""The modules compiled together by ``scripts/build_native.py``."""

ENTRY_POINTS = ("solve", "search", "prove", "Search", "Proof")
"""What the compiled copy exports in place of this module's own."""

PLAIN: dict[str, Any] = {name: globals()[name] for name in ENTRY_POINTS}
"""The entry points as plain Python, whichever ones the module exports."""


def source_sha256() -> str:
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()


def _use_compiled() -> None:
    """Export the entry points of the mypyc-compiled copy of this module
    (``scripts/build_native.py``: the same code, several times faster) when
    it was built from this very source, unless ``JIELONG_PURE_PYTHON`` is set."""
    if os.environ.get("JIELONG_PURE_PYTHON") or __name__ != "jielong.solve.freecell":
        return
    try:
        native = importlib.import_module("jielong.solve._native_freecell")
    except ImportError:
        return
    if getattr(native, "SOURCE_SHA256", None) != source_sha256():
        return  # built from another version of this file: never run stale code
    globals().update({name: getattr(native, name) for name in ENTRY_POINTS})


_use_compiled()
