"""Perft-style counts: the legal moves of fixed positions, kept as text
fixtures under ``fixtures/perft/`` with the expected count of each variant,
checked against ``legal_moves`` and against a reference move generator
written here straight from SPEC.md (sharing no code with the rules core)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jielong.engine.cards import Card
from jielong.engine.rules.core import STOCK, WASTE, Move, Pile
from jielong.engine.rules.freecell import FreeCellPosition
from jielong.engine.rules.klondike import KlondikePosition
from jielong.engine.rules.registry import rules_for
from jielong.engine.rules.variants import VARIANTS, get_variant

PERFT = Path(__file__).parent / "fixtures" / "perft"
COUNT_LINE = re.compile(r"^#\s*count\s+([a-z0-9-]+)\s*:\s*(\d+)\s*$")

KLONDIKE_VARIANTS = ("klondike-3", "klondike-1")
FREECELL_VARIANTS = ("freecell", "kongdang")


# -- the reference generator -------------------------------------------------


def _red(c: Card) -> bool:
    return c.suit.letter in "DH"


def _builds_on(card: Card, target: Card) -> bool:
    return card.rank == target.rank - 1 and _red(card) != _red(target)


def _is_run(cards: tuple[Card, ...]) -> bool:
    return all(_builds_on(cards[i + 1], cards[i]) for i in range(len(cards) - 1))


def _foundation_takes(slot: int, top: Card | None, card: Card, by_suit: bool) -> bool:
    if by_suit and card.suit.value != slot:
        return False
    if top is None:
        return card.rank == 1
    return card.suit == top.suit and card.rank == top.rank + 1


def reference_klondike(variant: str, pos: KlondikePosition) -> set[Move]:
    v = get_variant(variant)
    moves: set[Move] = set()
    if pos.stock:
        moves.add(Move(STOCK, WASTE, min(v.draw, len(pos.stock))))
    elif pos.waste:
        moves.add(Move(WASTE, STOCK, len(pos.waste)))
    # (source, moving cards, may go to a foundation)
    sources: list[tuple[Pile, tuple[Card, ...], bool]] = []
    if pos.waste:
        sources.append((WASTE, pos.waste[-1:], True))
    for i, pile in enumerate(pos.tableau):
        up = pile[pos.hidden[i] :]
        for k in range(1, len(up) + 1):
            if _is_run(up[-k:]):
                sources.append((Pile("tableau", i), up[-k:], True))
    for s, top in enumerate(pos.foundations):
        if top is not None:
            sources.append((Pile("foundation", s), (top,), False))
    for src, cards, to_foundation in sources:
        if to_foundation and len(cards) == 1:
            for s, top in enumerate(pos.foundations):
                if _foundation_takes(s, top, cards[0], v.foundations_by_suit):
                    moves.add(Move(src, Pile("foundation", s)))
        for j, pile in enumerate(pos.tableau):
            dst = Pile("tableau", j)
            if dst == src:
                continue
            if (not pile and cards[0].rank == 13) or (pile and _builds_on(cards[0], pile[-1])):
                moves.add(Move(src, dst, len(cards)))
    return moves


def reference_freecell(variant: str, pos: FreeCellPosition) -> set[Move]:
    v = get_variant(variant)
    f = sum(1 for c in pos.cells if c is None)
    e = sum(1 for col in pos.tableau if not col)

    def limit(free: int, empty: int) -> int:
        if v.run_limit == "freecell":
            return (free + 1) * (1 << empty)
        return (1 << free) * (empty + 1)

    moves: set[Move] = set()
    sources: list[tuple[Pile, tuple[Card, ...]]] = []
    for i, col in enumerate(pos.tableau):
        for k in range(1, len(col) + 1):
            if _is_run(col[-k:]):
                sources.append((Pile("tableau", i), col[-k:]))
    for i, c in enumerate(pos.cells):
        if c is not None:
            sources.append((Pile("cell", i), (c,)))
    for src, cards in sources:
        n = len(cards)
        if n == 1:
            for s, top in enumerate(pos.foundations):
                if _foundation_takes(s, top, cards[0], v.foundations_by_suit):
                    moves.add(Move(src, Pile("foundation", s)))
            for i, c in enumerate(pos.cells):
                if c is None and Pile("cell", i) != src:
                    moves.add(Move(src, Pile("cell", i)))
        for j, col in enumerate(pos.tableau):
            dst = Pile("tableau", j)
            if dst == src:
                continue
            if col and _builds_on(cards[0], col[-1]) and (n == 1 or n <= limit(f, e)):
                moves.add(Move(src, dst, n))
            if not col and (n == 1 or n <= limit(f, e - 1)):
                moves.add(Move(src, dst, n))
    return moves


def reference_moves(variant: str, pos: Any) -> set[Move]:
    if isinstance(pos, KlondikePosition):
        return reference_klondike(variant, pos)
    return reference_freecell(variant, pos)


# -- the fixtures ----------------------------------------------------------------


def load_fixtures() -> list[tuple[str, str, int]]:
    cases = []
    for path in sorted(PERFT.glob("*.txt")):
        text = path.read_text(encoding="utf-8")
        for line in text.splitlines():
            m = COUNT_LINE.match(line)
            if m:
                cases.append((path.name, m.group(1), int(m.group(2))))
    return cases


FIXTURE_CASES = load_fixtures()


def test_a_dozen_fixtures_per_variant() -> None:
    for variant in VARIANTS:
        assert sum(1 for _, v, _ in FIXTURE_CASES if v == variant) >= 12, variant


@pytest.mark.parametrize(("name", "variant", "expected"), FIXTURE_CASES)
def test_perft_count(name: str, variant: str, expected: int) -> None:
    rules = rules_for(variant)
    pos = rules.from_text((PERFT / name).read_text(encoding="utf-8"))
    legal = rules.legal_moves(pos)
    assert len(set(legal)) == len(legal), "a move is listed twice"
    assert len(legal) == expected
    assert set(legal) == reference_moves(variant, pos)


@settings(max_examples=25)
@given(variant=st.sampled_from(sorted(VARIANTS)), data=st.data())
def test_reference_agrees_on_playouts(variant: str, data: st.DataObject) -> None:
    rules = rules_for(variant)
    pos = rules.deal(data.draw(st.integers(1, 1_000_000), label="deal"))
    for _ in range(data.draw(st.integers(0, 120), label="steps")):
        legal = rules.legal_moves(pos)
        assert set(legal) == reference_moves(variant, pos)
        if not legal:
            break
        pos = rules.play(pos, data.draw(st.sampled_from(legal), label="move"))
