"""A game being played: its deal, the stack of undo steps, counters and clock.

The game is kept as the deal (or a custom start position) plus the list of
undo steps currently on the stack; positions are replayed from the start, so
what is saved is small explicit JSON and undo is exact.

Klondike's stock can be turned for ever.  A run of stock turns that brings
back the cards of a frame below it (a pure loop: nothing but the stock and
waste moved, and the recycle count grew) is cut from the stack: that frame
takes the loop into its step (``loops`` recycles, ``turns`` moves counted),
with the position and count the loop ended on (a loop back to the start's
cards is a ``loop`` step of its own).  Undo then skips the loop and goes on
through the positions before it; everything an action shows is as without
the cut.  A game's stack holds at most :data:`MAX_UNDO_STEPS` steps.

Move counting: a move of any length is one move; free cell to
free cell counts nothing; a Klondike draw or recycle is one move; an
auto-complete step is one move; ``kongdang``'s auto-collect counts one per card
but is a single undo step.  Undo takes its step's count back.  Restart is an
undo step too (it can itself be undone); it sets the count to 0.  The clock
counts active time only and is never rewound.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar, get_args

from jielong.engine.catalogue import check_deal_number
from jielong.engine.families import Family, family_of
from jielong.engine.rules.core import Illegal, Move, Pile, Rules
from jielong.engine.rules.registry import Position, rules_for
from jielong.engine.rules.variants import Variant, get_variant

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
MAX_RUN_STEPS = 200
"""More single-card steps than any run through free cells and empty columns needs."""

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

# Draws without reaching a foundation before the finishing simulation gives up:
# two full passes of a 24-card stock turned one card at a time.
_IDLE_DRAWS = 52


class ActionError(ValueError):
    """An action that is refused; ``code`` is the machine code of the answer."""

    def __init__(self, code: str, **params: object) -> None:
        self.code = code
        self.params = params
        super().__init__(code)


class IllegalAction(ActionError):
    """A move the rules refuse; ``reason`` is the :class:`Illegal` code."""

    def __init__(self, reason: Illegal, **details: int) -> None:
        super().__init__("illegal_move", reason=reason.value, **details)
        self.reason = reason
        self.details = details


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


LastType = Literal["move", "autocomplete_step", "draw", "recycle", "undo", "restart", "autocollect"]
LAST_TYPES: tuple[LastType, ...] = get_args(LastType)


@dataclass(frozen=True, slots=True)
class Last:
    """What the last action did, as the page is told to animate it: the
    moves it played (or, for an undo, took back), whether a move turned a
    card face up, and for an undo which kind of step it took back."""

    type: LastType
    moves: tuple[Move, ...] = ()
    flipped: bool | None = None
    """For one move (``move``, ``autocomplete_step``) only."""
    kind: StepKind | None = None
    """For an undo only."""

    def to_json(self) -> dict[str, object]:
        if self.type == "undo":
            return {"type": "undo", "kind": self.kind, "moves": [m.to_json() for m in self.moves]}
        if self.type == "autocollect":
            return {"type": self.type, "moves": [m.to_json() for m in self.moves]}
        if not self.moves:
            return {"type": self.type}
        out: dict[str, object] = {"type": self.type, **self.moves[0].to_json()}
        if self.flipped is not None:
            out["flipped"] = self.flipped
        return out


def now_ms() -> int:
    return time.time_ns() // 1_000_000


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


class Session(Generic[P]):
    """A game: variant, deal or custom start, undo steps, clock and win record.

    Typed by its position (:class:`~jielong.engine.rules.klondike.KlondikePosition`
    or :class:`~jielong.engine.rules.freecell.FreeCellPosition`); whatever differs
    between the families, the session asks its :class:`Rules`.

    The methods that act (:meth:`move`, :meth:`draw`, :meth:`undo`,
    :meth:`restart`, :meth:`autocomplete_step`, :meth:`autocollect`) either
    change the game or raise :class:`ActionError` and change nothing.
    """

    def __init__(
        self,
        variant_id: str,
        *,
        deal: int | None = None,
        start_text: str | None = None,
        daily: dt.date | None = None,
        steps: Sequence[Step] = (),
        elapsed_ms: int = 0,
        running_since: int | None = None,
        won_ms: int | None = None,
        won_moves: int | None = None,
        last: Last | None = None,
        replayed: Frame[P] | None = None,
    ) -> None:
        self.variant: Variant = get_variant(variant_id)
        self.rules: Rules[P] = rules_for(variant_id)
        # what differs between the families beyond the rules, chosen once
        self.family: Family[Any, Any] = family_of(variant_id)
        if (deal is None) == (start_text is None):
            raise ValueError("a game starts from a deal number or a position, not both")
        if replayed is not None:
            # the stack's bottom is this very start, already dealt or parsed
            self.start = replayed.root.position
        elif deal is not None:
            check_deal_number(variant_id, deal)
            self.start = self.rules.deal(deal)
        else:
            assert start_text is not None
            self.start = self.rules.from_text(start_text)
        self.deal = deal
        # kept in the rules' own format: canonical, and free of whatever else
        # the submitted text carried (comments, stray characters)
        self.start_text: str | None = None
        if deal is None:
            self.start_text = start_text if replayed is not None else self.rules.to_text(self.start)
        self.daily = daily
        # the same steps replayed before: reuse the positions they gave
        self.top: Frame[P] = Frame(None, self.start, 0, None) if replayed is None else replayed
        for step in steps:
            self._push(step)
        self.elapsed_ms = elapsed_ms
        self.running_since = running_since
        self.won_ms = won_ms
        self.won_moves = won_moves
        self.last: Last | None = last

    # -- state --------------------------------------------------------------

    @property
    def position(self) -> P:
        return self.top.position

    @property
    def moves_count(self) -> int:
        return self.top.count

    @property
    def steps(self) -> list[Step]:
        """The undo stack, oldest step first (walks the whole stack)."""
        return [f.step for f in self.top.frames() if f.step is not None]

    @property
    def positions(self) -> list[P]:
        """The start and the position after each step (walks the whole stack)."""
        return [f.position for f in self.top.frames()]

    @property
    def counts(self) -> list[int]:
        return [f.count for f in self.top.frames()]

    @property
    def visited(self) -> list[P]:
        """The positions the game has been in as a hint must know them,
        oldest first: :attr:`positions`, with the first loops of stock turns
        folded into a frame played again before it (three at most: what a
        hint tells apart is a position come to once or twice, its recycle
        count past the first aside)."""
        found: list[P] = []
        for frame in self.top.frames():
            if frame.step is not None and frame.step.loops:
                found += self._loop_positions(frame, min(frame.step.loops, 3))
            found.append(frame.position)
        return found

    def _loop_positions(self, frame: Frame[P], loops: int) -> list[P]:
        """The positions of the first ``loops`` loops folded into ``frame``,
        from where they began (a ``loop`` step's start is the frame below)
        up to before the frame's own position."""
        family, step, end = self.family, frame.step, frame.position
        assert step is not None
        pos = family.recycled(end, family.recycles(end) - step.loops)
        cards = family.recycled(end, 0)
        found = [] if step.kind == "loop" else [pos]
        for _ in range(loops * LOOP_TURNS):
            legal = self.rules.legal_moves(pos)
            turn = next((m for m in legal if "stock" in (m.src.kind, m.dst.kind)), None)
            if turn is None:
                break
            pos = self.rules.play(pos, turn)
            if pos == end:
                break
            found.append(pos)
            if family.recycled(pos, 0) == cards:
                loops -= 1
                if not loops:
                    break
        return found

    @property
    def custom(self) -> bool:
        return self.deal is None

    def legal_moves(self) -> list[Move]:
        return list(self._legal(self.position))

    def _legal(self, pos: P) -> tuple[Move, ...]:
        top = self.top
        if pos is not top.position:
            return tuple(self.rules.legal_moves(pos))
        if top.legal is None:
            top.legal = tuple(self.rules.legal_moves(pos))
        return top.legal

    def is_won(self) -> bool:
        return bool(self.rules.is_won(self.position))

    def elapsed(self, now: int | None = None) -> int:
        if self.running_since is None:
            return self.elapsed_ms
        current = now_ms() if now is None else now
        return self.elapsed_ms + max(0, current - self.running_since)

    @property
    def clock_running(self) -> bool:
        return self.running_since is not None

    def autocomplete_available(self) -> bool:
        if self.variant.finishing != "autocomplete" or self.is_won():
            return False
        pos = self.position
        return self.rules.all_cards_known(pos) and self._finishes(pos)

    def autocollect_available(self) -> bool:
        return self.variant.finishing == "autocollect" and bool(
            self._foundation_moves(self.position)
        )

    # -- clock --------------------------------------------------------------

    def set_clock(self, running: bool, now: int | None = None) -> None:
        current = now_ms() if now is None else now
        if running and self.running_since is None and not self.is_won():
            self.running_since = current
        elif not running and self.running_since is not None:
            self.elapsed_ms = self.elapsed(current)
            self.running_since = None

    # -- actions ------------------------------------------------------------

    def move(self, move: Move, now: int | None = None) -> None:
        pos = self.position
        legal = self._legal(pos)
        if move in legal:
            # the rules' own instance of it, shared: no new objects kept per step
            move = legal[legal.index(move)]
        else:
            reason = self.rules.explain(pos, move) or Illegal.NOT_A_TARGET
            details: dict[str, int] = {}
            limits = self.rules.run_limits(pos)
            if reason is Illegal.RUN_TOO_LONG and limits is not None:
                to_card, to_empty = limits
                onto_card = self.rules.pile_size(pos, move.dst) > 0
                details = {"count": move.count, "limit": to_card if onto_card else to_empty}
            raise IllegalAction(reason, **details)
        self._act(Step("move", (move,)), self._move_last("move", pos, move), now)

    def move_by_steps(self, move: Move, steps: Sequence[Move], now: int | None = None) -> None:
        """A run carried one card at a time through free cells and empty
        columns, as one move and one undo step, however long the run: a hint
        played on its second click (FreeCell variants whose hint does so).
        Every step must be legal in turn, and together they must move exactly
        ``move``'s cards and leave everything else as it was."""
        if not self.variant.hint_plays_on_second_click:
            raise ActionError("not_in_variant", action="steps")
        pos = self.position
        if not (
            move.src.kind == move.dst.kind == "tableau"
            and move.src != move.dst
            and move.count >= 2
            and 0 < len(steps) <= MAX_RUN_STEPS
        ):
            raise ActionError("bad_run_steps")
        reason = self.rules.explain(pos, move)
        if reason is not None and reason is not Illegal.RUN_TOO_LONG:
            raise IllegalAction(reason)
        at = pos
        for step in steps:
            if step not in self.rules.legal_moves(at):
                raise ActionError("bad_run_steps")
            at = self.rules.play(at, step)
        if at != self.rules.play(pos, move):
            raise ActionError("bad_run_steps")
        self._act(Step("move", tuple(steps)), self._move_last("move", pos, move), now)

    def draw(self, now: int | None = None) -> None:
        """Klondike's click on the stock: draw, or recycle an empty stock."""
        if self.variant.family != "klondike":
            raise ActionError("not_in_variant", action="draw")
        pos = self.position
        for m in self._legal(pos):
            if m.src.kind == "stock" or m.dst.kind == "stock":
                kind: LastType = "draw" if m.src.kind == "stock" else "recycle"
                self._act(Step("move", (m,)), Last(kind, (m,)), now)
                return
        raise IllegalAction(Illegal.STOCK_AND_WASTE_EMPTY)

    def undo(self, now: int | None = None) -> None:
        step = self.top.step
        if step is None or self.top.below is None:
            raise ActionError("nothing_to_undo")
        self.top = self.top.below
        self._touch_clock(now)
        self.last = Last("undo", step.moves, kind=step.kind)

    def restart(self, now: int | None = None) -> None:
        if self.top.below is None:
            raise ActionError("nothing_to_restart")
        self._act(Step("restart"), Last("restart"), now)

    def autocomplete_step(self, now: int | None = None) -> None:
        if self.variant.finishing != "autocomplete":
            raise ActionError("not_in_variant", action="autocomplete_step")
        if not self.autocomplete_available():
            raise ActionError("autocomplete_unavailable")
        pos = self.position
        move = self._finishing_move(pos)
        assert move is not None  # the simulation behind availability found one
        self._act(Step("auto", (move,)), self._move_last("autocomplete_step", pos, move), now)

    def autocollect(self, now: int | None = None) -> None:
        if self.variant.finishing != "autocollect":
            raise ActionError("not_in_variant", action="autocollect")
        pos = self.position
        moves: list[Move] = []
        while True:
            up = self._foundation_moves(pos)
            if not up:
                break
            moves.append(up[0])
            pos = self.rules.play(pos, up[0])
        if not moves:
            raise ActionError("autocollect_unavailable")
        self._act(Step("collect", tuple(moves)), Last("autocollect", tuple(moves)), now)

    # -- internals ----------------------------------------------------------

    def _push(self, step: Step) -> None:
        self.top = self._frame(step)

    def _frame(self, step: Step) -> Frame[P]:
        """The frame ``step`` makes on top of the stack."""
        below = self.top
        if step.kind == "restart":
            pos, count = self.start, step.counted()
        else:
            pos = below.position
            for m in step.moves:
                pos = self.rules.play(pos, m)
            count = below.count + step.counted()
        if step.loops:
            pos = self.family.recycled(pos, self.family.recycles(pos) + step.loops)
        return Frame(step, pos, count, below)

    def _act(self, step: Step, last: Last, now: int | None) -> None:
        top = self._frame(step)
        if step.stock_turn:
            top = self._cut_loop(top)
        if top.depth > MAX_UNDO_STEPS and top.depth > self.top.depth:
            raise ActionError("history_full", limit=MAX_UNDO_STEPS)
        self.top = top
        self.last = last
        self._touch_clock(now)

    def _cut_loop(self, turned: Frame[P]) -> Frame[P]:
        """``turned``, a stock turn just played; or, when it brings back the
        cards of a frame below with nothing but stock turns between (a pure
        loop), that frame with the loop folded into its step.  Below the
        turn, only the frames of one loop can hold those cards."""
        family, pos = self.family, turned.position
        recycles = family.recycles(pos)
        frame = turned.below
        for _ in range(LOOP_TURNS):
            assert frame is not None
            if family.recycled(frame.position, recycles) == pos:
                return self._folded(frame, pos, turned.count)
            if frame.step is None or not frame.step.stock_turn:
                break
            frame = frame.below
        return turned

    def _folded(self, frame: Frame[P], pos: P, count: int) -> Frame[P]:
        """``frame`` (whose cards ``pos`` has) with the loop that ended on
        ``pos`` and ``count`` folded into its step."""
        recycles = self.family.recycles
        step = frame.step
        if step is None:
            # the start's cards: the loops make a step of their own
            loops = Step("loop", (), recycles(pos) - recycles(frame.position), count - frame.count)
            return Frame(loops, pos, count, frame)
        before = recycles(frame.position) - step.loops  # what its moves left
        folded = replace(step, loops=recycles(pos) - before, turns=count - frame.count + step.turns)
        return Frame(folded, pos, count, frame.below)

    def _touch_clock(self, now: int | None) -> None:
        """An action means the player is here: run the clock, stop it on a win
        and record the first win (a game's win counts once)."""
        current = now_ms() if now is None else now
        if self.is_won():
            self.set_clock(False, current)
            if self.won_ms is None:
                self.won_ms = self.elapsed_ms
                self.won_moves = self.moves_count
        else:
            self.set_clock(True, current)

    def _foundation_moves(self, pos: P) -> list[Move]:
        """Legal moves to a foundation, lowest card first (then lowest slot)."""
        up = [
            m for m in self._legal(pos) if m.dst.kind == "foundation" and m.src.kind != "foundation"
        ]
        up.sort(key=lambda m: (self.rules.moving_card(pos, m), m.dst.index, str(m.src)))
        return up

    def _finishing_move(self, pos: P) -> Move | None:
        """A foundation move (the lowest card first), else a draw or recycle
        (there is a stock in Klondike only)."""
        up = self._foundation_moves(pos)
        if up:
            return up[0]
        for m in self._legal(pos):
            if m.src.kind == "stock" or m.dst.kind == "stock":
                return m
        return None

    def _finishes(self, pos: P) -> bool:
        """True when the finishing moves alone (foundation moves, and draws in
        Klondike) win from ``pos``."""
        idle = 0
        while not self.rules.is_won(pos):
            move = self._finishing_move(pos)
            if move is None:
                return False
            if move.dst.kind == "foundation":
                idle = 0
            else:
                idle += 1
                if idle > _IDLE_DRAWS:
                    return False
            pos = self.rules.play(pos, move)
        return True

    def _move_last(self, kind: LastType, pos: P, move: Move) -> Last:
        """What the answer says of a move just played."""
        return Last(kind, (move,), self.rules.reveals(pos, move))
