"""Endpoints for operators: ``/healthz`` (the process answers and its
database is reachable, as JSON) and ``/metrics`` (Prometheus' text format;
see :mod:`jielong.web.http.telemetry`)."""

from __future__ import annotations

import os
import time
from importlib import metadata

import sqlalchemy as sa
from fastapi import APIRouter, FastAPI, Request, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, generate_latest

from jielong.store import Store
from jielong.web.http.telemetry import HINT_QUEUE
from jielong.web.state import app_state

router = APIRouter(include_in_schema=False)
MULTIPROCESS_ENV = "PROMETHEUS_MULTIPROC_DIR"


def _ping(store: Store) -> None:
    with store.engine.connect() as conn:
        conn.execute(sa.text("SELECT 1"))


@router.get("/healthz")
async def healthz(request: Request) -> JSONResponse:
    store = app_state(request).store
    start = time.perf_counter()
    body: dict[str, object] = {"status": "ok", "version": metadata.version("jielong")}
    try:
        await run_in_threadpool(_ping, store)
    except Exception as e:  # any failure to reach it is the answer
        body.update(status="unavailable", database="unreachable", error=type(e).__name__)
        status = 503
    else:
        body["database"] = "ok"
        status = 200
    body["database_ms"] = round((time.perf_counter() - start) * 1000, 1)
    body["hint_queue"] = app_state(request).hints.submitted
    return JSONResponse(body, status_code=status, headers={"Cache-Control": "no-store"})


@router.get("/metrics")
def metrics(request: Request) -> Response:
    HINT_QUEUE.set(app_state(request).hints.submitted)
    registry = REGISTRY
    if os.environ.get(MULTIPROCESS_ENV):
        from prometheus_client import multiprocess

        # every server process's metrics, from their files
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    return Response(
        generate_latest(registry),
        media_type=CONTENT_TYPE_LATEST,
        headers={"Cache-Control": "no-store"},
    )


def install(app: FastAPI) -> None:
    app.include_router(router)
