"""A game's undo stack: its steps, its frames, and the loops of stock turns
cut from it.

Klondike's stock can be turned for ever.  A run of stock turns that brings
back the cards of a frame below it (a pure loop: nothing but the stock and
waste moved, and the recycle count grew) is cut from the stack: that frame
takes the loop into its step (``loops`` recycles, ``turns`` moves counted),
with the position and count the loop ended on (a loop back to the start's
cards is a ``loop`` step of its own).  Undo then skips the loop and goes on
through the positions before it; everything an action shows is as without
the cut.  A game's stack holds at most :data:`MAX_UNDO_STEPS` steps.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar

from jielong.engine.families import Family
from jielong.engine.rules.core import Move, Pile, Rules
from jielong.engine.rules.registry import Position

if TYPE_CHECKING:
    # a default for the type checker only: the session runs on the standard
    # library alone (the browser's worker too), whose TypeVar has none before 3.13
    from typing_extensions import TypeVar as DefaultTypeVar

    P = DefaultTypeVar("P", default=Position)
else:
    P = TypeVar("P")
"""The position type of a session; a session made from a variant's id
(whose rules the registry picks at run time) holds either family's,
``Session[Position]``."""

StepKind = Literal["move", "auto", "collect", "restart", "loop"]
STEP_KINDS: tuple[StepKind, ...] = ("move", "auto", "collect", "restart", "loop")

LOOP_TURNS = 53
"""The most stock turns in one pure loop: 52 cards turned one at a time and
the recycle (a dealt game's 24 cards of stock and waste take 25 turns at
most)."""

MAX_UNDO_STEPS = 10_000
"""The most steps a game's undo stack keeps; an action that would push one
more is refused (``history_full``), undo never is.  With pure loops of stock
turns cut, a run of stock turns on the stack is under two loops long, and a
game keeps a few hundred steps (a hint follower's wins take 291 moves at the
median in draw 1, 182 in draw 3, 93 in FreeCell): 10,000 is over thirty such
games played again by restarts, and about 1.6 MB in SQLite."""


@dataclass(frozen=True, slots=True)
class Step:
    """One undo step: the moves it played (none for a restart), then the
    pure loops of stock turns cut from the stack after them: ``loops``
    recycles and ``turns`` moves counted.  A ``loop`` step is such loops
    alone, on the start's own cards."""

    kind: StepKind
    moves: tuple[Move, ...] = ()
    loops: int = 0
    turns: int = 0

    def counted(self) -> int:
        """Moves this step adds to the move counter (a restart's count is
        its loops' turns alone)."""
        return self._own_count() + self.turns

    def _own_count(self) -> int:
        if self.kind == "collect":
            return len(self.moves)
        if self.kind in ("restart", "loop"):
            return 0
        if len(self.moves) > 1:
            return 1  # a run played by its steps
        src, dst, _ = self.moves[0]
        return 0 if src.kind == "cell" and dst.kind == "cell" else 1

    @property
    def stock_turn(self) -> bool:
        """Whether the step's one move is a draw or a recycle."""
        return len(self.moves) == 1 and "stock" in (self.moves[0].src.kind, self.moves[0].dst.kind)

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "kind": self.kind,
            "moves": [[str(m.src), str(m.dst), m.count] for m in self.moves],
        }
        if self.loops:
            out["loops"], out["turns"] = self.loops, self.turns
        return out

    @classmethod
    def from_json(cls, data: object) -> Step:
        if not isinstance(data, dict) or data.get("kind") not in STEP_KINDS:
            raise ValueError(f"not a step: {data!r}")
        moves = tuple(Move(_pile(src), _pile(dst), int(count)) for src, dst, count in data["moves"])
        loops, turns = data.get("loops", 0), data.get("turns", 0)
        step = cls(data["kind"], moves, loops, turns)
        counts = all(type(n) is int and n >= 0 for n in (loops, turns)) and (loops > 0) == (
            turns > 0
        )
        bare = step.kind in ("restart", "loop")
        if not counts or bare != (not moves) or (step.kind == "loop" and not loops):
            raise ValueError(f"not a step: {data!r}")
        return step


@lru_cache(maxsize=64)
def _pile(text: str) -> Pile:
    # a saved game repeats the same few pile ids thousands of times
    return Pile.parse(text)


class Frame(Generic[P]):
    """One level of the undo stack: the step played, the position and move
    count it gave, and the level below.  Immutable and shared: pushing or
    popping a step costs the same however long the game is, and a stack
    replayed once can be kept and resumed without copying it."""

    # a view may keep what it works out of a frame by a weak reference to it
    __slots__ = ("__weakref__", "_root", "below", "count", "depth", "legal", "position", "step")

    def __init__(self, step: Step | None, position: P, count: int, below: Frame[P] | None) -> None:
        self.step = step
        self.position = position
        self.count = count
        self.below = below
        self.depth: int = 0 if below is None else below.depth + 1
        # the start's frame keeps no reference to itself: a stack dropped
        # from memory is freed at once, with no cycle left for the collector
        self._root: Frame[P] | None = None if below is None else below.root
        # worked out from the position once, when first asked for (an undo
        # comes back to a frame that has them)
        self.legal: tuple[Move, ...] | None = None

    @property
    def root(self) -> Frame[P]:
        """The start's frame, at the bottom of the stack."""
        return self if self._root is None else self._root

    def at_depth(self, depth: int) -> Frame[P]:
        """The frame ``depth`` levels above the start (an ancestor of this one)."""
        frame = self
        while frame.depth > depth:
            assert frame.below is not None
            frame = frame.below
        return frame

    def frames(self) -> list[Frame[P]]:
        """The frames from the start's up to this one."""
        found: list[Frame[P]] = []
        frame: Frame[P] | None = self
        while frame is not None:
            found.append(frame)
            frame = frame.below
        found.reverse()
        return found


def common_frame(a: Frame[P], b: Frame[P]) -> Frame[P]:
    """The highest frame two stacks share (steps are compared by identity:
    both stacks grew from one replay)."""
    a, b = a.at_depth(min(a.depth, b.depth)), b.at_depth(min(a.depth, b.depth))
    while a is not b:
        assert a.below is not None and b.below is not None
        a, b = a.below, b.below
    return a


# -- loops of stock turns ------------------------------------------------------


def cut_loop(family: Family[Any, Any], turned: Frame[P]) -> Frame[P]:
    """``turned``, a stock turn just played; or, when it brings back the
    cards of a frame below with nothing but stock turns between (a pure
    loop), that frame with the loop folded into its step.  Below the
    turn, only the frames of one loop can hold those cards."""
    pos = turned.position
    recycles = family.recycles(pos)
    frame = turned.below
    for _ in range(LOOP_TURNS):
        assert frame is not None
        if family.recycled(frame.position, recycles) == pos:
            return _folded(family, frame, pos, turned.count)
        if frame.step is None or not frame.step.stock_turn:
            break
        frame = frame.below
    return turned


def _folded(family: Family[Any, Any], frame: Frame[P], pos: P, count: int) -> Frame[P]:
    """``frame`` (whose cards ``pos`` has) with the loop that ended on
    ``pos`` and ``count`` folded into its step."""
    recycles = family.recycles
    step = frame.step
    if step is None:
        # the start's cards: the loops make a step of their own
        loops = Step("loop", (), recycles(pos) - recycles(frame.position), count - frame.count)
        return Frame(loops, pos, count, frame)
    before = recycles(frame.position) - step.loops  # what its moves left
    folded = replace(step, loops=recycles(pos) - before, turns=count - frame.count + step.turns)
    return Frame(folded, pos, count, frame.below)


def visited_positions(rules: Rules[P], family: Family[Any, Any], top: Frame[P]) -> list[P]:
    """The positions of the stack up to ``top`` as a hint must know them,
    oldest first: each frame's, with the first loops of stock turns folded
    into a frame played again before it (three at most: what a hint tells
    apart is a position come to once or twice, its recycle count past the
    first aside)."""
    found: list[P] = []
    for frame in top.frames():
        if frame.step is not None and frame.step.loops:
            found += _loop_positions(rules, family, frame, min(frame.step.loops, 3))
        found.append(frame.position)
    return found


def _loop_positions(
    rules: Rules[P], family: Family[Any, Any], frame: Frame[P], loops: int
) -> list[P]:
    """The positions of the first ``loops`` loops folded into ``frame``,
    from where they began (a ``loop`` step's start is the frame below)
    up to before the frame's own position."""
    step, end = frame.step, frame.position
    assert step is not None
    pos = family.recycled(end, family.recycles(end) - step.loops)
    cards = family.recycled(end, 0)
    found = [] if step.kind == "loop" else [pos]
    for _ in range(loops * LOOP_TURNS):
        legal = rules.legal_moves(pos)
        turn = next((m for m in legal if "stock" in (m.src.kind, m.dst.kind)), None)
        if turn is None:
            break
        pos = rules.play(pos, turn)
        if pos == end:
            break
        found.append(pos)
        if family.recycled(pos, 0) == cards:
            loops -= 1
            if not loops:
                break
    return found
