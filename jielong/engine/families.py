"""One record per game family: what differs between Klondike and FreeCell
beyond the rules' own methods (the position's JSON, its board text, the
solver, the hint and how a hint's line goes on), chosen once from the
variant (:func:`family_of`) or from a position (:func:`family_of_position`)
instead of type tests spread through the layers.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Generic, Literal, TypeVar

from jielong.engine.cards import DECK
from jielong.engine.rules.core import Move
from jielong.engine.rules.freecell import FreeCell, FreeCellPosition
from jielong.engine.rules.klondike import Klondike, KlondikePosition
from jielong.engine.rules.registry import Position
from jielong.engine.rules.variants import get_variant
from jielong.engine.solve import freecell, klondike
from jielong.engine.solve.chance import calibrated, features
from jielong.engine.solve.freecell_hint import freecell_hint, from_result
from jielong.engine.solve.result import CarriedDeal, Hint, SolveResult
from jielong.engine.textboard import draw_freecell, draw_klondike

R = TypeVar("R", Klondike, FreeCell)
P = TypeVar("P", KlondikePosition, FreeCellPosition)

KLONDIKE_SECONDS = 1.0
"""The longest a Klondike hint takes, whatever the server's deadline: its
sampling mostly ends on its own count of deals well before; the cap keeps
the slow ones within a second."""

# every card's code by its index: a board names some fifty cards per answer
_CODES = tuple(card.code() for card in DECK)


@dataclass(frozen=True)
class HintAsk(Generic[P]):
    """What a fresh hint is asked with: its deadline, the circle keys the
    game has come to once (``seen``) and twice or more (``never``), the
    clock that counts the deadline and the deals a previous hint weighed."""

    deadline_seconds: float
    seen: frozenset[P] = frozenset()
    never: frozenset[P] = frozenset()
    clock: Callable[[], float] = time.perf_counter
    carried: tuple[CarriedDeal, ...] = ()


@dataclass(frozen=True)
class Family(Generic[R, P]):
    """A game family's record."""

    name: Literal["klondike", "freecell"]
    surveyed: bool
    """Whether every catalogue deal's verdict is known from a survey (FreeCell:
    the survey solved all but the deals listed as unsolvable); otherwise a
    solver has to find each winnable deal (Klondike)."""
    position_json: Callable[[P], dict[str, object]]
    """The position as the page draws it (face-down cards counted only)."""
    board_text: Callable[[P, bool], str]
    """The board drawn as text (with suit symbols or letters)."""
    solve: Callable[[R, P, int | None, float | None, Callable[[], float] | None], SolveResult]
    """The own solver, with a node and a time budget, and the clock that
    counts the time (``None``: the solver's own)."""
    fresh_hint: Callable[[R, P, HintAsk[P]], Hint]
    """A hint searched afresh."""
    circle_key: Callable[[P], P]
    """What must not come back for a hint follower not to go round in a circle."""
    full_line: Callable[[Hint], tuple[Move, ...]]
    """Every move of a solver's hint, from its position to the win."""
    resume: Callable[[R, P, tuple[Move, ...], str], Hint | None]
    """The hint that goes on with the rest of a line from its position."""
    thoughtful: Callable[[P], bool] = field(default=lambda _position: False)
    """Whether a verdict sees cards the player does not (face down)."""
    recycles: Callable[[P], int] = field(default=lambda _position: 0)
    """How many times the stock was turned over."""
    recycled: Callable[[P, int], P] = field(default=lambda position, _count: position)
    """The same cards with the stock turned over that many times."""


def _klondike_json(position: KlondikePosition) -> dict[str, object]:
    codes = _CODES
    return {
        "tableau": [
            {"down": h, "up": [codes[c] for c in pile[h:]]}
            for pile, h in zip(position.tableau, position.hidden, strict=True)
        ],
        "foundations": [None if t is None else codes[t] for t in position.foundations],
        "stock": len(position.stock),
        "waste": [codes[c] for c in position.waste],
    }


def _freecell_json(position: FreeCellPosition) -> dict[str, object]:
    codes = _CODES
    return {
        "tableau": [{"down": 0, "up": [codes[c] for c in col]} for col in position.tableau],
        "foundations": [None if t is None else codes[t] for t in position.foundations],
        "cells": [None if c is None else codes[c] for c in position.cells],
    }


def _klondike_solve(
    rules: Klondike,
    position: KlondikePosition,
    max_nodes: int | None,
    max_seconds: float | None,
    clock: Callable[[], float] | None,
) -> SolveResult:
    if clock is None:
        return klondike.solve(rules, position, max_nodes=max_nodes, max_seconds=max_seconds)
    return klondike.solve(
        rules, position, max_nodes=max_nodes, max_seconds=max_seconds, clock=clock
    )


def _freecell_solve(
    rules: FreeCell,
    position: FreeCellPosition,
    max_nodes: int | None,
    max_seconds: float | None,
    clock: Callable[[], float] | None,
) -> SolveResult:
    # the FreeCell searches read time.monotonic, which a process may set to
    # its CPU time (as the hint workers do), whatever clock is passed here
    del clock
    return freecell.solve(rules, position, max_nodes=max_nodes, max_seconds=max_seconds)


def _klondike_hint(
    rules: Klondike, position: KlondikePosition, ask: HintAsk[KlondikePosition]
) -> Hint:
    hint = klondike.hint(
        rules,
        position,
        max_seconds=min(ask.deadline_seconds, KLONDIKE_SECONDS),
        avoid=ask.seen,
        never=ask.never,
        clock=ask.clock,
        carried=ask.carried,
    )
    if not hint.samples or hint.win_chance is None:
        return hint
    # the sampled share is what a player seeing every card would win: the
    # chance shown is calibrated on games played by the hints
    seen = features(position, hint.win_chance, hint.samples, hint.decided)
    return replace(hint, win_chance=calibrated(seen, rules.draw), hindsight=hint.win_chance)


def _freecell_hint(
    rules: FreeCell, position: FreeCellPosition, ask: HintAsk[FreeCellPosition]
) -> Hint:
    return freecell_hint(rules, position, ask.deadline_seconds, seen=ask.seen, never=ask.never)


def _same(position: FreeCellPosition) -> FreeCellPosition:
    return position


def _klondike_line(hint: Hint) -> tuple[Move, ...]:
    return hint.line  # the Klondike line starts with the move


def _freecell_line(hint: Hint) -> tuple[Move, ...]:
    assert hint.move is not None
    return (*(hint.steps or (hint.move,)), *hint.line)


def _klondike_resume(
    _rules: Klondike, _position: KlondikePosition, rest: tuple[Move, ...], source: str
) -> Hint:
    return Hint("solver", rest[0], rest, source, win_chance=1.0)


def _freecell_resume(
    rules: FreeCell, position: FreeCellPosition, rest: tuple[Move, ...], source: str
) -> Hint | None:
    # a carried run at the line's start is hinted as the run again
    return from_result(rules, position, SolveResult("solved", rest, solver=source))


def _klondike_thoughtful(position: KlondikePosition) -> bool:
    return any(position.hidden) or bool(position.stock)


def _klondike_recycles(position: KlondikePosition) -> int:
    return position.recycles


def _klondike_recycled(position: KlondikePosition, count: int) -> KlondikePosition:
    return position if position.recycles == count else replace(position, recycles=count)


KLONDIKE: Family[Klondike, KlondikePosition] = Family(
    name="klondike",
    surveyed=False,
    position_json=_klondike_json,
    board_text=draw_klondike,
    solve=_klondike_solve,
    fresh_hint=_klondike_hint,
    circle_key=klondike.circle_key,
    full_line=_klondike_line,
    resume=_klondike_resume,
    thoughtful=_klondike_thoughtful,
    recycles=_klondike_recycles,
    recycled=_klondike_recycled,
)

FREECELL: Family[FreeCell, FreeCellPosition] = Family(
    name="freecell",
    surveyed=True,
    position_json=_freecell_json,
    board_text=draw_freecell,
    solve=_freecell_solve,
    fresh_hint=_freecell_hint,
    circle_key=_same,
    full_line=_freecell_line,
    resume=_freecell_resume,
)

FAMILIES: dict[str, Family[Any, Any]] = {"klondike": KLONDIKE, "freecell": FREECELL}
"""Every family's record, by the name a variant's record gives."""


def family_of(variant_id: str) -> Family[Any, Any]:
    """The record of a variant's family (:class:`UnknownVariantError` for an
    unknown id)."""
    return FAMILIES[get_variant(variant_id).family]


def family_of_position(position: Position) -> Family[Any, Any]:
    """The record of the family a position belongs to."""
    return KLONDIKE if isinstance(position, KlondikePosition) else FREECELL
