"""Chances: the interval of a share won, and the chance to win a Klondike
hint shows.

A sampled Klondike hint deals the unseen cards at random and solves each
deal with every card known; the share it wins is what a player who could
see the cards would win (hindsight), well above what a player who plays the
hints wins.  The chance shown is that share calibrated: a logistic model of
the outcome of hint-following games on the share, the cards still unseen
and the share of sampled deals left undecided, its form and weights chosen
per draw and fitted by ``bench/win_chance.py`` on games played by hints
alone.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Final, NamedTuple

from jielong.engine.rules.klondike import KlondikePosition


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of ``k`` successes in ``n`` trials."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    mid = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, mid - half), min(1.0, mid + half)


class Features(NamedTuple):
    """What a sampled Klondike hint knows of its own estimate."""

    hindsight: float
    """The share of its sampled deals won with every card known, pulled half
    a deal towards even."""
    face_down: int
    """Cards face down on the tableau."""
    stock_unseen: int
    """Cards of a stock not yet turned through (0 once it has been)."""
    samples: int
    decided: int
    """Sampled deals won or proven lost within their budget."""


def logit(p: float) -> float:
    p = min(max(p, 1e-6), 1 - 1e-6)
    return math.log(p / (1 - p))


def _share(f: Features) -> float:
    return logit(f.hindsight)


def _face_down(f: Features) -> float:
    return f.face_down / 21


def _first_pass(f: Features) -> float:
    return 1.0 if f.stock_unseen else 0.0


def _undecided(f: Features) -> float:
    return 1 - f.decided / f.samples if f.samples else 0.0


SHARE_CAP = 0.85
"""Draw 3: the share won above which it tells no more.  Its log-odds climb
steeply past it (to 3.7 where 40 of 40 deals are won), while the games that
followed were won little more often: with 16 or more cards face down, 47% of
games after a hint that won over 95% of its deals, 59% after 85% to 95%,
47% after 70% to 85% (deals 20001..21000).  Uncapped, the model showed
0.6..0.8 where far fewer were won, mostly after hints that won every deal
they weighed; with few cards face down, the face-down terms say the rest."""


def _share_capped(f: Features) -> float:
    return logit(min(f.hindsight, SHARE_CAP))


def _face_down_squared(f: Features) -> float:
    return _face_down(f) ** 2


Form = tuple[Callable[[Features], float], ...]

FEATURES: Final[dict[int, Form]] = {
    3: (_share_capped, _face_down, _first_pass, _undecided, _face_down_squared),
    1: (_share, _face_down, _first_pass, _undecided),
}
"""The inputs of the logistic model per draw, after its intercept: the share
won as log-odds (in draw 3 capped at :data:`SHARE_CAP`), the share of the
21 cards dealt face down still face down, whether the stock has yet to be
turned through, the share of deals undecided, and in draw 3 the face-down
share squared (each card still face down costs much where few are, and
little where most still are).  Before the stock has been turned through, a
hint's deals differ in the stock as well, and the share they win stands in
another relation to what a player wins than later on.  Draw 3's form was
chosen on 1,000 games of deals 20001..21000, fitted on the games of one
parity and judged on the other (docs/solvers.md)."""


COEFFICIENTS: Final[dict[int, tuple[float, ...]]] = {
    3: (3.1058, 0.8851, -9.3700, 0.1355, 1.0148, 4.7407),
    1: (0.9728, 0.7972, -2.4342, 0.5086, 1.4893),
}
"""The fitted model per draw: the intercept, then one weight per feature of
that draw's :data:`FEATURES`."""


def features(position: KlondikePosition, hindsight: float, samples: int, decided: int) -> Features:
    """The features of a sampled hint for ``position``."""
    stock = 0 if position.stock_all_seen() else len(position.stock)
    return Features(hindsight, sum(position.hidden), stock, samples, decided)


def logistic(weights: Sequence[float], form: Form, features: Features) -> float:
    """The model of ``form`` with ``weights`` (the intercept first) at
    ``features``."""
    z = weights[0] + sum(w * f(features) for w, f in zip(weights[1:], form, strict=True))
    return 1 / (1 + math.exp(-z))


def calibrated(features: Features, draw: int) -> float:
    """The chance to win that a hint with ``features`` shows, in draw ``draw``."""
    return logistic(COEFFICIENTS[draw], FEATURES[draw], features)
