"""Property tests over random playouts of every variant: the card count is
kept, ``legal_moves`` and ``explain`` agree on every syntactically possible
move, play is pure, and history replays exactly."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from jielong.engine.cards import Card
from jielong.engine.rules.core import STOCK, WASTE, Move, Pile, Rules
from jielong.engine.rules.freecell import FreeCellPosition
from jielong.engine.rules.klondike import KlondikePosition
from jielong.engine.rules.registry import rules_for
from jielong.engine.rules.variants import VARIANTS, get_variant

VARIANT_IDS = sorted(VARIANTS)

# Every pile id a move could name, including ones a family does not have, so
# that explain's refusal of them is compared with legal_moves too.
ALL_PILES = (
    STOCK,
    WASTE,
    *(Pile("foundation", i) for i in range(5)),
    *(Pile("tableau", i) for i in range(9)),
    *(Pile("cell", i) for i in range(5)),
)


def deal_numbers(variant: str) -> st.SearchStrategy[int]:
    top = 2**33 - 1 if get_variant(variant).family == "freecell" else 10**12
    return st.one_of(st.integers(1, 32000), st.integers(1, top))


def all_cards(pos: Any) -> list[Card]:
    """Every card of a position, the ones under foundation tops included."""
    cards: list[Card] = [c for pile in pos.tableau for c in pile]
    for top in pos.foundations:
        if top is not None:
            cards.extend(Card.of(r, top.suit) for r in range(1, top.rank + 1))
    if isinstance(pos, KlondikePosition):
        cards.extend(pos.stock)
        cards.extend(pos.waste)
    else:
        cards.extend(c for c in pos.cells if c is not None)
    return cards


def check_invariants(variant: str, pos: Any) -> None:
    cards = all_cards(pos)
    assert len(cards) == 52 and len(set(cards)) == 52
    if get_variant(variant).foundations_by_suit:
        for slot, top in enumerate(pos.foundations):
            assert top is None or top.suit == slot
    if isinstance(pos, KlondikePosition):
        assert len(pos.tableau) == 7 and len(pos.hidden) == 7
        for pile, h in zip(pos.tableau, pos.hidden, strict=True):
            # the top card of a pile is always face up (auto-flip)
            assert 0 <= h < len(pile) or h == 0 == len(pile)
        assert pos.recycles >= 0
    else:
        assert isinstance(pos, FreeCellPosition)
        assert len(pos.tableau) == 8 and len(pos.cells) == 4 and len(pos.foundations) == 4


def candidate_moves(pos: Any) -> set[Move]:
    # out-of-range counts too: a count of 0 was once accepted
    counts = set(range(-1, 15)) | {52}
    if isinstance(pos, KlondikePosition):
        counts |= {len(pos.waste), len(pos.stock)} - {0}
    return {Move(src, dst, n) for src in ALL_PILES for dst in ALL_PILES for n in counts}


@given(variant=st.sampled_from(VARIANT_IDS), data=st.data())
def test_random_playouts(variant: str, data: st.DataObject) -> None:
    rules: Rules[Any] = rules_for(variant)
    number = data.draw(deal_numbers(variant), label="deal")
    steps = data.draw(st.integers(0, 80), label="steps")
    pos = rules.deal(number)
    history = [pos]
    texts = [rules.to_text(pos)]
    moves: list[Move] = []
    for _ in range(steps):
        check_invariants(variant, pos)
        assert rules.from_text(rules.to_text(pos)) == pos
        legal = rules.legal_moves(pos)
        assert len(set(legal)) == len(legal), "a move is listed twice"
        if not legal:
            break
        for m in legal:
            assert rules.explain(pos, m) is None, m
            after = rules.play(pos, m)
            check_invariants(variant, after)
            assert after != pos
        assert rules.to_text(pos) == texts[-1], "play changed its input"
        move = data.draw(st.sampled_from(legal), label="move")
        pos = rules.play(pos, move)
        moves.append(move)
        history.append(pos)
        texts.append(rules.to_text(pos))
    # Undo walks the history back; every position is exactly as it was, and
    # replaying the moves from the deal rebuilds each one.
    for i in range(len(history) - 1, -1, -1):
        assert rules.from_text(texts[i]) == history[i]
    replay = rules.deal(number)
    assert replay == history[0]
    for i, move in enumerate(moves):
        assert move in rules.legal_moves(replay)
        replay = rules.play(replay, move)
        assert replay == history[i + 1]


@settings(max_examples=12)
@given(variant=st.sampled_from(VARIANT_IDS), data=st.data())
def test_explain_agrees_with_legal_moves(variant: str, data: st.DataObject) -> None:
    rules: Rules[Any] = rules_for(variant)
    pos = rules.deal(data.draw(deal_numbers(variant), label="deal"))
    steps = data.draw(st.integers(0, 40), label="steps")
    for _ in range(steps + 1):
        legal = rules.legal_moves(pos)
        listed = set(legal)
        for m in candidate_moves(pos) | listed:
            accepted = rules.explain(pos, m) is None
            assert accepted == (m in listed), (m, rules.explain(pos, m))
        if not legal:
            break
        pos = rules.play(pos, data.draw(st.sampled_from(legal), label="move"))


def near_won(variant: str, lifted: list[int]) -> Any:
    """A position with ``lifted[s]`` top cards of suit ``s`` taken off its
    foundation (slot ``s``) and piled face up on column ``s``, lowest last:
    every card is placed, and the foundation moves win it back."""
    founds = tuple(None if n == 13 else Card.of(13 - n, s) for s, n in enumerate(lifted))
    columns = [tuple(Card.of(r, s) for r in range(13, 13 - n, -1)) for s, n in enumerate(lifted)]
    if get_variant(variant).family == "klondike":
        piles = (*columns, (), (), ())
        return KlondikePosition(piles, (0,) * 7, (), (), founds)
    return FreeCellPosition((*columns, (), (), (), ()), (None,) * 4, founds)


@settings(max_examples=15)
@given(variant=st.sampled_from(VARIANT_IDS), data=st.data())
def test_won_only_with_52_cards_up(variant: str, data: st.DataObject) -> None:
    rules: Rules[Any] = rules_for(variant)
    # a random playout from a deal, foundation moves first ...
    pos = rules.deal(data.draw(deal_numbers(variant), label="deal"))
    for _ in range(data.draw(st.integers(0, 60), label="steps")):
        assert rules.is_won(pos) == (pos.foundation_count() == 52)
        legal = rules.legal_moves(pos)
        if not legal:
            break
        up = [m for m in legal if m.dst.kind == "foundation"]
        pos = rules.play(pos, data.draw(st.sampled_from(up or legal), label="move"))
    # ... and the end of a game: cards played home one by one until it is won
    lifted = data.draw(st.lists(st.integers(0, 13), min_size=4, max_size=4), label="lifted")
    pos = near_won(variant, lifted)
    check_invariants(variant, pos)
    for _ in range(sum(lifted)):
        assert pos.foundation_count() < 52 and not rules.is_won(pos)
        up = [m for m in rules.legal_moves(pos) if m.dst.kind == "foundation"]
        assert up, rules.to_text(pos)
        pos = rules.play(pos, data.draw(st.sampled_from(up), label="home"))
    assert pos.foundation_count() == 52 and rules.is_won(pos)
