"""The visible-information Klondike hint: its "no progress" verdict and its
shortest lines agree with a brute-force search through the rules, it never
depends on cards the player cannot know, and with every card known it wins."""

from __future__ import annotations

import inspect
import random
import time
from collections import deque
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from klondike_brute import (
    NO_LEGAL_MOVE,
    brute_force_winnable,
    foundation_top,
    lowest_loose_rank,
    rules,
    shape,
    small_positions,
)
from solver_checks import playout

from jielong.engine.cards import DECK, Card
from jielong.engine.rules.core import STOCK, Move, Pile
from jielong.engine.rules.klondike import Klondike, KlondikePosition
from jielong.engine.solve import klondike as K
from jielong.engine.solve.result import Hint
from jielong.engine.solve.searches import klondike_hint as H
from jielong.engine.solve.searches.klondike_hint import PROOF_CARDS, first_pass_turn, lost_every_way
from jielong.engine.solve.searches.klondike_replay import replay_actions
from jielong.engine.solve.searches.klondike_sample import (
    NODES,
    SEGMENT_HORIZON,
    SEGMENTS,
    UNSOLVED,
    WON,
    _new_plan,
    _segment,
    best_move,
    carry_after,
    priority,
    verdict,
    weigh,
)
from jielong.engine.solve.searches.klondike_search import Budget, best_first
from jielong.engine.solve.searches.klondike_state import apply, from_position
from jielong.engine.solve.searches.klondike_unseen import (
    first_code,
    masked,
    move_code,
    pack_line,
    play_code,
    reversible,
    unpack_line,
    visible_state,
)


def heights(pos: KlondikePosition) -> list[int]:
    h = [0, 0, 0, 0]
    for top in pos.foundations:
        if top is not None:
            h[top.suit] = top.rank
    return h


def is_progress(start: KlondikePosition, pos: KlondikePosition) -> bool:
    return sum(pos.hidden) < sum(start.hidden) or any(
        a > b for a, b in zip(heights(pos), heights(start), strict=True)
    )


def brute_force_progress(r: Klondike, start: KlondikePosition) -> tuple[int | None, int | None]:
    """Every sequence of moves, breadth first, through the rules alone: the
    fewest moves to a tableau or foundation progress, and the fewest to a draw
    that turns unseen stock cards (``None`` when impossible)."""
    unseen_stock = not start.stock_all_seen()
    floor = lowest_loose_rank(start) - 1
    best_stock: int | None = None
    seen = {shape(start)}
    todo = deque([(start, 0)])
    while todo:
        p, depth = todo.popleft()
        for m in r.legal_moves(p):
            if m.src.kind == "foundation" and foundation_top(p, m).rank < floor:
                continue
            if m.src == STOCK and unseen_stock:
                if best_stock is None:
                    best_stock = depth + 1
                continue
            q = r.play(p, m)
            if is_progress(start, q):
                return depth + 1, best_stock
            if shape(q) not in seen:
                seen.add(shape(q))
                todo.append((q, depth + 1))
    return None, best_stock


def replay(r: Klondike, pos: KlondikePosition, line: tuple[Move, ...]) -> KlondikePosition:
    for m in line:
        assert m in r.legal_moves(pos)
        pos = r.play(pos, m)
    return pos


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pos=small_positions(max_loose=8), draw=st.sampled_from([1, 3]))
def test_hint_agrees_with_every_move_sequence(pos: KlondikePosition, draw: int) -> None:
    r = rules(draw)
    h = K.hint(r, pos, max_seconds=30)
    if not r.legal_moves(pos) or r.is_won(pos):
        assert h.kind == "none"
        return
    assert h.move is not None or h.kind in ("no_progress", "unsolvable")
    if h.move is not None:
        assert h.move in r.legal_moves(pos)
        assert h.line[0] == h.move
    # The brute force brings foundation cards back down only as far as they
    # can hold a loose card: what it finds is real, so the hint must find as
    # much, and a proof of the hint must hold against it.
    if len(_unknown_cards(pos)) <= 1:
        # every card known, or all but one: the one seen nowhere
        if brute_force_winnable(r, pos):
            assert h.kind == "solver"
        assert h.kind in ("solver", "unsolvable")
        if h.kind == "solver":
            assert r.is_won(replay(r, pos, h.line))
        return
    if h.kind == "unsolvable":
        # every way the few unseen cards can lie is lost, the real one too
        assert lost_every_way(visible_state(pos)[0], draw)
        assert not brute_force_winnable(r, pos)
        return
    shortest, stock = brute_force_progress(r, pos)
    if h.kind == "no_progress":
        assert shortest is None and stock is None
        return
    if h.kind == "likely" and h.source == "first_pass":
        # the stock turned to its end before anything else: every click shown
        end = replay(r, pos, h.line)
        assert all(m.src == STOCK for m in h.line) and not end.stock and h.samples > 0
        assert h.win_chance is not None and 0 < h.win_chance < 1
        return
    if h.kind == "likely":
        # the move that won the most deals of the unseen cards
        assert h.line == (h.move,) and h.samples > 0
        # a won deal is decided, so at least one was
        assert 0 < h.decided <= h.samples
        # an estimate: exactly 0 or 1 only with a proof
        assert h.win_chance is not None and 0 < h.win_chance < 1
        return
    # no deal of the unseen cards was won: the shortest line to progress
    assert h.kind == "heuristic" and h.samples > 0 and 0 <= h.decided <= h.samples
    assert h.win_chance is not None and 0 < h.win_chance <= 0.5 / (h.samples + 1)
    end = replay(r, pos, h.line)
    if shortest is not None:
        assert len(h.line) <= shortest
        assert is_progress(pos, end)
    elif is_progress(pos, end):
        pass  # found through a longer walk down the foundations
    else:
        assert stock is not None and len(h.line) == stock
        assert h.line[-1].src == STOCK


def test_no_progress_on_a_dead_end() -> None:
    # The jack of diamonds sits on the cards it needs; kings and the queen of
    # diamonds can only shuttle between piles, and nothing can go home.
    text = """
    Foundations: JC 9D KH TS
    Recycles: 1
    : |
    : QC JS QS TD | JD
    : | KS
    : | KD
    : |
    : | KC
    : | QD
    """
    r = rules(3)
    pos = r.from_text(text)
    assert len(r.legal_moves(pos)) >= 2
    assert brute_force_progress(r, pos) == (None, None)
    assert K.hint(r, pos, max_seconds=10) == Hint("no_progress", source="own", win_chance=0.0)
    # with the jack on the waste, the ten goes home: progress in one move
    freed = r.from_text(text.replace("QC JS QS TD | JD", "QC JS QS | TD") + "Waste: JD\n")
    h = K.hint(r, freed, max_seconds=10)
    # face-down cards remain: the move that wins the most deals of them
    assert h.kind == "likely" and h.move in r.legal_moves(freed) and h.line == (h.move,)
    assert h.move.dst.kind == "foundation" and h.win_chance is not None and h.win_chance > 0


def test_a_card_sent_home_again_is_no_progress() -> None:
    # The ten of spades came down from its foundation onto the jack of
    # diamonds; seven cards lie face down and no move can turn one over (no
    # king is in sight, and the black queens are home or face down).
    # Sending the ten home again is the only move that looks like progress,
    # and the game had it home already.
    home = """
    Foundations: QC 9D QH TS
    : QS KD JS | JD
    : KS TD KC KH | QD
    :
    :
    :
    :
    :
    """
    r = rules(3)
    before = r.from_text(home)
    down = r.play(before, Move(Pile("foundation", 3), Pile("tableau", 0)))
    assert down.tableau[0][-1] == Card.parse("TS")
    # alone, the position offers the ten home again, no deal of the seven
    # cards being won
    h = K.hint(r, down, max_seconds=10)
    assert h.kind == "heuristic" and h.move is not None
    assert h.move.src == Pile("tableau", 0) and h.move.dst.kind == "foundation"
    # in the game that had it home, nothing can go beyond: no progress, a proof
    seen = frozenset({K.circle_key(before), K.circle_key(down)})
    assert K.hint(r, down, max_seconds=10, avoid=seen) == Hint(
        "no_progress", source="own", win_chance=0.0
    )


def _unknown_cards(pos: KlondikePosition) -> list[Card]:
    cards = [c for pile, h in zip(pos.tableau, pos.hidden, strict=True) for c in pile[:h]]
    if not pos.stock_all_seen():
        cards.extend(pos.stock)
    return cards


def _with_unknown(pos: KlondikePosition, cards: list[Card]) -> KlondikePosition:
    it = iter(cards)
    piles = tuple(
        tuple(next(it) for _ in range(h)) + pile[h:]
        for pile, h in zip(pos.tableau, pos.hidden, strict=True)
    )
    stock = pos.stock if pos.stock_all_seen() else tuple(next(it) for _ in pos.stock)
    return replace(pos, tableau=piles, stock=stock)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    number=st.integers(1, 100_000),
    steps=st.integers(0, 200),
    seed=st.integers(0, 2**32),
    draw=st.sampled_from([1, 3]),
)
def test_hint_ignores_unknown_cards(number: int, steps: int, seed: int, draw: int) -> None:
    r = rules(draw)
    pos = playout(r, number, steps, seed)
    rng = random.Random(seed)
    unknown = _unknown_cards(pos)
    assume(len(unknown) >= 2)
    shuffled = unknown[:]
    rng.shuffle(shuffled)
    other = _with_unknown(pos, shuffled)
    assert other != pos or shuffled == unknown
    # CPU time: on a busy machine a wall-clock deadline could cut one short
    a = K.hint(r, pos, max_seconds=60, clock=time.process_time)
    b = K.hint(r, other, max_seconds=60, clock=time.process_time)
    assert a == b


@settings(max_examples=60, deadline=None)
@given(
    number=st.integers(1, 100_000),
    steps=st.integers(0, 150),
    seed=st.integers(0, 2**32),
    draw=st.sampled_from([1, 3]),
)
def test_a_reversible_move_is_taken_back_by_one_legal_move(
    number: int, steps: int, seed: int, draw: int
) -> None:
    """What the sampling counts as a move that loses no deal: the position
    after it has a legal move back to exactly where it was, whatever the
    unseen cards (the check sees only the visible state)."""
    r = rules(draw)
    pos = playout(r, number, steps, seed)
    vis, _ = visible_state(pos)
    for m in r.legal_moves(pos):
        after = r.play(pos, m)
        back = any(r.play(after, b) == pos for b in r.legal_moves(after))
        if m.src.kind in ("tableau", "foundation"):
            assert reversible(vis, move_code(pos, m)) == back, m
        else:
            assert not reversible(vis, move_code(pos, m)), m  # the waste and stock


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    number=st.integers(1, 100_000),
    steps=st.integers(10, 120),
    seed=st.integers(0, 2**32),
    draw=st.sampled_from([1, 3]),
)
def test_the_hint_does_not_put_the_choice_off(
    number: int, steps: int, seed: int, draw: int
) -> None:
    """A move that can be taken back wins, with every card known, whatever
    the move after it wins; it is hinted only as the plan or as the first
    move of the deals' lines, never to put off a choice."""
    r = rules(draw)
    pos = playout(r, number, steps, seed)
    assume(not (pos.all_revealed() and pos.stock_all_seen()) and r.legal_moves(pos))
    cands = sorted(r.legal_moves(pos), key=lambda m: priority(pos, m))
    w = weigh(r, pos, cands, deadline=float("inf"))
    best = best_move(w)
    vis, _ = visible_state(pos)
    for i, code in enumerate(w.codes):
        if reversible(vis, code) and i != w.plan:
            assert w.wins[i] == w.votes[i]
    if best is not None and reversible(vis, w.codes[best]):
        assert best == w.plan or w.votes[best] > 0


def test_one_card_unseen_is_a_known_card() -> None:
    """With one card not shown, the player knows it (it is the one seen
    nowhere): the hint is the solver's, with a line that wins or a proof."""
    r = rules(3)
    kinds = set()
    for number in range(1, 30):
        pos = _on_solution(r, number, lambda p: len(_unknown_cards(p)) == 1)
        if pos is None:
            continue
        h = K.hint(r, pos, max_seconds=30, clock=time.process_time)
        kinds.add(h.kind)
        assert h.kind == "solver" and h.win_chance == 1.0
        assert r.is_won(replay(r, pos, h.line))
    assert kinds == {"solver"}


def _on_solution(
    r: Klondike, number: int, wanted: Callable[[KlondikePosition], bool]
) -> KlondikePosition | None:
    """The first ``wanted`` position on the solver's line of deal ``number``
    (``None`` when it finds no line, or no such position on it)."""
    res = K.solve(r, r.deal(number), max_nodes=20_000)
    if res.status != "solved":
        return None
    pos = r.deal(number)
    for m in res.moves:
        if wanted(pos):
            return pos
        pos = r.play(pos, m)
    return pos if wanted(pos) else None


def test_a_game_lost_every_way_the_unseen_cards_lie_is_proven_lost(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    r = rules(3)
    few = lambda p: 2 <= len(_unknown_cards(p)) <= PROOF_CARDS  # noqa: E731
    positions = [p for n in range(1, 30) if (p := _on_solution(r, n, few)) is not None]
    assert len(positions) >= 5
    for pos in positions:
        # a deal that can be won is never given up for lost
        assert not lost_every_way(visible_state(pos)[0], 3)
    # and with every deal of the unseen cards lost, the hint says so
    import jielong.engine.solve.searches.klondike_hint as H
    import jielong.engine.solve.searches.klondike_sample as S

    monkeypatch.setattr(H, "hopeless", lambda st, draw: True)
    monkeypatch.setattr(S, "hopeless", lambda st, draw: True)
    h = H.hint(r, positions[0], max_seconds=30, clock=time.process_time)
    assert (h.kind, h.win_chance, h.move) == ("unsolvable", 0.0, None)


NARROW_DEAD_END = """
# klondike-3
Stock:
Waste: 4D 7H 3C AS 7C QS TC 5D 2S 5C 4S QC 7D JH 9D 5H 8S TS
Foundations: 2H 3D AC -
Recycles: 6
: |
: | KC QD JC TD 9C 8D 7S 6H
: | 6S
: 8H JD | 6D
: KH 9S JS 4H | 4C
: 2C 3H KD QH 3S | 9H 8C
: 5S 6C KS | TH
"""


def test_a_deal_the_narrow_search_cannot_win_goes_to_the_exhaustive_one() -> None:
    r = rules(3)
    pos = r.from_text(NARROW_DEAD_END)
    st = from_position(pos)
    narrow = list(best_first(st, 3, Budget(3_000, None), True))
    assert narrow[-1] is None  # out of moves, not of budget
    status, line, nodes = verdict(st, 3, 3_000)
    assert status == WON and 0 < nodes <= 3_000
    moves, end = replay_actions(r, pos, st, line)
    assert r.is_won(end) and moves


def test_won_lines_through_a_position_the_game_was_in_are_still_followed() -> None:
    # Draw 3 deal 21239 after 200 hints: the three of hearts covers the ace
    # and the four of clubs face down, and can only go onto the four of
    # spades, home under six more spades. Every deal of the two unseen
    # cards is won, by lines that start by sending the ten of diamonds home
    # again; the game had it home a move ago. Keeping to new positions
    # only, no move won a deal, and the follower shuffled cards for 1,500
    # hints, showing a 95% chance all along.
    r = rules(3)
    pos = r.from_text(
        """
        Foundations: - 2C TS 9D
        Recycles: 12
        : KS QD JS TD
        :
        :
        : KH QC JH TC 9H 8C 7H 6C 5H
        : KC QH JC TH 9C 8H 7C 6H 5C 4H 3C 2H
        : KD QS JD
        : 4C AH | 3H
        """
    )
    home = Move(Pile("tableau", 0), Pile("foundation", 3))
    before = r.play(pos, home)
    seen = frozenset({K.circle_key(before), K.circle_key(pos)})
    h = K.hint(r, pos, max_seconds=1, avoid=seen, clock=time.process_time)
    assert h.kind == "likely" and h.move == home
    # and never to a position the game has been in twice
    h = K.hint(r, pos, max_seconds=1, avoid=seen, never=seen, clock=time.process_time)
    assert h.move != home


def _stock_turned_through(r: Klondike, deal: int) -> KlondikePosition:
    pos = r.deal(deal)
    while pos.stock:
        pos = r.play(pos, next(m for m in r.legal_moves(pos) if m.src.kind == "stock"))
    return pos


def test_a_game_that_goes_long_without_a_card_turned_over_takes_the_way_on() -> None:
    # Draw 1 deal 5 with its stock turned through: the deals weighed favour
    # turning the stock over, and the seven of spades (pile 3) laid on the
    # eight of diamonds (pile 5) turns a card over at once.
    r = rules(1)
    pos = _stock_turned_through(r, 5)
    onto = Move(Pile("tableau", 2), Pile("tableau", 4))
    assert onto in r.legal_moves(pos)
    assert sum(r.play(pos, onto).hidden) < sum(pos.hidden)
    fresh = K.hint(r, pos, max_seconds=1, clock=time.process_time)
    assert fresh.source == "sampling" and fresh.move != onto
    # the positions the game has been in: as many cards face down as now in
    # each (they differ by the recycle count only, which is all the same here)
    stall = H.STALL_POSITIONS
    been = [replace(pos, recycles=k) for k in range(2, 2 + stall)]
    assert not H.stalled(pos, frozenset(been[:-1])) and H.stalled(pos, frozenset(been))
    # a position with another card face down is of another stretch
    other = replace(pos, hidden=(*pos.hidden[:-1], pos.hidden[-1] - 1))
    assert not H.stalled(pos, frozenset([*been[:-1], other]))
    h = K.hint(r, pos, max_seconds=1, avoid=frozenset(been), clock=time.process_time)
    assert (h.kind, h.source, h.move, h.line) == ("likely", "onwards", onto, (onto,))
    assert h.samples > 0 and h.win_chance is not None and h.carry


def test_a_stalled_game_takes_cards_down_when_the_deals_stay_won() -> None:
    # Draw 3 deal 21239 after 529 hints of a game that wandered: the three
    # of hearts covers the ace and the four of clubs, both face down; the
    # way on takes spades and diamonds down from their foundations to build
    # a place for it. Taking a card down can be taken back, so the weighing
    # credits it only with the deals whose lines start with it: none did,
    # and the follower sent cards home and down again for 1,000 hints.
    r = rules(3)
    pos = r.from_text(
        """
        Foundations: - 2C JS JD
        Recycles: 12
        :
        : KS QD
        :
        : KH QS
        : KC QH JC TH 9C 8H 7C 6H 5C 4H 3C 2H
        : KD QC JH TC 9H 8C 7H 6C 5H
        : 4C AH | 3H
        """
    )
    fresh = K.hint(r, pos, max_seconds=1, clock=time.process_time)
    assert fresh.source == "sampling" and fresh.move is not None
    assert fresh.move.dst.kind == "foundation"
    # the game had every spade and diamond home before
    record = (None, Card.parse("2C"), Card.parse("KS"), Card.parse("KD"))
    been = frozenset(
        replace(pos, recycles=k, foundations=record) for k in range(2, 2 + H.STALL_POSITIONS)
    )
    h = K.hint(r, pos, max_seconds=1, avoid=been, clock=time.process_time)
    assert h.source == "onwards" and h.move is not None and h.move.src.kind == "foundation"
    # its line turns the three of hearts' cards over
    assert sum(replay(r, pos, h.line).hidden) < sum(pos.hidden)


def test_a_circle_does_not_hang_on_which_foundation_a_card_went_to() -> None:
    r = rules(3)
    pos = replace(r.deal(7), foundations=(Card.parse("AS"), None, Card.parse("2H"), None))
    moved = replace(pos, foundations=(None, Card.parse("2H"), None, Card.parse("AS")))
    assert K.circle_key(moved) == K.circle_key(pos)
    assert K.circle_key(replace(pos, recycles=5)) == K.circle_key(replace(moved, recycles=2))
    # a different card home, or a first recycle against none, still differs
    other = replace(pos, foundations=(Card.parse("AC"), None, Card.parse("2H"), None))
    assert K.circle_key(other) != K.circle_key(pos)
    assert K.circle_key(replace(pos, recycles=1)) != K.circle_key(pos)


def test_hints_from_a_known_position_lead_to_a_win() -> None:
    r = rules(3)
    for number in range(1, 40):
        # play the solution until every card is known, then follow hints only
        found = _on_solution(r, number, lambda p: p.all_revealed() and p.stock_all_seen())
        if found is None:
            continue
        pos = found
        for _ in range(400):
            if r.is_won(pos):
                break
            h = K.hint(r, pos, max_seconds=30)
            assert h.kind == "solver" and h.move in r.legal_moves(pos)
            pos = r.play(pos, h.move)
        assert r.is_won(pos)
        return
    raise AssertionError("no solved deal to play")


def test_no_legal_move_gives_none() -> None:
    r = rules(3)
    stuck = r.from_text(NO_LEGAL_MOVE)
    assert r.legal_moves(stuck) == []
    assert K.hint(r, stuck, max_seconds=5) == Hint("none")


def _dealt(pos: KlondikePosition, st: tuple[Any, ...]) -> KlondikePosition:
    """``pos`` with the cards of the solver's state ``st`` (a deal of its
    unseen cards) in place of the unknown ones."""
    piles, _hidden, _found, talon, p = st
    return replace(
        pos,
        tableau=tuple(tuple(DECK[c] for c in pile) for pile in piles),
        waste=tuple(DECK[c] for c in talon[:p]),
        stock=tuple(DECK[c] for c in reversed(talon[p:])),
    )


def test_a_followed_hint_hands_its_deals_on() -> None:
    r = rules(3)
    pos = r.deal(3)
    carry: tuple[Any, ...] = ()
    for _ in range(40):
        first = K.hint(r, pos, max_seconds=60, clock=time.process_time, carried=carry)
        assert first.kind == "likely" and first.move is not None
        assert len(first.carry) == first.samples
        after = r.play(pos, first.move)
        vis, stock_known = visible_state(after)
        agreeing = [d for d in first.carry if masked(d[0], stock_known) == vis]
        if pos.stock_all_seen() and sum(after.hidden) == sum(pos.hidden):
            # a move that brings no card to light keeps every deal
            assert len(agreeing) == len(first.carry)
            break
        pos, carry = after, first.carry
    else:
        raise AssertionError("no hinted move that brings no card to light")
    won = [d for d in agreeing if d[1] == WON]
    assert won
    for deal, _status, line in won:
        # each line handed on wins its deal from the position after the move
        moves, end = replay_actions(r, _dealt(after, deal), deal, unpack_line(line))
        assert r.is_won(end) and moves
    cands = sorted(r.legal_moves(after), key=lambda m: priority(after, m))
    fresh = weigh(r, after, cands, deadline=float("inf"))
    going_on = weigh(r, after, cands, deadline=float("inf"), carried=first.carry)
    assert fresh.carried == 0 and going_on.carried == len(agreeing)
    # a deal whose line goes on costs no search
    assert going_on.solves < fresh.solves and going_on.nodes < fresh.nodes
    # a deal lost by proof stays lost, a won one won
    assert [d[1] for d in agreeing if d[1] != UNSOLVED] == [
        going_on.roots[k] for k, d in enumerate(agreeing) if d[1] != UNSOLVED
    ]


def test_handed_on_deals_do_not_depend_on_the_unknown_cards() -> None:
    r = rules(3)
    # hints from deal 3 until the stock is known and the next three hints
    # turn no card over
    pos = r.deal(3)
    carry: tuple[Any, ...] = ()
    path: list[tuple[KlondikePosition, tuple[Any, ...]]] = []
    while len(path) < 3 or not path[-3][0].stock_all_seen() or path[-3][0].hidden != pos.hidden:
        path.append((pos, carry))
        h = K.hint(r, pos, max_seconds=60, clock=time.process_time, carried=carry)
        assert h.move is not None
        pos, carry = r.play(pos, h.move), h.carry
    pos, carry = path[-3]
    unknown = _unknown_cards(pos)
    random.Random(5).shuffle(unknown)
    other = _with_unknown(pos, unknown)
    assert other != pos
    went_on = 0
    carry_b = carry
    for _ in range(12):
        a = K.hint(r, pos, max_seconds=60, clock=time.process_time, carried=carry)
        b = K.hint(r, other, max_seconds=60, clock=time.process_time, carried=carry_b)
        assert a == b and a.carry == b.carry and a.move is not None and b.move is not None
        hidden = sum(pos.hidden)
        pos, other, carry, carry_b = r.play(pos, a.move), r.play(other, b.move), a.carry, b.carry
        if sum(pos.hidden) < hidden:
            break  # a card came to light: it differs between the two games
        went_on += 1
    assert went_on >= 2


def test_the_hint_shows_the_unseen_stock_first() -> None:
    """Turning the stock to its end and over again brings a position back,
    so from a new deal the hints turn the stock until every card of it has
    been seen, each with its chance to win, and nothing else has moved."""
    r = rules(3)
    start = r.deal(11)
    pos = start
    turns = 0
    while not pos.stock_all_seen():
        h = K.hint(r, pos, max_seconds=60, clock=time.process_time)
        assert h.kind == "likely" and h.source == "first_pass" and h.move is not None
        assert h.win_chance is not None and 0 < h.win_chance < 1 and h.samples > 0
        # the hint names every turn still to come, the move first
        assert h.line[0] == h.move and len(h.line) == 8 - turns
        assert all(m.src == STOCK for m in h.line)
        pos, turns = r.play(pos, h.move), turns + 1
    assert turns == 8 and pos.tableau == start.tableau and pos.foundations == start.foundations


@pytest.mark.parametrize("draw", [1, 3])
def test_the_stock_goes_first_only_while_that_loses_nothing(draw: int) -> None:
    """Once a waste card was played in draw 3 since the stock was last turned
    over, the stock cannot come back to where it is: no turn is forced then
    (in draw 1 it always can); nor once the stock has all been seen."""
    r = rules(draw)
    deal = r.deal(5)
    pos = r.play(deal, next(m for m in r.legal_moves(deal) if m.src == STOCK))
    moves = r.legal_moves(pos)
    vis, known = visible_state(pos)
    turn = first_pass_turn(draw, vis, known, moves)
    assert not known and turn is not None and turn in moves and turn.src == STOCK
    # one card less in the waste, as if its top card had been played
    played = replace(pos, waste=pos.waste[:-1])
    vis, known = visible_state(played)
    turn = first_pass_turn(draw, vis, known, r.legal_moves(played))
    assert (turn is None) == (draw == 3)
    seen = replace(pos, recycles=1)
    vis, known = visible_state(seen)
    assert known and first_pass_turn(draw, vis, known, r.legal_moves(seen)) is None


def _stock_seen(r: Klondike, number: int) -> KlondikePosition:
    """Deal ``number`` with its stock turned to the end: every card of it seen."""
    pos = r.deal(number)
    while not pos.stock_all_seen():
        pos = r.play(pos, next(m for m in r.legal_moves(pos) if m.src == STOCK))
    return pos


def _segments(w: Any, won: list[int]) -> dict[tuple[Any, ...], list[int]]:
    """The won deals ``won`` of weighing ``w`` by their lines' segments."""
    segs: dict[tuple[Any, ...], list[int]] = {}
    for k in won:
        segs.setdefault(_segment(w.deals[k], w.lines[k]), []).append(k)
    return segs


def _first(w: Any, k: int) -> tuple[int, ...]:
    first = first_code(w.deals[k], w.lines[k])
    assert first is not None
    return first


@pytest.mark.parametrize("number", [4, 24])
def test_a_segment_ends_with_the_first_card_turned_over(number: int) -> None:
    r = rules(3)
    st0 = from_position(_stock_seen(r, number))
    status, line, _ = verdict(st0, 3, NODES)
    assert status == WON
    seg = _segment(st0, line)
    assert list(seg) == line[: len(seg)] and 1 < len(seg) <= SEGMENT_HORIZON
    s = st0
    for act in seg[:-1]:
        after = apply(s, act)
        assert after[1] == s[1]  # nothing turned over before the last action
        s = after
    assert apply(s, seg[-1])[1] != s[1] or len(seg) == SEGMENT_HORIZON


@pytest.mark.parametrize(("number", "hints"), [(26, 0), (26, 1)])
def test_a_new_plan_plays_the_segment_that_wins_the_most_deals(number: int, hints: int) -> None:
    """With nothing handed on, the plan's line starts with the one of the
    commonest segments that, played as it stands on every won deal, wins
    the most of them (the commoner first on a tie); the plan's deal is
    handed on first.  (After the first pass of deal 26 and one hint, the
    second commonest segment wins more deals than the commonest.)"""
    r = rules(3)
    pos = _stock_seen(r, number)
    for _ in range(hints):
        h = K.hint(r, pos, max_seconds=60, clock=time.process_time)
        assert h.move is not None
        pos = r.play(pos, h.move)
    cands = sorted(r.legal_moves(pos), key=lambda m: priority(pos, m))
    w = weigh(r, pos, cands, deadline=float("inf"))
    won = [k for k, v in enumerate(w.roots) if v == WON]
    assert len(won) > 1 and w.plan_deal in won
    segs = _segments(w, won)
    ranked = sorted(segs, key=lambda g: -len(segs[g]))[:SEGMENTS]

    def wins(seg: tuple[Any, ...]) -> int:
        n = 0
        for k in won:
            s = w.deals[k]
            for act in seg:
                s = apply(s, act)
            n += w.lines[k][: len(seg)] == list(seg) or verdict(s, 3, NODES)[0] == WON
        return n

    scores = [wins(seg) for seg in ranked]
    assert len(ranked) > 1
    if hints:
        assert scores.index(max(scores)) > 0, "the commonest segment wins the most here"
    chosen = _segment(w.deals[w.plan_deal], w.lines[w.plan_deal])
    assert chosen == ranked[scores.index(max(scores))]
    assert segs[chosen][0] == w.plan_deal
    assert w.codes[w.plan] == move_code(pos, cands[w.plan])
    best = best_move(w)
    assert best is not None
    first = carry_after(w, best, 3)[0]
    assert first[0] == play_code(w.deals[w.plan_deal], w.codes[best], 3)


def test_a_new_plan_past_the_deadline_takes_the_commonest_segment() -> None:
    r = rules(3)
    pos = _stock_seen(r, 26)
    cands = sorted(r.legal_moves(pos), key=lambda m: priority(pos, m))
    w = weigh(r, pos, cands, deadline=float("inf"))
    won = [k for k, v in enumerate(w.roots) if v == WON]
    starts = [(k, w.codes.index(_first(w, k))) for k in won]
    segs = _segments(w, won)
    commonest = max(segs, key=lambda g: len(segs[g]))
    assert len(segs) > 1
    w.plan = w.plan_deal = -1
    solves = w.solves
    _new_plan(w, starts, 3, NODES, True, deadline=0.0, clock=lambda: 1.0)
    assert w.solves == solves  # nothing solved once the deadline has passed
    assert w.plan_deal == segs[commonest][0]


def test_a_plan_goes_on_only_while_its_own_deal_agrees_with_what_is_seen() -> None:
    """The plan's deal is handed on first, and its line goes on while that
    deal agrees with the position.  Once a card comes to light that it does
    not hold, the next won deal handed on is not the plan by the mere order:
    a new plan is chosen by segment, as with nothing handed on."""
    r = rules(3)
    pos = _stock_seen(r, 26)
    cands = sorted(r.legal_moves(pos), key=lambda m: priority(pos, m))
    w = weigh(r, pos, cands, deadline=float("inf"))
    won = [k for k, v in enumerate(w.roots) if v == WON]
    best_seg = _segment(w.deals[w.plan_deal], w.lines[w.plan_deal])
    other = next(k for k in won if _segment(w.deals[k], w.lines[k]) != best_seg)
    order = [other] + [k for k in range(len(w.deals)) if k != other]
    handed = [(w.deals[k], w.roots[k], pack_line(w.lines[k])) for k in order]
    kept = weigh(r, pos, cands, deadline=float("inf"), carried=handed)
    assert kept.plan_deal == 0 and w.codes[kept.plan] == _first(w, other)
    gone = play_code(w.deals[other], w.codes[0], 3)  # a deal of another position
    assert masked(gone, True) != visible_state(pos)[0]
    chosen = weigh(r, pos, cands, deadline=float("inf"), carried=[(gone, WON, b""), *handed])
    assert chosen.plan_deal != 0
    assert _segment(chosen.deals[chosen.plan_deal], chosen.lines[chosen.plan_deal]) == best_seg


def test_the_hint_counts_cpu_time_by_default() -> None:
    # a server's hint pool passes no clock: a busy machine must weigh as
    # many deals as the benchmark, which counts CPU time
    from jielong.engine.solve import hints
    from jielong.engine.solve.searches import klondike_hint

    for fn in (klondike_hint.hint, hints.compute_hint):
        assert inspect.signature(fn).parameters["clock"].default is time.process_time


def test_a_sampled_hint_names_the_next_best_moves() -> None:
    """A second press of the hint shows another move: the ones the sampling
    weighed after the best, best first, each legal here, none of them the
    hint's own, with the deals it won no more than those it was solved on."""
    r = rules(3)
    pos = r.deal(3)
    seen = 0
    for _ in range(14):
        h = K.hint(r, pos, max_seconds=60, clock=time.process_time)
        if h.move is None:
            break
        if h.kind == "likely" and h.source != "first_pass":
            legal = set(r.legal_moves(pos))
            moves = [m for m, _won, _of in h.others]
            assert len(moves) == len(set(moves)) <= 3
            assert h.move not in moves and set(moves) <= legal
            for _m, won, of in h.others:
                assert 0 < won <= of <= h.samples
            seen += len(moves)
            if seen >= 3:
                break
        pos = r.play(pos, h.move)
    assert seen > 0
