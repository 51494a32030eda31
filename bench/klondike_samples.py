"""How many of the deals a Klondike hint samples are decided within their budget.

A hint deals the cards the player cannot see many times over and judges each
deal with every card known, on a budget of states (``verdict`` of
``klondike_sample``): a deal still undecided when the budget runs out counts
as lost for every move.  This bench builds such deals where hints are asked:
it wins each deal of a range it can with the solver's win-seeking search
alone (``find_win``, on a budget of states: the same lines on every
machine), walks the line, and at every
``--every``-th move with at least ``--unseen`` cards unseen deals the unseen
cards ``--per`` times (seeded by deal and move, so every run judges the same
deals).  Each is then judged at ``--nodes`` states: won, lost or undecided,
with the states spent and CPU seconds.  With ``--more``, the undecided ones
are judged again at that many states, which tells wins not found from
losses not proven.  The solver's compiled copy is used when it is built,
as the hint uses it.

    python bench/klondike_samples.py --start 1001 --end 1060                  # 1,128 deals
    python bench/klondike_samples.py --start 1001 --end 1060 --more 100000
    python bench/klondike_samples.py --smoke                                  # a few seconds
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from jielong.engine import native
from jielong.engine.rules.klondike import Klondike
from jielong.engine.rules.registry import rules_for
from jielong.engine.solve import klondike as own
from jielong.engine.solve.searches import klondike_sample, klondike_unseen

NAMES = {
    klondike_sample.WON: "won",
    klondike_sample.LOST: "lost",
    klondike_sample.OPEN: "undecided",
}


def judge() -> tuple[Callable[..., tuple[int, Any, int]], str]:
    """The sampled verdict, compiled when the compiled copy is built."""
    found = native.compiled_modules("klondike")
    if found is not None:
        return found["klondike_sample"].verdict, "compiled"
    return klondike_sample.verdict, "plain Python"


def sampled_deals(
    rules: Klondike, start: int, end: int, every: int, per: int, unseen: int, states: int
) -> list[Any]:
    """Deals of the unseen cards along the winning lines of deals ``start..end``."""
    deals: list[Any] = []
    for number in range(start, end + 1):
        position = rules.deal(number)
        found = own.find_win(rules, position, max_nodes=states)
        if found.status != "solved":
            continue
        for i, move in enumerate(found.moves):
            if i % every == 0:
                vis, _known = klondike_unseen.visible_state(position)
                cards = klondike_unseen.unknown_cards(vis)
                if len(cards) >= unseen:
                    rng = random.Random(number * 1000 + i)
                    for _ in range(per):
                        shuffled = cards[:]
                        rng.shuffle(shuffled)
                        deals.append(klondike_unseen.deal_unknown(vis, shuffled))
            position = rules.play(position, move)
    return deals


def run(
    verdict: Callable[..., tuple[int, Any, int]], deals: list[Any], draw: int, nodes: int
) -> list[int]:
    """Judge every deal at ``nodes`` states; print the counts; the undecided ones' indices."""
    counts: Counter[int] = Counter()
    spent = 0
    undecided: list[int] = []
    t = time.process_time()
    for k, st in enumerate(deals):
        status, _line, n = verdict(st, draw, nodes)
        counts[status] += 1
        spent += n
        if status == klondike_sample.OPEN:
            undecided.append(k)
    seconds = time.process_time() - t
    share = 100 * len(undecided) / max(1, len(deals))
    print(
        f"{nodes:>9,} states: "
        + "  ".join(f"{NAMES[s]} {counts[s]}" for s in NAMES)
        + f"  ({share:.1f}% undecided)  {spent:,} states  {seconds:.1f} s CPU"
    )
    return undecided


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--draw", type=int, choices=(1, 3), default=3)
    p.add_argument("--start", type=int, default=1001)
    p.add_argument("--end", type=int, default=1060)
    p.add_argument("--every", type=int, default=25, help="a position every this many moves")
    p.add_argument("--per", type=int, default=4, help="deals of the unseen cards per position")
    p.add_argument("--unseen", type=int, default=5, help="at least this many cards unseen")
    p.add_argument("--states", type=int, default=200_000, help="the win-seeker's states a deal")
    p.add_argument("--nodes", type=int, default=klondike_sample.NODES, help="states a deal")
    p.add_argument("--more", type=int, default=0, help="judge the undecided again at this many")
    p.add_argument("--smoke", action="store_true", help="a few deals, a few seconds")
    args = p.parse_args(argv)
    if args.smoke:
        args.start, args.end, args.more = 1001, 1003, 10_000
    rules = rules_for(f"klondike-{args.draw}")
    verdict, kind = judge()
    deals = sampled_deals(
        rules, args.start, args.end, args.every, args.per, args.unseen, args.states
    )
    print(
        f"Klondike draw {args.draw}, deals {args.start}..{args.end}: {len(deals)} deals of the"
        f" unseen cards ({args.per} every {args.every} moves), the verdict {kind}"
    )
    undecided = run(verdict, deals, args.draw, args.nodes)
    if args.more and undecided:
        run(verdict, [deals[k] for k in undecided], args.draw, args.more)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
