"""The site as an installed app in Chromium: its manifest and icons, the
service worker keeping the shell, the table offline (it says it needs the
server and keeps the last position), and a new version replacing the old
shell."""

from __future__ import annotations

import struct
import time
from typing import Any

import pytest
from board_driver import expected_board, open_game, read_board, wait_board
from conftest import PHONE, Server, screenshot

from jielong.web.views import pwa
from jielong.web.views.pages import catalogue

pytestmark = pytest.mark.browser


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def shell_caches(page: Any) -> list[str]:
    keys: list[str] = page.evaluate("async () => await caches.keys()")
    return keys


def wait_caches(page: Any, expected: list[str]) -> None:
    deadline = time.monotonic() + 20
    while shell_caches(page) != expected:
        assert time.monotonic() < deadline, shell_caches(page)
        time.sleep(0.1)


def test_installed_app_opens_offline_with_the_last_position(
    browser: Any, server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    context = browser.new_context(base_url=server.base, locale="zh-TW", **PHONE)
    # a browser without workers: offline, the table can only show what the
    # server sent last (tests/browser/test_engine_worker.py plays on offline)
    context.add_init_script("Object.defineProperty(window, 'Worker', { value: undefined })")
    page = context.new_page()
    page.set_default_timeout(15_000)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on(
        "console",
        lambda m: (
            errors.append(m.text)
            if m.type == "error" and "Content Security Policy" in m.text
            else None
        ),
    )
    try:
        game = open_game(page, "/play/freecell?deal=617")

        # installable: a manifest with PNG icons of the sizes asked for
        href = page.eval_on_selector('link[rel="manifest"]', "l => l.getAttribute('href')")
        manifest = context.request.get(href)
        assert manifest.ok and manifest.headers["content-type"] == "application/manifest+json"
        body = manifest.json()
        assert body["display"] == "standalone" and body["start_url"] == "/"
        assert body["name"] == catalogue("zh-Hant")["app.name"]
        sizes = {}
        for icon in body["icons"]:
            answer = context.request.get(icon["src"])
            assert answer.ok, icon
            if icon["type"] == "image/png":
                sizes[icon["sizes"]] = png_size(answer.body())
        assert sizes["192x192"] == (192, 192) and sizes["512x512"] == (512, 512)

        # the worker takes the page over and keeps this version's shell
        page.wait_for_function("() => navigator.serviceWorker.controller !== null")
        wait_caches(page, [f"jielong-shell-{pwa.shell_version()}"])
        kept = page.evaluate(
            """async () => (await (await caches.open((await caches.keys())[0])).keys())
                .map((r) => new URL(r.url).pathname)"""
        )
        assert set(pwa.PAGES) | set(pwa.shell_files()) <= set(kept)

        # a move, then the connection goes
        state = server.game(game)
        move = state["moves"][0]
        status, state = server.api(
            "POST", f"/api/games/{game}/actions", {"version": 1, "type": "move", **move}
        )
        assert status == 200
        page.reload()
        wait_board(page, version=2)
        shown = read_board(page)
        assert shown == expected_board(state)

        context.set_offline(True)
        answer = page.reload()
        assert answer is not None and answer.from_service_worker
        bar = page.locator(".offline-bar")
        bar.wait_for(state="visible")
        assert bar.inner_text() == catalogue("zh-Hant")["offline.needsServer"]
        wait_board(page, version=2)
        assert read_board(page) == shown
        # a move offline changes nothing on the table
        page.keyboard.press("u")
        page.wait_for_timeout(300)
        assert read_board(page) == shown and bar.is_visible()
        screenshot(page, "app-offline-phone")
        assert server.game(game)["version"] == 2

        context.set_offline(False)
        bar.wait_for(state="hidden")
        page.keyboard.press("u")
        wait_board(page, version=3)

        # a new version of the site: the worker is replaced and the old shell goes
        monkeypatch.setattr(pwa, "shell_version", lambda: "next-version")
        page.evaluate("async () => (await navigator.serviceWorker.getRegistration()).update()")
        wait_caches(page, ["jielong-shell-next-version"])
    finally:
        context.close()
    assert not errors, errors
