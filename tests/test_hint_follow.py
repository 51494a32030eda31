"""A player who plays hint after hint never goes round in a circle, and wins
every solvable FreeCell deal, whether the hints go on with their line or are
computed afresh each time (a server that forgot the game's last hint)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jielong.engine import families
from jielong.engine.cards import Card
from jielong.engine.catalogue import is_unsolvable
from jielong.engine.rules.registry import rules_for
from jielong.engine.solve import fcsolve, freecell, freecell_hint, hints
from jielong.engine.solve.result import Hint
from jielong.engine.solve.searches import klondike_unseen as unseen
from jielong.engine.solve.searches.klondike_state import from_position
from jielong.session import Session
from jielong.testing.follower import follow, local_hint


def fresh_each_time(deadline: float) -> Any:
    ask = local_hint(deadline)
    return lambda session, _previous: ask(session, None)


@pytest.mark.parametrize("variant", ["freecell", "kongdang"])
@pytest.mark.parametrize("memory", [True, False])
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(deal=st.integers(1, 1_000_000))
def test_freecell_hint_followers_win_without_circles(variant: str, memory: bool, deal: int) -> None:
    ask = local_hint(2.0) if memory else fresh_each_time(2.0)
    game = follow(variant, deal, ask)
    assert game.most_seen <= 2
    if is_unsolvable(variant, deal):
        assert game.end == "unsolvable"
    else:
        assert game.won, (deal, game.end)


def test_own_solver_alone_follows_its_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fcsolve, "available", lambda: False)
    searches: list[Any] = []
    solve = freecell.solve

    def counted(*args: Any, **kwargs: Any) -> Any:
        searches.append(args[1])
        return solve(*args, **kwargs)

    monkeypatch.setattr(freecell, "solve", counted)
    game = follow("kongdang", 674971, local_hint(30.0))
    assert game.won and game.most_seen == 1
    # one search, for the first hint; every later one goes on with its line
    assert len(searches) == 1


def test_a_fresh_hint_never_goes_back_to_a_seen_position() -> None:
    session = Session("freecell", deal=674971)
    first = hints.compute_hint("freecell", session.position, deadline_seconds=2.0)
    assert first.move is not None and not first.steps
    back = session.position
    session.move(first.move)
    # the position before is seen: no hint may lead back to it
    hint = hints.compute_hint(
        "freecell", session.position, deadline_seconds=2.0, seen=tuple(session.positions)
    )
    assert hint.kind == "solver" and hint.move is not None
    assert session.rules.play(session.position, hint.move) != back
    # an undoing move would be the only heuristic one too
    heuristic = freecell_hint.heuristic_move(session.rules, session.position, frozenset([back]))
    assert heuristic.move is not None
    assert session.rules.play(session.position, heuristic.move) != back


def test_a_hint_goes_on_with_the_line_it_is_on() -> None:
    session = Session("kongdang", deal=617)
    first = hints.compute_hint("kongdang", session.position, deadline_seconds=2.0)
    line = hints.full_line("freecell", first)
    start = session.position
    pos = start
    for move in line[:5]:
        pos = session.rules.play(pos, move)
    went_on = hints.continue_line("freecell", session.rules, (start, first), pos)
    assert went_on is not None and went_on.kind == "solver" and went_on.win_chance == 1.0
    # the same line (its single-card moves may come back as a run move)
    rest = hints.full_line("freecell", went_on)
    end = hints.play_all(session.rules, pos, rest)
    assert end == hints.play_all(session.rules, pos, line[5:]) and session.rules.is_won(end)
    # off the line: no continuation
    other = next(m for m in session.rules.legal_moves(start) if session.rules.play(start, m) != pos)
    off = session.rules.play(start, other)
    if off not in [hints.play_all(session.rules, start, line[:k]) for k in range(len(line))]:
        assert hints.continue_line("freecell", session.rules, (start, first), off) is None


def test_known_lost_deals_say_so_at_once() -> None:
    for variant in ("freecell", "kongdang"):
        session = Session(variant, deal=11982)
        hint = hints.compute_hint(variant, session.position, deadline_seconds=0.0, known_lost=True)
        assert hint == Hint("unsolvable", source="catalogue", win_chance=0.0)


@pytest.mark.parametrize("variant", ["klondike-3", "klondike-1"])
@settings(max_examples=2, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(deal=st.integers(1, 10**9))
def test_klondike_hint_followers_never_circle(variant: str, deal: int) -> None:
    game = follow(variant, deal, local_hint(0.3), max_hints=120)
    assert game.most_seen <= 2
    for h in game.hints:
        # a sampled choice says on how many deals; the others are exact or proofs
        assert (h.samples > 0) == (h.kind == "likely") or h.kind == "heuristic"
        assert h.decided <= h.samples
        if h.kind == "likely":
            assert h.chance is not None and 0 < h.chance < 1


def test_sampled_deals_agree_with_what_the_player_sees() -> None:
    rules = rules_for("klondike-3")
    pos = rules.deal(5)
    vis, stock_known = unseen.visible_state(pos)
    assert not stock_known
    cards = unseen.unknown_cards(vis)
    assert len(cards) == 21 + 24
    # the true cards in their places give back the true deal
    true = from_position(pos)
    order = [c for pile, h in zip(true[0], true[1], strict=True) for c in pile[:h]]
    order += list(true[3][true[4] :])
    assert sorted(order) == cards
    assert unseen.deal_unknown(vis, order) == true
    # every legal move's code is the code of the action that plays it
    for move in rules.legal_moves(pos):
        code = unseen.move_code(pos, move)
        after = unseen.play_code(true, code, rules.draw)
        assert after[:4] == from_position(rules.play(pos, move))[:4] or code == unseen.STOCK_CLICK


def _fc(columns: list[str], foundations: str) -> Any:
    from jielong.engine.cards import parse_cards
    from jielong.engine.rules.freecell import FreeCellPosition

    tops = tuple(Card.parse(c) if c != "-" else None for c in foundations.split())
    cols = tuple(parse_cards(c) for c in columns) + ((),) * (8 - len(columns))
    return FreeCellPosition(cols, (None,) * 4, tops)


def test_a_heuristic_move_keeps_a_winnable_game_winnable() -> None:
    rules = rules_for("freecell")
    pos = _fc(["KS QH", "2C 9D", "5H", "5D"], "4H 3C - 4S")
    move = rules.legal_moves(pos)
    by = {str(m): m for m in move}
    # the queen can go back on her king; the nine cannot go back on the two
    assert freecell_hint.keeps_the_game(rules, pos, by["tableau:0>cell:0"])
    assert not freecell_hint.keeps_the_game(rules, pos, by["tableau:1>cell:0"])
    # the five of hearts home: the black fours may still want it (3C is home, 4C not)
    assert not freecell_hint.keeps_the_game(rules, pos, by["tableau:2>foundation:0"])
    safe = _fc(["KS QH", "2C 9D", "5H", "5D"], "4H 4C - 4S")
    assert freecell_hint.keeps_the_game(
        rules, safe, next(m for m in rules.legal_moves(safe) if str(m) == "tableau:2>foundation:0")
    )
    # a move into the free cell that cannot be taken back is the last choice
    heuristic = freecell_hint.heuristic_move(rules, pos)
    assert heuristic.move is not None and freecell_hint.keeps_the_game(rules, pos, heuristic.move)


@pytest.mark.parametrize("variant", ["freecell", "klondike-3"])
def test_no_hint_leads_to_a_position_seen_twice(variant: str) -> None:
    session = Session(variant, deal=12)
    rules = session.rules
    pos = session.position
    legal = rules.legal_moves(pos)
    afters = [rules.play(pos, m) for m in legal]
    # every move but the last leads where the game has been twice
    seen = (pos, *afters[:-1], *afters[:-1])
    hint = hints.compute_hint(variant, pos, deadline_seconds=0.5, seen=seen)
    assert hint.move is not None
    assert hints.circle_key(session.variant.family, rules.play(pos, hint.move)) == hints.circle_key(
        session.variant.family, afters[-1]
    )
    # every move does: nothing new to try, and the hint says so
    hint = hints.compute_hint(variant, pos, deadline_seconds=0.5, seen=(pos, *afters, *afters))
    assert hint == Hint("exhausted")


def test_a_klondike_hint_takes_a_second_at_most(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[float] = []
    real = families.klondike.hint

    def spy(*args: Any, max_seconds: float, **kwargs: Any) -> Hint:
        asked.append(max_seconds)
        return real(*args, max_seconds=0.05, **kwargs)

    monkeypatch.setattr(families.klondike, "hint", spy)
    pos = rules_for("klondike-3").deal(7)
    hints.compute_hint("klondike-3", pos, deadline_seconds=2.0)
    hints.compute_hint("klondike-3", pos, deadline_seconds=0.5)
    assert asked == [hints.KLONDIKE_SECONDS, 0.5] and hints.KLONDIKE_SECONDS <= 1.0
