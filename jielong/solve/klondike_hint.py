"""The Klondike hint over what the player knows (see "Hint search" in the
notes of :mod:`jielong.solve.klondike`)."""

from __future__ import annotations

import heapq
import time

from jielong.rules.core import STOCK, Move
from jielong.rules.klondike import Klondike, KlondikePosition
from jielong.solve.klondike_search import solve
from jielong.solve.klondike_state import (
    BYTE,
    UNKNOWN,
    Action,
    State,
    apply,
    from_position,
    generate,
    reach,
    replay_actions,
    state_key,
)
from jielong.solve.result import Hint, HintKind, SolverBug

# -- the hint -------------------------------------------------------------------


def visible_state(position: KlondikePosition) -> tuple[State, bool]:
    """The internal state with every card the player cannot know replaced by
    :data:`UNKNOWN`, and whether the stock is known."""
    piles, hidden, found, talon, p = from_position(position)
    masked = tuple(BYTE[UNKNOWN] * h + pile[h:] for pile, h in zip(piles, hidden, strict=True))
    stock_known = position.stock_all_seen()
    if not stock_known:
        talon = talon[:p] + BYTE[UNKNOWN] * (len(talon) - p)
    return (masked, hidden, found, talon, p), stock_known


def _progress_search(
    st: State, draw: int, stock_known: bool, deadline: float
) -> tuple[str, list[Action]]:
    """Cheapest line to progress: ``("found", line)`` for a tableau or
    foundation progress, ``("stock", line)`` when only turning unseen stock
    cards helps, ``("none", [])`` when nothing can (a proof), or
    ``("timeout", stock_line_or_empty)``."""
    hidden0 = sum(st[1])
    found0 = st[2]
    exact_p = not stock_known
    seen = {state_key(st, draw, exact_p)}
    # (cost, order, state, line, progress class: 0 none, 1 tableau/foundation, 2 stock)
    heap: list[tuple[int, int, State, tuple[Action, ...], int]] = [(0, 0, st, (), 0)]
    counter = 1
    stock_line: list[Action] | None = None
    while heap:
        if time.perf_counter() > deadline:
            return "timeout", stock_line or []
        cost, _, s, line, progress = heapq.heappop(heap)
        if progress == 1:
            return "found", list(line)
        if progress == 2:
            if stock_line is None:
                stock_line = list(line)
            continue
        if not stock_known and len(s[3]) > s[4]:
            heapq.heappush(heap, (cost + 1, counter, s, (*line, (3,)), 2))
            counter += 1
        clicks_at = dict(reach(s[4], len(s[3]), draw)) if stock_known else {}
        for act in generate(s, draw, stock_known, every_split=True):
            s2 = apply(s, act)
            c2 = cost + 1 + (clicks_at.get(act[1], 0) if act[0] == 0 else 0)
            if sum(s2[1]) < hidden0 or any(a > b for a, b in zip(s2[2], found0, strict=True)):
                heapq.heappush(heap, (c2, counter, s2, (*line, act), 1))
                counter += 1
                continue
            k = state_key(s2, draw, exact_p)
            if k in seen:
                continue
            seen.add(k)
            heapq.heappush(heap, (c2, counter, s2, (*line, act), 0))
            counter += 1
    if stock_line is not None:
        return "stock", stock_line
    return "none", []


def heuristic_move(rules: Klondike, position: KlondikePosition) -> Move | None:
    """A plausible move from what is visible: a foundation move, a move that
    turns a card over, a waste move, a draw, in that order."""
    legal = rules.legal_moves(position)
    if not legal:
        return None

    def score(m: Move) -> int:
        if m.dst.kind == "foundation":
            return 0
        if m.src.kind == "tableau":
            i = m.src.index
            left = len(position.tableau[i]) - m.count
            if left and left == position.hidden[i]:
                return 1
            if not left and m.dst.kind == "tableau" and position.tableau[m.dst.index]:
                return 4
            return 6
        if m.src.kind == "waste" and m.dst.kind == "tableau":
            return 2
        if STOCK in (m.src, m.dst):
            return 3
        return 7

    return min(legal, key=score)


def hint(rules: Klondike, position: KlondikePosition, *, max_seconds: float) -> Hint:
    """A hint that uses only what the player can know (see the module notes)."""
    start = time.perf_counter()
    legal = rules.legal_moves(position)
    if not legal or rules.is_won(position):
        return Hint("none")
    if position.all_revealed() and position.stock_all_seen():
        res = solve(rules, position, max_seconds=max_seconds * 0.7)
        if res.status == "solved" and res.moves:
            return Hint("solver", res.moves[0], res.moves, source="own", win_chance=1.0)
        if res.status == "unsolvable":
            return Hint("unsolvable", source="own", win_chance=0.0)
    st, stock_known = visible_state(position)
    deadline = start + max_seconds
    verdict, line = _progress_search(st, rules.draw, stock_known, deadline)
    if verdict == "none":
        return Hint("no_progress", source="own")
    if line:
        moves, _ = replay_actions(rules, position, st, line)
        if moves and moves[0] in legal:
            kind: HintKind = "heuristic" if verdict == "timeout" else "solver"
            return Hint(kind, moves[0], tuple(moves), source="own")
        raise SolverBug("hint line does not start with a legal move")
    m = heuristic_move(rules, position)
    return Hint("heuristic", m, (m,) if m else (), source="heuristic")
