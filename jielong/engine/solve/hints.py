"""The hint policy of both families: a real solver within a deadline, else a
plausible move.

Each family has its own hint: FreeCell's in
:mod:`jielong.engine.solve.freecell_hint`, Klondike's in
:mod:`jielong.engine.solve.searches.klondike_hint`.  What they share is here.

A hint goes on with its line: when the position lies on the line the previous
hint of the game computed (the player followed it), the next hint is that
line's next move, with no new search.  Two solvers may find different lines
from neighbouring positions, and hints taken afresh from each could undo one
another for ever.  A fresh search never proposes a move back to a position the
game has already been in.

:func:`compute_hint` takes only picklable arguments, so a server may run it in
a process-pool worker and drop the answer when the player moves first.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable
from typing import TypeVar

from jielong.engine.families import FAMILIES, KLONDIKE_SECONDS, HintAsk, family_of
from jielong.engine.rules.core import Move, Rules
from jielong.engine.rules.registry import Position, rules_for
from jielong.engine.solve.result import Hint

__all__ = [
    "KLONDIKE_SECONDS",
    "circle_key",
    "compute_hint",
    "continue_line",
    "full_line",
    "play_all",
]

P = TypeVar("P")
K = TypeVar("K")


def play_all(rules: Rules[P], position: P, moves: tuple[Move, ...]) -> P:
    for move in moves:
        position = rules.play(position, move)
    return position


def full_line(family: str, hint: Hint) -> tuple[Move, ...]:
    """Every move of a solver's hint, from its position to the win."""
    if hint.move is None:
        return ()
    return FAMILIES[family].full_line(hint)


def continue_line(
    family: str, rules: Rules[Position], previous: tuple[Position, Hint], position: Position
) -> Hint | None:
    """The rest of the previous hint's line when ``position`` lies on it
    (``previous``: the position that hint was for, and the hint), else
    ``None``.  Only a solver's line to a win goes on."""
    start, hint = previous
    if hint.kind != "solver":
        return None
    moves = full_line(family, hint)
    pos = start
    at = None
    for i, move in enumerate(moves):
        if pos == position:
            at = i  # the last time the line passes here
        pos = rules.play(pos, move)
    if at is None:
        return None
    return FAMILIES[family].resume(rules, position, moves[at:], hint.source)


def circle_key(family: str, position: Position) -> Position:
    """What must not come back for a hint follower not to go round in a
    circle: the position, and in Klondike without its recycle count past the
    first (a recycle that plays nothing brings the same cards back)."""
    key: Position = FAMILIES[family].circle_key(position)
    return key


def compute_hint(
    variant_id: str,
    position: Position,
    *,
    deadline_seconds: float,
    seen: tuple[Position, ...] = (),
    previous: tuple[Position, Hint] | None = None,
    known_lost: bool = False,
    clock: Callable[[], float] = time.process_time,
) -> Hint:
    """A hint for ``position`` of ``variant_id``, answered within about
    ``deadline_seconds`` (Klondike: as ``clock`` counts them, this process's
    CPU time by default, and at most :data:`KLONDIKE_SECONDS`).  ``seen``:
    the positions the game has been in; ``previous``: the position of the
    game's last hint and that hint, to go on with its line; ``known_lost``:
    the game started from a deal proven unsolvable."""
    family = family_of(variant_id)
    rules = rules_for(variant_id)
    if rules.is_won(position) or not rules.legal_moves(position):
        return Hint("none")
    if known_lost:
        return Hint("unsolvable", source="catalogue", win_chance=0.0)
    if previous is not None:
        hint = continue_line(family.name, rules, previous, position)
        if hint is not None:
            return hint
    # the positions of one game are all of its family
    once, twice = _once_and_twice(family.circle_key(p) for p in seen)
    carried = previous[1].carry if previous is not None else ()
    ask = HintAsk(deadline_seconds, once, twice, clock, carried)
    hint = family.fresh_hint(rules, position, ask)
    return hint


def _once_and_twice(keys: Iterable[K]) -> tuple[frozenset[K], frozenset[K]]:
    """The keys that come up at all, and those that come up twice or more."""
    counts = Counter(keys)
    return frozenset(counts), frozenset(k for k, n in counts.items() if n >= 2)
