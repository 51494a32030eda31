"""Open endpoints that may take a solver run: daily deals only for dates a
year either side of today, answers cached, and the uncached work limited per
address and to a few computations at once."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from jielong.engine.catalogue import today_utc
from jielong.web.app import Settings, create_app
from jielong.web.services.costly import CostlyRefused, CostlyWork
from jielong.web.state import app_state


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(Settings(database=f"sqlite:///{tmp_path / 'g.sqlite3'}", hint_workers=1))
    with TestClient(app) as c:
        yield c


def test_daily_dates_are_bounded(client: TestClient) -> None:
    today = today_utc()
    for date in ("0001-01-01", "9999-12-31", (today + dt.timedelta(days=400)).isoformat()):
        r = client.get("/api/daily/klondike-3", params={"date": date})
        assert r.status_code == 422 and r.json()["error"]["code"] == "date_out_of_range", date
        assert r.json()["error"]["first"] < today.isoformat() < r.json()["error"]["last"]
        body = {"variant": "klondike-3", "daily": True, "date": date}
        r = client.post("/api/games", json=body)
        assert r.status_code == 422 and r.json()["error"]["code"] == "date_out_of_range"
    edge = (today - dt.timedelta(days=366)).isoformat()
    assert client.get("/api/daily/freecell", params={"date": edge}).status_code == 200


def test_uncached_daily_deals_are_limited_per_address(client: TestClient) -> None:
    app_state(client.app).costly = CostlyWork(address=(3, 0.01))
    today = today_utc()
    dates = [(today - dt.timedelta(days=30 + i)).isoformat() for i in range(4)]
    answers = [client.get("/api/daily/freecell", params={"date": d}) for d in dates]
    assert [r.status_code for r in answers] == [200, 200, 200, 429]
    assert answers[3].json()["error"]["code"] == "rate_limited"
    assert int(answers[3].headers["retry-after"]) >= 1
    # answers already computed are cached: not limited
    for _ in range(5):
        again = client.get("/api/daily/freecell", params={"date": dates[0]})
        assert again.status_code == 200 and again.json() == answers[0].json()


def test_only_a_few_costly_computations_at_once() -> None:
    work = CostlyWork(at_once=2, address=(100, 1.0))
    with work.admit("a"), work.admit("b"):
        with pytest.raises(CostlyRefused) as refused, work.admit("c"):
            pass
        assert refused.value.status == 503
    with work.admit("c"):
        pass
