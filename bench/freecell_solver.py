"""The own FreeCell solver against Freecell Solver, on the same deals, in one run.

For each solver: deals solved, median / p95 / max seconds per deal, mean
solution length, and the ratio ours/theirs.  Lengths are given two ways: in
single-card moves (what ``SolveResult.moves`` holds) and counted by hand (a
run move the rules allow counts one, each card sent home one; Freecell
Solver's own records are counted that way already).  Seconds are CPU seconds
of this process (both solvers run in-process), so other work on a shared
machine does not inflate them.

Also: hint latency from mid-game positions (random playouts), with Freecell
Solver first and with the own solver alone; and, with ``--impossible``, the
own solver's proof for each deal of ``jielong/engine/data/unsolvable-freecell.txt``.

    python bench/freecell_solver.py                     # deals 1..1000
    python bench/freecell_solver.py --start 1 --end 32000 --hints 0
    python bench/freecell_solver.py --impossible --end 0 --hints 0
    python bench/freecell_solver.py --smoke             # a few seconds
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

# This script's name would shadow the ``freecell_solver`` binding it measures.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

from jielong.engine.catalogue import unsolvable_deals  # noqa: E402
from jielong.engine.rules.registry import rules_for  # noqa: E402
from jielong.engine.solve import fcsolve, freecell_hint  # noqa: E402
from jielong.engine.solve import freecell as own  # noqa: E402


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def _row(name: str, times: list[float], solved: int, total: int, lengths: list[int]) -> str:
    mean_len = statistics.mean(lengths) if lengths else float("nan")
    return (
        f"{name:10s} solved {solved}/{total}  median {statistics.median(times) * 1e3:8.2f} ms"
        f"  p95 {_pct(times, 0.95) * 1e3:8.2f} ms  max {max(times) * 1e3:9.1f} ms"
        f"  total {sum(times):8.1f} s  mean length {mean_len:6.1f}"
    )


def compare(variant: str, start: int, end: int, nodes: int) -> None:
    rules: Any = rules_for(variant)
    deals = [n for n in range(start, end + 1)]
    ours_t: list[float] = []
    ours_len: list[int] = []
    ours_hand: list[int] = []
    ours_solved = 0
    slow: list[tuple[int, float]] = []
    for n in deals:
        pos = rules.deal(n)
        t = time.process_time()
        # a node budget, not a clock: other work on the machine must not cut it short
        result = own.solve(rules, pos, max_nodes=nodes)
        dt = time.process_time() - t
        ours_t.append(dt)
        if result.status == "solved":
            ours_solved += 1
            ours_len.append(len(result.moves))
            ours_hand.append(own.run_move_length(rules, pos, result.moves))
        elif n not in unsolvable_deals("freecell"):
            print(f"  own solver: deal {n} {result.status} after {dt:.2f} s", flush=True)
        if dt > 5:
            slow.append((n, dt))
    print(_row("own", ours_t, ours_solved, len(deals), ours_hand))
    print(f"{'':10s} mean length in single-card moves {statistics.mean(ours_len or [0]):.1f}")
    if slow:
        print("  over 5 s: " + ", ".join(f"{n} ({dt:.1f} s)" for n, dt in slow))
    if not fcsolve.available():
        print("fcsolve    not installed")
        return
    theirs_t: list[float] = []
    theirs_len: list[int] = []
    theirs_solved = 0
    for n in deals:
        pos = rules.deal(n)
        t = time.process_time()
        status, length, _, _ = fcsolve.verdict(pos, proof=False)
        theirs_t.append(time.process_time() - t)
        if status == "solved":
            theirs_solved += 1
            theirs_len.append(length)
    print(_row("fcsolve lg", theirs_t, theirs_solved, len(deals), theirs_len))
    # the same, its line made into moves and replayed through the rules, as
    # the own solver's always is (and as a hint gets Freecell Solver's)
    lined_t: list[float] = []
    for n in deals:
        pos = rules.deal(n)
        t = time.process_time()
        fcsolve.solve(rules, pos, proof=False)
        lined_t.append(time.process_time() - t)
    print(
        f"{'':10s} with its line made into moves and replayed: median"
        f" {statistics.median(lined_t) * 1e3:.2f} ms  total {sum(lined_t):.1f} s"
    )
    print(
        "ratio ours/theirs: median time "
        f"{statistics.median(ours_t) / statistics.median(theirs_t):.1f}"
        f", total time {sum(ours_t) / sum(theirs_t):.1f}"
        f", mean length {statistics.mean(ours_hand) / statistics.mean(theirs_len):.2f}"
        f"; against their line replayed too: median time"
        f" {statistics.median(ours_t) / statistics.median(lined_t):.1f}"
        f", total time {sum(ours_t) / sum(lined_t):.1f}"
    )


def hint_latency(variant: str, count: int, deadline: float, seed: int) -> None:
    rules: Any = rules_for(variant)
    rng = random.Random(seed)
    positions = []
    while len(positions) < count:
        pos = rules.deal(rng.randint(1, 32000))
        for _ in range(rng.randint(5, 60)):
            legal = [m for m in rules.legal_moves(pos) if m.dst.kind != "cell"]
            legal = legal or rules.legal_moves(pos)
            if not legal:
                break
            pos = rules.play(pos, rng.choice(legal))
        if rules.legal_moves(pos):
            positions.append(pos)
    setups = [("own", False)]
    if fcsolve.available():
        setups.insert(0, ("fcsolve", True))
    for name, use_fc in setups:
        cpu: list[float] = []
        wall: list[float] = []
        kinds: dict[str, int] = {}
        for pos in positions:
            t, w = time.process_time(), time.perf_counter()
            hint = freecell_hint.freecell_hint(rules, pos, deadline, use_fcsolve=use_fc)
            cpu.append(time.process_time() - t)
            wall.append(time.perf_counter() - w)
            kinds[hint.kind] = kinds.get(hint.kind, 0) + 1
        print(
            f"hints {variant} {name:8s} {len(positions)} positions: "
            f"p95 {_pct(cpu, 0.95) * 1e3:.1f} ms CPU ({_pct(wall, 0.95) * 1e3:.1f} ms wall), "
            f"median {statistics.median(cpu) * 1e3:.1f} ms, max {max(cpu) * 1e3:.1f} ms; "
            + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items()))
        )


def impossible() -> None:
    rules: Any = rules_for("freecell")
    total = 0.0
    for n in sorted(unsolvable_deals("freecell")):
        t = time.process_time()
        verdict, nodes = own.prove(rules.deal(n))
        dt = time.process_time() - t
        total += dt
        print(f"deal {n:7d}: {verdict} ({nodes} states, {dt:.2f} s)", flush=True)
    print(f"all proofs: {total:.1f} s")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--smoke", action="store_true", help="a run of a few seconds")
    p.add_argument("--variant", default="freecell", choices=["freecell", "kongdang"])
    p.add_argument("--start", type=int, default=1)
    p.add_argument("--end", type=int, default=1000)
    p.add_argument("--nodes", type=int, default=150_000, help="own solver budget per deal")
    p.add_argument("--hints", type=int, default=200, help="mid-game hint positions")
    p.add_argument("--hint-deadline", type=float, default=2.0)
    p.add_argument("--impossible", action="store_true", help="prove the unsolvable deals")
    args = p.parse_args(argv)
    if args.smoke:
        args.start, args.end, args.hints = 1, 5, 10
    if args.end >= args.start:
        print(f"deals {args.start}..{args.end} ({args.variant}), CPU seconds per deal")
        compare(args.variant, args.start, args.end, args.nodes)
    if args.hints:
        for variant in ("freecell", "kongdang"):
            hint_latency(variant, args.hints, args.hint_deadline, seed=1)
    if args.impossible:
        impossible()
    return 0


if __name__ == "__main__":
    sys.exit(main())
