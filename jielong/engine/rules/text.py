"""Reading position text as people write it, with errors that say where.

Shared by the FreeCell and Klondike readers: the line cleaning (a UTF-8 byte
order mark, CRLF, tabs, trailing blanks, ``#`` comments), the card spellings
Freecell Solver reads (``T``, ``10`` or ``0`` for a ten, ``1`` for an ace,
either case), the ``Foundations:``/``Freecells:`` line prefixes in all of
Freecell Solver's spellings, and the deck check that names the duplicated
and the missing cards.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from jielong.engine.cards import DECK, Card, CardParseError, Suit
from jielong.engine.rules.core import PositionParseError

FOUNDATION_PREFIXES = ("foundations:", "foundation:", "founds:", "found:", "decks:", "deck:")
FREECELL_PREFIXES = ("freecells:", "freecell:", "fc:")
TALON_PREFIXES = ("talon:", "queue:")


@dataclass(frozen=True, slots=True)
class Line:
    number: int
    """1-based, as an editor counts."""
    text: str
    """Without comment, trailing blanks or line end; tabs made spaces."""


def lines_of(text: str) -> list[Line]:
    """The text's lines, cleaned, numbered from 1; blank lines kept (a blank
    line between columns is an empty column to Freecell Solver)."""
    if text.startswith("\ufeff"):
        text = text[1:]
    out = []
    for i, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].replace("\t", " ").replace("\ufeff", "").rstrip()
        out.append(Line(i, line))
    return out


def strip_prefix(text: str, prefixes: Iterable[str]) -> str | None:
    """The rest of ``text`` after the first of ``prefixes`` it starts with
    (any case), or ``None``."""
    low = text.lower()
    for p in prefixes:
        if low.startswith(p):
            return text[len(p) :]
    return None


_TEN_OR_ACE = re.compile(r"^(?:([01])([CDHScdhs♣♦♥♠♧♢♡♤])|([CDHScdhs♣♦♥♠♧♢♡♤])([01]))$")


def card(token: str, line: int) -> Card:
    """One card in any spelling read here, or an error naming the token."""
    try:
        return Card.parse(token)
    except CardParseError:
        pass
    m = _TEN_OR_ACE.match(token)
    if m:  # Freecell Solver's "0" for a ten and "1" for an ace
        digit = m.group(1) or m.group(4)
        suit = Suit.parse(m.group(2) or m.group(3))
        return Card.of(10 if digit == "0" else 1, suit)
    raise PositionParseError(
        f"line {line}: not a card: {token!r}", "not_a_card", line=line, token=token
    )


def cards(text: str, line: int) -> tuple[Card, ...]:
    return tuple(card(t, line) for t in text.split())


_RANKS = {"0": 0, "A": 1, "1": 1, "T": 10, "10": 10, "J": 11, "Q": 12, "K": 13}
_FOUNDATION_ENTRY = re.compile(r"^(.)-*(10|.)$")


def foundation_entries(text: str, line: int, limit: int = 4) -> list[Card | None]:
    """The entries of a ``Foundations:`` line in the order written: ``H-5``
    (suit, dashes, top rank; ``0`` for none yet), or a top card such as ``5H``,
    or ``-`` for an empty slot."""
    out: list[Card | None] = []
    for token in text.split():
        if token == "-":
            out.append(None)
            continue
        try:
            out.append(Card.parse(token))
            continue
        except CardParseError:
            pass
        m = _FOUNDATION_ENTRY.match(token.upper())
        rank = _RANKS.get(m.group(2)) if m else None
        if rank is None and m and m.group(2).isdigit() and m.group(2).isascii():
            rank = int(m.group(2))
        try:
            suit = Suit.parse(m.group(1)) if m else None
        except CardParseError:
            suit = None
        if suit is None or rank is None:
            raise PositionParseError(
                f"line {line}: not a foundation entry: {token!r}",
                "bad_foundations",
                line=line,
                token=token,
            )
        out.append(None if rank == 0 else Card.of(rank, suit))
    if len(out) > limit:
        raise PositionParseError(
            f"line {line}: at most {limit} foundations", "too_many_foundations", line=line
        )
    return out


def foundation_slots(
    entries: list[Card | None], by_suit: bool, line: int
) -> tuple[Card | None, ...]:
    """Four slots from the entries: by suit when the variant fixes them, else
    in the order written (the rest empty)."""
    if not by_suit:
        return tuple(entries + [None] * (4 - len(entries)))
    placed: list[Card | None] = [None] * 4
    for top in entries:
        if top is not None:
            if placed[top.suit] is not None:
                raise PositionParseError(
                    f"line {line}: two foundations of {top.suit.name.lower()}",
                    "bad_foundations",
                    line=line,
                    token=top.code(),
                )
            placed[top.suit] = top
    return tuple(placed)


def body(rows: list[Line], wanted: int, what: str) -> list[Line]:
    """The ``wanted`` pile lines among ``rows`` (the lines that are not
    headers, in order): blank lines between them count as empty piles only
    when that makes the count right, as Freecell Solver reads them."""
    filled = [r for r in rows if r.text]
    if len(filled) == wanted:
        return filled
    while rows and not rows[-1].text:
        rows = rows[:-1]
    if len(rows) != wanted:
        while rows and not rows[0].text:
            rows = rows[1:]
    if len(rows) == wanted:
        return rows
    raise PositionParseError(
        f"a position has {wanted} {what}, not {len(filled)}",
        "pile_count",
        wanted=wanted,
        found=len(filled),
    )


def check_deck(placed: Iterable[tuple[Card, int]]) -> None:
    """Each of the 52 cards exactly once: else name the duplicated cards (with
    the lines they are on) and the missing ones."""
    lines: dict[Card, list[int]] = {}
    for c, line in placed:
        lines.setdefault(c, []).append(line)
    twice = {c: ls for c, ls in lines.items() if len(ls) > 1}
    missing = [c for c in DECK if c not in lines]
    if twice:
        names = sorted(twice, key=lambda c: min(twice[c][1:]))
        where = "; ".join(
            f"{c.code()} (lines {', '.join(map(str, sorted(set(twice[c]))))})" for c in names
        )
        lost = f"; missing: {' '.join(c.code() for c in missing)}" if missing else ""
        raise PositionParseError(
            f"duplicated cards: {where}{lost}",
            "duplicate_cards",
            cards=[c.code() for c in names],
            line=min(twice[names[0]][1:]),
            lines={c.code(): twice[c] for c in names},
            missing=[c.code() for c in missing],
        )
    if missing:
        raise PositionParseError(
            "missing cards: " + " ".join(c.code() for c in missing),
            "missing_cards",
            cards=[c.code() for c in missing],
        )


def foundation_cards(founds: Iterable[Card | None], line: int) -> list[tuple[Card, int]]:
    """The cards a foundation line stands for (each top and all below it)."""
    out: list[tuple[Card, int]] = []
    for top in founds:
        if top is not None:
            out.extend((Card.of(r, top.suit), line) for r in range(1, top.rank + 1))
    return out


def fcs_foundation_entries(founds: tuple[Card | None, ...]) -> list[str]:
    """Freecell Solver's entries for four slots in slot order (``H-5``); an
    empty slot takes a suit no other slot shows, at ``0``, so that the slots
    read back in place."""
    used = {t.suit for t in founds if t is not None}
    spare = [s for s in Suit if s not in used]
    out = []
    for top in founds:
        if top is None:
            out.append(f"{spare.pop(0).letter}-0")
        else:
            out.append(f"{top.suit.letter}-{top.code()[0]}")
    return out
