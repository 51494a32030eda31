"""Brute-force references for the Klondike solver and hint tests: every
reachable position, on small near-end positions that hypothesis builds."""

from __future__ import annotations

from itertools import pairwise

from hypothesis import strategies as st

from jielong.engine.cards import Card
from jielong.engine.rules.core import Move
from jielong.engine.rules.klondike import Klondike, KlondikePosition
from jielong.engine.rules.registry import rules_for

NO_LEGAL_MOVE = """
Foundations: 8C QD QH 8S
: 9C | QS
: KC KH | TC
: KS | TS
: KD 9S | JS
: | QC
: | JC
: |
"""
"""A position with no legal move at all (and so no way to win)."""


def rules(draw: int) -> Klondike:
    r = rules_for(f"klondike-{draw}")
    assert isinstance(r, Klondike)
    return r


def brute_force_winnable(r: Klondike, pos: KlondikePosition) -> bool:
    """Every position reachable through the rules (the recycle count does not
    change what can be played, so it is left out of the key)."""
    floor = lowest_loose_rank(pos) - 1
    seen = {shape(pos)}
    todo = [pos]  # depth first: a win, when there is one, comes early
    while todo:
        p = todo.pop()
        if r.is_won(p):
            return True
        # foundation moves last on the stack, so tried first
        for m in sorted(r.legal_moves(p), key=lambda m: m.dst.kind == "foundation"):
            if m.src.kind == "foundation" and foundation_top(p, m).rank < floor:
                continue
            q = r.play(p, m)
            if shape(q) not in seen:
                seen.add(shape(q))
                todo.append(q)
    return False


def lowest_loose_rank(pos: KlondikePosition) -> int:
    cards = [*pos.stock, *pos.waste, *(c for pile in pos.tableau for c in pile)]
    return min((c.rank for c in cards), default=14)


def foundation_top(pos: KlondikePosition, m: Move) -> Card:
    top = pos.foundations[m.src.index]
    assert top is not None
    return top


def shape(pos: KlondikePosition) -> object:
    """What decides the future of a position: the order of piles and of
    foundation slots does not (the rules treat them alike), nor does the
    recycle count."""
    return (
        tuple(sorted(zip(pos.tableau, pos.hidden, strict=True))),
        pos.stock,
        pos.waste,
        tuple(sorted(-1 if f is None else f for f in pos.foundations)),
    )


def is_run(cards: list[Card]) -> bool:
    return all(b.rank + 1 == a.rank and a.is_red != b.is_red for a, b in pairwise(cards))


@st.composite
def small_positions(
    draw: st.DrawFn, max_loose: int = 7, face_down: bool = False, min_loose: int = 1
) -> KlondikePosition:
    """Near-end positions as play makes them (face-up cards form runs): the
    few highest cards of some suits are not home yet, spread at random.
    With ``face_down`` every pile shows only its last card, as in a deal."""
    suits = draw(st.lists(st.integers(0, 3), min_size=min_loose, max_size=max_loose))
    heights = [13 - suits.count(s) for s in range(4)]
    loose = [Card.of(rank, s) for s in range(4) for rank in range(heights[s] + 1, 14)]
    cards = draw(st.permutations(loose))
    places = draw(st.lists(st.integers(0, 8), min_size=len(cards), max_size=len(cards)))
    piles: list[list[Card]] = [[] for _ in range(7)]
    stock: list[Card] = []
    waste: list[Card] = []
    for c, where in zip(cards, places, strict=True):
        (stock if where == 7 else waste if where == 8 else piles[where]).append(c)
    hidden = []
    for p in piles:
        h = max(len(p) - 1, 0) if face_down else draw(st.integers(0, max(len(p) - 1, 0)))
        while not is_run(p[h:]):
            h += 1
        hidden.append(min(h, max(len(p) - 1, 0)))
    founds = tuple(Card.of(h, s) if h else None for s, h in enumerate(heights))
    return KlondikePosition(
        tuple(tuple(p) for p in piles),
        tuple(hidden),
        tuple(stock),
        tuple(waste),
        founds,
        draw(st.integers(0, 1)),
    )
