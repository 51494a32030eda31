"""Moves, pile ids, the reasons a move is refused, and the rules protocol.

Pile ids are stable and used everywhere, JSON included: ``stock``, ``waste``,
``foundation:0``..``foundation:3``, ``tableau:0``..``tableau:7`` and
``cell:0``..``cell:3``.
"""

from __future__ import annotations

from enum import StrEnum
from typing import NamedTuple, Protocol, TypeVar

from jielong.engine.cards import Card, fits_on_tableau
from jielong.engine.rules.variants import Variant

KINDS = ("stock", "waste", "foundation", "tableau", "cell")


class Pile(NamedTuple):
    """A pile of the table: its kind and its index within that kind."""

    kind: str
    # Shadows tuple.index on purpose: a pile's index is the natural name.
    index: int = 0  # type: ignore[assignment]

    def __str__(self) -> str:
        if self.kind in ("stock", "waste"):
            return self.kind
        return f"{self.kind}:{self.index}"

    @classmethod
    def parse(cls, text: str) -> Pile:
        """``tableau:3`` -> ``Pile('tableau', 3)``; ``stock`` -> ``Pile('stock', 0)``."""
        kind, sep, index = str(text).partition(":")
        if kind in ("stock", "waste") and not sep:
            return cls(kind, 0)
        # ASCII digits only: str.isdigit() also takes "²" and "٣"
        if kind in ("foundation", "tableau", "cell") and sep and is_ascii_number(index, 2):
            return cls(kind, int(index))
        raise InvalidMoveError(f"not a pile id: {text!r}")


def is_ascii_number(text: str, max_digits: int) -> bool:
    """Whether ``text`` is 1 to ``max_digits`` ASCII digits and nothing else
    (``int()`` would also take other scripts' digits, spaces, signs and ``_``)."""
    return 0 < len(text) <= max_digits and text.isascii() and text.isdigit()


STOCK = Pile("stock", 0)
WASTE = Pile("waste", 0)


def tableau(i: int) -> Pile:
    return Pile("tableau", i)


def foundation(i: int) -> Pile:
    return Pile("foundation", i)


def cell(i: int) -> Pile:
    return Pile("cell", i)


class Move(NamedTuple):
    """Take ``count`` cards from the end of ``src`` and put them on ``dst``.

    A Klondike draw is ``stock -> waste`` with the number of cards turned; a
    recycle is ``waste -> stock`` with the whole waste.
    """

    src: Pile
    dst: Pile
    # Shadows tuple.count on purpose: the number of cards moved.
    count: int = 1  # type: ignore[assignment]

    def __str__(self) -> str:
        return f"{self.src}>{self.dst}" + (f"x{self.count}" if self.count != 1 else "")

    def to_json(self) -> dict[str, str | int]:
        return {"from": str(self.src), "to": str(self.dst), "count": self.count}

    @classmethod
    def from_json(cls, data: object) -> Move:
        if not isinstance(data, dict):
            raise InvalidMoveError("a move is an object with from, to and count")
        src, dst, count = data.get("from"), data.get("to"), data.get("count", 1)
        if not isinstance(src, str) or not isinstance(dst, str):
            raise InvalidMoveError("a move needs 'from' and 'to' pile ids")
        if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= 52:
            raise InvalidMoveError("a move's count is a whole number from 1 to 52")
        return cls(Pile.parse(src), Pile.parse(dst), count)


class Illegal(StrEnum):
    """Why a move is refused: a code the interface translates."""

    UNKNOWN_PILE = "unknown_pile"
    SAME_PILE = "same_pile"
    EMPTY_SOURCE = "empty_source"
    NOT_ENOUGH_CARDS = "not_enough_cards"
    FACE_DOWN = "face_down"
    NOT_A_RUN = "not_a_run"
    WRONG_COLOUR = "wrong_colour"
    WRONG_RANK = "wrong_rank"
    EMPTY_NEEDS_KING = "empty_needs_king"
    RUN_TOO_LONG = "run_too_long"
    CELL_OCCUPIED = "cell_occupied"
    ONE_CARD_ONLY = "one_card_only"
    WASTE_TOP_ONLY = "waste_top_only"
    FOUNDATION_ONE_WAY = "foundation_one_way"
    FOUNDATION_WRONG_SUIT = "foundation_wrong_suit"
    FOUNDATION_WRONG_RANK = "foundation_wrong_rank"
    FOUNDATION_WRONG_SLOT = "foundation_wrong_slot"
    STOCK_AND_WASTE_EMPTY = "stock_and_waste_empty"
    WRONG_DRAW = "wrong_draw"
    NOT_A_TARGET = "not_a_target"


class InvalidMoveError(ValueError):
    """A move that is malformed (not merely illegal in the position)."""


class IllegalMoveError(ValueError):
    """A well-formed move that the rules refuse, with the reason."""

    def __init__(self, reason: Illegal, move: Move, **details: int) -> None:
        self.reason = reason
        self.move = move
        self.details = details
        extra = ", ".join(f"{k}={v}" for k, v in details.items())
        super().__init__(f"{move}: {reason.value}" + (f" ({extra})" if extra else ""))


P = TypeVar("P")


class Rules(Protocol[P]):
    """What every game family offers; ``legal_moves`` is the only judge."""

    variant: Variant

    def deal(self, number: int) -> P: ...

    def legal_moves(self, position: P) -> list[Move]: ...

    def play(self, position: P, move: Move) -> P:
        """Play a move known to be legal (no checks: see :meth:`explain`)."""
        ...

    def explain(self, position: P, move: Move) -> Illegal | None:
        """``None`` for a legal move, else the reason it is refused."""
        ...

    def is_won(self, position: P) -> bool: ...

    def run_limits(self, position: P) -> tuple[int, int] | None:
        """The longest run the hand may move onto a card and into an empty
        column, or ``None`` where any ordered run may move (Klondike)."""
        ...

    def pile_size(self, position: P, pile: Pile) -> int:
        """How many cards ``pile`` holds (face down ones too)."""
        ...

    def moving_card(self, position: P, move: Move) -> int:
        """The card ``move`` carries first (a run's top card); -1 for a
        draw from the stock, which carries no one card."""
        ...

    def reveals(self, position: P, move: Move) -> bool:
        """Whether ``move`` turns a face-down card face up."""
        ...

    def all_cards_known(self, position: P) -> bool:
        """Whether every card has been seen (Klondike: none face down and the
        whole stock turned once), the condition for finishing by itself."""
        ...

    def to_text(self, position: P) -> str: ...

    def from_text(self, text: str) -> P: ...


def play_checked(rules: Rules[P], position: P, move: Move) -> P:
    """Play ``move`` if it is legal, else raise :class:`IllegalMoveError`."""
    reason = rules.explain(position, move)
    if reason is not None:
        raise IllegalMoveError(reason, move)
    return rules.play(position, move)


FITS_ON: tuple[tuple[int, ...], ...] = tuple(
    tuple(t for t in range(52) if fits_on_tableau(c, t)) for c in range(52)
)
"""``FITS_ON[c]``: the two cards that card ``c`` may be placed on in a tableau
column (one rank higher, the other colour); none for a king.  A table lookup
spares the move generators a rank-and-colour test per pair of piles."""


TAKES: tuple[tuple[int, ...], ...] = tuple(
    tuple(c for c in range(52) if t in FITS_ON[c]) for t in range(52)
)
"""``TAKES[t]``: the two cards that may be placed on card ``t`` in a tableau
column (one rank lower, the other colour); none for an ace."""


def foundation_targets(
    foundations: tuple[int | None, ...], by_suit: bool
) -> dict[int, tuple[int, ...]]:
    """Map each card that may go up now to the foundation slots that take it."""
    targets: dict[int, tuple[int, ...]] = {}
    empty: list[int] = []
    for slot, top in enumerate(foundations):
        if top is None:
            empty.append(slot)
        elif not by_suit or top & 3 == slot:
            targets[top + 4] = (slot,)
    if by_suit:
        for slot in empty:
            targets[slot] = (slot,)
    elif empty:
        aces = tuple(empty)
        for ace in range(4):
            targets[ace] = aces
    return targets


def foundation_accepts(top: int | None, card: int) -> bool:
    """True when ``card`` goes on a foundation whose top card is ``top``."""
    if top is None:
        return card < 4
    return card - 4 == top


def foundation_heights(foundations: tuple[int | None, ...]) -> tuple[int, int, int, int]:
    """How many cards of each suit (clubs, diamonds, hearts, spades) are home,
    whichever slots hold them: the solvers' view of the foundations."""
    heights = [0, 0, 0, 0]
    for top in foundations:
        if top is not None:
            heights[top & 3] = (top >> 2) + 1
    return heights[0], heights[1], heights[2], heights[3]


def foundation_count(foundations: tuple[Card | None, ...]) -> int:
    """How many cards are home."""
    return sum(0 if top is None else top.rank for top in foundations)


def all_home(foundations: tuple[Card | None, ...]) -> bool:
    """Whether every foundation is complete: the game is won."""
    return all(top is not None and top.rank == 13 for top in foundations)


def pile_exists(pile: Pile, counts: dict[str, int]) -> bool:
    """Whether ``pile`` is on a table with ``counts[kind]`` piles of each kind."""
    return 0 <= pile.index < counts.get(pile.kind, 0)


def tableau_targets(
    columns: tuple[tuple[Card, ...], ...],
) -> tuple[dict[int, list[int]], list[int]]:
    """Map each card that fits on a column's top card now to those columns (in
    column order), and list the empty columns."""
    dest: dict[int, list[int]] = {}
    empty: list[int] = []
    for j, col in enumerate(columns):
        if col:
            for child in TAKES[col[-1]]:
                if child in dest:
                    dest[child].append(j)
                else:
                    dest[child] = [j]
        else:
            empty.append(j)
    return dest, empty


def foundation_reason(
    founds: tuple[Card | None, ...], slot: int, card: Card, by_suit: bool
) -> Illegal | None:
    """Why ``card`` may not go on foundation ``slot``, or ``None``."""
    top = founds[slot]
    if by_suit and card.suit != slot:
        return Illegal.FOUNDATION_WRONG_SLOT
    if foundation_accepts(top, card):
        return None
    if top is not None and top.suit != card.suit:
        return Illegal.FOUNDATION_WRONG_SUIT
    return Illegal.FOUNDATION_WRONG_RANK


def tableau_reason(card: Card, target: Card) -> Illegal | None:
    """Why ``card`` may not go on ``target`` in a column, or ``None``."""
    if card.is_red == target.is_red:
        return Illegal.WRONG_COLOUR
    if card.rank + 1 != target.rank:
        return Illegal.WRONG_RANK
    return None


class PositionParseError(ValueError):
    """Text that is not a valid position: ``code`` says what is wrong and
    ``details`` where (``line`` from 1, ``token``, ``cards``), so that the
    page can say it in the player's language."""

    def __init__(self, message: str, code: str = "bad_text", **details: object) -> None:
        super().__init__(message)
        self.code = code
        self.details = details
