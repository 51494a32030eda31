"""Plain-text pictures of positions for the terminal."""

from __future__ import annotations

from jielong.cards import Card
from jielong.rules.freecell import FreeCellPosition
from jielong.rules.klondike import KlondikePosition


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
