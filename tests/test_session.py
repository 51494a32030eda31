"""The game session: undo steps, move counting, clock, finishing, flags."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jielong.engine.rules.core import Illegal, Move, Pile
from jielong.engine.rules.klondike import KlondikePosition
from jielong.engine.solve.hints import circle_key
from jielong.play.actions import perform
from jielong.play.view import state_json
from jielong.session import (
    LOOP_TURNS,
    MAX_UNDO_STEPS,
    ActionError,
    IllegalAction,
    Session,
    Step,
)

T = [Pile("tableau", i) for i in range(8)]
C = [Pile("cell", i) for i in range(4)]
F = [Pile("foundation", i) for i in range(4)]
STOCK, WASTE = Pile("stock"), Pile("waste")

# Every card on the foundations but the kings, which end four columns.
FREECELL_KINGS = """\
Foundations: H-Q C-Q D-Q S-Q
KH
KC
KD
KS
:
:
:
:
"""

# As above, but the spade queen and king sit in one column with the queen
# under the king: the king cannot go up by foundation moves alone.
FREECELL_BLOCKED = """\
Foundations: H-Q C-Q D-Q S-J
KH
KC
KD
QS KS
:
:
:
:
"""

# Klondike, stock and waste empty, seven black face-up cards that fit nowhere.
KLONDIKE_STUCK = """\
Stock:
Waste:
Foundations: - - - -
: | 2C
: AH AD AS AC 3H 3D | 4C
: 2H 2D 3C 3S 4H 4D | 6C
: 4S 5H 5D 5C 5S 6H 6D | 8C
: 6S 7H 7D 7C 7S 8H 8D 8S 9H 9D | TC
: 9C 9S TH TD TS JH JD JC JS QH QD | QC
: QS KH KD KC KS | 2S
"""

# Klondike with every tableau card face up and the waste recycled once.
KLONDIKE_OPEN = """\
Stock: TS 9S 8S 7S 6S 5S 4S 3S 2S
Waste:
Foundations: QC QD JH AS
Recycles: 1
: | KC
: | KD
: | KH
: | KS QH
: | QS
: | JS
: |
"""


def test_a_run_move_counts_one_and_cell_to_cell_counts_nothing() -> None:
    s = Session("freecell", deal=1)
    s.move(Move(T[0], C[0]))
    assert s.moves_count == 1
    s.move(Move(C[0], C[1]))
    assert s.moves_count == 1
    assert len(s.steps) == 2
    s.undo()
    assert s.moves_count == 1 and s.position.cells[0] is not None
    s.undo()
    assert s.moves_count == 0 and s.position == s.start


def test_run_move_is_one_step() -> None:
    s = Session("freecell", deal=617)
    rng = random.Random(5)
    for _ in range(400):
        runs = [m for m in s.legal_moves() if m.count > 1]
        if runs:
            before = s.moves_count
            s.move(runs[0])
            assert s.moves_count == before + 1
            assert s.steps[-1] == Step("move", (runs[0],))
            return
        s.move(rng.choice(s.legal_moves()))
    pytest.fail("no run move found in a random playout")


def test_illegal_move_changes_nothing_and_names_the_reason() -> None:
    s = Session("freecell", deal=1)
    before = (s.position, s.moves_count, len(s.steps))
    with pytest.raises(IllegalAction) as err:
        s.move(Move(T[0], F[0]))
    assert err.value.reason in (Illegal.FOUNDATION_WRONG_RANK, Illegal.FOUNDATION_WRONG_SUIT)
    assert (s.position, s.moves_count, len(s.steps)) == before


def test_run_too_long_carries_count_and_limit() -> None:
    # kongdang with no free cell and no empty column moves one card at a time
    text = """\
Freecells: 2C 3C 4C 5C
KS QH JS
KC
KD
KH
QS QD QC JH JD JC TS TH TD TC 9S 9H 9D 9C
8S 8H 8D 8C 7S 7H 7D 7C
6S 6H 6D 6C 5S 5H 5D
4S 4H 4D 3S 3H 3D 2S 2H 2D AS AH AD AC
"""
    s = Session("kongdang", start_text=text)
    with pytest.raises(IllegalAction) as err:
        s.move(Move(T[0], T[1], 2))
    assert err.value.reason is Illegal.RUN_TOO_LONG
    assert err.value.details == {"count": 2, "limit": 1}


def test_restart_is_an_undo_step_and_resets_the_count() -> None:
    s = Session("klondike-3", deal=3)
    s.draw()
    s.draw()
    assert s.moves_count == 2
    s.restart()
    assert s.position == s.start and s.moves_count == 0
    s.undo()
    assert s.moves_count == 2 and len(s.position.waste) == 6
    with pytest.raises(ActionError) as err:
        Session("klondike-3", deal=3).restart()
    assert err.value.code == "nothing_to_restart"


def test_undo_at_the_start_is_refused() -> None:
    with pytest.raises(ActionError) as err:
        Session("freecell", deal=5).undo()
    assert err.value.code == "nothing_to_undo"


def test_draw_recycles_an_empty_stock_and_counts() -> None:
    s = Session("klondike-1", deal=11)
    for _ in range(24):
        s.draw()
    assert len(s.position.stock) == 0 and len(s.position.waste) == 24
    s.draw()
    assert s.position.recycles == 1 and len(s.position.stock) == 24
    assert s.moves_count == 25
    assert s.last is not None and s.last.type == "recycle"
    assert state_json(s)["counters"]["recycles"] == 1


def test_draw_with_stock_and_waste_empty_is_illegal() -> None:
    s = Session("klondike-3", start_text=KLONDIKE_STUCK)
    with pytest.raises(IllegalAction) as err:
        s.draw()
    assert err.value.reason is Illegal.STOCK_AND_WASTE_EMPTY


def test_no_legal_move_flag() -> None:
    stuck = state_json(Session("klondike-3", start_text=KLONDIKE_STUCK))
    assert stuck["moves"] == [] and stuck["flags"]["no_legal_move"] is True
    assert state_json(Session("klondike-3", deal=1))["flags"]["no_legal_move"] is False


def test_draw_is_klondike_only() -> None:
    with pytest.raises(ActionError) as err:
        Session("freecell", deal=1).draw()
    assert err.value.code == "not_in_variant"


def test_freecell_autocomplete_one_card_per_step_and_undo_step() -> None:
    s = Session("freecell", start_text=FREECELL_KINGS)
    assert state_json(s)["flags"]["autocomplete"] is True
    for n in range(1, 5):
        s.autocomplete_step(now=1000 * n)
        assert s.moves_count == n and len(s.steps) == n
    assert s.is_won()
    state = state_json(s)
    assert state["flags"]["won"] and not state["flags"]["autocomplete"]
    # lowest card first: the four kings went up clubs, diamonds, hearts, spades
    assert [step.moves[0].src for step in s.steps] == [T[1], T[2], T[0], T[3]]
    s.undo()
    assert not s.is_won() and s.moves_count == 3


def test_freecell_autocomplete_needs_every_card_to_reach_the_foundations() -> None:
    s = Session("freecell", start_text=FREECELL_BLOCKED)
    assert state_json(s)["flags"]["autocomplete"] is False
    with pytest.raises(ActionError) as err:
        s.autocomplete_step()
    assert err.value.code == "autocomplete_unavailable"
    assert Session("freecell", deal=1).autocomplete_available() is False


def test_kongdang_autocollect_is_one_undo_step_counting_each_card() -> None:
    s = Session("kongdang", start_text=FREECELL_KINGS)
    assert state_json(s)["flags"]["autocollect"] is True
    assert state_json(s)["flags"]["autocomplete"] is False
    with pytest.raises(ActionError):
        s.autocomplete_step()
    s.autocollect()
    assert s.is_won() and s.moves_count == 4 and len(s.steps) == 1
    s.undo()
    assert s.moves_count == 0 and s.position == s.start


def test_autocollect_sends_only_what_can_go_up() -> None:
    s = Session("kongdang", start_text=FREECELL_BLOCKED)
    s.autocollect()
    # hearts, clubs, diamonds kings go; the spade king waits on its queen
    assert s.moves_count == 3 and not s.is_won()
    with pytest.raises(ActionError) as err:
        s.autocollect()
    assert err.value.code == "autocollect_unavailable"
    with pytest.raises(ActionError) as err:
        Session("freecell", deal=1).autocollect()
    assert err.value.code == "not_in_variant"


def test_klondike_autocomplete_draws_when_nothing_can_go_up() -> None:
    s = Session("klondike-1", start_text=KLONDIKE_OPEN)
    assert s.autocomplete_available()
    steps = 0
    while not s.is_won():
        s.autocomplete_step()
        steps += 1
        assert steps < 100
    assert s.moves_count == steps == len(s.steps)
    # hidden cards or an unseen stock: no auto-complete
    assert not Session("klondike-1", deal=1).autocomplete_available()
    unseen = KLONDIKE_OPEN.replace("Recycles: 1", "Recycles: 0")
    assert not Session("klondike-1", start_text=unseen).autocomplete_available()


def test_clock_counts_active_time_and_undo_never_rewinds_it() -> None:
    s = Session("freecell", deal=2)
    s.set_clock(True, now=1_000)
    s.move(s.legal_moves()[0], now=3_000)
    assert s.elapsed(now=3_000) == 2_000
    s.set_clock(False, now=4_000)
    assert s.elapsed(now=60_000) == 3_000 and not s.clock_running
    s.undo(now=61_000)  # acting resumes the clock
    assert s.clock_running and s.elapsed(now=62_000) == 4_000


def test_a_win_stops_the_clock_and_is_recorded_once() -> None:
    s = Session("kongdang", start_text=FREECELL_KINGS)
    s.set_clock(True, now=0)
    s.autocollect(now=5_000)
    assert not s.clock_running and s.won_ms == 5_000 and s.won_moves == 4
    s.undo(now=6_000)
    s.autocollect(now=9_000)
    assert s.won_ms == 5_000 and s.won_moves == 4


def test_klondike_flip_is_reported_and_face_down_cards_are_hidden() -> None:
    s = Session("klondike-3", deal=1)
    view = state_json(s)["position"]
    assert [p["down"] for p in view["tableau"]] == list(range(7))
    assert all(len(p["up"]) == 1 for p in view["tableau"])
    assert view["stock"] == 24 and view["waste"] == []
    rng = random.Random(2)
    for _ in range(300):
        moves = [m for m in s.legal_moves() if m.src.kind == "tableau"]
        for m in moves:
            pile = s.position.tableau[m.src.index]
            if len(pile) - m.count == s.position.hidden[m.src.index] > 0:
                s.move(m)
                assert s.last is not None and s.last.flipped is True
                return
        s.move(rng.choice(s.legal_moves()))
    pytest.fail("no flipping move found")


def test_step_json_round_trip_and_bad_steps() -> None:
    step = Step("collect", (Move(T[0], F[1]), Move(C[2], F[3])))
    assert Step.from_json(step.to_json()) == step
    assert Step.from_json(Step("restart").to_json()) == Step("restart")
    for bad in ({"kind": "teleport", "moves": []}, {"kind": "restart", "moves": [["a", "b", 1]]}):
        with pytest.raises(ValueError):
            Step.from_json(bad)


@given(st.sampled_from(["klondike-3", "klondike-1", "freecell", "kongdang"]), st.data())
def test_random_play_undo_and_replay(variant: str, data: st.DataObject) -> None:
    """Every action either changes the game or raises; undo returns exactly to
    the position and count before (a stock turn that closes a pure loop
    folds it into the step below); replaying the saved steps rebuilds it."""
    s = Session(variant, deal=data.draw(st.integers(1, 32000)))
    history = [(s.position, s.moves_count)]
    for _ in range(data.draw(st.integers(0, 30))):
        kind = data.draw(st.sampled_from(["move", "move", "move", "undo", "restart", "finish"]))
        before = (s.position, s.moves_count, len(s.steps))
        try:
            if kind == "move":
                moves = s.legal_moves()
                if not moves:
                    continue
                played = data.draw(st.sampled_from(moves))
                s.move(played)
            elif kind == "undo":
                s.undo()
                history.pop()
                assert (s.position, s.moves_count) == history[-1]
                continue
            elif kind == "restart":
                s.restart()
            else:
                perform(s, "autocollect" if variant == "kongdang" else "autocomplete_step")
        except ActionError:
            assert (s.position, s.moves_count, len(s.steps)) == before
            continue
        if len(s.steps) != before[2] + 1:
            # a stock turn that closed a pure loop: folded into the step whose
            # cards it brought back (or a loop step of its own from the start)
            assert kind == "move" and "stock" in (played.src.kind, played.dst.kind)
            assert len(s.steps) <= before[2] and s.steps[-1].loops > 0
            del history[len(s.steps) :]
        history.append((s.position, s.moves_count))
    replayed = Session(variant, deal=s.deal, steps=[Step.from_json(x.to_json()) for x in s.steps])
    assert replayed.positions == s.positions and replayed.counts == s.counts


# -- pure loops of stock turns ------------------------------------------------


def _cards(pos: KlondikePosition) -> KlondikePosition:
    """The position without its recycle count."""
    return replace(pos, recycles=0)


def _turned(a: KlondikePosition, b: KlondikePosition) -> bool:
    """Whether ``b`` is ``a`` with nothing but the stock and waste changed."""
    return replace(a, stock=(), waste=(), recycles=0) == replace(b, stock=(), waste=(), recycles=0)


def _once_and_twice(positions: list[KlondikePosition]) -> tuple[set[object], set[object]]:
    counts = Counter(circle_key("klondike", p) for p in positions)
    return set(counts), {k for k, n in counts.items() if n >= 2}


@pytest.mark.parametrize("variant", ["klondike-1", "klondike-3"])
def test_ten_thousand_draws_keep_a_short_stack_and_undo_goes_back_to_the_deal(
    variant: str,
) -> None:
    s = Session(variant, deal=7)
    for n in range(1, 10_001):
        s.draw()
        assert s.moves_count == n
        assert s.top.depth < 2 * LOOP_TURNS
    assert s.position.recycles == (400 if variant == "klondike-1" else 1111)
    assert state_json(s)["counters"]["moves"] == 10_000
    # the stack is what a reload gives again
    again = Session(variant, deal=7, steps=[Step.from_json(x.to_json()) for x in s.steps])
    assert again.positions == s.positions and again.counts == s.counts
    seen = []
    while s.top.below is not None:
        s.undo()
        seen.append(s.position)
    assert s.position == s.start and s.moves_count == 0
    assert len(set(seen)) == len(seen)


def test_a_loop_after_a_move_is_folded_into_that_move() -> None:
    """Draws that come back to the cards a move left: one undo takes back the
    move and the loop, and the answer names the move taken back."""
    s = Session("klondike-3", deal=5)
    move = Move(T[2], T[4])
    s.move(move)
    after_move = s.position
    for _ in range(9):  # 24 cards, three at a time: 8 draws and the recycle
        s.draw()
    assert _cards(s.position) == _cards(after_move) and s.position.recycles == 1
    assert s.moves_count == 10 and len(s.steps) == 1
    assert s.steps[0] == Step("move", (move,), loops=1, turns=9)
    assert s.last is not None and s.last.type == "recycle"
    s.undo()
    assert s.position == s.start and s.moves_count == 0
    assert s.last is not None and s.last.to_json() == {
        "type": "undo",
        "kind": "move",
        "moves": [move.to_json()],
    }


def test_a_loop_from_the_deal_is_a_step_of_its_own() -> None:
    s = Session("klondike-1", deal=11)
    for _ in range(25):
        s.draw()
    assert s.steps == [Step("loop", (), loops=1, turns=25)]
    assert s.steps[0].to_json() == {"kind": "loop", "moves": [], "loops": 1, "turns": 25}
    s.undo()
    assert s.position == s.start and s.moves_count == 0
    assert s.last is not None and s.last.to_json() == {"type": "undo", "kind": "loop", "moves": []}


def test_loops_after_a_restart_and_from_a_custom_start_keep_their_counts() -> None:
    s = Session("klondike-1", start_text=KLONDIKE_OPEN)  # 9 cards, recycled once
    s.draw()
    s.restart()
    for _ in range(20):  # two loops of ten turns
        s.draw()
    assert s.position == replace(s.start, recycles=3) and s.moves_count == 20
    assert s.steps[-1] == Step("restart", loops=2, turns=20)
    again = Session("klondike-1", start_text=KLONDIKE_OPEN, steps=s.steps)
    assert again.positions == s.positions and again.counts == s.counts
    s.undo()
    assert s.moves_count == 1 and len(s.position.waste) == 1


def test_steps_with_loops_round_trip_and_bad_counts_are_refused() -> None:
    for step in (Step("move", (Move(STOCK, WASTE, 3),), 2, 18), Step("loop", (), 1, 9)):
        assert Step.from_json(step.to_json()) == step
    # a step written before loops were cut reads as one without them
    assert Step.from_json({"kind": "move", "moves": [["stock", "waste", 1]]}).loops == 0
    for bad in (
        {"kind": "loop", "moves": []},
        {"kind": "loop", "moves": [["stock", "waste", 1]], "loops": 1, "turns": 1},
        {"kind": "move", "moves": [["stock", "waste", 1]], "loops": -1, "turns": 1},
        {"kind": "move", "moves": [["stock", "waste", 1]], "loops": 1, "turns": 0},
        {"kind": "move", "moves": [["stock", "waste", 1]], "loops": "1", "turns": 1},
        {"kind": "move", "moves": [["stock", "waste", 1]], "loops": True, "turns": 1},
    ):
        with pytest.raises(ValueError):
            Step.from_json(bad)


def test_a_hint_still_sees_the_loops_cut_from_the_stack() -> None:
    """What a hint is told the game has been in once and twice is what it
    was told before loops were cut: a loop played twice is not led into
    again."""
    for loops in range(1, 5):
        s = Session("klondike-3", deal=5)
        s.move(Move(T[2], T[4]))
        s.draw()
        played = s.positions
        for _ in range(9 * loops):
            s.draw()
            played.append(s.position)
        assert len(s.steps) == 2
        assert _once_and_twice(s.visited) == _once_and_twice(played)


def test_a_full_stack_refuses_to_grow_and_still_undoes() -> None:
    # a move to a free cell and back between cells, over and over
    there = Step("move", (Move(C[0], C[1]),))
    back = Step("move", (Move(C[1], C[0]),))
    steps = [Step("move", (Move(T[0], C[0]),))]
    steps += [there if i % 2 == 0 else back for i in range(MAX_UNDO_STEPS - 1)]
    s = Session("freecell", deal=1, steps=steps)
    assert s.top.depth == MAX_UNDO_STEPS
    before = (s.position, s.moves_count)
    for act in (lambda: s.move(s.legal_moves()[0]), s.restart):
        with pytest.raises(ActionError) as err:
            act()
        assert err.value.code == "history_full" and err.value.params == {"limit": MAX_UNDO_STEPS}
        assert (s.position, s.moves_count) == before
    s.undo()
    s.move(s.legal_moves()[0])
    assert s.top.depth == MAX_UNDO_STEPS
    # at the limit a stock turn that closes a loop shortens the stack (a
    # stack stored before loops were cut keeps every turn)
    k = Session("klondike-3", deal=5)
    pos, turns = k.position, []
    for _ in range(MAX_UNDO_STEPS):
        turn = next(m for m in k.rules.legal_moves(pos) if STOCK in (m.src, m.dst))
        turns.append(Step("move", (turn,)))
        pos = k.rules.play(pos, turn)
    full = Session("klondike-3", deal=5, steps=turns)
    assert full.top.depth == MAX_UNDO_STEPS
    full.draw()
    assert full.top.depth < MAX_UNDO_STEPS and full.moves_count == MAX_UNDO_STEPS + 1


_OPEN_3 = KLONDIKE_OPEN.replace("Recycles: 1", "Recycles: 0")

_ACTIONS = st.one_of(
    st.tuples(st.just("draw"), st.integers(1, 60)),
    st.tuples(st.just("move"), st.integers(0, 50)),
    st.tuples(st.just("undo"), st.integers(1, 12)),
    st.tuples(st.just("restart"), st.just(0)),
)


@given(
    st.sampled_from(["klondike-1", "klondike-3"]),
    st.one_of(st.integers(1, 32000), st.just(_OPEN_3)),
    st.lists(_ACTIONS, max_size=40),
)
def test_undo_after_loops_are_cut_restores_exactly_what_was_played(
    variant: str, start: int | str, actions: list[tuple[str, int]]
) -> None:
    """Runs of draws among moves, undos and restarts, against the game as
    played (every position kept): each action shows what it shows without
    cutting; each undo lands exactly on a position played, skipping at most
    a pure loop of stock turns that came back to the cards it leaves; the
    stack keeps no such loop, replays to itself from its JSON, and a hint
    is told the same positions once and twice."""
    s: Session[KlondikePosition] = (
        Session(variant, deal=start)
        if isinstance(start, int)
        else Session(variant, start_text=start)
    )
    played = [(s.position, s.moves_count)]  # the stack as played, nothing cut
    at = {s.top: 0}  # each frame's place in it
    for kind, n in actions:
        for _ in range(n if kind in ("draw", "undo") else 1):
            try:
                if kind == "draw":
                    s.draw()
                elif kind == "move":
                    moves = [m for m in s.legal_moves() if not Step("move", (m,)).stock_turn]
                    if not moves:
                        break
                    s.move(moves[n % len(moves)])
                elif kind == "restart":
                    s.restart()
                else:
                    undone, top = s.top.step, at[s.top]
                    s.undo()
                    back = at[s.top]
                    assert undone is not None
                    if undone.loops:
                        # the loop starts where the step left (a loop step:
                        # on the frame below) and ends on the same cards
                        first = back if undone.kind == "loop" else back + 1
                        loop = [p for p, _ in played[first : top + 1]]
                        assert _cards(loop[0]) == _cards(loop[-1])
                        assert all(map(_turned, loop, loop[1:]))
                    else:
                        assert top == back + 1
                    del played[back + 1 :]
                    assert (s.position, s.moves_count) == played[-1]
                    continue
            except ActionError:
                break
            played.append((s.position, s.moves_count))
            at[s.top] = len(played) - 1
    frames = s.top.frames()
    assert [at[f] for f in frames] == sorted(at[f] for f in frames)
    # a loop folded into a move still leaves a position of its own (two
    # restarts in a row leave the same one, as ever)
    for f in frames[1:]:
        assert f.below is not None and f.step is not None
        assert f.position != f.below.position or f.step.kind == "restart"
    # no loop left: the cards of a run of stock turns never come back
    run: list[KlondikePosition] = []
    for f in frames:
        run = [*run, f.position] if f.step is not None and f.step.stock_turn else [f.position]
        assert len({_cards(p) for p in run}) == len(run) < 2 * LOOP_TURNS
    steps = [Step.from_json(x.to_json()) for x in s.steps]
    again = Session(variant, deal=s.deal, start_text=s.start_text, steps=steps)
    assert again.positions == s.positions and again.counts == s.counts
    assert _once_and_twice(s.visited) == _once_and_twice([p for p, _ in played])
    while s.top.below is not None:
        s.undo()
        assert (s.position, s.moves_count) == played[at[s.top]]
    assert s.position == s.start and s.moves_count == 0
