"""The own Klondike solver against Klondike-Solver (``pyksolve``), same deals, one run.

Both solvers get the same deal: ours by number, Klondike-Solver through
``load_solitaire`` in its 3-digit card format and dealing order, then
``reset_game(draw)`` and ``solve_minimal`` (the one of its calls that can say
"impossible"; that verdict is relative to its own pruned move set).  For each
solver: solved / proven unsolvable / unknown, median / p95 / max seconds per
deal, mean solution length (ours counts every draw and recycle), and the ratio
of medians ours/theirs.  Seconds are CPU seconds of this process, and our
budget is in CPU seconds too, so a busy machine does not change verdicts.

Also the visible-information hint: seconds per hint on positions from random
playouts, median / p95 / max, and how often each kind of answer came.

    python bench/klondike_solver.py --deals 100 --draw 3 --seconds 30
    python bench/klondike_solver.py --deals 1000 --draw 3 --seconds 30   # the full run
    python bench/klondike_solver.py --smoke                              # a few seconds
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time
from collections import Counter
from typing import Any

from jielong.engine.rules.klondike import Klondike, KlondikePosition
from jielong.engine.rules.registry import rules_for
from jielong.engine.solve import klondike as own


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def theirs_deck(pos: KlondikePosition) -> str:
    """Klondike-Solver's deck: rows dealt left to right from pile ``r`` on
    (the first card of row ``r`` is the face-up top of pile ``r``), then the
    stock in the order it is turned; each card two digits of rank and a suit
    digit (1 clubs, 2 diamonds, 3 hearts, 4 spades)."""
    order = [pos.tableau[c][row] for row in range(7) for c in range(row, 7)]
    order += list(reversed(pos.stock))
    return "".join(f"{(c >> 2) + 1:02d}{(c & 3) + 1}" for c in order)


def run_theirs(pos: KlondikePosition, draw: int, states: int) -> tuple[str, float, int]:
    from pyksolve import solver

    game = solver.Solitaire()
    if not game.load_solitaire(theirs_deck(pos)):
        raise RuntimeError("Klondike-Solver refused the deck")
    game.reset_game(draw)
    t = time.process_time()
    res = game.solve_minimal(states)
    seconds = time.process_time() - t
    status = {1: "solved", -1: "solved", 0: "unsolvable"}.get(res.value, "unknown")
    return status, seconds, int(game.moves_made_count) if status == "solved" else 0


def run_ours(rules: Klondike, pos: KlondikePosition, seconds: float) -> tuple[str, float, int]:
    t = time.process_time()
    res = own.solve(rules, pos, max_seconds=seconds, clock=time.process_time)
    return res.status, time.process_time() - t, len(res.moves)


def _row(name: str, rows: list[tuple[str, float, int]]) -> str:
    c = Counter(r[0] for r in rows)
    times = [r[1] for r in rows]
    lengths = [r[2] for r in rows if r[0] == "solved"]
    n = len(rows)
    return (
        f"{name:<16} solved {c['solved']:>4} ({100 * c['solved'] / n:5.1f}%)"
        f"  unsolvable {c['unsolvable']:>4} ({100 * c['unsolvable'] / n:5.1f}%)"
        f"  unknown {c['unknown']:>4} ({100 * c['unknown'] / n:5.1f}%)"
        f"  median {statistics.median(times):6.2f}s  p95 {_pct(times, 0.95):6.2f}s"
        f"  max {max(times):6.2f}s"
        f"  mean length {statistics.mean(lengths) if lengths else float('nan'):6.1f}"
    )


def _win_rate(rows: list[tuple[str, float, int]], draw: int) -> str:
    """Deals proven winnable, with a 95% Wilson interval; unknown deals
    could go either way, so they widen the range."""
    n = len(rows)
    won = sum(r[0] == "solved" for r in rows)
    unknown = sum(r[0] == "unknown" for r in rows)
    z = 1.96
    p = won / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (
        f"win rate {100 * p:.1f}% (95% interval {100 * (centre - half):.1f}%"
        f"..{100 * (centre + half):.1f}%), {100 * (won + unknown) / n:.1f}% if every unknown"
        " deal were winnable"
        + ("; Blake & Gent 2019, thoughtful draw 3: 81.945% +- 0.084%" if draw == 3 else "")
    )


def bench_solvers(args: Any) -> None:
    rules = rules_for(f"klondike-{args.draw}")
    assert isinstance(rules, Klondike)
    ours: list[tuple[str, float, int]] = []
    theirs: list[tuple[str, float, int]] = []
    disagree: list[int] = []
    for number in range(args.start, args.start + args.deals):
        pos = rules.deal(number)
        line = f"  deal {number}:"
        if args.ours:
            a = run_ours(rules, pos, args.seconds)
            ours.append(a)
            line += f" ours {a[0]} {a[1]:.2f}s {a[2]} moves"
        if args.theirs:
            b = run_theirs(pos, args.draw, args.states)
            theirs.append(b)
            line += f"  theirs {b[0]} {b[1]:.2f}s"
            if args.ours and {ours[-1][0], b[0]} == {"solved", "unsolvable"}:
                disagree.append(number)
        if args.verbose:
            print(line, flush=True)
    print(
        f"Klondike draw {args.draw}, deals {args.start}..{args.start + args.deals - 1}, "
        f"ours {args.seconds:g} s per deal, theirs {args.states:,} states"
    )
    if ours:
        print(_row("own", ours))
        print(_win_rate(ours, args.draw))
    if theirs:
        print(_row("Klondike-Solver", theirs))
    if ours and theirs:
        ratio = statistics.median(r[1] for r in ours) / max(
            statistics.median(r[1] for r in theirs), 1e-9
        )
        print(f"median seconds ours/theirs: {ratio:.3g}")
        decided = sum(r[0] != "unknown" for r in ours)
        print(f"decided: own {decided}, Klondike-Solver {sum(r[0] != 'unknown' for r in theirs)}")
        if disagree:
            # its "impossible" is relative to its pruned moves; ours is exhaustive
            print(f"solved by one, impossible for the other: deals {disagree}")


def bench_hints(args: Any) -> None:
    rules = rules_for(f"klondike-{args.draw}")
    assert isinstance(rules, Klondike)
    rng = random.Random(args.seed)
    times: list[float] = []
    kinds: Counter[str] = Counter()
    for _ in range(args.hints):
        pos = rules.deal(rng.randint(1, 1_000_000))
        for _ in range(rng.randint(0, 150)):
            moves = rules.legal_moves(pos)
            if not moves:
                break
            pos = rules.play(pos, rng.choice(moves))
        t = time.process_time()
        h = own.hint(rules, pos, max_seconds=args.hint_seconds)
        times.append(time.process_time() - t)
        kinds[h.kind] += 1
    if times:
        print(
            f"hint, draw {args.draw}, {len(times)} positions from random playouts "
            f"(deadline {args.hint_seconds:g} s): median {statistics.median(times):.3f}s"
            f"  p95 {_pct(times, 0.95):.3f}s  max {max(times):.3f}s  kinds {dict(kinds)}"
        )


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--deals", type=int, default=100, help="how many deals")
    p.add_argument("--start", type=int, default=1, help="first deal number")
    p.add_argument("--draw", type=int, choices=(1, 3), default=3)
    p.add_argument("--seconds", type=float, default=30.0, help="our budget per deal")
    p.add_argument("--states", type=int, default=5_000_000, help="Klondike-Solver's budget")
    p.add_argument("--no-theirs", dest="theirs", action="store_false")
    p.add_argument("--no-ours", dest="ours", action="store_false", help="Klondike-Solver alone")
    p.add_argument("--hints", type=int, default=200, help="hint positions to time")
    p.add_argument("--hint-seconds", type=float, default=2.0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--verbose", action="store_true")
    p.add_argument("--smoke", action="store_true", help="a few deals, a few seconds")
    args = p.parse_args(argv)
    if args.smoke:
        args.deals, args.seconds, args.states, args.hints = 4, 1.0, 100_000, 10
    bench_solvers(args)
    bench_hints(args)


if __name__ == "__main__":
    main()
