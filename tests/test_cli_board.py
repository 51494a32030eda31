"""Boards through the command line: ``jielong solve --position -`` reads
PySolFC's import boards from standard input, and ``jielong deal --format``
prints the texts the site reads back."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from jielong.cli import main
from jielong.engine.rules.registry import rules_for

BOARDS = Path(__file__).parent / "fixtures" / "boards"


def run(
    args: list[str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    stdin: bytes,
) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    try:
        code = main(args)
    except SystemExit as e:
        code = int(e.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("name", ["624.board", "624-with-utf8-bom.board", "with-10-for-rank.txt"])
def test_solve_reads_a_board_from_standard_input(
    name: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    data = (BOARDS / name).read_bytes()
    code, out, err = run(
        ["solve", "freecell", "--position", "-", "--json", "--seconds", "60"],
        capsys,
        monkeypatch,
        data,
    )
    assert (code, err) == (0, "")
    assert json.loads(out)["status"] == "solved"


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("624-with-dup-card.board", "duplicated cards: KC (lines 1, 2); missing: 4H"),
        ("624-missing-cards.board", "missing cards: 5H"),
        ("624-invalid-foundations-line.board", "line 1: not a foundation entry: 'zzz'"),
    ],
)
def test_solve_names_what_is_wrong(
    name: str, says: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for args, stdin in (
        (["--position", "-"], (BOARDS / name).read_bytes()),
        (["--position", str(BOARDS / name)], b""),
    ):
        code, out, err = run(["solve", "freecell", *args], capsys, monkeypatch, stdin)
        assert (code, out) == (2, "")
        assert err.strip().endswith(says), err


def test_solve_refuses_text_that_is_not_utf8(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, _, err = run(["solve", "freecell", "--position", "-"], capsys, monkeypatch, b"\xff\xfe")
    assert code == 2 and "not UTF-8" in err


@pytest.mark.parametrize("variant", ["freecell", "kongdang", "klondike-1", "klondike-3"])
@pytest.mark.parametrize("fmt", ["position", "fcs", "pysol"])
def test_every_deal_format_reads_back(
    variant: str, fmt: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, err = run(["deal", variant, "624", "--format", fmt], capsys, monkeypatch, b"")
    if fmt == "fcs" and variant.startswith("klondike"):
        assert code == 2 and "FreeCell" in err
        return
    assert code == 0
    rules = rules_for(variant)
    assert rules.from_text(out) == rules.deal(624)
    if variant == "freecell" and fmt == "pysol":
        # PySolFC writes its free cells always, on an "FC:" line
        assert out.splitlines()[:2] == ["FC: - - - -", "KC 6H 4C QS 2D 4S AS"]
