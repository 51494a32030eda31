"""The own FreeCell solver's searches: a resumable best-first search, the
exhaustive proof, and the portfolio in which they take turns (see
:mod:`jielong.solve.freecell` for the whole)."""

from __future__ import annotations

import heapq
import time
from typing import Any

from jielong.rules.core import Move, Rules
from jielong.rules.freecell import FreeCell, FreeCellPosition
from jielong.solve.freecell_line import remove_loops, replay_check, steps_to_moves
from jielong.solve.freecell_state import (
    State,
    Step,
    auto_home,
    children,
    estimate,
    estimate_deep,
    initial_state,
    settle,
    state_key,
)
from jielong.solve.result import SolverError, SolveResult


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
        auto_home(lc, lcells, lf, self.steps0)
        root: State = (tuple(lc), tuple(sorted(lcells)), (lf[0], lf[1], lf[2], lf[3]))
        root_key = state_key(root[0], root[1])
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
            for nc, ncells, nf, step, src in children(cols, cells, found, macros):
                steps = [step]
                settle(nc, ncells, nf, step, src, steps)
                ncells.sort()
                ck = state_key(nc, ncells)
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
        auto_home(lc, lcells, lf, [])
        root: State = (tuple(lc), tuple(sorted(lcells)), (lf[0], lf[1], lf[2], lf[3]))
        self.nodes = 0
        self.status = "unknown"
        self.seen = {state_key(root[0], root[1])}
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
            for nc, ncells, nf, step, src in children(cols, cells, found, False):
                settle(nc, ncells, nf, step, src, [])
                ncells.sort()
                ck = state_key(nc, ncells)
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
