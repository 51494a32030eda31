"""The engine on the player's device, measured in Chromium against the real app.

Figures:

* the engine's download as served (compressed): the runtime and the package;
* its start: cold (a new browser profile) and warm (the same profile again,
  from the browser's caches), from the page's request to the engine's answer;
* a player who presses 提示 and plays what it says, with every hint computed
  by the worker: games won, circles, the hint's wall time (p50, p95) and the
  requests the page sent to the server's hint and analysis routes (none are
  expected: the games are dealt and played on the device);
* the server's CPU per player-hour at one hint per ten moves, with the hints
  on the server (a client without the engine) against on the device: a
  player's actions and hints over HTTP to a `jielong serve` process, its CPU
  (with its hint workers) read from /proc.

    python bench/engine_browser.py                      # deals 1..20 of each game
    python bench/engine_browser.py --deals 1-200 --variants freecell
    python bench/engine_browser.py --smoke              # one short game each
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from playwright.sync_api import sync_playwright

from jielong.testing.browser import AppThread, chromium_installed, launch_chromium
from jielong.testing.processes import ServerProcess
from jielong.web.app import Settings
from jielong.web.services import runtime

# One game played by the hint alone, in the page: the worker deals it, each
# hint's move is played there, and the game ends won, in a circle (a position
# a third time), at a hint with no move, or at the move limit.
FOLLOW = """async ([variant, deal, limit]) => {
  const engine = await import("/static/js/engine/client.js");
  const ask = async (op, body) => {
    const res = await engine.ask(op, body);
    if (res.status !== 200) throw new Error(op + ": " + JSON.stringify(res.body));
    return res.body;
  };
  let state = (await ask("new", { variant, deal })).state;
  const seen = new Map();
  const hints = [];
  let end = "limit";
  for (let n = 0; n < limit; n++) {
    if (state.flags.won) { end = "won"; break; }
    const t0 = performance.now();
    const h = await ask("hint", { id: state.id, version: state.version });
    hints.push([h.kind, performance.now() - t0]);
    if (!h.move) { end = h.kind; break; }
    const m = h.move;
    const action = m.from === "stock" || m.to === "stock"
      ? { type: "draw" }
      : { type: "move", from: m.from, to: m.to, count: m.count,
          ...(variant === "kongdang" && h.steps.length ? { steps: h.steps } : {}) };
    state = (await ask("act", { id: state.id, version: state.version, action })).state;
    const key = JSON.stringify(state.position);
    seen.set(key, (seen.get(key) || 0) + 1);
    if (seen.get(key) > 2) { end = "circle"; break; }
  }
  await ask("forget", { id: state.id });
  return { won: state.flags.won, end, moves: state.counters.moves, hints };
}"""


SOLVER_ROUTE = re.compile(r".*/api/games/[^/]+/(hint|analysis)$")
"""The server's solver routes: the page should ask them nothing."""


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else 0.0


def download_bytes() -> tuple[int, int]:
    folder = runtime.runtime_dir()
    served = sum((folder / f"{name}.gz").stat().st_size for name in runtime.FILES)
    return served, len(runtime.package_archive()[1])


def start_ms(page: Any, base: str) -> float:
    t0 = time.perf_counter()
    page.goto(base + "/play/freecell?deal=1")
    # at once, as a first hint would (the page alone waits for the load to settle)
    page.evaluate("() => import('/static/js/engine/client.js').then((m) => m.start())")
    page.wait_for_function(
        "() => document.documentElement.dataset.engine === 'ready'", timeout=180_000
    )
    return (time.perf_counter() - t0) * 1000


KEPT = """() => caches.open("jielong-engine-snapshot")
  .then((c) => c.keys()).then((k) => k.length > 0)"""


def boot_figures(browser: Any, base: str) -> dict[str, float]:
    context = browser.new_context()
    page = context.new_page()
    cold = start_ms(page, base)
    boot_cold = page.evaluate("async () => (await import('/static/js/engine/client.js')).timings")
    # the first start keeps the engine's memory on the device; wait for it
    deadline = time.monotonic() + 120
    while not page.evaluate(KEPT) and time.monotonic() < deadline:
        page.wait_for_timeout(100)
    warm = start_ms(page, base)
    boot_warm = page.evaluate("async () => (await import('/static/js/engine/client.js')).timings")
    context.close()
    return {
        "cold_ms": cold,
        "cold_worker_ms": boot_cold["bootMs"],
        "cold_runtime_ms": boot_cold["runtimeMs"],
        "warm_ms": warm,
        "warm_worker_ms": boot_warm["bootMs"],
        "warm_runtime_ms": boot_warm["runtimeMs"],
        "warm_snapshot": boot_warm["snapshot"],
    }


def follow(browser: Any, base: str, variant: str, deals: range, limit: int) -> dict[str, Any]:
    context = browser.new_context()
    page = context.new_page()
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if SOLVER_ROUTE.match(r.url) else None)
    start_ms(page, base)
    games = []
    for deal in deals:
        game = page.evaluate(FOLLOW, [variant, deal, limit])
        games.append(game)
        print(f"  {variant} {deal}: {game['end']} in {game['moves']} moves", flush=True)
    context.close()
    walls = [ms for g in games for _, ms in g["hints"]]
    return {
        "variant": variant,
        "deals": f"{deals.start}..{deals.stop - 1}",
        "won": sum(g["won"] for g in games),
        "games": len(games),
        "circles": sum(g["end"] == "circle" for g in games),
        "ends": {e: sum(g["end"] == e for g in games) for e in {g["end"] for g in games}},
        "hints": len(walls),
        "hint_p50_ms": statistics.median(walls) if walls else 0.0,
        "hint_p95_ms": percentile(walls, 0.95),
        "hint_max_ms": max(walls, default=0.0),
        "server_hint_requests": len(asked),
    }


def tree_cpu(pid: int) -> float:
    """CPU seconds of ``pid`` and its living children (hint workers)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        own, parent = int(entry.name), int(fields[1])
        if own == pid or parent == pid:
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


def _post(url: str, body: object) -> tuple[int, Any]:
    req = urllib.request.Request(url, json.dumps(body).encode(), method="POST")
    req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        if e.code == 429:
            time.sleep(float(e.headers.get("Retry-After") or 1))
            return _post(url, body)
        return e.code, json.loads(e.read())


def server_cpu(moves: int, hints_on_server: bool, deals: range) -> tuple[float, int, int]:
    """The server's CPU for a player making ``moves`` moves on Klondike draw 3
    (the first legal move that is not a recycle, else a draw), asking the
    server for a hint every tenth move when ``hints_on_server``."""
    db = Path(tempfile.mkdtemp()) / "cpu.sqlite3"
    server = ServerProcess(f"sqlite:///{db}", "--workers", "1").start()
    try:
        hints = made = 0
        before = tree_cpu(server.pid)
        for deal in deals:
            _, game = _post(server.url + "/api/games", {"variant": "klondike-3", "deal": deal})
            for n in range(moves // len(deals)):
                if hints_on_server and n % 10 == 0:
                    _post(f"{server.url}/api/games/{game['id']}/hint", {"version": game["version"]})
                    hints += 1
                legal = [m for m in game["moves"] if m["to"] != "stock"] or game["moves"]
                if not legal:
                    break
                m = legal[0]
                body = {"version": game["version"]}
                body |= {"type": "draw"} if m["from"] == "stock" else {"type": "move", **m}
                status, game = _post(f"{server.url}/api/games/{game['id']}/actions", body)
                made += 1
                assert status == 200, game
        return tree_cpu(server.pid) - before, made, hints
    finally:
        server.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="one short game of each")
    parser.add_argument("--deals", default="1-20", help="deal range, e.g. 1-200")
    parser.add_argument("--variants", default="freecell,kongdang,klondike-3")
    parser.add_argument("--no-cpu", action="store_true", help="skip the server CPU figure")
    parser.add_argument("--cpu-only", action="store_true", help="only the server CPU figure")
    args = parser.parse_args(argv)
    if not chromium_installed() or not runtime.installed():
        print("engine_browser: Chromium or the engine runtime is missing; nothing measured")
        return 0
    first, _, last = args.deals.partition("-")
    deals = range(int(first), int(last or first) + 1)
    limit = 1000
    if args.smoke:
        deals, limit = range(1, 2), 8
    served, package = download_bytes()
    print(
        f"engine download, compressed as served: runtime {served / 1e6:.2f} MB + package "
        f"{package / 1e3:.0f} KB = {(served + package) / 1e6:.2f} MB"
    )
    results: dict[str, Any] = {"download_bytes": served + package}
    with tempfile.TemporaryDirectory() as tmp:
        if args.cpu_only:
            args.variants = ""
        settings = Settings(database=f"sqlite:///{tmp}/bench.sqlite3", hint_workers=1)
        with AppThread(settings) as app, sync_playwright() as p:
            browser = launch_chromium(p)
            boot = boot_figures(browser, app.base) if args.variants else None
            results["start"] = boot
            if boot is not None:
                print(
                    f"start: cold {boot['cold_ms']:.0f} ms (worker {boot['cold_worker_ms']} ms, "
                    f"of which the runtime {boot['cold_runtime_ms']} ms), "
                    f"warm {boot['warm_ms']:.0f} ms ({boot['warm_snapshot']}) "
                    f"(worker {boot['warm_worker_ms']} ms, runtime {boot['warm_runtime_ms']} ms)"
                )
            results["follow"] = []
            for variant in filter(None, args.variants.split(",")):
                r = follow(browser, app.base, variant, deals, limit)
                results["follow"].append(r)
                print(
                    f"{variant} deals {r['deals']}: won {r['won']} of {r['games']}, "
                    f"circles {r['circles']}, ends {r['ends']}; {r['hints']} hints, "
                    f"p50 {r['hint_p50_ms']:.0f} ms, p95 {r['hint_p95_ms']:.0f} ms, "
                    f"max {r['hint_max_ms']:.0f} ms; server hint/analysis requests "
                    f"{r['server_hint_requests']}",
                    flush=True,
                )
            browser.close()
    if not args.no_cpu:
        moves, cpu_deals = (20, range(1, 2)) if args.smoke else (300, range(1, 4))
        on_server, made, hints = server_cpu(moves, True, cpu_deals)
        on_device, made2, _ = server_cpu(moves, False, cpu_deals)
        hour = 900  # moves in a player-hour, one every four seconds
        per_hour_server = on_server / made * hour
        per_hour_device = on_device / made2 * hour
        results["server_cpu_per_player_hour"] = {
            "hints_on_server": per_hour_server,
            "on_device": per_hour_device,
        }
        print(
            f"server CPU per player-hour (900 moves, a hint every tenth): hints on the server "
            f"{per_hour_server:.1f} s ({made} moves, {hints} hints measured), on the device "
            f"{per_hour_device:.1f} s: {per_hour_server / max(per_hour_device, 1e-9):.1f}x"
        )
    out = Path("artifacts")
    out.mkdir(exist_ok=True)
    (out / "engine_browser.json").write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
