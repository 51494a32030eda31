"""The answers the OpenAPI document describes are the answers the routes
give: real answers of every route that answers with plain data validate
against the document's models, which forbid fields they do not name, and
the document points each route at its model."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from api_checks import app_client, new_game
from fastapi.testclient import TestClient
from pydantic import BaseModel, ValidationError

from jielong.engine.rules.variants import VARIANTS
from jielong.web.views.answers import (
    AnalysisAnswer,
    DailyAnswer,
    DealsAnswer,
    HintAnswer,
    PositionAnswer,
    StatsAnswer,
    VariantsAnswer,
)

ROUTES: dict[tuple[str, str], type[BaseModel]] = {
    ("post", "/api/games/{game_id}/hint"): HintAnswer,
    ("get", "/api/games/{game_id}/analysis"): AnalysisAnswer,
    ("get", "/api/games/{game_id}/position"): PositionAnswer,
    ("get", "/api/variants"): VariantsAnswer,
    ("get", "/api/deals/{variant}"): DealsAnswer,
    ("get", "/api/daily/{variant}"): DailyAnswer,
    ("get", "/api/stats"): StatsAnswer,
}


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with app_client(tmp_path_factory, "answers") as c:
        yield c


def valid(model: type[BaseModel], r: Any) -> Any:
    assert r.status_code == 200, r.text
    body = r.json()
    model.model_validate(body)
    return body


def test_the_document_names_each_answer(client: TestClient) -> None:
    doc = client.get("/openapi.json").json()
    for (method, path), model in ROUTES.items():
        answer = doc["paths"][path][method]["responses"]["200"]
        ref = answer["content"]["application/json"]["schema"]["$ref"]
        assert ref == f"#/components/schemas/{model.__name__}"
        assert model.__name__ in doc["components"]["schemas"]


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_every_answer_of_a_game_fits_its_model(client: TestClient, variant: str) -> None:
    game = new_game(client, variant=variant, deal=5)
    hint = valid(
        HintAnswer, client.post(f"/api/games/{game['id']}/hint", json={"version": game["version"]})
    )
    assert hint["move"] is not None and hint["version"] == game["version"]
    valid(PositionAnswer, client.get(f"/api/games/{game['id']}/position"))
    verdict = valid(AnalysisAnswer, client.get(f"/api/games/{game['id']}/analysis"))
    assert verdict["solvers"] and verdict["thoughtful"] is (variant.startswith("klondike"))
    deals = valid(DealsAnswer, client.get(f"/api/deals/{variant}?start=11980&count=5"))
    marked = [d["deal"] for d in deals["deals"] if d["unsolvable"]]
    assert marked == ([11982] if VARIANTS[variant].family == "freecell" else [])
    valid(DailyAnswer, client.get(f"/api/daily/{variant}"))


def test_the_catalogue_and_the_statistics_fit_their_models(client: TestClient) -> None:
    valid(VariantsAnswer, client.get("/api/variants"))
    game = new_game(client, variant="freecell", deal=1)
    assert game["id"]
    stats = valid(StatsAnswer, client.get("/api/stats"))
    assert set(stats) == set(VARIANTS)


def test_a_field_the_document_does_not_name_is_refused() -> None:
    """The models are strict: an answer that gained a field would fail the
    tests above until the document shows it."""
    base = {"version": 1, "kind": "none", "move": None, "line": [], "steps": []}
    HintAnswer.model_validate({**base, "source": "", "win_chance": None, "samples": 0})
    with pytest.raises(ValidationError):
        HintAnswer.model_validate(
            {**base, "source": "", "win_chance": None, "samples": 0, "extra": 1}
        )
    with pytest.raises(ValidationError):
        HintAnswer.model_validate({**base, "source": "", "win_chance": 1.5, "samples": 0})
