"""Games played on the player's device: what its engine worker needs to hold
a game (its record), and the sync of actions played there while the server
could not be reached.

The server stays the record: a sync's actions are replayed through the
server's own rules on the version the device last had from it, and are
accepted all together or not at all.  A win counts only if the replay wins
it, and once, as any win.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field

from jielong.play.actions import play_action
from jielong.play.view import session_record
from jielong.session import ActionError, now_ms
from jielong.store import GameRecord, StaleVersion
from jielong.web.errors import ApiError
from jielong.web.http.responses import JSONResponse
from jielong.web.views.gamestate import (
    game_state,
    known_winnable,
    load_game,
    stale_refusal,
    store_of,
)
from jielong.web.views.schema import GameId, Version, error_responses, game_responses

router = APIRouter(prefix="/api", tags=["games"])

MAX_SYNC_ACTIONS = 500
"""Actions one sync may carry; the device sends a longer offline game in
parts (SYNC_PART in engine/device.js), each on the version the last gave."""
MAX_OFFLINE_MS = 7 * 86_400_000
"""The most a sync may add to a game's clock: a week of play."""


class GameRecordAnswer(BaseModel):
    """A game as the device's engine holds it: the deal or start and the undo
    stack (oldest step first), with the clock and the first win."""

    id: str
    version: int
    variant: str
    deal: int | None
    start_text: str | None
    daily: str | None
    steps: list[dict[str, object]]
    elapsed_ms: int
    won_ms: int | None
    won_moves: int | None
    winnable: bool


class SyncRequest(BaseModel):
    """The actions played on the device since ``version``, the last version
    it had from the server, in order, each as the actions route takes it
    (without its version); and the clock as the device counted it."""

    model_config = ConfigDict(extra="forbid")

    version: Version
    actions: list[dict[str, object]] = Field(min_length=1, max_length=MAX_SYNC_ACTIONS)
    elapsed_ms: Annotated[int, Field(ge=0, le=2**53)] | None = None


def record_json(record: GameRecord, request: Request) -> dict[str, object]:
    winnable = known_winnable(request, record.session)
    return session_record(record.id, record.version, record.session, winnable)


@router.get(
    "/games/{game_id}/record",
    summary="A game's deal and undo stack, for the device's engine",
    response_model=GameRecordAnswer,
    responses=error_responses(404, 503),
    operation_id="game_record",
)
def game_record(game_id: GameId, request: Request) -> dict[str, object]:
    return record_json(load_game(store_of(request), game_id), request)


def _replayed(record: GameRecord, body: SyncRequest) -> GameRecord:
    """The game with every action of ``body`` played, or the refusal of the
    first that the rules refuse (then nothing is kept)."""
    session = record.session
    session.set_clock(False)
    for index, action in enumerate(body.actions):
        # a game the demo played in is the demo's, not the player's win
        record.demo = record.demo or action.get("demo") is True
        try:
            play_action(session, action)
        except ActionError as e:
            params = {**e.params, "index": index}
            details = {k: v for k, v in params.items() if k in ("reason", "index")}
            raise ApiError(422, e.code, params, details=details) from None
    if body.elapsed_ms is not None:
        # the device's clock, never less than the server's and never more than
        # a week on top of it
        gained = min(max(0, body.elapsed_ms - session.elapsed_ms), MAX_OFFLINE_MS)
        session.elapsed_ms += gained
        if session.won_ms is not None and session.won_moves is not None:
            session.won_ms = max(session.won_ms, min(body.elapsed_ms, session.elapsed_ms))
    return record


@router.post(
    "/games/{game_id}/sync",
    summary="Replay the actions a device played offline",
    responses=game_responses(200, 400, 404, 409, 413, 422, 503),
    operation_id="sync",
)
async def sync(game_id: GameId, body: SyncRequest, request: Request) -> JSONResponse:
    store = store_of(request)
    record = load_game(store, game_id)
    if record.version != body.version:
        # played elsewhere since: the device is told, as a stale tab is
        raise stale_refusal(record, request)
    record = _replayed(record, body)
    try:
        saved = await store.save_soon(record, body.version, now_ms())
    except StaleVersion as e:
        raise stale_refusal(e.current, request) from None
    return JSONResponse(game_state(saved, request))
