"""A player who plays only hinted moves, on many deals of every variant.

For each variant: deals won with a 95% interval (Wilson), circles (a
position coming up a third time), how the games ended, moves to a win, hint
wall and CPU time (p50 / p95 / max) and deals of the unseen cards sampled per
hint.  In process by default (the hint computed as a server's worker computes
it, with the game's positions and its last hint); with ``--http`` through the
HTTP API of a ``jielong serve`` started for the run (wall time only).

Each game is one JSON line in ``--out`` (appended; deals already there are
skipped), so a long run can be stopped, resumed and summed up later
(``--report`` only reads the file).

    python bench/hint_play.py --variant klondike-3 --start 1 --end 1000 --out k3.jsonl
    python bench/hint_play.py --variant freecell --no-fcsolve --start 1 --end 1000
    python bench/hint_play.py --variant kongdang --http --end 20
    python bench/hint_play.py --report k3.jsonl
    python bench/hint_play.py --variant klondike-1 --end 500 --jobs 2 --out k1.jsonl
    python bench/hint_play.py --smoke          # a few deals of each variant
"""

from __future__ import annotations

import argparse
import inspect
import json
import math
import statistics
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

import httpx

# bench/freecell_solver.py would shadow the ``freecell_solver`` binding
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

from jielong.engine.solve import fcsolve, freecell, klondike  # noqa: E402
from jielong.engine.solve.chance import wilson  # noqa: E402
from jielong.testing.follower import Game, HintRecord, follow, local_hint  # noqa: E402
from jielong.testing.processes import ServerProcess  # noqa: E402
from jielong.web.services.hintpool import WALL_FACTOR, cpu_clock  # noqa: E402

VARIANTS = ("freecell", "kongdang", "klondike-3", "klondike-1")


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def _circle_key(position: dict[str, Any]) -> str:
    # a recycle past the first that plays nothing brings the same cards back
    if isinstance(position.get("recycles"), int):
        position = {**position, "recycles": min(position["recycles"], 1)}
    return json.dumps(position, sort_keys=True)


def follow_http(client: httpx.Client, variant: str, deal: int, max_hints: int = 1500) -> Game:
    """The same player through the HTTP API."""
    game = Game(variant, deal)
    r = client.post("/api/games", json={"variant": variant, "deal": deal})
    r.raise_for_status()
    state = r.json()
    counts: Counter[str] = Counter([_circle_key(state["position"])])
    for _ in range(max_hints):
        if state["flags"]["won"]:
            break
        start = time.perf_counter()
        r = client.post(f"/api/games/{state['id']}/hint", json={"version": state["version"]})
        wall = time.perf_counter() - start
        if r.status_code in (429, 503):
            # over the hint limits (a player's burst, then one a second), or
            # the pool full: wait as the answer says, as the page's demo does
            time.sleep(float(r.headers.get("Retry-After", "0.5")))
            continue
        r.raise_for_status()
        hint = r.json()
        game.hints.append(
            HintRecord(
                hint["kind"],
                wall,
                float("nan"),
                int(hint.get("samples", 0)),
                hint.get("win_chance"),
                int(hint.get("decided", 0)),
            )
        )
        move = hint["move"]
        if move is None:
            game.end = hint["kind"]
            break
        body: dict[str, Any] = {"version": state["version"]}
        if "stock" in (move["from"], move["to"]):
            body["type"] = "draw"
        else:
            body.update(type="move", **{"from": move["from"], "to": move["to"]})
            body["count"] = move.get("count", 1)
            if hint.get("steps"):
                body["steps"] = hint["steps"]
        r = client.post(f"/api/games/{state['id']}/actions", json=body)
        r.raise_for_status()
        state = r.json()
        game.moves = state["counters"]["moves"]
        key = _circle_key(state["position"])
        counts[key] += 1
        game.most_seen = max(game.most_seen, counts[key])
        if counts[key] > 2:
            game.end = "circle"
            break
    else:
        game.end = "limit"
    if state["flags"]["won"]:
        game.won, game.end = True, "won"
    return game


def record(game: Game, fcs: bool, http: bool) -> dict[str, Any]:
    return {
        "variant": game.variant,
        "deal": game.deal,
        "fcsolve": fcs,
        "http": http,
        "won": game.won,
        "end": game.end,
        "moves": game.moves,
        "most_seen": game.most_seen,
        "hints": [
            [h.kind, round(h.wall, 5), round(h.cpu, 5), h.samples]
            + [None if h.chance is None else round(h.chance, 5), h.decided]
            + [h.face_down + h.stock_unseen]
            + [None if h.hindsight is None else round(h.hindsight, 5)]
            + [h.face_down, h.stock_unseen]
            for h in game.hints
        ],
        "compiled": compiled(game.variant),
    }


def _how_compiled(native: bool | None) -> str:
    if native is None:
        return ""
    return ", solver compiled" if native else ", solver in plain Python"


def compiled(variant: str) -> bool:
    """Whether the variant's own solver runs compiled (``make native``) here."""
    module = klondike if "klondike" in variant else freecell
    return not inspect.isfunction(module.solve)


def report(rows: list[dict[str, Any]]) -> str:
    """One block per (variant, Freecell Solver, HTTP) of the rows."""
    groups: dict[tuple[str, bool, bool, bool | None], list[dict[str, Any]]] = {}
    played = set()
    for row in rows:
        key = (row["variant"], row["fcsolve"], row["http"], row.get("compiled"))
        if (*key, row["deal"]) in played:
            continue  # a deal played again (the same game: hints are reproducible)
        played.add((*key, row["deal"]))
        groups.setdefault(key, []).append(row)
    out = []
    for (variant, fcs, http, native), games in sorted(groups.items(), key=lambda g: str(g[0])):
        n = len(games)
        won = sum(g["won"] for g in games)
        lo, hi = wilson(won, n)
        deals = sorted(g["deal"] for g in games)
        ends = Counter(g["end"] for g in games)
        circles = sum(g["most_seen"] > 2 for g in games)
        to_win = [g["moves"] for g in games if g["won"]]
        hints = [h for g in games for h in g["hints"]]
        walls = [h[1] for h in hints]
        cpus = [h[2] for h in hints if not math.isnan(h[2])]
        sampled = [h[3] for h in hints if h[3] > 0]
        decided = sum(h[5] for h in hints if h[3] > 0 and len(h) > 5)
        kinds = Counter(h[0] for h in hints)
        how = (
            ("with" if fcs else "without") + " Freecell Solver"
            if "kong" in variant or "freecell" in variant
            else ""
        )
        out.append(
            f"{variant} {how}{' (HTTP)' if http else ''}"
            f"{_how_compiled(native)}:"
            f" deals {deals[0]}..{deals[-1]} ({n} games)\n"
            f"  won {won}/{n} = {100 * won / n:.1f}%"
            f" (95% interval {100 * lo:.1f}..{100 * hi:.1f}%)"
            f"  circles {circles}  ends {dict(sorted(ends.items()))}\n"
            f"  moves to a win: median {statistics.median(to_win) if to_win else float('nan'):.0f}"
            f"  hints {len(hints)} {dict(sorted(kinds.items()))}\n"
            f"  hint wall p50 {pct(walls, 0.5) * 1e3:.1f} ms  p95 {pct(walls, 0.95) * 1e3:.1f} ms"
            f"  max {max(walls, default=float('nan')) * 1e3:.0f} ms"
            + (
                f"  CPU p50 {pct(cpus, 0.5) * 1e3:.1f} ms  p95 {pct(cpus, 0.95) * 1e3:.1f} ms"
                f"  max {max(cpus) * 1e3:.0f} ms"
                if cpus
                else ""
            )
            + (
                f"\n  deals sampled per sampled hint: mean {statistics.mean(sampled):.1f}"
                f"  p5 {pct([float(s) for s in sampled], 0.05):.0f}"
                f"  decided {decided}/{sum(sampled)} ({100 * decided / sum(sampled):.1f}%)"
                if sampled
                else ""
            )
        )
    return "\n".join(out)


def _start_player(wall: bool, no_fcsolve: bool) -> None:
    """Set up a process that plays: the solvers' deadlines counted as in a
    server's hint worker (its CPU time, bounded in wall time) unless
    ``wall``; Freecell Solver hidden when ``no_fcsolve``."""
    if no_fcsolve:
        fcsolve.available.cache_clear()
        fcsolve.available = lambda: False  # type: ignore[method-assign]
    if not wall:
        time.monotonic = cpu_clock(WALL_FACTOR)  # type: ignore[assignment]


def _play(variant: str, deal: int, deadline: float, wall: bool, smoke: bool) -> Game:
    """One deal played by hints alone, in process."""
    if smoke and "klondike" in variant:
        return follow(variant, deal, local_hint(0.3, time.process_time), max_hints=150)
    return follow(
        variant, deal, local_hint(deadline, time.perf_counter if wall else time.process_time)
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--variant", action="append", choices=VARIANTS)
    p.add_argument("--start", type=int, default=1)
    p.add_argument("--end", type=int, default=20)
    p.add_argument("--deadline", type=float, default=1.0, help="seconds per hint")
    p.add_argument(
        "--wall",
        action="store_true",
        help="in process, count the hint's deadline in wall time (by default as a server's"
        " hint worker counts it: its CPU time, so that a busy machine plays the same)",
    )
    p.add_argument("--no-fcsolve", action="store_true", help="FreeCell: the own solver alone")
    p.add_argument("--jobs", type=int, default=1, help="in process: play this many deals at once")
    p.add_argument("--http", action="store_true", help="through the HTTP API of jielong serve")
    p.add_argument("--out", type=Path, help="append each game as a JSON line; skip deals there")
    p.add_argument("--report", type=Path, help="only sum up a file written with --out")
    p.add_argument(
        "--smoke", action="store_true", help="FreeCell: two deals; Klondike: one, short hints"
    )
    args = p.parse_args(argv)
    if args.report:
        rows = [json.loads(line) for line in args.report.read_text().splitlines() if line]
        print(report(rows))
        return 0
    variants = args.variant or list(VARIANTS)
    start, end = (1, 2) if args.smoke else (args.start, args.end)
    fcs = fcsolve.available() and not args.no_fcsolve
    done: set[tuple[str, int]] = set()
    if args.out and args.out.exists():
        for line in args.out.read_text().splitlines():
            row = json.loads(line)
            uses_fcs = fcs and "klondike" not in row["variant"]
            if row["fcsolve"] == uses_fcs and row["http"] == args.http:
                done.add((row["variant"], row["deal"]))
    rows: list[dict[str, Any]] = []
    server = None
    client = None
    if args.http:
        db = Path(tempfile.mkdtemp(prefix="jielong-hint-play-")) / "games.sqlite3"
        server = ServerProcess(
            f"sqlite:///{db}", "--hint-seconds", str(args.deadline), "--hint-workers", "1"
        ).start()
        client = httpx.Client(base_url=server.url, timeout=60.0)
    todo = [
        (variant, deal)
        for variant in variants
        for deal in range(start, end + 1)
        if (variant, deal) not in done
    ]

    def keep(game: Game) -> None:
        row = record(game, fcs and "klondike" not in game.variant, args.http)
        rows.append(row)
        if args.out:
            with args.out.open("a") as f:
                f.write(json.dumps(row) + "\n")

    try:
        if client is not None:
            for variant, deal in todo:
                keep(follow_http(client, variant, deal))
        elif args.jobs > 1:
            with ProcessPoolExecutor(
                args.jobs, initializer=_start_player, initargs=(args.wall, not fcs)
            ) as pool:
                plays = [
                    pool.submit(_play, v, d, args.deadline, args.wall, args.smoke) for v, d in todo
                ]
                for done_play in as_completed(plays):
                    keep(done_play.result())
        else:
            _start_player(args.wall, not fcs)
            for variant, deal in todo:
                if args.smoke and "klondike" in variant and deal > start:
                    continue
                keep(_play(variant, deal, args.deadline, args.wall, args.smoke))
    finally:
        if client is not None:
            client.close()
        if server is not None:
            server.stop()
    print(report(rows) if rows else "nothing new to play")
    bad = [r for r in rows if r["most_seen"] > 2]
    if args.smoke and bad:
        print(f"circles: {[(r['variant'], r['deal']) for r in bad]}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
