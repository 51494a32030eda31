"""The full Klondike solver: a narrow best-first search and an exhaustive
depth-first one taking turns on one budget (see "Full solver" in the notes of
:mod:`jielong.engine.solve.klondike`)."""

from __future__ import annotations

import heapq
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Final

from jielong.engine.rules.core import Move
from jielong.engine.rules.klondike import Klondike, KlondikePosition
from jielong.engine.solve.result import SolverBug, SolveResult, without_circles
from jielong.engine.solve.searches.klondike_keys import (
    DRAWS_REACH,
    twin_class,
    twin_key,
    waste_class,
)
from jielong.engine.solve.searches.klondike_relax import (
    Tableau,
    hopeless,
    relaxed_lost,
    tableau_of,
    twins_lost,
)
from jielong.engine.solve.searches.klondike_replay import replay_actions
from jielong.engine.solve.searches.klondike_state import (
    Action,
    State,
    after,
    autoplay,
    finish,
    from_position,
    generate,
    steps,
    trivially_won,
)


@dataclass
class Budget:
    max_nodes: int | None
    deadline: float | None
    nodes: int = 0
    clock: Callable[[], float] = time.perf_counter
    share_gil: bool = True
    """Give other threads the GIL now and then; a process of its own (a hint
    worker) need not: each time it may also lose the processor on a busy
    machine."""

    def spent(self) -> bool:
        if self.share_gil and self.nodes & 63 == 0:
            # the compiled module holds the GIL for as long as it runs: a
            # solve in one thread of a server (the daily deal, the pool of
            # winnable deals) would otherwise stall every request
            time.sleep(0)
        if self.max_nodes is not None and self.nodes >= self.max_nodes:
            return True
        return self.deadline is not None and self.nodes % 256 == 0 and self.clock() > self.deadline


_SLICE: Final = 1024
"""States each search adds in one turn."""
_SEEKER_SHARE: Final = 0.25
"""The win-seeking search's share of the time, for the first
:data:`_LATE_AFTER` seconds."""
_LATE_AFTER: Final = 1.0
"""Seconds of searching after which the win-seeker's share falls."""
_SEEKER_LATE: Final = 0.1
"""Its share of all the time spent, once :data:`_LATE_AFTER` seconds are:
most wins it finds come within the first second, and the deals still open
after it are mostly proofs of loss and wins the exhaustive search finds."""
_TRY_FIRST: Final = 256
_WORTH: Final = 32
_RETRY: Final = 16
"""The exhaustive search runs each check that proves states lost (the
relaxation where a card left the talon, the relaxation where a card was
turned over, the rule for twins in one pile where a card left the talon
or the relaxation ran) for the first :data:`_TRY_FIRST` such states, then
while it proves at least one in :data:`_WORTH` of them lost, else on one
in :data:`_RETRY`: each fires on most such states in some deals and
almost never in others (the twins' rule on a third of them in draw-3
deal 296, on one in 11,000 in deal 14; the relaxation where a card left
the talon on 28% in deal 14, on none of 31,000 in deal 237)."""


class _Gate:
    """How often one check has run, proven a state lost, and been skipped
    since it last ran (see :data:`_RETRY`)."""

    def __init__(self) -> None:
        self.tried = 0
        self.fired = 0
        self.skipped = 0

    def due(self) -> bool:
        """Whether to run the check this time (counted as run)."""
        if (
            self.tried < _TRY_FIRST
            or self.fired * _WORTH >= self.tried
            or self.skipped == _RETRY - 1
        ):
            self.tried += 1
            self.skipped = 0
            return True
        self.skipped += 1
        return False


def _score(st: State, emptied: int) -> int:
    """How far a state has come: cards home, cards turned over, stock used,
    and ``emptied`` for each empty pile."""
    score = 3 * sum(st[2]) - 4 * sum(st[1]) - len(st[3])
    if emptied:
        for pile in st[0]:
            if not pile:
                score += emptied
    return score


def best_first(
    st: State, draw: int, budget: Budget, narrow: bool = False, emptied: int = 0
) -> Iterator[list[Action] | bool | None]:
    """Best-first search on :func:`_score` (ties: newest first), taking
    turns: it yields ``True`` after each slice of work and finally a line,
    ``None`` when its space is exhausted, or ``False`` when the budget is
    spent.  With ``narrow`` it leaves moves out, so it proves nothing."""
    st, autos = autoplay(st)
    if trivially_won(st):
        yield autos + finish(st)
        return
    root = twin_key(st, draw)
    parent: dict[bytes, tuple[bytes | None, list[Action]]] = {root: (None, autos)}
    heap: list[tuple[int, int, State, bytes]] = [(-_score(st, emptied), 0, st, root)]
    counter = 0
    while heap:
        _, _, s, k = heapq.heappop(heap)
        for act in generate(s, draw, True, narrow):
            s2, autos = after(s, act)
            k2 = twin_key(s2, draw)
            if k2 in parent:
                continue
            parent[k2] = (k, [*steps(act), *autos])
            if trivially_won(s2):
                line: list[Action] = finish(s2)
                at: bytes | None = k2
                while at is not None:
                    up, acts = parent[at]
                    line[:0] = acts
                    at = up
                yield line
                return
            budget.nodes += 1
            if budget.spent():
                yield False
                return
            if budget.nodes % _SLICE == 0:
                yield True
            counter -= 1
            heapq.heappush(heap, (-_score(s2, emptied), counter, s2, k2))
    yield None


def depth_first(st: State, draw: int, budget: Budget) -> Iterator[list[Action] | bool | None]:
    """Exhaustive depth-first search that keeps only the keys of the states
    it has seen (no parent map, no queue of states), taking turns like
    :func:`best_first`; ``None`` is a proof that ``st`` cannot be won."""
    st, autos = autoplay(st)
    if trivially_won(st):
        yield autos + finish(st)
        return
    # per twin class, the waste classes seen in it (bits): a state is
    # skipped when it or a state that reaches it by draws alone was seen
    seen = {twin_class(st): 1 << waste_class(st, draw)}
    reach = DRAWS_REACH if draw == 3 else None
    first = generate(st, draw, True, paired=True)
    first.reverse()  # popped from the end: the more promising kinds first
    stack: list[tuple[State, list[Action]]] = [(st, first)]
    path: list[list[Action]] = [autos]  # the actions into each state on the stack
    talon_gate, turn_gate, twin_gate = _Gate(), _Gate(), _Gate()
    while stack:
        s, todo = stack[-1]
        if not todo:
            stack.pop()
            path.pop()
            continue
        act = todo.pop()
        s2, autos = after(s, act)
        k2 = twin_class(s2)
        q = waste_class(s2, draw)
        had = seen.get(k2, 0)
        if had & (1 << q if reach is None else reach[len(s2[3])][q]):
            continue
        seen[k2] = had | 1 << q
        if trivially_won(s2):
            line = [a for acts in path for a in acts]
            yield line + [*steps(act), *autos] + finish(s2)
            return
        budget.nodes += 1
        if budget.spent():
            yield False
            return
        if budget.nodes % _SLICE == 0:
            yield True
        # the checks cost as much as many expansions: the relaxation where a
        # card left the talon or was turned over, the twins' rule where a
        # card left the talon or the relaxation ran, each only while it
        # proves often enough
        talon = len(s2[3]) != len(s[3])
        if talon or s2[1] != s[1]:
            gate = talon_gate if talon else turn_gate
            due = gate.due()
            # the card sets both checks read, made once
            tableau: Tableau | None = None
            if due:
                tableau = tableau_of(s2)
                if relaxed_lost(s2, draw, tableau):
                    gate.fired += 1
                    continue
            if (due or talon) and twin_gate.due():
                if tableau is None:
                    tableau = tableau_of(s2)
                if twins_lost(s2, draw, tableau):
                    twin_gate.fired += 1
                    continue
        nxt = generate(s2, draw, True, paired=True)
        nxt.reverse()
        stack.append((s2, nxt))
        path.append([*steps(act), *autos])
    yield None


def take_turns(st: State, draw: int, budget: Budget) -> list[Action] | bool | None:
    """The win-seeking narrow best-first search and the exhaustive
    depth-first one in turns: a line from either, ``None`` (a proof) from the
    depth-first one, or ``False``.  The depth-first search goes first and
    the win-seeker gets its share of the time from the start: the
    depth-first one finds most wins within a few slices too, and proofs of
    loss need all the time they can get: after the first second the
    win-seeker's share falls from a quarter to a tenth."""
    seeker: Iterator[list[Action] | bool | None] | None = best_first(st, draw, budget, True)
    prover = depth_first(st, draw, budget)
    spent = [0.0, 0.0]  # seconds used by the seeker and by the prover
    while True:
        t = budget.clock()
        total = spent[0] + spent[1]
        share = _SEEKER_SHARE if total < _LATE_AFTER else _SEEKER_LATE
        if seeker is not None and spent[0] < share * total:
            got = next(seeker)
            spent[0] += budget.clock() - t
            if got is None:
                seeker = None  # its narrow space is exhausted: that proves nothing
            elif got is not True:
                return got
        else:
            got = next(prover)
            spent[1] += budget.clock() - t
            if got is not True:
                return got


def _positions(
    rules: Klondike, position: KlondikePosition, moves: list[Move]
) -> Iterator[tuple[Move, KlondikePosition]]:
    """Each move with the position it leads to, recycle counts aside (no
    move depends on them)."""
    for m in moves:
        position = rules.play(position, m)
        yield m, replace(position, recycles=0)


def _winning_moves(
    rules: Klondike, position: KlondikePosition, st: State, line: list[Action]
) -> tuple[Move, ...]:
    """A found line as rule moves with no circle, checked move by move by
    the rules to end in a won position.  The searches never come back to a
    state they keyed, but the first half of a pair is not keyed on its own:
    a line may send a card home and then bring it straight back down under
    a card laid on it, and hints that showed such lines' first moves could
    send a card home and down again in turn.  Every stretch that comes back
    to a position is cut out."""
    moves, _ = replay_actions(rules, position, st, line)
    start = replace(position, recycles=0)
    moves = without_circles(start, _positions(rules, position, moves))
    end = position
    for m in moves:
        if rules.explain(end, m) is not None:
            raise SolverBug("a solution's move is not legal")
        end = rules.play(end, m)
    if not rules.is_won(end):
        raise SolverBug("a solution does not end in a won position")
    return tuple(moves)


def solve(
    rules: Klondike,
    position: KlondikePosition,
    *,
    max_nodes: int | None = None,
    max_seconds: float | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> SolveResult:
    """Solve ``position`` with every card known (face-down ones included).
    ``clock`` measures ``max_seconds``: wall time, or ``time.process_time``
    for a budget that a busy machine does not shrink."""
    start = clock()
    deadline = None if max_seconds is None else start + max_seconds
    budget = Budget(max_nodes, deadline, clock=clock)
    st = from_position(position)
    if rules.is_won(position):
        return SolveResult("solved", (), 0, 0.0)
    found = None if hopeless(st, rules.draw) else take_turns(st, rules.draw, budget)
    seconds = clock() - start
    if found is None:
        return SolveResult("unsolvable", (), budget.nodes, seconds)
    if found is False or found is True:
        return SolveResult("unknown", (), budget.nodes, seconds)
    moves = _winning_moves(rules, position, st, found)
    return SolveResult("solved", moves, budget.nodes, clock() - start)


def find_win(rules: Klondike, position: KlondikePosition, *, max_nodes: int) -> SolveResult:
    """A search for a win that every machine answers alike: the relaxation,
    then the win-seeking search alone on a node budget (no clock).
    ``solved`` with the moves, ``unsolvable`` only from the relaxation (a
    proof), else ``unknown``: the narrow search proves nothing."""
    start = time.perf_counter()
    if rules.is_won(position):
        return SolveResult("solved", (), 0, 0.0)
    st = from_position(position)
    if hopeless(st, rules.draw):
        return SolveResult("unsolvable", (), 0, time.perf_counter() - start)
    budget = Budget(max_nodes, None)
    found: list[Action] | bool | None = True
    for found in best_first(st, rules.draw, budget, True):
        if found is not True:
            break
    if not isinstance(found, list):
        return SolveResult("unknown", (), budget.nodes, time.perf_counter() - start)
    moves = _winning_moves(rules, position, st, found)
    return SolveResult("solved", moves, budget.nodes, time.perf_counter() - start)
