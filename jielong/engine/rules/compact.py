"""A position in one short URL-safe word, for links that open it.

One letter per card (``A``-``Z`` then ``a``-``z``, in the cards' index order),
``0`` for an empty slot, ``.`` between piles::

    f.<4 foundation tops><4 free cells>.<column 1>. ... .<column 8>
    k.<4 foundation tops>.<recycles>.<stock>.<waste>.<pile 1>. ... .<pile 7>

where a Klondike pile starts with one letter counting its face-down cards
(``A`` = 0).  A FreeCell deal is about 70 characters.  Reading expands the
word to the position text, so the code is checked as any text is.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Protocol

from jielong.engine.cards import Card
from jielong.engine.rules.core import PositionParseError

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_CODE = re.compile(r"^[fk]\.[A-Za-z0-9.]*$")


class _Table(Protocol):
    """What both families' positions have (this module sits below them)."""

    @property
    def tableau(self) -> tuple[tuple[Card, ...], ...]: ...

    @property
    def foundations(self) -> tuple[Card | None, ...]: ...


class _FreeCellTable(_Table, Protocol):
    @property
    def cells(self) -> tuple[Card | None, ...]: ...


class _KlondikeTable(_Table, Protocol):
    @property
    def hidden(self) -> tuple[int, ...]: ...

    @property
    def stock(self) -> tuple[Card, ...]: ...

    @property
    def waste(self) -> tuple[Card, ...]: ...

    @property
    def recycles(self) -> int: ...


def _letters(cards: Iterable[int]) -> str:
    return "".join(LETTERS[c] for c in cards)


def _slot(card: Card | None) -> str:
    return "0" if card is None else LETTERS[card]


def encode(pos: _FreeCellTable | _KlondikeTable) -> str:
    """The code of a FreeCell or Klondike position."""
    founds = "".join(_slot(t) for t in pos.foundations)
    if hasattr(pos, "cells"):
        cells = "".join(_slot(c) for c in pos.cells)
        return ".".join(["f", founds + cells, *(_letters(col) for col in pos.tableau)])
    piles = (LETTERS[h] + _letters(p) for p, h in zip(pos.tableau, pos.hidden, strict=True))
    parts = [founds, str(pos.recycles), _letters(pos.stock), _letters(pos.waste)]
    return ".".join(["k", *parts, *piles])


def is_code(text: str) -> bool:
    return _CODE.match(text.strip()) is not None


def _bad(detail: str) -> PositionParseError:
    return PositionParseError(f"not a position code: {detail}", "bad_code", token=detail)


def _cards(word: str) -> list[str]:
    out = []
    for ch in word:
        i = LETTERS.find(ch)
        if i < 0:
            raise _bad(word)
        out.append(Card(i).code())
    return out


def _tops(word: str) -> list[str]:
    return ["-" if ch == "0" else " ".join(_cards(ch)) for ch in word]


def expand(text: str) -> str:
    """The position text a code stands for (text that is no code is returned
    as it is)."""
    code = text.strip()
    if not is_code(code):
        return text
    kind, *parts = code.split(".")
    if kind == "f":
        if len(parts) != 9 or len(parts[0]) != 8:
            raise _bad(code[:20])
        head = parts[0]
        lines = ["Foundations: " + " ".join(_tops(head[:4]))]
        lines.append("Freecells: " + " ".join(_tops(head[4:])))
        lines += [": " + " ".join(_cards(col)) for col in parts[1:]]
        return "\n".join(lines) + "\n"
    if len(parts) != 11 or len(parts[0]) != 4 or not parts[1].isdigit():
        raise _bad(code[:20])
    lines = [
        "Foundations: " + " ".join(_tops(parts[0])),
        f"Recycles: {parts[1]}",
        "Stock: " + " ".join(_cards(parts[2])),
        "Waste: " + " ".join(_cards(parts[3])),
    ]
    for pile in parts[4:]:
        if not pile:
            raise _bad(code[:20])
        hidden, cards = LETTERS.find(pile[0]), _cards(pile[1:])
        if hidden < 0 or hidden > len(cards):
            raise _bad(pile)
        lines.append(": " + " ".join(cards[:hidden]) + " | " + " ".join(cards[hidden:]))
    return "\n".join(lines) + "\n"
