"""A game as the player's page draws it: the position's JSON (face-down
Klondike cards counted, never named) and the state with its counters and
flags.  The server's answers and the browser's engine worker both give
exactly this shape.
"""

from __future__ import annotations

import weakref

from jielong.engine.families import family_of_position
from jielong.engine.rules.registry import Position
from jielong.session import Frame, Session


def position_json(position: Position) -> dict[str, object]:
    """The position as the page draws it (Klondike: face-down cards counted,
    the stock's cards unnamed)."""
    return family_of_position(position).position_json(position)


LONGEST_RUN = 13
"""No run is longer than a king down to an ace: the limits shown stop there
(an emptied board allows 1,280 cards by the formula)."""


_VIEWS: weakref.WeakKeyDictionary[Frame, dict[str, object]] = weakref.WeakKeyDictionary()
"""The view of each stack's top frame: the sessions a store loads from one
replayed stack share its frames, and so the view; a frame gone is gone here."""


def _view(session: Session) -> dict[str, object]:
    """What the state shows of the position alone, worked out once per undo
    frame (shared: read only)."""
    top = session.top
    view = _VIEWS.get(top)
    if view is None:
        pos = session.position
        legal = session.legal_moves()
        won = session.is_won()
        limits = session.rules.run_limits(pos)
        view = {
            "position": session.family.position_json(pos),
            "moves": [m.to_json() for m in legal],
            "limits": None
            if limits is None
            else {"to_card": min(limits[0], LONGEST_RUN), "to_empty": min(limits[1], LONGEST_RUN)},
            "recycles": session.family.recycles(pos),
            "foundation_cards": pos.foundation_count(),
            "won": won,
            "no_legal_move": not won and not legal,
            "autocomplete": session.autocomplete_available(),
            "autocollect": not won and session.autocollect_available(),
        }
        _VIEWS[top] = view
        if top.below is not None:
            # kept for the top frame only: a long game's stack in memory
            # stays small, and an undo works it out again
            _VIEWS.pop(top.below, None)
    return view


def state_json(session: Session, now: int | None = None) -> dict[str, object]:
    """The game as the HTTP contract shows it (without id and version)."""
    view = _view(session)
    return {
        "variant": session.variant.id,
        "deal": session.deal,
        "deal_id": None if session.deal is None else f"{session.variant.id}-{session.deal}",
        "daily": None if session.daily is None else session.daily.isoformat(),
        "position": view["position"],
        "moves": view["moves"],
        "limits": view["limits"],
        "counters": {
            "moves": session.moves_count,
            "recycles": view["recycles"],
            "foundation_cards": view["foundation_cards"],
            "elapsed_ms": session.elapsed(now),
            "clock_running": session.clock_running,
        },
        "flags": {
            "won": view["won"],
            "no_legal_move": view["no_legal_move"],
            "autocomplete": view["autocomplete"],
            "autocollect": view["autocollect"],
            "can_undo": session.top.below is not None,
        },
        "last": None if session.last is None else session.last.to_json(),
    }


def session_record(
    game_id: str, version: int, session: Session, winnable: bool
) -> dict[str, object]:
    """A game as the device's engine holds it and keeps it (IndexedDB): the
    deal or start, the undo stack (oldest step first), the clock and the
    first win; what the server's record route gives and the worker keeps."""
    s = session
    return {
        "id": game_id,
        "version": version,
        "variant": s.variant.id,
        "deal": s.deal,
        "start_text": s.start_text,
        "daily": None if s.daily is None else s.daily.isoformat(),
        "steps": [step.to_json() for step in s.steps],
        "elapsed_ms": s.elapsed(),
        "won_ms": s.won_ms,
        "won_moves": s.won_moves,
        "winnable": winnable,
    }
