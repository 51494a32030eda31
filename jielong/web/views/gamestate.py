"""A game as the HTTP API shows it: the position's JSON view, the state
with its counters and flags, and the record as the routes answer it.

The session (:mod:`jielong.session`) is the game; this module is its view.
Face-down Klondike cards are never shown, only how many there are.
"""

from __future__ import annotations

import re

from fastapi import Request

from jielong.engine.catalogue import CATALOGUE_SIZE, is_unsolvable
from jielong.play.view import state_json
from jielong.session import Session
from jielong.store import GameRecord, Store
from jielong.web.errors import ApiError
from jielong.web.state import app_state

_GAME_ID = re.compile(r"[A-Za-z0-9_-]{16,64}")


def known_winnable(request: Request, session: Session) -> bool:
    """Whether the game's deal is known to be winnable: a Klondike deal once
    dealt as winnable or a Klondike daily deal (the solver won both), or a
    FreeCell catalogue deal not proven unsolvable (the catalogue's survey
    solved all the others)."""
    deal = session.deal
    if deal is None:
        return False
    if session.family.surveyed:
        return deal <= CATALOGUE_SIZE and not is_unsolvable(session.variant.id, deal)
    if session.daily is not None:
        return True
    deals = app_state(request).winnable_deals
    return deals.known(session.variant.id, deal)


def game_state(record: GameRecord, request: Request) -> dict[str, object]:
    """A stored game as every game route answers it."""
    session = record.session
    unsolvable = session.deal is not None and is_unsolvable(session.variant.id, session.deal)
    return {
        "id": record.id,
        "version": record.version,
        **state_json(session),
        "unsolvable": unsolvable,
        "winnable": known_winnable(request, session),
    }


def stale_refusal(current: GameRecord | None, request: Request) -> ApiError:
    """The answer to an action or a hint asked of another version than the
    stored one (:class:`~jielong.store.StaleVersion`): 409 with the game as
    it is, or 404 when it is gone."""
    if current is None:
        return ApiError(404, "game_not_found")
    return ApiError(409, "stale_version", extra={"state": game_state(current, request)})


def store_of(request: Request) -> Store:
    store = app_state(request).store
    return store


def load_game(store: Store, game_id: str) -> GameRecord:
    """The game ``game_id``, or a 404 (also for a malformed id)."""
    record = store.load(game_id) if _GAME_ID.fullmatch(game_id) else None
    if record is None:
        raise ApiError(404, "game_not_found")
    return record


async def load_game_soon(store: Store, game_id: str) -> GameRecord:
    """:func:`load_game` from the event loop, on a server database."""
    record = await store.load_soon(game_id) if _GAME_ID.fullmatch(game_id) else None
    if record is None:
        raise ApiError(404, "game_not_found")
    return record
