"""FreeCell rules: run limits of both formulas, free cells, one-way and fixed
foundations, and every refusal reason that can occur."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from jielong.engine.cards import DECK, Card, Suit, parse_cards
from jielong.engine.rules.core import (
    STOCK,
    WASTE,
    Illegal,
    IllegalMoveError,
    Move,
    PositionParseError,
    cell,
    foundation,
    play_checked,
    tableau,
)
from jielong.engine.rules.freecell import FreeCell, FreeCellPosition, ordered_run_length
from jielong.engine.rules.registry import rules_for
from jielong.engine.rules.variants import get_variant

VARIANT_IDS = ("freecell", "kongdang")


def rules(variant: str) -> FreeCell:
    r = rules_for(variant)
    assert isinstance(r, FreeCell)
    return r


def spec_limit(variant: str, f: int, e: int) -> int:
    """SPEC.md section 3, written out independently of the code."""
    return (f + 1) * (1 << e) if variant == "freecell" else (1 << f) * (e + 1)


def build(
    variant: str,
    columns: list[str],
    cells: list[str] | None = None,
    foundations: list[str] | None = None,
) -> FreeCellPosition:
    """A position from its interesting cards: every card not named (and not
    under a foundation top) is dealt round-robin, in ascending index order,
    over the columns after the given ones; ascending cards never form a run."""
    named: set[Card] = set()
    for top in foundations or []:
        c = Card.parse(top)
        named.update(Card.of(r, c.suit) for r in range(1, c.rank + 1))
    for text in [*columns, *(cells or [])]:
        named.update(parse_cards(text.replace("-", " ")))
    rest = [c for c in DECK if c not in named]
    spare = 8 - len(columns)
    cols = list(columns) + [" ".join(c.code() for c in rest[j::spare]) for j in range(spare)]
    lines = []
    if foundations:
        entries = (f"{Card.parse(t).suit.letter}-{t[0]}" for t in foundations)
        lines.append("Foundations: " + " ".join(entries))
    if cells:
        lines.append("Freecells: " + " ".join(cells))
    lines.extend(f": {c}" for c in cols)
    return rules(variant).from_text("\n".join(lines) + "\n")


# -- run limits ------------------------------------------------------------


@pytest.mark.parametrize(
    ("variant", "f", "e", "limit"),
    [
        ("freecell", 4, 0, 5),
        ("freecell", 4, 1, 10),
        ("freecell", 4, 2, 20),
        ("kongdang", 0, 0, 1),
        ("kongdang", 2, 0, 4),
        ("kongdang", 2, 1, 8),
    ],
)
def test_spec_examples(variant: str, f: int, e: int, limit: int) -> None:
    assert get_variant(variant).max_run(f, e) == limit


def test_kongdang_example_into_the_empty_column() -> None:
    # f=2, e=1: 8 cards onto a card, but only 4 into the empty column itself
    # (the target does not count as an empty column).
    v = get_variant("kongdang")
    assert v.max_run(2, 1 - 1) == 4


@pytest.mark.parametrize("variant", VARIANT_IDS)
def test_formula_table(variant: str) -> None:
    v = get_variant(variant)
    for f in range(5):
        for e in range(8):
            assert v.max_run(f, e) == spec_limit(variant, f, e)


RUN = parse_cards("KS QH JS TH 9S 8H 7S 6H 5S 4H 3S 2H AS")
"""A run of all thirteen ranks, spades and hearts alternating."""


def limit_position(variant: str, f: int, e: int, target_rank: int | None) -> FreeCellPosition:
    """Column 1 holds RUN; column 2 holds one card of ``target_rank`` that
    takes part of the run (or is empty when ``target_rank`` is None); ``e``
    columns are empty in all (the empty target included); ``4 - f`` cells are
    taken."""
    columns = [" ".join(c.code() for c in RUN)]
    if target_rank is None:
        columns.append("")
        empties = e - 1
    else:
        # the run card one rank lower is a spade or a heart: take the other
        # colour's remaining suit
        lower = next(c for c in RUN if c.rank == target_rank - 1)
        suit = Suit.DIAMONDS if lower.suit == Suit.SPADES else Suit.CLUBS
        columns.append(Card.of(target_rank, suit).code())
        empties = e
    columns.extend([""] * empties)
    # the cells take low clubs and diamonds other than the target
    spare = [c for c in parse_cards("2C 2D 3C 3D 4C 4D") if c.code() != columns[1]]
    cell_texts = [c.code() for c in spare[: 4 - f]] + ["-"] * f
    pos = build(variant, columns, cell_texts)
    assert pos.free_cells() == f and pos.empty_columns() == e
    return pos


CASES = [(v, f, e) for v in VARIANT_IDS for f in range(5) for e in range(4)]


@pytest.mark.parametrize(("variant", "f", "e"), CASES)
def test_run_limit_onto_a_card(variant: str, f: int, e: int) -> None:
    r = rules(variant)
    limit = spec_limit(variant, f, e)
    # k cards of RUN fit on a card of rank 14 - 13 + k = k + 1: K is rank 13,
    # so at most 12 cards can go onto a card
    if limit <= 12:
        pos = limit_position(variant, f, e, target_rank=limit + 1)
        assert r.run_limits(pos)[0] == limit
        move = Move(tableau(0), tableau(1), limit)
        assert move in r.legal_moves(pos)
        assert r.explain(pos, move) is None
        after = r.play(pos, move)
        assert after.tableau[1][1:] == RUN[-limit:]
    if limit + 1 <= 12:
        pos = limit_position(variant, f, e, target_rank=limit + 2)
        move = Move(tableau(0), tableau(1), limit + 1)
        assert move not in r.legal_moves(pos)
        assert r.explain(pos, move) == Illegal.RUN_TOO_LONG
        assert not [m for m in r.legal_moves(pos) if m.src == tableau(0) and m.dst == tableau(1)]


@pytest.mark.parametrize(("variant", "f", "e"), [c for c in CASES if c[2] >= 1])
def test_run_limit_into_an_empty_column(variant: str, f: int, e: int) -> None:
    r = rules(variant)
    pos = limit_position(variant, f, e, target_rank=None)
    limit = spec_limit(variant, f, e - 1)  # the target does not count
    assert r.run_limits(pos) == (spec_limit(variant, f, e), limit)
    counts = sorted(
        m.count for m in r.legal_moves(pos) if m.src == tableau(0) and m.dst == tableau(1)
    )
    assert counts == list(range(1, min(limit, 13) + 1))
    for k in counts:
        assert r.explain(pos, Move(tableau(0), tableau(1), k)) is None
    if limit < 13:
        assert r.explain(pos, Move(tableau(0), tableau(1), limit + 1)) == Illegal.RUN_TOO_LONG


def test_single_cards_ignore_the_limit() -> None:
    # no free cell and no empty column: runs of one only, but every single
    # card still moves
    r = rules("freecell")
    pos = build("freecell", ["KS QH JC", "KC", "QS", "JD"], ["5C", "5D", "5H", "5S"])
    assert pos.free_cells() == 0 and pos.empty_columns() == 0
    legal = r.legal_moves(pos)
    assert Move(tableau(0), tableau(2)) not in legal  # J♣ on Q♠: same colour
    assert r.explain(pos, Move(tableau(0), tableau(1), 2)) == Illegal.RUN_TOO_LONG
    assert Move(tableau(3), tableau(2)) in legal  # J♦ on Q♠


# -- reasons -----------------------------------------------------------------

COLUMNS = ["KH QS JH", "5D 8C 4S", "3D", "", "QC", "TD 2H", "7H 6C AH"]


def table(variant: str) -> FreeCellPosition:
    return build(variant, COLUMNS, ["9S", "-", "-", "-"], ["2C", "AD"])


EXPLAIN_CASES = [
    (Move(foundation(0), tableau(2)), Illegal.FOUNDATION_ONE_WAY),
    (Move(foundation(1), cell(1)), Illegal.FOUNDATION_ONE_WAY),
    (Move(tableau(2), cell(0)), Illegal.CELL_OCCUPIED),
    (Move(cell(0), tableau(3), 2), Illegal.ONE_CARD_ONLY),
    (Move(tableau(0), cell(1), 2), Illegal.ONE_CARD_ONLY),
    (Move(tableau(0), foundation(2), 2), Illegal.ONE_CARD_ONLY),
    (Move(tableau(1), tableau(3), 2), Illegal.NOT_A_RUN),
    (Move(tableau(1), tableau(3), 3), Illegal.NOT_A_RUN),
    (Move(tableau(2), tableau(4), 2), Illegal.NOT_ENOUGH_CARDS),
    (Move(tableau(3), tableau(2)), Illegal.EMPTY_SOURCE),
    (Move(cell(1), tableau(2)), Illegal.EMPTY_SOURCE),
    (Move(tableau(5), tableau(2)), Illegal.WRONG_COLOUR),  # ♥2 on ♦3
    (Move(tableau(1), tableau(5)), Illegal.WRONG_RANK),  # ♠4 on ♥2
    (Move(cell(0), tableau(4)), Illegal.WRONG_COLOUR),  # ♠9 on ♣Q
    (Move(tableau(2), foundation(0)), Illegal.FOUNDATION_WRONG_SUIT),  # ♦3 on ♣2
    (Move(tableau(2), foundation(1)), Illegal.FOUNDATION_WRONG_RANK),  # ♦3 on ♦A
    (Move(tableau(0), tableau(0)), Illegal.SAME_PILE),
    (Move(STOCK, tableau(0)), Illegal.UNKNOWN_PILE),
    (Move(tableau(0), WASTE), Illegal.UNKNOWN_PILE),
    (Move(tableau(8), tableau(0)), Illegal.UNKNOWN_PILE),
    (Move(tableau(0), cell(4)), Illegal.UNKNOWN_PILE),
    (Move(tableau(0), foundation(4)), Illegal.UNKNOWN_PILE),
]


@pytest.mark.parametrize("variant", VARIANT_IDS)
@pytest.mark.parametrize(("move", "reason"), EXPLAIN_CASES)
def test_explain_reasons(variant: str, move: Move, reason: Illegal) -> None:
    r = rules(variant)
    pos = table(variant)
    if rules(variant).by_suit and reason == Illegal.FOUNDATION_WRONG_SUIT:
        reason = Illegal.FOUNDATION_WRONG_SLOT  # the slot is checked first
    assert r.explain(pos, move) == reason
    assert move not in r.legal_moves(pos)
    with pytest.raises(IllegalMoveError) as info:
        play_checked(r, pos, move)
    assert info.value.reason == reason


def test_fixed_foundation_slots_in_kongdang() -> None:
    r = rules("kongdang")
    pos = table("kongdang")
    ace = Move(tableau(6), foundation(2))  # ♥A into the hearts slot
    assert [
        m for m in r.legal_moves(pos) if m.src == tableau(6) and m.dst.kind == "foundation"
    ] == [ace]
    assert r.explain(pos, Move(tableau(6), foundation(3))) == Illegal.FOUNDATION_WRONG_SLOT
    assert r.explain(pos, Move(tableau(6), foundation(0))) == Illegal.FOUNDATION_WRONG_SLOT
    assert r.explain(pos, Move(tableau(2), foundation(0))) == Illegal.FOUNDATION_WRONG_SLOT


def test_any_foundation_slot_in_freecell() -> None:
    r = rules("freecell")
    pos = table("freecell")
    aces = {m.dst for m in r.legal_moves(pos) if m.src == tableau(6) and m.dst.kind == "foundation"}
    assert aces == {foundation(2), foundation(3)}
    assert r.explain(pos, Move(tableau(6), foundation(0))) == Illegal.FOUNDATION_WRONG_SUIT


@pytest.mark.parametrize("variant", VARIANT_IDS)
def test_foundations_are_one_way(variant: str) -> None:
    r = rules(variant)
    pos = table(variant)
    assert not [m for m in r.legal_moves(pos) if m.src.kind == "foundation"]
    for slot in range(4):
        for j in range(8):
            assert r.explain(pos, Move(foundation(slot), tableau(j))) == Illegal.FOUNDATION_ONE_WAY


@pytest.mark.parametrize("variant", VARIANT_IDS)
def test_empty_column_takes_any_card_and_cells_take_any_card(variant: str) -> None:
    r = rules(variant)
    pos = table(variant)
    legal = r.legal_moves(pos)
    for src in (tableau(0), tableau(1), tableau(2), tableau(4), cell(0)):
        assert Move(src, tableau(3)) in legal
        assert Move(src, cell(1)) in legal
    # the run K♥ Q♠ J♥ into the empty column: 3 cells free, the target does
    # not count, so the limit is the one for e = 0
    limit = spec_limit(variant, 3, 0)
    assert (Move(tableau(0), tableau(3), 3) in legal) == (limit >= 3)
    after = r.play(pos, Move(cell(0), tableau(3)))
    assert after.cells == (None,) * 4 and after.tableau[3] == parse_cards("9S")


@pytest.mark.parametrize("variant", VARIANT_IDS)
def test_play_to_and_from_cells(variant: str) -> None:
    r = rules(variant)
    pos = table(variant)
    pos = play_checked(r, pos, Move(tableau(5), cell(3)))
    assert pos.cells[3] == Card.parse("2H") and pos.tableau[5] == parse_cards("TD")
    pos = play_checked(r, pos, Move(tableau(6), foundation(2)))
    pos = play_checked(r, pos, Move(cell(3), foundation(2)))
    assert pos.foundations[2] == Card.parse("2H")
    assert pos.cells == (Card.parse("9S"), None, None, None)
    assert pos.tableau[6] == parse_cards("7H 6C")
    assert r.explain(pos, Move(cell(3), tableau(3))) == Illegal.EMPTY_SOURCE


@pytest.mark.parametrize("variant", VARIANT_IDS)
def test_ordered_run_length(variant: str) -> None:
    assert ordered_run_length(()) == 0
    assert ordered_run_length(parse_cards("5D 8C 4S")) == 1
    assert ordered_run_length(parse_cards("KH QS JH")) == 3
    assert ordered_run_length(parse_cards("KH QS JS")) == 1
    assert ordered_run_length(RUN) == 13


# -- text ----------------------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANT_IDS)
def test_text_round_trip(variant: str) -> None:
    r = rules(variant)
    for pos in (r.deal(1), r.deal(617), table(variant)):
        assert r.from_text(r.to_text(pos)) == pos


def test_freecell_solver_board_text() -> None:
    r = rules("freecell")
    text = """Foundations: H-A C-0 D-0 S-2
Freecells:  8H  -  -  -
: JD KD 4C 3S 6D 6S
: 2D KC KS 5C TD 8S 9C
: 9H 9S 9D TS 4S 8D 2H
: JC 5S QD QH TH QS 6H
: 5D AD JS 4H 6C
: 7H QC AC 2C 3D
: 7C KH 4D JH 8C
: 5H 3H 3C 7S 7D TC
"""
    pos = r.from_text(text)
    assert pos.foundations == (Card.parse("AH"), None, None, Card.parse("2S"))
    assert pos.cells == (Card.parse("8H"), None, None, None)
    assert r.to_text(pos).splitlines()[:2] == [
        "Foundations: H-A C-0 D-0 S-2",
        "Freecells: 8H - - -",
    ]
    # kongdang's slots are fixed by suit whatever the file's order
    k = rules("kongdang").from_text(text)
    assert k.foundations == (None, None, Card.parse("AH"), Card.parse("2S"))


def test_deal_text_has_no_empty_lines() -> None:
    r = rules("freecell")
    text = r.to_text(r.deal(1))
    assert text.splitlines()[0] == "JD KD 2S 4C 3S 6D 6S"
    assert len(text.splitlines()) == 8


@pytest.mark.parametrize(
    "text",
    [
        "",
        "AS\n" * 8,
        "Freecells: AS 2S 3S 4S 5S\n" + ":\n" * 8,
        ": ZZ\n" + ":\n" * 7,
        "Foundations: X-3\n" + ":\n" * 8,
    ],
)
def test_bad_text_is_refused(text: str) -> None:
    with pytest.raises(PositionParseError):
        rules("freecell").from_text(text)


@pytest.mark.parametrize("variant", VARIANT_IDS)
def test_won(variant: str) -> None:
    r = rules(variant)
    won = r.from_text("Foundations: C-K D-K H-K S-K\n" + ":\n" * 8)
    assert r.is_won(won) and r.legal_moves(won) == []
    assert not r.is_won(table(variant))


# -- an independent solver's solutions replay through the rules -----------------

FC_SOLVE = shutil.which("fc-solve")


def _state_key(
    cols: list[tuple[str, ...]], cells: list[str], founds: dict[str, str]
) -> tuple[object, ...]:
    # Freecell Solver may order free cells and foundation slots its own way:
    # compare cells as a multiset and foundations by suit.
    return tuple(cols), tuple(sorted(cells)), tuple(sorted(founds.items()))


def _fc_solve_key(state: str) -> tuple[object, ...]:
    cols: list[tuple[str, ...]] = []
    cells: list[str] = []
    founds = {s: "0" for s in "CDHS"}
    for line in state.splitlines():
        if line.startswith(":"):
            cols.append(tuple(line[1:].split()))
        elif line.startswith("Freecells:"):
            cells = line.split(":", 1)[1].split()
        elif line.startswith("Foundations:"):
            for entry in line.split(":", 1)[1].split():
                suit, _, rank = entry.partition("-")
                founds[suit] = rank
    return _state_key(cols, cells, founds)


def _our_key(pos: FreeCellPosition) -> tuple[object, ...]:
    founds = {s: "0" for s in "CDHS"}
    for top in pos.foundations:
        if top is not None:
            founds[top.suit.letter] = top.code()[0]
    return _state_key(
        [tuple(c.code() for c in col) for col in pos.tableau],
        [c.code() for c in pos.cells if c is not None],
        founds,
    )


@pytest.mark.skipif(FC_SOLVE is None, reason="fc-solve is not installed")
@pytest.mark.parametrize("number", [1, 2, 617, 1000, 31465])
def test_fc_solve_solutions_replay_through_legal_moves(number: int) -> None:
    """Each step of Freecell Solver's solution is one of our legal moves (found
    by the position it leads to), and the last step wins."""
    assert FC_SOLVE is not None
    r = rules("freecell")
    pos = r.deal(number)
    done = subprocess.run(
        [FC_SOLVE, "-m", "-sn", "-p", "-t", "-sam"],
        input=r.to_text(pos),
        capture_output=True,
        text=True,
        timeout=60,
        env={"FREECELL_SOLVER_QUIET": "1", "PATH": "/usr/bin:/bin"},
    )
    assert "This game is solveable." in done.stdout
    steps = 0
    for chunk in done.stdout.split("====================")[1:]:
        lines = chunk.strip().splitlines()
        if not lines or not lines[0].startswith("Move:"):
            continue
        want = _fc_solve_key("\n".join(lines[1:]))
        reached = [after for m in r.legal_moves(pos) if _our_key(after := r.play(pos, m)) == want]
        assert reached, f"step {steps + 1} ({lines[0]}) is not a legal move"
        pos = reached[0]
        steps += 1
    assert steps > 30 and r.is_won(pos)


@pytest.mark.parametrize("variant", VARIANT_IDS)
@pytest.mark.parametrize("count", [0, -1, -7])
def test_counts_below_one_are_refused(variant: str, count: int) -> None:
    # A count of 0 once read the column from its bottom card (col[-0]) and
    # let a whole column move into an empty one.
    r = rules(variant)
    pos = table(variant)
    for src in (tableau(0), tableau(1), tableau(6)):
        move = Move(src, tableau(3), count)
        assert r.explain(pos, move) == Illegal.NOT_ENOUGH_CARDS
        with pytest.raises(IllegalMoveError):
            play_checked(r, pos, move)
    assert r.explain(pos, Move(cell(0), tableau(3), count)) == Illegal.ONE_CARD_ONLY


def test_explain_cases_cover_every_reason_of_the_family() -> None:
    # The codes this family's explain can give, apart from the ones with
    # their own tests (run limits, draws, fixed slots, the empty stock).
    assert {reason for _, reason in EXPLAIN_CASES} == {
        Illegal.UNKNOWN_PILE,
        Illegal.SAME_PILE,
        Illegal.EMPTY_SOURCE,
        Illegal.NOT_ENOUGH_CARDS,
        Illegal.NOT_A_RUN,
        Illegal.WRONG_COLOUR,
        Illegal.WRONG_RANK,
        Illegal.CELL_OCCUPIED,
        Illegal.ONE_CARD_ONLY,
        Illegal.FOUNDATION_ONE_WAY,
        Illegal.FOUNDATION_WRONG_SUIT,
        Illegal.FOUNDATION_WRONG_RANK,
    }
