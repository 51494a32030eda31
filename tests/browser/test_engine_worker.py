"""The engine on the player's device (a Web Worker running the site's own
Python under Pyodide): hints, the demo and the analysis with the server's
solver routes blocked; play offline, through a reload, synced to the server
when the network returns; a forged device move refused on sync; and a browser
without workers served by the server as before."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from jielong.web.services import runtime
from tests.browser.board_driver import open_game, read_board, t, wait_board
from tests.browser.conftest import DESKTOP, PHONE, Server, screenshot

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not runtime.installed(), reason="the engine runtime is not installed"),
]

SOLVER_ROUTES = re.compile(r".*/api/games/[^/]+/(hint|analysis)(\?.*)?$")
BOOT_MS = 90_000
"""A cold start of the runtime on a busy two-core machine."""


def wait_engine(page: Any) -> None:
    page.wait_for_function(
        "() => document.documentElement.dataset.engine === 'ready'", timeout=BOOT_MS
    )


@pytest.fixture
def context(browser: Any, server: Server) -> Iterator[Any]:
    ctx = browser.new_context(base_url=server.base, locale="en-GB", **DESKTOP)
    errors: list[str] = []
    ctx.on("weberror", lambda e: errors.append(str(e.error)))
    yield ctx
    ctx.close()
    assert not errors, errors


def page_of(context: Any) -> Any:
    page = context.new_page()
    # the engine starts again after each reload, slowly on a busy machine
    page.set_default_timeout(BOOT_MS)
    return page


def open_held(context: Any, path: str) -> tuple[Any, str]:
    """A page with the game at ``path`` on the table and held by the engine
    on the device: its page and the game's id."""
    page = page_of(context)
    game = open_game(page, path)
    wait_engine(page)
    page.wait_for_function(f"() => document.documentElement.dataset.engineHeld === '{game}'")
    return page, game


def play_hint(page: Any, version: int) -> None:
    """In 空當接龍 the hint's second press plays it: the board at ``version``."""
    page.keyboard.press("h")
    page.locator("#hintbar .bar.info").first.wait_for()
    page.keyboard.press("h")
    wait_board(page, version=version)


def playing_on_device(page: Any) -> Any:
    """The offline bar, saying that play goes on here: a short word in the
    status row, the whole sentence for screen readers."""
    bar = page.locator(".offline-bar")
    bar.wait_for(state="visible")
    assert bar.locator("[aria-hidden=true]").inner_text() == t("offline.onDeviceShort", "en")
    assert bar.locator(".sr-only").text_content() == t("offline.onDevice", "en")
    return bar


def test_hints_demo_and_verdict_come_from_the_device(context: Any, server: Server) -> None:
    asked: list[str] = []

    def refuse(route: Any) -> None:
        asked.append(route.request.url)
        route.abort()

    context.route(SOLVER_ROUTES, refuse)
    page = page_of(context)
    game = open_game(page, "/play/freecell?deal=1")
    wait_engine(page)
    page.keyboard.press("h")
    said = page.locator("#hintbar .bar.info > span").first
    said.wait_for()
    assert said.inner_text().startswith(t("hint.move", "en", **{"from": "", "to": ""})[:5])
    # the demo plays the hint's line, move after move
    page.keyboard.press("d")
    # three moves played, then stopped: the board the demo ran past is
    # shown for a moment only, too short to catch on a loaded machine
    page.wait_for_function("() => Number(document.getElementById('board').dataset.version) >= 4")
    page.keyboard.press("Escape")
    wait_board(page)
    # the position dialog's verdict
    page.locator("#board-tools-open").click()
    page.locator("#analysis-run").click()
    verdict = page.locator("#analysis-verdict[data-status]")
    verdict.wait_for(timeout=30_000)
    assert verdict.get_attribute("data-status") == "solved"
    screenshot(page, "engine-device-hint-desktop")
    assert asked == []
    # the moves reached the server all the same: it keeps the game
    assert server.game(game)["counters"]["moves"] >= 3


def assert_over_no_card(page: Any, bar: Any) -> None:
    box = bar.bounding_box()
    assert box is not None
    cards = page.eval_on_selector_all(
        "#board .card", "(els) => els.map((e) => e.getBoundingClientRect().toJSON())"
    )
    assert cards
    for c in cards:
        apart = (
            c["bottom"] <= box["y"]
            or c["top"] >= box["y"] + box["height"]
            or c["right"] <= box["x"]
            or c["left"] >= box["x"] + box["width"]
        )
        assert apart, (c, box)


KEPT = """async () => {
  const cache = await caches.open("jielong-engine-snapshot");
  return (await cache.keys()).map((r) => r.url);
}"""

TIMINGS = "async () => (await import('/static/js/engine/client.js')).timings"


def test_a_later_start_restores_the_engine_kept_on_the_device(context: Any, server: Server) -> None:
    context.route(SOLVER_ROUTES, lambda route: route.abort())
    page = page_of(context)
    open_game(page, "/play/freecell?deal=3")
    wait_engine(page)
    assert page.evaluate(TIMINGS)["snapshot"] == "made"
    # kept once compressed, after the engine said it was ready
    for _ in range(600):
        keys = page.evaluate(KEPT)
        if keys:
            break
        page.wait_for_timeout(100)
    (key,) = keys
    manifest = server.api("GET", "/engine/manifest.json")[1]
    assert key.endswith(f"/engine/snapshot/{manifest['version']}/{manifest['digest']}")

    # the next start restores it, and the engine answers as before
    page.reload()
    wait_engine(page)
    restored = page.evaluate(TIMINGS)
    assert restored["snapshot"] == "restored"
    page.keyboard.press("h")
    page.locator("#hintbar .bar.info > span").first.wait_for()

    # a kept memory that cannot be restored is dropped, and the engine starts as new
    page.evaluate(
        """async (key) => {
          const cache = await caches.open("jielong-engine-snapshot");
          const zeros = new Blob([new Uint8Array(64)]).stream();
          const junk = zeros.pipeThrough(new CompressionStream("gzip"));
          await cache.put(key, new Response(junk));
        }""",
        key,
    )
    page.reload()
    wait_engine(page)
    assert page.evaluate(TIMINGS)["snapshot"] == "made"
    page.keyboard.press("h")
    page.locator("#hintbar .bar.info > span").first.wait_for()


def test_a_game_goes_on_offline_through_a_reload_and_reaches_the_server(
    browser: Any, server: Server
) -> None:
    context = browser.new_context(base_url=server.base, locale="en-GB", **PHONE)
    try:
        page = page_of(context)
        game = open_game(page, "/play/kongdang?deal=5")
        page.wait_for_function("() => navigator.serviceWorker.controller !== null")
        page.reload()
        wait_board(page)
        wait_engine(page)
        page.wait_for_function("() => document.documentElement.dataset.engineKept === '1'")
        play_hint(page, 2)
        assert server.game(game)["version"] == 2

        context.set_offline(True)
        for version in (3, 4):
            play_hint(page, version)
        bar = playing_on_device(page)
        assert_over_no_card(page, bar)
        played = read_board(page)
        assert server.game(game)["version"] == 2

        answer = page.reload()
        assert answer is not None and answer.from_service_worker
        wait_board(page, version=4)
        assert read_board(page) == played
        page.keyboard.press("u")
        wait_board(page, version=5)
        play_hint(page, 6)
        played = read_board(page)
        screenshot(page, "engine-offline-phone")

        context.set_offline(False)
        page.evaluate("() => window.dispatchEvent(new Event('online'))")
        bar.wait_for(state="hidden")
        page.wait_for_function(
            f"() => !document.querySelector('#board').dataset.version || "
            f"document.querySelector('#board').dataset.game === '{game}'"
        )
        kept = server.game(game)
        assert kept["version"] == 3  # the server saved the device's four actions at once
        assert kept["counters"]["moves"] == 3
        wait_board(page, version=3, game=game)
        assert {**read_board(page), "version": 6} == played
    finally:
        context.close()


def test_a_first_visit_leaves_the_engine_on_the_device(browser: Any, server: Server) -> None:
    """A first visit may start its engine before the service worker answers
    the page (here the worker's script is held back until the engine is
    ready): once the service worker takes the page over, the engine's files
    go into its cache, so the table opened again offline still plays on the
    device."""
    context = browser.new_context(base_url=server.base, locale="en-GB", **PHONE)
    held: list[Any] = []
    released = False

    def hold(route: Any) -> None:
        if released:
            route.continue_()
        else:
            held.append(route)

    context.route("**/sw.js", hold)
    try:
        page = page_of(context)
        game = open_game(page, "/play/kongdang?deal=6")
        wait_engine(page)
        play_hint(page, 2)
        released = True
        for route in held:
            route.continue_()
        page.wait_for_function("() => document.documentElement.dataset.engineKept === '1'")

        context.set_offline(True)
        answer = page.reload()
        assert answer is not None and answer.from_service_worker
        wait_board(page, version=2)
        wait_engine(page)
        play_hint(page, 3)
        playing_on_device(page)
        assert server.game(game)["version"] == 2
    finally:
        context.close()


def test_a_game_goes_on_offline_when_the_network_goes_before_the_first_move(
    browser: Any, server: Server
) -> None:
    """The engine starts after the game is on the table: it takes that game
    as soon as it answers, so a network lost before any move was played
    leaves hints and moves to the device."""
    context = browser.new_context(base_url=server.base, locale="en-GB", **PHONE)
    try:
        page, game = open_held(context, "/play/kongdang?deal=8")
        context.set_offline(True)
        for version in (2, 3):
            play_hint(page, version)
        bar = playing_on_device(page)
        played = read_board(page)
        assert server.game(game)["version"] == 1

        context.set_offline(False)
        page.evaluate("() => window.dispatchEvent(new Event('online'))")
        bar.wait_for(state="hidden")
        wait_board(page, version=2, game=game)
        assert server.game(game)["counters"]["moves"] == 2
        assert {**read_board(page), "version": 3} == played
    finally:
        context.close()


SLOW_MIRROR = """
(() => {
  // the engine's copy of each move the server accepted, told late
  const Real = window.Worker;
  window.Worker = class extends Real {
    postMessage(message) {
      const send = () => super.postMessage(message);
      if (window.slowMirror && message?.op === "act") setTimeout(send, 1500);
      else send();
    }
  };
})();
"""


def test_a_hint_asked_offline_waits_for_the_engine_to_know_the_last_move(
    browser: Any, server: Server
) -> None:
    """The engine hears of a move the server accepted after the board shows
    it: a hint asked of the device in that moment (here with the network
    gone, so the server cannot tell the device the position either) waits
    for it instead of coming to nothing."""
    context = browser.new_context(base_url=server.base, locale="en-GB", **PHONE)
    context.add_init_script(SLOW_MIRROR)
    try:
        page, game = open_held(context, "/play/kongdang?deal=12")
        page.evaluate("() => { window.slowMirror = true; }")
        play_hint(page, 2)
        context.set_offline(True)
        page.keyboard.press("h")
        page.locator("#hintbar .bar.info").first.wait_for(timeout=30_000)
        page.keyboard.press("h")
        wait_board(page, version=3)
        playing_on_device(page)
        assert server.game(game)["version"] == 2
    finally:
        context.close()


UNSETTLED_HINTS = """
(() => {
  // the engine's hints as a search that ran out of time answers them
  const Real = window.Worker;
  window.Worker = class extends Real {
    set onmessage(fn) {
      super.onmessage = (event) => {
        const body = event.data?.answer?.body;
        if (window.unsettledHints && body?.move) body.kind = "heuristic";
        fn(event);
      };
    }
  };
})();
"""


def test_an_offline_hint_the_device_could_not_settle_is_still_shown(
    browser: Any, server: Server
) -> None:
    """A device search that runs out of time asks the server; offline, the
    device's own best guess is shown instead of nothing."""
    context = browser.new_context(base_url=server.base, locale="en-GB", **PHONE)
    context.add_init_script(UNSETTLED_HINTS)
    try:
        page, game = open_held(context, "/play/kongdang?deal=9")
        context.set_offline(True)
        page.evaluate("() => { window.unsettledHints = true; }")
        page.keyboard.press("h")
        page.locator("#hintbar .bar.info").first.wait_for(timeout=30_000)
        page.keyboard.press("h")
        wait_board(page, version=2)
        playing_on_device(page)
        assert server.game(game)["version"] == 1
    finally:
        context.close()


def test_a_game_dealt_offline_reaches_the_server(browser: Any, server: Server) -> None:
    context = browser.new_context(base_url=server.base, locale="en-GB", **DESKTOP)
    try:
        page = page_of(context)
        open_game(page, "/play/freecell?deal=20")
        page.wait_for_function("() => navigator.serviceWorker.controller !== null")
        page.reload()
        wait_engine(page)
        page.wait_for_function("() => document.documentElement.dataset.engineKept === '1'")
        context.set_offline(True)
        page.goto("/play/klondike-1?deal=77")
        page.wait_for_selector("#board[data-game^='device-']:not([data-pending])", timeout=BOOT_MS)
        page.keyboard.press(" ")  # turn the stock
        page.wait_for_selector("#board[data-version='2']:not([data-pending])")
        played = read_board(page)
        context.set_offline(False)
        page.evaluate("() => window.dispatchEvent(new Event('online'))")
        page.wait_for_function(
            "() => location.search.includes('game=') && !location.search.includes('device-')"
        )
        game = page.evaluate("() => new URLSearchParams(location.search).get('game')")
        kept = server.game(game)
        assert kept["deal_id"] == "klondike-1-77" and kept["counters"]["moves"] == 1
        wait_board(page, game=game)
        assert {**read_board(page), "version": 2} == played
    finally:
        context.close()


FORGE = """async () => {
  const db = await new Promise((ok, no) => {
    const r = indexedDB.open("jielong", 1);
    r.onsuccess = () => ok(r.result);
    r.onerror = () => no(r.error);
  });
  const store = () => db.transaction("games", "readwrite").objectStore("games");
  const all = await new Promise((ok) => {
    const r = store().getAll();
    r.onsuccess = () => ok(r.result);
  });
  const entry = all.find((e) => e.pending.length);
  entry.pending.push({ type: "move", from: "tableau:0", to: "foundation:3", count: 1 });
  await new Promise((ok) => { const r = store().put(entry); r.onsuccess = () => ok(); });
  return entry.pending.length;
}"""


def test_a_forged_device_move_is_refused_on_sync(browser: Any, server: Server) -> None:
    context = browser.new_context(base_url=server.base, locale="en-GB", **DESKTOP)
    try:
        page = page_of(context)
        game = open_game(page, "/play/klondike-3?deal=9")
        wait_engine(page)
        page.keyboard.press(" ")
        wait_board(page, version=2)
        context.set_offline(True)
        page.keyboard.press(" ")
        wait_board(page, version=3)
        assert page.evaluate(FORGE) == 2
        context.set_offline(False)
        page.evaluate("() => window.dispatchEvent(new Event('online'))")
        toast = page.locator("#toast.show")
        toast.wait_for()
        said = toast.inner_text()
        assert said.startswith(t("sync.refused", "en", reason="")[:20]), said
        # the game is as the server has it, and nothing of it was lost
        wait_board(page, version=2, game=game)
        kept = server.game(game)
        assert kept["version"] == 2 and kept["counters"]["moves"] == 1
    finally:
        context.close()


def test_a_browser_without_workers_asks_the_server(browser: Any, server: Server) -> None:
    context = browser.new_context(base_url=server.base, locale="en-GB", **DESKTOP)
    context.add_init_script("Object.defineProperty(window, 'Worker', { value: undefined })")
    asked: list[str] = []
    context.on("request", lambda r: asked.append(r.url) if SOLVER_ROUTES.match(r.url) else None)
    try:
        page = page_of(context)
        open_game(page, "/play/freecell?deal=2")
        page.wait_for_function("() => document.documentElement.dataset.engine === 'failed'")
        page.keyboard.press("h")
        page.locator("#hintbar .bar.info").first.wait_for()
        assert len(asked) == 1 and asked[0].endswith("/hint")
    finally:
        context.close()
