"""Page speed of the table, measured in Chromium against the real app.

Figures: bytes transferred for a first visit (as sent: compressed where the
server compresses, headers included) of the table, the home page and the
statistics page, time from navigation to the first playable board, and time
from a click on the stock to the redrawn board.

    python bench/page_speed.py            # every variant, 5 visits, 40 clicks
    python bench/page_speed.py --smoke    # one variant, 2 visits, 8 clicks
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from typing import Any

from jielong.testing.browser import AppThread, chromium_installed, launch_chromium
from jielong.web.app import Settings

# Time from a pointer press to the frame after the board's version changed.
CLICK_PROBE = """() => new Promise((resolve) => {
  const board = document.getElementById("board");
  const before = board.dataset.version;
  const start = performance.now();
  setTimeout(() => resolve(null), 5000);
  const observer = new MutationObserver(() => {
    if (board.dataset.version === before) return;
    observer.disconnect();
    requestAnimationFrame(() => resolve(performance.now() - start));
  });
  observer.observe(board, {attributes: true, attributeFilter: ["data-version"]});
  const stock = board.querySelector('[data-pile="stock"]').getBoundingClientRect();
  const at = {clientX: stock.left + stock.width / 2, clientY: stock.top + stock.height / 2,
              bubbles: true, pointerId: 1, isPrimary: true, pointerType: "mouse", button: 0};
  // aimed at the stock itself: cards turned a moment ago may still be gliding over it
  const pile = board.querySelector('[data-pile="stock"]');
  const target = pile.querySelector(".card") || pile;
  target.dispatchEvent(new PointerEvent("pointerdown", at));
  target.dispatchEvent(new PointerEvent("pointerup", at));
})"""


def first_visit(browser: Any, base: str, path: str) -> tuple[int, int, float, float]:
    """Bytes and requests of a visit with an empty cache, ms to the board, and
    ms of those spent waiting for the server to create the game."""
    context = browser.new_context(base_url=base, viewport={"width": 1280, "height": 800})
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    received: dict[str, float] = {}
    cdp.on(
        "Network.loadingFinished",
        lambda e: received.__setitem__(e["requestId"], e["encodedDataLength"]),
    )
    page.goto(path)
    page.wait_for_function("() => performance.getEntriesByName('jielong:board').length > 0")
    page.wait_for_load_state("networkidle")
    board_ms: float = page.evaluate("performance.getEntriesByName('jielong:board')[0].startTime")
    api_ms: float = page.evaluate(
        """() => performance.getEntriesByType("resource")
          .filter((e) => e.name.endsWith("/api/games")).reduce((t, e) => t + e.duration, 0)"""
    )
    context.close()
    return int(sum(received.values())), len(received), board_ms, api_ms


def page_weight(browser: Any, base: str, path: str) -> tuple[int, int]:
    """Bytes and requests of a visit to a page with an empty cache."""
    context = browser.new_context(base_url=base, viewport={"width": 1280, "height": 800})
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    received: dict[str, float] = {}
    cdp.on(
        "Network.loadingFinished",
        lambda e: received.__setitem__(e["requestId"], e["encodedDataLength"]),
    )
    page.goto(path)
    page.wait_for_load_state("networkidle")
    context.close()
    return int(sum(received.values())), len(received)


def click_times(browser: Any, base: str, variant: str, clicks: int) -> list[float]:
    context = browser.new_context(base_url=base, viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.goto(f"/play/{variant}?deal=1")
    page.wait_for_function("() => performance.getEntriesByName('jielong:board').length > 0")
    page.wait_for_timeout(200)
    times: list[float] = []
    for _ in range(clicks):
        ms = page.evaluate(CLICK_PROBE)
        if ms is None:
            raise RuntimeError("a click on the stock did not redraw the board within 5 s")
        times.append(float(ms))
    context.close()
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--smoke", action="store_true", help="a run of a few seconds")
    args = parser.parse_args(argv)
    if not chromium_installed():
        print("page_speed: Chromium is not installed; skipped")
        return 0
    from playwright.sync_api import sync_playwright

    every = ["klondike-3", "klondike-1", "freecell", "kongdang"]
    variants = every[:1] if args.smoke else every
    visits, clicks = (2, 8) if args.smoke else (5, 40)
    with (
        tempfile.TemporaryDirectory() as tmp,
        AppThread(Settings(database=f"sqlite:///{tmp}/bench.sqlite", hint_workers=1)) as app,
        sync_playwright() as p,
    ):
        base = app.base
        browser = launch_chromium(p)
        print(f"page_speed: Chromium, localhost, {visits} first visits per variant")
        for variant in variants:
            runs = [first_visit(browser, base, f"/play/{variant}") for _ in range(visits)]
            sizes = sorted(r[0] for r in runs)
            boards = [r[2] for r in runs]
            creating = statistics.median(r[3] for r in runs)
            print(
                f"  first visit /play/{variant}: {sizes[len(sizes) // 2]} bytes "
                f"transferred in {runs[0][1]} requests; playable board after "
                f"median {statistics.median(boards):.0f} ms (best {min(boards):.0f} ms; "
                f"creating the game: median {creating:.0f} ms)"
            )
        for path in ("/", "/stats"):
            size, requests = page_weight(browser, base, path)
            print(f"  first visit {path}: {size} bytes transferred in {requests} requests")
        for variant in [v for v in variants if v.startswith("klondike")]:
            times = sorted(click_times(browser, base, variant, clicks))
            p90 = times[min(len(times) - 1, int(len(times) * 0.9))]
            print(
                f"  click on the stock to redrawn board ({variant}, {clicks} clicks): "
                f"median {statistics.median(times):.1f} ms, p90 {p90:.1f} ms, "
                f"max {times[-1]:.1f} ms"
            )
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
