"""The web application: JSON API, pages and static files.

No rules here: the routes hand actions to :mod:`jielong.session`, which asks
the rules' ``legal_moves``.  Settings come from one object, built from the
environment for server worker processes (``JIELONG_*`` variables).
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI, Request, Response
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.gzip import GZipMiddleware
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

from jielong.engine.catalogue import today_utc
from jielong.engine.rules.variants import VARIANTS
from jielong.store import Store
from jielong.web.errors import ApiError, error_response, http_error, validation_error
from jielong.web.http import lifeline, ops, storage
from jielong.web.http.fastbody import SERVER_DATABASE_THREADS, endpoint_threads
from jielong.web.http.limits import limit_repeated_logs
from jielong.web.http.responses import JSONResponse
from jielong.web.http.security import PlayerIds, player_key
from jielong.web.http.site import Site
from jielong.web.routes import board as api_board
from jielong.web.routes import catalogue as api_catalogue
from jielong.web.routes import device as api_device
from jielong.web.routes import engine as engine_files
from jielong.web.routes import games as api_games
from jielong.web.services import growth
from jielong.web.services.daily import DailyDeals
from jielong.web.services.hintpool import HintPool
from jielong.web.services.winnable import WinnablePool
from jielong.web.state import AppState, Settings
from jielong.web.views import pages, pwa
from jielong.web.views.schema import DocumentedApp

__all__ = ["Settings", "create_app", "create_app_from_env"]

STATIC_DIR = Path(__file__).with_name("static")


class CachedStatic(StaticFiles):
    """Static files, revalidated by ETag on each use: the files are not
    fingerprinted, so a long cache lifetime would serve stale scripts."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        if response.status_code in (200, 304):
            response.headers["Cache-Control"] = "no-cache"
        return response


def _warm_daily_deals(daily: DailyDeals) -> None:
    today = today_utc()
    for variant in VARIANTS:
        daily(variant, today)


def create_app(settings: Settings | None = None, *, store: Store | None = None) -> FastAPI:
    settings = settings or Settings()
    store = store or Store(settings.database)
    pool = HintPool(settings.hint_workers, settings.hint_queue, settings.hint_seconds)
    # its thread starts with the first winnable deal asked for
    winnable = WinnablePool()
    daily = DailyDeals(store.engine)
    # threads for a directly dispatched route defined without async (the
    # move route runs on the event loop; started as they are needed)
    moves = endpoint_threads(SERVER_DATABASE_THREADS)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        loop = asyncio.get_running_loop()
        pool.start(loop)
        # a Klondike daily deal takes a solver run to choose: do today's now,
        # off the event loop, rather than in the first visitor's request
        warming = loop.run_in_executor(None, _warm_daily_deals, daily)
        sweeping = growth.start_sweeping(store.engine, settings.expire_days)
        try:
            yield
        finally:
            await growth.stop_sweeping(sweeping)
            warming.cancel()
            winnable.stop()
            pool.shutdown()

    app = DocumentedApp(
        default_response_class=JSONResponse,
        title="jielong",
        summary="Klondike and FreeCell: games, moves, hints and statistics.",
        version="1",
        lifespan=lifespan,
        docs_url="/docs" if settings.docs else None,
        redoc_url=None,
        # the site keeps its own metrics (jielong.web.http.telemetry); the
        # framework's tracing would cost a check on every request
        telemetry={"tracing": False, "metrics": False, "logs": False, "operation_spans": False},
    )

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError) -> JSONResponse:
        return error_response(request, exc)

    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_exception_handler(StarletteHTTPException, http_error)
    outage = storage.install(app)
    app.state = AppState(
        settings=settings,
        store=store,
        hints=pool,
        winnable=winnable,
        daily_deals=daily,
        storage_outage=outage,
    )

    app.add_middleware(GZipMiddleware, minimum_size=1000)
    # last, so outermost: the limits, headers, cookie and metrics of every request
    app.add_middleware(
        Site,
        players=PlayerIds(player_key(store.engine)),
        outage=outage,
        direct=[api_games.ACTION_ROUTE],
        threads=moves,
    )
    limit_repeated_logs()

    pwa.install(app)
    ops.install(app)
    app.include_router(api_games.router)
    app.include_router(api_board.router)
    app.include_router(api_catalogue.router)
    app.include_router(api_device.router)
    app.include_router(engine_files.router)
    app.include_router(pages.router)
    if STATIC_DIR.is_dir():
        app.mount("/static", CachedStatic(directory=STATIC_DIR), name="static")
    return app


FULL_COLLECTION_EVERY = 100
"""Collections of the middle generation before a full one is considered
(Python's default: 10)."""


def create_app_from_env() -> FastAPI:
    """The app of a server worker process (``jielong serve``)."""
    lifeline.server_worker_started()
    app = create_app(Settings.from_env())
    # The modules, tables and app made so far live as long as the process:
    # left out of every later collection.  A full collection scanned them
    # each time, some 50-100 ms during which no request was answered.
    gc.collect()
    gc.freeze()
    # What stays after an action is mostly its undo step, kept in the replay
    # cache (jielong.store) and freed by reference counting when dropped; a
    # full collection scans all of it (50-100 ms for 50 long games here),
    # so it is looked for a tenth as often as by default (the young
    # generations, a few milliseconds each, as often as ever).
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, FULL_COLLECTION_EVERY)
    return app
