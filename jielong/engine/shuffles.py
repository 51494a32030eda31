"""The shuffles: Microsoft FreeCell deals and PySolFC Klondike deals by number.

The bottom of the house: cards in, cards out, nothing from the rules or the
solvers (deal ids, the catalogue and the daily deal are
:mod:`jielong.engine.catalogue`).

FreeCell deal N is dealt exactly as Windows FreeCell and Freecell Pro deal game
#N (the Microsoft linear-congruential shuffle), for 1..2**33-1.  Klondike deal N
is dealt exactly as PySolFC deals its Klondike game #N, so a deal can be
replayed there: numbers up to 32000 use the same Microsoft generator on
PySolFC's card order, larger numbers Python's Mersenne Twister seeded with N.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from jielong.engine.cards import DECK, Card

MAX_FREECELL_DEAL = (1 << 33) - 1
MAX_KLONDIKE_DEAL = 10**20 - 1


class DealError(ValueError):
    """An unknown variant, a malformed deal id or a deal number out of range."""


class _MicrosoftRandom:
    """The Microsoft C runtime ``rand()`` as Freecell Pro extends it past 2**31."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.state = seed if seed < 0x1_0000_0000 else seed - 0x1_0000_0000

    def next(self) -> int:
        self.state = (self.state * 214013 + 2531011) & MAX_FREECELL_DEAL
        if self.seed < 0x1_0000_0000:
            value = (self.state >> 16) & 0x7FFF
            return value | 0x8000 if self.seed >= 0x8000_0000 else value
        return ((self.state >> 16) & 0xFFFF) + 1


def freecell_deal(number: int) -> tuple[tuple[Card, ...], ...]:
    """The eight columns of Microsoft FreeCell deal ``number`` (top card last).

    >>> [c.code() for c in freecell_deal(1)[0]]
    ['JD', 'KD', '2S', '4C', '3S', '6D', '6S']
    >>> [col[0].code() for col in freecell_deal(1)]  # the first row dealt
    ['JD', '2D', '9H', 'JC', '5D', '7H', '7C', '5H']
    """
    if not 1 <= number <= MAX_FREECELL_DEAL:
        raise DealError(f"FreeCell deal numbers run from 1 to {MAX_FREECELL_DEAL}")
    rng = _MicrosoftRandom(number)
    deck = list(DECK)
    columns: list[list[Card]] = [[] for _ in range(8)]
    for i in range(52):
        j = rng.next() % len(deck)
        deck[j], deck[-1] = deck[-1], deck[j]
        columns[i % 8].append(deck.pop())
    return tuple(tuple(col) for col in columns)


# PySolFC builds its deck suit by suit in the order clubs, spades, hearts,
# diamonds, ace to king.
_PYSOL_ORDER: tuple[Card, ...] = tuple(
    Card.of(rank, suit) for suit in (0, 3, 2, 1) for rank in range(1, 14)
)


@dataclass(frozen=True, slots=True)
class KlondikeDeal:
    """A Klondike deal: seven piles (first card at the bottom, only the last
    face up) and the stock with the next card to turn last."""

    piles: tuple[tuple[Card, ...], ...]
    stock: tuple[Card, ...]


def _pysol_shuffle(number: int) -> list[Card]:
    if number <= 32000:
        cards = [_PYSOL_ORDER[i + j] for i in range(13) for j in (0, 39, 26, 13)]
        ms = _MicrosoftRandom(number)
        for n in range(len(cards) - 1, 0, -1):
            j = ms.next() % (n + 1)
            cards[n], cards[j] = cards[j], cards[n]
    else:
        cards = list(_PYSOL_ORDER)
        mt = random.Random(number)
        for n in range(len(cards) - 1, 0, -1):
            j = int(mt.random() * (n + 1))
            cards[n], cards[j] = cards[j], cards[n]
    return cards


def klondike_deal(number: int) -> KlondikeDeal:
    """PySolFC's Klondike game ``number``.

    >>> d = klondike_deal(1)
    >>> d.piles[0][-1].code(), d.piles[6][-1].code(), d.stock[-1].code()
    ('QH', 'AS', '4H')
    """
    if not 1 <= number <= MAX_KLONDIKE_DEAL:
        raise DealError(f"Klondike deal numbers run from 1 to {MAX_KLONDIKE_DEAL}")
    order = _pysol_shuffle(number)
    order.reverse()  # PySolFC deals from the top of its talon: the list's end
    it = iter(order)
    # PySolFC deals right to left, rows of face-down cards first (6 piles,
    # then 5, ...), then one face-up card on each pile.
    columns: list[list[Card]] = [[] for _ in range(7)]
    for row in range(6, 0, -1):
        for c in range(row):
            columns[c].append(next(it))
    for c in range(7):
        columns[c].append(next(it))
    talon = list(it)  # first card is the next one turned
    columns.reverse()
    return KlondikeDeal(tuple(tuple(c) for c in columns), tuple(reversed(talon)))
