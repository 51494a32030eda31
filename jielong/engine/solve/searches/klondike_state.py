"""The Klondike searches' compact state and its moves (see the notes of
:mod:`jielong.engine.solve.klondike`): the internal state, its keys, the macro
moves and their generation, and safe automatic foundation moves (a line
played through the rules: :mod:`.klondike_replay`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

from jielong.engine.cards import DECK, Suit
from jielong.engine.rules.core import FITS_ON, foundation_heights
from jielong.engine.rules.klondike import PILES as RULES_PILES
from jielong.engine.rules.klondike import KlondikePosition
from jielong.engine.solve.result import SolverBug

PILES: Final = 7
"""The tableau's piles, as a literal: the compiled copy reads it as a
constant, where a name from the rules' module is looked up at each use."""
if PILES != RULES_PILES:
    raise ImportError("the solver's tableau has another number of piles than the rules'")

UNKNOWN: Final = 52
"""The placeholder for a card the player cannot know."""

# The cards' tables, read from the cards and the rules (the placeholder
# last): rank - 1 (the placeholder's fits nowhere), suit and colour.
RANK: Final = [c.rank - 1 for c in DECK] + [99]
SUIT: Final = [int(c.suit) for c in DECK] + [0]
RED: Final = [c.is_red for c in DECK] + [False]
# The two cards each card may be placed on in the tableau (none for a king).
_PARENTS: Final[list[tuple[int, ...]]] = [*FITS_ON, ()]
# _ON[a << 6 | b]: card a may lie on card b in the tableau
_ON: Final = bytes(
    1 if a < 52 and b < 52 and b in _PARENTS[a] else 0 for a in range(64) for b in range(64)
)
# For each suit: the other suit of its colour, and the two of the other colour.
_SAME_COLOUR: Final = tuple(
    next(int(t) for t in Suit if t != s and t.is_red == s.is_red) for s in Suit
)
_OTHER_COLOUR: Final = tuple(tuple(int(t) for t in Suit if t.is_red != s.is_red) for s in Suit)
BYTE: Final = [bytes((i,)) for i in range(256)]

FOUNDATION: Final = 7
"""Destination code of a foundation in internal actions (0..6 are piles)."""

State = tuple[tuple[bytes, ...], tuple[int, ...], tuple[int, ...], bytes, int]
# Piles and talon are bytes: slicing, joining and keying them is cheap.

Action = tuple[int, ...]
"""An internal action: its kind, then the kind's operands (below).  Plain
ints, so that the compiled code compares and keys them as such."""

WASTE_PLAY: Final = 0
"""``(WASTE_PLAY, q, dst)``: turn the stock until the waste holds ``q``
talon cards, then play its top card to ``dst``."""
PILE_MOVE: Final = 1
"""``(PILE_MOVE, i, k, dst)``: the cards ``pile[i][k:]`` to ``dst``."""
FOUNDATION_DOWN: Final = 2
"""``(FOUNDATION_DOWN, suit, j)``: the top card of ``suit``'s foundation back to pile ``j``."""
STOCK_TURN: Final = 3
"""``(STOCK_TURN,)``: turn over stock cards not seen yet (a hint's search)."""
RUN_SPLIT: Final = 4
"""``(RUN_SPLIT, i, k, dst)``: ``pile[i][k:]`` to ``dst``, then the card it
uncovered, ``pile[i][k - 1]``, home."""
PAIR: Final = 5
"""``(PAIR, n, *first, *then)``: action ``first`` (``n`` ints), then
action ``then``, which uses what ``first`` made: a card laid on a card
brought back down, or a king into the pile ``first`` emptied (the full
solver's searches only: see "Moves that wait for their use" in the module
notes)."""


def safe(found: tuple[int, ...], card: int) -> bool:
    """True when ``card`` may go home at once without losing any solution."""
    rank = RANK[card] + 1
    if rank <= 2:
        return True
    s = SUIT[card]
    a, b = _OTHER_COLOUR[s]
    return found[a] >= rank - 1 and found[b] >= rank - 1 and found[_SAME_COLOUR[s]] >= rank - 2


def reach(p: int, n: int, draw: int) -> Iterator[tuple[int, int]]:
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


_REACH: Final = [
    [[tuple(q for q, _ in reach(p, n, draw)) for p in range(n + 1)] for n in range(25)]
    if draw in (1, 3)
    else []
    for draw in range(4)
]
"""``_REACH[draw][n][p]``: the positions of :func:`reach`, for every talon."""


def reach_list(p: int, n: int, draw: int) -> tuple[int, ...]:
    """The positions of :func:`reach` alone, from a table: searches ask for
    the same few again and again."""
    return _REACH[draw][n][p]


def from_position(pos: KlondikePosition) -> State:
    return (
        tuple(bytes(pile) for pile in pos.tableau),
        tuple(pos.hidden),
        foundation_heights(pos.foundations),
        bytes(pos.waste) + bytes(reversed(pos.stock)),
        len(pos.waste),
    )


def split_steps(act: Action) -> tuple[Action, Action]:
    """The two moves of a run split: the run off, then the card it
    uncovered home."""
    return (PILE_MOVE, act[1], act[2], act[3]), (PILE_MOVE, act[1], act[2] - 1, FOUNDATION)


def steps(act: Action) -> list[Action]:
    """The actions of a line that play ``act``: a :data:`PAIR` is two."""
    if act[0] == PAIR:
        n = act[1]
        return [act[2 : 2 + n], act[2 + n :]]
    return [act]


def apply(st: State, act: Action) -> State:
    piles, hidden, found, talon, p = st
    kind = act[0]
    if kind == RUN_SPLIT:
        split, home = split_steps(act)
        return apply(apply(st, split), home)
    if kind == PAIR:
        n = act[1]
        return apply(apply(st, act[2 : 2 + n]), act[2 + n :])
    if kind == PILE_MOVE:
        i, k, dst = act[1], act[2], act[3]
        pile = piles[i]
        if hidden[i] and hidden[i] >= k:
            h = list(hidden)
            h[i] = k - 1
            hidden = tuple(h)
        pl = list(piles)  # both piles changed in one copy
        pl[i] = pile[:k]
        if dst == FOUNDATION:
            s = SUIT[pile[k]]
            f = list(found)
            f[s] = f[s] + 1
            found = tuple(f)
        else:
            pl[dst] = pl[dst] + pile[k:]
        return tuple(pl), hidden, found, talon, p
    if kind == WASTE_PLAY:
        q, dst = act[1], act[2]
        card = talon[q - 1]
        talon = talon[: q - 1] + talon[q:]
        p = q - 1
    else:  # FOUNDATION_DOWN
        s, dst = act[1], act[2]
        card = (found[s] - 1) * 4 + s
        f = list(found)
        f[s] = f[s] - 1
        found = tuple(f)
    if dst == FOUNDATION:
        s = SUIT[card]
        f = list(found)
        f[s] = f[s] + 1
        found = tuple(f)
    else:
        pl = list(piles)
        pl[dst] = pl[dst] + BYTE[card]
        piles = tuple(pl)
    return piles, hidden, found, talon, p


def _goes_home(found: tuple[int, ...], c: int) -> bool:
    """Card ``c`` can go home now and is safe there (:func:`safe`)."""
    return found[SUIT[c]] == RANK[c] and safe(found, c)


def autoplay(st: State) -> tuple[State, list[Action]]:
    """Send home every card the safe rule allows (tableau ends and the waste top)."""
    done: list[Action] = []
    changed = True
    while changed:
        changed = False
        piles, _hidden, found, talon, p = st
        if p > 0:
            c = talon[p - 1]
            if _goes_home(found, c):
                act: Action = (WASTE_PLAY, p, FOUNDATION)
                st = apply(st, act)
                done.append(act)
                changed = True
                continue
        for i, pile in enumerate(piles):
            if len(pile):
                c = pile[-1]
                if _goes_home(found, c):
                    act = (PILE_MOVE, i, len(pile) - 1, FOUNDATION)
                    st = apply(st, act)
                    done.append(act)
                    changed = True
                    break
    return st, done


def after(st: State, act: Action) -> tuple[State, list[Action]]:
    """``act`` played on ``st``, whose safe cards are all home, then
    :func:`autoplay`, which looks only at the cards ``act`` can have made
    safe to send home: after a move between piles, the card it uncovered;
    after a talon card laid on a pile, that card and the new waste top;
    none after a foundation card brought down (the foundations only lost
    a card, and a card brought down is never safe).  Every other move may
    have raised a foundation: all cards are looked at."""
    s2 = apply(st, act)
    kind = act[0]
    if kind == PILE_MOVE and act[3] != FOUNDATION:
        pile = s2[0][act[1]]
        if not len(pile) or not _goes_home(s2[2], pile[-1]):
            return s2, []
    elif kind == WASTE_PLAY and act[2] != FOUNDATION:
        found, p = s2[2], s2[4]
        if not _goes_home(found, s2[0][act[2]][-1]) and (
            not p or not _goes_home(found, s2[3][p - 1])
        ):
            return s2, []
    elif kind == FOUNDATION_DOWN:
        return s2, []
    return autoplay(s2)


_NOWHERE: Final = [-1] * 54
"""No card is a pile's last card (54 entries: see :data:`_PARENT_PAIR`)."""
_PARENT_PAIR: Final = [(_PARENTS[c] + (53, 53))[:2] for c in range(53)]
"""The two cards each card may lie on; 53 (never a pile's last card) for
kings and the placeholder."""
_KINGS: Final = bytes(1 if c >> 2 == 12 and c < 52 else 0 for c in range(64))
"""``_KINGS[c]``: card ``c`` is a king."""


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


def _tops(piles: tuple[bytes, ...]) -> tuple[list[int], int]:
    """Which pile each card ends (-1: none) and the first empty pile (-1: none)."""
    last = _NOWHERE[:]
    empty = -1
    for j in range(PILES):
        pile = piles[j]
        if len(pile):
            last[pile[-1]] = j
        elif empty < 0:
            empty = j
    return last, empty


def _run_start(pile: bytes, h: int) -> int:
    """Where the ordered run at the end of a pile with ``h`` face-down
    cards starts (its length less one for an empty pile: -1)."""
    run = len(pile) - 1
    while run > h and _ON[pile[run] << 6 | pile[run - 1]]:
        run -= 1
    return run


def _then(st: State, first: Action, draw: int) -> list[Action]:
    """Each :data:`PAIR` of ``first`` and an action that uses it, in the
    order :func:`generate` lists the second actions.  When ``first`` brings
    a card back down: one that lays a card on it (or on its twin: then on it
    instead, as the positions are twinned), or brings another card down.
    When ``first`` empties a pile: one that moves a king into an empty pile
    (any: the order of piles does not matter)."""
    mid = apply(st, first)
    piles, hidden, found, talon, p = mid
    last, empty = _tops(piles)
    down = first[0] == FOUNDATION_DOWN
    laid = first[0] == WASTE_PLAY
    # the cards that use what first made: those that lie on the card brought
    # down or laid from the talon (onto its pile), or kings (into the first
    # empty pile)
    dst = first[2] if down or laid else empty
    fits = _ON[piles[dst][-1] :: 64] if down or laid else _KINGS
    head = (PAIR, len(first), *first)
    out: list[Action] = []
    for q in reach_list(p, len(talon), draw):
        if fits[talon[q - 1]]:
            out.append(head + (WASTE_PLAY, q, dst))
    for i in range(PILES):
        pile = piles[i]
        n = len(pile)
        h = hidden[i]
        run = _run_start(pile, h)
        for k in range(max(run, 0), n):
            c = pile[k]
            if not fits[c]:
                continue
            kind = PILE_MOVE
            if k > h:
                u = pile[k - 1]
                if found[u & 3] != u >> 2:
                    continue  # as in generate: a split whose uncovered card cannot go home
                kind = RUN_SPLIT
            elif k == 0 and c >> 2 == 12:
                continue  # a king alone on its pile
            out.append(head + (kind, i, k, dst))
    for s in range(4):
        r = found[s]
        if not r:
            continue
        c = (r - 1) * 4 + s
        if laid:
            if fits[c] and not safe(found, c):
                out.append(head + (FOUNDATION_DOWN, s, dst))
            continue
        if safe(found, c) or not (down or c >> 2 == 12):
            continue
        for j in _destinations(c, last, empty, False):
            out.append(head + (FOUNDATION_DOWN, s, j))
    return out


def generate(
    st: State,
    draw: int,
    stock_known: bool,
    narrow: bool = False,
    every_split: bool = False,
    paired: bool = False,
) -> list[Action]:
    """Every macro move, the more promising kinds first, less run splits
    that are never needed (see "Run splits" in the module notes) unless
    ``every_split``; without it, also one move of a card that fits on two
    free twins.  ``narrow`` also leaves out foundation cards brought
    back down, which are rarely needed: a search with it may miss wins, so
    it never proves anything.  With ``paired`` a card comes back down only
    together with a card laid on it, and a pile is emptied only together
    with a king moved into it (:data:`PAIR`)."""
    piles, hidden, found, talon, p = st
    out: list[Action] = []
    last, empty = _tops(piles)
    # the waste, after drawing to each reachable position
    shown = (p,) if p > 0 else ()
    # in draw 1 every talon card stays within reach: one laid on the
    # tableau comes only together with a card laid on it
    wait = paired and draw == 1
    for q in reach_list(p, len(talon), draw) if stock_known else shown:
        c = talon[q - 1]
        if found[c & 3] == c >> 2:
            out.append((WASTE_PLAY, q, FOUNDATION))
            if wait and safe(found, c):
                continue  # laid on the tableau it would go home at once
        for j in _destinations(c, last, empty, every_split):
            if wait:
                out.extend(_then(st, (WASTE_PLAY, q, j), draw))
            else:
                out.append((WASTE_PLAY, q, j))
    # the tableau
    for i in range(PILES):
        pile = piles[i]
        n = len(pile)
        if not n:
            continue
        h = hidden[i]
        c = pile[-1]
        if found[c & 3] == c >> 2:
            out.append((PILE_MOVE, i, n - 1, FOUNDATION))
        run = _run_start(pile, h)
        for k in range(run, n):
            c = pile[k]
            kind = PILE_MOVE
            if k > h and not every_split:
                u = pile[k - 1]
                if found[u & 3] != u >> 2:
                    continue  # a split whose uncovered card cannot go home
                kind = RUN_SPLIT  # and it goes home with the split
            if k == 0 and c >> 2 == 12:
                continue  # a king alone on its pile: moving it changes nothing
            for j in _destinations(c, last, empty, every_split):
                if j == i:
                    continue
                if paired and k == 0:
                    out.extend(_then(st, (kind, i, k, j), draw))
                else:
                    out.append((kind, i, k, j))
    # foundation cards back down, unless the safe rule would send them home
    for s in range(0 if narrow else 4):
        r = found[s]
        if not r:
            continue
        c = (r - 1) * 4 + s
        if safe(found, c):
            continue
        for j in _destinations(c, last, empty, every_split):
            if paired:
                out.extend(_then(st, (FOUNDATION_DOWN, s, j), draw))
            else:
                out.append((FOUNDATION_DOWN, s, j))
    return out


def trivially_won(st: State) -> bool:
    """No face-down card, no stock or waste, and every pile an ordered run:
    the cards go home one by one."""
    if st[3] or any(st[1]):
        return False
    for pile in st[0]:
        for k in range(1, len(pile)):
            if not _ON[pile[k] << 6 | pile[k - 1]]:
                return False
    return True


def finish(st: State) -> list[Action]:
    acts: list[Action] = []
    while any(st[0]):
        piles, _hidden, found, _t, _p = st
        for i, pile in enumerate(piles):
            if len(pile) and found[SUIT[pile[-1]]] == RANK[pile[-1]]:
                act: Action = (PILE_MOVE, i, len(pile) - 1, FOUNDATION)
                st = apply(st, act)
                acts.append(act)
                break
        else:
            raise SolverBug("an ordered tableau did not go home")
    return acts
