"""The whole API against its OpenAPI document, with every check the command
line's ``schemathesis run --checks all`` makes: no server error; every status,
content type, header and body as documented; every body the document allows
accepted and every body it refuses refused; methods, links and resources as
said.  The configuration is the repository's schemathesis.toml.

Generated game ids almost never exist, so each case that names a game is
also sent once more against a real game, and the stateful run follows the
document's links from a created game to the routes that take its id.
Bounded and derandomized: the same cases on every run.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings
from schemathesis.config import SchemathesisConfig
from schemathesis.schemas import BaseSchema
from schemathesis_hooks import positions

from jielong.web.app import Settings, create_app

ROOT = Path(__file__).resolve().parent.parent
_TOML = tomllib.loads((ROOT / "schemathesis.toml").read_text(encoding="utf-8"))
# the hooks' path is relative to the repository's root, this run's may not be
CONFIG = SchemathesisConfig.from_dict(
    {**_TOML, "hooks": str(ROOT / _TOML["hooks"])}, base_dir=str(ROOT)
)


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> FastAPI:
    db = tmp_path_factory.mktemp("fuzz") / "games.sqlite3"
    return create_app(Settings(database=f"sqlite:///{db}", hint_workers=1, hint_seconds=0.5))


@pytest.fixture(scope="module")
def api_schema(app: FastAPI) -> BaseSchema:
    # the document as the app makes it, without serving it: loading it
    # through the app would start the app's life (hint workers, today's
    # daily deals found by solver runs)
    loaded = schemathesis.openapi.from_dict(app.openapi(), config=CONFIG)
    loaded.app = app
    loaded.location = "/openapi.json"
    return loaded


# the cases are made when the tests run, not when they are collected (each
# operation is a subtest of the one test)
schema = schemathesis.pytest.from_fixture("api_schema")


@pytest.fixture
def subtest_names(request: pytest.FixtureRequest) -> None:
    """The lazy loader names each operation's subtest through the node's
    ``_nodeid``, an attribute pytest 9 no longer has."""
    node: Any = request.node
    node._nodeid = node.nodeid


FUZZ = settings(
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)
"""Bounded and derandomized: the same cases on every run."""


@pytest.fixture(scope="module")
def real_games(app: FastAPI) -> list[str]:
    """Games that exist, for the cases that name one."""
    bodies = (
        {"variant": "klondike-3", "deal": 5},
        {"variant": "freecell", "deal": 617},
        {"variant": "kongdang", "daily": True},
    )
    with TestClient(app) as client:
        return [client.post("/api/games", json=body).json()["id"] for body in bodies]


def test_every_check_is_on(api_schema: BaseSchema) -> None:
    """The runs below make every check the command line's ``--checks all``
    makes, with the repository's settings for them."""
    from schemathesis.checks import CHECKS, load_all_checks

    load_all_checks()
    names = set(CHECKS.get_all_names())
    assert {"negative_data_rejection", "positive_data_acceptance", "use_after_free"} <= names
    for result in api_schema.get_all_operations():
        operation = result.ok()
        config = api_schema.config.checks_config_for(operation=operation, phase=None)
        assert all(config.get_by_name(name=name).enabled for name in names), operation.label


def _exercise(case: Any) -> None:
    case.call_and_validate()


@pytest.mark.usefixtures("subtest_names")
@schema.parametrize()
@settings(FUZZ, max_examples=25)
def test_answers_keep_to_the_schema(case: Any, real_games: list[str]) -> None:
    _exercise(case)
    if case.path_parameters and "game_id" in case.path_parameters:
        for game_id in real_games:
            case.path_parameters["game_id"] = game_id
            _exercise(case)


def test_linked_games(api_schema: BaseSchema) -> None:
    """The stateful run: from a created game along the document's links."""
    workflow = api_schema.as_state_machine()
    workflow.run(settings=settings(FUZZ, max_examples=15, stateful_step_count=6))


def test_generated_positions_are_playable(app: FastAPI) -> None:
    """The position strategy gives texts the API takes (else the document's
    position kind could never be tried)."""
    from hypothesis import given

    seen: list[str] = []

    @given(positions("freecell"))
    @settings(max_examples=5, derandomize=True, database=None)
    def one(text: str) -> None:
        seen.append(text)

    one()
    with TestClient(app) as client:
        for text in seen:
            r = client.post("/api/games", json={"variant": "kongdang", "position": text})
            assert r.status_code == 201, r.text
