"""The keys under which the Klondike searches know the states they have
seen (see "Twin classes" and "Waste positions reached by draws" in the notes
of :mod:`jielong.engine.solve.klondike`): the plain key of a state, the key
of its class of twinned positions, and its waste class."""

from __future__ import annotations

from typing import Final

from jielong.engine.solve.searches.klondike_state import BYTE, PILES, State


def state_key(st: State, draw: int, exact_p: bool) -> bytes:
    piles, hidden, _found, talon, p = st
    # each pile behind its face-down count; no part holds the separator 0xff
    parts = sorted(map(bytes.__add__, map(BYTE.__getitem__, hidden), piles))
    parts.append(talon)
    parts.append(BYTE[p if exact_p else waste_class(st, draw)])
    return b"\xff".join(parts)


_HIDDEN_AT: Final = 16
"""In :func:`twin_class`'s number: four bits a foundation, then each pile's
face-down count in :data:`_HIDDEN_BITS` bits, then a bit for each card at
the bottom of a pile with no face-down card."""
_HIDDEN_BITS: Final = 6
_BOTTOMS_AT: Final = _HIDDEN_AT + PILES * _HIDDEN_BITS
_KEY_BYTES: Final = (_BOTTOMS_AT + 52 + 7) // 8


def twin_class(st: State) -> bytes:
    """The key of ``st``'s class of twinned positions (see "Twin classes"
    in the module notes), less the waste position (:func:`twin_key` has
    both).  Twinned positions are won or lost alike, so the full solver's
    searches keep one of each class.

    Within one search a class is named by the foundations, the face-down
    counts, the cards at the bottom of piles with no face-down card, and
    the talon (its cards in turning order); nothing of what lies on which
    card.  Face-down cards never move, so the face-down cards of pile ``i``
    are always the first ``hidden[i]`` of its cards at the start, and the
    face-up card on them the next of those cards (a pile's last card is
    turned over as soon as it is uncovered): the counts name them.  The
    talon and the foundations then name every other card face up on the
    tableau.  Each such card that is neither on face-down cards nor at a
    pile's bottom lies on one of its two parents (the two cards of the next
    rank and the other colour), and each card holds at most one: so for
    each pair of twins face up, the cards lying on the one and on the other
    are the same two cards, or the same one, in either order, which is all
    a class leaves open.  The key is those numbers packed in 14 bytes,
    then the talon."""
    piles, hidden, found, talon, _p = st
    code = found[0] | found[1] << 4 | found[2] << 8 | found[3] << 12
    bottoms = 0  # kept apart while it is built: both stay small ints
    shift = _HIDDEN_AT
    for i in range(PILES):
        h = hidden[i]
        code |= h << shift
        shift += _HIDDEN_BITS
        if not h:
            pile = piles[i]
            if len(pile):
                bottoms |= 1 << pile[0]
    return (code | bottoms << _BOTTOMS_AT).to_bytes(_KEY_BYTES, "little") + talon


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
