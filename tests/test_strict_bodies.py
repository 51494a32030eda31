"""The hint and clock bodies take only their own fields, and one range of
FreeCell deals holds everywhere: a refusal is a 422 with a code and a
message, and changes nothing."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from api_checks import app_client, new_game
from fastapi.testclient import TestClient

from jielong.engine.catalogue import deal_limit


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with app_client(tmp_path_factory, "strict") as c:
        yield c


@pytest.mark.parametrize(
    ("route", "body"),
    [
        ("hint", {"version": 1, "verbose": True}),
        ("clock", {"running": False, "extra": 1}),
    ],
)
def test_an_unknown_field_is_refused_and_changes_nothing(
    client: TestClient, route: str, body: dict[str, object]
) -> None:
    game = new_game(client, variant="freecell", deal=7)
    r = client.post(f"/api/games/{game['id']}/{route}", json=body)
    assert r.status_code == 422
    error = r.json()["error"]
    assert error["code"] == "invalid_request" and error["message"] and error["field"]
    after = client.get(f"/api/games/{game['id']}").json()
    # (the clock runs on: its elapsed time is not the game's state)
    counters = {k: v for k, v in after["counters"].items() if k != "elapsed_ms"}
    assert after["version"] == game["version"]
    assert counters == {k: v for k, v in game["counters"].items() if k != "elapsed_ms"}


def test_the_document_says_so(client: TestClient) -> None:
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    assert schemas["HintRequest"]["additionalProperties"] is False
    assert schemas["ClockReport"]["additionalProperties"] is False


def test_one_freecell_deal_range_everywhere(client: TestClient) -> None:
    last = deal_limit("freecell")
    game = new_game(client, variant="freecell", deal=last)
    assert game["deal"] == last
    listed = client.get("/api/deals/freecell", params={"start": last, "count": 5}).json()
    assert [d["deal"] for d in listed["deals"]] == [last]
    r = client.post("/api/games", json={"variant": "freecell", "deal": last + 1})
    assert r.status_code == 422 and r.json()["error"]["code"] == "bad_deal"
    assert r.json()["error"]["max"] == last
    past = client.get("/api/deals/freecell", params={"start": last + 1}).json()
    assert past["deals"] == []
