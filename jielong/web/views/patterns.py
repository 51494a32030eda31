"""Regular expressions for the values the API reads from text: pile ids, deal
numbers and deal ids, daily dates.

Each is both the check the routes apply and what the OpenAPI document says
of the value, so that the document accepts exactly what the API accepts.
They use only what JSON Schema's (ECMA 262) and Python's regexes read alike:
``[0-9]`` rather than ``\\d`` (which takes other scripts' digits in Python),
no lookaround, anchored with ``^``/``$`` and matched whole.
"""

from __future__ import annotations

import datetime as dt
import re
from functools import cache

from jielong.engine.catalogue import deal_limit

PILE_PATTERN = r"^(?:stock|waste|(?:foundation|tableau|cell):[0-9]{1,2})$"
"""What :meth:`jielong.engine.rules.core.Pile.parse` reads."""

GAME_ID_PATTERN = r"^[A-Za-z0-9_-]{16,64}$"


def _digits(low: int, high: int) -> str:
    return str(low) if low == high else f"[{low}-{high}]"


def number_pattern(limit: int) -> str:
    """A group matching the decimal numbers 1..``limit``, without leading
    zeros: ``number_pattern(250)`` reads ``1`` to ``250`` and nothing else."""
    text = str(limit)
    width = len(text)
    if text == "9" * width:
        return f"(?:[1-9][0-9]{{0,{width - 1}}})"
    alternatives = [f"[1-9][0-9]{{0,{width - 2}}}"] if width > 1 else []
    for i, digit in enumerate(text):
        low, high = (1 if i == 0 else 0), int(digit) - 1
        if high >= low:
            rest = width - i - 1
            tail = f"[0-9]{{{rest}}}" if rest else ""
            alternatives.append(text[:i] + _digits(low, high) + tail)
    alternatives.append(text)
    return "(?:" + "|".join(alternatives) + ")"


def _two_digits(low: int, high: int) -> str:
    """Zero-padded two-digit numbers ``low``..``high``."""
    parts = []
    for tens in range(low // 10, high // 10 + 1):
        first, last = max(low, tens * 10) % 10, min(high, tens * 10 + 9) % 10
        parts.append(f"{tens}{_digits(first, last)}")
    return parts[0] if len(parts) == 1 else "(?:" + "|".join(parts) + ")"


def _month_end(year: int, month: int) -> int:
    following = dt.date(year + month // 12, month % 12 + 1, 1)
    return (following - dt.timedelta(days=1)).day


def date_pattern(first: dt.date, last: dt.date) -> str:
    """YYYY-MM-DD for the dates ``first``..``last`` (real dates only)."""
    years = []
    for year in range(first.year, last.year + 1):
        months = []
        for month in range(1, 13):
            start = first.day if (year, month) == (first.year, first.month) else 1
            end = last.day if (year, month) == (last.year, last.month) else _month_end(year, month)
            if (year, month) < (first.year, first.month) or (year, month) > (last.year, last.month):
                continue
            months.append(f"{month:02d}-{_two_digits(start, end)}")
        years.append(f"{year}-(?:{'|'.join(months)})")
    return "^(?:" + "|".join(years) + ")$"


@cache
def deal_text_pattern(variant: str) -> str:
    """A deal number of ``variant`` as its digits, as typed in a deal box
    (spaces or tabs around them are taken: :func:`deal_text` drops them)."""
    return rf"^[ \t]*{number_pattern(deal_limit(variant))}[ \t]*$"


def deal_text(text: str) -> str:
    return text.strip(" \t")


@cache
def deal_id_pattern(variant: str) -> str:
    """A deal id of ``variant`` as the API writes it: ``freecell-617``."""
    assert re.fullmatch(r"[a-z0-9-]+", variant), variant  # nothing to escape
    return f"^{variant}-{number_pattern(deal_limit(variant))}$"


def matches(pattern: str, text: str) -> bool:
    return re.fullmatch(pattern, text) is not None
