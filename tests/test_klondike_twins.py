"""The relaxation's rule for twins in one pile ("Twins that wait for the
same parents" in the notes of :mod:`jielong.engine.solve.klondike`): each
verdict is checked against every move sequence, or against a real win."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from klondike_brute import brute_force_winnable, rules
from test_solve_klondike import FixtureTooLarge, exhaustive_winnable

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
def twins_in_one_pile(draw: st.DrawFn) -> KlondikePosition:
    """A near-end position (every pile showing only its last card) with
    two queens of one colour face down in one pile on another card: the
    jacks of their suits on up are loose, and the kings of the other
    colour, with or without their queens."""
    red = draw(st.booleans())
    twins = [s for s in range(4) if Card.of(1, s).is_red == red]
    others = [s for s in range(4) if s not in twins]
    heights = [0] * 4
    for s in twins:
        heights[s] = draw(st.sampled_from([10, 11])) if s == twins[0] else 10
    for s in others:
        heights[s] = draw(st.sampled_from([11, 12]))
    queens = [Card.of(12, s) for s in twins]
    loose = [
        Card.of(rank, s)
        for s in range(4)
        for rank in range(heights[s] + 1, 14)
        if Card.of(rank, s) not in queens
    ]
    cards = draw(st.permutations(loose))
    # most of them in pile 1, where the queens go, some in a few other
    # piles, the stock (7) and the waste (8)
    spots = st.sampled_from([0, 0, 0, 0, 1, 2, 7, 7, 8])
    places = draw(st.lists(spots, min_size=len(cards), max_size=len(cards)))
    piles: list[list[Card]] = [[] for _ in range(7)]
    stock: list[Card] = []
    waste: list[Card] = []
    for c, where in zip(cards, places, strict=True):
        (stock if where == 7 else waste if where == 8 else piles[where]).append(c)
    assume(piles[0])
    i = 0
    low, high = draw(st.permutations(queens))
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
@given(pos=twins_in_one_pile(), draw=st.sampled_from([1, 3]))
def test_twins_in_one_pile_hopeless_only_when_no_move_sequence_wins(
    pos: KlondikePosition, draw: int
) -> None:
    r = rules(draw)
    if KR.hopeless(K.from_position(pos), draw):
        try:
            winnable = exhaustive_winnable(r, pos)
        except FixtureTooLarge:
            winnable = None
        assume(winnable is not None)
        assert not winnable
