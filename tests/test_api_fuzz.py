"""Property-based fuzzing of the whole API from its OpenAPI document: whatever
the input, never a server error.

Generated game ids almost never exist, so each case that names a game is
also sent once more against a real game, to reach the code behind the 404.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error

from jielong.web.app import Settings, create_app

# removed when the test process ends (the schema needs the app at import)
_TEMP = tempfile.TemporaryDirectory(prefix="jielong-fuzz-")
_DB = Path(_TEMP.name) / "games.sqlite3"
app = create_app(Settings(database=f"sqlite:///{_DB}", hint_workers=1, hint_seconds=0.5))
schema = schemathesis.openapi.from_asgi("/openapi.json", app)

_games: list[str] = []


def _real_games() -> list[str]:
    if not _games:
        with TestClient(app) as client:
            for body in (
                {"variant": "klondike-3", "deal": 5},
                {"variant": "freecell", "deal": 617},
                {"variant": "kongdang", "daily": True},
            ):
                _games.append(client.post("/api/games", json=body).json()["id"])
    return _games


@schema.parametrize()
@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
def test_no_server_errors(case: Any) -> None:
    case.call_and_validate(checks=[not_a_server_error])
    if case.path_parameters and "game_id" in case.path_parameters:
        for game_id in _real_games():
            case.path_parameters["game_id"] = game_id
            case.call_and_validate(checks=[not_a_server_error])
