"""The own FreeCell solver's searches: a resumable best-first search, the
exhaustive proof, and the portfolio in which they take turns (see
:mod:`jielong.engine.solve.freecell` for the whole)."""

from __future__ import annotations

import gc
import time
from typing import Final

from jielong.engine.rules.core import Move
from jielong.engine.rules.freecell import FreeCell, FreeCellPosition
from jielong.engine.solve.result import SolverError, SolveResult
from jielong.engine.solve.searches.freecell_line import line_moves, replay_check
from jielong.engine.solve.searches.freecell_state import (
    Columns,
    Step,
    Successors,
    apply_step,
    cells_code,
    estimate_ids,
    expand,
    key_of,
    pack_found,
    root_of,
    step_of,
)

_WON: Final = 13 | 13 << 4 | 13 << 8 | 13 << 12
"""Packed foundations of a won state."""
_OFFSET: Final = 64
"""Added to doubled priorities, which may be a little below zero."""


class Queue:
    """The states waiting in a best-first search, by priority: priorities
    are small ints, so a list of state numbers for each, read oldest first,
    or newest first when ``lifo`` (the order a heap of (priority, number)
    would give, without its comparisons)."""

    def __init__(self, lifo: bool) -> None:
        self.lifo = lifo
        self.lists: list[list[int]] = []
        self.heads: list[int] = []
        """Where each list is read from, oldest first."""
        self.low = 0
        """No list below this one holds a state."""
        self.size = 0

    def push(self, priority: int, number: int) -> None:
        lists = self.lists
        priority = max(priority, 0)
        while len(lists) <= priority:
            lists.append([])
            self.heads.append(0)
        lists[priority].append(number)
        self.low = min(self.low, priority)
        self.size += 1

    def pop(self) -> int:
        """The next state's number (the queue is not empty)."""
        lists, heads, low = self.lists, self.heads, self.low
        while heads[low] >= len(lists[low]):
            low += 1
        self.low = low
        self.size -= 1
        waiting = lists[low]
        if self.lifo:
            return waiting.pop()
        head = heads[low]
        number = waiting[head]
        if head + 1 == len(waiting):
            waiting.clear()
            heads[low] = 0
        else:
            heads[low] = head + 1
        return number


class Search:
    """A best-first search from ``pos`` that can pause and resume, so that a
    portfolio of searches can take turns without losing work.

    ``weight`` scales the moves made so far in the priority (weighted A*):
    higher gives shorter lines, lower finds them faster; a multiple of 0.5
    (the priorities are counted in halves).  ``lifo`` breaks ties towards the
    newest state (deeper first) instead of the oldest.  ``macros=False``
    restricts the search to single-card moves.  Searches of one position may
    share a :class:`Columns` table.

    The states it has made are numbered: for each, its key, foundations,
    moves made and link (its parent's number and the step from there, see
    :func:`step_code`) lie in lists at that number.
    """

    def __init__(
        self,
        pos: FreeCellPosition,
        *,
        macros: bool = True,
        weight: float = 0.5,
        lifo: bool = False,
        deep: bool = False,
        table: Columns | None = None,
    ) -> None:
        if weight * 2 != int(weight * 2) or weight < 0:
            raise ValueError("the weight is a multiple of 0.5")
        self.table = Columns() if table is None else table
        self.macros = macros
        self.deep = deep
        self.weight2 = int(weight * 2)
        self.lifo = lifo
        self.nodes = 0
        self.status = "unknown"
        self.steps: list[Step] = []
        self.steps0: list[Step] = []
        ids, cells, found = root_of(self.table, pos, self.steps0)
        self.root = (ids, cells, found)
        root_key = key_of(ids, cells_code(cells))
        self.seen = {root_key}
        self.keys = [root_key]
        self.found = [pack_found(found)]
        self.made = [0]
        self.links = [-1]
        self.queue = Queue(lifo)
        self.queue.push(_OFFSET, 0)
        if sum(found) == 52:
            self.status, self.steps, self.queue = "solved", self.steps0, Queue(lifo)

    def run(self, max_nodes: int | None = None, deadline: float | None = None) -> str:
        """Expand up to ``max_nodes`` more states (or until ``deadline`` on the
        monotonic clock): the status, ``unknown`` while the search may go on."""
        if self.status != "unknown":
            return self.status
        queue, table, seen, macros = self.queue, self.table, self.seen, self.macros
        keys, founds, made, links = self.keys, self.found, self.made, self.links
        deep, w2 = self.deep, self.weight2
        out = Successors(keys, founds, links)
        stop = -1 if max_nodes is None else self.nodes + max_nodes
        while queue.size:
            if stop >= 0 and self.nodes >= stop:
                return "unknown"
            if deadline is not None and self.nodes & 255 == 0 and time.monotonic() > deadline:
                return "unknown"
            number = queue.pop()
            self.nodes += 1
            start = len(keys)
            out.base = number << 24
            expand(table, seen, macros, keys[number], founds[number], out)
            g = made[number] + 1
            for n in range(start, len(keys)):
                code = founds[n]
                if code == _WON:
                    self.status, self.steps = "solved", self._line(links[n])
                    self.release()
                    return self.status
                made.append(g)
                h = estimate_ids(table, keys[n], code, deep)
                queue.push(2 * h + w2 * g + _OFFSET, n)
        self.status = "unsolvable"
        self.release()
        return self.status

    def _line(self, link: int) -> list[Step]:
        """The steps from the root along ``link`` and its ancestors',
        automatic moves included."""
        codes: list[int] = []
        while link >= 0:
            codes.append(link & ((1 << 24) - 1))
            link = self.links[link >> 24]
        ids, cells, found = (list(x) for x in self.root)
        line = list(self.steps0)
        for code in reversed(codes):
            line += apply_step(self.table, ids, cells, found, step_of(code))
        return line

    def release(self) -> None:
        """Drop the search's tables (once it has ended or is abandoned)."""
        self.queue = Queue(self.lifo)
        self.seen = set()
        self.keys = []
        self.found = []
        self.made = []
        self.links = []


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
    costs less per state than a best-first search (no queue, no estimate)."""

    def __init__(self, pos: FreeCellPosition, *, table: Columns | None = None) -> None:
        self.table = Columns() if table is None else table
        ids, cells, found = root_of(self.table, pos, None)
        key = key_of(ids, cells_code(cells))
        self.nodes = 0
        self.status = "unknown"
        self.seen = {key}
        self.keys = [key]
        self.found = [pack_found(found)]
        if sum(found) == 52:
            self.status = "solvable"
            self.release()

    def run(self, max_nodes: int | None = None, deadline: float | None = None) -> str:
        if self.status != "unknown":
            return self.status
        keys, founds, seen, table = self.keys, self.found, self.seen, self.table
        out = Successors(keys, founds, [])
        stop = -1 if max_nodes is None else self.nodes + max_nodes
        while keys:
            if stop >= 0 and self.nodes >= stop:
                return "unknown"
            if deadline is not None and self.nodes & 1023 == 0 and time.monotonic() > deadline:
                return "unknown"
            key, code = keys.pop(), founds.pop()
            self.nodes += 1
            start = len(keys)
            expand(table, seen, False, key, code, out)  # onto the stack
            out.links.clear()
            for n in range(start, len(keys)):
                if founds[n] == _WON:
                    self.status = "solvable"
                    self.release()
                    return self.status
        self.status = "unsolvable"
        self.release()
        return self.status

    def release(self) -> None:
        self.keys = []
        self.found = []
        self.seen = set()


def prove(
    pos: FreeCellPosition, *, max_nodes: int | None = None, max_seconds: float | None = None
) -> tuple[str, int]:
    """Exhaustive verdict on ``pos`` (see :class:`Proof`): (status, nodes)."""
    deadline = None if max_seconds is None else time.monotonic() + max_seconds
    p = Proof(pos)
    status = p.run(max_nodes, deadline)
    return status, p.nodes


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
    table = Columns()  # the searches meet the same columns
    w, lifo, d = PORTFOLIO[0]
    first = Search(position, weight=w, lifo=lifo, deep=d, table=table)
    searches = [first]
    proof: Proof | None = None
    try:
        share = FIRST_TURN if max_nodes is None else min(FIRST_TURN, max_nodes)
        if share <= 0 or (deadline is not None and time.monotonic() > deadline):
            return "unknown", [], 0
        status = first.run(share, deadline)
        nodes = first.nodes
        if status != "unknown":
            return status, first.steps, nodes
        # Most deals end in the first turn: only then are the others made.
        others = [
            Search(position, weight=w, lifo=lifo, deep=d, table=table)
            for w, lifo, d in PORTFOLIO[1:]
        ]
        searches += others
        # The exhaustive search takes turns too (from the second round): on an
        # impossible deal it ends long before every best-first search has
        # exhausted the space on its own.
        proof = Proof(position, table=table)
        turn = float(TURN)
        members: list[Search | Proof] = [*others]
        while True:
            for s in members:
                share = int(turn) * (PROOF_SHARE if isinstance(s, Proof) else 1)
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
            members = [*searches] if proof is None else [*searches, proof]
    finally:
        for s in searches:
            s.release()
        if proof is not None:
            proof.release()


def solve(
    rules: object,
    position: object,
    *,
    max_nodes: int | None = None,
    max_seconds: float | None = None,
) -> SolveResult:
    """Solve ``position`` within the budget (nodes expanded and/or seconds)."""
    if not isinstance(rules, FreeCell) or not isinstance(position, FreeCellPosition):
        raise TypeError("the FreeCell solver takes FreeCell rules and a FreeCell position")
    start = time.monotonic()
    deadline = None if max_seconds is None else start + max_seconds
    # The searches make many small tuples and lists, none ever in a cycle:
    # the cycle collector's passes over them would cost a tenth of the time.
    collecting = gc.isenabled()
    gc.disable()
    try:
        status, steps, nodes = _portfolio(position, max_nodes, deadline)
    finally:
        if collecting:
            gc.enable()
    moves: tuple[Move, ...] = ()
    if status == "solved":
        line = line_moves(rules, position, steps)
        if not replay_check(rules, position, line):
            raise SolverError("a found line does not replay through the rules")
        moves = tuple(line)
    return SolveResult(status, moves, nodes, time.monotonic() - start, "own")  # type: ignore[arg-type]
