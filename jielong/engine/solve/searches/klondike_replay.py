"""A Klondike search's line played through the rules: each internal action
of :mod:`jielong.engine.solve.searches.klondike_state` expanded into the rule
moves that play it, each one checked to be legal."""

from __future__ import annotations

from jielong.engine.cards import Card
from jielong.engine.rules.core import STOCK, Move, Pile
from jielong.engine.rules.klondike import Klondike, KlondikePosition
from jielong.engine.solve.result import SolverBug
from jielong.engine.solve.searches.klondike_state import (
    FOUNDATION,
    PILE_MOVE,
    RUN_SPLIT,
    STOCK_TURN,
    WASTE_PLAY,
    Action,
    State,
    apply,
    split_steps,
)


def _real_moves(
    rules: Klondike, pos: KlondikePosition, st: State, act: Action
) -> tuple[list[Move], KlondikePosition]:
    """The rule moves that play internal action ``act`` from ``pos``."""
    moves: list[Move] = []
    kind = act[0]
    if kind == STOCK_TURN:
        legal = rules.legal_moves(pos)
        m = next((m for m in legal if m.src == STOCK), None)
        if m is None:
            raise SolverBug("no draw to turn unseen cards")
        return [m], rules.play(pos, m)
    if kind == WASTE_PLAY:
        card = st[3][act[1] - 1]
        for _ in range(2 * len(st[3]) + 4):
            if pos.waste and pos.waste[-1] == card:
                break
            legal = rules.legal_moves(pos)
            m = next((m for m in legal if STOCK in (m.src, m.dst)), None)
            if m is None:
                raise SolverBug("stock move missing")
            moves.append(m)
            pos = rules.play(pos, m)
        else:
            raise SolverBug(f"card {Card(card).code()} never reached the waste top")
        src = Pile("waste")
        dst_code, count = act[2], 1
    elif kind == PILE_MOVE:
        src = Pile("tableau", act[1])
        dst_code, count = act[3], len(st[0][act[1]]) - act[2]
    else:  # FOUNDATION_DOWN
        top = (st[2][act[1]] - 1) * 4 + act[1]
        slot = next(i for i, t in enumerate(pos.foundations) if t is not None and t == top)
        src = Pile("foundation", slot)
        dst_code, count = act[2], 1
    legal = rules.legal_moves(pos)
    for m in legal:
        if m.src == src and m.count == count:
            if dst_code == FOUNDATION and m.dst.kind == "foundation":
                break
            if dst_code != FOUNDATION and m.dst == Pile("tableau", dst_code):
                break
    else:
        raise SolverBug(f"action {act} is not a legal move")
    moves.append(m)
    return moves, rules.play(pos, m)


def replay_actions(
    rules: Klondike, pos: KlondikePosition, st: State, acts: list[Action]
) -> tuple[list[Move], KlondikePosition]:
    """Expand internal actions into rule moves, checking each one."""
    out: list[Move] = []
    for act in acts:
        for step in split_steps(act) if act[0] == RUN_SPLIT else (act,):
            moves, pos = _real_moves(rules, pos, st, step)
            out.extend(moves)
            if step[0] != STOCK_TURN:
                st = apply(st, step)
    return out, pos
