"""The standard move notation, for terminals, solver output and tests.

FreeCell: columns ``1``-``8``, free cells ``a``-``d``, foundation ``h``:
``3a`` (column 3 to a free cell), ``a5``, ``7h``, ``26`` (column 2 to column 6,
as many cards as fit; ``26/3`` names the count, needed only into an empty
column).

Klondike: piles ``1``-``7``, waste ``w``, foundation ``h``, stock ``s``:
``s`` turns cards from the stock (or recycles the waste), ``w3``, ``wh``,
``3h``, ``37`` (pile 3 to pile 7, the run that fits), ``h3`` (a foundation's
top card back to pile 3; ``h23`` names the second foundation, which matters
when two foundation cards, twins of one rank and colour, fit pile 3).

The long form ``tableau:2 tableau:5 3`` (from, to, count) is read too.
"""

from __future__ import annotations

from jielong.engine.rules.core import STOCK, WASTE, InvalidMoveError, Move, Pile, is_ascii_number

_CELL_LETTERS = "abcd"


def _pile_code(p: Pile) -> str:
    if p.kind == "tableau":
        return str(p.index + 1)
    if p.kind == "cell":
        return _CELL_LETTERS[p.index]
    if p.kind == "foundation":
        return "h"
    if p.kind == "waste":
        return "w"
    return "s"


def format_move(move: Move, *, count: bool = False) -> str:
    """``Move(tableau:2, tableau:5, 3)`` -> ``36`` (``36/3`` with ``count``).

    With ``count`` the text names the move exactly: every move between piles
    of the tableau carries its count, ``/1`` included (into an empty column a
    bare ``36`` reads as the longest run allowed), and a card leaving a
    foundation names its slot (``h23``: a bare ``h3`` takes the first
    foundation card that fits).
    """
    if move.src == STOCK or move.dst == STOCK:
        return "s"
    if count and move.src.kind == "foundation":
        return f"h{move.src.index + 1}{_pile_code(move.dst)}"
    text = _pile_code(move.src) + _pile_code(move.dst)
    if count and (move.count != 1 or move.src.kind == move.dst.kind == "tableau"):
        return f"{text}/{move.count}"
    return text


def _code_pile(ch: str, family: str) -> Pile:
    if ch in "123456789":
        return Pile("tableau", int(ch) - 1)
    if ch == "h":
        return Pile("foundation", -1)  # resolved against the legal moves
    if family == "freecell" and ch in _CELL_LETTERS:
        return Pile("cell", _CELL_LETTERS.index(ch))
    if family == "klondike" and ch == "w":
        return WASTE
    raise InvalidMoveError(f"not a pile in this notation: {ch!r}")


def parse_move(text: str, legal: list[Move], family: str) -> Move:
    """Read a move in the notation, resolving what it leaves open (which
    foundation slot, how many cards) against the legal moves.  A move that is
    well formed but illegal is returned as written, so the rules can say why."""
    t = text.strip().lower()
    parts = t.split()
    if len(parts) in (2, 3):
        if len(parts) == 3 and not is_ascii_number(parts[2], 2):
            raise InvalidMoveError(f"a move's count is a whole number: {text!r}")
        count = int(parts[2]) if len(parts) == 3 else 1
        return Move.from_json({"from": parts[0], "to": parts[1], "count": count})
    if t == "s" and family == "klondike":
        for m in legal:
            if STOCK in (m.src, m.dst):
                return m
        return Move(STOCK, WASTE, 1)
    body, slash, n_text = t.partition("/")
    if len(body) == 3 and body[0] == "h" and body[1] in "1234" and not slash:
        # a card from a named foundation slot
        src, dst = Pile("foundation", int(body[1]) - 1), _code_pile(body[2], family)
    elif len(body) != 2 or (slash and not (is_ascii_number(n_text, 2) and int(n_text) > 0)):
        raise InvalidMoveError(f"not a move: {text!r}")
    else:
        src, dst = _code_pile(body[0], family), _code_pile(body[1], family)
    wanted = int(n_text) if n_text else None

    def matches(m: Move) -> bool:
        return (
            (m.src == src or (src.index == -1 and m.src.kind == src.kind))
            and (m.dst == dst or (dst.index == -1 and m.dst.kind == dst.kind))
            and (wanted is None or m.count == wanted)
        )

    found = [m for m in legal if matches(m)]
    if found:
        return max(found, key=lambda m: m.count)
    # Not legal: build the literal move so that the caller can explain it.
    src = src if src.index >= 0 else Pile(src.kind, 0)
    dst = dst if dst.index >= 0 else Pile(dst.kind, 0)
    return Move(src, dst, wanted or 1)


def solution_to_json(moves: list[Move]) -> list[dict[str, str | int]]:
    return [m.to_json() for m in moves]
