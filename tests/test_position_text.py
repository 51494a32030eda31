"""Position text as people write it: Freecell Solver's boards in all their
spellings, PySolFC's boards and Klondike layouts, and errors that name the
culprit.  The six boards of tests/fixtures/boards are the kinds PySolFC's own
import tests use (plain, byte-order mark, "10" ranks, a duplicated card, a
missing card, a bad foundations line), written here from our deals 624 and
24 (the same Microsoft deals)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jielong.engine.cards import Card
from jielong.engine.rules.core import PositionParseError, Rules
from jielong.engine.rules.registry import rules_for
from jielong.engine.rules.variants import VARIANTS
from jielong.engine.textboard import position_text

BOARDS = Path(__file__).parent / "fixtures" / "boards"
FREECELLS = ("freecell", "kongdang")


def board(name: str) -> str:
    return (BOARDS / name).read_text(encoding="utf-8")


def refusal(variant: str, text: str) -> PositionParseError:
    with pytest.raises(PositionParseError) as info:
        rules_for(variant).from_text(text)
    return info.value


# -- PySolFC's six import boards ---------------------------------------------


@pytest.mark.parametrize("variant", FREECELLS)
@pytest.mark.parametrize(
    ("name", "deal"),
    [("624.board", 624), ("624-with-utf8-bom.board", 624), ("with-10-for-rank.txt", 24)],
)
def test_pysol_boards_that_import(variant: str, name: str, deal: int) -> None:
    r = rules_for(variant)
    assert r.from_text(board(name)) == r.deal(deal)


def test_the_bom_board_starts_with_a_bom() -> None:
    assert (BOARDS / "624-with-utf8-bom.board").read_bytes()[:3] == b"\xef\xbb\xbf"


def test_duplicated_card_names_the_card_its_lines_and_the_card_missing() -> None:
    e = refusal("freecell", board("624-with-dup-card.board"))
    assert e.code == "duplicate_cards"
    assert e.details["cards"] == ["KC"]
    assert e.details["line"] == 2  # PySolFC counts this line as 1, from 0
    assert e.details["lines"] == {"KC": [1, 2]}
    assert e.details["missing"] == ["4H"]
    assert str(e) == "duplicated cards: KC (lines 1, 2); missing: 4H"


def test_missing_card_is_named() -> None:
    e = refusal("freecell", board("624-missing-cards.board"))
    assert (e.code, e.details["cards"]) == ("missing_cards", ["5H"])
    assert str(e) == "missing cards: 5H"


def test_bad_foundations_line_names_line_and_token() -> None:
    e = refusal("freecell", board("624-invalid-foundations-line.board"))
    assert e.code == "bad_foundations"
    assert e.details == {"line": 1, "token": "zzz"}


# -- Freecell Solver's spellings ---------------------------------------------

MID_GAME = """Foundations: H-A C-0 D-0 S-2
Freecells: 8H - - -
: JD KD 4C 3S 6D 6S
: 2D KC KS 5C TD 8S 9C
: 9H 9S 9D TS 4S 8D 2H
: JC 5S QD QH TH QS 6H
: 5D AD JS 4H 6C
: 7H QC AC 2C 3D
: 7C KH 4D JH 8C
: 5H 3H 3C 7S 7D TC
"""


@pytest.mark.parametrize(
    "found", ["Foundations:", "Foundation:", "Founds:", "Found:", "Decks:", "Deck:", "FOUNDS:"]
)
@pytest.mark.parametrize("cells", ["Freecells:", "Freecell:", "FC:", "fc:"])
def test_every_header_spelling(found: str, cells: str) -> None:
    r = rules_for("freecell")
    text = MID_GAME.replace("Foundations:", found).replace("Freecells:", cells)
    assert r.from_text(text) == r.from_text(MID_GAME)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("H-A C-0 D-0 S-2", "H-1 C-0 D-0 S-2"),  # 1 for an ace
        ("H-A C-0 D-0 S-2", "HA C0 D0 S2"),  # no dash
        ("H-A C-0 D-0 S-2", "H--A c-0 D--0 s--2"),  # several dashes
        ("H-A C-0 D-0 S-2", "AH - - 2S"),  # our Klondike spelling of tops
        ("8H - - -", "8H * * *"),  # Freecell Solver's other empty cell
        ("8H - - -", "8H"),  # trailing empty cells left out
        ("TD", "0D"),  # 0 for a ten
        ("TD", "10D"),
        ("AD", "1D"),
        ("KD", "kd"),
        ("9C", "♣9"),
    ],
)
def test_freecell_solver_spellings(old: str, new: str) -> None:
    r = rules_for("freecell")
    assert r.from_text(MID_GAME.replace(old, new)) == r.from_text(MID_GAME)


def test_blank_lines_between_columns_are_empty_columns_when_needed() -> None:
    r = rules_for("freecell")
    moved = MID_GAME.replace(": JD KD 4C 3S 6D 6S\n", "\n").replace(
        "TC\n", "TC JD KD 4C 3S 6D 6S\n"
    )
    pos = r.from_text(moved)
    assert pos.tableau[0] == () and len(pos.tableau) == 8
    # a blank line that is not needed is only spacing
    assert r.from_text(MID_GAME.replace("Freecells: 8H - - -\n", "Freecells: 8H\n\n")) == (
        r.from_text(MID_GAME)
    )


@pytest.mark.parametrize(
    ("text", "code", "details"),
    [
        ("", "pile_count", {"wanted": 8, "found": 0}),
        (MID_GAME.replace("6S\n", "6S 6X\n"), "not_a_card", {"line": 3, "token": "6X"}),
        (MID_GAME.replace("8H - - -", "8H - - - -"), "too_many_cells", {"line": 2}),
        (MID_GAME.replace("S-2", "X-2"), "bad_foundations", {"line": 1, "token": "X-2"}),
        (MID_GAME.replace(": 5H 3H 3C 7S 7D TC\n", ""), "pile_count", {"wanted": 8, "found": 7}),
    ],
)
def test_freecell_errors_say_where(text: str, code: str, details: dict[str, Any]) -> None:
    e = refusal("freecell", text)
    assert (e.code, e.details) == (code, details)


def test_kongdang_refuses_two_foundations_of_one_suit() -> None:
    e = refusal("kongdang", MID_GAME.replace("H-A C-0", "H-A H-2"))
    assert (e.code, e.details) == ("bad_foundations", {"line": 1, "token": "2H"})


# -- Klondike ----------------------------------------------------------------


@pytest.mark.parametrize("number", [1, 2, 31999, 10**9])
def test_pysol_cards_klondike_layout_reads_as_our_deal(number: int) -> None:
    pysol_cards = pytest.importorskip("pysol_cards.deal_game")
    from pysol_cards.cards import CardRenderer
    from pysol_cards.random_base import RandomBase

    game = pysol_cards.Game("klondike", number, RandomBase.DEALS_PYSOLFC, 13)
    layout = str(game.calc_layout_string(CardRenderer(print_ts=True)))
    r = rules_for("klondike-3")
    assert r.from_text(layout) == r.deal(number)
    assert position_text(r, r.deal(number), "pysol") == layout


def test_klondike_layout_errors() -> None:
    r = rules_for("klondike-1")
    layout = position_text(r, r.deal(5), "pysol")
    lines = layout.splitlines()
    above = "\n".join(lines[:3] + [lines[3].replace("<", "", 1).replace(">", "", 1)] + lines[4:])
    # pile 3 (line 4) now shows a face-up card below a face-down one
    e = refusal("klondike-1", above)
    assert (e.code, e.details["line"]) == ("face_down_above", 4)
    e = refusal("klondike-1", layout.replace("Talon:", "Tableau:"))
    assert (e.code, e.details) == ("unknown_line", {"line": 1, "token": "tableau"})
    e = refusal("klondike-1", "Recycles: ３\n" + layout)
    assert (e.code, e.details) == ("bad_recycles", {"line": 1, "token": "３"})
    e = refusal("klondike-1", layout.replace(lines[2], lines[2].split()[0]))
    assert (e.code, e.details) == ("no_face_up", {"line": 3})


# -- every reachable position, every spelling --------------------------------


def _respell(text: str, how: dict[str, bool]) -> str:
    if how["headers"]:
        text = text.replace("Foundations:", "Found:").replace("Freecells:", "Freecell:")
    if how["colons"]:
        # every pile line with Freecell Solver's leading colon
        text = "".join(
            line
            if line.startswith((":", "#")) or re.match(r"^[A-Za-z][A-Za-z -]*:", line)
            else ": " + line
            for line in text.splitlines(keepends=True)
        )
    if how["ten"]:
        text = re.sub(r"\bT([CDHS])\b", r"10\1", text)
        text = re.sub(r"\b([CDHS])-T\b", r"\1-10", text)
    if how["lower"]:
        text = text.lower()
    if how["tabs"]:
        text = text.replace(" ", "\t")
    if how["trailing"]:
        text = text.replace("\n", "  \t\n")
    if how["crlf"]:
        text = text.replace("\n", "\r\n")
    if how["bom"]:
        text = "\ufeff" + text
    return text


def _playout(rules: Rules[Any], number: int, choices: list[int]) -> list[Any]:
    pos = rules.deal(number)
    seen = [pos]
    for c in choices:
        legal = rules.legal_moves(pos)
        if not legal:
            break
        pos = rules.play(pos, legal[c % len(legal)])
        seen.append(pos)
    return seen


SPELLINGS = st.fixed_dictionaries(
    {
        k: st.booleans()
        for k in ("headers", "colons", "ten", "lower", "tabs", "trailing", "crlf", "bom")
    }
)


@settings(max_examples=40, deadline=None)
@given(
    variant=st.sampled_from(sorted(VARIANTS)),
    number=st.integers(1, 32000),
    choices=st.lists(st.integers(0, 200), max_size=120),
    style=st.sampled_from(["position", "fcs", "pysol", "code"]),
    how=SPELLINGS,
)
def test_reachable_positions_read_back_in_every_spelling(
    variant: str, number: int, choices: list[int], style: str, how: dict[str, bool]
) -> None:
    r = rules_for(variant)
    if style == "fcs" and VARIANTS[variant].family == "klondike":
        style = "pysol"
    for pos in _playout(r, number, choices)[::7] + _playout(r, number, choices)[-1:]:
        text = position_text(r, pos, style)
        assert r.from_text(text) == pos
        if style != "code":  # a code is a word of its own, in one case
            assert r.from_text(_respell(text, how)) == pos


def test_a_card_is_read_in_every_spelling_of_a_ten() -> None:
    r = rules_for("freecell")
    ten = Card.parse("TH")
    pos = r.from_text(MID_GAME)
    assert ten in pos.tableau[3]
    for spelling in ("10H", "10h", "0H", "th", "♥10", "♥T"):
        assert r.from_text(MID_GAME.replace("TH", spelling)) == pos


@pytest.mark.parametrize(
    ("variant", "code", "token"),
    [
        ("freecell", "f.00000000.A.B", "f.00000000.A.B"),
        ("freecell", "f.000000001" + ".A" * 8, "f.000000001.A.A.A.A."),
        ("klondike-1", "k.0000.0...AA.A.A.A.A.A.z", "z"),  # 51 face-down of none
    ],
)
def test_bad_codes_are_refused(variant: str, code: str, token: str) -> None:
    e = refusal(variant, code)
    assert (e.code, e.details) == ("bad_code", {"token": token})


def test_a_code_with_a_card_twice_is_refused_as_text_is() -> None:
    r = rules_for("freecell")
    code = position_text(r, r.deal(3), "code").strip()
    e = refusal("freecell", code[:-1] + code[11])  # the last card replaced by the first
    assert e.code == "duplicate_cards"
