"""The site's variants: named bundles of rule options, as plain records.

A variant is data and knows no rules; :mod:`jielong.engine.rules.registry` pairs
each variant with the rules object of its family.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal


def run_limit_freecell(free_cells: int, empty_columns: int) -> int:
    """Windows FreeCell: (f + 1) * 2**e."""
    return (free_cells + 1) << empty_columns


def run_limit_doubling(free_cells: int, empty_columns: int) -> int:
    """The doubling house rule: 2**f * (e + 1)."""
    return (empty_columns + 1) << free_cells


RUN_LIMITS = {"freecell": run_limit_freecell, "doubling": run_limit_doubling}


@dataclass(frozen=True)
class Variant:
    id: str
    family: Literal["klondike", "freecell"]
    names: dict[str, str] = field(compare=False, hash=False)
    draw: int = 1
    """Klondike: cards turned per click on the stock."""
    run_limit: Literal["freecell", "doubling"] = "freecell"
    """FreeCell: the formula bounding a run moved by hand."""
    foundations_by_suit: bool = False
    """Foundation slot i holds suit i (clubs, diamonds, hearts, spades) only."""
    finishing: Literal["autocomplete", "autocollect"] = "autocomplete"
    hint_plays_on_second_click: bool = False
    numbered_deals: bool = False
    """Deals are browsed by number and marked when unsolvable."""

    def max_run(self, free_cells: int, empty_columns: int) -> int:
        return RUN_LIMITS[self.run_limit](free_cells, empty_columns)


VARIANTS: dict[str, Variant] = {
    v.id: v
    for v in (
        Variant(
            "klondike-3",
            "klondike",
            {
                "zh-Hant": "經典接龍（翻3張）",
                "zh-Hans": "经典接龙（翻3张）",
                "en": "Klondike, draw 3",
            },
            draw=3,
        ),
        Variant(
            "klondike-1",
            "klondike",
            {
                "zh-Hant": "經典接龍（翻1張）",
                "zh-Hans": "经典接龙（翻1张）",
                "en": "Klondike, draw 1",
            },
            draw=1,
        ),
        Variant(
            "freecell",
            "freecell",
            {"zh-Hant": "新接龍", "zh-Hans": "新接龙", "en": "FreeCell"},
            run_limit="freecell",
        ),
        Variant(
            "kongdang",
            "freecell",
            {
                "zh-Hant": "空當接龍",
                "zh-Hans": "空当接龙",
                "en": "FreeCell (doubling rule, numbered deals)",
            },
            run_limit="doubling",
            foundations_by_suit=True,
            finishing="autocollect",
            hint_plays_on_second_click=True,
            numbered_deals=True,
        ),
    )
}


class UnknownVariantError(KeyError):
    pass


def get_variant(variant_id: str) -> Variant:
    try:
        return VARIANTS[variant_id]
    except KeyError:
        raise UnknownVariantError(variant_id) from None
