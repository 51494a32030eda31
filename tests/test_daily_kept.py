"""A daily deal served for a date near today is kept in the database, so a
later change to how it is chosen (a new solver) does not change it."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from jielong.engine import catalogue
from jielong.web.app import Settings, create_app
from jielong.web.services import daily as daily_module


def served(db: Path, variant: str, date: dt.date) -> int:
    """The daily deal a fresh server on database ``db`` serves for ``date``."""
    app = create_app(Settings(database=f"sqlite:///{db}", hint_workers=1))
    with TestClient(app) as client:
        response = client.get(f"/api/daily/{variant}", params={"date": date.isoformat()})
        assert response.status_code == 200
        number: int = response.json()["deal"]
        return number


def test_a_daily_deal_once_served_survives_a_new_choice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "daily.sqlite3"
    today = catalogue.today_utc()
    tomorrow = today + dt.timedelta(days=1)
    month_ago = today - dt.timedelta(days=30)
    first = served(db, "klondike-3", today)
    assert first == catalogue.daily_deal("klondike-3", today)

    # an upgrade that chooses another deal for every date
    monkeypatch.setattr(daily_module, "daily_deal", lambda variant, date: 77)
    assert served(db, "klondike-3", today) == first  # kept
    assert served(db, "klondike-3", tomorrow) == 77  # near today: kept from now on
    assert served(db, "klondike-3", month_ago) == 77  # far from today: never kept

    monkeypatch.setattr(daily_module, "daily_deal", lambda variant, date: 78)
    assert served(db, "klondike-3", tomorrow) == 77
    assert served(db, "klondike-3", month_ago) == 78

    # a game of today's daily deal gets the kept deal too
    app = create_app(Settings(database=f"sqlite:///{db}", hint_workers=1))
    with TestClient(app) as client:
        game = client.post("/api/games", json={"variant": "klondike-3", "daily": True})
        assert game.status_code == 201
        assert game.json()["deal"] == first
        assert str(first) in client.get("/").text  # the home page names it
