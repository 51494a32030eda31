"""The ``solve`` and ``survey`` subcommands of :mod:`jielong.cli`."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from jielong.cli.survey import Budget, SurveyError, survey
from jielong.engine.catalogue import check_deal_number
from jielong.engine.notation import format_move
from jielong.engine.rules.core import PositionParseError
from jielong.engine.rules.freecell import FreeCell
from jielong.engine.rules.registry import rules_for
from jielong.engine.rules.variants import VARIANTS, get_variant
from jielong.engine.solve import api, fcsolve
from jielong.engine.solve.freecell import run_move_length


def _fail(message: str) -> int:
    print(f"jielong: {message}", file=sys.stderr)
    return 2


def cmd_solve(args: argparse.Namespace) -> int:
    variant = get_variant(args.variant)
    rules = rules_for(variant.id)
    if args.position is not None:
        source = "standard input" if args.position == "-" else args.position
        try:
            if args.position == "-":
                text = sys.stdin.buffer.read().decode("utf-8")
            else:
                text = Path(args.position).read_text(encoding="utf-8")
            position = rules.from_text(text)
        except OSError as e:
            return _fail(f"cannot read {source}: {e.strerror}")
        except UnicodeDecodeError:
            return _fail(f"{source} is not UTF-8 text")
        except (PositionParseError, ValueError) as e:
            return _fail(f"not a {variant.id} position ({source}): {e}")
    elif args.number is None:
        return _fail("give a deal number or --position FILE")
    else:
        check_deal_number(variant.id, args.number)
        position = rules.deal(args.number)
    if args.solver == "fcsolve":
        if variant.family != "freecell":
            return _fail("--solver fcsolve is for FreeCell variants")
        if not fcsolve.available():
            return _fail("Freecell Solver is not installed (libfreecell-solver0)")
    result = api.solve(
        variant.id,
        position,
        max_nodes=args.budget,
        max_seconds=args.seconds,
        solver=args.solver,
    )
    # exact: read back through the notation, these replay the very moves
    moves = [format_move(m, count=True) for m in result.moves]
    if args.json:
        out: dict[str, object] = {"status": result.status, "moves": moves}
        out.update(nodes=result.nodes, seconds=round(result.seconds, 4), solver=result.solver)
        out["thoughtful"] = api.thoughtful(position)
        print(json.dumps(out))
        return 0
    print(f"{result.status} ({result.solver}, {result.nodes} nodes, {result.seconds:.3f} s)")
    if api.thoughtful(position):
        print("for the cards as they lie: the solver sees the face-down cards (thoughtful)")
    if result.moves:
        line = f"{len(moves)} single-card moves"
        if isinstance(rules, FreeCell):
            line += f", {run_move_length(rules, position, result.moves)} counted by hand"
        print(line)
        print(" ".join(moves))
    return 0


def cmd_survey(args: argparse.Namespace) -> int:
    out = args.out or f"survey-{args.variant}-{args.start}-{args.end}.txt"
    try:
        summary = survey(
            args.variant,
            args.start,
            args.end,
            out,
            workers=args.workers,
            dask_address=args.dask,
            solver=args.solver,
            budget=Budget(args.budget, args.seconds),
            proofs=args.proofs,
            progress=not args.quiet,
        )
    except SurveyError as e:
        return _fail(str(e))
    except KeyboardInterrupt:
        print(f"interrupted; run the same command again to resume ({out})", file=sys.stderr)
        return 130
    counts = ", ".join(f"{k} {v}" for k, v in sorted(summary.statuses.items()))
    # the counts and figures cover the deals already in the file as well
    print(
        f"deals {args.start}..{args.end}: {summary.done} done now, "
        f"{summary.skipped} already in {out}; {counts or 'none'}; "
        f"{summary.seconds:.1f} s"
    )
    if summary.unsolvable:
        print("unsolvable (proven): " + " ".join(map(str, summary.unsolvable)))
    if summary.unknown:
        print("unknown (budget ran out): " + " ".join(map(str, summary.unknown)))
    if summary.deal_seconds:
        share, low, high = summary.solvable()
        print(
            f"solvable: {100 * share:.2f}% "
            f"(95% interval {100 * low:.2f}..{100 * high:.2f}%, the high end as if every "
            "unknown deal were winnable)"
        )
        print(
            f"CPU seconds per deal: median {summary.percentile(0.5):.2f}, "
            f"p95 {summary.percentile(0.95):.2f}, max {max(summary.deal_seconds):.2f}"
        )
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser("solve", help="solve a deal or a position")
    p.add_argument("variant", choices=sorted(VARIANTS))
    p.add_argument("number", type=int, nargs="?", help="deal number (or use --position)")
    p.add_argument(
        "--position",
        metavar="FILE",
        help="a position's text (- reads standard input): Freecell Solver's or PySolFC's "
        "board for FreeCell, the position text or PySolFC's layout for Klondike",
    )
    p.add_argument("--json", action="store_true", help='print {"status": ..., "moves": [...]}')
    p.add_argument("--solver", choices=["own", "fcsolve"], default="own")
    p.add_argument("--budget", type=int, metavar="NODES", help="stop after this many nodes")
    p.add_argument("--seconds", type=float, metavar="S", help="stop after this many seconds")
    p.set_defaults(func=cmd_solve)

    p = subparsers.add_parser("survey", help="solve every deal of a range")
    p.add_argument("variant", choices=sorted(VARIANTS))
    p.add_argument("start", type=int)
    p.add_argument("end", type=int)
    p.add_argument("--out", metavar="FILE", help="results file (appended; resumes)")
    p.add_argument("--workers", type=int, metavar="N", help="local processes (default: cores)")
    p.add_argument(
        "--dask",
        metavar="ADDR",
        help="a Dask scheduler, e.g. tcp://host:8786, or 'local' to start a scheduler and "
        "--workers worker processes here for the survey",
    )
    p.add_argument("--solver", choices=["own", "fcsolve"], default="own")
    p.add_argument("--budget", type=int, metavar="NODES", help="node budget per deal")
    p.add_argument("--seconds", type=float, metavar="S", help="seconds per deal")
    p.add_argument(
        "--proofs",
        action="store_true",
        help="prove every deal the first pass did not solve (exhaustive search)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_survey)
