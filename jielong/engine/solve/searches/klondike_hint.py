"""The Klondike hint over what the player knows (see "Hint search" in the
notes of :mod:`jielong.engine.solve.klondike`): a solver's line, or its proof of
loss, when every card is known (or all but one, which the rest give away),
else the stock turned while it holds cards never seen and turning it through
loses nothing (:func:`first_pass_turn`), else the move that wins the most
deals of the unseen cards
(:mod:`jielong.engine.solve.searches.klondike_sample`; in a game that has
:func:`stalled`, the first move of the shortest line to a card turned over
when it keeps the won deals won), else the shortest line to progress."""

from __future__ import annotations

import heapq
import itertools
import time
from collections.abc import Callable, Iterable
from dataclasses import replace

from jielong.engine.rules.core import Move, foundation_heights
from jielong.engine.rules.klondike import Klondike, KlondikePosition
from jielong.engine.solve.result import CarriedDeal, Hint, SolverBug
from jielong.engine.solve.searches.klondike_keys import state_key
from jielong.engine.solve.searches.klondike_relax import hopeless
from jielong.engine.solve.searches.klondike_replay import replay_actions
from jielong.engine.solve.searches.klondike_sample import (
    NODES,
    WON,
    Weighing,
    carry_after,
    priority,
    ranked,
    verdict,
    weigh,
    weighed,
)
from jielong.engine.solve.searches.klondike_search import Budget, solve, take_turns
from jielong.engine.solve.searches.klondike_state import (
    STOCK_TURN,
    WASTE_PLAY,
    Action,
    State,
    apply,
    generate,
    reach,
)
from jielong.engine.solve.searches.klondike_unseen import (
    deal_unknown,
    first_code,
    move_code,
    play_code,
    unknown_cards,
    visible_state,
)

SOLVE_SHARE = 0.7
"""Part of the time the full solver gets when every card is known."""
SAMPLE_SHARE = 0.85
"""Part of the time the sampling may take at most."""
OTHERS = 3
"""Alternatives a sampled hint names beside its move, at most."""
STALL_POSITIONS = 300
"""Positions with as many cards face down as now that the game may have
been in before the hint stops choosing by deals won alone (see
:func:`stalled`): the sampled deals may be won by many lines, and a hint
that follows another one each time can go on for ever without turning a
card over. In 1,900 games followed by hints (draw 1 and draw 3), the
longest such stretch of a game that was won took 208 hints."""


def circle_key(position: KlondikePosition) -> KlondikePosition:
    """The position without its recycle count past the first, and with its
    foundations in suit order: a recycle that plays nothing brings the same
    cards back, a card taken down and sent home again may land on another
    foundation, and a hint follower who comes back to either goes round in a
    circle."""
    tops = {int(top.suit): top for top in position.foundations if top is not None}
    suits = tuple(tops.get(s) for s in range(len(position.foundations)))
    if position.recycles > 1 or suits != position.foundations:
        return replace(position, recycles=min(position.recycles, 1), foundations=suits)
    return position


def foundation_record(positions: Iterable[KlondikePosition]) -> tuple[int, ...]:
    """Per suit, the most cards any of ``positions`` had home."""
    heights = [foundation_heights(p.foundations) for p in positions]
    return tuple(map(max, zip(*heights, strict=True))) if heights else ()


def _progress_search(
    st: State,
    draw: int,
    stock_known: bool,
    deadline: float,
    clock: Callable[[], float] = time.process_time,
    record: tuple[int, ...] = (),
) -> tuple[str, list[Action]]:
    """Cheapest line to progress: ``("found", line)`` for a card turned over
    or a foundation higher than it is and than ``record`` (the most each suit
    had home in the game: a card taken down and sent home again gains
    nothing), ``("stock", line)`` when only turning unseen stock cards helps,
    ``("none", [])`` when nothing can (a proof: a win needs one of them), or
    ``("timeout", stock_line_or_empty)``."""
    hidden0 = sum(st[1])
    found0 = tuple(map(max, zip(st[2], record, strict=True))) if record else st[2]
    exact_p = not stock_known
    seen = {state_key(st, draw, exact_p)}
    # (cost, order, state, line, progress class: 0 none, 1 tableau/foundation, 2 stock)
    heap: list[tuple[int, int, State, tuple[Action, ...], int]] = [(0, 0, st, (), 0)]
    counter = 1
    stock_line: list[Action] | None = None
    while heap:
        if clock() > deadline:
            return "timeout", stock_line or []
        cost, _, s, line, progress = heapq.heappop(heap)
        if progress == 1:
            return "found", list(line)
        if progress == 2:
            if stock_line is None:
                stock_line = list(line)
            continue
        if not stock_known and len(s[3]) > s[4]:
            heapq.heappush(heap, (cost + 1, counter, s, (*line, (STOCK_TURN,)), 2))
            counter += 1
        clicks_at = dict(reach(s[4], len(s[3]), draw)) if stock_known else {}
        for act in generate(s, draw, stock_known, every_split=True):
            s2 = apply(s, act)
            c2 = cost + 1 + (clicks_at.get(act[1], 0) if act[0] == WASTE_PLAY else 0)
            if (
                sum(s2[1]) < hidden0
                or any(a > b for a, b in zip(s2[2], found0, strict=True))
                or sum(s2[2]) == 52
            ):
                heapq.heappush(heap, (c2, counter, s2, (*line, act), 1))
                counter += 1
                continue
            k = state_key(s2, draw, exact_p)
            if k in seen:
                continue
            seen.add(k)
            heapq.heappush(heap, (c2, counter, s2, (*line, act), 0))
            counter += 1
    if stock_line is not None:
        return "stock", stock_line
    return "none", []


PASS_SAMPLES = 20
"""Deals sampled for the chance to win while the stock is first turned
through (the move needs none)."""

PROOF_CARDS = 4
"""With this many cards unseen at most, a position whose deals all lose is
checked for a proof over every way the unseen cards can lie (24 at most)."""
PROOF_NODES = 50_000
"""The exhaustive search's budget for each of those deals."""


def lost_every_way(
    vis: State,
    draw: int,
    deadline: float | None = None,
    clock: Callable[[], float] = time.process_time,
) -> bool:
    """Whether every deal of the unseen cards of ``vis`` is proven lost (by
    the relaxation, or by the exhaustive search within
    :data:`PROOF_NODES` and ``deadline``), when there are few enough of them
    to try every one (:data:`PROOF_CARDS`): then the game is lost, whatever
    the cards are."""
    cards = unknown_cards(vis)
    if len(cards) > PROOF_CARDS:
        return False
    for arrangement in itertools.permutations(cards):
        st = deal_unknown(vis, list(arrangement))
        if hopeless(st, draw):
            continue
        budget = Budget(PROOF_NODES, deadline, clock=clock, share_gil=False)
        if take_turns(st, draw, budget) is not None:
            return False  # a win, or no proof within the budget
    return True


def heuristic_move(
    rules: Klondike, position: KlondikePosition, among: list[Move] | None = None
) -> Move | None:
    """A plausible move from what is visible (of ``among``, by default every
    legal move), in the order of
    :func:`~jielong.engine.solve.searches.klondike_sample.priority`."""
    legal = rules.legal_moves(position) if among is None else among
    if not legal:
        return None
    return min(legal, key=lambda m: priority(position, m))


def first_pass_turn(
    draw: int, vis: State, stock_known: bool, candidates: list[Move]
) -> Move | None:
    """The stock turn, while the stock holds cards never seen and turning it
    to its end and over again brings this very position back (in draw 3, no
    waste card played since the stock was last turned over): then the unseen
    cards come to light at no cost, and every later choice knows them."""
    if stock_known or vis[4] % draw:
        return None
    return next((m for m in candidates if m.src.kind == "stock"), None)


def _turns_to_the_end(rules: Klondike, position: KlondikePosition) -> tuple[Move, ...]:
    """The stock turns that bring its last card to the waste."""
    line: list[Move] = []
    while position.stock:
        turn = next(m for m in rules.legal_moves(position) if m.src.kind == "stock")
        line.append(turn)
        position = rules.play(position, turn)
    return tuple(line)


def hint(
    rules: Klondike,
    position: KlondikePosition,
    *,
    max_seconds: float,
    avoid: frozenset[KlondikePosition] = frozenset(),
    never: frozenset[KlondikePosition] = frozenset(),
    clock: Callable[[], float] = time.process_time,
    carried: tuple[CarriedDeal, ...] = (),
) -> Hint:
    """A hint that uses only what the player can know (see the module notes);
    its move leads to no position of ``avoid`` (:func:`circle_key`\\ s of the
    positions the game has been in) unless every move does or only such
    moves win a sampled deal, and none of ``never`` (those it has been in
    twice) at all.  ``clock``
    measures ``max_seconds``: by default this process's CPU time, so that a
    busy server weighs as many deals as an idle one (``time.perf_counter``
    for wall time).  ``carried``: the previous
    hint's deals after its move (:attr:`Hint.carry`)."""
    start = clock()
    legal = rules.legal_moves(position)
    if not legal or rules.is_won(position):
        return Hint("none")
    every = legal
    keys = {m: circle_key(rules.play(position, m)) for m in every}
    legal = [m for m in every if keys[m] not in never]
    if not legal:
        return Hint("exhausted")
    vis, stock_known = visible_state(position)
    # with one card unseen at most, the player knows every card: the one
    # not seen anywhere is the one not shown
    known = len(unknown_cards(vis)) <= 1
    if known:
        res = solve(rules, position, max_seconds=max_seconds * SOLVE_SHARE, clock=clock)
        if res.status == "solved" and res.moves and res.moves[0] in legal:
            return Hint("solver", res.moves[0], res.moves, source="own", win_chance=1.0)
        if res.status == "unsolvable":
            return Hint("unsolvable", source="own", win_chance=0.0)
    fresh = [m for m in legal if keys[m] not in avoid]
    # in the order that settles ties between moves that win as many deals
    candidates = sorted(fresh or legal, key=lambda m: priority(position, m))
    sampling_ends = start + max_seconds * SAMPLE_SHARE
    turn = first_pass_turn(rules.draw, vis, stock_known, candidates)
    if turn is not None:
        # turning the stock to its end and over again brings this very
        # position back: seeing the unseen stock first costs nothing and
        # every later choice is made knowing it
        return _first_pass_hint(rules, position, turn, sampling_ends, clock, carried)
    weighing = None
    if not known:
        weighing = weigh(
            rules, position, candidates, deadline=sampling_ends, clock=clock, carried=carried
        )
        sampled = _sampled_hint(weighing, candidates, rules.draw)
        if sampled is None and fresh and len(fresh) < len(legal) and weighing.won_any():
            weighing, candidates, sampled = _through_seen(
                rules, position, legal, start + max_seconds, clock, carried
            )
        if sampled is not None and stalled(position, avoid):
            on = (foundation_record(avoid), start + max_seconds, clock)
            way_on = _onwards(rules, position, (vis, stock_known), (weighing, candidates), *on)
            sampled = way_on or sampled
        if sampled is not None:
            return sampled
    found, line = _progress_search(
        vis, rules.draw, stock_known, start + max_seconds, clock, foundation_record(avoid)
    )
    if found == "none":
        return Hint("no_progress", source="own", win_chance=0.0)
    if lost_every_way(vis, rules.draw, start + max_seconds, clock):
        return Hint("unsolvable", source="own", win_chance=0.0)
    return _heuristic_hint(rules, position, vis, line, every, candidates, weighing)


def _through_seen(
    rules: Klondike,
    position: KlondikePosition,
    legal: list[Move],
    deadline: float,
    clock: Callable[[], float],
    carried: tuple[CarriedDeal, ...],
) -> tuple[Weighing, list[Move], Hint | None]:
    """Deals were won, but only by lines through positions the game has been
    in once: keeping to new ones would leave every won line (a follower
    then wandered for ever where the only way on takes foundation cards
    down and back), so every ``legal`` move is weighed."""
    candidates = sorted(legal, key=lambda m: priority(position, m))
    weighing = weigh(rules, position, candidates, deadline=deadline, clock=clock, carried=carried)
    return weighing, candidates, _sampled_hint(weighing, candidates, rules.draw)


def stalled(position: KlondikePosition, avoid: frozenset[KlondikePosition]) -> bool:
    """Whether the game has been in :data:`STALL_POSITIONS` positions with
    as many cards face down as ``position`` (``avoid``: the positions it
    has been in)."""
    down = sum(position.hidden)
    return sum(1 for seen in avoid if sum(seen.hidden) == down) >= STALL_POSITIONS


def _onwards(
    rules: Klondike,
    position: KlondikePosition,
    visible: tuple[State, bool],
    weighed_moves: tuple[Weighing, list[Move]],
    record: tuple[int, ...],
    deadline: float,
    clock: Callable[[], float],
) -> Hint | None:
    """For a game that has :func:`stalled`: the first move of the shortest
    line to a card turned over (or a foundation higher than ``record``),
    when that move keeps the sampled deals won (:func:`_keeps_won_deals`);
    else ``None``."""
    (vis, stock_known), (weighing, candidates) = visible, weighed_moves
    found, line = _progress_search(vis, rules.draw, stock_known, deadline, clock, record)
    if found != "found" or not line:
        return None
    moves, _ = replay_actions(rules, position, vis, line)
    if not moves:
        return None
    # the weighing's codes make an ace sent to any foundation one choice
    code = move_code(position, moves[0])
    same = [i for i, c in enumerate(weighing.codes) if c == code]
    chosen = max(same, key=lambda i: weighing.wins[i], default=-1)
    if chosen < 0 or not _keeps_won_deals(weighing, chosen, rules.draw, deadline, clock):
        return None
    move = candidates[chosen]
    samples = len(weighing.roots)
    return Hint(
        "likely",
        move,
        tuple(moves) if move == moves[0] else (move,),
        "onwards",
        win_chance=weighing.won_share() if samples else None,
        samples=samples,
        decided=weighing.decided(),
        carry=carry_after(weighing, chosen, rules.draw),
    )


KEEP_SHARE = 0.9
"""The share of the won sampled deals a stalled game's way on must keep won."""


def _keeps_won_deals(
    weighing: Weighing, chosen: int, draw: int, deadline: float, clock: Callable[[], float]
) -> bool:
    """Whether candidate ``chosen`` keeps won at least :data:`KEEP_SHARE` of
    the sampled deals that were won, each solved after it (as far as
    ``deadline`` allows; the answers go to ``weighing`` for the deals handed
    on). A move that can be taken back counts, for the weighing, only the
    deals whose lines start with it; the way on of a game that stalled is
    such a move as often as not (a card taken down to be built on), and is
    judged by what it keeps instead."""
    code = weighing.codes[chosen]
    kept = dropped = 0
    for k, root in enumerate(weighing.roots):
        if root != WON:
            continue
        st, line = weighing.deals[k], weighing.lines[k]
        if first_code(st, line) == code:
            kept += 1
            continue
        if k not in weighing.after[chosen]:
            if clock() > deadline:
                continue
            status, rest, spent = verdict(play_code(st, code, draw), draw, NODES)
            weighing.after[chosen][k] = status, rest
            weighing.nodes += spent
            weighing.solves += 1
        if weighing.after[chosen][k][0] == WON:
            kept += 1
        else:
            dropped += 1
    return kept > 0 and kept >= KEEP_SHARE * (kept + dropped)


def _first_pass_hint(
    rules: Klondike,
    position: KlondikePosition,
    turn: Move,
    deadline: float,
    clock: Callable[[], float],
    carried: tuple[CarriedDeal, ...],
) -> Hint:
    """The stock turned while it holds cards never seen
    (:func:`first_pass_turn`), with the chance to win from
    :data:`PASS_SAMPLES` deals."""
    weighing = weigh(
        rules,
        position,
        [turn],
        deadline=deadline,
        samples=PASS_SAMPLES,
        clock=clock,
        carried=carried,
    )
    samples = len(weighing.roots)
    return Hint(
        "likely",
        turn,
        _turns_to_the_end(rules, position),
        "first_pass",
        win_chance=weighing.won_share() if samples else None,
        samples=samples,
        decided=weighing.decided(),
        carry=carry_after(weighing, 0, rules.draw),
    )


def _sampled_hint(weighing: Weighing, candidates: list[Move], draw: int) -> Hint | None:
    """The candidate that won the most deals, and the next best beside it;
    ``None`` when none won any."""
    order = ranked(weighing)
    if not order:
        return None
    best = order[0]
    move = candidates[best]
    samples = len(weighing.roots)
    return Hint(
        "likely",
        move,
        (move,),
        "sampling",
        win_chance=weighing.won_share() if samples else None,
        samples=samples,
        decided=weighing.decided(),
        others=tuple((candidates[i], *weighed(weighing, i)) for i in order[1 : OTHERS + 1]),
        carry=carry_after(weighing, best, draw),
    )


def _heuristic_hint(
    rules: Klondike,
    position: KlondikePosition,
    vis: State,
    line: list[Action],
    every: list[Move],
    candidates: list[Move],
    weighing: Weighing | None,
) -> Hint:
    """The first move of the shortest ``line`` to progress when it is a
    candidate, else the most natural candidate, with the chance to win the
    sampled deals gave (none when there were none)."""
    samples = decided = 0
    chance = None
    if weighing is not None:
        samples = len(weighing.roots)
        decided = weighing.decided()
        chance = weighing.won_share() if samples else None
    if line:
        moves, _ = replay_actions(rules, position, vis, line)
        if not moves or moves[0] not in every:
            raise SolverBug("hint line does not start with a legal move")
        if moves[0] in candidates:
            return Hint(
                "heuristic",
                moves[0],
                tuple(moves),
                "own",
                win_chance=chance,
                samples=samples,
                decided=decided,
            )
    m = heuristic_move(rules, position, candidates)
    return Hint(
        "heuristic",
        m,
        (m,) if m else (),
        "heuristic",
        win_chance=chance,
        samples=samples,
        decided=decided,
    )
