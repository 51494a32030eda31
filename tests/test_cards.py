"""Cards: index layout, parse and format in both forms, colours, and the
documentation examples of the modules this suite owns."""

from __future__ import annotations

import doctest
from types import ModuleType

import pytest

import jielong.engine.cards
import jielong.engine.catalogue
import jielong.engine.notation
import jielong.engine.shuffles
from jielong.engine.cards import (
    DECK,
    Card,
    CardParseError,
    Suit,
    fits_on_tableau,
    format_cards,
    parse_cards,
)


def test_deck_layout() -> None:
    assert len(DECK) == 52 and list(DECK) == list(range(52))
    assert [c.code() for c in DECK[:5]] == ["AC", "AD", "AH", "AS", "2C"]
    assert DECK[-1].code() == "KS"
    for c in DECK:
        assert c == (c.rank - 1) * 4 + c.suit
        assert Card.of(c.rank, c.suit) is c


@pytest.mark.parametrize("card", DECK)
def test_code_and_symbol_round_trip(card: Card) -> None:
    assert Card.parse(card.code()) == card
    assert Card.parse(card.code().lower()) == card
    assert Card.parse(card.symbol()) == card
    assert Card.parse(f"  {card.code()} ") == card
    assert eval(repr(card), {"Card": Card}) == card
    assert str(card) == card.code()


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("10H", "TH"),
        ("10h", "TH"),
        ("♥10", "TH"),
        ("10♥", "TH"),
        ("Q♥", "QH"),
        ("♡Q", "QH"),
        ("♤A", "AS"),
        ("♧K", "KC"),
        ("♢2", "2D"),
        ("td", "TD"),
    ],
)
def test_parse_forms(text: str, code: str) -> None:
    assert Card.parse(text).code() == code


@pytest.mark.parametrize("text", ["", "A", "1H", "11H", "ZH", "QX", "QHH", "♥", "♥1", "AA", "10"])
def test_parse_refuses(text: str) -> None:
    with pytest.raises(CardParseError):
        Card.parse(text)
    with pytest.raises(ValueError):  # CardParseError is a ValueError
        Card.parse(text)


def test_symbols_and_colours() -> None:
    assert Card.parse("TD").symbol() == "♦10"
    assert Card.parse("AS").symbol() == "♠A"
    reds = {c.code() for c in DECK if c.is_red}
    assert len(reds) == 26 and all(code[1] in "DH" for code in reds)
    assert Card.parse("QH").colour == "red" and Card.parse("QS").colour == "black"
    assert [s.letter for s in Suit] == ["C", "D", "H", "S"]
    assert [s.is_red for s in Suit] == [False, True, True, False]
    assert Suit.parse("spades") is Suit.SPADES and Suit.parse("♦") is Suit.DIAMONDS
    with pytest.raises(CardParseError):
        Suit.parse("X")


def test_out_of_range() -> None:
    with pytest.raises(ValueError):
        Card(52)
    with pytest.raises(ValueError):
        Card(-1)
    with pytest.raises(ValueError):
        Card.of(0, Suit.CLUBS)
    with pytest.raises(ValueError):
        Card.of(14, Suit.CLUBS)


def test_fits_on_tableau_exhaustive() -> None:
    for card in DECK:
        for target in DECK:
            expected = card.rank + 1 == target.rank and card.is_red != target.is_red
            assert fits_on_tableau(card, target) == expected


def test_card_lists() -> None:
    cards = parse_cards("AS 10h ♦Q")
    assert format_cards(cards) == "AS TH QD"
    assert parse_cards("") == ()


@pytest.mark.parametrize(
    "module",
    [
        jielong.engine.cards,
        jielong.engine.shuffles,
        jielong.engine.catalogue,
        jielong.engine.notation,
    ],
)
def test_doctests(module: ModuleType) -> None:
    result = doctest.testmod(module)
    assert result.failed == 0
