"""The deal catalogue: deal ids, deal numbers per variant, the unsolvable
list, random and daily deals, and the Klondike "winnable" test.

Policy above the solvers: the daily Klondike deal and winnable deals are
chosen by :func:`jielong.engine.solve.klondike.find_win`; the shuffles themselves are
:mod:`jielong.engine.shuffles`.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
import secrets
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources

from jielong.engine.rules.klondike import Klondike
from jielong.engine.rules.registry import rules_for
from jielong.engine.rules.variants import VARIANTS, get_variant
from jielong.engine.shuffles import MAX_FREECELL_DEAL, MAX_KLONDIKE_DEAL, DealError
from jielong.engine.solve.klondike import find_win

CATALOGUE_SIZE = 1_000_000
"""Deal numbers offered for browsing and daily deals: 1..CATALOGUE_SIZE."""


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
        m = re.fullmatch(r"\s*([a-z0-9-]+?)-([0-9]{1,20})\s*", text.lower())
        if not m or m.group(1) not in VARIANTS:
            raise DealError(f"not a deal id: {text!r}")
        deal = cls(m.group(1), int(m.group(2)))
        check_deal_number(deal.variant, deal.number)
        return deal


def deal_limit(variant: str) -> int:
    """The largest deal number of ``variant`` (the smallest is 1)."""
    return MAX_FREECELL_DEAL if get_variant(variant).family == "freecell" else MAX_KLONDIKE_DEAL


def check_deal_number(variant: str, number: int) -> None:
    limit = deal_limit(variant)
    if not 1 <= number <= limit:
        raise DealError(f"deal numbers of {variant} run from 1 to {limit}")


@cache
def unsolvable_deals(family: str) -> frozenset[int]:
    """Deal numbers in 1..CATALOGUE_SIZE proven unsolvable from the start."""
    name = f"unsolvable-{family}.txt"
    path = resources.files("jielong.engine.data").joinpath(name)
    if not path.is_file():
        return frozenset()
    numbers = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            numbers.add(int(line.split()[0]))
    return frozenset(numbers)


def is_unsolvable(variant: str, number: int) -> bool:
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
    rules = rules_for(variant)
    if not isinstance(rules, Klondike):
        raise TypeError(f"{variant} is not a Klondike variant")
    result = find_win(rules, rules.deal(number), max_nodes=DAILY_KLONDIKE_NODES)
    return result.status == "solved"


def today_utc() -> dt.date:
    return dt.datetime.now(dt.UTC).date()
