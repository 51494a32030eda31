"""The keys under which the Klondike searches know the states they have
seen (see "Twin classes" and "Waste positions reached by draws" in the notes
of :mod:`jielong.engine.solve.klondike`): the plain key of a state, the key
of its class of twinned positions, and its waste class."""

from __future__ import annotations

from typing import Final

from jielong.engine.solve.searches.klondike_state import BYTE, PILES, UNKNOWN, State


def state_key(st: State, draw: int, exact_p: bool) -> bytes:
    piles, hidden, _found, talon, p = st
    # each pile behind its face-down count; no part holds the separator 0xff
    parts = sorted(map(bytes.__add__, map(BYTE.__getitem__, hidden), piles))
    parts.append(talon)
    parts.append(BYTE[p if exact_p else waste_class(st, draw)])
    return b"\xff".join(parts)


_NOT_UP: Final = 53
"""In :func:`twin_key`: the card is not face up on the tableau (52: it is,
with nothing on it)."""
_ON_AT: Final = PILES
"""Where :func:`twin_class`'s key holds what lies on card 0."""
_KEY_START: Final = [0] * PILES + [_NOT_UP] * 52
_BOTTOM: Final = 64
"""In :func:`twin_key`: added for the bottom card of a pile with no
face-down card."""


def twin_class(st: State) -> bytes:
    """The key of ``st``'s class of twinned positions (see "Twin classes"
    in the module notes), less the waste position (:func:`twin_key` has
    both): piles in any order, and for every pair of twins face
    up on the tableau, what lies on the one and on the other in either order.
    Twinned positions are won or lost alike, so the full solver's searches
    keep one of each class.

    Face-down cards never move, so within one search the face-down cards of
    pile i are always the first ``hidden[i]`` of its cards at the start, and
    the face-up card on them is the next of those cards (a pile's last card
    is turned over as soon as it is uncovered): the key holds ``hidden``,
    what lies on each face-up card (for each twin pair, the lower card takes
    the smaller of the two), which cards lie at the bottom of a pile with no
    face-down card (in any pile: the order of piles does not matter), and
    the talon (its cards in turning order).  The foundations hold the other
    cards."""
    piles, hidden, _found, talon, _p = st
    # one list: hidden (PILES), then what lies on each card
    key = _KEY_START[:]
    for i in range(PILES):
        pile = piles[i]
        n = len(pile)
        if not n:
            continue
        h = hidden[i]
        key[i] = h
        below = pile[h]
        for k in range(h + 1, n):
            c = pile[k]
            key[_ON_AT + below] = c
            below = c
        key[_ON_AT + below] = UNKNOWN
    # the twins of each rank: c and c + 3, c + 1 and c + 2
    for c in range(_ON_AT, _ON_AT + 52, 4):
        if _NOT_UP != key[c] > key[c + 3]:  # both face up (the twin not: 53)
            key[c], key[c + 3] = key[c + 3], key[c]
        if _NOT_UP != key[c + 1] > key[c + 2]:
            key[c + 1], key[c + 2] = key[c + 2], key[c + 1]
    for i in range(PILES):
        pile = piles[i]
        if len(pile) and not hidden[i]:
            b = _ON_AT + pile[0]
            key[b] = key[b] + _BOTTOM
    return bytes(key) + talon


def waste_class(st: State, draw: int) -> int:
    """Which waste position ``st`` holds, as far as play can tell: ``p``,
    or 0 for every position from which draws reach only the multiples of
    the draw and the talon's end (any position in draw 1)."""
    p = st[4]
    if draw == 1 or p % 3 == 0 or p == len(st[3]):
        return 0
    return p


def twin_key(st: State, draw: int) -> bytes:
    """The key of ``st``'s class of twinned positions with its waste class."""
    return twin_class(st) + BYTE[waste_class(st, draw)]


def _draws_reach(n: int, q: int) -> int:
    """The waste classes (as bits) of the positions from which draws alone,
    with no recycle, reach waste class ``q`` of a talon of ``n`` cards in
    draw 3, ``q`` included: every position reaches the talon's end (class
    0), and ``q - 3``, ``q - 6``... reach ``q``."""
    if q == 0:
        return 1 | sum(1 << t for t in range(1, n) if t % 3)
    return sum(1 << t for t in range(q, 0, -3))


DRAWS_REACH: Final = [[_draws_reach(n, q) for q in range(n + 1)] for n in range(25)]
"""``DRAWS_REACH[n][q]``: :func:`_draws_reach`, for every talon."""
