"""The ``jielong deal`` and ``jielong play`` commands, checked against
Debian's Freecell Solver tools and ``pysol_cards`` where installed."""

from __future__ import annotations

import io
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from jielong.cli import main, play_loop
from jielong.engine.cards import Card
from jielong.engine.rules.registry import rules_for
from jielong.engine.shuffles import freecell_deal, klondike_deal

MSFC = shutil.which("make-microsoft-freecell-board")
FC_SOLVE = shutil.which("fc-solve")
JIELONG = Path(sys.executable).parent / "jielong"


def run_main(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = main(args)
    except SystemExit as e:  # argparse refuses bad arguments this way
        code = int(e.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


# -- deal --------------------------------------------------------------------


@pytest.mark.skipif(MSFC is None, reason="make-microsoft-freecell-board is not installed")
@pytest.mark.parametrize("number", [1, 617, 11982, 1_000_000, 2**31 + 7, 2**33 - 1])
def test_deal_freecell_equals_make_microsoft_freecell_board(
    number: int, capsys: pytest.CaptureFixture[str]
) -> None:
    assert MSFC is not None
    code, out, _ = run_main(["deal", "freecell", str(number)], capsys)
    assert code == 0
    ref = subprocess.run(
        [MSFC, "-t", str(number)], capture_output=True, text=True, check=True, timeout=20
    ).stdout
    assert out == ref


def test_deal_freecell_format(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(["deal", "kongdang", "1"], capsys)
    lines = out.splitlines()
    assert code == 0 and len(lines) == 8
    # no Foundations:/Freecells: lines at the start of a deal
    assert not any(":" in line for line in lines)
    assert [tuple(Card.parse(t) for t in line.split()) for line in lines] == list(freecell_deal(1))


@pytest.mark.skipif(FC_SOLVE is None, reason="fc-solve is not installed")
@pytest.mark.parametrize("number", [1, 617])
def test_fc_solve_solves_our_deal(number: int) -> None:
    assert FC_SOLVE is not None
    deal = subprocess.run(
        [str(JIELONG), "deal", "freecell", str(number)],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    ).stdout
    solved = subprocess.run(
        [FC_SOLVE, "-m", "-sn"],
        input=deal,
        capture_output=True,
        text=True,
        timeout=60,
        env={"FREECELL_SOLVER_QUIET": "1", "PATH": "/usr/bin:/bin"},
    )
    assert solved.returncode == 0
    assert "This game is solveable." in solved.stdout
    body = solved.stdout.split("This game is solveable.")[0]
    moves = [t for t in body.split() if len(t) == 2 and t[0] in "12345678abcd"]
    assert len(moves) > 30


def _pysol(number: int) -> str:
    from pysol_cards.cards import CardRenderer
    from pysol_cards.deal_game import Game
    from pysol_cards.random_base import RandomBase

    game = Game("klondike", number, RandomBase.DEALS_PYSOLFC, 13)
    return str(game.calc_layout_string(CardRenderer(print_ts=True)))


_rng = random.Random(7)
PYSOL_NUMBERS = sorted(
    {1, 2, 32000, 32001, 123456, 10**9}
    | {_rng.randint(1, 32000) for _ in range(47)}
    | {_rng.randint(32001, 10**12) for _ in range(47)}
)


@pytest.mark.parametrize("number", PYSOL_NUMBERS)
def test_deal_klondike_pysol_format(number: int, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("pysol_cards")
    code, out, _ = run_main(["deal", "klondike-3", str(number), "--format", "pysol"], capsys)
    assert code == 0
    assert out == _pysol(number)


@pytest.mark.parametrize("number", [1, 40000])
def test_deal_klondike_text_shows_our_deal(number: int, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(["deal", "klondike-1", str(number)], capsys)
    assert code == 0
    deal = klondike_deal(number)
    lines = out.splitlines()
    stock = lines[0].split(":", 1)[1].split()
    assert tuple(Card.parse(t) for t in reversed(stock)) == deal.stock
    for i, line in enumerate(lines[1:8]):
        cards = line.split(":", 1)[1].split()
        down = [t for t in cards if t.startswith("<")]
        assert len(down) == i and not cards[-1].startswith("<")
        assert tuple(Card.parse(t.strip("<>")) for t in cards) == deal.piles[i]


@pytest.mark.parametrize("variant", ["klondike-3", "klondike-1"])
def test_deal_klondike_position_format(variant: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(["deal", variant, "77", "--format", "position"], capsys)
    assert code == 0
    rules = rules_for(variant)
    assert rules.from_text(out) == rules.deal(77)


@pytest.mark.parametrize(
    "args",
    [
        ["deal", "freecell", "0"],
        ["deal", "freecell", str(2**33)],
        ["deal", "klondike-3", "-4"],
        ["deal", "klondike-3", "1", "--format", "fcs"],
        ["deal", "spider", "1"],
        ["deal", "freecell", "twelve"],
        ["play", "freecell", "0"],
        ["deal"],
    ],
)
def test_bad_arguments_give_a_clear_error(
    args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_main(args, capsys)
    assert code == 2
    assert out == ""
    assert err.strip() and "Traceback" not in err


# -- play ----------------------------------------------------------------------


def play(variant: str, number: int, lines: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    code = play_loop(variant, number, io.StringIO("".join(f"{x}\n" for x in lines)), out)
    return code, out.getvalue()


def boards(transcript: str) -> list[str]:
    """The pictures of the table, in order: from the status line to the prompt."""
    return re.findall(r"^( (?:cells a-d|s\[).*?)\n> ", transcript, flags=re.S | re.M)


def test_play_freecell_moves_illegal_undo_list_quit() -> None:
    code, out = play("freecell", 1, ["m", "1a", "12", "u", "q"])
    assert code == 0
    assert out.startswith("FreeCell #1.")
    # m lists the 32 legal moves of the deal's start
    listed = out.split("> ", 1)[1].splitlines()[0].split()
    assert len(listed) == 32 and "1a" in listed and "8d" in listed
    # 1a put ♠6 into cell a; 12 (♦6 on ♣9) is refused with its reason
    assert "Illegal: wrong rank" in out
    pictures = boards(out)
    assert "♠6  --  --  --" in pictures[2]
    # u went back to the start exactly
    assert pictures[-1] == pictures[0]


def test_play_freecell_reaches_the_foundations() -> None:
    rules = rules_for("freecell")
    pos = rules.deal(1)
    # column 7 is 7C KH AH 4D JH 8C: clear 8C, JH, 4D into cells, then AH up
    code, out = play("freecell", 1, ["7a", "7b", "7c", "7h", "q"])
    assert code == 0
    assert "Illegal" not in out
    assert "h  ♥A  --  --  --" in boards(out)[-1]
    assert pos == rules.deal(1)


def test_play_klondike_draw_recycle_and_reasons() -> None:
    # deal 1 of klondike-3: AH and AS show; 24 cards in the stock
    code, out = play("klondike-3", 1, ["7h", "6h", "12", "s", "m", "u", "u", "u", "u", "r", "q"])
    assert code == 0
    assert out.startswith("Klondike, draw 3 #1.")
    assert "Illegal: wrong colour" in out or "Illegal: wrong rank" in out
    pictures = boards(out)
    assert "h  ♠A" in pictures[1]
    assert pictures[3] == pictures[2]  # the refused move changed nothing
    # the draw turned three cards: ♦4 (turned last) on top
    assert pictures[4].startswith(" s[21]  w  ♥4  ♣A  ♦4")
    assert "s w3 71/1 76/1" in out
    assert "Nothing to undo." in out


def test_play_klondike_recycles() -> None:
    # 24 draws of one card empty the stock; the 25th s recycles the waste.
    code, out = play("klondike-1", 1, ["s"] * 25 + ["q"])
    assert code == 0
    assert "recycles 1" in boards(out)[-1]
    assert "Illegal" not in out


def test_play_bad_input_and_end_of_input() -> None:
    code, out = play("kongdang", 617, ["zz", "9a", "tableau:0 cell:9", "1a/x", "1x", "h"])
    assert code == 0  # end of input ends the game quietly
    assert out.count("not a move") == 1 and out.count("not a pile in this notation") == 2
    assert out.count("Illegal: unknown pile") == 2
    assert "Moves:" in out  # the help text
    assert "Traceback" not in out


def test_play_console_script_through_stdin() -> None:
    done = subprocess.run(
        [str(JIELONG), "play", "freecell", "617"],
        input="m\n1a\nu\nq\n",
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0
    assert "FreeCell #617." in done.stdout
    assert done.stderr == ""


def test_a_reader_that_goes_away_ends_the_command_quietly() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "jielong.cli", "play", "freecell", "1"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None
    proc.stdout.close()  # as `| head` does once it has its lines
    _, err = proc.communicate(b"m\n" * 2000, timeout=60)
    assert b"Traceback" not in err
    assert proc.returncode == 1
