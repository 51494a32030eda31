"""Is the Klondike hint's chance to win true?  Calibration on hint-following
games.

Reads the games ``bench/hint_play.py --out`` wrote (each sampled hint with
the chance it showed, what that was calibrated from, its deals decided, the
cards face down and in a stock not yet turned through, and whether the game
was won).  For each draw:

- the reliability table by tenths of the prediction (mean predicted against
  the share of those hints whose game was won, with the games and hints in
  each tenth), the Brier score and the area under the ROC curve, for the
  uncalibrated share (hindsight) and for the calibrated chance;
- the calibrated chance is judged out of sample: the model is fitted on the
  games of even deals and judged on the odd ones, and the other way round;
- the model fitted on every game, to be kept in
  ``jielong.engine.solve.chance.COEFFICIENTS``;
- the same tables for the first sampled hint of each game alone (the
  chance a player sees before playing), from the same model.

    python bench/hint_play.py --variant klondike-3 --start 20001 --end 20700 --out k3.jsonl
    python bench/win_chance.py k3.jsonl k1.jsonl
    python bench/win_chance.py --smoke        # four quick games, the whole report
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

from jielong.engine.solve.chance import (  # noqa: E402
    COEFFICIENTS,
    FEATURES,
    Features,
    Form,
    calibrated,
)
from jielong.testing.calibration import (  # noqa: E402
    Observation,
    auc,
    brier,
    fit,
    predict,
    reliability,
)
from jielong.testing.follower import follow, local_hint  # noqa: E402


def observations(rows: list[dict[str, Any]]) -> dict[int, tuple[list[Observation], list[bool]]]:
    """Per draw: every sampled hint with chance, and whether each is its
    game's first."""
    out: dict[int, tuple[list[Observation], list[bool]]] = {}
    seen: set[tuple[str, int]] = set()
    for row in rows:
        if "klondike" not in row["variant"] or (row["variant"], row["deal"]) in seen:
            continue
        seen.add((row["variant"], row["deal"]))
        draw = int(row["variant"].rsplit("-", 1)[1])
        obs, first = out.setdefault(draw, ([], []))
        opening = True
        for h in row["hints"]:
            if len(h) < 7 or h[3] <= 0 or h[4] is None:
                continue
            # hindsight was recorded beside the calibrated chance once there was one
            hindsight = h[7] if len(h) > 7 and h[7] is not None else h[4]
            if len(h) > 9:
                face_down, stock = h[8], h[9]
            else:
                # only the unseen cards in all: a hint turns a stock never
                # turned through before anything else, so until it has been
                # all 21 face-down cards lie as dealt
                face_down, stock = min(h[6], 21), max(h[6] - 21, 0)
            facts = Features(hindsight, face_down, stock, h[3], h[5])
            obs.append(Observation(row["deal"], facts, row["won"]))
            first.append(opening)
            opening = False
    return out


def _table(name: str, predicted: Sequence[float], obs: Sequence[Observation]) -> str:
    lines = [
        f"  {name}: Brier {brier(predicted, obs):.3f}  AUC {auc(predicted, obs):.3f}"
        f"  mean predicted {sum(predicted) / len(predicted):.3f}"
        f"  won {sum(o.won for o in obs) / len(obs):.3f}",
        "    tenth      games  hints  predicted   won   gap",
    ]
    for row in reliability(predicted, obs):
        gap = 100 * (row.predicted - row.won)
        mark = "" if row.games < 30 or abs(gap) <= 5 else "  over 5 points"
        lines.append(
            f"    {row.low:.1f}..{row.low + 0.1:.1f}  {row.games:6d} {row.hints:6d}"
            f"     {row.predicted:.3f}  {row.won:.3f} {gap:+5.1f}{mark}"
        )
    return "\n".join(lines)


def out_of_sample(obs: Sequence[Observation], form: Form) -> list[float] | None:
    """Each observation predicted by the model of ``form`` fitted on the
    games of the other parity; ``None`` when a half has only one outcome."""
    halves = [[o for o in obs if o.game % 2 == parity] for parity in (0, 1)]
    models: list[Callable[[Features], float]] = []
    for half in halves:
        if len({o.won for o in half}) < 2:
            return None
        models.append(predict(fit(half, form), form))
    return [models[1 - o.game % 2](o.features) for o in obs]


def report(rows: list[dict[str, Any]]) -> str:
    out = []
    for draw, (obs, first) in sorted(observations(rows).items()):
        games = len({o.game for o in obs})
        won = len({o.game for o in obs if o.won})
        out.append(f"klondike-{draw}: {games} games ({won} won), {len(obs)} sampled hints")
        # one model for every hint, as the engine has: judged on every hint,
        # and on the first hint of each game alone
        form = FEATURES[draw]
        held = out_of_sample(obs, form)
        # the engine's model, unless it was fitted on other features
        ready = len(COEFFICIENTS.get(draw, ())) == len(form) + 1
        shown = [calibrated(o.features, draw) for o in obs] if ready else None
        for scope, keep in (
            ("every sampled hint", [True] * len(obs)),
            ("the first sampled hint of each game", first),
        ):
            picked = [o for o, k in zip(obs, keep, strict=True) if k]
            if not picked:
                continue
            out.append(f" {scope}:")
            share = [o.features.hindsight for o in picked]
            out.append(_table("hindsight (the share of sampled deals won)", share, picked))
            for name, predicted in (
                ("calibrated, fitted on the other half's games", held),
                ("calibrated as the engine shows it now", shown),
            ):
                if predicted is not None:
                    chosen = [p for p, k in zip(predicted, keep, strict=True) if k]
                    out.append(_table(name, chosen, picked))
        if len({o.won for o in obs}) == 2:
            beta = fit(obs, form)
            out.append(f" fitted on every game: ({', '.join(f'{b:.4f}' for b in beta)})")
    return "\n".join(out) if out else "no Klondike games with sampled hints"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("files", nargs="*", type=Path, help="games written by hint_play.py --out")
    p.add_argument("--smoke", action="store_true", help="four quick games, the whole report")
    args = p.parse_args(argv)
    rows: list[dict[str, Any]] = []
    for path in args.files:
        rows += [json.loads(line) for line in path.read_text().splitlines() if line]
    if args.smoke:
        for deal in (1, 2, 3, 4):
            game = follow("klondike-3", deal, local_hint(0.2, time.process_time))
            rows.append(
                {
                    "variant": game.variant,
                    "deal": game.deal,
                    "won": game.won,
                    "hints": [
                        [h.kind, h.wall, h.cpu, h.samples, h.chance, h.decided]
                        + [h.face_down + h.stock_unseen, h.hindsight, h.face_down, h.stock_unseen]
                        for h in game.hints
                    ],
                }
            )
    print(report(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
