"""Shared test settings: a bounded hypothesis profile and the fixtures folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

FIXTURES = Path(__file__).parent / "fixtures"

# The machine is shared: property tests stay small unless asked otherwise
# (HYPOTHESIS_PROFILE=thorough for a longer run).
settings.register_profile(
    "jielong", max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("thorough", max_examples=500, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "jielong"))


@pytest.fixture
def fixtures_dir() -> Path:
    return FIXTURES
