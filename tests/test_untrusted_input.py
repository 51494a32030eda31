"""Input from the open internet: numbers in ids are ASCII digits only, and
position texts are bounded; every refusal is a 4xx in the JSON error shape
that changes nothing."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from api_checks import app_client, new_game
from fastapi.testclient import TestClient

from jielong.engine.catalogue import DealId
from jielong.engine.notation import parse_move
from jielong.engine.rules.core import InvalidMoveError, Pile
from jielong.engine.rules.registry import rules_for
from jielong.engine.shuffles import DealError

# other scripts' digits that str.isdigit() and int() accept
FOREIGN_DIGITS = ["²", "٣", "３", "१", "𝟑"]
KINGS = "Foundations: H-Q C-Q D-Q S-Q\nKH\nKC\nKD\nKS\n:\n:\n:\n:\n"


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with app_client(tmp_path_factory, "untrusted") as c:
        yield c


def refused(r: Any, status: int, code: str) -> None:
    assert r.status_code == status, r.text
    assert r.json()["error"]["code"] == code


@pytest.mark.parametrize("digit", FOREIGN_DIGITS)
def test_pile_ids_take_ascii_digits_only(digit: str) -> None:
    with pytest.raises(InvalidMoveError):
        Pile.parse(f"tableau:{digit}")
    with pytest.raises(InvalidMoveError):
        parse_move(f"{digit}5", [], "freecell")
    with pytest.raises(InvalidMoveError):
        parse_move(f"tableau:1 tableau:2 {digit}", [], "freecell")
    with pytest.raises(DealError):
        DealId.parse(f"freecell-6{digit}7")
    assert Pile.parse("tableau:3") == Pile("tableau", 3)


@pytest.mark.parametrize("digit", FOREIGN_DIGITS)
def test_foreign_digits_are_refused_everywhere(client: TestClient, digit: str) -> None:
    g = new_game(client, variant="freecell", deal=5)
    url = f"/api/games/{g['id']}/actions"
    move = {"version": g["version"], "type": "move", "count": 1}
    refused(
        client.post(url, json={**move, "from": f"tableau:{digit}", "to": "tableau:4"}),
        422,
        "invalid_request",
    )
    refused(
        client.post(url, json={**move, "from": "tableau:0", "to": f"cell:{digit}"}),
        422,
        "invalid_request",
    )
    steps = [{"from": f"tableau:{digit}", "to": "cell:0"}]
    refused(
        client.post(url, json={**move, "from": "tableau:0", "to": "tableau:1", "steps": steps}),
        422,
        "invalid_request",
    )
    refused(
        client.post("/api/games", json={"deal_id": f"freecell-６１{digit}"}), 422, "bad_deal_id"
    )
    date = f"202{digit}-11-29"
    refused(
        client.post("/api/games", json={"variant": "freecell", "daily": True, "date": date}),
        422,
        "bad_date",
    )
    refused(client.get("/api/daily/freecell", params={"date": date}), 422, "bad_date")
    assert client.get(f"/api/games/{g['id']}").json()["version"] == g["version"]


def _klondike_text(recycles: str) -> str:
    rules = rules_for("klondike-3")
    text = rules.to_text(rules.deal(7))
    return text.replace("Recycles: 0", f"Recycles: {recycles}")


@pytest.mark.parametrize("recycles", ["-5", "10" + "0" * 30, "٣", "1_000", "+3", ""])
def test_position_recycles_are_bounded(client: TestClient, recycles: str) -> None:
    body = {"variant": "klondike-3", "position": _klondike_text(recycles)}
    r = client.post("/api/games", json=body)
    refused(r, 422, "bad_position")
    assert "Recycles" in r.json()["error"]["message"]


def test_position_text_limits(client: TestClient) -> None:
    assert rules_for("klondike-3").from_text(_klondike_text(" 12 ")).recycles == 12
    assert new_game(client, variant="klondike-3", position=_klondike_text("12"))["deal"] is None
    # a position already won has nothing left to play
    won = "Foundations: H-K C-K D-K S-K\n:\n:\n:\n:\n:\n:\n:\n:\n"
    r = client.post("/api/games", json={"variant": "freecell", "position": won})
    refused(r, 422, "bad_position")
    assert r.json()["error"]["position_error"]["code"] == "won"
    # one move from a win is still a position to play
    assert new_game(client, variant="freecell", position=KINGS)["deal"] is None
