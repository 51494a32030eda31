"""Browser tests: the real app under uvicorn in a background thread (a
temporary SQLite database, a free port) and one Chromium for the session."""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from jielong.testing.browser import AppThread, chromium_installed, launch_chromium
from jielong.web.app import Settings

playwright_api = pytest.importorskip("playwright.sync_api")

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
PHONE = {
    "viewport": {"width": 390, "height": 844},
    "has_touch": True,
    "is_mobile": True,
    "device_scale_factor": 2,
}
DESKTOP = {"viewport": {"width": 1280, "height": 800}}
ENGINE_FILES = re.compile(r"^https?://[^/]+/engine/")
"""The engine's runtime and package (not the page's own engine/ scripts)."""


class Server:
    def __init__(self, base: str) -> None:
        self.base = base

    def api(self, method: str, path: str, body: object | None = None) -> tuple[int, Any]:
        return self.api_lang(method, path, body, None)

    def api_lang(
        self, method: str, path: str, body: object | None, lang: str | None
    ) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method)
        req.add_header("Content-Type", "application/json")
        if lang:
            req.add_header("Cookie", f"lang={lang}")
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())

    def game(self, game_id: str) -> dict[str, Any]:
        status, body = self.api("GET", f"/api/games/{game_id}")
        assert status == 200, body
        result: dict[str, Any] = body
        return result


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    db = tmp_path_factory.mktemp("db") / "browser.sqlite"
    settings = Settings(database=f"sqlite:///{db}", hint_workers=1, hint_seconds=2.0)
    with AppThread(settings) as app:
        yield Server(app.base)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if not chromium_installed():
        pytest.skip("Chromium is not installed")
    with playwright_api.sync_playwright() as p:
        b = launch_chromium(p)
        yield b
        b.close()


@pytest.fixture(params=["desktop", "phone"])
def device(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    return name


@pytest.fixture
def page(browser: Any, server: Server, device: str) -> Iterator[Any]:
    options = dict(PHONE if device == "phone" else DESKTOP)
    context = browser.new_context(base_url=server.base, locale="zh-TW", **options)
    # the engine on the device has tests of its own (test_engine_worker.py):
    # here every answer comes from the server, as for a browser that cannot
    # start it, and no page spends the machine's processors starting it
    context.route(ENGINE_FILES, lambda route: route.abort())
    pg = context.new_page()
    pg.set_default_timeout(10_000)
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))

    def blocked(msg: Any) -> None:
        # what the Content-Security-Policy refuses is only said on the console
        if msg.type == "error" and "Content Security Policy" in msg.text:
            errors.append(msg.text)

    pg.on("console", blocked)
    yield pg
    context.close()
    assert not errors, f"uncaught errors in the page: {errors}"


def screenshot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))
