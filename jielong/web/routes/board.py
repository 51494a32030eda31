"""A game's position as text (to copy and share) and its analysis: the
verdict of the solvers on it and the line they found."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.concurrency import run_in_threadpool

from jielong.engine.rules.compact import encode
from jielong.engine.rules.registry import rules_for
from jielong.engine.rules.variants import get_variant
from jielong.engine.solve.api import thoughtful
from jielong.engine.textboard import position_text
from jielong.play.answers import analyse
from jielong.web.errors import pool_refusals
from jielong.web.http.limits import client_address
from jielong.web.services.hintgate import ANALYSIS_COST
from jielong.web.state import app_state
from jielong.web.views.answers import AnalysisAnswer, PositionAnswer, answer
from jielong.web.views.gamestate import load_game, store_of
from jielong.web.views.schema import GameId, error_responses

router = APIRouter(prefix="/api", tags=["games"])

# Each solver's budget for one analysis: longer than a hint's, as a player
# who asks for a verdict waits for it.
ANALYSIS_SECONDS = 4.0


@router.get(
    "/games/{game_id}/position",
    summary="The current position as text and as a link",
    response_model=None,
    responses={**answer(PositionAnswer, "The position"), **error_responses(404, 503)},
    operation_id="position",
)
def position(game_id: GameId, request: Request) -> dict[str, object]:
    record = load_game(store_of(request), game_id)
    session = record.session
    pos, variant = session.position, session.variant.id
    code = encode(pos)
    return {
        "version": record.version,
        "variant": variant,
        # what POST /api/games takes back as "position", as do the command line
        # (jielong solve --position -) and Freecell Solver for FreeCell
        "text": session.rules.to_text(pos),
        "pysol": position_text(session.rules, pos, "pysol"),
        "code": code,
        "link": f"/play/{variant}?position={code}",
    }


@router.get(
    "/games/{game_id}/analysis",
    summary="The solvers' verdict on the current position",
    response_model=None,
    responses={**answer(AnalysisAnswer, "The verdict"), **error_responses(404, 429, 503)},
    operation_id="analysis",
)
async def analysis(game_id: GameId, request: Request) -> dict[str, object]:
    store = store_of(request)
    record = await run_in_threadpool(load_game, store, game_id)
    session = record.session
    pos, variant = session.position, session.variant.id
    head = {
        "version": record.version,
        "thoughtful": thoughtful(pos),
        "seconds": ANALYSIS_SECONDS,
        "computed": "server",
    }
    if rules_for(variant).is_won(pos):
        return {**head, "status": "solved", "length": 0, "moves": [], "solver": None, "solvers": []}
    pool = app_state(request).hints
    gate = app_state(request).hint_gate
    runs = 2 if get_variant(variant).family == "freecell" else 1
    # the same limits per player and address as hints, an analysis counting
    # for more; in turn with others' hints and analyses per address and player
    who = (client_address(request.scope), request.state.player)
    with pool_refusals(), gate.admit(who[1], who[0], cost=ANALYSIS_COST):
        answer = await pool.run(
            analyse,
            variant,
            pos,
            ANALYSIS_SECONDS,
            seconds=ANALYSIS_SECONDS * runs,
            who=who,
            gave_up=request.is_disconnected,
        )
    return {**head, **answer}
