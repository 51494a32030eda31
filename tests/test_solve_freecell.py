"""The own FreeCell solver: every solution replays through the rules to a won
position; "unsolvable" only from an exhaustive search."""

from __future__ import annotations

import pytest
from solver_checks import assert_wins, playout

from jielong.engine.rules.core import Move, cell, tableau
from jielong.engine.rules.registry import rules_for
from jielong.engine.solve import api
from jielong.engine.solve import freecell as own

VARIANTS = ("freecell", "kongdang")


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("deal", [1, 2, 617, 1941, 31465])
def test_deals_solved_and_replayed(variant: str, deal: int) -> None:
    rules = rules_for(variant)
    start = rules.deal(deal)
    result = own.solve(rules, start, max_seconds=30)
    assert result.status == "solved"
    assert result.solver == "own"
    assert_wins(rules, start, result.moves)
    # counted by hand the line is never longer than in single-card moves
    assert 0 < own.run_move_length(rules, start, result.moves) <= len(result.moves)


def test_deal_739671_solved() -> None:
    rules = rules_for("freecell")
    start = rules.deal(739671)
    result = own.solve(rules, start, max_seconds=60)
    assert result.status == "solved"
    assert_wins(rules, start, result.moves)


def test_deal_11982_proven_unsolvable() -> None:
    rules = rules_for("kongdang")
    verdict, nodes = own.prove(rules.deal(11982))
    assert verdict == "unsolvable"
    assert nodes > 1000  # a real search, not a shortcut


@pytest.mark.slow
def test_deal_11982_unsolvable_through_the_solver() -> None:
    result = api.solve("freecell", rules_for("freecell").deal(11982))
    assert result.status == "unsolvable"
    assert result.moves == ()


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("seed", range(6))
def test_mid_game_positions(variant: str, seed: int) -> None:
    rules = rules_for(variant)
    position = playout(rules, 500 + seed, 5 + 5 * seed, seed, calm=True)
    result = own.solve(rules, position, max_seconds=30)
    assert result.status in ("solved", "unsolvable")
    if result.status == "solved":
        assert_wins(rules, position, result.moves)
    else:
        assert own.prove(position)[0] == "unsolvable"


def test_mid_game_positions_mostly_solved() -> None:
    rules = rules_for("freecell")
    solved = 0
    for seed in range(8):
        position = playout(rules, 700 + seed, 20, seed, calm=True)
        result = own.solve(rules, position, max_seconds=30)
        if result.status == "solved":
            assert_wins(rules, position, result.moves)
            solved += 1
    assert solved >= 4


@pytest.mark.parametrize("variant", VARIANTS)
def test_dead_positions_proven(variant: str) -> None:
    """Random playouts that end where nothing moves, or a few moves before."""
    rules = rules_for(variant)
    proven = 0
    for seed in range(12):
        position = playout(rules, 1000 + seed, 10 + 3 * seed, seed)
        result = own.solve(rules, position, max_seconds=30)
        if not rules.legal_moves(position):
            assert result.status == "unsolvable"
        if result.status == "unsolvable":
            assert own.prove(position)[0] == "unsolvable"
            proven += 1
    assert proven >= 3


def test_positions_after_11982_unsolvable() -> None:
    """Every position reachable from an unsolvable deal is unsolvable too."""
    rules = rules_for("freecell")
    position = playout(rules, 11982, 3, 1)
    assert position != rules.deal(11982)
    assert own.prove(position)[0] == "unsolvable"


BLOCKED = """\
Foundations: C-7 D-7 H-7 S-7
Freecells: 9C 9D 9H 9S
: QD 8C KC
: QC 8D KD
: QS 8H KH
: QH 8S KS
: TD JC
: TC JD
: TH JS
: TS JH
"""


@pytest.mark.parametrize("variant", VARIANTS)
def test_constructed_blocked_position(variant: str) -> None:
    """Kings and jacks at the column ends, nines in the cells, every eight
    buried: nothing moves, so nothing wins."""
    rules = rules_for(variant)
    position = rules.from_text(BLOCKED)
    assert not rules.legal_moves(position)
    assert own.solve(rules, position).status == "unsolvable"
    assert own.prove(position)[0] == "unsolvable"


def test_freeing_one_cell_makes_it_solvable() -> None:
    """The same position with a nine in a column instead of a cell."""
    rules = rules_for("freecell")
    text = BLOCKED.replace("9C 9D 9H 9S", "9C 9D 9H -").replace(": TS JH", ": TS 9S JH")
    position = rules.from_text(text)
    result = own.solve(rules, position)
    assert result.status == "solved"
    assert_wins(rules, position, result.moves)
    assert own.prove(position)[0] == "solvable"


def test_budget_exhaustion_is_unknown() -> None:
    rules = rules_for("freecell")
    result = own.solve(rules, rules.deal(11982), max_nodes=50)
    assert result.status == "unknown"
    assert result.moves == ()
    assert own.prove(rules.deal(11982), max_nodes=50)[0] == "unknown"


def test_won_position_needs_no_moves() -> None:
    rules = rules_for("freecell")
    position = rules.deal(1)
    for move in own.solve(rules, position).moves:
        position = rules.play(position, move)
    assert rules.is_won(position)
    assert own.solve(rules, position).status == "solved"


def test_run_moves_within_the_limit() -> None:
    """A run move expands into single-card moves through free cells and empty
    columns, for at most (f + 1) * 2**e cards, and replays legally."""
    rules = rules_for("freecell")
    position = rules.from_text(
        "Foundations: C-6 D-6 H-6 S-6\n"
        ": KS QH JS TH 9S 8H\n: TC 8D 9D\n:\n: KH QS JH TS 9H 8S 7C\n"
        ": 7D 7H 7S\n: QD JC TD KC\n: KD QC JD\n: 8C 9C\n"
    )
    # two free cells and one empty column carry (2 + 1) * 2 = 6 cards
    moves = own.run_moves(5, tableau(0), 5, [0, 1], [2])
    assert len(moves) > 5
    for m in moves:
        assert m.count == 1
        assert m in rules.legal_moves(position), m
        position = rules.play(position, m)
    assert [c.code() for c in position.tableau[5][-6:]] == ["KC", "QH", "JS", "TH", "9S", "8H"]
    assert [c.code() for c in position.tableau[0]] == ["KS"]
    assert not position.tableau[2]
    with pytest.raises(own.SolverError):
        own.run_moves(7, tableau(0), 1, [0, 1], [])
    assert own.run_moves(1, cell(0), 3, [], []) == [Move(cell(0), tableau(3))]


@pytest.mark.parametrize("deal", [6361, 6710])
def test_long_tail_deals_within_a_node_budget(deal: int) -> None:
    """Deals that the first search alone finds hard: the portfolio's turns
    solve them within a budget of nodes (one search after another took over
    400,000 nodes on these)."""
    rules = rules_for("freecell")
    start = rules.deal(deal)
    result = own.solve(rules, start, max_nodes=150_000)
    assert result.status == "solved"
    assert result.nodes <= 150_000
    assert_wins(rules, start, result.moves)


def test_node_budget_is_kept() -> None:
    rules = rules_for("freecell")
    result = own.solve(rules, rules.deal(6361), max_nodes=20_000)
    assert result.status == "unknown"
    assert 15_000 < result.nodes <= 20_000
    assert result.moves == ()


@pytest.mark.parametrize("deep", [False, True])
def test_a_paused_search_resumes_where_it_stopped(deep: bool) -> None:
    """Run in short turns, a search expands the same states and finds the
    same line as in one go."""
    position = rules_for("freecell").deal(1941)
    whole = own.Search(position, weight=1.0, deep=deep)
    assert whole.run() == "solved"
    turns = own.Search(position, weight=1.0, deep=deep)
    while turns.run(37) == "unknown":
        pass
    assert turns.status == "solved"
    assert turns.nodes == whole.nodes
    assert turns.steps == whole.steps
