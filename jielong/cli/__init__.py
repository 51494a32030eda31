"""The ``jielong`` command: deal, play, solve, survey, serve."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import TextIO

from jielong.cli import doctor, serve, solve
from jielong.engine.cards import format_cards
from jielong.engine.catalogue import check_deal_number
from jielong.engine.notation import format_move, parse_move
from jielong.engine.rules.core import IllegalMoveError, InvalidMoveError, play_checked
from jielong.engine.rules.registry import rules_for
from jielong.engine.rules.variants import VARIANTS, get_variant
from jielong.engine.shuffles import DealError, klondike_deal
from jielong.engine.textboard import draw, position_text
from jielong.optional import MissingExtra

Handler = Callable[[argparse.Namespace], int]


def klondike_layout(number: int) -> str:
    """A readable Klondike deal: the stock in turning order and the piles with
    face-down cards in angle brackets."""
    d = klondike_deal(number)
    lines = ["Stock (next card first): " + format_cards(reversed(d.stock))]
    for i, pile in enumerate(d.piles):
        down = " ".join(f"<{c.code()}>" for c in pile[:-1])
        lines.append(f"Pile {i + 1}: {down} {pile[-1].code()}".replace(":  ", ": "))
    return "\n".join(lines) + "\n"


def cmd_deal(args: argparse.Namespace) -> int:
    variant = get_variant(args.variant)
    check_deal_number(variant.id, args.number)
    rules = rules_for(variant.id)
    if args.format == "text":
        if variant.family == "klondike":
            sys.stdout.write(klondike_layout(args.number))
        else:
            sys.stdout.write(rules.to_text(rules.deal(args.number)))
        return 0
    if args.format == "fcs" and variant.family != "freecell":
        raise DealError("--format fcs (Freecell Solver's board) is for FreeCell deals")
    sys.stdout.write(position_text(rules, rules.deal(args.number), args.format))
    return 0


PLAY_HELP = """\
Moves: FreeCell 3a a5 7h 26 (26/3 to choose a run's length into an empty column)
       Klondike s (draw or recycle) w3 wh 3h 37 h3 (h23 names the second foundation)
       or the long form: tableau:2 tableau:5 3
Commands: u undo, r restart, m list legal moves, h help, q quit
"""


def play_loop(variant_id: str, number: int, inp: TextIO, out: TextIO) -> int:
    variant = get_variant(variant_id)
    rules = rules_for(variant_id)
    history = [rules.deal(number)]
    out.write(f"{variant.names['en']} #{number}. Type h for help.\n")
    while True:
        pos = history[-1]
        legal = rules.legal_moves(pos)
        out.write("\n" + draw(pos) + "\n")
        if rules.is_won(pos):
            out.write(f"Won in {len(history) - 1} moves.\n")
            return 0
        if not legal:
            out.write("No legal move: undo (u), restart (r) or quit (q).\n")
        out.write("> ")
        out.flush()
        line = inp.readline()
        if not line:
            return 0
        cmd = line.strip()
        if cmd in ("q", "quit"):
            return 0
        if cmd in ("h", "help", "?"):
            out.write(PLAY_HELP)
        elif cmd == "u":
            if len(history) > 1:
                history.pop()
            else:
                out.write("Nothing to undo.\n")
        elif cmd == "r":
            del history[1:]
        elif cmd == "m":
            out.write(" ".join(format_move(m, count=True) for m in legal) + "\n")
        elif cmd:
            try:
                move = parse_move(cmd, legal, variant.family)
                history.append(play_checked(rules, pos, move))
            except InvalidMoveError as e:
                out.write(f"{e}\n")
            except IllegalMoveError as e:
                out.write(f"Illegal: {e.reason.value.replace('_', ' ')}\n")


def cmd_play(args: argparse.Namespace) -> int:
    check_deal_number(args.variant, args.number)
    return play_loop(args.variant, args.number, sys.stdin, sys.stdout)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="jielong", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("deal", help="print a deal's layout")
    p.add_argument("variant", choices=sorted(VARIANTS))
    p.add_argument("number", type=int)
    p.add_argument(
        "--format",
        choices=["text", "position", "fcs", "pysol", "code"],
        default="text",
        help="text (readable), position (the text the site copies and reads), "
        "fcs (Freecell Solver's board, FreeCell only), pysol (PySolFC's board or layout), "
        "code (the short form a shared link carries)",
    )
    p.set_defaults(func=cmd_deal)

    p = sub.add_parser("play", help="play a deal in the terminal")
    p.add_argument("variant", choices=sorted(VARIANTS))
    p.add_argument("number", type=int)
    p.set_defaults(func=cmd_play)

    # subcommands that live beside the code they drive
    solve.register(sub)
    serve.register(sub)
    doctor.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except (DealError, MissingExtra) as e:
        print(f"jielong: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # the reader went away (e.g. `| head`): stop quietly, as other tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
