"""Page speed of the table, measured in Chromium against the real app.

Figures: bytes transferred for a first visit (as sent: compressed where the
server compresses, headers included) of the table, the home page and the
statistics page, time from navigation to the first playable board, and for
a click on the stock and for a tableau move the move list offers: the time
from the input to the first frame that shows it, and to the frame that shows
the server's answer.

    python bench/page_speed.py            # every variant, 5 visits, 40 inputs
    python bench/page_speed.py --smoke    # one variant, 2 visits, 8 inputs
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from typing import Any

from jielong.engine.rules.registry import rules_for
from jielong.testing.browser import AppThread, chromium_installed, launch_chromium
from jielong.web.app import Settings

# One input, timed from just before its events are dispatched to the
# requestAnimationFrame timestamp of the first frame that shows its effect
# (`paint`: the page's own redraw runs earlier in that same frame), and of the
# first frame that shows the server's answer (`answer`: the board's version
# changed); `rendered` is when that first frame was rendered. A tap on the
# pile's top card (on the stock's own box for the stock); a card that is only
# selected is then dropped by a tap on `to`, and the time runs from that tap.
PROBE = """([from, to]) => new Promise((resolve) => {
  const board = document.getElementById("board");
  const top = (pile) => [...board.querySelectorAll(`[data-pile="${pile}"] [data-card]`)].at(-1);
  const code = from === "stock" ? "" : top(from).dataset.card;
  const version = board.dataset.version;
  const waste = () => board.querySelector('[data-pile="waste"]').innerHTML;
  const stock = () => board.querySelector('[data-pile="stock"]').innerHTML + waste();
  const stockBefore = from === "stock" ? stock() : "";
  const shown = from === "stock"
    ? () => stock() !== stockBefore
    : () => Boolean(board.querySelector(`[data-pile="${to}"] .card[data-card="${code}"]`));
  const out = { paint: null, rendered: null, answer: null };
  let start = 0;
  function frame(ts) {
    const since = Math.max(0, ts - start);
    if (out.paint === null && shown()) {
      out.paint = since;
      // a task queued from the frame's callbacks runs once it is rendered
      setTimeout(() => {
        out.rendered = performance.now() - start;
        if (out.answer !== null) resolve(out);
      }, 0);
    }
    if (out.answer === null && board.dataset.version !== version) out.answer = since;
    if (out.paint === null || out.answer === null) requestAnimationFrame(frame);
    else if (out.rendered !== null) resolve(out);
  }
  setTimeout(() => resolve(null), 5000);
  function press(pile) {
    const el = pile === "stock"
      ? board.querySelector('[data-pile="stock"]')
      : top(pile) || board.querySelector(`[data-pile="${pile}"]`);
    const r = el.getBoundingClientRect();
    const at = { clientX: r.left + r.width / 2, clientY: r.top + 8, bubbles: true,
                 pointerId: 1, isPrimary: true, pointerType: "mouse", button: 0 };
    el.dispatchEvent(new PointerEvent("pointerdown", at));
    el.dispatchEvent(new PointerEvent("pointerup", at));
  }
  start = performance.now();
  press(from);
  requestAnimationFrame((ts) => {
    if (from === "stock" || !board.querySelector(".card.sel")) return frame(ts);
    // more than one place to go: the card was selected; the target is tapped
    // in a task of its own, as an input event would be
    setTimeout(() => {
      start = performance.now();
      press(to);
      requestAnimationFrame(frame);
    }, 0);
  });
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


def tableau_move_deal(variant: str) -> tuple[int, str, str]:
    """A deal whose opening offers a one-card move between two tableau piles."""
    rules = rules_for(variant)
    for number in range(1, 500):
        for move in rules.legal_moves(rules.deal(number)):
            if move.src.kind == "tableau" and move.dst.kind == "tableau" and move.count == 1:
                return number, str(move.src), str(move.dst)
    raise RuntimeError(f"no deal of {variant} opens with a tableau move")


SETTLED = "() => document.getAnimations().every((a) => a.playState !== 'running')"


def input_times(
    browser: Any, base: str, variant: str, kind: str, inputs: int
) -> list[tuple[float, float, float]]:
    """(ms to the frame showing the input, to that frame rendered, to the frame
    showing the answer) for `inputs` clicks
    on the stock (kind "stock") or plays of one tableau move, each undone."""
    context = browser.new_context(base_url=base, viewport={"width": 1280, "height": 800})
    page = context.new_page()
    if kind == "stock":
        number, src, dst = 1, "stock", "waste"
    else:
        number, src, dst = tableau_move_deal(variant)
    page.goto(f"/play/{variant}?deal={number}")
    page.wait_for_function("() => performance.getEntriesByName('jielong:board').length > 0")
    page.wait_for_timeout(200)
    times: list[tuple[float, float, float]] = []
    for _ in range(inputs):
        found = page.evaluate(PROBE, [src, dst])
        if found is None:
            raise RuntimeError(f"an input on {src} was not drawn within 5 s")
        times.append((float(found["paint"]), float(found["rendered"]), float(found["answer"])))
        if kind != "stock":
            version = page.evaluate("document.getElementById('board').dataset.version")
            page.keyboard.press("u")
            page.wait_for_function(
                f"() => document.getElementById('board').dataset.version !== '{version}'"
            )
        page.wait_for_function(SETTLED)
    context.close()
    return times


def report(label: str, times: list[tuple[float, float, float]]) -> None:
    names = ("input to its frame", "input to that frame rendered", "input to the answer's frame")
    for i, name in enumerate(names):
        values = [t[i] for t in times]
        ordered = sorted(values)
        p90 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.9))]
        print(
            f"  {label}, {name}: median {statistics.median(ordered):.1f} ms, "
            f"p90 {p90:.1f} ms, max {ordered[-1]:.1f} ms"
        )


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
            report(
                f"stock click ({variant}, {clicks} clicks)",
                input_times(browser, base, variant, "stock", clicks),
            )
        for variant in ["klondike-1"] if args.smoke else ["klondike-1", "freecell"]:
            report(
                f"listed tableau move ({variant}, {clicks} moves)",
                input_times(browser, base, variant, "move", clicks),
            )
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
