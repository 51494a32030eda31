"""The relaxation's rule for twins in one pile ("Twins that wait for the
same parents" in the notes of :mod:`jielong.engine.solve.klondike`): each
verdict is checked against every move sequence, or against a real win."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from klondike_brute import brute_force_winnable, rules
from test_solve_klondike import exhaustive_winnable, hopeless_only_if_lost

from jielong.engine.cards import Card
from jielong.engine.rules.klondike import KlondikePosition
from jielong.engine.solve import klondike as K
from jielong.engine.solve.searches import klondike_relax as KR

ONE_KING_FOR_TWO_QUEENS = """
Stock: KC KS
Foundations: TC QD QH TS
: KH JS JC QS | QC
: | KD
: |
: |
: |
: |
: |
"""
"""Both black queens must leave pile 1 before the jack of clubs under them
comes free, and neither can go home (both jacks lie below them); the king
of hearts is the pile's bottom card, so only the king of diamonds is left
for two queens.  Every card taken alone could leave: the first queen onto
the king of diamonds, the second onto him too."""

TWO_KINGS_FOR_TWO_QUEENS = ONE_KING_FOR_TWO_QUEENS.replace("KC KS", "KC KS KH").replace(
    ": KH JS", ": JS"
)
"""The same with the king of hearts in the stock: the second queen goes
onto him."""


@pytest.mark.parametrize("draw", [1, 3])
def test_twins_waiting_for_one_parent_are_proven_lost(draw: int) -> None:
    r = rules(draw)
    pos = r.from_text(ONE_KING_FOR_TWO_QUEENS)
    assert not exhaustive_winnable(r, pos)
    assert KR.hopeless(K.from_position(pos), draw)
    res = K.solve(r, pos, max_nodes=10)
    assert res.status == "unsolvable" and res.nodes == 0


@pytest.mark.parametrize("draw", [1, 3])
def test_twins_with_both_parents_free_are_not_hopeless(draw: int) -> None:
    r = rules(draw)
    pos = r.from_text(TWO_KINGS_FOR_TWO_QUEENS)
    assert brute_force_winnable(r, pos)
    assert not KR.hopeless(K.from_position(pos), draw)
    assert K.solve(r, pos).status == "solved"


@pytest.mark.parametrize("draw", [1, 3])
def test_the_upper_twin_carried_on_its_parent_is_not_hopeless(draw: int) -> None:
    """The upper queen lies face up on the king of diamonds from the start
    and goes with him; the king of hearts, in the stock, takes the lower
    queen."""
    r = rules(draw)
    text = """
    Stock: KC KS KH
    Foundations: TC QD QH TS
    : JS JC QS | KD QC
    : |
    : |
    : |
    : |
    : |
    : |
    """
    pos = r.from_text(text)
    assert brute_force_winnable(r, pos)
    assert not KR.hopeless(K.from_position(pos), draw)


@pytest.mark.parametrize("draw", [1, 3])
def test_deal_36_is_proven_lost_without_search(draw: int) -> None:
    """Pile 7 holds both black nines on the ten of clubs, the ace of clubs
    below them; the ten of hearts is the bottom card of pile 5 and stays
    covered while they wait, so the ten of diamonds is all they have."""
    r = rules(draw)
    pos = r.deal(36)
    assert KR.hopeless(K.from_position(pos), draw)
    assert K.solve(r, pos, max_nodes=10).status == "unsolvable"


@st.composite
def twins_in_one_pile(draw: st.DrawFn, rank: int = 12) -> KlondikePosition:
    """A near-end position (every pile showing only its last card) with
    two cards of ``rank`` and one colour (queens, or jacks) face down in
    one pile on another card: their suits are loose from one rank below
    them on up, the other colour from their parents' rank or one below."""
    red = draw(st.booleans())
    twins = [s for s in range(4) if Card.of(1, s).is_red == red]
    others = [s for s in range(4) if s not in twins]
    heights = [0] * 4
    for s in twins:
        heights[s] = rank - 2 + (draw(st.integers(0, 1)) if s == twins[0] else 0)
    for s in others:
        heights[s] = rank - 1 + draw(st.integers(0, 1))
    pair = [Card.of(rank, s) for s in twins]
    loose = [
        Card.of(r, s)
        for s in range(4)
        for r in range(heights[s] + 1, 14)
        if Card.of(r, s) not in pair
    ]
    cards = draw(st.permutations(loose))
    # most of them in pile 1, where the twins go, some in a few other
    # piles, the stock (7) and the waste (8)
    spots = st.sampled_from([0, 0, 0, 0, 1, 2, 7, 7, 8] if rank == 12 else [0, 0, 0, 1, 7, 7, 7])
    places = draw(st.lists(spots, min_size=len(cards), max_size=len(cards)))
    piles: list[list[Card]] = [[] for _ in range(7)]
    stock: list[Card] = []
    waste: list[Card] = []
    for c, where in zip(cards, places, strict=True):
        (stock if where == 7 else waste if where == 8 else piles[where]).append(c)
    assume(piles[0])
    i = 0
    low, high = draw(st.permutations(pair))
    k = draw(st.integers(1, len(piles[i])))
    piles[i][k:k] = [low]
    piles[i].insert(draw(st.integers(k + 1, len(piles[i]))), high)
    return KlondikePosition(
        tuple(tuple(pile) for pile in piles),
        tuple(max(len(pile) - 1, 0) for pile in piles),
        tuple(stock),
        tuple(waste),
        tuple(Card.of(h, s) if h else None for s, h in enumerate(heights)),
        0,
    )


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pos=st.sampled_from([11, 12]).flatmap(twins_in_one_pile), draw=st.sampled_from([1, 3]))
def test_twins_in_one_pile_hopeless_only_when_no_move_sequence_wins(
    pos: KlondikePosition, draw: int
) -> None:
    hopeless_only_if_lost(rules(draw), pos)


TWO_QUEENS_FOR_ONE_KING = """
Stock: QC QS KC QH QD
Foundations: 9C JD JH 9S
: KS TS TC JS | JC
: | KD
: | KH
: |
: |
: |
: |
"""
"""Both black jacks must leave pile 1 before the ten of clubs comes free,
and neither can go home. Each needs a red queen, and both red queens are
in the stock: each must go onto a black king, and the king of spades lies
under the jacks, so only the king of clubs is left for two queens.  Taken
one at a time, each queen could go onto him."""


@pytest.mark.parametrize("draw", [1, 3])
def test_parents_that_wait_for_one_grandparent_are_proven_lost(draw: int) -> None:
    r = rules(draw)
    pos = r.from_text(TWO_QUEENS_FOR_ONE_KING)
    assert not exhaustive_winnable(r, pos)
    assert KR.hopeless(K.from_position(pos), draw)
    won = r.from_text(TWO_QUEENS_FOR_ONE_KING.replace(": KS TS", ": TS").replace("KC", "KC KS"))
    assert brute_force_winnable(r, won)
    assert not KR.hopeless(K.from_position(won), draw)
