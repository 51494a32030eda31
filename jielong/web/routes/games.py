"""Games: create, read, act, clock and hint."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field, StrictBool
from starlette.concurrency import run_in_threadpool

from jielong.engine.catalogue import (
    DealId,
    is_unsolvable,
    random_deal,
)
from jielong.engine.families import family_of
from jielong.engine.rules.core import InvalidMoveError, Move, Pile, PositionParseError
from jielong.engine.rules.variants import VARIANTS
from jielong.play.actions import perform
from jielong.session import MAX_RUN_STEPS, ActionError, Session, now_ms
from jielong.store import GameRecord, StaleVersion, Store
from jielong.web.errors import ApiError, check_variant, deal_number, parse_date, pool_refusals
from jielong.web.http.fastbody import JsonBodyRoute
from jielong.web.http.limits import client_address
from jielong.web.http.responses import JSONResponse
from jielong.web.http.telemetry import counted_as
from jielong.web.services.costly import costly, daily_deal_for
from jielong.web.services.hintpool import HintCancelled
from jielong.web.state import app_state
from jielong.web.views.answers import HintAnswer, answer
from jielong.web.views.gamestate import (
    game_state,
    load_game,
    load_game_soon,
    stale_refusal,
    store_of,
)
from jielong.web.views.patterns import deal_id_pattern, matches
from jielong.web.views.schema import (
    ACTION_TYPES,
    MAX_DEAL_TEXT,
    MAX_POSITION_CHARS,
    Count,
    GameId,
    GameState,
    Version,
    WholeNumber,
    error_responses,
    game_responses,
)

router = APIRouter(prefix="/api", tags=["games"])


class GameCreate(BaseModel):
    """One kind of new game: ``variant`` alone (a random deal, ``winnable``
    for one the solver has won); ``variant`` + ``deal``; ``deal_id``;
    ``variant`` + ``daily`` (+ ``date``); ``variant`` + ``position`` (a custom
    position, not counted in statistics).  A field given belongs to its kind
    and has a value (null, ``daily: false`` or a field of another kind is
    refused): the OpenAPI document states the same one-of rule."""

    model_config = ConfigDict(extra="forbid")

    variant: str | None = Field(None, max_length=64)
    deal: WholeNumber | Annotated[str, Field(max_length=MAX_DEAL_TEXT)] | None = None
    deal_id: str | None = Field(None, max_length=64)
    daily: StrictBool = False
    date: str | None = Field(None, max_length=32)
    position: str | None = Field(None, max_length=MAX_POSITION_CHARS)
    winnable: StrictBool = False


class MoveStep(BaseModel):
    model_config = ConfigDict(populate_by_name=True, extra="forbid")

    from_: str = Field(alias="from", max_length=32)
    to: str = Field(max_length=32)
    count: Count = 1


class Action(BaseModel):
    """A move with its piles (and ``steps`` for a run), or another type of
    action with nothing beside its type and version; either may say that the
    demo played it (``demo``: the game's win is then not the player's)."""

    model_config = ConfigDict(populate_by_name=True, extra="forbid")

    version: Version
    type: ACTION_TYPES
    from_: str | None = Field(None, alias="from", max_length=32)
    to: str | None = Field(None, max_length=32)
    count: Count = 1
    steps: list[MoveStep] | None = Field(None, max_length=MAX_RUN_STEPS)
    demo: StrictBool = False


class ClockReport(BaseModel):
    # a field the API does not know is refused (422), as docs/api.md says
    model_config = ConfigDict(extra="forbid")

    running: StrictBool


class HintRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    version: Version


def position_error(e: PositionParseError) -> ApiError:
    """A 422 naming what is wrong with a position's text and where: the
    message in the player's language, ``position_error`` for programs."""
    params: dict[str, object] = {"detail": str(e), "reason": e.code}
    for key, value in e.details.items():
        if isinstance(value, list):
            params[key] = " ".join(map(str, value))
        elif not isinstance(value, dict):
            params[key] = value
    if e.code == "duplicate_cards" and e.details.get("missing"):
        params["reason"] = "duplicate_cards_missing"
    return ApiError(
        422, "bad_position", params, details={"position_error": {"code": e.code, **e.details}}
    )


def _winnable_deal(request: Request, variant: str) -> int:
    if family_of(variant).surveyed:
        return random_deal(variant)
    pool = app_state(request).winnable
    if pool.ready(variant):
        number = pool.take(variant)
    else:  # none checked yet: this request checks deals itself
        with costly(request):
            number = pool.take(variant)
    # recorded before the game exists, so its first state already says so
    deals = app_state(request).winnable_deals
    deals.record(variant, number)
    return number


_KINDS = ("deal_id", "deal", "daily", "position")


def _refuse_field(name: str) -> ApiError:
    field = "from" if name == "from_" else name
    return ApiError(422, "invalid_request", {"detail": field}, details={"field": field})


def _given(body: BaseModel) -> set[str]:
    """The fields the body gives, each with a value (null is not one)."""
    given = body.model_fields_set
    for name in sorted(given):
        if getattr(body, name) is None:
            raise _refuse_field(name)
    return given


def _kind(body: GameCreate) -> str | None:
    """Which kind of new game the body asks for (``None``: a random deal), or
    the refusal of a body that mixes kinds."""
    given = _given(body)
    if "daily" in given and not body.daily:
        raise _refuse_field("daily")  # no daily deal: leave the field out
    chosen = [name for name in _KINDS if name in given]
    if "winnable" in given and chosen:
        if not body.winnable:
            raise _refuse_field("winnable")
        raise ApiError(
            422,
            "winnable_with_deal",
            {"fields": ", ".join(chosen)},
            details={"field": "winnable", "conflicts": chosen},
        )
    if len(chosen) > 1:
        raise ApiError(
            422, "invalid_request", {"detail": ", ".join(chosen)}, details={"field": chosen[-1]}
        )
    if "date" in given and chosen != ["daily"]:
        raise _refuse_field("date")
    return chosen[0] if chosen else None


def _by_deal_id(body: GameCreate) -> Session:
    text = body.deal_id or ""
    if not any(matches(deal_id_pattern(v), text) for v in VARIANTS):
        raise ApiError(422, "bad_deal_id", {"deal_id": text})
    deal_id = DealId.parse(text)
    if body.variant is not None and body.variant != deal_id.variant:
        raise ApiError(422, "bad_deal_id", {"deal_id": text})
    return Session(deal_id.variant, deal=deal_id.number)


def _from_position(variant: str, text: str) -> Session:
    try:
        session = Session(variant, start_text=text)
    except PositionParseError as e:
        raise position_error(e) from None
    except ValueError as e:
        raise ApiError(422, "bad_position", {"detail": str(e)}) from None
    if session.is_won():
        # nothing left to play, and a win that was never played
        raise ApiError(
            422,
            "bad_position",
            {"detail": "the position is already won", "reason": "won"},
            details={"position_error": {"code": "won"}},
        )
    return session


def _new_session(
    body: GameCreate, store: Store, player: str, request: Request
) -> tuple[Session, GameRecord | None]:
    """The session to create, or the player's own game of a daily deal."""
    kind = _kind(body)
    if kind == "deal_id":
        return _by_deal_id(body), None
    variant = check_variant(body.variant)
    if kind == "position":
        return _from_position(variant, body.position or ""), None
    if kind == "daily":
        date = parse_date(body.date)
        existing = store.find_daily(player, variant, date)
        if existing is not None:
            return existing.session, existing
        return Session(variant, deal=daily_deal_for(request, variant, date), daily=date), None
    if kind == "deal" and body.deal is not None:
        return Session(variant, deal=deal_number(variant, body.deal)), None
    if body.winnable:
        return Session(variant, deal=_winnable_deal(request, variant)), None
    return Session(variant, deal=random_deal(variant)), None


@router.post(
    "/games",
    status_code=201,
    summary="Start a game (or resume today's daily game)",
    responses={
        **game_responses(201, 400, 413, 422, 429, 503),
        200: {"model": GameState, "description": "The player's own game of that daily deal"},
    },
    operation_id="create_game",
)
def create_game(body: GameCreate, request: Request) -> JSONResponse:
    counted_as(request.scope, body.variant or "by-id")
    store = store_of(request)
    player: str = request.state.player
    # before the deal is chosen: a winnable or daily deal may take a solver run
    limit = app_state(request).creation_limit
    wait = limit.wait(player, client_address(request.scope))
    if wait:
        raise ApiError(
            429,
            "rate_limited",
            {"seconds": wait},
            details={"retry_after": wait},
            headers={"Retry-After": str(wait)},
        )
    session, existing = _new_session(body, store, player, request)
    if existing is not None:
        return JSONResponse(game_state(existing, request), status_code=200)
    session.set_clock(True)
    record = store.create(session, player, now_ms())
    return JSONResponse(game_state(record, request), status_code=201)


@router.get(
    "/games/{game_id}",
    summary="A game's state",
    responses=game_responses(200, 404, 503),
    operation_id="read_game",
)
def read_game(game_id: GameId, request: Request) -> JSONResponse:
    return JSONResponse(game_state(load_game(store_of(request), game_id), request))


def _acted(store: Store, game_id: str, body: Action) -> GameRecord:
    """The game with the action played on it, in memory, or its refusal."""
    return _played(load_game(store, game_id), body)


def _played(record: GameRecord, body: Action) -> GameRecord:
    if record.version != body.version:
        raise StaleVersion(record)
    move = None
    steps: list[Move] | None = None
    given = _given(body)
    if body.type == "move":
        if body.from_ is None or body.to is None:
            raise ApiError(422, "invalid_request", {"detail": "from, to"})
        try:
            move = Move(Pile.parse(body.from_), Pile.parse(body.to), body.count)
            if body.steps is not None:
                steps = [Move(Pile.parse(m.from_), Pile.parse(m.to), m.count) for m in body.steps]
        except InvalidMoveError as e:
            raise ApiError(422, "invalid_request", {"detail": str(e)}) from None
    else:
        # the other actions take nothing beside their type and version
        extra = sorted(given - {"version", "type", "demo"})
        if extra:
            raise _refuse_field(extra[0])
    try:
        perform(record.session, body.type, move, steps=steps)
    except ActionError as e:
        details = {k: v for k, v in e.params.items() if k in ("reason", "count", "limit")}
        raise ApiError(422, e.code, e.params, details=details) from None
    record.demo = record.demo or body.demo
    return record


def _answer(saved: GameRecord, game_id: str, request: Request) -> JSONResponse:
    hints = app_state(request).hints
    hints.cancel(game_id)
    return JSONResponse(game_state(saved, request))


async def act(game_id: GameId, body: Action, request: Request) -> JSONResponse:
    counted_as(request.scope, body.type)
    # On the event loop: the interpreter runs one thread at a time anyway,
    # and handing an action to a thread and back cost more than the action.
    store = store_of(request)
    try:
        if store.local:
            # SQLite: a read of a local file is shorter than a thread hop;
            # the write is committed by the store's writer thread with the
            # others queued, and the answer waits for that commit
            record = _acted(store, game_id, body)
        else:
            # a server database: its round trips awaited
            record = _played(await load_game_soon(store, game_id), body)
        saved = await store.save_soon(record, body.version, now_ms())
    except StaleVersion as e:
        raise stale_refusal(e.current, request) from None
    return _answer(saved, game_id, request)


# every move comes here: a leaner handler of the same request rules
router.add_api_route(
    "/games/{game_id}/actions",
    act,
    methods=["POST"],
    summary="Act on a game: move, draw, undo, ...",
    # a well-formed action the position does not allow is 422 with its code
    # (illegal_move, nothing_to_undo, ...) and the game is left as it was
    responses=game_responses(200, 400, 404, 409, 413, 422, 503),
    operation_id="act",
    route_class_override=JsonBodyRoute,
)
_added = router.routes[-1]
if not isinstance(_added, JsonBodyRoute):
    raise TypeError(_added)
ACTION_ROUTE: JsonBodyRoute = _added
"""Dispatched straight from the site's request layer (:mod:`jielong.web.http.site`)."""


@router.post(
    "/games/{game_id}/clock",
    summary="Pause or resume the clock (tab visibility)",
    responses=game_responses(200, 400, 404, 413, 422, 503),
    operation_id="clock",
)
def clock(game_id: GameId, body: ClockReport, request: Request) -> JSONResponse:
    store = store_of(request)
    for _ in range(5):
        record = load_game(store, game_id)
        record.session.set_clock(body.running)
        if store.save_clock(record):
            return JSONResponse(game_state(record, request))
    # the game keeps changing under us: its actions run the clock anyway
    return JSONResponse(game_state(load_game(store, game_id), request))


@router.post(
    "/games/{game_id}/hint",
    summary="A hint for the game's current version",
    response_model=None,
    responses={
        **answer(HintAnswer, "The hint"),
        **error_responses(400, 404, 409, 413, 422, 429, 503),
    },
    operation_id="hint",
)
async def hint(game_id: GameId, body: HintRequest, request: Request) -> dict[str, object]:
    store = store_of(request)
    record = await run_in_threadpool(load_game, store, game_id)
    if record.version != body.version:
        raise await run_in_threadpool(stale_refusal, record, request)
    pool = app_state(request).hints
    gate = app_state(request).hint_gate

    async def moved_on() -> bool:
        return await run_in_threadpool(store.version_of, game_id) != body.version

    try:
        session = record.session
        who = (client_address(request.scope), request.state.player)
        with pool_refusals(), gate.admit(who[1], who[0]):
            answer = await pool.hint(
                game_id,
                body.version,
                session.variant.id,
                session.position,
                moved_on,
                seen=tuple(session.visited),
                known_lost=session.deal is not None
                and is_unsolvable(session.variant.id, session.deal),
                gave_up=request.is_disconnected,
                who=who,
            )
    except HintCancelled:
        current = await run_in_threadpool(load_game, store, game_id)
        raise await run_in_threadpool(stale_refusal, current, request) from None
    return {"version": body.version, **answer, "computed": "server"}
