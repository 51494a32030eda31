"""Cards, suits, ranks and colours.

A card is a small ``int`` (0..51) so that positions stay cheap to copy and hash:
``index = (rank - 1) * 4 + suit`` with suits in the order clubs, diamonds,
hearts, spades.  This is the order of the Microsoft FreeCell deal, so the deal
code needs no translation table.

>>> Card.parse("QH")
Card.parse('QH')
>>> Card.parse("♥Q") == Card.parse("QH") == Card.parse("10h".replace("10", "Q"))
True
>>> Card.parse("TD").rank, Card.parse("TD").suit.letter
(10, 'D')
>>> Card.parse("AS").symbol()
'♠A'
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import IntEnum


class Suit(IntEnum):
    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3

    @property
    def letter(self) -> str:
        return "CDHS"[self]

    @property
    def symbol(self) -> str:
        return "♣♦♥♠"[self]

    @property
    def is_red(self) -> bool:
        return self in (Suit.DIAMONDS, Suit.HEARTS)

    @classmethod
    def parse(cls, text: str) -> Suit:
        t = text.strip().upper()
        for s in cls:
            if t in (s.letter, s.symbol, s.name):
                return s
        if t in ("♤", "♧", "♡", "♢"):
            return cls("♧♢♡♤".index(t))
        raise CardParseError(f"not a suit: {text!r}")


RANK_LETTERS = "A23456789TJQK"


class CardParseError(ValueError):
    """Text that does not name a card, suit or rank."""


def _parse_rank(text: str) -> int:
    t = text.strip().upper()
    if t == "10":
        return 10
    if len(t) == 1 and t in RANK_LETTERS:
        return RANK_LETTERS.index(t) + 1
    raise CardParseError(f"not a rank: {text!r}")


class Card(int):
    """One of the 52 cards; compare, hash and order like its index."""

    __slots__ = ()

    def __new__(cls, index: int) -> Card:
        if not 0 <= index < 52:
            raise ValueError(f"card index out of range: {index}")
        return super().__new__(cls, index)

    @classmethod
    def of(cls, rank: int, suit: Suit | int) -> Card:
        if not 1 <= rank <= 13:
            raise ValueError(f"rank out of range: {rank}")
        return DECK[(rank - 1) * 4 + int(suit)]

    @property
    def rank(self) -> int:
        return (self >> 2) + 1

    @property
    def suit(self) -> Suit:
        return Suit(self & 3)

    @property
    def is_red(self) -> bool:
        return (self & 3) in (1, 2)

    @property
    def colour(self) -> str:
        return "red" if self.is_red else "black"

    def code(self) -> str:
        """Two-character form: ``AS``, ``TD``, ``QH``."""
        return RANK_LETTERS[self >> 2] + "CDHS"[self & 3]

    def symbol(self) -> str:
        """Suit symbol then rank: ``♠A``, ``♦10``, ``♥Q``."""
        r = "10" if self.rank == 10 else RANK_LETTERS[self >> 2]
        return "♣♦♥♠"[self & 3] + r

    def __str__(self) -> str:
        return self.code()

    def __repr__(self) -> str:
        return f"Card.parse({self.code()!r})"

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read ``QH``, ``qh``, ``10H``, ``TH``, ``♥Q``, ``Q♥`` or ``♥10``."""
        t = text.strip()
        if len(t) < 2:
            raise CardParseError(f"not a card: {text!r}")
        try:
            if t[0] in "♣♦♥♠♧♢♡♤":
                suit, rank = Suit.parse(t[0]), _parse_rank(t[1:])
            else:
                suit, rank = Suit.parse(t[-1]), _parse_rank(t[:-1])
        except CardParseError:
            raise CardParseError(f"not a card: {text!r}") from None
        return DECK[(rank - 1) * 4 + suit]


DECK: tuple[Card, ...] = tuple(int.__new__(Card, i) for i in range(52))
"""All 52 cards in index order (A♣ A♦ A♥ A♠ 2♣ ...)."""


def parse_cards(text: str) -> tuple[Card, ...]:
    """Parse whitespace-separated cards."""
    return tuple(Card.parse(t) for t in text.split())


def format_cards(cards: Iterable[Card]) -> str:
    return " ".join(c.code() for c in cards)


def fits_on_tableau(card: int, target: int) -> bool:
    """True when ``card`` may be placed on ``target`` in a tableau column:
    one rank lower and the opposite colour."""
    return (card >> 2) + 1 == (target >> 2) and (((card & 3) in (1, 2)) != ((target & 3) in (1, 2)))
