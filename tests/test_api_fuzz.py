"""Property-based fuzzing of the whole API from its OpenAPI document: whatever
the input, never a server error, and every answer as the document says.

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
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

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


# What the schema promises about answers: every status, content type, body
# and header is documented.  (Whether every schema-valid body is accepted is
# not checked: a position's text, a deal number past a variant's range or a
# date a year away are refused with a reason the schema cannot state.)
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    response_headers_conformance,
]
# a 503 saying hints are busy is the server shedding load, not a fault
SHEDDING = {"hint_busy", "hint_unavailable", "busy"}


def _call(case: Any) -> None:
    response = case.call()
    if response.status_code == 503 and response.json()["error"]["code"] in SHEDDING:
        assert response.headers["retry-after"]
        return
    case.validate_response(response, checks=CHECKS)


@schema.parametrize()
@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
def test_answers_keep_to_the_schema(case: Any) -> None:
    _call(case)
    if case.path_parameters and "game_id" in case.path_parameters:
        for game_id in _real_games():
            case.path_parameters["game_id"] = game_id
            _call(case)
