"""Klondike, draw 1 or draw 3, unlimited recycling in order.

Text format of a position (for fixtures, tools and solvers)::

    # klondike-3
    Stock: 4H AC 4D          bottom first: the last card is turned next
    Waste: 7S 3S             bottom first: the last card is the playable top
    Foundations: AS - 2H -   top card of each slot, '-' when empty
    Recycles: 0
    : | QH                   one line per pile, bottom first:
    : 7H | TS                face-down cards before '|', face-up after
    : |                      an empty pile

Only the pile lines are required; a missing line means empty (or 0).

PySolFC's layout is read too (and written with ``style="pysol"``)::

    Talon: 4H AC 4D ...      next card first
    QH
    <7H> TS                  face-down cards in angle brackets

with the same optional ``Waste:``, ``Recycles:`` lines and a ``Foundations:``
line in either spelling (``AS - 2H -`` or Freecell Solver's ``S-A H-2``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from jielong.engine.cards import Card, format_cards
from jielong.engine.rules.compact import expand as expand_code
from jielong.engine.rules.core import (
    FITS_ON,
    STOCK,
    WASTE,
    Illegal,
    Move,
    Pile,
    PositionParseError,
    all_home,
    foundation,
    foundation_count,
    foundation_reason,
    foundation_targets,
    is_ascii_number,
    pile_exists,
    tableau,
    tableau_reason,
    tableau_targets,
)
from jielong.engine.rules.text import (
    FOUNDATION_PREFIXES,
    Line,
    body,
    card,
    cards,
    check_deck,
    fcs_foundation_entries,
    foundation_cards,
    foundation_entries,
    foundation_slots,
    lines_of,
)
from jielong.engine.rules.variants import Variant
from jielong.engine.shuffles import klondike_deal

PILES = 7
# a position text's recycle count: a game recycles a few hundred times at most
MAX_RECYCLES_DIGITS = 6
_TABLEAU = tuple(tableau(i) for i in range(PILES))
_FOUNDATION = tuple(foundation(i) for i in range(4))

# Every move legal_moves can list (draws aside), built once; a run has at most
# thirteen cards.
_TABLEAU_TO_TABLEAU = [
    [[Move(_TABLEAU[i], _TABLEAU[j], k) for k in range(1, 14)] for j in range(PILES)]
    for i in range(PILES)
]
_TABLEAU_TO_FOUNDATION = [
    [Move(_TABLEAU[i], _FOUNDATION[s]) for s in range(4)] for i in range(PILES)
]
_WASTE_TO_TABLEAU = [Move(WASTE, _TABLEAU[j]) for j in range(PILES)]
_WASTE_TO_FOUNDATION = [Move(WASTE, _FOUNDATION[s]) for s in range(4)]
_FOUNDATION_TO_TABLEAU = [
    [Move(_FOUNDATION[s], _TABLEAU[j]) for j in range(PILES)] for s in range(4)
]
_KINGS = tuple(range(48, 52))
_PILES = {"stock": 1, "waste": 1, "foundation": 4, "tableau": PILES}


@dataclass(frozen=True, slots=True)
class KlondikePosition:
    tableau: tuple[tuple[Card, ...], ...]
    """Seven piles, bottom card first."""
    hidden: tuple[int, ...]
    """How many cards at the bottom of each pile are face down."""
    stock: tuple[Card, ...]
    """Face-down stock; the last card is turned next."""
    waste: tuple[Card, ...]
    """Turned cards; the last one is the playable top."""
    foundations: tuple[Card | None, ...]
    """Top card of each of the four foundation slots."""
    recycles: int = 0

    def face_up(self, pile: int) -> tuple[Card, ...]:
        return self.tableau[pile][self.hidden[pile] :]

    def foundation_count(self) -> int:
        return foundation_count(self.foundations)

    def all_revealed(self) -> bool:
        return not any(self.hidden)

    def stock_all_seen(self) -> bool:
        """True when every card of stock and waste has been turned face up at
        least once in this game (a recycle turns the whole waste over, so after
        one, every card has been seen)."""
        return not self.stock or self.recycles > 0


def _ordered_from(cards: tuple[Card, ...], lowest: int) -> int:
    """Index where the ordered run at the end of ``cards`` begins (not below
    ``lowest``)."""
    start = len(cards) - 1
    while start > lowest:
        below, above = cards[start], cards[start - 1]
        if above not in FITS_ON[below]:
            break
        start -= 1
    return start


def _destinations(piles: tuple[tuple[Card, ...], ...]) -> dict[int, list[int]]:
    """Map each card that may go onto the tableau now to its target piles, in
    pile order: the piles whose top it fits, or every empty pile for a king."""
    dest, empty = tableau_targets(piles)
    if empty:
        for king in _KINGS:
            dest[king] = empty
    return dest


class Klondike:
    """Klondike rules for one variant's options (draw count, foundation slots)."""

    def __init__(self, variant: Variant) -> None:
        self.variant = variant
        self.draw = variant.draw
        self.by_suit = variant.foundations_by_suit

    # -- set-up -------------------------------------------------------------

    def deal(self, number: int) -> KlondikePosition:
        d = klondike_deal(number)
        return KlondikePosition(
            tableau=d.piles,
            hidden=tuple(len(p) - 1 for p in d.piles),
            stock=d.stock,
            waste=(),
            foundations=(None,) * 4,
        )

    def is_won(self, position: KlondikePosition) -> bool:
        return all_home(position.foundations)

    def run_limits(self, pos: KlondikePosition) -> None:
        return None  # any ordered run moves

    def pile_size(self, pos: KlondikePosition, pile: Pile) -> int:
        if pile.kind == "tableau":
            return len(pos.tableau[pile.index])
        if pile.kind == "foundation":
            top = pos.foundations[pile.index]
            return 0 if top is None else top.rank
        return len(pos.stock if pile.kind == "stock" else pos.waste)

    def moving_card(self, pos: KlondikePosition, move: Move) -> int:
        src = move.src
        if src.kind == "tableau":
            return int(pos.tableau[src.index][-move.count])
        if src.kind == "waste":
            return int(pos.waste[-1])
        if src.kind == "foundation":
            top = pos.foundations[src.index]
            assert top is not None
            return int(top)
        return -1  # the stock: not a card move

    def reveals(self, pos: KlondikePosition, move: Move) -> bool:
        if move.src.kind != "tableau":
            return False
        i = move.src.index
        remaining = len(pos.tableau[i]) - move.count
        return remaining > 0 and pos.hidden[i] >= remaining

    def all_cards_known(self, pos: KlondikePosition) -> bool:
        return pos.all_revealed() and pos.stock_all_seen()

    # -- moves --------------------------------------------------------------

    def legal_moves(self, pos: KlondikePosition) -> list[Move]:
        # Moves come from prebuilt tables and targets from a map of pile tops:
        # the solvers call this for every node they expand.
        moves: list[Move] = []
        piles = pos.tableau
        dest = _destinations(piles)
        up = foundation_targets(pos.foundations, self.by_suit)
        if pos.stock:
            moves.append(Move(STOCK, WASTE, min(self.draw, len(pos.stock))))
        elif pos.waste:
            moves.append(Move(WASTE, STOCK, len(pos.waste)))
        if pos.waste:
            card = pos.waste[-1]
            for slot in up.get(card, ()):
                moves.append(_WASTE_TO_FOUNDATION[slot])
            for j in dest.get(card, ()):
                moves.append(_WASTE_TO_TABLEAU[j])
        for i, pile in enumerate(piles):
            if not pile:
                continue
            n = len(pile)
            for slot in up.get(pile[-1], ()):
                moves.append(_TABLEAU_TO_FOUNDATION[i][slot])
            to_pile = _TABLEAU_TO_TABLEAU[i]
            for k in range(_ordered_from(pile, pos.hidden[i]), n):
                for j in dest.get(pile[k], ()):
                    if j != i:
                        moves.append(to_pile[j][n - k - 1])
        for slot, top in enumerate(pos.foundations):
            if top is not None:
                for j in dest.get(top, ()):
                    moves.append(_FOUNDATION_TO_TABLEAU[slot][j])
        return moves

    def play(self, pos: KlondikePosition, move: Move) -> KlondikePosition:
        src, dst, n = move
        if src.kind == "stock":
            turned = pos.stock[-n:]
            return KlondikePosition(
                pos.tableau,
                pos.hidden,
                pos.stock[:-n],
                pos.waste + turned[::-1],
                pos.foundations,
                pos.recycles,
            )
        if src.kind == "waste" and dst.kind == "stock":
            return KlondikePosition(
                pos.tableau, pos.hidden, pos.waste[::-1], (), pos.foundations, pos.recycles + 1
            )
        piles = list(pos.tableau)
        hidden = pos.hidden
        waste = pos.waste
        founds = pos.foundations
        if src.kind == "waste":
            cards: tuple[Card, ...] = waste[-1:]
            waste = waste[:-1]
        elif src.kind == "tableau":
            pile = piles[src.index]
            cards = pile[-n:]
            rest = pile[:-n]
            piles[src.index] = rest
            if hidden[src.index] >= len(rest):
                h = list(hidden)
                h[src.index] = max(len(rest) - 1, 0)
                hidden = tuple(h)
        else:  # foundation
            top = founds[src.index]
            assert top is not None
            cards = (top,)
            f = list(founds)
            f[src.index] = None if top < 4 else Card(top - 4)
            founds = tuple(f)
        if dst.kind == "tableau":
            piles[dst.index] = piles[dst.index] + cards
        else:
            f = list(founds)
            f[dst.index] = cards[-1]
            founds = tuple(f)
        return KlondikePosition(tuple(piles), hidden, pos.stock, waste, founds, pos.recycles)

    def explain(self, pos: KlondikePosition, move: Move) -> Illegal | None:
        """Why ``move`` is refused in ``pos``, or ``None`` when it is legal."""
        src, dst, n = move
        if not pile_exists(src, _PILES) or not pile_exists(dst, _PILES):
            return Illegal.UNKNOWN_PILE
        if src == dst:
            return Illegal.SAME_PILE
        if src.kind == "stock":
            if dst.kind != "waste":
                return Illegal.NOT_A_TARGET
            if not pos.stock:
                return Illegal.EMPTY_SOURCE if pos.waste else Illegal.STOCK_AND_WASTE_EMPTY
            return None if n == min(self.draw, len(pos.stock)) else Illegal.WRONG_DRAW
        if dst.kind == "stock":
            if src.kind != "waste":
                return Illegal.NOT_A_TARGET
            if pos.stock:
                return Illegal.NOT_A_TARGET
            if not pos.waste:
                return Illegal.STOCK_AND_WASTE_EMPTY
            return None if n == len(pos.waste) else Illegal.WRONG_DRAW
        if dst.kind == "waste":
            return Illegal.NOT_A_TARGET
        # the moving cards
        if src.kind == "waste":
            if not pos.waste:
                return Illegal.EMPTY_SOURCE
            if n != 1:
                return Illegal.WASTE_TOP_ONLY
            card = pos.waste[-1]
        elif src.kind == "foundation":
            top = pos.foundations[src.index]
            if top is None:
                return Illegal.EMPTY_SOURCE
            if n != 1:
                return Illegal.ONE_CARD_ONLY
            if dst.kind == "foundation":
                return Illegal.NOT_A_TARGET
            card = top
        else:
            pile = pos.tableau[src.index]
            if not pile:
                return Illegal.EMPTY_SOURCE
            if not 1 <= n <= len(pile):  # pile[-0] would be the bottom card
                return Illegal.NOT_ENOUGH_CARDS
            if len(pile) - n < pos.hidden[src.index]:
                return Illegal.FACE_DOWN
            if _ordered_from(pile, pos.hidden[src.index]) > len(pile) - n:
                return Illegal.NOT_A_RUN
            card = pile[-n]
        # the target
        if dst.kind == "foundation":
            if n != 1:
                return Illegal.ONE_CARD_ONLY
            return foundation_reason(pos.foundations, dst.index, card, self.by_suit)
        target_pile = pos.tableau[dst.index]
        if not target_pile:
            return None if card.rank == 13 else Illegal.EMPTY_NEEDS_KING
        return tableau_reason(card, target_pile[-1])

    # -- text ---------------------------------------------------------------

    def to_text(self, pos: KlondikePosition, style: str = "position") -> str:
        """This module's position text, or PySolFC's layout (``pysol``)."""
        if style == "pysol":
            return _pysol_text(pos)
        lines = [f"# {self.variant.id}"]
        lines.append(f"Stock: {format_cards(pos.stock)}".rstrip())
        lines.append(f"Waste: {format_cards(pos.waste)}".rstrip())
        lines.append(
            "Foundations: " + " ".join("-" if t is None else t.code() for t in pos.foundations)
        )
        lines.append(f"Recycles: {pos.recycles}")
        for pile, h in zip(pos.tableau, pos.hidden, strict=True):
            down, up = format_cards(pile[:h]), format_cards(pile[h:])
            lines.append(f": {down} | {up}".replace("  ", " ").rstrip())
        return "\n".join(lines) + "\n"

    def from_text(self, text: str) -> KlondikePosition:
        text = expand_code(text)  # a link's short code reads as its text
        stock: tuple[Card, ...] = ()
        waste: tuple[Card, ...] = ()
        founds: tuple[Card | None, ...] = (None,) * 4
        recycles = 0
        placed: list[tuple[Card, int]] = []
        rows: list[Line] = []
        for ln in lines_of(text):
            line = ln.text.strip()
            n = ln.number
            key = _KEY.match(line)
            if key is None:
                rows.append(Line(n, line))
                continue
            name, rest = key.group(1).strip().lower(), line[key.end() :]
            if name == "stock":
                stock = cards(rest, n)
                placed.extend((c, n) for c in stock)
            elif name in ("talon", "queue"):
                stock = cards(rest, n)[::-1]  # written next card first
                placed.extend((c, n) for c in stock)
            elif name == "waste":
                waste = cards(rest, n)
                placed.extend((c, n) for c in waste)
            elif name == "recycles":
                recycles = _recycles(rest, n)
            elif name + ":" in FOUNDATION_PREFIXES:
                entries = foundation_entries(rest, n)
                if "-" in rest.split() and len(entries) != 4:
                    # dashes hold slots in place: all four are needed
                    raise PositionParseError(
                        f"line {n}: Foundations: needs four entries", "bad_foundations", line=n
                    )
                founds = foundation_slots(entries, False, n)
                placed.extend(foundation_cards(founds, n))
            else:
                raise PositionParseError(
                    f"line {n}: unknown line: {line!r}", "unknown_line", line=n, token=name
                )
        piles: list[tuple[Card, ...]] = []
        hidden: list[int] = []
        for ln in body(rows, PILES, "piles"):
            down, up = _pile(ln)
            placed.extend((c, ln.number) for c in down + up)
            piles.append(down + up)
            hidden.append(len(down))
        check_deck(placed)
        return KlondikePosition(tuple(piles), tuple(hidden), stock, waste, founds, recycles)


_KEY = re.compile(r"^([A-Za-z][A-Za-z -]*):")


def _recycles(text: str, line: int) -> int:
    t = text.strip()
    if not is_ascii_number(t, MAX_RECYCLES_DIGITS):
        raise PositionParseError(
            f"line {line}: Recycles: is a whole number below 10^{MAX_RECYCLES_DIGITS}, not {t!r}",
            "bad_recycles",
            line=line,
            token=t,
        )
    return int(t)


def _pile(ln: Line) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
    """A pile line, bottom first: ``: 7H 5D | TS`` (face-down cards before
    the bar) or PySolFC's ``<7H> <5D> TS`` (face-down cards in brackets)."""
    text = ln.text[1:] if ln.text.startswith(":") else ln.text
    down_text, bar, up_text = text.partition("|")
    if not bar:
        down_text, up_text = "", down_text
    down: list[Card] = [card(t.strip("<>"), ln.number) for t in down_text.split()]
    up: list[Card] = []
    for token in up_text.split():
        if token.startswith("<") and token.endswith(">"):
            if up:
                raise PositionParseError(
                    f"line {ln.number}: a face-down card above a face-up one: {token}",
                    "face_down_above",
                    line=ln.number,
                    token=token,
                )
            down.append(card(token[1:-1], ln.number))
        else:
            up.append(card(token, ln.number))
    if down and not up:
        raise PositionParseError(
            f"line {ln.number}: a pile with face-down cards needs a face-up one",
            "no_face_up",
            line=ln.number,
        )
    return tuple(down), tuple(up)


def _pysol_text(pos: KlondikePosition) -> str:
    """PySolFC's layout: the talon next card first, face-down cards in angle
    brackets; the waste, foundations and recycles only when not empty (an
    empty pile is written ``:`` so that it is not lost)."""
    lines = [f"Talon: {format_cards(reversed(pos.stock))}".rstrip()]
    if pos.waste:
        lines.append(f"Waste: {format_cards(pos.waste)}")
    if any(t is not None for t in pos.foundations):
        lines.append("Foundations: " + " ".join(fcs_foundation_entries(pos.foundations)))
    if pos.recycles:
        lines.append(f"Recycles: {pos.recycles}")
    for pile, h in zip(pos.tableau, pos.hidden, strict=True):
        down = [f"<{c.code()}>" for c in pile[:h]]
        lines.append(" ".join(down + [c.code() for c in pile[h:]]) or ":")
    return "\n".join(lines) + "\n"
