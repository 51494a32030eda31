"""Shared test settings: a bounded hypothesis profile for a shared machine, and
the session's PostgreSQL cluster for the tests that take ``postgres_url``."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

from jielong.testing.processes import PostgresCluster, postgres_bin

# Property tests stay small by default; HYPOTHESIS_PROFILE=thorough runs more
# examples of the tests that do not fix their own count.
settings.register_profile(
    "jielong", max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("thorough", max_examples=500, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "jielong"))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under pytest-xdist (``make test`` runs two workers with
    ``--dist loadgroup``), the browser tests run one after another on one
    worker, so that no two Chromiums of this suite load the machine at once;
    the other worker takes the rest."""
    for item in items:
        if "browser" in item.path.parts:
            item.add_marker(pytest.mark.xdist_group("browser"))


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    if postgres_bin() is None:
        pytest.skip("PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb)")
    with PostgresCluster() as cluster:
        yield cluster.url
