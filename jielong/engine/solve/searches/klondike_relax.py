"""The relaxation that proves a Klondike position lost (see "Hopeless
positions" in the notes of :mod:`jielong.engine.solve.klondike`)."""

from __future__ import annotations

from typing import Final

from jielong.engine.cards import DECK
from jielong.engine.rules.core import FITS_ON
from jielong.engine.solve.searches.klondike_state import PILES, State, reach_list

# -- the full solver ------------------------------------------------------------


# Card sets as 52-bit integers (bit c for card c = 4 × (rank − 1) + suit), so
# that a rule of the relaxation applies to every card at once.
_FULL: Final = (1 << 52) - 1
_BIT: Final = [1 << c for c in range(52)]
_KING_BITS: Final = 0xF << 48
_RANK_BASE: Final = sum(1 << (4 * r) for r in range(13))  # bit 4r: the clubs card of rank r + 1
_BLACK_BITS: Final = sum(1 << c for c in DECK if not c.is_red)
# _HOME_BITS[s][n]: the cards of suit s on a foundation holding n of them
_HOME_BITS: Final = [[sum(1 << (4 * r + s) for r in range(n)) for n in range(14)] for s in range(4)]


# the cards each card may lie on, from the rules (none for a king)
_PARENT_BITS: Final = [sum(1 << d for d in FITS_ON[c]) for c in range(52)]


def _children_of(cards: int) -> int:
    """The cards (kings aside) that have a parent in ``cards``: a black card
    of rank r takes both red cards of rank r − 1, a red one both black ones."""
    black = cards & _BLACK_BITS
    black_ranks = ((black | black >> 3) & _RANK_BASE) >> 4
    red_ranks = ((cards >> 1 | cards >> 2) & _RANK_BASE) >> 4
    return black_ranks << 1 | black_ranks << 2 | red_ranks | red_ranks << 3


def _tableau(
    piles: tuple[bytes, ...], hidden: tuple[int, ...]
) -> tuple[list[int], list[int], list[int], int, int]:
    """The tableau as card sets: the card each card lies on, each pile's
    bottom card (0 for an empty pile) and its cards, the pile's last cards
    (uncovered) and the face-up ones."""
    under = [0] * 52  # the card each tableau card lies on
    bottoms = [0] * PILES  # each pile's bottom card, or 0
    pile_bits = [0] * PILES
    uncovered = face_up = 0
    for i in range(PILES):
        pile = piles[i]
        n = len(pile)
        if not n:
            continue
        h = hidden[i]
        below = bottoms[i] = 1 << pile[0]
        cards = down = 0
        for k in range(n):
            c = pile[k]
            b = 1 << c
            if k:
                under[c] = below
            if k < h:
                down |= b
            cards |= b
            below = b
        pile_bits[i] = cards
        face_up |= cards & ~down
        uncovered |= below
    return under, bottoms, pile_bits, uncovered, face_up


def _talon(talon: bytes, p: int, draw: int) -> tuple[list[int], list[int], int]:
    """The talon as card sets: the cards from each position on, each card's
    position, and the waste tops draws and recycles reach now."""
    n = len(talon)
    after = [0] * (n + 1)  # after[t]: the talon cards from position t on
    place = [0] * 52
    cards = 0
    for t in range(n - 1, -1, -1):
        c = talon[t]
        place[c] = t
        cards |= 1 << c
        after[t] = cards
    shown = 0
    for q in reach_list(p, n, draw):
        shown |= 1 << talon[q - 1]
    return after, place, shown


def _kings(bottoms: list[int], pile_bits: list[int], leave: int) -> tuple[int, int]:
    """Where kings can go, given the cards that can leave their places:
    every king when some pile can be emptied (else none), and the kings
    that can leave a pile for an empty one (not those of the only pile
    that can be emptied)."""
    empties = 0
    emptied = -1  # the first pile that can be emptied
    for j in range(PILES):
        b = bottoms[j]
        if not b or leave & b:
            empties += 1
            if emptied < 0:
                emptied = j
    if empties > 1:
        return _KING_BITS, _KING_BITS
    if empties:
        return _KING_BITS, _KING_BITS & ~pile_bits[emptied]
    return 0, 0


def _closure(
    under: list[int],
    bottoms: list[int],
    pile_bits: list[int],
    uncovered: int,
    face_up: int,
    home: int,
    talon: bytes,
    p: int,
    draw: int,
) -> tuple[int, int, int]:
    """The least fixpoint of the module notes' facts: the cards that can go
    home and those that can lie open (every card home: stops early)."""
    bit = _BIT
    n = len(talon)
    after, place, shown = _talon(talon, p, draw)
    leave = top = played = counted = 0  # counted: the played talon cards read
    first = n  # the first played talon card's position
    while True:
        king, king_off_pile = _kings(bottoms, pile_bits, leave)
        after_home = (home << 4 | 0xF) & _FULL  # cards whose predecessor is home
        landing = _children_of(top)
        # tableau cards leave (face up, or uncovered), uncovering the card below
        new_leave = leave
        while True:
            more = (
                (uncovered | face_up)
                & (landing | king_off_pile | uncovered & after_home)
                & ~new_leave
            )
            if not more:
                break
            new_leave |= more
            while more:
                b = more & -more
                more ^= b
                uncovered |= under[b.bit_length() - 1]
        # talon cards are shown (the one before each card played, and all
        # after the first one played), then played
        new_shown = shown
        rest = played & ~counted
        counted = played
        while rest:
            b = rest & -rest
            rest ^= b
            t = place[b.bit_length() - 1]
            if t < first:
                first = t
            if t:
                new_shown |= bit[talon[t - 1]]
        if first < n:
            new_shown |= after[first + 1]
        new_played = played | new_shown & after[0] & (landing | king | after_home)
        new_top = top | uncovered | (new_leave | new_played | home) & (landing | king)
        new_home = home
        while True:
            more = (new_shown | new_top) & ~new_home & (new_home << 4 | 0xF)
            if not more:
                break
            new_home |= more
        if new_home == _FULL:
            return new_home, new_top, uncovered
        if (
            new_leave == leave
            and new_top == top
            and new_played == played
            and new_shown == shown
            and new_home == home
        ):
            return home, top, uncovered
        leave, top, played, shown, home = new_leave, new_top, new_played, new_shown, new_home


def _home(found: tuple[int, ...]) -> int:
    home = _HOME_BITS[0][found[0]] | _HOME_BITS[1][found[1]]
    return home | _HOME_BITS[2][found[2]] | _HOME_BITS[3][found[3]]


Tableau = tuple[list[int], list[int], list[int], int, int]
"""The tableau as card sets (:func:`_tableau`), which both checks read."""


def tableau_of(st: State) -> Tableau:
    """``st``'s tableau as card sets, made once for both checks on one
    state (:func:`relaxed_lost`, :func:`twins_lost`)."""
    return _tableau(st[0], st[1])


def relaxed_lost(st: State, draw: int, tableau: Tableau) -> bool:
    """True when the relaxation of the module notes shows that some card can
    never reach its foundation (a proof that ``st`` cannot be won).

    Each fact is a set of cards (:func:`_children_of`); every round applies
    every rule once to all cards, until nothing changes (the least fixpoint)."""
    _piles, _hidden, found, talon, p = st
    home = _home(found)
    if home == _FULL:
        return False
    under, bottoms, pile_bits, uncovered, face_up = tableau
    got, _, _ = _closure(under, bottoms, pile_bits, uncovered, face_up, home, talon, p, draw)
    return got != _FULL


def twins_lost(st: State, draw: int, tableau: Tableau) -> bool:
    """True when twins in one pile show ``st`` lost (:func:`_twins_stuck`)."""
    under, bottoms, pile_bits, uncovered, face_up = tableau
    return _twins_stuck(st, draw, _home(st[2]), under, bottoms, pile_bits, uncovered, face_up)


def hopeless(st: State, draw: int, twins: bool = True) -> bool:
    """:func:`relaxed_lost`, and unless ``twins`` is false
    :func:`twins_lost`: a proof that ``st`` cannot be won."""
    tableau = tableau_of(st)
    return relaxed_lost(st, draw, tableau) or (twins and twins_lost(st, draw, tableau))


def _twins_stuck(
    st: State,
    draw: int,
    home: int,
    under: list[int],
    bottoms: list[int],
    pile_bits: list[int],
    uncovered: int,
    face_up: int,
) -> bool:
    """Twins in one pile, the lower one face down on a card: before the
    lower one leaves, the upper one lies on one of their two parents or is
    home, so the lower one needs the other parent or its foundation.  True
    when the relaxation with the card under the lower twin never uncovered
    shows neither, or shows that both parents must have moved by then and
    so need both of their own parents (see "Twins that wait for the same
    parents" in the module notes)."""
    piles, hidden, _found, talon, p = st
    bit = _BIT
    for i in range(PILES):
        pile = piles[i]
        h = hidden[i]
        for k in range(1, h):
            low = pile[k]
            if low >> 2 == 12:
                continue  # kings lie on no card
            up = pile.find(low ^ 3, k + 1)  # its twin: clubs and spades, diamonds and hearts
            if up < 0:
                continue
            held = under[pile[up]] & face_up  # the upper twin lies on it, face up
            parents = _PARENT_BITS[low]
            if (uncovered | held) & parents == parents:
                continue  # both parents lie open now, or hold the upper twin
            below = under[low]
            under[low] = 0
            got, top, open_at = _closure(
                under, bottoms, pile_bits, uncovered, face_up, home, talon, p, draw
            )
            under[low] = below
            if got & (bit[low] | bit[pile[up]]):
                continue
            if (top | held) & parents != parents:
                return True
            if low >> 2 == 11:
                continue  # the parents are kings
            # both parents are on the tableau then; one that never comes
            # free at its place lies on a parent of its own
            if (open_at | held) & parents:
                continue
            a = (parents & -parents).bit_length() - 1
            b = (parents ^ 1 << a).bit_length() - 1
            carried = (under[a] | under[b]) & face_up  # a parent lies on it, face up
            grand = _PARENT_BITS[a]
            if (top | carried) & grand != grand:
                return True
    return False
