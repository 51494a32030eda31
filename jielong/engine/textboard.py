"""Plain-text pictures of positions for the terminal."""

from __future__ import annotations

from typing import TypeVar

from jielong.engine.cards import Card
from jielong.engine.rules.compact import encode
from jielong.engine.rules.core import Rules
from jielong.engine.rules.freecell import FreeCell, FreeCellPosition
from jielong.engine.rules.klondike import Klondike, KlondikePosition
from jielong.engine.rules.registry import Position

P = TypeVar("P", bound=Position)


def _c(card: Card | None, symbols: bool) -> str:
    if card is None:
        return " --"
    return f"{card.symbol() if symbols else card.code():>3}"


def draw_klondike(pos: KlondikePosition, symbols: bool = True) -> str:
    stock = f"[{len(pos.stock):2d}]" if pos.stock else "[  ]"
    fan = " ".join(_c(c, symbols) for c in pos.waste[-3:]) or " --"
    founds = " ".join(_c(t, symbols) for t in pos.foundations)
    lines = [f" s{stock}  w {fan:<12}   h {founds}    recycles {pos.recycles}", ""]
    lines.append("   " + "".join(f"{i + 1:>4}" for i in range(7)))
    height = max((len(p) for p in pos.tableau), default=0)
    for row in range(height):
        cells = []
        for pile, h in zip(pos.tableau, pos.hidden, strict=True):
            if row >= len(pile):
                cells.append("    ")
            elif row < h:
                cells.append("  ##")
            else:
                cells.append(" " + _c(pile[row], symbols))
        lines.append("   " + "".join(cells).rstrip())
    return "\n".join(lines)


def draw_freecell(pos: FreeCellPosition, symbols: bool = True) -> str:
    cells = " ".join(_c(c, symbols) for c in pos.cells)
    founds = " ".join(_c(t, symbols) for t in pos.foundations)
    lines = [f" cells a-d {cells}     h {founds}", ""]
    lines.append("   " + "".join(f"{i + 1:>4}" for i in range(8)))
    height = max((len(c) for c in pos.tableau), default=0)
    for row in range(height):
        lines.append(
            "   "
            + "".join(
                " " + _c(col[row], symbols) if row < len(col) else "    " for col in pos.tableau
            ).rstrip()
        )
    return "\n".join(lines)


def draw(pos: KlondikePosition | FreeCellPosition, symbols: bool = True) -> str:
    if isinstance(pos, KlondikePosition):
        return draw_klondike(pos, symbols)
    return draw_freecell(pos, symbols)


POSITION_FORMATS = ("position", "fcs", "pysol", "code")
"""``position``: the rules' own text (Freecell Solver's board for FreeCell);
``fcs``: Freecell Solver's board (FreeCell only); ``pysol``: PySolFC's;
``code``: the short word a link carries (:mod:`jielong.engine.rules.compact`)."""


def position_text(rules: Rules[P], pos: P, style: str = "position") -> str:
    """``pos`` in one of :data:`POSITION_FORMATS`; every one reads back."""
    if style not in POSITION_FORMATS:
        raise ValueError(f"not a position format: {style!r}")
    if style == "code":
        return encode(pos) + "\n"
    if isinstance(pos, KlondikePosition):
        if style == "fcs":
            raise ValueError("Freecell Solver's board text is for FreeCell positions")
        return rules.to_text(pos) if style == "position" else _klondike(rules).to_text(pos, style)
    assert isinstance(pos, FreeCellPosition)
    return _freecell(rules).to_text(pos, "pysol" if style == "pysol" else "fcs")


def _klondike(rules: object) -> Klondike:
    assert isinstance(rules, Klondike)
    return rules


def _freecell(rules: object) -> FreeCell:
    assert isinstance(rules, FreeCell)
    return rules
