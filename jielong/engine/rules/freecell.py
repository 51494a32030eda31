"""FreeCell: four free cells, four one-way foundations, eight columns.

Positions load from and save to Freecell Solver's board text::

    Foundations: H-A C-0 D-0 S-2
    Freecells:  8H  -  -  -
    JD KD 2S 4C 3S 6D 6S
    ...

one column per line, bottom card first (a leading ``:`` is allowed); the
``Foundations:`` and ``Freecells:`` lines are written only when not empty.
Foundation entries are written in slot order, so slots round-trip.  Reading
takes every spelling Freecell Solver reads (see :mod:`jielong.engine.rules.text`).
"""

from __future__ import annotations

from dataclasses import dataclass

from jielong.engine.cards import Card, format_cards
from jielong.engine.rules.compact import expand as expand_code
from jielong.engine.rules.core import (
    FITS_ON,
    Illegal,
    Move,
    Pile,
    PositionParseError,
    all_home,
    cell,
    foundation,
    foundation_count,
    foundation_reason,
    foundation_targets,
    pile_exists,
    tableau,
    tableau_reason,
    tableau_targets,
)
from jielong.engine.rules.text import (
    FOUNDATION_PREFIXES,
    FREECELL_PREFIXES,
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
    strip_prefix,
)
from jielong.engine.rules.variants import Variant
from jielong.engine.shuffles import freecell_deal

COLUMNS = 8
CELLS = 4
_TABLEAU = tuple(tableau(i) for i in range(COLUMNS))
_FOUNDATION = tuple(foundation(i) for i in range(4))
_CELL = tuple(cell(i) for i in range(CELLS))
_PILES = {"foundation": 4, "tableau": COLUMNS, "cell": CELLS}

# Every move legal_moves can list, built once: [source][target] (and [count - 1]).
_TABLEAU_TO_TABLEAU = [
    [[Move(_TABLEAU[i], _TABLEAU[j], k) for k in range(1, 14)] for j in range(COLUMNS)]
    for i in range(COLUMNS)
]
_TABLEAU_TO_FOUNDATION = [
    [Move(_TABLEAU[i], _FOUNDATION[s]) for s in range(4)] for i in range(COLUMNS)
]
_TABLEAU_TO_CELL = [[Move(_TABLEAU[i], _CELL[c]) for c in range(CELLS)] for i in range(COLUMNS)]
_CELL_TO_FOUNDATION = [[Move(_CELL[i], _FOUNDATION[s]) for s in range(4)] for i in range(CELLS)]
_CELL_TO_TABLEAU = [[Move(_CELL[i], _TABLEAU[j]) for j in range(COLUMNS)] for i in range(CELLS)]
_CELL_TO_CELL = [[Move(_CELL[i], _CELL[c]) for c in range(CELLS)] for i in range(CELLS)]
# The same to every empty cell at once, by the bit mask of the empty cells.
_TABLEAU_TO_FREE_CELLS = [
    [tuple(row[c] for c in range(CELLS) if mask >> c & 1) for mask in range(1 << CELLS)]
    for row in _TABLEAU_TO_CELL
]
_CELL_TO_FREE_CELLS = [
    [tuple(row[c] for c in range(CELLS) if mask >> c & 1) for mask in range(1 << CELLS)]
    for row in _CELL_TO_CELL
]


@dataclass(frozen=True, slots=True)
class FreeCellPosition:
    tableau: tuple[tuple[Card, ...], ...]
    """Eight columns, bottom card first."""
    cells: tuple[Card | None, ...]
    foundations: tuple[Card | None, ...]
    """Top card of each foundation slot."""

    def free_cells(self) -> int:
        return sum(1 for c in self.cells if c is None)

    def empty_columns(self) -> int:
        return sum(1 for col in self.tableau if not col)

    def foundation_count(self) -> int:
        return foundation_count(self.foundations)


def ordered_run_length(column: tuple[Card, ...]) -> int:
    """Length of the ordered run (down by one, alternating colours) at the end."""
    n = len(column)
    if n == 0:
        return 0
    k = 1
    while k < n and column[n - k - 1] in FITS_ON[column[n - k]]:
        k += 1
    return k


class FreeCell:
    """FreeCell rules for one variant's options (run limit, foundation slots)."""

    def __init__(self, variant: Variant) -> None:
        self.variant = variant
        self.by_suit = variant.foundations_by_suit
        self.max_run = variant.max_run

    def deal(self, number: int) -> FreeCellPosition:
        return FreeCellPosition(freecell_deal(number), (None,) * CELLS, (None,) * 4)

    def is_won(self, position: FreeCellPosition) -> bool:
        return all_home(position.foundations)

    def run_limits(self, pos: FreeCellPosition) -> tuple[int, int]:
        """The longest run movable by hand onto a card and into an empty column."""
        f, e = pos.free_cells(), pos.empty_columns()
        return self.max_run(f, e), self.max_run(f, max(e - 1, 0))

    def pile_size(self, pos: FreeCellPosition, pile: Pile) -> int:
        if pile.kind == "tableau":
            return len(pos.tableau[pile.index])
        top = pos.cells[pile.index] if pile.kind == "cell" else pos.foundations[pile.index]
        return 0 if top is None else top.rank if pile.kind == "foundation" else 1

    def moving_card(self, pos: FreeCellPosition, move: Move) -> int:
        src = move.src
        if src.kind == "tableau":
            return int(pos.tableau[src.index][-move.count])
        card = pos.cells[src.index] if src.kind == "cell" else pos.foundations[src.index]
        assert card is not None
        return int(card)

    def reveals(self, pos: FreeCellPosition, move: Move) -> bool:
        return False  # every card is face up

    def all_cards_known(self, pos: FreeCellPosition) -> bool:
        return True

    def legal_moves(self, pos: FreeCellPosition) -> list[Move]:
        # Moves come from prebuilt tables, targets from a map of what each
        # column top takes: the solvers call this for every node they expand.
        moves: list[Move] = []
        cols = pos.tableau
        cells = pos.cells
        free = 0
        for i, c in enumerate(cells):
            if c is None:
                free |= 1 << i
        # card -> the columns whose top it fits
        dest, empty_cols = tableau_targets(cols)
        up = foundation_targets(pos.foundations, self.by_suit)
        f, e = cells.count(None), len(empty_cols)
        to_card = self.max_run(f, e)
        to_empty = self.max_run(f, e - 1) if e else 0
        for i, col in enumerate(cols):
            if not col:
                continue
            card = col[-1]
            for slot in up.get(card, ()):
                moves.append(_TABLEAU_TO_FOUNDATION[i][slot])
            moves.extend(_TABLEAU_TO_FREE_CELLS[i][free])
            # Walk up the ordered run (no further than the limit: into an empty
            # column it is lower still), noting where each start fits.
            # found: (target column, count); count 0 stands for every count
            # allowed into an empty column.
            found: list[tuple[int, int]] = []
            cap = min(len(col), to_card)
            k = 1
            while True:
                targets = dest.get(card)
                if targets:
                    for j in targets:
                        found.append((j, k))
                if k == cap:
                    break
                above = col[-k - 1]
                if above not in FITS_ON[card]:
                    break
                card = above
                k += 1
            if to_empty:
                for j in empty_cols:
                    found.append((j, 0))
            if len(found) > 1:
                found.sort()
            to_col = _TABLEAU_TO_TABLEAU[i]
            for j, count in found:
                if count:
                    moves.append(to_col[j][count - 1])
                else:
                    moves.extend(to_col[j][: min(k, to_empty)])
        for i, c in enumerate(cells):
            if c is None:
                continue
            for slot in up.get(c, ()):
                moves.append(_CELL_TO_FOUNDATION[i][slot])
            fits = dest.get(c)
            if fits and empty_cols:
                for j in sorted(fits + empty_cols):
                    moves.append(_CELL_TO_TABLEAU[i][j])
            else:
                for j in fits or empty_cols:
                    moves.append(_CELL_TO_TABLEAU[i][j])
            moves.extend(_CELL_TO_FREE_CELLS[i][free])
        return moves

    def play(self, pos: FreeCellPosition, move: Move) -> FreeCellPosition:
        src, dst, n = move
        cols = pos.tableau
        cells = pos.cells
        founds = pos.foundations
        if src.kind == "tableau":
            col = cols[src.index]
            cards = col[-n:]
            cols = cols[: src.index] + (col[:-n],) + cols[src.index + 1 :]
        else:  # cell
            card = cells[src.index]
            assert card is not None
            cards = (card,)
            cells = cells[: src.index] + (None,) + cells[src.index + 1 :]
        if dst.kind == "tableau":
            cols = cols[: dst.index] + (cols[dst.index] + cards,) + cols[dst.index + 1 :]
        elif dst.kind == "cell":
            cells = cells[: dst.index] + (cards[0],) + cells[dst.index + 1 :]
        else:
            founds = founds[: dst.index] + (cards[0],) + founds[dst.index + 1 :]
        return FreeCellPosition(cols, cells, founds)

    def explain(self, pos: FreeCellPosition, move: Move) -> Illegal | None:
        """Why ``move`` is refused in ``pos``, or ``None`` when it is legal."""
        src, dst, n = move
        if not pile_exists(src, _PILES) or not pile_exists(dst, _PILES):
            return Illegal.UNKNOWN_PILE
        if src == dst:
            return Illegal.SAME_PILE
        if src.kind == "foundation":
            return Illegal.FOUNDATION_ONE_WAY
        if src.kind == "cell":
            card = pos.cells[src.index]
            if card is None:
                return Illegal.EMPTY_SOURCE
            if n != 1:
                return Illegal.ONE_CARD_ONLY
        else:
            col = pos.tableau[src.index]
            if not col:
                return Illegal.EMPTY_SOURCE
            if not 1 <= n <= len(col):  # col[-0] would be the bottom card
                return Illegal.NOT_ENOUGH_CARDS
            if n > ordered_run_length(col):
                return Illegal.NOT_A_RUN
            card = col[-n]
        if dst.kind == "cell":
            if n != 1:
                return Illegal.ONE_CARD_ONLY
            return None if pos.cells[dst.index] is None else Illegal.CELL_OCCUPIED
        if dst.kind == "foundation":
            if n != 1:
                return Illegal.ONE_CARD_ONLY
            return foundation_reason(pos.foundations, dst.index, card, self.by_suit)
        target = pos.tableau[dst.index]
        if target:
            reason = tableau_reason(card, target[-1])
            if reason is not None:
                return reason
        if n > 1:
            to_card, to_empty = self.run_limits(pos)
            if n > (to_card if target else to_empty):
                return Illegal.RUN_TOO_LONG
        return None

    # -- text ---------------------------------------------------------------

    def to_text(self, pos: FreeCellPosition, style: str = "fcs") -> str:
        """Freecell Solver's board text (``fcs``), or PySolFC's (``pysol``:
        ``Founds:`` and ``FC:`` lines, the latter always written)."""
        pysol = style == "pysol"
        lines = []
        if any(t is not None for t in pos.foundations):
            head = "Founds: " if pysol else "Foundations: "
            lines.append(head + " ".join(fcs_foundation_entries(pos.foundations)))
        if pysol or any(c is not None for c in pos.cells):
            head = "FC: " if pysol else "Freecells: "
            lines.append(head + " ".join("-" if c is None else c.code() for c in pos.cells))
        for col in pos.tableau:
            # an empty column is written as ":" so that it is not lost
            lines.append(format_cards(col) if col else ":")
        return "\n".join(lines) + "\n"

    def from_text(self, text: str) -> FreeCellPosition:
        text = expand_code(text)  # a link's short code reads as its text
        cells: tuple[Card | None, ...] = (None,) * CELLS
        founds: tuple[Card | None, ...] = (None,) * 4
        placed: list[tuple[Card, int]] = []
        rows: list[Line] = []
        for ln in lines_of(text):
            line = ln.text.strip()
            rest = strip_prefix(line, FOUNDATION_PREFIXES)
            if rest is not None:
                entries = foundation_entries(rest, ln.number)
                founds = foundation_slots(entries, self.by_suit, ln.number)
                placed.extend(foundation_cards(founds, ln.number))
                continue
            rest = strip_prefix(line, FREECELL_PREFIXES)
            if rest is not None:
                tokens = rest.split()
                if len(tokens) > CELLS:
                    raise PositionParseError(
                        f"line {ln.number}: at most {CELLS} free cells",
                        "too_many_cells",
                        line=ln.number,
                    )
                held = [None if t in ("-", "*") else card(t, ln.number) for t in tokens]
                cells = tuple(held + [None] * (CELLS - len(held)))
                placed.extend((c, ln.number) for c in held if c is not None)
                continue
            rows.append(Line(ln.number, line))
        cols = []
        for ln in body(rows, COLUMNS, "columns"):
            col = cards(ln.text[1:] if ln.text.startswith(":") else ln.text, ln.number)
            placed.extend((c, ln.number) for c in col)
            cols.append(col)
        check_deck(placed)
        return FreeCellPosition(tuple(cols), cells, founds)
