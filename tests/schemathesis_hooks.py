"""What the API's OpenAPI document names but JSON Schema cannot state: a
position of each family, as its text or as a shared link's code.

Loaded by ``schemathesis.toml`` for the command line and imported by
tests/test_api_fuzz.py, so that generated positions are real ones (a few moves
into a deal) and the API must take every one of them.
"""

from __future__ import annotations

from typing import Any

import schemathesis
from hypothesis import strategies as st

from jielong.engine.rules.compact import encode
from jielong.engine.rules.registry import rules_for


def _after(variant: str, number: int, choices: list[int]) -> Any:
    """Deal ``number``, then one legal move per choice (by its index)."""
    rules = rules_for(variant)
    position = rules.deal(number)
    for choice in choices:
        legal = rules.legal_moves(position)
        if not legal:
            break
        played = rules.play(position, legal[choice % len(legal)])
        if rules.is_won(played):
            break
        position = played
    return position


def positions(variant: str) -> st.SearchStrategy[str]:
    rules = rules_for(variant)
    played = st.builds(
        lambda n, c: _after(variant, n, c),
        st.integers(1, 32_000),
        st.lists(st.integers(0, 50), max_size=6),
    )
    return played.flatmap(lambda p: st.sampled_from([rules.to_text(p), encode(p)]))


schemathesis.openapi.format("klondike-position", positions("klondike-3"))
schemathesis.openapi.format("freecell-position", positions("freecell"))
