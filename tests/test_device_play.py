"""Games played on the device: the browser worker's engine (``jielong.play.worker``)
answering as the server does, and the server's replay of what a device played
offline (``POST /api/games/{id}/sync``): accepted whole or refused whole,
a win counted only when the replay wins it, and once."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from jielong.engine.rules.registry import rules_for
from jielong.engine.solve.api import solve
from jielong.play import worker
from jielong.play.actions import parse_action, play_action
from jielong.session import ActionError, Session
from jielong.web.i18n import message
from tests.api_checks import app_client, new_game


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with app_client(tmp_path_factory, "device") as c:
        yield c


def ask(engine: worker.Engine, op: str, **body: Any) -> tuple[int, Any]:
    answer = json.loads(worker.handle(op, json.dumps(body), engine))
    return answer["status"], answer["body"]


def first_move(state: dict[str, Any]) -> dict[str, Any]:
    move: dict[str, Any] = state["moves"][0]
    return {"type": "move", **move}


# -- actions as JSON -------------------------------------------------------------


@pytest.mark.parametrize(
    ("action", "detail"),
    [
        ([], "an action is an object"),
        ({"type": "fly"}, "type"),
        ({"type": "undo", "from": "tableau:0"}, "from"),
        ({"type": "move", "from": "tableau:0"}, "a move needs 'from' and 'to' pile ids"),
        ({"type": "move", "from": "tableau:0", "to": "cell:0", "version": 3}, "version"),
        ({"type": "move", "from": "tableau:0", "to": "cell:0", "steps": []}, "steps"),
        ({"type": "move", "from": "nowhere", "to": "cell:0"}, None),
    ],
)
def test_a_malformed_action_is_refused_by_name(action: object, detail: str | None) -> None:
    with pytest.raises(ActionError) as caught:
        parse_action(action)
    assert caught.value.code == "invalid_request"
    if detail is not None:
        assert caught.value.params["detail"] == detail


def test_an_action_plays_as_the_route_does() -> None:
    session = Session("klondike-3", deal=5)
    play_action(session, {"type": "draw"})
    play_action(session, {"type": "undo"})
    assert session.moves_count == 0 and len(session.steps) == 0
    with pytest.raises(ActionError) as caught:
        play_action(session, {"type": "undo"})
    assert caught.value.code == "nothing_to_undo"


# -- the worker's engine -------------------------------------------------------


def test_the_worker_deals_plays_and_keeps_a_game_as_the_server_would() -> None:
    engine = worker.Engine(words=message)
    status, made = ask(engine, "new", variant="freecell", deal=617)
    assert status == 200
    state = made["state"]
    assert state["id"].startswith(worker.DEVICE_PREFIX) and state["version"] == 1
    assert state["deal_id"] == "freecell-617" and state["winnable"]
    status, played = ask(engine, "act", id=state["id"], version=1, action=first_move(state))
    assert status == 200 and played["state"]["version"] == 2
    assert played["state"]["counters"]["moves"] == 1

    # the record it keeps opens the same game in a new worker (a reload)
    fresh = worker.Engine()
    status, reopened = ask(fresh, "open", **played["record"])
    assert status == 200
    assert reopened["position"] == played["state"]["position"]
    assert reopened["moves"] == played["state"]["moves"]
    assert reopened["version"] == 2

    # and the server, given the same deal and actions, says the same
    session = Session("freecell", deal=617)
    play_action(session, first_move(state))
    assert [m.to_json() for m in session.legal_moves()] == reopened["moves"]


def test_the_worker_refuses_as_the_server_does_and_changes_nothing() -> None:
    engine = worker.Engine(words=message)
    _, made = ask(engine, "new", variant="klondike-1", deal=3)
    state = made["state"]
    bad = {"type": "move", "from": "tableau:0", "to": "tableau:0"}
    status, body = ask(engine, "act", id=state["id"], version=1, action=bad, lang="en")
    assert status == 422 and body["error"]["code"] == "illegal_move"
    assert body["error"]["message"] == message("illegal_move", "en", reason="same_pile")
    status, body = ask(engine, "act", id=state["id"], version=7, action={"type": "draw"})
    assert status == 409 and body["error"]["code"] == "stale_version"
    assert body["state"]["version"] == 1
    status, body = ask(engine, "act", id="device-nothing", version=1, action={"type": "draw"})
    assert status == 404
    status, body = ask(engine, "fly")
    assert status == 400


def test_the_worker_hints_and_analyses_on_the_device() -> None:
    engine = worker.Engine()
    _, made = ask(engine, "new", variant="freecell", deal=1)
    state = made["state"]
    status, hint = ask(engine, "hint", id=state["id"], version=1)
    assert status == 200 and hint["computed"] == "device"
    assert hint["kind"] == "solver" and hint["move"] in state["moves"]
    status, verdict = ask(engine, "analysis", id=state["id"], version=1)
    assert status == 200 and verdict["computed"] == "device"
    assert verdict["status"] == "solved" and verdict["length"] == len(verdict["moves"]) > 0


def test_the_worker_deals_the_daily_deal_every_server_deals() -> None:
    from jielong.engine.catalogue import daily_deal

    engine = worker.Engine()
    _, made = ask(engine, "new", variant="kongdang", daily=True, date="2026-12-04")
    state = made["state"]
    assert state["daily"] == "2026-12-04"
    assert state["deal"] == daily_deal("kongdang", __import__("datetime").date(2026, 12, 4))


# -- the server's replay ----------------------------------------------------------


def test_a_sync_replays_the_device_actions_on_the_server(client: TestClient) -> None:
    g = new_game(client, variant="klondike-3", deal=11)
    actions = [{"type": "draw"}, {"type": "draw"}, {"type": "undo"}, {"type": "draw"}]
    expected = Session("klondike-3", deal=11)
    for a in actions:
        play_action(expected, a)
    r = client.post(f"/api/games/{g['id']}/sync", json={"version": 1, "actions": actions})
    assert r.status_code == 200, r.text
    state = r.json()
    assert state["counters"]["moves"] == expected.moves_count == 2
    assert state["version"] == 2
    record = client.get(f"/api/games/{g['id']}/record").json()
    assert record["version"] == 2 and len(record["steps"]) == 2
    assert record["steps"] == [s.to_json() for s in expected.steps]


def test_a_sync_with_a_move_the_rules_refuse_is_refused_whole(client: TestClient) -> None:
    g = new_game(client, variant="freecell", deal=617)
    forged = {"type": "move", "from": "tableau:0", "to": "foundation:0"}
    body = {"version": 1, "actions": [first_move(g), forged]}
    r = client.post(f"/api/games/{g['id']}/sync", json=body)
    assert r.status_code == 422, r.text
    error = r.json()["error"]
    assert error["code"] == "illegal_move" and error["index"] == 1 and error["message"]
    now = client.get(f"/api/games/{g['id']}").json()
    assert now["version"] == 1 and now["counters"]["moves"] == 0


def test_a_sync_on_a_version_played_elsewhere_is_stale(client: TestClient) -> None:
    g = new_game(client, variant="freecell", deal=618)
    r = client.post(f"/api/games/{g['id']}/actions", json={"version": 1, **first_move(g)})
    assert r.status_code == 200
    r = client.post(f"/api/games/{g['id']}/sync", json={"version": 1, "actions": [first_move(g)]})
    assert r.status_code == 409 and r.json()["error"]["code"] == "stale_version"
    assert r.json()["state"]["version"] == 2


@pytest.mark.parametrize(
    "body",
    [
        {"version": 1, "actions": []},
        {"version": 1, "actions": [{"type": "draw"}], "extra": 1},
        {"version": 0, "actions": [{"type": "draw"}]},
        {"version": 1, "actions": [{"type": "draw", "count": 3}]},
        {"version": 1, "actions": "draw"},
    ],
)
def test_a_malformed_sync_changes_nothing(client: TestClient, body: dict[str, Any]) -> None:
    g = new_game(client, variant="klondike-1", deal=4)
    r = client.post(f"/api/games/{g['id']}/sync", json=body)
    assert 400 <= r.status_code < 500 and r.json()["error"]["code"]
    assert client.get(f"/api/games/{g['id']}").json()["version"] == 1


def test_a_win_played_on_the_device_counts_once_and_only_when_replayed(
    client: TestClient,
) -> None:
    result = solve("freecell", rules_for("freecell").deal(1), max_seconds=20)
    if result.status != "solved":
        pytest.skip(f"the own solver did not solve deal 1 in time ({result.status})")
    before = client.get("/api/stats").json()["freecell"]["wins"]
    g = new_game(client, variant="freecell", deal=1)
    actions = [{"type": "move", **m.to_json()} for m in result.moves]
    # a forged end (the last move dropped) wins nothing
    r = client.post(f"/api/games/{g['id']}/sync", json={"version": 1, "actions": actions[:-1]})
    assert r.status_code == 200 and not r.json()["flags"]["won"]
    assert client.get("/api/stats").json()["freecell"]["wins"] == before
    r = client.post(
        f"/api/games/{g['id']}/sync",
        json={"version": 2, "actions": actions[-1:], "elapsed_ms": 90_000},
    )
    assert r.status_code == 200 and r.json()["flags"]["won"]
    assert r.json()["counters"]["elapsed_ms"] >= 90_000
    r = client.post(
        f"/api/games/{g['id']}/sync", json={"version": 3, "actions": [{"type": "undo"}]}
    )
    assert r.status_code == 200
    r = client.post(f"/api/games/{g['id']}/sync", json={"version": 4, "actions": actions[-1:]})
    assert r.status_code == 200 and r.json()["flags"]["won"]
    assert client.get("/api/stats").json()["freecell"]["wins"] == before + 1


def test_the_record_of_an_unknown_game_is_404(client: TestClient) -> None:
    r = client.get("/api/games/" + "x" * 24 + "/record")
    assert r.status_code == 404 and r.json()["error"]["code"] == "game_not_found"
