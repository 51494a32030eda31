"""What a sampled Klondike hint
(:mod:`jielong.engine.solve.searches.klondike_sample`) plays on: the position
as the player sees it, the unseen cards dealt into it, and moves as codes,
which name the same move on every such deal.

A rule move and the internal action a solver's line starts with become one
code (:func:`move_code`, :func:`action_code`), so the moves of the real
position can be compared with the first moves of the lines found on each
deal, and played there (:func:`play_code`).  A line is handed on to the next
hint packed, four bytes an action (:func:`pack_line`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from jielong.engine.rules.core import Move
from jielong.engine.rules.klondike import KlondikePosition
from jielong.engine.solve.searches.klondike_keys import state_key
from jielong.engine.solve.searches.klondike_state import (
    BYTE,
    FOUNDATION,
    FOUNDATION_DOWN,
    PILE_MOVE,
    RANK,
    RUN_SPLIT,
    STOCK_TURN,
    UNKNOWN,
    WASTE_PLAY,
    Action,
    State,
    apply,
    from_position,
    split_steps,
)


def unknown_cards(vis: State) -> list[int]:
    """The cards the player cannot see, in order: every card not face up on
    the tableau, not seen in the talon and not on a foundation."""
    piles, _hidden, found, talon, _p = vis
    known = bytearray(53)
    for pile in piles:
        for c in pile:
            known[c] = 1
    for c in talon:
        known[c] = 1
    for s in range(4):
        for r in range(found[s]):
            known[r * 4 + s] = 1
    return [c for c in range(52) if not known[c]]


def deal_unknown(vis: State, cards: list[int]) -> State:
    """``vis`` with its placeholders replaced by ``cards`` in turn: the
    piles' face-down cards first, then the talon's unseen part."""
    piles, hidden, found, talon, p = vis
    at = 0
    out: list[bytes] = []
    for pile, h in zip(piles, hidden, strict=True):
        out.append(bytes(cards[at : at + h]) + pile[h:])
        at += h
    if UNKNOWN in talon:
        unseen = len(talon) - p
        talon = talon[:p] + bytes(cards[at : at + unseen])
    return tuple(out), hidden, found, talon, p


def masked(st: State, stock_known: bool) -> State:
    """``st`` as the player sees it: face-down cards, and the stock's unseen
    part unless ``stock_known``, replaced by :data:`UNKNOWN`."""
    piles, hidden, found, talon, p = st
    out = tuple(BYTE[UNKNOWN] * h + pile[h:] for pile, h in zip(piles, hidden, strict=True))
    if not stock_known:
        talon = talon[:p] + BYTE[UNKNOWN] * (len(talon) - p)
    return out, hidden, found, talon, p


def visible_state(position: KlondikePosition) -> tuple[State, bool]:
    """The internal state with every card the player cannot know replaced by
    :data:`UNKNOWN`, and whether the stock is known."""
    stock_known = position.stock_all_seen()
    return masked(from_position(position), stock_known), stock_known


def seed_of(vis: State, draw: int) -> int:
    """The random stream's seed: a digest of the visible position."""
    found = bytes(vis[2])
    digest = hashlib.sha256(state_key(vis, draw, True) + b"\xfe" + found + BYTE[draw])
    return int.from_bytes(digest.digest()[:8], "big")


STOCK_CLICK: tuple[int, ...] = (STOCK_TURN,)
"""The code of a draw or recycle (see :func:`move_code`)."""


def move_code(position: KlondikePosition, move: Move) -> tuple[int, ...]:
    """A rule move as the code :func:`action_code` gives the action that
    starts with it, led by its action kind: ``(WASTE_PLAY, dst)`` the waste
    top, ``(PILE_MOVE, pile, count, dst)``, ``(FOUNDATION_DOWN, suit, dst)``
    a foundation card back down, ``(STOCK_TURN,)`` a stock click;
    ``dst`` is a pile or :data:`FOUNDATION`."""
    dst = FOUNDATION if move.dst.kind == "foundation" else move.dst.index
    if "stock" in (move.src.kind, move.dst.kind):
        return STOCK_CLICK
    if move.src.kind == "waste":
        return (WASTE_PLAY, dst)
    if move.src.kind == "tableau":
        return (PILE_MOVE, move.src.index, move.count, dst)
    top = position.foundations[move.src.index]
    assert top is not None
    return (FOUNDATION_DOWN, int(top) & 3, dst)


def action_code(st: State, act: Action) -> tuple[int, ...]:
    """The code of the rule move an internal action starts with."""
    kind = act[0]
    if kind == WASTE_PLAY:
        return (WASTE_PLAY, act[2]) if act[1] == st[4] else STOCK_CLICK
    if kind in (PILE_MOVE, RUN_SPLIT):
        return (PILE_MOVE, act[1], len(st[0][act[1]]) - act[2], act[3])
    if kind == FOUNDATION_DOWN:
        return (FOUNDATION_DOWN, act[1], act[2])
    return STOCK_CLICK


def play_code(st: State, code: tuple[int, ...], draw: int) -> State:
    """The state after the rule move of ``code``."""
    piles, hidden, found, talon, p = st
    if code[0] == STOCK_TURN:
        return piles, hidden, found, talon, 0 if p == len(talon) else min(p + draw, len(talon))
    if code[0] == WASTE_PLAY:
        return apply(st, (WASTE_PLAY, p, code[1]))
    if code[0] == PILE_MOVE:
        return apply(st, (PILE_MOVE, code[1], len(piles[code[1]]) - code[2], code[3]))
    return apply(st, (FOUNDATION_DOWN, code[1], code[2]))


def first_code(st: State, line: Sequence[Action]) -> tuple[int, ...] | None:
    """The code of the rule move a line starts with (``None`` for no line)."""
    return action_code(st, line[0]) if line else None


def line_after(st: State, line: Sequence[Action]) -> list[Action]:
    """The rest of a line from ``st`` once its first rule move is played:
    a waste card still to reach keeps its action, a run split its second
    step."""
    act = line[0]
    if act[0] == WASTE_PLAY and act[1] != st[4]:
        return list(line)  # a stock click on the way to that waste card
    if act[0] == RUN_SPLIT:
        return [split_steps(act)[1], *line[1:]]
    return list(line[1:])


def reversible(st: State, code: tuple[int, ...]) -> bool:
    """Whether the rule move of ``code`` can be taken back by the next
    move, whatever the unseen cards are: a card back down from a foundation
    always; a run or a card from a pile when it turns no card over and, if it
    empties the pile, starts with a king (a face-up card lies legally on the
    face-up card under it, so the run may go back there)."""
    if code[0] == FOUNDATION_DOWN:
        return True
    if code[0] != PILE_MOVE:
        return False  # the waste and the stock turn one way
    pile, count = st[0][code[1]], code[2]
    left = len(pile) - count
    if left == 0:
        return RANK[pile[0]] == 12
    return left > st[1][code[1]]


_ACTION_LENGTH = {WASTE_PLAY: 3, PILE_MOVE: 4, FOUNDATION_DOWN: 3, STOCK_TURN: 1, RUN_SPLIT: 4}


def pack_line(line: Sequence[Action]) -> bytes:
    """A line as four bytes an action (every operand is below 256): a hint
    hands on forty of them, kept per game between hints."""
    return b"".join(bytes((*act, 0, 0, 0)[:4]) for act in line)


def unpack_line(data: bytes) -> list[Action]:
    """The line :func:`pack_line` packed."""
    return [tuple(data[i : i + _ACTION_LENGTH[data[i]]]) for i in range(0, len(data), 4)]
