"""Klondike solver over the full deal, and the hint search over what the player knows.

Both searches run on a compact internal state rather than on
:class:`~jielong.rules.klondike.KlondikePosition`, for speed; every line they
return is replayed through the rules (``legal_moves``/``play``) and only moves
found in ``legal_moves`` are returned, so the rules stay the only judge.

Internal state
--------------
``(piles, hidden, found, talon, p)``: the seven piles (bottom first, face-down
cards included), how many cards at the bottom of each are face down, the
foundation height of each suit (clubs, diamonds, hearts, spades), and the
stock and waste as one sequence ``talon = waste + reversed(stock)`` in the
order the cards are turned, with ``p`` cards of it on the waste.  Piles and
talon are ``bytes`` (one card a byte), so slicing, joining and the state key
are cheap.  Recycling keeps the order, so drawing and recycling only move
``p``: draw ``d`` goes from ``p`` to ``min(p + d, len)``, a recycle from
``len`` to ``0``.  The waste
tops reachable from ``p`` are therefore ``p`` itself, ``p + d·k`` and the
talon's end, and after a recycle ``d·k`` and the end again.  A search step
"draws to position q, then plays the waste top" is one macro move; it is
expanded into the exact draw and recycle moves when the line is replayed.
For draw 3 two values of ``p`` with the same reachable set are the same state
(any multiple of 3 and the talon's end); for draw 1 every ``p`` is.

Full solver
-----------
Searches over macro moves with a transposition table keyed on the canonical
state (the order of piles does not matter for solvability; twins as below),
and safe automatic foundation moves: a card goes home at once when it cannot
be needed on the tableau any more, which is when its rank is at most 2, or
both cards of the other colour one rank lower and the other card of its
colour two ranks lower are home. (The second same-colour condition keeps the
rule sound even though foundation cards may come back to the tableau.) A
card that such a rule would send home is never brought back down.

Run splits.  Moving a run off a face-up card ``u`` (a *split*) is only
ever tried when ``u`` can go home right after it; this loses no win.  The
run's bottom card can lie only on ``u`` or on ``u'``, the other card of
``u``'s rank and colour, so a split moves it from ``u`` to ``u'`` and
changes nothing but which of the twins carries it.  Call two positions
*twinned* when they differ only by exchanging, for some twin pairs both face
up on the tableau, what lies on ``u`` and on ``u'``.  Take any winning line
and follow it from a twinned position: a split of the line is skipped (the
positions stay twinned, or become equal); a card laid on a free ``u`` is
laid on whichever of ``u`` and ``u'`` is free in the follower; a move of
``u`` with its run moves ``u`` with the follower's run; other moves are the
same (turning cards over and going home included); and
when the line sends ``u`` home while the follower's ``u`` is covered, the
follower splits that run onto the free ``u'`` and sends ``u`` home.  Safe
automatic moves agree, since a twin carrying a card is never safe.  The
follower's only splits come right before their card goes home, and it wins
when the line does.  Searching for a win or for progress alike, the
splits left out are never needed; only the hint search, which wants the
shortest line, tries them all.

Twin classes.  Being twinned is symmetric, so twinned positions are won or
lost alike, and the full solver's searches keep one position of each class
(:func:`_twin_key`: for each twin pair, what lies on the one and on the
other in a fixed order).  A split on its own stays in its class, so the
searches make a split only together with sending ``u`` home, as one move;
and a card that fits on two free twins goes onto one of them only, since
the two positions are twinned.  Nothing is lost: take a class with a winning line from one of its
positions, the shortest such line.  Its first move is not a split (that
would leave a position of the same class with a shorter line), so a
follower from the position the search keeps makes one move (or the split
and ``u`` home) into a class whose shortest line is shorter; by induction
the search reaches a won position.  The proof that draw-3 deal 12 is lost
shrinks from 699,134 states to 92,069.

Two searches take turns on one budget.  A narrow best-first search (on
cards home, cards turned over and stock left; ties go to the newest state)
also leaves out foundation cards brought back down, which are rarely
needed: it finds most wins fast but proves nothing; it runs alone for the
first two seconds (at most a tenth of the budget), then gets a quarter of the
time.  An exhaustive depth-first search over every other move keeps only
the keys of the states it has seen, so a state costs less than in the
best-first search; it gets the rest, and ``unsolvable`` means it exhausted
the space.

Hopeless positions.  Before searching, and in the depth-first search after
each move that turns a card over or takes one from the talon, a relaxation
looks for a card that can never go home.  It computes the least fixpoint of
these facts, each a necessary condition for the first time the event
happens in a real game, so by induction over the moves of any line every
event of that line is in the fixpoint (the relaxation is optimistic about
everything else, order and timing included):

* a tableau card is *uncovered* at its place when it is the pile's last card
  or the card on it has *left*;
* a card *leaves* its place (as the bottom of a moved run, or home) only
  when it is face up or uncovered, and then goes onto a parent that *lies
  open* somewhere, or (a king) onto a pile that is empty or whose bottom card
  can leave, or home when it is uncovered and its predecessor is *home*;
* a card *lies open* on the tableau when it is uncovered at its place, or it
  left its place, was played from the waste or is home, and it has a parent
  that lies open (or is a king and some pile can be emptied);
* a talon card is *shown* (the waste top) only if it can be reached now by
  draws and recycles, or a card before it in the talon has been *played*
  (which moves its place in the order), or the card right after it has (which
  uncovers it); it is *played* when shown and it has somewhere to go as above;
* a card is *home* when it already is, or its predecessor is and it is shown
  or lies open.

If some card is not home in the fixpoint, no line wins: ``unsolvable``.
Pruning such states keeps the search exhaustive over every state that could
still be won.

Hint search
-----------
Face-down tableau cards are replaced by an anonymous placeholder, and so is
the stock while none of it has been turned (``recycles == 0``); the search
stops wherever it would need one of them, so unknown cards cannot influence
the answer.  A uniform-cost search (a draw or recycle costs one move like any
other) looks for the cheapest line to progress: a face-down card turned over,
a card placed on a foundation above where the foundations stood at the start
(not one shuffled down and back), or the win.  Turning unseen stock cards is
progress too, but a line to a tableau or foundation progress is preferred
when one exists.  If the whole reachable space holds no progress, the hint is
``no_progress``: a proof.  When every card is known the full solver answers,
so the hint leads to a win when one exists (``unsolvable`` when proven).

Move notation (``jielong solve klondike-3 N --json``)
-----------------------------------------------------
Moves are written with :func:`jielong.notation.format_move`: piles ``1``-``7``,
waste ``w``, foundation ``h``, stock ``s``.  ``s`` turns cards from the stock
(three, or what is left, in draw 3) or, on an empty stock, recycles the whole
waste; ``w3`` plays the waste top onto pile 3, ``wh`` the waste top to a
foundation, ``3h`` the last card of pile 3 to a foundation, ``37`` the run of
pile 3 that fits onto pile 7 (``37/4`` names its length), ``h3`` a
foundation's top card back onto pile 3.  A solution is the complete list of
moves from the position to the win, draws and recycles included.
"""

from __future__ import annotations

import functools
import hashlib
import heapq
import importlib
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from jielong.cards import Card
from jielong.rules.core import STOCK, Move, Pile
from jielong.rules.klondike import PILES, Klondike, KlondikePosition
from jielong.solve.result import Hint, HintKind, SolverBug, SolveResult

UNKNOWN: Final = 52
"""The placeholder for a card the player cannot know."""

_RANK: Final = [(c >> 2) for c in range(52)] + [99]  # rank - 1; the placeholder fits nowhere
_SUIT: Final = [c & 3 for c in range(52)] + [0]
_RED: Final = [(c & 3) in (1, 2) for c in range(52)] + [False]
# The two cards each card may be placed on in the tableau.
_PARENTS: Final[list[tuple[int, ...]]] = []
for _c in range(53):
    if _c == 52 or _RANK[_c] == 12:
        _PARENTS.append(())
    else:
        _PARENTS.append(
            tuple(t for t in range(52) if _RANK[t] == _RANK[_c] + 1 and _RED[t] != _RED[_c])
        )
# _ON[a << 6 | b]: card a may lie on card b in the tableau
_ON: Final = bytes(
    1 if a < 52 and b < 52 and b in _PARENTS[a] else 0 for a in range(64) for b in range(64)
)
_SAME_COLOUR: Final = (3, 2, 1, 0)
_BYTE: Final = [bytes((i,)) for i in range(256)]
_OTHER_COLOUR: Final = ((1, 2), (0, 3), (0, 3), (1, 2))

FOUNDATION: Final = 7
"""Destination code of a foundation in internal actions (0..6 are piles)."""

State = tuple[tuple[bytes, ...], tuple[int, ...], tuple[int, ...], bytes, int]
# Piles and talon are bytes: slicing, joining and keying them is cheap.
# Actions: (0, q, dst) waste macro; (1, i, k, dst) cards pile[i][k:] to dst;
# (2, suit, j) foundation top back to pile j; (3,) turn unseen stock cards;
# (4, i, k, dst) a run split: pile[i][k:] to dst, then pile[i][k - 1] home.
Action = tuple[int, ...]


def _safe(found: tuple[int, ...], card: int) -> bool:
    """True when ``card`` may go home at once without losing any solution."""
    rank = _RANK[card] + 1
    if rank <= 2:
        return True
    s = _SUIT[card]
    a, b = _OTHER_COLOUR[s]
    return found[a] >= rank - 1 and found[b] >= rank - 1 and found[_SAME_COLOUR[s]] >= rank - 2


def _reach(p: int, n: int, draw: int) -> Iterator[tuple[int, int]]:
    """Waste positions ``q`` reachable from ``p`` (talon length ``n``), with
    the number of stock clicks (draws and recycles) each needs."""
    if n == 0:
        return
    seen: set[int] = set()
    if p > 0:
        seen.add(p)
        yield p, 0
    clicks = 0
    q = p
    while q < n:
        q = min(q + draw, n)
        clicks += 1
        seen.add(q)
        yield q, clicks
    clicks += 1  # the recycle
    q = 0
    while q < n:
        q = min(q + draw, n)
        clicks += 1
        if q not in seen:
            seen.add(q)
            yield q, clicks


@functools.cache
def _reach_list(p: int, n: int, draw: int) -> tuple[int, ...]:
    """The positions of :func:`_reach` alone, remembered: the same few come
    up again and again."""
    return tuple(q for q, _ in _reach(p, n, draw))


def from_position(pos: KlondikePosition) -> State:
    found = [0, 0, 0, 0]
    for top in pos.foundations:
        if top is not None:
            found[top & 3] = (top >> 2) + 1
    return (
        tuple(bytes(pile) for pile in pos.tableau),
        tuple(pos.hidden),
        tuple(found),
        bytes(pos.waste) + bytes(reversed(pos.stock)),
        len(pos.waste),
    )


def _key(st: State, draw: int, exact_p: bool) -> bytes:
    piles, hidden, _found, talon, p = st
    # each pile behind its face-down count; no part holds the separator 0xff
    parts = sorted(map(bytes.__add__, map(_BYTE.__getitem__, hidden), piles))
    if not exact_p and (draw == 1 or p % 3 == 0 or p == len(talon)):
        p = 0
    parts.append(talon)
    parts.append(_BYTE[p])
    return b"\xff".join(parts)


_NOT_UP: Final = 53
"""In :func:`_twin_key`: the card is not face up on the tableau (52: it is,
with nothing on it)."""
_NONE_UP: Final = [_NOT_UP] * 52
_BOTTOM: Final = 64
"""In :func:`_twin_key`: added for the bottom card of a pile with no
face-down card."""


def _twin_key(st: State, draw: int) -> bytes:
    """The key of ``st``'s class of twinned positions (see "Twin classes"
    in the module notes): piles in any order, and for every pair of twins face
    up on the tableau, what lies on the one and on the other in either order.
    Twinned positions are won or lost alike, so the full solver's searches
    keep one of each class.

    Face-down cards never move, so within one search the face-down cards of
    pile i are always the first ``hidden[i]`` of its cards at the start: the
    key holds ``hidden``, the face-up card on each pile's face-down cards,
    what lies on each face-up card (for each twin pair, the lower card takes
    the smaller of the two), which cards lie at the bottom of a pile with no
    face-down card (in any pile: the order of piles does not matter), and
    the talon.  The foundations hold the other cards."""
    piles, hidden, _found, talon, p = st
    on = _NONE_UP[:]
    anchors = [255] * PILES
    for i in range(PILES):
        pile = piles[i]
        n = len(pile)
        if not n:
            continue
        h = hidden[i]
        below = pile[h]
        if h:
            anchors[i] = below
        for k in range(h + 1, n):
            c = pile[k]
            on[below] = c
            below = c
        on[below] = UNKNOWN
    for c in range(0, 52, 4):  # the twins of each rank: c and c + 3, c + 1 and c + 2
        if _NOT_UP != on[c] > on[c + 3]:  # both face up (the twin not: 53)
            on[c], on[c + 3] = on[c + 3], on[c]
        if _NOT_UP != on[c + 1] > on[c + 2]:
            on[c + 1], on[c + 2] = on[c + 2], on[c + 1]
    for i in range(PILES):
        pile = piles[i]
        if pile and not hidden[i]:
            on[pile[0]] += _BOTTOM
    if draw == 1 or p % 3 == 0 or p == len(talon):
        p = 0
    return bytes(hidden) + bytes(anchors) + bytes(on) + talon + _BYTE[p]


def _split_steps(act: Action) -> tuple[Action, Action]:
    """The two moves of a run split (action kind 4): the run off, then the
    card it uncovered home."""
    return (1, act[1], act[2], act[3]), (1, act[1], act[2] - 1, FOUNDATION)


def _apply(st: State, act: Action) -> State:
    piles, hidden, found, talon, p = st
    kind = act[0]
    if kind == 4:
        split, home = _split_steps(act)
        return _apply(_apply(st, split), home)
    if kind == 0:
        q, dst = act[1], act[2]
        card = talon[q - 1]
        talon = talon[: q - 1] + talon[q:]
        p = q - 1
        cards: bytes = _BYTE[card]
    elif kind == 1:
        i, k, dst = act[1], act[2], act[3]
        pile = piles[i]
        cards = pile[k:]
        rest = pile[:k]
        pl = list(piles)
        pl[i] = rest
        piles = tuple(pl)
        if hidden[i] and hidden[i] >= k:
            h = list(hidden)
            h[i] = k - 1
            hidden = tuple(h)
    else:  # foundation back to the tableau
        s, dst = act[1], act[2]
        cards = _BYTE[(found[s] - 1) * 4 + s]
        f = list(found)
        f[s] -= 1
        found = tuple(f)
    if dst == FOUNDATION:
        f = list(found)
        f[_SUIT[cards[0]]] += 1
        found = tuple(f)
    else:
        pl = list(piles)
        pl[dst] = pl[dst] + cards
        piles = tuple(pl)
    return piles, hidden, found, talon, p


def _autoplay(st: State) -> tuple[State, list[Action]]:
    """Send home every card the safe rule allows (tableau ends and the waste top)."""
    done: list[Action] = []
    changed = True
    while changed:
        changed = False
        piles, _hidden, found, talon, p = st
        if p > 0:
            c = talon[p - 1]
            if found[_SUIT[c]] == _RANK[c] and _safe(found, c):
                act: Action = (0, p, FOUNDATION)
                st = _apply(st, act)
                done.append(act)
                changed = True
                continue
        for i, pile in enumerate(piles):
            if pile:
                c = pile[-1]
                if found[_SUIT[c]] == _RANK[c] and _safe(found, c):
                    act = (1, i, len(pile) - 1, FOUNDATION)
                    st = _apply(st, act)
                    done.append(act)
                    changed = True
                    break
    return st, done


_NOWHERE: Final = [-1] * 54
"""No card is a pile's last card (54 entries: see :data:`_PARENT_PAIR`)."""
_PARENT_PAIR: Final = [(_PARENTS[c] + (53, 53))[:2] for c in range(53)]
"""The two cards each card may lie on; 53 (never a pile's last card) for
kings and the placeholder."""


def _destinations(c: int, last: list[int], empty: int, both: bool) -> tuple[int, ...]:
    """The piles card ``c`` may go onto, given which pile each card ends
    (``last``) and the first empty pile.  Unless ``both``, only the first
    pile when both twins it may lie on are free: the two moves lead to
    twinned positions."""
    if c >> 2 == 12:
        return (empty,) if empty >= 0 else ()
    a, b = _PARENT_PAIR[c]
    i = last[a]
    j = last[b]
    if i < 0:
        return (j,) if j >= 0 else ()
    if j < 0:
        return (i,)
    if i > j:
        i, j = j, i
    return (i, j) if both else (i,)


def _generate(
    st: State, draw: int, stock_known: bool, narrow: bool = False, every_split: bool = False
) -> list[Action]:
    """Every macro move, the more promising kinds first, less run splits
    that are never needed (see "Run splits" in the module notes) unless
    ``every_split``; without it, also one move of a card that fits on two
    free twins.  ``narrow`` also leaves out foundation cards brought
    back down, which are rarely needed: a search with it may miss wins, so
    it never proves anything."""
    piles, hidden, found, talon, p = st
    out: list[Action] = []
    last = _NOWHERE[:]
    empty = -1
    for j in range(PILES):
        pile = piles[j]
        if pile:
            last[pile[-1]] = j
        elif empty < 0:
            empty = j
    # the waste, after drawing to each reachable position
    shown = (p,) if p > 0 else ()
    for q in _reach_list(p, len(talon), draw) if stock_known else shown:
        c = talon[q - 1]
        if found[c & 3] == c >> 2:
            out.append((0, q, FOUNDATION))
        for j in _destinations(c, last, empty, every_split):
            out.append((0, q, j))
    # the tableau
    for i in range(PILES):
        pile = piles[i]
        n = len(pile)
        if not n:
            continue
        h = hidden[i]
        c = pile[-1]
        if found[c & 3] == c >> 2:
            out.append((1, i, n - 1, FOUNDATION))
        run = n - 1
        while run > h and _ON[pile[run] << 6 | pile[run - 1]]:
            run -= 1
        for k in range(run, n):
            c = pile[k]
            kind = 1
            if k > h and not every_split:
                u = pile[k - 1]
                if found[u & 3] != u >> 2:
                    continue  # a split whose uncovered card cannot go home
                kind = 4  # and it goes home with the split
            if k == 0 and c >> 2 == 12:
                continue  # a king alone on its pile: moving it changes nothing
            for j in _destinations(c, last, empty, every_split):
                if j != i:
                    out.append((kind, i, k, j))
    # foundation cards back down, unless the safe rule would send them home
    for s in range(0 if narrow else 4):
        r = found[s]
        if not r:
            continue
        c = (r - 1) * 4 + s
        if _safe(found, c):
            continue
        for j in _destinations(c, last, empty, every_split):
            out.append((2, s, j))
    return out


def _trivially_won(st: State) -> bool:
    """No face-down card, no stock or waste, and every pile an ordered run:
    the cards go home one by one."""
    if st[3] or any(st[1]):
        return False
    for pile in st[0]:
        for k in range(1, len(pile)):
            a, b = pile[k - 1], pile[k]
            if _RANK[b] + 1 != _RANK[a] or _RED[a] == _RED[b]:
                return False
    return True


def _finish(st: State) -> list[Action]:
    acts: list[Action] = []
    while any(st[0]):
        piles, _hidden, found, _t, _p = st
        for i, pile in enumerate(piles):
            if pile and found[_SUIT[pile[-1]]] == _RANK[pile[-1]]:
                act: Action = (1, i, len(pile) - 1, FOUNDATION)
                st = _apply(st, act)
                acts.append(act)
                break
        else:
            raise SolverBug("an ordered tableau did not go home")
    return acts


# -- replay through the rules -------------------------------------------------


def _real_moves(
    rules: Klondike, pos: KlondikePosition, st: State, act: Action
) -> tuple[list[Move], KlondikePosition]:
    """The rule moves that play internal action ``act`` from ``pos``."""
    moves: list[Move] = []
    kind = act[0]
    if kind == 3:
        legal = rules.legal_moves(pos)
        m = next((m for m in legal if m.src == STOCK), None)
        if m is None:
            raise SolverBug("no draw to turn unseen cards")
        return [m], rules.play(pos, m)
    if kind == 0:
        card = st[3][act[1] - 1]
        for _ in range(2 * len(st[3]) + 4):
            if pos.waste and pos.waste[-1] == card:
                break
            legal = rules.legal_moves(pos)
            m = next((m for m in legal if STOCK in (m.src, m.dst)), None)
            if m is None:
                raise SolverBug("stock move missing")
            moves.append(m)
            pos = rules.play(pos, m)
        else:
            raise SolverBug(f"card {Card(card).code()} never reached the waste top")
        src = Pile("waste")
        dst_code, count = act[2], 1
    elif kind == 1:
        src = Pile("tableau", act[1])
        dst_code, count = act[3], len(st[0][act[1]]) - act[2]
    else:
        top = (st[2][act[1]] - 1) * 4 + act[1]
        slot = next(i for i, t in enumerate(pos.foundations) if t is not None and t == top)
        src = Pile("foundation", slot)
        dst_code, count = act[2], 1
    legal = rules.legal_moves(pos)
    for m in legal:
        if m.src == src and m.count == count:
            if dst_code == FOUNDATION and m.dst.kind == "foundation":
                break
            if dst_code != FOUNDATION and m.dst == Pile("tableau", dst_code):
                break
    else:
        raise SolverBug(f"action {act} is not a legal move")
    moves.append(m)
    return moves, rules.play(pos, m)


def replay_actions(
    rules: Klondike, pos: KlondikePosition, st: State, acts: list[Action]
) -> tuple[list[Move], KlondikePosition]:
    """Expand internal actions into rule moves, checking each one."""
    out: list[Move] = []
    for act in acts:
        for step in _split_steps(act) if act[0] == 4 else (act,):
            moves, pos = _real_moves(rules, pos, st, step)
            out.extend(moves)
            if step[0] != 3:
                st = _apply(st, step)
    return out, pos


# -- the full solver ------------------------------------------------------------


# Card sets as 52-bit integers (bit c for card c = 4 × (rank − 1) + suit), so
# that a rule of the relaxation applies to every card at once.
_FULL: Final = (1 << 52) - 1
_BIT: Final = [1 << c for c in range(52)]
_KING_BITS: Final = 0xF << 48
_RANK_BASE: Final = sum(1 << (4 * r) for r in range(13))  # bit 4r: the clubs card of rank r + 1
_BLACK_BITS: Final = sum((1 << (4 * r)) | (1 << (4 * r + 3)) for r in range(13))
# _HOME_BITS[s][n]: the cards of suit s on a foundation holding n of them
_HOME_BITS: Final = [[sum(1 << (4 * r + s) for r in range(n)) for n in range(14)] for s in range(4)]


def _children_of(cards: int) -> int:
    """The cards (kings aside) that have a parent in ``cards``: a black card
    of rank r takes both red cards of rank r − 1, a red one both black ones."""
    black = cards & _BLACK_BITS
    black_ranks = ((black | black >> 3) & _RANK_BASE) >> 4
    red_ranks = ((cards >> 1 | cards >> 2) & _RANK_BASE) >> 4
    return black_ranks << 1 | black_ranks << 2 | red_ranks | red_ranks << 3


def _hopeless(st: State, draw: int) -> bool:
    """True when the relaxation of the module notes shows that some card can
    never reach its foundation (a proof that ``st`` cannot be won).

    Each fact is a set of cards (:func:`_children_of`); every round applies
    every rule once to all cards, until nothing changes (the least fixpoint)."""
    piles, hidden, found, talon, p = st
    home = _HOME_BITS[0][found[0]] | _HOME_BITS[1][found[1]]
    home |= _HOME_BITS[2][found[2]] | _HOME_BITS[3][found[3]]
    if home == _FULL:
        return False
    bit = _BIT
    under = [0] * 52  # the card each tableau card lies on
    bottoms = [0] * PILES  # each pile's bottom card, or 0
    pile_bits = [0] * PILES
    uncovered = face_up = 0
    for i, pile in enumerate(piles):
        if not pile:
            continue
        below = bottoms[i] = bit[pile[0]]
        cards = down = 0
        for k, c in enumerate(pile):
            b = bit[c]
            if k:
                under[c] = below
            if k < hidden[i]:
                down |= b
            cards |= b
            below = b
        pile_bits[i] = cards
        face_up |= cards & ~down
        uncovered |= below
    n = len(talon)
    after = [0] * (n + 1)  # after[t]: the talon cards from position t on
    place = [0] * 52
    for t in range(n - 1, -1, -1):
        place[talon[t]] = t
        after[t] = after[t + 1] | bit[talon[t]]
    shown = 0
    for q in _reach_list(p, n, draw):
        shown |= bit[talon[q - 1]]
    leave = top = played = 0
    while True:
        # piles that can be emptied, and where kings can go
        empties = [j for j in range(PILES) if not bottoms[j] or leave & bottoms[j]]
        if len(empties) > 1:
            king = king_off_pile = _KING_BITS
        elif empties:
            king = _KING_BITS
            king_off_pile = _KING_BITS & ~pile_bits[empties[0]]
        else:
            king = king_off_pile = 0
        after_home = (home << 4 | 0xF) & _FULL  # cards whose predecessor is home
        landing = _children_of(top)
        # tableau cards leave (face up, or uncovered), uncovering the card below
        new_leave = leave
        while True:
            more = (
                (uncovered | face_up)
                & (landing | king_off_pile | uncovered & after_home)
                & ~new_leave
            )
            if not more:
                break
            new_leave |= more
            while more:
                b = more & -more
                more ^= b
                uncovered |= under[b.bit_length() - 1]
        # talon cards are shown, then played
        new_shown = shown
        rest = played
        first = n
        while rest:
            b = rest & -rest
            rest ^= b
            t = place[b.bit_length() - 1]
            first = min(first, t)
            if t:
                new_shown |= bit[talon[t - 1]]
        if first < n:
            new_shown |= after[first + 1]
        new_played = played | new_shown & after[0] & (landing | king | after_home)
        new_top = top | uncovered | (new_leave | new_played | home) & (landing | king)
        new_home = home
        while True:
            more = (new_shown | new_top) & ~new_home & (new_home << 4 | 0xF)
            if not more:
                break
            new_home |= more
        if new_home == _FULL:
            return False
        if (new_leave, new_top, new_played, new_shown, new_home) == (
            leave,
            top,
            played,
            shown,
            home,
        ):
            return True
        leave, top, played, shown, home = new_leave, new_top, new_played, new_shown, new_home


@dataclass
class _Budget:
    max_nodes: int | None
    deadline: float | None
    nodes: int = 0
    clock: Callable[[], float] = time.perf_counter

    def spent(self) -> bool:
        if self.nodes & 63 == 0:
            # the compiled module holds the GIL for as long as it runs: a
            # solve in one thread of a server (the daily deal, the pool of
            # winnable deals) would otherwise stall every request
            time.sleep(0)
        if self.max_nodes is not None and self.nodes >= self.max_nodes:
            return True
        return self.deadline is not None and self.nodes % 256 == 0 and self.clock() > self.deadline


_SLICE: Final = 1024
"""States each search adds in one turn."""
_WARM_UP: Final = 2.0
"""Seconds the win-seeking search runs alone first (at most a tenth of the
budget, :data:`_WARM_UP_SHARE`)."""
_WARM_UP_SHARE: Final = 0.1
_SEEKER_SHARE: Final = 0.25
"""The win-seeking search's share of the time after the warm-up."""


def _score(st: State) -> int:
    """How far a state has come: cards home, cards turned over, stock used."""
    return 3 * sum(st[2]) - 4 * sum(st[1]) - len(st[3])


def _best_first(
    st: State, draw: int, budget: _Budget, narrow: bool = False
) -> Iterator[list[Action] | bool | None]:
    """Best-first search on :func:`_score` (ties: newest first), taking
    turns: it yields ``True`` after each slice of work and finally a line,
    ``None`` when its space is exhausted, or ``False`` when the budget is
    spent.  With ``narrow`` it leaves moves out, so it proves nothing."""
    st, autos = _autoplay(st)
    if _trivially_won(st):
        yield autos + _finish(st)
        return
    root = _twin_key(st, draw)
    parent: dict[bytes, tuple[bytes | None, list[Action]]] = {root: (None, autos)}
    heap: list[tuple[int, int, State, bytes]] = [(-_score(st), 0, st, root)]
    counter = 0
    while heap:
        _, _, s, k = heapq.heappop(heap)
        for act in _generate(s, draw, True, narrow):
            s2, autos = _autoplay(_apply(s, act))
            k2 = _twin_key(s2, draw)
            if k2 in parent:
                continue
            parent[k2] = (k, [act, *autos])
            if _trivially_won(s2):
                line: list[Action] = _finish(s2)
                at: bytes | None = k2
                while at is not None:
                    up, acts = parent[at]
                    line[:0] = acts
                    at = up
                yield line
                return
            budget.nodes += 1
            if budget.spent():
                yield False
                return
            if budget.nodes % _SLICE == 0:
                yield True
            counter -= 1
            heapq.heappush(heap, (-_score(s2), counter, s2, k2))
    yield None


def _depth_first(st: State, draw: int, budget: _Budget) -> Iterator[list[Action] | bool | None]:
    """Exhaustive depth-first search that keeps only the keys of the states
    it has seen (no parent map, no queue of states), taking turns like
    :func:`_best_first`; ``None`` is a proof that ``st`` cannot be won."""
    st, autos = _autoplay(st)
    if _trivially_won(st):
        yield autos + _finish(st)
        return
    seen = {_twin_key(st, draw)}
    first = _generate(st, draw, True)
    first.reverse()  # popped from the end: the more promising kinds first
    stack: list[tuple[State, list[Action]]] = [(st, first)]
    path: list[list[Action]] = [autos]  # the actions into each state on the stack
    while stack:
        s, todo = stack[-1]
        if not todo:
            stack.pop()
            path.pop()
            continue
        act = todo.pop()
        s2, autos = _autoplay(_apply(s, act))
        k2 = _twin_key(s2, draw)
        if k2 in seen:
            continue
        seen.add(k2)
        if _trivially_won(s2):
            line = [a for acts in path for a in acts]
            yield line + [act, *autos] + _finish(s2)
            return
        budget.nodes += 1
        if budget.spent():
            yield False
            return
        if budget.nodes % _SLICE == 0:
            yield True
        # the relaxation costs as much as many expansions: only where a card
        # was turned over or left the talon, where it most often fires
        if (len(s2[3]) != len(s[3]) or s2[1] != s[1]) and _hopeless(s2, draw):
            continue
        nxt = _generate(s2, draw, True)
        nxt.reverse()
        stack.append((s2, nxt))
        path.append([act, *autos])
    yield None


def _take_turns(
    st: State, draw: int, budget: _Budget, seconds: float | None
) -> list[Action] | bool | None:
    """The win-seeking narrow best-first search and the exhaustive
    depth-first one in turns: a line from either, ``None`` (a proof) from the
    depth-first one, or ``False``.  The first seconds go to the win-seeker,
    which finds most wins quickly; after that it gets its share of the time."""
    seeker: Iterator[list[Action] | bool | None] | None = _best_first(st, draw, budget, True)
    prover = _depth_first(st, draw, budget)
    warm = _WARM_UP if seconds is None else min(_WARM_UP, seconds * _WARM_UP_SHARE)
    spent = [0.0, 0.0]  # seconds used by the seeker and by the prover
    while True:
        t = budget.clock()
        if seeker is not None and (
            spent[0] < warm or spent[0] < _SEEKER_SHARE * (spent[0] + spent[1])
        ):
            got = next(seeker)
            spent[0] += budget.clock() - t
            if got is None:
                seeker = None  # its narrow space is exhausted: that proves nothing
            elif got is not True:
                return got
        else:
            got = next(prover)
            spent[1] += budget.clock() - t
            if got is not True:
                return got


def _winning_moves(
    rules: Klondike, position: KlondikePosition, st: State, line: list[Action]
) -> tuple[Move, ...]:
    """A found line as rule moves, checked to end in a won position."""
    moves, end = replay_actions(rules, position, st, line)
    if not rules.is_won(end):
        raise SolverBug("a solution does not end in a won position")
    return tuple(moves)


def solve(
    rules: Klondike,
    position: KlondikePosition,
    *,
    max_nodes: int | None = None,
    max_seconds: float | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> SolveResult:
    """Solve ``position`` with every card known (face-down ones included).
    ``clock`` measures ``max_seconds``: wall time, or ``time.process_time``
    for a budget that a busy machine does not shrink."""
    start = clock()
    deadline = None if max_seconds is None else start + max_seconds
    budget = _Budget(max_nodes, deadline, clock=clock)
    st = from_position(position)
    if rules.is_won(position):
        return SolveResult("solved", (), 0, 0.0)
    found = None if _hopeless(st, rules.draw) else _take_turns(st, rules.draw, budget, max_seconds)
    seconds = clock() - start
    if found is None:
        return SolveResult("unsolvable", (), budget.nodes, seconds)
    if found is False or found is True:
        return SolveResult("unknown", (), budget.nodes, seconds)
    moves = _winning_moves(rules, position, st, found)
    return SolveResult("solved", moves, budget.nodes, clock() - start)


def find_win(rules: Klondike, position: KlondikePosition, *, max_nodes: int) -> SolveResult:
    """A search for a win that every machine answers alike: the relaxation,
    then the win-seeking search alone on a node budget (no clock).
    ``solved`` with the moves, ``unsolvable`` only from the relaxation (a
    proof), else ``unknown``: the narrow search proves nothing."""
    start = time.perf_counter()
    if rules.is_won(position):
        return SolveResult("solved", (), 0, 0.0)
    st = from_position(position)
    if _hopeless(st, rules.draw):
        return SolveResult("unsolvable", (), 0, time.perf_counter() - start)
    budget = _Budget(max_nodes, None)
    found: list[Action] | bool | None = True
    for found in _best_first(st, rules.draw, budget, True):
        if found is not True:
            break
    if not isinstance(found, list):
        return SolveResult("unknown", (), budget.nodes, time.perf_counter() - start)
    moves = _winning_moves(rules, position, st, found)
    return SolveResult("solved", moves, budget.nodes, time.perf_counter() - start)


# -- the hint -------------------------------------------------------------------


def visible_state(position: KlondikePosition) -> tuple[State, bool]:
    """The internal state with every card the player cannot know replaced by
    :data:`UNKNOWN`, and whether the stock is known."""
    piles, hidden, found, talon, p = from_position(position)
    masked = tuple(_BYTE[UNKNOWN] * h + pile[h:] for pile, h in zip(piles, hidden, strict=True))
    stock_known = position.stock_all_seen()
    if not stock_known:
        talon = talon[:p] + _BYTE[UNKNOWN] * (len(talon) - p)
    return (masked, hidden, found, talon, p), stock_known


def _progress_search(
    st: State, draw: int, stock_known: bool, deadline: float
) -> tuple[str, list[Action]]:
    """Cheapest line to progress: ``("found", line)`` for a tableau or
    foundation progress, ``("stock", line)`` when only turning unseen stock
    cards helps, ``("none", [])`` when nothing can (a proof), or
    ``("timeout", stock_line_or_empty)``."""
    hidden0 = sum(st[1])
    found0 = st[2]
    exact_p = not stock_known
    seen = {_key(st, draw, exact_p)}
    # (cost, order, state, line, progress class: 0 none, 1 tableau/foundation, 2 stock)
    heap: list[tuple[int, int, State, tuple[Action, ...], int]] = [(0, 0, st, (), 0)]
    counter = 1
    stock_line: list[Action] | None = None
    while heap:
        if time.perf_counter() > deadline:
            return "timeout", stock_line or []
        cost, _, s, line, progress = heapq.heappop(heap)
        if progress == 1:
            return "found", list(line)
        if progress == 2:
            if stock_line is None:
                stock_line = list(line)
            continue
        if not stock_known and len(s[3]) > s[4]:
            heapq.heappush(heap, (cost + 1, counter, s, (*line, (3,)), 2))
            counter += 1
        clicks_at = dict(_reach(s[4], len(s[3]), draw)) if stock_known else {}
        for act in _generate(s, draw, stock_known, every_split=True):
            s2 = _apply(s, act)
            c2 = cost + 1 + (clicks_at.get(act[1], 0) if act[0] == 0 else 0)
            if sum(s2[1]) < hidden0 or any(a > b for a, b in zip(s2[2], found0, strict=True)):
                heapq.heappush(heap, (c2, counter, s2, (*line, act), 1))
                counter += 1
                continue
            k = _key(s2, draw, exact_p)
            if k in seen:
                continue
            seen.add(k)
            heapq.heappush(heap, (c2, counter, s2, (*line, act), 0))
            counter += 1
    if stock_line is not None:
        return "stock", stock_line
    return "none", []


def heuristic_move(rules: Klondike, position: KlondikePosition) -> Move | None:
    """A plausible move from what is visible: a foundation move, a move that
    turns a card over, a waste move, a draw, in that order."""
    legal = rules.legal_moves(position)
    if not legal:
        return None

    def score(m: Move) -> int:
        if m.dst.kind == "foundation":
            return 0
        if m.src.kind == "tableau":
            i = m.src.index
            left = len(position.tableau[i]) - m.count
            if left and left == position.hidden[i]:
                return 1
            if not left and m.dst.kind == "tableau" and position.tableau[m.dst.index]:
                return 4
            return 6
        if m.src.kind == "waste" and m.dst.kind == "tableau":
            return 2
        if STOCK in (m.src, m.dst):
            return 3
        return 7

    return min(legal, key=score)


def hint(rules: Klondike, position: KlondikePosition, *, max_seconds: float) -> Hint:
    """A hint that uses only what the player can know (see the module notes)."""
    start = time.perf_counter()
    legal = rules.legal_moves(position)
    if not legal or rules.is_won(position):
        return Hint("none")
    if position.all_revealed() and position.stock_all_seen():
        res = solve(rules, position, max_seconds=max_seconds * 0.7)
        if res.status == "solved" and res.moves:
            return Hint("solver", res.moves[0], res.moves, source="own", win_chance=1.0)
        if res.status == "unsolvable":
            return Hint("unsolvable", source="own", win_chance=0.0)
    st, stock_known = visible_state(position)
    deadline = start + max_seconds
    verdict, line = _progress_search(st, rules.draw, stock_known, deadline)
    if verdict == "none":
        return Hint("no_progress", source="own")
    if line:
        moves, _ = replay_actions(rules, position, st, line)
        if moves and moves[0] in legal:
            kind: HintKind = "heuristic" if verdict == "timeout" else "solver"
            return Hint(kind, moves[0], tuple(moves), source="own")
        raise SolverBug("hint line does not start with a legal move")
    m = heuristic_move(rules, position)
    return Hint("heuristic", m, (m,) if m else (), source="heuristic")


# -- the compiled copy ----------------------------------------------------------

PLAIN: dict[str, Callable[..., Any]] = {"solve": solve, "find_win": find_win, "hint": hint}
"""The entry points as plain Python, whichever ones the module exports."""


def _use_compiled() -> None:
    """Export the entry points of the mypyc-compiled copy of this module
    (``scripts/build_native.py``: the same code, about five times faster)
    when it was built from this very source, unless ``JIELONG_PURE_PYTHON``
    is set."""
    if os.environ.get("JIELONG_PURE_PYTHON"):
        return
    try:
        native = importlib.import_module("jielong.solve._klondike_native")
    except ImportError:
        return
    source = Path(__file__).read_bytes()
    if getattr(native, "SOURCE_SHA256", None) != hashlib.sha256(source).hexdigest():
        return  # built from another version of this file: never run stale code
    globals().update({name: getattr(native, name) for name in PLAIN})


if __name__ == "jielong.solve.klondike":  # not in the compiled copy itself
    _use_compiled()
