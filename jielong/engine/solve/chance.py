"""Chances: the interval of a share won, and the chance to win a Klondike
hint shows.

A sampled Klondike hint deals the unseen cards at random and solves each
deal with every card known; the share it wins is what a player who could
see the cards would win (hindsight), well above what a player who plays the
hints wins.  The chance shown is that share calibrated: a logistic model of
the outcome of hint-following games on the share, the cards still unseen
and the share of sampled deals left undecided, fitted per draw by
``bench/win_chance.py`` on games played by hints alone.
"""

from __future__ import annotations

import math
from collections.abc import Callable
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


FEATURES: Final[tuple[Callable[[Features], float], ...]] = (
    _share,
    _face_down,
    _first_pass,
    _undecided,
)
"""The inputs of the logistic model, after its intercept: the share won as
log-odds, the share of the 21 cards dealt face down still face down,
whether the stock has yet to be turned through, and the share of deals
undecided.  Before the stock has been turned through, a hint's deals differ
in the stock as well, and the share they win stands in another relation to
what a player wins than later on."""


COEFFICIENTS: Final[dict[int, tuple[float, ...]]] = {
    3: (1.0298, 0.7098, -2.8660, 0.5299, 1.0964),
    1: (0.9728, 0.7972, -2.4342, 0.5086, 1.4893),
}
"""The fitted model per draw: the intercept, then one weight per
:data:`FEATURES`."""


def features(position: KlondikePosition, hindsight: float, samples: int, decided: int) -> Features:
    """The features of a sampled hint for ``position``."""
    stock = 0 if position.stock_all_seen() else len(position.stock)
    return Features(hindsight, sum(position.hidden), stock, samples, decided)


def calibrated(features: Features, draw: int) -> float:
    """The chance to win that a hint with ``features`` shows, in draw ``draw``."""
    weights = COEFFICIENTS[draw]
    z = weights[0] + sum(w * f(features) for w, f in zip(weights[1:], FEATURES, strict=True))
    return 1 / (1 + math.exp(-z))
