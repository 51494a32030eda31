"""Shared test settings: a bounded hypothesis profile for a shared machine."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

# Property tests stay small by default; HYPOTHESIS_PROFILE=thorough runs more
# examples of the tests that do not fix their own count.
settings.register_profile(
    "jielong", max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("thorough", max_examples=500, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "jielong"))
