"""A game being played: its deal, the stack of undo steps, counters and clock.

The game is kept as the deal (or a custom start position) plus the list of
undo steps currently on the stack (:mod:`jielong.session.history`);
positions are replayed from the start, so what is saved is small explicit
JSON and undo is exact.

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
from dataclasses import dataclass
from typing import Any, Generic, Literal, get_args

from jielong.engine.catalogue import check_deal_number
from jielong.engine.families import Family, family_of
from jielong.engine.rules.core import Illegal, Move, Rules
from jielong.engine.rules.registry import rules_for
from jielong.engine.rules.variants import Variant, get_variant
from jielong.session.history import (
    MAX_UNDO_STEPS,
    Frame,
    P,
    Step,
    StepKind,
    cut_loop,
    visited_positions,
)

MAX_RUN_STEPS = 200
"""More single-card steps than any run through free cells and empty columns needs."""

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
        return visited_positions(self.rules, self.family, self.top)

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
            top = cut_loop(self.family, top)
        if top.depth > MAX_UNDO_STEPS and top.depth > self.top.depth:
            raise ActionError("history_full", limit=MAX_UNDO_STEPS)
        self.top = top
        self.last = last
        self._touch_clock(now)

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
