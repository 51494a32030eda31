"""The Klondike hint that weighs the unseen cards: hindsight optimisation.

The cards the player cannot know (face-down tableau cards, and the stock
until it has all been turned once) are dealt at random, consistently with
everything visible, many times (the deals, and the moves as codes that mean
the same on each: :mod:`jielong.engine.solve.searches.klondike_unseen`).
Each such deal is solved with every card known (the relaxation's proof of
loss, then on a small node budget the narrow win-seeking search for one
slice of states and the exhaustive one after it).  A legal move scores the
deals it wins: one that the solver's line starts with wins its deal; a
deal lost by proof is lost by every move; a move that can be taken back at once
(:func:`~jielong.engine.solve.searches.klondike_unseen.reversible`) counts
only the deals whose lines start with it, unless it is the plan (below), as
it learns nothing and only puts the choice off; for the other moves, the
deal is solved again after the move, but only while that move could still
overtake the leader (branch and bound), so most deals are solved once.  The
best move is played, and of moves that score alike a card turned over, then
the first move of the plan, one deal's line, which the next hint carries on
(so the hints keep to one plan instead of wandering between lines that all
win), then the one most lines start with; the share of deals won is the
estimated chance to win (:meth:`Weighing.won_share`).  A new plan
(:func:`_new_plan`) is the line whose start, up to the next card turned
over, wins the most deals when it is played as it stands on each: the player
must play one such sequence on every way the unseen cards may lie.

Everything depends only on what the player can see: the unknown cards are
taken in a fixed order before shuffling, and the random stream is seeded
from the visible position, so a hint is reproducible and permuting the unseen
cards changes nothing.  Work is counted in nodes, not seconds; the clock only
cuts a search short on a machine far slower than expected.

A hint hands its deals on to the next one (:func:`carry_after`): each deal
after the hinted move, with its verdict and, when won, the rest of its line.
When the player plays that move, the deals that still agree with everything
visible (all of them unless a card came to light) are the next hint's first
deals, and a deal whose line goes on, or whose search ran out of budget,
costs no search.  Keeping every agreeing deal, whatever its verdict, keeps
the sample uniform; the next hint's plan is the last one's while the plan's
deal agrees with what is seen, and a new one chosen by segment when it does
not.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from jielong.engine.rules.core import Move
from jielong.engine.rules.klondike import Klondike, KlondikePosition
from jielong.engine.solve.result import CarriedDeal
from jielong.engine.solve.searches.klondike_relax import hopeless
from jielong.engine.solve.searches.klondike_search import Budget, best_first, depth_first
from jielong.engine.solve.searches.klondike_state import Action, State, apply
from jielong.engine.solve.searches.klondike_unseen import (
    deal_unknown,
    first_code,
    line_after,
    masked,
    move_code,
    pack_line,
    play_code,
    reversible,
    seed_of,
    unknown_cards,
    unpack_line,
    visible_state,
)

SAMPLES = 40
"""Deals of the unseen cards at most."""
FIRST_SAMPLES = 10
"""Deals always solved before the sequential stop may end the sampling."""
NODES = 3_000
"""The node budget of each solve."""
EMPTIED = 2
"""What the narrow win-seeker's score adds for each empty pile in a sampled
deal (two thirds of a card home).  Of the deals ``bench/klondike_samples.py``
samples, it leaves 116 undecided against 123 without it on draw-3 deals
1001..1060, 95 against 99 on 5001..5060, 119 against 120 on 3001..3060 and
213 against 219 on draw-1 deals 1001..1060; 1, 4 or 6 did no better, nor
other weights of cards home, face down or in the talon.  The full solver's
win-seeker goes without: with it, two wins it finds within 10 s (draw-3
deals 19 and 846) were not found in time."""

WON = 1
LOST = 0  # a proof: the relaxation, or the exhaustive search
OPEN = -1  # the budget ran out
UNSOLVED = -2  # a carried deal not yet solved from its position

PLAN_MARGIN = 10
"""The plan is played unless another move wins more than one in this many
of the won deals more: a search that runs out of budget after a move counts
that deal lost for it, which would otherwise switch plans on noise.  Of the
margins measured on draw 3 (none, a fifteenth, a seventh, a tenth, a quarter
and a half; docs/performance.md), a tenth wins the most games."""


def priority(position: KlondikePosition, move: Move) -> int:
    """How natural a move looks, lower first: a card home, a card turned
    over, a waste card played, a stock click, a king to an empty pile, other
    tableau moves, a foundation card back down.  Among moves that win as
    many deals, the first in this order is hinted (a solver's line may start
    with any move that keeps the win, such as a card shuffled between piles)."""
    if move.dst.kind == "foundation":
        return 0
    if move.src.kind == "tableau":
        i = move.src.index
        left = len(position.tableau[i]) - move.count
        if left and left == position.hidden[i]:
            return 1
        if not left and move.dst.kind == "tableau" and position.tableau[move.dst.index]:
            return 4
        return 6
    if move.src.kind == "waste" and move.dst.kind == "tableau":
        return 2
    if "stock" in (move.src.kind, move.dst.kind):
        return 3
    return 7


def verdict(st: State, draw: int, nodes: int) -> tuple[int, list[Action], int]:
    """A deal with every card known: (``WON`` and the line, or ``LOST`` or
    ``OPEN`` and no line, nodes spent).  The narrow win-seeking search gets
    the first slice of states, then the exhaustive one goes on alone.  The
    narrow search wins most deals within a slice; the exhaustive one wins
    many it misses (a card brought back down from a foundation) and proves
    small spaces lost.  Of the deals ``bench/klondike_samples.py`` samples
    along draw-3 deals 1001..1060, this leaves 10.3% undecided at 3,000
    nodes (12.3% with the two taking turns a slice each to the end, 10.9%
    with the narrow search's score blind to empty piles; draw 1: 10.2%,
    11.0%, 10.4%)."""
    if hopeless(st, draw):
        return LOST, [], 0
    budget = Budget(nodes, None, share_gil=False)
    found = next(best_first(st, draw, budget, True, EMPTIED))
    if found is True or found is None:
        # a slice spent, or the narrow space exhausted (which proves
        # nothing): the exhaustive search goes on to a verdict
        for found in depth_first(st, draw, budget):
            if found is not True:
                break
    if isinstance(found, list):
        return WON, found, budget.nodes
    if found is None:
        return LOST, [], budget.nodes
    return OPEN, [], budget.nodes


@dataclass
class Weighing:
    """What the sampling found: per candidate move, deals won and deals still
    to solve after it;
    the deals, their root verdicts and lines, and per candidate the verdicts
    and lines of the deals solved after it."""

    wins: list[int]
    todo: list[list[int]]
    roots: list[int]
    votes: list[int] = field(default_factory=list)
    """Per candidate, the won deals whose line starts with it."""
    natural: list[int] = field(default_factory=list)
    """Per candidate, 1 for a move that turns a card over."""
    plan: int = -1
    """The candidate the plan deal's line starts with (-1: none)."""
    plan_deal: int = -1
    """The deal whose line is the plan (see :func:`weigh`), handed on first
    by :func:`carry_after` (-1: none)."""
    margin: int = 0
    """The deals the plan may win fewer than another move and still be
    played (see :func:`_rank`)."""
    codes: list[tuple[int, ...]] = field(default_factory=list)
    deals: list[State] = field(default_factory=list)
    lines: list[list[Action]] = field(default_factory=list)
    after: list[dict[int, tuple[int, list[Action]]]] = field(default_factory=list)
    nodes: int = 0
    solves: int = 0
    open_solves: int = 0
    carried: int = 0
    """Deals taken from the previous hint."""

    def decided(self) -> int:
        """The deals won or proven lost within their budget."""
        return sum(1 for r in self.roots if r != OPEN)

    def won_any(self) -> bool:
        """Whether any deal weighed was won with every card known."""
        return WON in self.roots

    def won_share(self) -> float:
        """The chance to win estimated from the deals: the share won, pulled
        half a deal towards even (Jeffreys' estimate), so that only a proof
        says 0 or 1; forty deals all won say 99%, ten all lost 5%."""
        won = sum(1 for r in self.roots if r == WON)
        return (won + 0.5) / (len(self.roots) + 1)


def weigh(
    rules: Klondike,
    position: KlondikePosition,
    candidates: list[Move],
    *,
    deadline: float,
    samples: int = SAMPLES,
    nodes: int = NODES,
    clock: Callable[[], float] = time.process_time,
    carried: Sequence[CarriedDeal] = (),
) -> Weighing:
    """Deal the unseen cards ``samples`` times at most and score each of
    ``candidates`` by the deals it wins (see the module notes), until
    ``clock()`` passes ``deadline``.  The ``carried`` deals that agree with
    the position come first (see :func:`carry_after`)."""
    draw = rules.draw
    vis, stock_known = visible_state(position)
    rng = random.Random(seed_of(vis, draw))
    cards = unknown_cards(vis)
    codes = [move_code(position, m) for m in candidates]
    index = {c: i for i, c in enumerate(codes)}
    w = Weighing([0] * len(codes), [[] for _ in codes], [], [0] * len(codes), codes=codes)
    w.after = [{} for _ in codes]
    w.natural = [1 if priority(position, m) == 1 else 0 for m in candidates]
    given = [c for c in carried if masked(c[0], stock_known) == vis][:samples]
    w.carried = len(given)
    # the plan deal is handed on first: its line goes on only while that
    # deal agrees with what is visible (compared by value, not identity: the
    # compiled copy may box a deal's tuple anew)
    keep_plan = bool(given) and masked(carried[0][0], stock_known) == vis
    deals = w.deals
    starts: list[tuple[int, int]] = []  # (won deal, the candidate its line starts with)
    for k in range(samples):
        if clock() > deadline:
            break
        if k >= FIRST_SAMPLES and _settled(w, samples - k):
            break
        if k < len(given):
            st, status, kept = given[k]
            line = unpack_line(kept)
        else:
            shuffled = cards[:]
            rng.shuffle(shuffled)
            st, status, line = deal_unknown(vis, shuffled), UNSOLVED, []
        deals.append(st)
        if status == UNSOLVED:
            status, line, spent = verdict(st, draw, nodes)
            w.nodes += spent
            w.solves += 1
            w.open_solves += status == OPEN
        w.roots.append(status)
        w.lines.append(line)
        if status != WON:
            continue  # lost by proof, or out of budget: counted lost for every move
        first = first_code(st, line)
        at = index.get(first) if first is not None else None
        if at is not None:
            starts.append((k, at))
        if k == 0 and keep_plan and at is not None:
            # the first deal handed on: the plan's deal while it agrees
            # with what is visible, and its line goes on
            w.plan = at
            w.plan_deal = 0
        for i in range(len(codes)):
            if i == at:
                w.wins[i] += 1
                w.votes[i] += 1
            else:
                w.todo[i].append(k)
    if w.plan < 0:
        _new_plan(w, starts, draw, nodes, stock_known, deadline, clock)
    w.margin = sum(1 for r in w.roots if r == WON) // PLAN_MARGIN
    _take_back(w, vis)
    _branch_and_bound(w, draw, nodes, deadline, clock)
    return w


def _take_back(w: Weighing, vis: State) -> None:
    """A move that can be taken back at once wins every deal the deal's own
    line wins (that move, its reverse, then the line), but learns nothing:
    the same choice comes back after it.  Such a move counts the deals
    whose lines start with it, and all of them only when it is the plan;
    else a follower would put the choice off for ever."""
    for i, code in enumerate(w.codes):
        if w.todo[i] and reversible(vis, code):
            if i == w.plan:
                w.wins[i] += len(w.todo[i])
            w.todo[i] = []


def _branch_and_bound(
    w: Weighing, draw: int, nodes: int, deadline: float, clock: Callable[[], float]
) -> None:
    """Deals solved after a move, only while that move could still lead
    (ties as :func:`_rank` orders them), until ``clock()`` passes
    ``deadline``."""
    codes, deals = w.codes, w.deals
    while clock() <= deadline:
        lead = max(range(len(codes)), key=lambda i: _rank(w, i, w.wins[i]))
        top = _rank(w, lead, w.wins[lead])
        rivals = [
            i
            for i in range(len(codes))
            if w.todo[i] and _rank(w, i, w.wins[i] + len(w.todo[i])) > top
        ]
        if not rivals:
            break
        best = max(rivals, key=lambda i: _rank(w, i, w.wins[i] + len(w.todo[i])))
        k = w.todo[best].pop()
        child = play_code(deals[k], codes[best], draw)
        status, line, spent = verdict(child, draw, nodes)
        w.after[best][k] = status, line
        w.nodes += spent
        w.solves += 1
        w.open_solves += status == OPEN
        if status == WON:
            w.wins[best] += 1


SEGMENT_HORIZON = 10
"""Actions of a line at most in the segment a new plan commits to."""
SEGMENTS = 3
"""Segments weighed for a new plan, the commonest first."""


def _segment(st: State, line: list[Action]) -> tuple[Action, ...]:
    """The start of ``line`` that the player can play alike however the
    unseen cards lie: its actions up to and with the first that turns a
    card over, :data:`SEGMENT_HORIZON` at most."""
    acts: list[Action] = []
    for act in line[:SEGMENT_HORIZON]:
        acts.append(act)
        after = apply(st, act)
        if after[1] != st[1]:
            break
        st = after
    return tuple(acts)


def _new_plan(
    w: Weighing,
    starts: list[tuple[int, int]],
    draw: int,
    nodes: int,
    stock_known: bool,
    deadline: float,
    clock: Callable[[], float],
) -> None:
    """A plan when the last plan's deal, handed on first, no longer agrees
    with what is visible (a card came to light that it does not hold), or
    is not won by a line that starts with a candidate, or when nothing was
    handed on (``starts``: the won deals whose lines start with a
    candidate, each with that candidate): of the :data:`SEGMENTS`
    commonest segments (:func:`_segment`) of their lines, the one that wins the most
    deals when it is played as it stands on every won deal (a line that
    starts with it wins its deal; any other is solved after it, while the
    segment could still lead), and the first won deal whose line starts with
    it.  Until a card comes to light the player can only play one sequence
    of moves on every way the unseen cards may lie; a solver that sees them
    would pick a different one for each, and winning many deals that way is
    worth less than one sequence that wins them.  With the stock not yet
    known, or one deal won, the first won deal's line.  Once ``clock()``
    passes ``deadline``, the best segment weighed in full so far is taken
    (none: the commonest)."""
    if not starts:
        return
    w.plan_deal, w.plan = starts[0]
    if not stock_known or len(starts) == 1:
        return
    segs: dict[tuple[Action, ...], list[tuple[int, int]]] = {}
    for start in starts:
        k = start[0]
        segs.setdefault(_segment(w.deals[k], w.lines[k]), []).append(start)
    ranked = sorted(segs, key=lambda g: -len(segs[g]))[:SEGMENTS]
    best_seg = ranked[0]
    best = -1
    won = sum(1 for r in w.roots if r == WON)
    late = False
    for seg in ranked:
        n = len(seg)
        wins = 0
        left = won  # won deals still to count: only they can add a win
        for j in range(len(w.roots)):
            if w.roots[j] != WON:
                continue
            left -= 1
            line = w.lines[j]
            if len(line) >= n and tuple(line[:n]) == seg:
                wins += 1
            elif clock() > deadline:
                late = True
                break
            else:
                st = w.deals[j]
                for act in seg:
                    st = apply(st, act)
                status, _line, spent = verdict(st, draw, nodes)
                w.nodes += spent
                w.solves += 1
                wins += status == WON
            if wins + left <= best:
                break
        if late:
            break
        if wins > best:
            best, best_seg = wins, seg
    w.plan_deal, w.plan = segs[best_seg][0]


def carry_after(w: Weighing, chosen: int, draw: int) -> tuple[CarriedDeal, ...]:
    """Every deal of ``w`` after candidate ``chosen``, for the next hint: its
    verdict when known (``WON`` with the rest of a line, ``LOST`` by proof,
    ``OPEN`` when its search ran out of budget, as it would again one move
    on), else :data:`UNSOLVED`."""
    code = w.codes[chosen]
    out: list[CarriedDeal] = []
    order = list(range(len(w.deals)))
    if w.plan_deal > 0:
        order.remove(w.plan_deal)
        order.insert(0, w.plan_deal)  # the next hint finds the plan deal first
    for k in order:
        st = w.deals[k]
        child = play_code(st, code, draw)
        root, line = w.roots[k], w.lines[k]
        if root == LOST:
            out.append((child, LOST, b""))
        elif root == WON and line and first_code(st, line) == code:
            out.append((child, WON, pack_line(line_after(st, line))))
        else:
            status, rest = w.after[chosen].get(k, (OPEN if root == OPEN else UNSOLVED, []))
            if status == OPEN and root == WON:
                status = UNSOLVED  # won before the move: worth a new search
            out.append((child, status, pack_line(rest)))
    return tuple(out)


def _settled(w: Weighing, left: int) -> bool:
    """The sequential stop: every deal so far is lost, or every one is won
    by the same first move with no other move having won any (further deals
    would have to reverse a unanimous verdict)."""
    if all(r != WON for r in w.roots):
        return True
    won = sum(1 for r in w.roots if r == WON)
    return max(w.wins) == won == len(w.roots) and left > 0


def best_move(w: Weighing) -> int | None:
    """The candidate that won the most deals, or ``None`` when none won any.
    On a tie (see :func:`_rank`), a card turned over, then the move the
    plan deal's line starts with, then the move more of the lines start
    with: with every card known, most moves that lose nothing win as many
    deals, and keeping to one deal's line, which the next hint carries on,
    plays towards a win instead of wandering between lines."""
    order = ranked(w)
    return order[0] if order else None


def ranked(w: Weighing) -> list[int]:
    """The candidates that won a deal at least, best first (as
    :func:`best_move` picks): the hint's move, then its alternatives."""
    won = [i for i in range(len(w.wins)) if w.wins[i] > 0]
    return sorted(won, key=lambda i: _rank(w, i, w.wins[i]), reverse=True)


def weighed(w: Weighing, i: int) -> tuple[int, int]:
    """Deals won after candidate ``i``, and deals solved after it (the
    branch and bound leaves a move that cannot lead unsolved on the rest)."""
    return w.wins[i], len(w.roots) - len(w.todo[i])


def _rank(w: Weighing, i: int, wins: int) -> tuple[int, int, int, int, int]:
    """How candidate ``i`` ranks with ``wins`` deals won: the plan (the
    plan deal's first move) counts :attr:`Weighing.margin` deals more;
    then a card turned over (what a player who cannot see the cards gains
    by, and a solver who sees them does not value), then the plan, then the
    lines that start with it, then the earlier candidate."""
    plan = i == w.plan
    return wins + w.margin * plan, w.natural[i], plan, w.votes[i], -i
