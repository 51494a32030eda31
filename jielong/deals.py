"""Deal numbering: Microsoft FreeCell deals, PySolFC Klondike deals, deal ids
and the daily deal.

FreeCell deal N is dealt exactly as Windows FreeCell and Freecell Pro deal game
#N (the Microsoft linear-congruential shuffle), for 1..2**33-1.  Klondike deal N
is dealt exactly as PySolFC deals its Klondike game #N, so a deal can be
replayed there: numbers up to 32000 use the same Microsoft generator on
PySolFC's card order, larger numbers Python's Mersenne Twister seeded with N.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import random
import re
import secrets
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources

from jielong.cards import DECK, Card

MAX_FREECELL_DEAL = (1 << 33) - 1
MAX_KLONDIKE_DEAL = 10**20 - 1
CATALOGUE_SIZE = 1_000_000
"""Deal numbers offered for browsing and daily deals: 1..CATALOGUE_SIZE."""


class DealError(ValueError):
    """An unknown variant, a malformed deal id or a deal number out of range."""


class _MicrosoftRandom:
    """The Microsoft C runtime ``rand()`` as Freecell Pro extends it past 2**31."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.state = seed if seed < 0x1_0000_0000 else seed - 0x1_0000_0000

    def next(self) -> int:
        self.state = (self.state * 214013 + 2531011) & MAX_FREECELL_DEAL
        if self.seed < 0x1_0000_0000:
            value = (self.state >> 16) & 0x7FFF
            return value | 0x8000 if self.seed >= 0x8000_0000 else value
        return ((self.state >> 16) & 0xFFFF) + 1


def freecell_deal(number: int) -> tuple[tuple[Card, ...], ...]:
    """The eight columns of Microsoft FreeCell deal ``number`` (top card last).

    >>> [c.code() for c in freecell_deal(1)[0]]
    ['JD', 'KD', '2S', '4C', '3S', '6D', '6S']
    >>> [col[0].code() for col in freecell_deal(1)]  # the first row dealt
    ['JD', '2D', '9H', 'JC', '5D', '7H', '7C', '5H']
    """
    if not 1 <= number <= MAX_FREECELL_DEAL:
        raise DealError(f"FreeCell deal numbers run from 1 to {MAX_FREECELL_DEAL}")
    rng = _MicrosoftRandom(number)
    deck = list(DECK)
    columns: list[list[Card]] = [[] for _ in range(8)]
    for i in range(52):
        j = rng.next() % len(deck)
        deck[j], deck[-1] = deck[-1], deck[j]
        columns[i % 8].append(deck.pop())
    return tuple(tuple(col) for col in columns)


# PySolFC builds its deck suit by suit in the order clubs, spades, hearts,
# diamonds, ace to king.
_PYSOL_ORDER: tuple[Card, ...] = tuple(
    Card.of(rank, suit) for suit in (0, 3, 2, 1) for rank in range(1, 14)
)


@dataclass(frozen=True, slots=True)
class KlondikeDeal:
    """A Klondike deal: seven piles (first card at the bottom, only the last
    face up) and the stock with the next card to turn last."""

    piles: tuple[tuple[Card, ...], ...]
    stock: tuple[Card, ...]


def _pysol_shuffle(number: int) -> list[Card]:
    if number <= 32000:
        cards = [_PYSOL_ORDER[i + j] for i in range(13) for j in (0, 39, 26, 13)]
        ms = _MicrosoftRandom(number)
        for n in range(len(cards) - 1, 0, -1):
            j = ms.next() % (n + 1)
            cards[n], cards[j] = cards[j], cards[n]
    else:
        cards = list(_PYSOL_ORDER)
        mt = random.Random(number)
        for n in range(len(cards) - 1, 0, -1):
            j = int(mt.random() * (n + 1))
            cards[n], cards[j] = cards[j], cards[n]
    return cards


def klondike_deal(number: int) -> KlondikeDeal:
    """PySolFC's Klondike game ``number``.

    >>> d = klondike_deal(1)
    >>> d.piles[0][-1].code(), d.piles[6][-1].code(), d.stock[-1].code()
    ('QH', 'AS', '4H')
    """
    if not 1 <= number <= MAX_KLONDIKE_DEAL:
        raise DealError(f"Klondike deal numbers run from 1 to {MAX_KLONDIKE_DEAL}")
    order = _pysol_shuffle(number)
    order.reverse()  # PySolFC deals from the top of its talon: the list's end
    it = iter(order)
    # PySolFC deals right to left, rows of face-down cards first (6 piles,
    # then 5, ...), then one face-up card on each pile.
    columns: list[list[Card]] = [[] for _ in range(7)]
    for row in range(6, 0, -1):
        for c in range(row):
            columns[c].append(next(it))
    for c in range(7):
        columns[c].append(next(it))
    talon = list(it)  # first card is the next one turned
    columns.reverse()
    return KlondikeDeal(tuple(tuple(c) for c in columns), tuple(reversed(talon)))


@dataclass(frozen=True, slots=True)
class DealId:
    """A public deal id: variant and deal number, e.g. ``freecell-617``.

    >>> DealId.parse("klondike-3-123456")
    DealId(variant='klondike-3', number=123456)
    >>> str(DealId("kongdang", 11982))
    'kongdang-11982'
    """

    variant: str
    number: int

    def __str__(self) -> str:
        return f"{self.variant}-{self.number}"

    @classmethod
    def parse(cls, text: str) -> DealId:
        from jielong.rules.variants import VARIANTS

        m = re.fullmatch(r"\s*([a-z0-9-]+?)-([0-9]{1,20})\s*", text.lower())
        if not m or m.group(1) not in VARIANTS:
            raise DealError(f"not a deal id: {text!r}")
        deal = cls(m.group(1), int(m.group(2)))
        check_deal_number(deal.variant, deal.number)
        return deal


def check_deal_number(variant: str, number: int) -> None:
    from jielong.rules.variants import get_variant

    limit = MAX_FREECELL_DEAL if get_variant(variant).family == "freecell" else MAX_KLONDIKE_DEAL
    if not 1 <= number <= limit:
        raise DealError(f"deal numbers of {variant} run from 1 to {limit}")


@cache
def unsolvable_deals(family: str) -> frozenset[int]:
    """Deal numbers in 1..CATALOGUE_SIZE proven unsolvable from the start."""
    name = f"unsolvable-{family}.txt"
    path = resources.files("jielong.data").joinpath(name)
    if not path.is_file():
        return frozenset()
    numbers = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            numbers.add(int(line.split()[0]))
    return frozenset(numbers)


def is_unsolvable(variant: str, number: int) -> bool:
    from jielong.rules.variants import get_variant

    return number in unsolvable_deals(get_variant(variant).family)


def random_deal(variant: str) -> int:
    """A random catalogue deal number of ``variant`` not known to be
    unsolvable (from the system's secure source: players cannot predict it)."""
    while True:
        number = secrets.randbelow(CATALOGUE_SIZE) + 1
        if not is_unsolvable(variant, number):
            return number


DAILY_KLONDIKE_NODES = 20_000
"""The node budget within which a Klondike daily deal must be won."""


@lru_cache(maxsize=64)
def daily_deal(variant: str, date: dt.date) -> int:
    """The deal number of ``variant`` for the UTC ``date``: the same for
    everyone, never a deal known to be unsolvable from the start.  A Klondike
    daily deal is one the solver wins with every card known: the first deal
    from the date's number on that its deterministic win search solves within
    :data:`DAILY_KLONDIKE_NODES` states (about three deals in five qualify;
    the answer is the same on every machine, but a change to that search can
    change it for some dates).

    >>> daily_deal("freecell", dt.date(2026, 1, 1)) == daily_deal("freecell", dt.date(2026, 1, 1))
    True
    """
    from jielong.rules.variants import get_variant

    family = get_variant(variant).family
    number = daily_start(variant, date)
    bad = unsolvable_deals(family)
    while number in bad or (family == "klondike" and not klondike_winnable(variant, number)):
        number = number % CATALOGUE_SIZE + 1
    return number


def daily_start(variant: str, date: dt.date) -> int:
    """Where the search for ``date``'s daily deal starts: a number drawn from
    a hash of the variant and the date."""
    digest = hashlib.sha256(f"jielong-daily:{variant}:{date.isoformat()}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % CATALOGUE_SIZE + 1


def klondike_winnable(variant: str, number: int) -> bool:
    """Whether the daily-deal test accepts Klondike deal ``number``: the
    deterministic win search solves it within :data:`DAILY_KLONDIKE_NODES`."""
    from jielong.rules.klondike import Klondike
    from jielong.rules.variants import rules_for
    from jielong.solve.klondike import find_win

    rules = rules_for(variant)
    if not isinstance(rules, Klondike):
        raise TypeError(f"{variant} is not a Klondike variant")
    result = find_win(rules, rules.deal(number), max_nodes=DAILY_KLONDIKE_NODES)
    return result.status == "solved"


def today_utc() -> dt.date:
    return dt.datetime.now(dt.UTC).date()
