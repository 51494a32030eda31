"""The hint policy: a hint move is legal; "unsolvable" only when proven."""

from __future__ import annotations

import pickle
from typing import Any

import pytest
from solver_checks import CARRY, CARRY_STEPS, assert_wins, playout

from jielong.engine.rules.core import Move, tableau
from jielong.engine.rules.registry import rules_for
from jielong.engine.solve import fcsolve, freecell, freecell_hint, hints
from jielong.engine.solve.result import SolveResult


@pytest.mark.parametrize("variant", ["freecell", "kongdang"])
@pytest.mark.parametrize("use_fcsolve", [False, True])
def test_hint_moves_are_legal(variant: str, use_fcsolve: bool) -> None:
    if use_fcsolve and not fcsolve.available():
        pytest.skip("Freecell Solver not installed")
    rules = rules_for(variant)
    for seed in range(5):
        position = playout(rules, 40 + seed, 15, seed, calm=True)
        hint = freecell_hint.freecell_hint(rules, position, 5.0, use_fcsolve=use_fcsolve)
        if hint.kind == "solver" and hint.steps:
            # a run longer than the hand may move, played by its steps
            assert variant == "kongdang" and hint.move not in rules.legal_moves(position)
            assert play_all(rules, position, hint.steps) == rules.play(position, hint.move)
            assert_wins(rules, position, (*hint.steps, *hint.line))
        elif hint.kind == "solver" and hint.move.count > 1:
            # a run the hand may move at once
            assert hint.move in rules.legal_moves(position)
            assert_wins(rules, rules.play(position, hint.move), hint.line)
        elif hint.kind == "solver":
            assert hint.move in rules.legal_moves(position)
            assert_wins(rules, position, (hint.move, *hint.line))
        elif hint.kind == "unsolvable":
            assert freecell.prove(position)[0] == "unsolvable"
        elif hint.kind == "none":
            assert not rules.legal_moves(position)
        else:
            pytest.fail(f"unexpected hint {hint.kind} with 5 s to spare")


def test_compute_hint_from_a_deal() -> None:
    rules = rules_for("kongdang")
    hint = hints.compute_hint("kongdang", rules.deal(617), deadline_seconds=5.0)
    assert hint.kind == "solver"
    assert hint.move in rules.legal_moves(rules.deal(617))


def test_unsolvable_only_when_proven() -> None:
    rules = rules_for("freecell")
    # too little time for a proof: a plausible move, never "unsolvable"
    hint = freecell_hint.freecell_hint(rules, rules.deal(11982), 0.0, use_fcsolve=False)
    assert hint.kind == "heuristic"
    assert hint.move in rules.legal_moves(rules.deal(11982))
    # time enough for the proof even on a busy machine
    proven = freecell_hint.freecell_hint(rules, rules.deal(11982), 600.0, use_fcsolve=False)
    assert proven.kind == "unsolvable" and proven.move is None


def test_no_legal_move_gives_none() -> None:
    rules = rules_for("freecell")
    for seed in range(30):
        position = playout(rules, 1000 + seed, 200, seed)
        if not rules.legal_moves(position):
            break
    else:
        pytest.fail("no dead position found")
    assert hints.compute_hint("freecell", position, deadline_seconds=1.0).kind == "none"


def test_heuristic_move_is_legal() -> None:
    rules = rules_for("kongdang")
    for seed in range(5):
        position = playout(rules, 90 + seed, 10, seed)
        hint = freecell_hint.heuristic_move(rules, position)
        if rules.legal_moves(position):
            assert hint.kind == "heuristic" and hint.move in rules.legal_moves(position)
        else:
            assert hint.kind == "none"


def test_arguments_and_answer_pickle() -> None:
    """The server runs compute_hint in a process pool."""
    rules = rules_for("freecell")
    args = pickle.loads(pickle.dumps(("freecell", rules.deal(3))))
    hint = hints.compute_hint(*args, deadline_seconds=5.0)
    assert pickle.loads(pickle.dumps(hint)) == hint


def test_klondike_hints_come_from_the_klondike_search() -> None:
    klondike = pytest.importorskip("jielong.engine.solve.klondike")
    assert hasattr(klondike, "hint")
    rules = rules_for("klondike-3")
    position = rules.deal(5)
    hint = hints.compute_hint("klondike-3", position, deadline_seconds=3.0)
    if hint.move is not None:
        assert hint.move in rules.legal_moves(position)
    else:
        assert hint.kind in ("unsolvable", "no_progress", "none")


def play_all(rules: Any, position: Any, moves: Any) -> Any:
    for m in moves:
        assert m in rules.legal_moves(position), m
        position = rules.play(position, m)
    return position


def carry_line(rules: Any) -> tuple[Any, tuple[Move, ...]]:
    position = rules.from_text(CARRY)
    steps = tuple(Move(tableau(a), tableau(b)) for a, b in CARRY_STEPS)
    after = play_all(rules, position, steps)
    # then the 5♣ home, say
    return position, (
        *steps,
        next(m for m in rules.legal_moves(after) if m.dst.kind == "foundation"),
    )


@pytest.mark.parametrize("variant", ["freecell", "kongdang"])
def test_a_line_that_starts_with_a_carried_run_is_hinted_as_the_run(variant: str) -> None:
    rules: Any = rules_for(variant)
    position, line = carry_line(rules)
    run = Move(tableau(0), tableau(1), 4)
    assert freecell_hint.leading_run(rules, position, line) == (run, 9)
    hint = freecell_hint.from_result(rules, position, SolveResult("solved", line, solver="test"))
    assert (hint.kind, hint.move, hint.line) == ("solver", run, line[9:])
    if variant == "freecell":
        # (0 + 1) * 2^2 = 4 cards: the hand may move it at once
        assert run in rules.legal_moves(position) and hint.steps == ()
    else:
        # 2^0 * (2 + 1) = 3 cards by hand: the hint plays it by its steps
        assert run not in rules.legal_moves(position) and hint.steps == line[:9]


def test_lines_that_carry_no_run_keep_their_first_move() -> None:
    rules: Any = rules_for("kongdang")
    position, line = carry_line(rules)
    # on the way, 7♣ 6♦ alone went into column 4: a run of two the hand may move
    assert freecell_hint.leading_run(rules, position, line[:6]) == (
        Move(tableau(0), tableau(3), 2),
        3,
    )
    assert freecell_hint.leading_run(rules, position, line[:2]) is None
    # a card home first: no run can match any more
    home = next(m for m in rules.legal_moves(position) if m.dst.kind == "foundation")
    assert freecell_hint.leading_run(rules, position, (home, *line)) is None
    hint = freecell_hint.from_result(
        rules, position, SolveResult("solved", line[:2], solver="test")
    )
    assert (hint.move, hint.line, hint.steps) == (line[0], line[1:2], ())
