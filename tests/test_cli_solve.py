"""The ``jielong solve`` command: its ``--json`` answer, read back through the
notation, replays the very moves of the solution to a won position."""

from __future__ import annotations

import json
from typing import Any

import pytest

from jielong.cli import main
from jielong.engine.notation import parse_move
from jielong.engine.rules.registry import rules_for
from jielong.engine.rules.variants import get_variant
from jielong.engine.solve import fcsolve


def solve_json(args: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main(["solve", *args, "--json"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    answer: dict[str, Any] = json.loads(out)
    assert set(answer) == {"status", "moves", "nodes", "seconds", "solver", "thoughtful"}
    return answer


def replay(variant: str, number: int, texts: list[str]) -> None:
    """Play the texts from the deal, each one a legal move, to the win."""
    rules: Any = rules_for(variant)
    family = get_variant(variant).family
    position = rules.deal(number)
    for text in texts:
        legal = rules.legal_moves(position)
        move = parse_move(text, legal, family)
        assert move in legal, text
        position = rules.play(position, move)
    assert rules.is_won(position)


@pytest.mark.parametrize(
    ("variant", "number"),
    [("freecell", 617), ("kongdang", 1), ("klondike-3", 617), ("klondike-1", 5)],
)
def test_json_solution_replays_to_a_win(
    variant: str, number: int, capsys: pytest.CaptureFixture[str]
) -> None:
    answer = solve_json([variant, str(number), "--seconds", "60"], capsys)
    assert answer["status"] == "solved" and answer["solver"] == "own"
    # a Klondike deal's verdict sees its face-down cards, as the API says too
    assert answer["thoughtful"] == variant.startswith("klondike")
    replay(variant, number, answer["moves"])


@pytest.mark.skipif(not fcsolve.available(), reason="Freecell Solver is not installed")
def test_freecell_solver_lines_replay_exactly(capsys: pytest.CaptureFixture[str]) -> None:
    # its single-card moves often go into empty columns, where a bare "46"
    # would read as the longest run that fits
    answer = solve_json(["freecell", "617", "--solver", "fcsolve"], capsys)
    assert answer["status"] == "solved" and answer["solver"].startswith("fcsolve")
    into_empty = [m for m in answer["moves"] if m.endswith("/1")]
    assert into_empty
    replay("freecell", 617, answer["moves"])


def test_proof_budget_and_text_output(capsys: pytest.CaptureFixture[str]) -> None:
    # draw-3 deal 7 is lost from the start: no way to place enough cards
    answer = solve_json(["klondike-3", "7"], capsys)
    assert (answer["status"], answer["moves"]) == ("unsolvable", [])
    # deal 14 is lost, but its proof takes thousands of states
    answer = solve_json(["klondike-3", "14", "--budget", "1"], capsys)
    assert (answer["status"], answer["moves"]) == ("unknown", [])
    assert main(["solve", "klondike-1", "5"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("solved (own, ")
    assert "thoughtful" in out[1]  # a deal's face-down cards, seen by the solver
    assert out[2].endswith(" single-card moves")


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["klondike-3", "1", "--solver", "fcsolve"], "for FreeCell variants"),
        (["freecell"], "give a deal number"),
        (["freecell", "0"], "run from 1 to"),
    ],
)
def test_bad_requests_say_why(
    args: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    try:
        code = main(["solve", *args])
    except SystemExit as e:
        code = int(e.code or 0)
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert says in err and "Traceback" not in err
