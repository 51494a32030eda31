"""A player who presses the hint button and plays what it says, again and
again: what the hint-following tests and the benchmark measure.

It plays through :class:`~jielong.session.Session` as the site does (a run
played by its steps when the hint gives them) and passes the game's
positions and its last hint to :func:`~jielong.engine.solve.hints.compute_hint`,
as the server's hint pool does.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

from jielong.engine.catalogue import is_unsolvable
from jielong.engine.rules.klondike import KlondikePosition
from jielong.engine.rules.registry import Position
from jielong.engine.solve.chance import features
from jielong.engine.solve.hints import circle_key, compute_hint
from jielong.engine.solve.result import Hint
from jielong.session import Session

HintFn = Callable[[Session, tuple[Position, Hint] | None], Hint]


class HintRecord(NamedTuple):
    """One hint of a followed game."""

    kind: str
    wall: float
    """Seconds on the wall clock."""
    cpu: float
    """CPU seconds (NaN through HTTP)."""
    samples: int
    """Deals of the unseen cards it weighed (0: exact, or none)."""
    chance: float | None = None
    """The chance to win it gave."""
    decided: int = 0
    """How many of its sampled deals were won or proven lost."""
    hindsight: float | None = None
    """What its chance was calibrated from (sampled hints)."""
    face_down: int = 0
    """Cards face down when it was asked (Klondike)."""
    stock_unseen: int = 0
    """Cards of a stock not yet turned through when it was asked (Klondike)."""


@dataclass
class Game:
    """How one hint-following game went."""

    variant: str
    deal: int
    won: bool = False
    end: str = ""
    """Why it stopped: ``won``, ``circle``, ``limit``, or the kind of the
    last hint (``unsolvable``, ``no_progress``, ``none``)."""
    moves: int = 0
    hints: list[HintRecord] = field(default_factory=list)
    most_seen: int = 1
    """The most times one position came up."""


def local_hint(deadline_seconds: float, clock: Callable[[], float] = time.perf_counter) -> HintFn:
    """Hints computed in this process, as a server's worker computes them
    (with ``time.process_time`` as ``clock``, the Klondike hint's deadline
    counts this process's CPU time: the same answers on a busy machine)."""

    def ask(session: Session, previous: tuple[Position, Hint] | None) -> Hint:
        deal = session.deal
        return compute_hint(
            session.variant.id,
            session.position,
            deadline_seconds=deadline_seconds,
            seen=tuple(session.visited),
            previous=previous,
            known_lost=deal is not None and is_unsolvable(session.variant.id, deal),
            clock=clock,
        )

    return ask


def _unseen(position: Position) -> tuple[int, int]:
    if not isinstance(position, KlondikePosition):
        return 0, 0
    seen = features(position, 0.0, 0, 0)
    return seen.face_down, seen.stock_unseen


def follow(
    variant: str,
    deal: int,
    ask: HintFn,
    *,
    max_hints: int = 1500,
    circle_limit: int = 2,
) -> Game:
    """Play deal ``deal`` of ``variant`` by hints alone until it is won, a
    hint has no move, a position comes up more than ``circle_limit`` times,
    or ``max_hints`` hints were played."""
    session = Session(variant, deal=deal)
    family = session.variant.family
    game = Game(variant, deal)
    counts: Counter[object] = Counter([circle_key(family, session.position)])
    previous: tuple[Position, Hint] | None = None
    for _ in range(max_hints):
        if session.is_won():
            game.won, game.end = True, "won"
            break
        wall, cpu = time.perf_counter(), time.process_time()
        hint = ask(session, previous)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        game.hints.append(
            HintRecord(
                hint.kind,
                wall,
                cpu,
                hint.samples,
                hint.win_chance,
                hint.decided,
                hint.hindsight,
                *_unseen(session.position),
            )
        )
        if hint.move is None:
            game.end = hint.kind
            break
        previous = (session.position, hint)
        move = hint.move
        if hint.steps:
            session.move_by_steps(move, hint.steps)
        elif "stock" in (move.src.kind, move.dst.kind):
            session.draw()
        else:
            session.move(move)
        game.moves = session.moves_count
        key = circle_key(family, session.position)
        counts[key] += 1
        game.most_seen = max(game.most_seen, counts[key])
        if counts[key] > circle_limit:
            game.end = "circle"
            break
    else:
        game.end = "limit"
    if session.is_won():
        game.won, game.end = True, "won"
    return game
