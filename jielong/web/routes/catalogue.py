"""Variants, the deal catalogue, daily deals and the player's statistics."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Request
from starlette.concurrency import run_in_threadpool

from jielong.engine.catalogue import CATALOGUE_SIZE, deal_limit, is_unsolvable
from jielong.engine.rules.variants import VARIANTS
from jielong.web.errors import parse_date, variant_or_error
from jielong.web.services.costly import daily_deal_for
from jielong.web.state import app_state
from jielong.web.views.answers import DailyAnswer, DealsAnswer, StatsAnswer, VariantsAnswer, answer
from jielong.web.views.schema import VARIANT_IDS, error_responses
from jielong.web.views.statsview import player_stats

MAX_DEAL = max(deal_limit(v) for v in VARIANTS)

router = APIRouter(prefix="/api", tags=["catalogue"])

RUN_LIMIT_FORMULAS = {"freecell": "(f + 1) * 2^e", "doubling": "2^f * (e + 1)"}


@router.get(
    "/variants",
    summary="The games offered, with names and rule options",
    response_model=None,
    responses=answer(VariantsAnswer, "The variants"),
)
def variants() -> dict[str, object]:
    out = []
    for v in VARIANTS.values():
        options: dict[str, object] = {
            "finishing": v.finishing,
            "foundations_by_suit": v.foundations_by_suit,
            "numbered_deals": v.numbered_deals,
            "hint_plays_on_second_click": v.hint_plays_on_second_click,
        }
        if v.family == "klondike":
            options["draw"] = v.draw
        else:
            options["run_limit"] = v.run_limit
            options["run_limit_formula"] = RUN_LIMIT_FORMULAS[v.run_limit]
        out.append({"id": v.id, "family": v.family, "names": dict(v.names), "options": options})
    return {"variants": out}


@router.get(
    "/deals/{variant}",
    summary="Browse deal numbers, with the unsolvable ones marked",
    response_model=None,
    responses={**answer(DealsAnswer, "The deals"), **error_responses(422)},
)
def deals(
    variant: Annotated[str, Path(json_schema_extra={"enum": VARIANT_IDS})],
    start: Annotated[int, Query(ge=1, le=MAX_DEAL)] = 1,
    count: Annotated[int, Query(ge=1, le=1000)] = 100,
) -> dict[str, object]:
    variant = variant_or_error(variant)
    # every deal a game can be started with, as POST /api/games takes them
    # (past the variant's last one, none: the document's bound is the
    # largest variant's); "total" is the catalogue's, whose unsolvable deals
    # are known
    end = min(start + count, deal_limit(variant) + 1)
    return {
        "variant": variant,
        "deals": [
            {"deal": n, "deal_id": f"{variant}-{n}", "unsolvable": is_unsolvable(variant, n)}
            for n in range(start, end)
        ],
        "total": CATALOGUE_SIZE,
    }


@router.get(
    "/daily/{variant}",
    summary="The daily deal of a UTC date (default today)",
    response_model=None,
    responses={**answer(DailyAnswer, "The daily deal"), **error_responses(422, 429, 503)},
)
def daily(
    variant: Annotated[str, Path(json_schema_extra={"enum": VARIANT_IDS})],
    request: Request,
    date: Annotated[
        str | None,
        Query(
            max_length=32,
            description="YYYY-MM-DD (UTC), up to a year either side of today",
            # the pattern of the dates served today goes in when the document is made
            json_schema_extra={"format": "date"},
        ),
    ] = None,
) -> dict[str, object]:
    variant = variant_or_error(variant)
    day = parse_date(date)
    number = daily_deal_for(request, variant, day)
    return {
        "variant": variant,
        "date": day.isoformat(),
        "deal": number,
        "deal_id": f"{variant}-{number}",
    }


@router.get(
    "/stats",
    summary="The player's statistics per variant",
    response_model=None,
    responses={**answer(StatsAnswer, "The statistics"), **error_responses(503)},
)
async def stats(request: Request) -> dict[str, object]:
    """Games, wins, best time and moves, current and best streak, and the
    latest results (``recent``, oldest first) per variant."""
    store = app_state(request).store
    return {**await run_in_threadpool(player_stats, store, request.state.player)}
