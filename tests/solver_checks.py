"""Helpers shared by the solver tests: an independent replay checker and
positions from random playouts."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from jielong.engine.rules.core import Move


def assert_wins(rules: Any, position: Any, moves: Sequence[Move]) -> None:
    """Every move single-card, among the legal moves where it is played, and
    the last position won: only ``legal_moves``, ``play`` and ``is_won``."""
    assert moves, "a solution has moves"
    for i, move in enumerate(moves):
        assert move.count == 1, f"move {i} ({move}) is not a single-card move"
        assert move in rules.legal_moves(position), f"move {i} ({move}) is illegal"
        position = rules.play(position, move)
    assert rules.is_won(position)


def playout(rules: Any, deal: int, length: int, seed: int, *, calm: bool = False) -> Any:
    """The position after up to ``length`` random moves (never free cell to
    free cell) from a deal's start, stopping early where nothing can move.
    ``calm`` plays into a free cell only when nothing else moves, as a player
    mostly does."""
    rng = random.Random(seed)
    position = rules.deal(deal)
    for _ in range(length):
        legal = [m for m in rules.legal_moves(position) if not (m.src.kind == m.dst.kind == "cell")]
        if not legal:
            break
        if calm:
            legal = [m for m in legal if m.dst.kind != "cell"] or legal
        position = rules.play(position, rng.choice(legal))
    return position


# Four cells full, columns 3 and 4 empty: the run 9♠ 8♥ 7♣ 6♦ of column 1
# goes onto the 10♦ of column 2 one card at a time through the empty columns.
CARRY = (
    "Foundations: C-4 D-4 H-4 S-4\nFreecells: KC KD KH KS\n"
    ": QC 9S 8H 7C 6D\n: TD\n:\n:\n"
    ": 6C 6H 6S 5D 5H 5S 5C\n: 7D 7H 7S 8C 8D 8S\n: 9C 9D 9H TC TH TS\n"
    ": JC JD JH JS QD QH QS\n"
)
CARRY_STEPS = [
    (0, 2), (0, 3), (2, 3), (0, 2), (0, 1), (2, 1), (3, 2), (3, 1), (2, 1),
]  # fmt: skip
