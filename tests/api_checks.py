"""Helpers shared by the HTTP API tests."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from fastapi.testclient import TestClient

from jielong.web.app import Settings, create_app


@contextmanager
def app_client(tmp_path_factory: pytest.TempPathFactory, name: str) -> Iterator[TestClient]:
    """A client of an app on a SQLite database of its own (in a temporary
    folder named after ``name``), one hint worker with a one-second deadline."""
    db = tmp_path_factory.mktemp(name) / "games.sqlite3"
    app = create_app(Settings(database=f"sqlite:///{db}", hint_workers=1, hint_seconds=1.0))
    with TestClient(app) as c:
        yield c


def new_game(client: TestClient, **body: Any) -> dict[str, Any]:
    """``POST /api/games`` with ``body``, which must create a game; its state."""
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    data: dict[str, Any] = r.json()
    return data
