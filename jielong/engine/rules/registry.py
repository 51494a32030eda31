"""Which rules play which variant: one rules object per variant, built on
import from the variants' records.

The only module that knows both rule families; the variants
(:mod:`jielong.engine.rules.variants`) are plain data below it.
"""

from __future__ import annotations

from typing import Any

from jielong.engine.rules.core import Rules
from jielong.engine.rules.freecell import FreeCell, FreeCellPosition
from jielong.engine.rules.klondike import Klondike, KlondikePosition
from jielong.engine.rules.variants import VARIANTS, Variant, get_variant

Position = KlondikePosition | FreeCellPosition
"""A position of either family."""


def _build(variant: Variant) -> Klondike | FreeCell:
    return Klondike(variant) if variant.family == "klondike" else FreeCell(variant)


RULES: dict[str, Klondike | FreeCell] = {v.id: _build(v) for v in VARIANTS.values()}


def rules_for(variant_id: str) -> Rules[Any]:
    """The rules object of a variant (:class:`UnknownVariantError` for an
    unknown id)."""
    return RULES[get_variant(variant_id).id]
