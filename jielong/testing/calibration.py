"""How true a chance to win is: a reliability table, the Brier score, the
area under the ROC curve, and a logistic fit of outcomes on the sampled
hint's estimate (what :mod:`jielong.engine.solve.chance` applies).

The observations are the sampled hints of hint-following games, each with
the game's outcome: a hint says "about p to win from here", and the game
that followed it was won or lost.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from jielong.engine.solve.chance import Features, Form, logistic, logit


@dataclass(frozen=True)
class Observation:
    game: int
    """The deal of the game the hint was given in."""
    features: Features
    won: bool


@dataclass(frozen=True)
class Tenth:
    """One row of a reliability table: the observations whose predicted
    chance lies in ``[low, low + 0.1)``."""

    low: float
    games: int
    hints: int
    predicted: float
    won: float


def reliability(predicted: Sequence[float], observed: Sequence[Observation]) -> list[Tenth]:
    """Mean predicted against the share won, by tenths of the prediction;
    ``games`` counts the distinct games among a tenth's hints."""
    rows: list[Tenth] = []
    for tenth in range(10):
        low = tenth / 10
        inside = [
            (p, o) for p, o in zip(predicted, observed, strict=True) if min(int(p * 10), 9) == tenth
        ]
        if not inside:
            continue
        rows.append(
            Tenth(
                low,
                len({o.game for _, o in inside}),
                len(inside),
                sum(p for p, _ in inside) / len(inside),
                sum(o.won for _, o in inside) / len(inside),
            )
        )
    return rows


def brier(predicted: Sequence[float], observed: Sequence[Observation]) -> float:
    """The mean squared distance of the predictions from the outcomes."""
    pairs = list(zip(predicted, observed, strict=True))
    return sum((p - o.won) ** 2 for p, o in pairs) / len(pairs)


def auc(predicted: Sequence[float], observed: Sequence[Observation]) -> float:
    """The chance that a won observation was predicted higher than a lost
    one (ties count half): 0.5 ranks no better than a coin."""
    ranked = sorted(zip(predicted, (o.won for o in observed), strict=True))
    won = sum(w for _, w in ranked)
    lost = len(ranked) - won
    if not won or not lost:
        return float("nan")
    # the mean rank of the won ones, ties given their mean rank
    rank_sum = 0.0
    i = 0
    while i < len(ranked):
        j = i
        while j < len(ranked) and ranked[j][0] == ranked[i][0]:
            j += 1
        mid = (i + j + 1) / 2
        rank_sum += mid * sum(w for _, w in ranked[i:j])
        i = j
    return (rank_sum - won * (won + 1) / 2) / (won * lost)


def _row(features: Features, form: Form) -> list[float]:
    return [1.0, *(f(features) for f in form)]


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    """``a x = b`` by Gaussian elimination with partial pivoting."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        pivot = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[pivot] = m[pivot], m[c]
        for r in range(c + 1, n):
            f = m[r][c] / m[c][c]
            for k in range(c, n + 1):
                m[r][k] -= f * m[c][k]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (m[r][n] - sum(m[r][k] * x[k] for k in range(r + 1, n))) / m[r][r]
    return x


def fit(observed: Sequence[Observation], form: Form, ridge: float = 1e-6) -> tuple[float, ...]:
    """Logistic regression of the outcome on the features of ``form`` (one
    of :data:`jielong.engine.solve.chance.FEATURES`) by iteratively
    reweighted least squares: the coefficients, intercept first."""
    rows = [_row(o.features, form) for o in observed]
    ys = [1.0 if o.won else 0.0 for o in observed]
    beta = [0.0] * len(rows[0])
    for _ in range(50):
        n = len(beta)
        hess = [[ridge if i == j else 0.0 for j in range(n)] for i in range(n)]
        grad = [-ridge * b for b in beta]
        for x, y in zip(rows, ys, strict=True):
            p = 1 / (1 + math.exp(-sum(b * v for b, v in zip(beta, x, strict=True))))
            w = p * (1 - p)
            for i in range(n):
                grad[i] += (y - p) * x[i]
                for j in range(n):
                    hess[i][j] += w * x[i] * x[j]
        step = _solve(hess, grad)
        beta = [b + s for b, s in zip(beta, step, strict=True)]
        if max(abs(s) for s in step) < 1e-9:
            break
    return tuple(beta)


def predict(beta: Sequence[float], form: Form) -> Callable[[Features], float]:
    """The fitted chance for a hint's features."""

    def chance(features: Features) -> float:
        return logistic(beta, form, features)

    return chance


__all__ = ["Observation", "Tenth", "auc", "brier", "fit", "logit", "predict", "reliability"]
