"""Helpers shared by the solver tests: an independent replay checker and
positions from random playouts."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from jielong.rules.core import Move


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
