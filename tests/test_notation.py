"""The standard move notation: formatting, parsing, and resolving what a move
in the notation leaves open against the legal moves."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jielong.engine.cards import DECK, Card
from jielong.engine.notation import format_move, parse_move, solution_to_json
from jielong.engine.rules.core import (
    STOCK,
    WASTE,
    InvalidMoveError,
    Move,
    cell,
    foundation,
    tableau,
)
from jielong.engine.rules.registry import rules_for
from jielong.engine.rules.variants import VARIANTS, get_variant


@pytest.mark.parametrize(
    ("move", "short", "with_count"),
    [
        (Move(tableau(2), cell(0)), "3a", "3a"),
        (Move(cell(3), tableau(4)), "d5", "d5"),
        (Move(tableau(6), foundation(2)), "7h", "7h"),
        (Move(tableau(1), tableau(5), 3), "26", "26/3"),
        # a bare 26 into an empty column means the longest run: found by the
        # round-trip property below
        (Move(tableau(1), tableau(5), 1), "26", "26/1"),
        (Move(STOCK, WASTE, 3), "s", "s"),
        (Move(WASTE, STOCK, 17), "s", "s"),
        (Move(WASTE, tableau(2)), "w3", "w3"),
        (Move(WASTE, foundation(0)), "wh", "wh"),
        (Move(foundation(1), tableau(2)), "h3", "h23"),
    ],
)
def test_format_move(move: Move, short: str, with_count: str) -> None:
    assert format_move(move) == short
    assert format_move(move, count=True) == with_count


def test_parse_resolves_foundation_slot_and_run_length() -> None:
    rules = rules_for("freecell")
    # one run K♥ Q♠ J♥ and an empty column: "12" into it takes the longest
    # run the limit allows, "12/1" exactly one card
    pos = rules.from_text(
        "Foundations: C-Q D-K H-T S-J\n: KH QS JH\n: QH\n:\n:\n:\n:\n:\n: KC KS\n"
    )
    legal = rules.legal_moves(pos)
    assert parse_move("13", legal, "freecell") == Move(tableau(0), tableau(2), 3)
    assert parse_move("13/1", legal, "freecell") == Move(tableau(0), tableau(2), 1)
    assert parse_move("13/2", legal, "freecell") == Move(tableau(0), tableau(2), 2)
    # K♣ goes up onto Q♣ in slot 0
    assert parse_move("8h", legal, "freecell") == Move(tableau(7), foundation(0))
    # not legal: returned as written so that the rules can say why
    assert parse_move("2h", legal, "freecell") == Move(tableau(1), foundation(0))
    assert parse_move("21/4", legal, "freecell") == Move(tableau(1), tableau(0), 4)


def test_parse_klondike_stock_and_waste() -> None:
    rules = rules_for("klondike-3")
    pos = rules.deal(1)
    legal = rules.legal_moves(pos)
    assert parse_move("s", legal, "klondike") == Move(STOCK, WASTE, 3)
    assert parse_move("S ", legal, "klondike") == Move(STOCK, WASTE, 3)
    assert parse_move("7h", legal, "klondike") == Move(tableau(6), foundation(0))
    assert parse_move("w1", legal, "klondike") == Move(WASTE, tableau(0))
    assert parse_move("h2", legal, "klondike") == Move(foundation(0), tableau(1))
    assert parse_move("h12", legal, "klondike") == Move(foundation(0), tableau(1))
    # slot 3 holds nothing that fits: read as written, for the rules to refuse
    assert parse_move("h32", legal, "klondike") == Move(foundation(2), tableau(1))


def test_twin_foundation_cards_are_told_apart() -> None:
    # 5♦ and 5♥ both fit the 6♠ of pile 1: "h1" alone takes the first
    rules = rules_for("klondike-1")
    home = {"C": 4, "D": 5, "H": 5}
    out = [c for c in DECK if c.rank > home.get(c.code()[-1], 0) and c != Card.parse("6S")]
    pos = rules.from_text(
        f"Stock: {' '.join(c.code() for c in out)}\nFoundations: 4C 5D 5H -\n: | 6S\n" + ":\n" * 6
    )
    legal = rules.legal_moves(pos)
    down = [m for m in legal if m.src.kind == "foundation"]
    assert sorted(m.src.index for m in down) == [1, 2]
    for m in down:
        assert format_move(m) == "h1"
        assert parse_move(format_move(m, count=True), legal, "klondike") == m
    assert [format_move(m, count=True) for m in down] == ["h21", "h31"]


def test_parse_long_form() -> None:
    assert parse_move("tableau:2 tableau:5 3", [], "freecell") == Move(tableau(2), tableau(5), 3)
    assert parse_move("cell:0 foundation:1", [], "freecell") == Move(cell(0), foundation(1))
    assert parse_move("stock waste 3", [], "klondike") == Move(STOCK, WASTE, 3)


@pytest.mark.parametrize(
    ("text", "family"),
    [
        ("", "freecell"),
        ("zz", "freecell"),
        ("1", "freecell"),
        ("123", "freecell"),
        ("10", "freecell"),
        ("1a/x", "freecell"),
        ("26/0", "freecell"),  # once read as a one-card move
        ("26/", "freecell"),
        ("1w", "freecell"),  # no waste in FreeCell
        ("1a", "klondike"),  # no cells in Klondike
        ("tableau:0 cell:0 x", "freecell"),  # found by the CLI test: crashed
        ("tableau:0 cell:0 0", "freecell"),
        ("tableau:0 cell:0 -2", "freecell"),
        ("table:0 cell:0", "freecell"),
        ("tableau:x cell:0", "freecell"),
    ],
)
def test_parse_refuses_malformed_text(text: str, family: str) -> None:
    with pytest.raises(InvalidMoveError):
        parse_move(text, [], family)


@given(variant=st.sampled_from(sorted(VARIANTS)), data=st.data())
def test_every_legal_move_survives_format_and_parse(variant: str, data: st.DataObject) -> None:
    rules: Any = rules_for(variant)
    family = get_variant(variant).family
    pos = rules.deal(data.draw(st.integers(1, 1_000_000), label="deal"))
    for _ in range(data.draw(st.integers(0, 40), label="steps")):
        legal = rules.legal_moves(pos)
        if not legal:
            break
        for m in legal:
            back = parse_move(format_move(m, count=True), legal, family)
            assert back in legal
            # a card going up names "the foundations", not a slot: "7h" takes
            # the first slot that fits (which slot an ace takes changes nothing)
            if m.dst.kind == "foundation":
                assert (back.src, back.dst.kind, back.count) == (m.src, "foundation", 1)
            else:
                assert back == m
            assert parse_move(str(m.src) + " " + str(m.dst) + " " + str(m.count), [], family) == m
        pos = rules.play(pos, data.draw(st.sampled_from(legal), label="move"))


def test_solution_to_json() -> None:
    moves = [Move(tableau(0), cell(1)), Move(tableau(2), tableau(3), 4)]
    data = solution_to_json(moves)
    assert data == [
        {"from": "tableau:0", "to": "cell:1", "count": 1},
        {"from": "tableau:2", "to": "tableau:3", "count": 4},
    ]
    assert [Move.from_json(d) for d in data] == moves
