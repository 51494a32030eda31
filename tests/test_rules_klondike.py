"""Klondike rules: the seed's practice layout, the draw-3 phase, recycling and
every refusal reason that can occur."""

from __future__ import annotations

from pathlib import Path

import pytest

from jielong.engine.cards import DECK, Card, parse_cards
from jielong.engine.rules.core import (
    STOCK,
    WASTE,
    Illegal,
    IllegalMoveError,
    Move,
    Pile,
    PositionParseError,
    foundation,
    play_checked,
    tableau,
)
from jielong.engine.rules.klondike import Klondike, KlondikePosition
from jielong.engine.rules.registry import rules_for

FIXTURES = Path(__file__).parent / "fixtures" / "klondike"


def rules(draw: int) -> Klondike:
    r = rules_for(f"klondike-{draw}")
    assert isinstance(r, Klondike)
    return r


def position(text: str, draw: int = 3) -> KlondikePosition:
    """A position from text that need not list all 52 cards: those it does not
    mention go to the bottom of the stock (in index order)."""
    mentioned: set[Card] = set()
    lines = text.strip("\n").splitlines()
    for line in lines:
        head, _, rest = line.partition(":")
        if head.strip().lower() == "foundations":
            for tok in rest.split():
                if tok != "-":
                    top = Card.parse(tok)
                    mentioned.update(Card.of(r, top.suit) for r in range(1, top.rank + 1))
        elif head.strip().lower() in ("", "waste", "stock"):
            mentioned.update(parse_cards(rest.replace("|", " ")))
    filler = " ".join(c.code() for c in DECK if c not in mentioned)
    stock_lines = [i for i, line in enumerate(lines) if line.startswith("Stock:")]
    if stock_lines:
        i = stock_lines[0]
        lines[i] = f"Stock: {filler} {lines[i][len('Stock:') :]}"
    else:
        lines.insert(0, f"Stock: {filler}")
    return rules(draw).from_text("\n".join(lines))


def t(i: int) -> Pile:
    """Pile ``i`` counted from 1, as the seed and the notation count."""
    return tableau(i - 1)


# -- seed 003, section 4 ---------------------------------------------------


def test_seed_003_practice_layout() -> None:
    r = rules(1)
    start = r.from_text((FIXTURES / "seed003-start.txt").read_text(encoding="utf-8"))
    listed = {c for pile in start.tableau for c in pile}
    assert len(listed) == 28 and set(start.stock) == set(DECK) - listed
    assert start.hidden == (0, 1, 2, 3, 4, 5, 6)

    spade_slot = foundation(0)
    steps = [
        # 1: A♠ from pile 1 to a foundation; pile 1 is left empty
        Move(t(1), spade_slot),
        # 2: K♥ to the empty pile 1; pile 2's ♠2 turns face up
        Move(t(2), t(1)),
        # 3: ♠2 onto ♠A; pile 2 is empty
        Move(t(2), spade_slot),
        # 4: ♣Q onto ♥K; pile 3 shows ♣4, ♦8 stays face down
        Move(t(3), t(1)),
        # 5: ♦J onto ♣Q; pile 4 shows ♥9, ♥5 and ♠9 stay face down
        Move(t(4), t(1)),
    ]
    pos = start
    for move in steps:
        assert move in r.legal_moves(pos)
        assert r.explain(pos, move) is None
        pos = r.play(pos, move)

    assert pos.face_up(0) == parse_cards("KH QC JD")
    assert pos.hidden[0] == 0
    assert pos.tableau[1] == ()
    assert pos.foundations[0] == Card.parse("2S")
    assert pos.tableau[2] == parse_cards("8D 4C") and pos.hidden[2] == 1
    assert pos.tableau[3] == parse_cards("5H 9S 9H") and pos.hidden[3] == 2
    assert pos.tableau[4:] == start.tableau[4:] and pos.hidden[4:] == start.hidden[4:]
    assert pos.stock == start.stock and pos.waste == ()
    end = r.from_text((FIXTURES / "seed003-end.txt").read_text(encoding="utf-8"))
    assert pos == end

    # What the seed says next: ♣4 has no red 5 to go to, and the empty pile 2
    # takes only a K.
    assert r.explain(pos, Move(t(3), t(2))) == Illegal.EMPTY_NEEDS_KING
    assert not [m for m in r.legal_moves(pos) if m.src == t(3) and m.dst.kind == "tableau"]
    # Foundations and tableau build in opposite directions.
    assert r.explain(pos, Move(t(4), spade_slot)) == Illegal.FOUNDATION_WRONG_SUIT


def test_seed_003_moves_in_notation() -> None:
    from jielong.engine.notation import parse_move

    r = rules(1)
    pos = r.from_text((FIXTURES / "seed003-start.txt").read_text(encoding="utf-8"))
    for text in ("1h", "21", "2h", "31", "41"):
        pos = play_checked(r, pos, parse_move(text, r.legal_moves(pos), "klondike"))
    assert pos == r.from_text((FIXTURES / "seed003-end.txt").read_text(encoding="utf-8"))


# -- drawing and recycling -----------------------------------------------------

# Seed 003's example: ♣7, ♥Q, ♦A turned in that order, ♦A on top.  The
# stock's last card is turned first.
DRAW_TEXT = """
Stock: 5S 6S AD QH 7C
: | KC
: | 9D
: | 3S
: | 4H
: | 8D
: | 2H
: | JS
"""


def test_draw_three_turns_three_last_on_top() -> None:
    r = rules(3)
    pos = position(DRAW_TEXT)
    # the filled-in cards go below the stock's listed ones
    assert pos.stock[-5:] == parse_cards("5S 6S AD QH 7C")
    draw = Move(STOCK, WASTE, 3)
    assert draw in r.legal_moves(pos)
    pos = r.play(pos, draw)
    assert pos.waste == parse_cards("7C QH AD")
    assert pos.stock[-2:] == parse_cards("5S 6S")


def test_draw_three_uncovers_the_card_beneath() -> None:
    r = rules(3)
    pos = r.play(position(DRAW_TEXT), Move(STOCK, WASTE, 3))
    legal = r.legal_moves(pos)
    # only the top card ♦A plays; ♥Q beneath has nowhere to go yet anyway, and
    # ♣7 cannot be reached
    waste_moves = [m for m in legal if m.src == WASTE]
    assert waste_moves == [Move(WASTE, foundation(i)) for i in range(4)]
    assert r.explain(pos, Move(WASTE, tableau(4), 3)) == Illegal.WASTE_TOP_ONLY
    pos = r.play(pos, Move(WASTE, foundation(0)))
    assert pos.waste == parse_cards("7C QH")
    # ♥Q now on top: it goes on ♣K
    assert [m for m in r.legal_moves(pos) if m.src == WASTE] == [Move(WASTE, t(1))]
    pos = r.play(pos, Move(WASTE, t(1)))
    # ...and ♣7 beneath it becomes the playable card: onto ♦8
    assert [m for m in r.legal_moves(pos) if m.src == WASTE] == [Move(WASTE, t(5))]


def test_draw_one_turns_one() -> None:
    r = rules(1)
    pos = position(DRAW_TEXT, draw=1)
    assert Move(STOCK, WASTE, 1) in r.legal_moves(pos)
    assert r.explain(pos, Move(STOCK, WASTE, 3)) == Illegal.WRONG_DRAW
    pos = r.play(pos, Move(STOCK, WASTE, 1))
    assert pos.waste == parse_cards("7C")


@pytest.mark.parametrize(("left", "turned"), [(1, 1), (2, 2), (3, 3)])
def test_a_draw_with_few_cards_left_turns_them_all(left: int, turned: int) -> None:
    r = rules(3)
    stock = ["JH", "QH", "KS"][:left]
    remaining = {"JH", "QH", "KS"} - set(stock)
    # put the cards not in the stock into the waste
    text = f"Stock: {' '.join(stock)}\nWaste: {' '.join(sorted(remaining))}\n"
    text += "Foundations: KC KD TH TS\n: | KH QS\n: | JS\n" + ": |\n" * 5
    pos = r.from_text(text)
    moves = [m for m in r.legal_moves(pos) if m.src == STOCK]
    assert moves == [Move(STOCK, WASTE, turned)]
    assert r.explain(pos, Move(STOCK, WASTE, 3)) == (None if left == 3 else Illegal.WRONG_DRAW)
    after = r.play(pos, moves[0])
    assert after.stock == ()
    assert after.waste[-turned:] == tuple(reversed(pos.stock))


def test_recycle_preserves_the_stock_order() -> None:
    r = rules(3)
    pos = position(DRAW_TEXT)
    original = pos.stock
    seen: list[Card] = []
    while pos.stock:
        draw = next(m for m in r.legal_moves(pos) if m.src == STOCK)
        before = len(pos.waste)
        pos = r.play(pos, draw)
        seen.extend(pos.waste[before:])
    assert seen == list(reversed(original))
    assert r.explain(pos, Move(STOCK, WASTE, 3)) == Illegal.EMPTY_SOURCE
    recycle = Move(WASTE, STOCK, len(pos.waste))
    assert recycle in r.legal_moves(pos)
    assert r.explain(pos, Move(WASTE, STOCK, 3)) == Illegal.WRONG_DRAW
    pos = r.play(pos, recycle)
    assert pos.stock == original and pos.waste == () and pos.recycles == 1
    # the second pass turns the same cards in the same groups
    first = r.play(pos, Move(STOCK, WASTE, 3))
    assert first.waste == parse_cards("7C QH AD")


def test_recycle_after_playing_from_the_waste() -> None:
    r = rules(3)
    pos = position(DRAW_TEXT)
    original = pos.stock
    pos = r.play(pos, Move(STOCK, WASTE, 3))
    pos = r.play(pos, Move(WASTE, foundation(0)))  # ♦A up
    while pos.stock:
        pos = r.play(pos, next(m for m in r.legal_moves(pos) if m.src == STOCK))
    pos = r.play(pos, Move(WASTE, STOCK, len(pos.waste)))
    assert pos.stock == tuple(c for c in original if c != Card.parse("AD"))
    # the groups of three shift by the card taken: ♣7 ♥Q then ♠6
    pos = r.play(pos, Move(STOCK, WASTE, 3))
    assert pos.waste == parse_cards("7C QH 6S")
    assert pos.recycles == 1


def test_empty_stock_and_waste_click_is_refused() -> None:
    r = rules(3)
    pos = r.from_text("Foundations: KC KD QH KS\n: | KH\n" + ": |\n" * 6)
    assert not [m for m in r.legal_moves(pos) if STOCK in (m.src, m.dst)]
    assert r.explain(pos, Move(STOCK, WASTE, 3)) == Illegal.STOCK_AND_WASTE_EMPTY
    assert r.explain(pos, Move(STOCK, WASTE, 1)) == Illegal.STOCK_AND_WASTE_EMPTY
    assert r.explain(pos, Move(WASTE, STOCK, 1)) == Illegal.STOCK_AND_WASTE_EMPTY
    with pytest.raises(IllegalMoveError) as info:
        play_checked(r, pos, Move(STOCK, WASTE, 3))
    assert info.value.reason == Illegal.STOCK_AND_WASTE_EMPTY


def test_stock_all_seen() -> None:
    r = rules(3)
    pos = position(DRAW_TEXT)
    assert not pos.stock_all_seen()
    while pos.stock:
        pos = r.play(pos, Move(STOCK, WASTE, min(3, len(pos.stock))))
    assert pos.stock_all_seen()
    pos = r.play(pos, Move(WASTE, STOCK, len(pos.waste)))
    assert pos.stock and pos.stock_all_seen()


# -- tableau and foundations -------------------------------------------------

TABLE = """
Waste: 9C 5D
Foundations: 3H 2S - -
: | KD
: 4C | QS JH TC
: 7D 8S | 9H
: |
: KC | 4D
: 2D 3D | QC JD
: JC | 6S
"""


def test_table_fixture_loads() -> None:
    pos = position(TABLE)
    assert pos.hidden == (0, 1, 2, 0, 1, 2, 1)
    assert pos.waste[-1] == Card.parse("5D")


def test_runs_move_whole_or_partial() -> None:
    r = rules(3)
    pos = position(TABLE)
    legal = r.legal_moves(pos)
    # the whole run Q♠ J♥ 10♣ onto K♦; its tail J♥ 10♣ has no black Q exposed
    assert Move(t(2), t(1), 3) in legal
    assert Move(t(2), t(4), 3) not in legal  # Q, not a K, into the empty pile
    assert r.explain(pos, Move(t(2), t(4), 3)) == Illegal.EMPTY_NEEDS_KING
    assert r.explain(pos, Move(t(2), t(1), 2)) == Illegal.WRONG_COLOUR
    assert r.explain(pos, Move(t(2), t(1), 1)) == Illegal.WRONG_RANK
    after = r.play(pos, Move(t(2), t(1), 3))
    assert after.tableau[0] == parse_cards("KD QS JH TC")
    # the exposed face-down ♣4 turns over in the same move
    assert after.tableau[1] == parse_cards("4C") and after.hidden[1] == 0


def test_king_into_empty_pile_with_its_run() -> None:
    r = rules(3)
    pos = position(TABLE)
    assert Move(t(1), t(4)) in r.legal_moves(pos)
    pos = r.play(pos, Move(t(2), t(1), 3))
    assert Move(t(1), t(4), 4) in r.legal_moves(pos)
    assert r.explain(pos, Move(t(1), t(4), 2)) == Illegal.EMPTY_NEEDS_KING


def test_foundation_back_to_tableau_is_allowed() -> None:
    r = rules(3)
    pos = position(TABLE)
    # ♥3 needs a black 4: moving the run off pile 2 exposes ♣4.
    pos = r.play(pos, Move(t(2), t(1), 3))  # ♣4 turns face up on pile 2
    back = Move(foundation(0), t(2))
    assert back in r.legal_moves(pos)
    after = r.play(pos, back)
    assert after.foundations[0] == Card.parse("2H")
    assert after.tableau[1] == parse_cards("4C 3H")
    assert r.explain(pos, Move(foundation(1), t(2))) == Illegal.WRONG_COLOUR
    assert r.explain(pos, Move(foundation(1), t(3))) == Illegal.WRONG_RANK
    assert r.explain(pos, Move(foundation(0), t(2), 2)) == Illegal.ONE_CARD_ONLY
    assert r.explain(pos, Move(foundation(2), t(2))) == Illegal.EMPTY_SOURCE
    assert r.explain(pos, Move(foundation(0), foundation(2))) == Illegal.NOT_A_TARGET


def test_foundation_king_back_into_an_empty_pile() -> None:
    r = rules(1)
    pos = r.from_text("Foundations: KC KD KH KS\n" + ": |\n" * 7)
    assert r.is_won(pos)
    legal = r.legal_moves(pos)
    assert len(legal) == 4 * 7
    assert all(m.src.kind == "foundation" and m.dst.kind == "tableau" for m in legal)


EXPLAIN_CASES = [
    (Move(t(3), t(1)), Illegal.WRONG_COLOUR),  # ♥9 on ♦K
    (Move(t(7), t(3)), Illegal.WRONG_RANK),  # ♠6 on ♥9
    (Move(t(5), t(7)), Illegal.WRONG_RANK),  # ♦4 on ♠6
    (Move(t(5), t(4)), Illegal.EMPTY_NEEDS_KING),
    (Move(WASTE, t(4)), Illegal.EMPTY_NEEDS_KING),
    (Move(t(3), t(2), 2), Illegal.FACE_DOWN),
    (Move(t(6), t(1), 3), Illegal.FACE_DOWN),
    (Move(t(2), t(1), 5), Illegal.NOT_ENOUGH_CARDS),
    (Move(t(4), t(1)), Illegal.EMPTY_SOURCE),
    (Move(t(1), t(1)), Illegal.SAME_PILE),
    (Move(t(1), Pile("tableau", 7)), Illegal.UNKNOWN_PILE),
    (Move(Pile("cell", 0), t(1)), Illegal.UNKNOWN_PILE),
    (Move(t(1), Pile("foundation", 4)), Illegal.UNKNOWN_PILE),
    (Move(WASTE, t(1), 2), Illegal.WASTE_TOP_ONLY),
    (Move(t(2), foundation(2), 3), Illegal.ONE_CARD_ONLY),
    (Move(t(5), foundation(0)), Illegal.FOUNDATION_WRONG_SUIT),  # ♦4 on ♥3
    (Move(t(5), foundation(2)), Illegal.FOUNDATION_WRONG_RANK),  # ♦4 on empty
    (Move(WASTE, foundation(1)), Illegal.FOUNDATION_WRONG_SUIT),  # ♦5 on ♠2
    (Move(t(2), WASTE), Illegal.NOT_A_TARGET),
    (Move(STOCK, t(1), 3), Illegal.NOT_A_TARGET),
    (Move(t(1), STOCK), Illegal.NOT_A_TARGET),
    (Move(WASTE, STOCK, 2), Illegal.NOT_A_TARGET),  # stock not empty yet
]


@pytest.mark.parametrize(("move", "reason"), EXPLAIN_CASES)
def test_explain_reasons(move: Move, reason: Illegal) -> None:
    r = rules(3)
    pos = position(TABLE)
    assert r.explain(pos, move) == reason
    assert move not in r.legal_moves(pos)
    with pytest.raises(IllegalMoveError) as info:
        play_checked(r, pos, move)
    assert info.value.reason == reason and info.value.move == move


def test_not_a_run_when_face_up_cards_are_out_of_order() -> None:
    # Not reachable by play, but a position loaded from text can hold it.
    r = rules(3)
    pos = position("\n".join([": | 9C 5H 4S", *[": |"] * 6]))
    assert r.explain(pos, Move(t(1), t(2), 3)) == Illegal.NOT_A_RUN
    assert r.explain(pos, Move(t(1), t(2), 2)) == Illegal.EMPTY_NEEDS_KING


def test_foundation_slots_take_any_suit() -> None:
    r = rules(3)
    pos = position("\n".join([": | AS", ": | AH", *[": |"] * 5]))
    assert {m.dst for m in r.legal_moves(pos) if m.src == t(1)} == {foundation(i) for i in range(4)}
    pos = r.play(pos, Move(t(1), foundation(3)))
    assert {m.dst for m in r.legal_moves(pos) if m.src == t(2)} == {foundation(i) for i in range(3)}


def test_won_position_only_when_all_kings_are_up() -> None:
    r = rules(3)
    assert r.is_won(r.from_text("Foundations: KC KD KH KS\n" + ": |\n" * 7))
    assert not r.is_won(r.from_text("Foundations: KC KD KH QS\n: | KS\n" + ": |\n" * 6))


# -- text ----------------------------------------------------------------------


def test_deal_matches_its_text_and_round_trips() -> None:
    r = rules(3)
    pos = r.deal(1)
    assert r.from_text(r.to_text(pos)) == pos
    assert pos.hidden == (0, 1, 2, 3, 4, 5, 6)
    assert len(pos.stock) == 24 and pos.waste == () and pos.recycles == 0


@pytest.mark.parametrize(
    "text",
    [
        "",
        ": | AS\n" * 7,  # cards missing
        "Stock: AS\n" + ": | AS\n" + ": |\n" * 6,  # duplicate
        "Foundations: - -\n" + ": |\n" * 7,
        "Recycles: lots\n" + ": |\n" * 7,
        "Colour: red\n" + ": |\n" * 7,
        ": 2H |\n" + ": |\n" * 6,  # face-down cards without a face-up one
        ": | ZZ\n" + ": |\n" * 6,
        ": |\n" * 8,
    ],
)
def test_bad_text_is_refused(text: str) -> None:
    with pytest.raises(PositionParseError):
        rules(3).from_text(text)


@pytest.mark.parametrize("count", [0, -1, -6])
def test_counts_below_one_are_refused(count: int) -> None:
    # A count of 0 once read the pile from its bottom card (pile[-0]): a
    # face-down K could then take the whole pile into an empty one.
    r = rules(3)
    pos = position(TABLE)
    assert pos.tableau[4][0] == Card.parse("KC") and pos.hidden[4] == 1
    move = Move(t(5), t(4), count)
    assert r.explain(pos, move) == Illegal.NOT_ENOUGH_CARDS
    with pytest.raises(IllegalMoveError):
        play_checked(r, pos, move)
    assert r.explain(pos, Move(WASTE, t(6), count)) == Illegal.WASTE_TOP_ONLY
    assert r.explain(pos, Move(foundation(0), t(2), count)) == Illegal.ONE_CARD_ONLY
    assert r.explain(pos, Move(STOCK, WASTE, count)) == Illegal.WRONG_DRAW


def test_explain_cases_cover_every_reason_of_the_family() -> None:
    # The codes this family's explain can give, apart from the ones with
    # their own tests (run limits, draws, fixed slots, the empty stock).
    assert {reason for _, reason in EXPLAIN_CASES} == {
        Illegal.UNKNOWN_PILE,
        Illegal.SAME_PILE,
        Illegal.EMPTY_SOURCE,
        Illegal.NOT_ENOUGH_CARDS,
        Illegal.FACE_DOWN,
        Illegal.WRONG_COLOUR,
        Illegal.WRONG_RANK,
        Illegal.EMPTY_NEEDS_KING,
        Illegal.WASTE_TOP_ONLY,
        Illegal.ONE_CARD_ONLY,
        Illegal.FOUNDATION_WRONG_SUIT,
        Illegal.FOUNDATION_WRONG_RANK,
        Illegal.NOT_A_TARGET,
    }


# -- an independent solver's solutions replay through the rules -----------------


def _klondike_solver_moves(number: int, draw: int) -> list[str]:
    """Klondike-Solver's (``pyksolve``) solution of PySolFC's deal ``number``,
    loaded from the same text ``jielong deal --format pysol`` prints."""
    from pyksolve.solver import Solitaire

    from jielong.engine.textboard import position_text

    r = rules_for(f"klondike-{draw}")
    text = position_text(r, r.deal(number), "pysol").strip()
    solver = Solitaire()
    solver.draw_count = draw
    assert solver.load_pysol(text.replace("\n", "\r\n") + "\r\n")  # it reads CRLF only
    assert solver.get_pysol().replace("\r", "").strip() == text
    solver.reset_game()
    result = solver.solve_fast(max_closed_count=300_000)
    assert "Solved" in str(result), result
    return str(solver.moves_made()).split()


def _replay_step(r: Klondike, pos: KlondikePosition, token: str) -> KlondikePosition:
    """Play one move of Klondike-Solver's notation: ``DR2`` (two clicks on the
    stock), ``NEW`` (recycle), ``F3`` (flip pile 3: our moves flip by
    themselves), ``W4``, ``WH``, ``1C``, ``H2``, ``63-2`` (2 cards)."""
    if token.startswith("DR"):
        for _ in range(int(token[2:])):
            draw = Move(STOCK, WASTE, min(r.draw, len(pos.stock)))
            assert draw in r.legal_moves(pos), token
            pos = r.play(pos, draw)
        return pos
    if token == "NEW":
        move = Move(WASTE, STOCK, len(pos.waste))
    elif token[0] == "F":
        i = int(token[1:]) - 1
        assert pos.hidden[i] < len(pos.tableau[i]), "already turned by the move before"
        return pos
    else:
        body, _, n = token.partition("-")

        def pile(ch: str) -> Pile:
            if ch == "W":
                return WASTE
            if ch.isdigit():
                return t(int(ch))
            slots = [
                i
                for i, top in enumerate(pos.foundations)
                if top is not None and top.suit.letter == ch
            ]
            empty = [i for i, top in enumerate(pos.foundations) if top is None]
            return foundation((slots or empty)[0])

        move = Move(pile(body[0]), pile(body[1]), int(n) if n else 1)
    assert move in r.legal_moves(pos), (token, move, r.explain(pos, move))
    return r.play(pos, move)


@pytest.mark.parametrize(("number", "draw"), [(1, 1), (1, 3), (2, 3), (3, 1), (5, 3), (11, 3)])
def test_klondike_solver_solutions_replay_through_legal_moves(number: int, draw: int) -> None:
    pytest.importorskip("pyksolve")
    r = rules(draw)
    pos = r.deal(number)
    moves = _klondike_solver_moves(number, draw)
    for token in moves:
        pos = _replay_step(r, pos, token)
    assert len(moves) > 50 and r.is_won(pos)
    if draw == 3:
        assert "NEW" in moves  # the draw-3 phase across recycles was exercised
