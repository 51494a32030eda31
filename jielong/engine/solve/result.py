"""What solvers and hint searches answer."""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field
from typing import Literal

from jielong.engine.rules.core import Move

Status = Literal["solved", "unsolvable", "unknown"]
HintKind = Literal[
    "solver", "likely", "heuristic", "unsolvable", "no_progress", "exhausted", "none"
]


CarriedDeal = tuple[
    tuple[tuple[bytes, ...], tuple[int, ...], tuple[int, ...], bytes, int], int, bytes
]
"""A deal of the unseen Klondike cards that a sampled hint hands on to the
next: the solver's state after the hinted move, its verdict, and the rest
of its line when won, packed (see
:mod:`jielong.engine.solve.searches.klondike_sample`)."""


class SolverBug(RuntimeError):
    """A line found by a search does not replay through the rules."""


class SolverError(RuntimeError):
    """A FreeCell line that does not replay through the rules (a bug, never
    expected).  Defined here rather than in the solver's module, which is
    compiled, and a compiled class cannot derive from a built-in exception."""


@dataclass(frozen=True)
class SolveResult:
    """A solver's verdict on one position.

    ``solved``: ``moves`` replay through ``jielong.engine.rules`` from the position to
    a won one.  ``unsolvable``: the whole reachable space was searched (a
    proof).  ``unknown``: the budget ran out first.
    """

    status: Status
    moves: tuple[Move, ...] = ()
    nodes: int = 0
    seconds: float = 0.0
    solver: str = "own"


@dataclass(frozen=True)
class Hint:
    """A hint: ``kind`` says how sure it is.

    ``solver``: the first move of a solver's line to a win, every card known
    (``line`` holds the rest); ``likely``: the move that won the most
    deals of the unseen cards dealt at random (Klondike); ``heuristic``: a
    plausible move when no search answered in time; ``unsolvable``: proven
    that the game cannot be won from here; ``no_progress``: proven that no
    sequence of moves makes progress (Klondike); ``exhausted``: every legal
    move leads back to a position the game has already been in twice (no
    proof that the game is lost, but following hints further could only go
    round in a circle); ``none``: no legal move at all.

    ``win_chance``: the chance to win from the position, ``None`` when
    unknown; exactly 1.0 or 0.0 only with a line to a win through known
    cards or a proof (``samples`` 0), else estimated from ``samples`` deals
    of the unseen cards, ``decided`` of them won or proven lost within their
    budget (the others count as lost for every move).  A sampled estimate
    is calibrated (:mod:`jielong.engine.solve.chance`); ``hindsight`` keeps
    what it was calibrated from: the share of the sampled deals won with
    every card known.

    ``carry``: the deals a ``likely`` hint weighed, after its move, for the
    next hint to go on with when the player plays it; never sent to the
    page.

    ``others``: for a ``likely`` hint, the other moves that won a sampled
    deal, best first, each with the deals won after it and the deals
    solved after it (a move that could no longer lead is not solved on
    every deal).

    ``steps``, when not empty, are the single-card moves through free cells
    and empty columns that carry ``move``, a run of several cards (FreeCell);
    ``line`` then goes on after them.  Such a run may be longer than the hand
    may move at once: a variant whose hint plays on a second click plays it
    by its steps.
    """

    kind: HintKind
    move: Move | None = None
    line: tuple[Move, ...] = field(default=())
    source: str = ""
    steps: tuple[Move, ...] = field(default=())
    win_chance: float | None = None
    hindsight: float | None = None
    samples: int = 0
    decided: int = 0
    others: tuple[tuple[Move, int, int], ...] = field(default=())
    carry: tuple[CarriedDeal, ...] = field(default=(), compare=False, repr=False)


def without_circles(start: Hashable, played: Iterable[tuple[Move, Hashable]]) -> list[Move]:
    """The moves of a line less every stretch that comes back to a position
    it was in before: ``played`` gives each move with the key of the
    position it leads to, ``start`` the key of the first position."""
    at = {start: 0}
    keys = [start]
    out: list[Move] = []
    for m, key in played:
        cut = at.get(key, -1)
        if cut >= 0:
            for k in keys[cut + 1 :]:
                del at[k]
            del out[cut:]
            del keys[cut + 1 :]
            continue
        out.append(m)
        keys.append(key)
        at[key] = len(out)
    return out
