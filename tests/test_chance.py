"""The chance to win a Klondike hint shows: calibrated from its sampled
share, and the measures that judge it."""

from __future__ import annotations

import math
import random

import pytest

from jielong.engine.rules.registry import rules_for
from jielong.engine.solve import hints
from jielong.engine.solve.chance import (
    COEFFICIENTS,
    FEATURES,
    SHARE_CAP,
    Features,
    calibrated,
    features,
    wilson,
)
from jielong.testing.calibration import Observation, auc, brier, fit, predict, reliability


def test_wilson_interval() -> None:
    low, high = wilson(45, 100)
    assert round(low, 4) == 0.3561 and round(high, 4) == 0.5476
    assert wilson(0, 0) == (0.0, 1.0)
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == 1.0


def _obs(pairs: list[tuple[float, bool]]) -> list[Observation]:
    return [Observation(i, Features(p, 0, 0, 10, 10), won) for i, (p, won) in enumerate(pairs)]


def test_brier_auc_and_the_reliability_table_on_a_small_case() -> None:
    pairs = [(0.05, False), (0.15, False), (0.12, True), (0.55, True), (0.58, False), (0.95, True)]
    obs = _obs(pairs)
    predicted = [p for p, _ in pairs]
    assert brier(predicted, obs) == pytest.approx(
        (0.05**2 + 0.15**2 + 0.88**2 + 0.45**2 + 0.58**2 + 0.05**2) / 6
    )
    # won above lost in 6 of the 9 pairs
    assert auc(predicted, obs) == pytest.approx(6 / 9)
    rows = reliability(predicted, obs)
    assert [(r.low, r.hints, r.games) for r in rows] == [
        (0.0, 1, 1),
        (0.1, 2, 2),
        (0.5, 2, 2),
        (0.9, 1, 1),
    ]
    assert rows[1].predicted == pytest.approx(0.135) and rows[1].won == 0.5
    assert auc([0.5, 0.5], _obs([(0.5, True), (0.5, False)])) == 0.5


TRUTHS = {1: (-0.5, 1.2, -0.8, 0.6, -3.0), 3: (1.0, 1.2, -5.0, 0.6, -3.0, 2.5)}


@pytest.mark.parametrize("draw", sorted(FEATURES))
def test_the_fit_finds_the_model_that_made_the_outcomes(draw: int) -> None:
    truth, form = TRUTHS[draw], FEATURES[draw]
    rng = random.Random(7)
    obs = []
    for game in range(6000):
        stock = rng.choice((0, 0, 0, rng.randrange(1, 25)))
        f = Features(
            rng.uniform(0.05, 0.95), rng.randrange(0, 22), stock, 40, rng.randrange(20, 41)
        )
        z = truth[0] + sum(w * g(f) for w, g in zip(truth[1:], form, strict=True))
        obs.append(Observation(game, f, rng.random() < 1 / (1 + math.exp(-z))))
    beta = fit(obs, form)
    assert len(beta) == len(truth) == len(COEFFICIENTS[draw])
    assert all(abs(b - t) < 0.35 for b, t in zip(beta, truth, strict=True)), beta
    chance = predict(beta, form)
    # fitted on its own outcomes, the mean predicted is the share won
    assert sum(chance(o.features) for o in obs) / len(obs) == pytest.approx(
        sum(o.won for o in obs) / len(obs), abs=1e-6
    )


@pytest.mark.parametrize("draw", sorted(COEFFICIENTS))
def test_the_shown_chance_rises_with_the_share_won_and_is_never_certain(draw: int) -> None:
    for face_down, stock in ((0, 0), (10, 0), (21, 0), (21, 24), (21, 9)):
        for decided in (20, 40):
            shown = [
                calibrated(Features(p / 20, face_down, stock, 40, decided), draw) for p in range(21)
            ]
            assert all(0 < s < 1 for s in shown)
            assert shown == sorted(shown)


@pytest.mark.parametrize("draw", sorted(COEFFICIENTS))
def test_a_card_turned_over_never_lowers_the_shown_chance(draw: int) -> None:
    for share in (0.3, 0.6, 0.9):
        shown = [calibrated(Features(share, down, 0, 40, 36), draw) for down in range(22)]
        assert shown == sorted(shown, reverse=True)


def test_in_draw_3_a_share_past_the_cap_shows_what_the_cap_shows() -> None:
    shown = {calibrated(Features(p, 12, 0, 40, 40), 3) for p in (SHARE_CAP, 0.9, 0.976)}
    assert len(shown) == 1
    assert calibrated(Features(0.8, 12, 0, 40, 40), 3) < shown.pop()


def test_a_sampled_klondike_hint_shows_its_share_calibrated() -> None:
    rules = rules_for("klondike-3")
    position = rules.deal(5)
    hint = hints.compute_hint("klondike-3", position, deadline_seconds=1.0)
    assert hint.kind == "likely" and hint.samples > 0
    assert hint.hindsight is not None and hint.win_chance is not None
    seen = features(position, hint.hindsight, hint.samples, hint.decided)
    assert hint.win_chance == calibrated(seen, 3)
    # 21 face down and 24 in a stock never turned
    assert (seen.face_down, seen.stock_unseen) == (21, 24)
    # the share won with every card known runs high: calibrated, it is lower
    assert hint.win_chance < hint.hindsight


def test_a_proof_is_not_calibrated() -> None:
    position = rules_for("klondike-3").deal(7)
    hint = hints.compute_hint("klondike-3", position, deadline_seconds=1.0, known_lost=True)
    assert hint.kind == "unsolvable" and hint.win_chance == 0.0 and hint.hindsight is None
