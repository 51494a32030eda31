"""Helpers shared by the HTTP API tests."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient


def new_game(client: TestClient, **body: Any) -> dict[str, Any]:
    """``POST /api/games`` with ``body``, which must create a game; its state."""
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    data: dict[str, Any] = r.json()
    return data
