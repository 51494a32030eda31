"""The site as an installable app: its web app manifest and its service
worker, which keeps the app shell (pages, styles, scripts, card art, icons)
so that the site opens at once and shows the table offline.

The shell's version is a hash of the static files: any change to one of
them gives a new service worker script, which the browser installs in place
of the old one, and the new worker deletes the old shell.  Every page says
which shell it was made with (``X-Shell-Version``), so a worker still holding
an older shell serves that page's files from the network rather than mixing
old scripts into a new page.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path

from fastapi import APIRouter, FastAPI, Request, Response

from jielong.engine.rules.variants import VARIANTS
from jielong.web.i18n import catalogue, negotiate

STATIC_DIR = Path(__file__).parent.parent / "static"
WORKER_SOURCE = STATIC_DIR / "sw.js"
SHELL_HEADER = "X-Shell-Version"
THEME_COLOUR = "#1d5c3a"  # the table's felt, as the icons' background

PAGES = ("/", *(f"/play/{v}" for v in VARIANTS), *(f"/rules/{v}" for v in VARIANTS), "/stats")
"""The pages kept for offline use (each as last fetched; the statistics as
they were then)."""

router = APIRouter(include_in_schema=False)


def _static_files() -> list[Path]:
    return sorted(
        p for p in STATIC_DIR.rglob("*") if p.is_file() and p != WORKER_SOURCE and p.name[0] != "."
    )


@cache
def shell_files() -> tuple[str, ...]:
    """The static files' addresses, as pages ask for them."""
    return tuple("/static/" + p.relative_to(STATIC_DIR).as_posix() for p in _static_files())


@cache
def shell_version() -> str:
    digest = hashlib.sha256()
    for path in [*_static_files(), WORKER_SOURCE]:
        digest.update(path.relative_to(STATIC_DIR).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def _language(request: Request) -> str:
    return negotiate(
        request.cookies.get("lang"),
        request.query_params.get("lang"),
        request.headers.get("accept-language"),
    )


@router.get("/manifest.webmanifest")
def manifest(request: Request) -> Response:
    lang = _language(request)
    t = catalogue("ui", lang)
    icon = "/static/img/"
    body = {
        "name": t["app.name"],
        "short_name": t["site.title"],
        "description": t["app.description"],
        "lang": lang,
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "background_color": THEME_COLOUR,
        "theme_color": THEME_COLOUR,
        "icons": [
            {"src": icon + "icon-192.png", "sizes": "192x192", "type": "image/png"},
            {"src": icon + "icon-512.png", "sizes": "512x512", "type": "image/png"},
            {
                "src": icon + "icon-maskable-512.png",
                "sizes": "512x512",
                "type": "image/png",
                "purpose": "maskable",
            },
            {"src": icon + "icon.svg", "sizes": "any", "type": "image/svg+xml"},
        ],
    }
    return Response(
        json.dumps(body, ensure_ascii=False),
        media_type="application/manifest+json",
        headers={"Cache-Control": "no-cache", "Vary": "Accept-Language, Cookie"},
    )


@router.get("/sw.js")
def service_worker() -> Response:
    script = (
        WORKER_SOURCE.read_text(encoding="utf-8")
        .replace('"__VERSION__"', json.dumps(shell_version()))
        .replace('["__PAGES__"]', json.dumps(list(PAGES)))
        .replace('["__FILES__"]', json.dumps(list(shell_files())))
    )
    # the browser checks for a new worker on each visit; no-cache makes that
    # check reach the server
    return Response(script, media_type="text/javascript", headers={"Cache-Control": "no-cache"})


def install(app: FastAPI) -> None:
    """The manifest and the worker's routes (pages are marked with
    :data:`SHELL_HEADER` by :mod:`jielong.web.http.site`)."""
    app.include_router(router)
