"""The FreeCell hint: a real solver within a deadline, else a plausible move.

Freecell Solver first when it is installed, then the own solver with the time
left; when neither answers in time, a heuristic move.  ``unsolvable`` comes
only from an exhaustive search, ``none`` when there is no legal move.  Solvers
answer in single-card moves; a line that starts by carrying a run through free
cells and empty columns is hinted as that run (a move the hand may make, or,
in a variant whose hint plays on a second click, a run played by its steps).
A fresh search never proposes a move back to a position the game has already
been in.  The policy shared by both families (going on with a line, circles,
what is known lost) is :mod:`jielong.engine.solve.hints`.
"""

from __future__ import annotations

import time

from jielong.engine.cards import Card
from jielong.engine.rules.core import Move
from jielong.engine.rules.freecell import FreeCell, FreeCellPosition, ordered_run_length
from jielong.engine.solve import freecell as own
from jielong.engine.solve.result import Hint, SolveResult

FCSOLVE_SHARE = 0.4
"""Part of the deadline given to Freecell Solver before the own solver runs."""


OWN_AFTER_FCSOLVE = 0.3
"""Seconds at most the own solver gets to find a shorter line once Freecell
Solver has found one."""

RUN_SCAN = 64
"""How many moves at the start of a solver's line are searched for a run."""


def leading_run(
    rules: FreeCell, position: FreeCellPosition, line: tuple[Move, ...]
) -> tuple[Move, int] | None:
    """When ``line`` starts by carrying a run of two or more cards from one
    column onto another (one card at a time, through free cells and empty
    columns, everything else as it was), that run as one move and how many
    of the line's moves carry it: the longest such run, since carrying a
    long run carries shorter ones on the way."""
    if len(line) < 3 or line[0].src.kind != "tableau":
        return None
    a = line[0].src.index
    size = len(position.tableau[a])
    longest = ordered_run_length(position.tableau[a])
    found = None
    pos = position
    for used, move in enumerate(line[:RUN_SCAN], start=1):
        if move.count != 1 or move.dst.kind == "foundation":
            break  # a card gone home never comes back: no run can match after it
        pos = rules.play(pos, move)
        if used < 3 or move.dst.kind != "tableau" or move.dst.index == a:
            continue
        n = size - len(pos.tableau[a])  # the only run that can have left column a
        if 2 <= n <= longest:
            run = Move(line[0].src, move.dst, n)
            if pos == rules.play(position, run):
                found = run, used
    return found


def from_result(rules: FreeCell, position: FreeCellPosition, result: SolveResult) -> Hint | None:
    if result.status == "solved" and result.moves:
        found = leading_run(rules, position, result.moves)
        if found is not None:
            run, used = found
            rest = result.moves[used:]
            if run in rules.legal_moves(position):
                return Hint("solver", run, rest, result.solver, win_chance=1.0)
            if rules.variant.hint_plays_on_second_click:
                # longer than the hand may move: played by its steps
                steps = result.moves[:used]
                return Hint("solver", run, rest, result.solver, steps=steps, win_chance=1.0)
        return Hint("solver", result.moves[0], result.moves[1:], result.solver, win_chance=1.0)
    if result.status == "unsolvable":
        return Hint("unsolvable", None, (), result.solver, win_chance=0.0)
    return None


def keeps_the_game(rules: FreeCell, position: FreeCellPosition, move: Move) -> bool:
    """Whether ``move`` cannot turn a winnable position into a lost one: it
    can be taken back at once, or it sends home a card no other card needs
    to be laid on (both of the other colour's foundations at least as high)."""
    after = rules.play(position, move)
    if move.dst.kind == "foundation":
        card = rules.moving_card(position, move)
        rank = Card(card).rank
        if rank <= 2:
            return True
        red = Card(card).is_red
        heights = [0 if top is None else Card(top).rank for top in after.foundations]
        other = [
            h
            for top, h in zip(after.foundations, heights, strict=True)
            if top is not None and Card(top).is_red != red
        ]
        return len(other) == 2 and min(other) >= rank - 1
    back = rules.explain(after, Move(move.dst, move.src, move.count))
    return back is None and rules.play(after, Move(move.dst, move.src, move.count)) == position


def heuristic_move(
    rules: FreeCell,
    position: FreeCellPosition,
    seen: frozenset[FreeCellPosition] = frozenset(),
    never: frozenset[FreeCellPosition] = frozenset(),
) -> Hint:
    """The legal move whose result the search's heuristic likes best, among
    those that bring back no position in ``seen`` and keep a winnable game
    winnable (:func:`keeps_the_game`) when there are any; never one that
    leads to a position in ``never``."""
    legal = rules.legal_moves(position)
    if not legal:
        return Hint("none")
    best = None
    best_score = (False, False, 0)
    for move in legal:
        if move.src.kind == "cell" and move.dst.kind == "cell":
            continue
        after = rules.play(position, move)
        if after in never:
            continue
        cols, cells, found = own.initial_state(after)
        score = (
            after in seen,
            not keeps_the_game(rules, position, move),
            own.estimate(cols, cells, found),
        )
        if best is None or score < best_score:
            best, best_score = move, score
    if best is None:
        return Hint("exhausted")
    return Hint("heuristic", best, (), "heuristic")


def _after(rules: FreeCell, position: FreeCellPosition, hint: Hint) -> FreeCellPosition:
    """The position a FreeCell hint's move leads to."""
    assert hint.move is not None
    after: FreeCellPosition = (
        _play_all(rules, position, hint.steps) if hint.steps else rules.play(position, hint.move)
    )
    return after


def _solver_lines(
    rules: FreeCell, position: FreeCellPosition, deadline: float, use_fcsolve: bool
) -> list[SolveResult]:
    """What the solvers answer before ``deadline`` (a monotonic time): Freecell
    Solver with part of the time, then the own solver with the rest, or, when
    Freecell Solver found a line, briefly, to look for a shorter one."""
    found: list[SolveResult] = []
    if use_fcsolve:
        from jielong.engine.solve import fcsolve

        if fcsolve.available():
            left = deadline - time.monotonic()
            found.append(fcsolve.solve(rules, position, max_seconds=left * FCSOLVE_SHARE))
    left = deadline - time.monotonic()
    if found and found[0].status != "unknown":
        if found[0].status == "unsolvable":
            return found  # an exhaustive search's proof
        left = min(left, OWN_AFTER_FCSOLVE)
    if left > 0:
        found.append(own.solve(rules, position, max_seconds=left))
    return found


def _fresh_hint(
    rules: FreeCell,
    position: FreeCellPosition,
    deadline: float,
    use_fcsolve: bool,
) -> Hint | None:
    """A solver's hint: the shorter line when both solvers found one, else
    a proof, else ``None``."""
    results = _solver_lines(rules, position, deadline, use_fcsolve)
    solved = [r for r in results if r.status == "solved"]
    if solved:
        best = min(solved, key=lambda r: len(r.moves))
        return from_result(rules, position, best)
    for r in results:
        if r.status == "unsolvable":
            return from_result(rules, position, r)
    return None


def _avoiding_seen(
    rules: FreeCell,
    position: FreeCellPosition,
    deadline: float,
    seen: frozenset[FreeCellPosition],
) -> Hint | None:
    """A solver's line through a move to a position the game has not been
    in: each such move in the heuristic's order, the own solver on the
    position it leads to, with a share of the time left."""
    children = []
    for move in rules.legal_moves(position):
        after = rules.play(position, move)
        if after in seen:
            continue
        cols, cells, found = own.initial_state(after)
        children.append((own.estimate(cols, cells, found), move, after))
    children.sort(key=lambda c: c[0])
    for n, (_, move, after) in enumerate(children):
        left = deadline - time.monotonic()
        if left <= 0:
            break
        result = own.solve(rules, after, max_seconds=left / min(2, len(children) - n))
        if result.status == "solved":
            return Hint("solver", move, result.moves, result.solver, win_chance=1.0)
    return None


def freecell_hint(
    rules: FreeCell,
    position: FreeCellPosition,
    deadline_seconds: float,
    *,
    use_fcsolve: bool = True,
    seen: frozenset[FreeCellPosition] = frozenset(),
    never: frozenset[FreeCellPosition] = frozenset(),
) -> Hint:
    """A fresh hint (no line to go on with): a solver's line whose first
    move does not bring back a position in ``seen``, a proof, or a
    heuristic move (never one to a position in ``never``)."""
    deadline = time.monotonic() + deadline_seconds
    if not rules.legal_moves(position):
        return Hint("none")
    hint = _fresh_hint(rules, position, deadline, use_fcsolve)
    if hint is not None and hint.move is not None and _after(rules, position, hint) in seen:
        hint = _avoiding_seen(rules, position, deadline, seen)
    if hint is not None:
        return hint
    return heuristic_move(rules, position, seen, never)


def _play_all(
    rules: FreeCell, position: FreeCellPosition, moves: tuple[Move, ...]
) -> FreeCellPosition:
    for move in moves:
        position = rules.play(position, move)
    return position
