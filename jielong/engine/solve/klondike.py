"""Klondike solver over the full deal, and the hint search over what the player knows.

Both searches run on a compact internal state rather than on
:class:`~jielong.engine.rules.klondike.KlondikePosition`, for speed; every line they
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
The searches' moves are small tuples of ints led by their kind
(``WASTE_PLAY``, ``PILE_MOVE``, ``FOUNDATION_DOWN``, ``STOCK_TURN``,
``RUN_SPLIT`` in :mod:`jielong.engine.solve.searches.klondike_state`); the
card tables there are read from :mod:`jielong.engine.cards` and
:mod:`jielong.engine.rules.core`.
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
(``twin_key`` in :mod:`~jielong.engine.solve.searches.klondike_keys`).
Within one search a class is named by the foundations, the face-down
counts, the cards at the bottom of piles with no face-down card and the
talon: what lies on which face-up card follows from those up to exchanges
between twins (see ``twin_class``), so the key holds nothing of it.
A split on its own stays in its class, so the
searches make a split only together with sending ``u`` home, as one move;
and a card that fits on two free twins goes onto one of them only, since
the two positions are twinned.  Nothing is lost: take a class with a winning line from one of its
positions, the shortest such line.  Its first move is not a split (that
would leave a position of the same class with a shorter line), so a
follower from the position the search keeps makes one move (or the split
and ``u`` home) into a class whose shortest line is shorter; by induction
the search reaches a won position.  The proof that draw-3 deal 12 is lost
shrinks from 699,134 states to 92,069.

Moves that wait for their use.  Two kinds of move only prepare later
ones: a foundation card brought back down is there to have a card laid on
it or to let the card under it on its foundation come down too, and a pile
emptied (its whole run moved away, no face-down card under it) is there to
take a king.  Take a winning line.  If a card brought down goes home
again, or moves on as the whole end of its pile, before it is used so,
drop that move or send it straight where it went (a shorter line).  Else
swap it with the move after it while that move does not use it and is not
itself a card brought down: that move does not need it (no card goes on
it, the card under it stays on the foundation, its successor cannot go
home while it is down), and the card it covered only lies free longer.  So
some shortest winning line brings each card down right before its use or
right before another card comes down (a king, say, brought down to take the
queen that must come down from under another king).  Likewise an emptying
move can wait until right before the first king goes into that pile, or be
dropped when none ever does: until then the run it moved is used the same
on either pile, and the card it went onto only lies free longer.  The
exhaustive search makes these moves only so, each as one move with the move
after it (``PAIR``): a card brought down with a card laid on it (a move
that would lay it on that card's free twin lays it there instead: the
positions are twinned) or with another card brought down, and a pile
emptied with a king moved into an empty pile (any: the order of piles does
not matter).  Where nothing can follow, the move is not made at all.  On
draw-3 deals 12, 14 and 58 the proofs shrink from 82,199 states to 50,798,
from 32,826 to 25,075 and from 189,917 to 168,812 (plain Python, the
depth-first search alone).  The win-seeker below keeps the two moves apart:
paired there, it found some wins later (deals 19 and 846 of draw 3 went
from 0.6 s to 8.5 s and from 2.3 s to undecided at 10 s).  The first
half of a pair is not keyed on its own, so a found line may come back to a
position it passed (a card sent home, then brought straight back down with
a card laid on it); the solver cuts every such stretch out of its answer.

Talon cards that wait, in draw 1.  Every talon card lies within reach of
every waste position in draw 1 (the stock may be turned over without
limit), so a talon card laid on the tableau can wait for its use too: a
card laid on it.  Take a winning line and in it the last talon card laid
on the tableau with no card laid on it right after.  Until a card goes on
it, it lies at the end of its pile, and the card under it stays covered
(nothing goes on that card, nor home, nor away without it).  If it next
moves alone, home or onto another card, drop its laying and play it
from the talon straight there (a shorter line); if it moves with the run
under it, lay it after that move instead.  Else swap it with the move
after it: that move does not touch its pile, is legal with the card still
in the talon (the talon's other cards stay within reach whatever it
holds) and leads to the same position once the card is laid; the card
under it only lies free longer, and cannot go home by the safe rule
meanwhile, as the talon card that fits on it is not home.  Repeating this,
some winning line lays every talon card on the tableau right before a
card is laid on it, so the exhaustive search makes that move only paired
with such a card (from the talon, a pile or a foundation), and not at all
where none can follow; a talon card that could go home at once by the
safe rule is not laid on the tableau.  In draw 3 which talon cards are in
reach depends on what the talon holds, so there a talon card cannot wait.
On draw-1 deals 103, 256 and 259 the proofs shrink from 48,027 states to
9,437, from 138,143 to 57,480 and from 287,393 to 73,906 (the depth-first
search alone), and of deals 1..300 it leaves 9 undecided at 300,000
states, against 19.

Two searches take turns on one budget.  A narrow best-first search (on
cards home, cards turned over and stock left; ties go to the newest state)
also leaves out foundation cards brought back down, which are rarely
needed: it finds many wins fast but proves nothing; it gets a quarter of
the first second and a tenth of all the time after it.  An exhaustive
depth-first search over every other move keeps only the keys of the states
it has seen, so a state costs less than in the best-first search; it goes
first and gets the rest, and ``unsolvable`` means it exhausted the space.
(The depth-first search also finds most wins within its first slices: on
draw-3 deals 1..300 at 10 s, letting it go first rather
than after two seconds of the win-seeker alone, together with the gate on
the relaxation below, took the p95 from 1.16 s to 0.74 s with every verdict
the same.)

Waste positions reached by draws.  A draw-3 state reaches by draws alone
every state that differs from it only in the waste position further on in
the same pass: ``p + 3``, ``p + 6``... and the talon's end (the class of
0).  Whatever wins from the later one wins from the earlier, so the
depth-first search keeps, for each twin class less its waste position, the
waste classes it has seen, and skips a state when it or one that reaches it
by draws was seen (``DRAWS_REACH``).  The proof stays exhaustive: every
successor of an expanded state is expanded, or is reached by draws from a
state that was; were some expanded state winnable, take one with the fewest
moves other than stock clicks to a win, and its successor on such a line,
or the state that reaches that successor by draws, would be a winnable
expanded state with fewer.  On draw-3 deals 12 and 14 the proof alone
shrinks from 92,069 to 82,199 states and from 36,958 to 32,826.

Hopeless positions.  Before searching, and in the depth-first search after
a move that takes a card from the talon or turns a card over, while that
proves often enough in this search (where a card was turned over, it
proves nine in ten such states lost on draw-3 deal 318, seventeen of
11,000 on deal 14; where a card left the talon, 28% on deal 14, none of
31,000 on deal 237), a relaxation looks for a card that can never go
home.  It computes the least fixpoint of these facts, each a necessary
condition for the first time the event happens in a real game, so by
induction over the moves of any line every event of that line is in the
fixpoint (the relaxation is optimistic about
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

Twins that wait for the same parents.  The relaxation lets any number of
cards lie on one parent; twins (two cards of one rank and colour) share
both their parents, and two twins in one pile can need both parents at
once.  Face-up cards of a pile always form one ordered run, which holds no
two cards of a rank, so when twins lie in one pile the lower one, ``t``, is
face down; say it lies on a card ``b``.  Every card must go home, and a card
goes home only as the last of its pile, so ``t`` must leave ``b`` some
time; the upper twin ``t'`` left its place before that (it covered ``t``).
At that moment ``t'`` is home or lies on one of the two parents, as a card
off its place always does (a queen lies only on a king of the other colour,
whether she was laid there or carried there on it), and ``t`` goes home or
onto the other parent, then the last card of its pile.  So before ``t``
leaves, ``t'`` or ``t`` can go home, or each parent lies open at some time
(the parent that ``t'`` lies on may instead hold her from the start: the
card under ``t'`` when it is face up).  Everything that happens before ``t``
leaves happens in the relaxation run with ``b`` never uncovered, and
that run is as sound as the first.  When it shows none of those, no line
wins.  Draw-3 deal 36 is such a deal: the two black nines lie in pile 7 on
the ten of clubs, the ace of clubs below keeps both from going home, the
ten of hearts is the bottom of pile 5 and cannot come free while the
nines stay, so only the ten of diamonds is left for two nines.
The same holds one step up.  When the lower twin leaves, neither twin can
have gone home (else the rule above is silent), so both parents are on the
tableau: one holds the upper twin, the other takes the lower one.  A
parent that never comes free at its place in that run (it is in the talon,
or stays covered) and does not hold the upper twin from the start has
moved, so it lies on a parent of its own, as any card off its place but a
king does.  The two parents are twins too: when neither can stay at its
place, their own two parents must each lie open some time before (or hold
one of them from the start), else no line wins.  Draw-3 deal 101 is lost
so.

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
Moves are written with :func:`jielong.engine.notation.format_move`: piles ``1``-``7``,
waste ``w``, foundation ``h``, stock ``s``.  ``s`` turns cards from the stock
(three, or what is left, in draw 3) or, on an empty stock, recycles the whole
waste; ``w3`` plays the waste top onto pile 3, ``wh`` the waste top to a
foundation, ``3h`` the last card of pile 3 to a foundation, ``37`` the run of
pile 3 that fits onto pile 7 (``37/4`` names its length), ``h3`` a
foundation's top card back onto pile 3.  A solution is the complete list of
moves from the position to the win, draws and recycles included.
"""

from __future__ import annotations

from collections.abc import Callable

from jielong.engine import native
from jielong.engine.solve.searches.klondike_hint import circle_key, heuristic_move, hint
from jielong.engine.solve.searches.klondike_replay import replay_actions
from jielong.engine.solve.searches.klondike_search import find_win, solve
from jielong.engine.solve.searches.klondike_state import (
    UNKNOWN,
    Action,
    State,
    from_position,
)
from jielong.engine.solve.searches.klondike_unseen import visible_state

__all__ = [
    "UNKNOWN",
    "Action",
    "State",
    "circle_key",
    "find_win",
    "from_position",
    "heuristic_move",
    "hint",
    "replay_actions",
    "solve",
    "visible_state",
]

PARTS = native.GROUPS["klondike"]
"""The modules of the solver, compiled together by ``scripts/build_native.py``."""

ENTRY_POINTS = {"solve": "klondike_search", "find_win": "klondike_search", "hint": "klondike_hint"}
"""Each entry point and the module that defines it."""

PLAIN: dict[str, Callable[..., object]] = {"solve": solve, "find_win": find_win, "hint": hint}
"""The entry points as plain Python, whichever ones the module exports."""


def source_sha256() -> str:
    """The SHA-256 of the solver's modules, in the order of :data:`PARTS`."""
    return native.source_sha256("klondike")


# the compiled copies' entry points (the same code, about five times faster) in
# place of the plain ones, when they were built from these very sources
native.use_compiled("klondike", ENTRY_POINTS, globals())
