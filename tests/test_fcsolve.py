"""The Freecell Solver adapter: its lines replay through our rules; only its
exhaustive preset may call a position unsolvable."""

from __future__ import annotations

import pytest
from solver_checks import assert_wins, playout

from jielong.engine.rules.registry import rules_for
from jielong.engine.solve import api, fcsolve

pytestmark = pytest.mark.skipif(not fcsolve.available(), reason="Freecell Solver not installed")


@pytest.mark.parametrize("variant", ["freecell", "kongdang"])
@pytest.mark.parametrize("deal", [1, 164, 617, 1941])
def test_lines_replay(variant: str, deal: int) -> None:
    rules = rules_for(variant)
    start = rules.deal(deal)
    result = fcsolve.solve(rules, start)
    assert result.status == "solved"
    assert result.solver == "fcsolve"
    assert_wins(rules, start, result.moves)


def test_739671_solved_although_the_fast_preset_gives_up() -> None:
    rules = rules_for("freecell")
    start = rules.deal(739671)
    status, _, _, preset = fcsolve.verdict(start, proof=False)
    assert status == "unknown" and preset == fcsolve.FAST
    result = api.solve("freecell", start, solver="fcsolve")
    assert result.status == "solved"
    assert_wins(rules, start, result.moves)


def test_11982_unsolvable_by_the_exhaustive_preset() -> None:
    rules = rules_for("kongdang")
    result = fcsolve.solve(rules, rules.deal(11982))
    assert result.status == "unsolvable"
    assert fcsolve.solve(rules, rules.deal(11982), proof=False).status == "unknown"


def test_budget() -> None:
    rules = rules_for("freecell")
    assert fcsolve.solve(rules, rules.deal(11982), max_nodes=100).status == "unknown"


@pytest.mark.parametrize("variant", ["freecell", "kongdang"])
def test_mid_game_lines_with_cells_and_foundations(variant: str) -> None:
    rules = rules_for(variant)
    checked = 0
    for seed in range(6):
        position = playout(rules, 300 + seed, 25, seed, calm=True)
        result = fcsolve.solve(rules, position)
        if result.status == "solved":
            assert_wins(rules, position, result.moves)
            checked += 1
    assert checked >= 3


def test_board_text_keeps_cells_in_place() -> None:
    rules = rules_for("freecell")
    position = rules.play(rules.deal(5), rules.legal_moves(rules.deal(5))[0])
    text = fcsolve.board_text(position)
    assert text.startswith("Foundations: C-0 D-0 H-0 S-0\nFreecells: ")
    assert len(text.splitlines()) == 10
