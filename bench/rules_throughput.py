"""Throughput of the rules core: random playouts from many deals, measuring
``legal_moves`` + ``play`` in positions per second for each variant.

A position counts once it has had its legal moves listed and one of them
played; "children/s" also plays every listed move, as a solver expanding a
node does.  Rates are per second of this process's CPU time, so that other
work on a shared machine does not skew them.

    python bench/rules_throughput.py            # about 5 s per variant
    python bench/rules_throughput.py --smoke    # about 2 s in all
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from typing import Any

from jielong.engine.rules.registry import rules_for
from jielong.engine.rules.variants import VARIANTS, get_variant


def playouts(variant: str, seconds: float, max_steps: int, seed: int) -> tuple[int, int, float]:
    """Random playouts until ``seconds`` have passed: (positions, deals, elapsed)."""
    rules: Any = rules_for(variant)
    family = get_variant(variant).family
    top = 1_000_000 if family == "freecell" else 10**9
    rng = random.Random(seed)
    positions = deals = 0
    start = time.process_time()
    deadline = start + seconds
    while time.process_time() < deadline:
        pos = rules.deal(rng.randint(1, top))
        deals += 1
        for _ in range(max_steps):
            moves = rules.legal_moves(pos)
            positions += 1
            if not moves:
                break
            pos = rules.play(pos, moves[rng.randrange(len(moves))])
    return positions, deals, time.process_time() - start


def expansions(variant: str, seconds: float, max_steps: int, seed: int) -> tuple[int, float]:
    """Children generated per second: every listed move played at each step."""
    rules: Any = rules_for(variant)
    family = get_variant(variant).family
    top = 1_000_000 if family == "freecell" else 10**9
    rng = random.Random(seed)
    children = 0
    start = time.process_time()
    deadline = start + seconds
    while time.process_time() < deadline:
        pos = rules.deal(rng.randint(1, top))
        for _ in range(max_steps):
            moves = rules.legal_moves(pos)
            if not moves:
                break
            for m in moves:
                rules.play(pos, m)
            children += len(moves)
            pos = rules.play(pos, moves[rng.randrange(len(moves))])
    return children, time.process_time() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--smoke", action="store_true", help="a run of about 2 s in all")
    parser.add_argument("--seconds", type=float, default=None, help="time per variant and figure")
    parser.add_argument("--max-steps", type=int, default=200, help="moves per playout")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--variant", action="append", choices=sorted(VARIANTS))
    args = parser.parse_args(argv)
    seconds = args.seconds if args.seconds is not None else (0.25 if args.smoke else 2.5)
    variants = args.variant or list(VARIANTS)

    print(
        f"rules throughput: random playouts of up to {args.max_steps} moves, "
        f"{seconds:g} s per variant and figure, seed {args.seed}"
    )
    print(f"{'variant':<12} {'deals':>7} {'positions':>10} {'positions/s':>12} {'children/s':>11}")
    for variant in variants:
        playouts(variant, 0.02, args.max_steps, args.seed + 1)  # warm up imports and caches
        positions, deals, elapsed = playouts(variant, seconds, args.max_steps, args.seed)
        children, elapsed_c = expansions(variant, seconds, args.max_steps, args.seed)
        print(
            f"{variant:<12} {deals:>7} {positions:>10} {positions / elapsed:>12,.0f} "
            f"{children / elapsed_c:>11,.0f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
