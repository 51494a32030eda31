"""The HTTP API through the app: every endpoint and every error answer."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from api_checks import app_client, new_game
from fastapi.testclient import TestClient
from solver_checks import CARRY, CARRY_STEPS

from jielong.engine.catalogue import daily_deal, today_utc, unsolvable_deals
from jielong.engine.rules.core import Illegal
from jielong.engine.rules.registry import rules_for
from jielong.engine.rules.variants import VARIANTS
from jielong.web import app as app_module
from jielong.web.app import Settings, create_app
from jielong.web.i18n import LANGUAGES, catalogue, message, negotiate

KINGS = "Foundations: H-Q C-Q D-Q S-Q\nKH\nKC\nKD\nKS\n:\n:\n:\n:\n"
SEED_PLAYER = "a" * 24


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with app_client(tmp_path_factory, "api") as c:
        yield c


def act(client: TestClient, game: dict[str, Any], **body: Any) -> Any:
    return client.post(
        f"/api/games/{game['id']}/actions", json={"version": game["version"], **body}
    )


def assert_error(r: Any, status: int, code: str) -> dict[str, Any]:
    assert r.status_code == status, r.text
    body: dict[str, Any] = r.json()
    assert body["error"]["code"] == code
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    return body


def unchanged(client: TestClient, game: dict[str, Any]) -> None:
    now = client.get(f"/api/games/{game['id']}").json()
    for key in ("version", "position", "moves", "flags"):
        assert now[key] == game[key]
    assert now["counters"]["moves"] == game["counters"]["moves"]


# -- creating and reading games ------------------------------------------------


def test_create_by_variant_and_deal(client: TestClient) -> None:
    g = new_game(client, variant="freecell", deal=617)
    assert len(g["id"]) >= 22 and g["version"] == 1
    assert (g["variant"], g["deal"], g["deal_id"], g["daily"]) == (
        "freecell",
        617,
        "freecell-617",
        None,
    )
    rules = rules_for("freecell")
    start = rules.deal(617)
    assert g["position"]["tableau"][0]["up"] == [c.code() for c in start.tableau[0]]
    assert g["position"]["cells"] == [None] * 4 and "stock" not in g["position"]
    assert g["moves"] == [m.to_json() for m in rules.legal_moves(start)]
    assert g["limits"] == {"to_card": 5, "to_empty": 5}
    assert g["counters"]["moves"] == 0 and g["counters"]["clock_running"] is True
    assert g["flags"] == {
        "won": False,
        "no_legal_move": False,
        "autocomplete": False,
        "autocollect": False,
        "can_undo": False,
    }
    assert g["last"] is None and g["unsolvable"] is False
    again = client.get(f"/api/games/{g['id']}").json()
    assert again["counters"]["elapsed_ms"] >= g["counters"]["elapsed_ms"]
    assert {**again, "counters": None} == {**g, "counters": None}


def test_klondike_hides_face_down_cards(client: TestClient) -> None:
    g = new_game(client, variant="klondike-3", deal=123456)
    text = json.dumps(g["position"])
    hidden = rules_for("klondike-3").deal(123456)
    for pile, down in zip(hidden.tableau, hidden.hidden, strict=True):
        for card in pile[:down]:
            assert f'"{card.code()}"' not in text
    assert [p["down"] for p in g["position"]["tableau"]] == list(range(7))
    assert g["position"]["stock"] == 24 and g["position"]["waste"] == []
    assert g["limits"] is None and g["deal_id"] == "klondike-3-123456"
    assert {"from": "stock", "to": "waste", "count": 3} in g["moves"]


def test_klondike_deal_numbers_past_64_bits(client: TestClient) -> None:
    big = 10**20 - 1
    g = new_game(client, variant="klondike-1", deal=big)
    assert client.get(f"/api/games/{g['id']}").json()["deal"] == big
    assert new_game(client, deal_id=f"klondike-3-{big}")["deal_id"] == f"klondike-3-{big}"


def test_create_by_deal_id_random_and_custom(client: TestClient) -> None:
    g = new_game(client, deal_id="kongdang-11982")
    assert g["variant"] == "kongdang" and g["deal"] == 11982 and g["unsolvable"] is True
    r = new_game(client, variant="kongdang")
    assert 1 <= r["deal"] <= 1_000_000 and r["deal"] not in unsolvable_deals("freecell")
    c = new_game(client, variant="freecell", position=KINGS)
    assert c["deal"] is None and c["deal_id"] is None and c["flags"]["autocomplete"] is True


def test_daily_game_is_kept_apart_and_resumed(client: TestClient) -> None:
    g = new_game(client, variant="kongdang", daily=True, date="2026-11-29")
    assert g["daily"] == "2026-11-29"
    assert g["deal"] == daily_deal("kongdang", dt.date(2026, 11, 29))
    moved = act(client, g, type="move", **g["moves"][0]).json()
    again = client.post(
        "/api/games", json={"variant": "kongdang", "daily": True, "date": "2026-11-29"}
    )
    assert again.status_code == 200 and again.json()["id"] == g["id"]
    assert again.json()["version"] == moved["version"]
    # the main table's game of the same deal is another game
    main = new_game(client, variant="kongdang", deal=g["deal"])
    assert main["id"] != g["id"] and main["daily"] is None
    today = new_game(client, variant="freecell", daily=True)
    assert today["daily"] == today_utc().isoformat()


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"variant": "spider", "deal": 1}, 422, "unknown_variant"),
        ({"deal": 1}, 422, "invalid_request"),
        ({"variant": "freecell", "deal": 0}, 422, "bad_deal"),
        ({"variant": "klondike-1", "deal": -5}, 422, "bad_deal"),
        ({"variant": "freecell", "deal": 2**40}, 422, "bad_deal"),
        # a deal box's text is judged like a number: digits only, in range
        ({"variant": "freecell", "deal": "6l7"}, 422, "bad_deal"),
        ({"variant": "freecell", "deal": "-5"}, 422, "bad_deal"),
        ({"variant": "freecell", "deal": 1.5}, 422, "invalid_request"),
        ({"deal_id": "freecell-x"}, 422, "bad_deal_id"),
        ({"deal_id": "freecell-617", "variant": "kongdang"}, 422, "bad_deal_id"),
        ({"variant": "freecell", "daily": True, "date": "2026-13-01"}, 422, "bad_date"),
        ({"variant": "freecell", "daily": True, "date": "tomorrow"}, 422, "bad_date"),
        ({"variant": "freecell", "daily": "yes"}, 422, "invalid_request"),
        ({"variant": "freecell", "position": "KH\nKC\n"}, 422, "bad_position"),
        ({"variant": "klondike-1", "position": KINGS}, 422, "bad_position"),
        ({"variant": "freecell", "position": KINGS, "deal": 3}, 422, "invalid_request"),
        ([1, 2], 422, "invalid_request"),
    ],
)
def test_create_errors(client: TestClient, body: Any, status: int, code: str) -> None:
    assert_error(client.post("/api/games", json=body), status, code)


def test_create_refusals_name_the_field(tmp_path: Path) -> None:
    """Each body the OpenAPI document refuses is refused, naming the field as
    the body names it (not the validator's union members).  (An app of its
    own: refusals count against the player's rate of new games.)"""
    cases = [
        ({"variant": "freecell", "deal": " " * 39 + "5"}, 201, None),
        ({"variant": "freecell", "deal": " " * 41 + "5"}, 422, "deal"),
        ({"variant": "freecell", "deal": True}, 422, "deal"),
        ({"variant": "freecell", "deal": None}, 422, "deal"),
        ({"variant": "freecell", "daily": False}, 422, "daily"),
        ({"variant": "freecell", "date": "2026-11-29"}, 422, "date"),
        ({"variant": "freecell", "deal": 5, "position": KINGS}, 422, "position"),
        ({"variant": "freecell", "colour": "red"}, 422, "colour"),
        ({"variant": "freecell", "deal": 5, "winnable": False}, 422, "winnable"),
    ]
    app = create_app(Settings(database=f"sqlite:///{tmp_path / 'g.sqlite3'}", hint_workers=1))
    with TestClient(app) as client:
        for body, status, field in cases:
            r = client.post("/api/games", json=body)
            assert r.status_code == status, (body, r.text)
            if field is not None:
                assert r.json()["error"]["field"] == field, (body, r.text)


def test_malformed_json_anywhere(client: TestClient) -> None:
    g = new_game(client, variant="freecell", deal=5)
    for path in ("/api/games", f"/api/games/{g['id']}/actions", f"/api/games/{g['id']}/hint"):
        r = client.post(path, content=b'{"variant": ', headers={"content-type": "application/json"})
        assert_error(r, 400, "malformed_json")
        # bytes in no Unicode encoding (zero bytes look like UTF-32) are refused alike
        for body in (b"\x80", b"\x00" * 9):
            r = client.post(path, content=body, headers={"content-type": "application/json"})
            assert_error(r, 400, "invalid_request")
    unchanged(client, g)


def test_unknown_game(client: TestClient) -> None:
    for game_id in ("x" * 24, "short", "bad id with spaces and more than sixteen"):
        assert_error(client.get(f"/api/games/{game_id}"), 404, "game_not_found")
        r = client.post(f"/api/games/{game_id}/actions", json={"version": 1, "type": "undo"})
        assert_error(r, 404, "game_not_found")
        assert_error(
            client.post(f"/api/games/{game_id}/clock", json={"running": False}),
            404,
            "game_not_found",
        )
        assert_error(
            client.post(f"/api/games/{game_id}/hint", json={"version": 1}), 404, "game_not_found"
        )


# -- actions ---------------------------------------------------------------------


def test_move_then_stale_version_answers_the_current_state(client: TestClient) -> None:
    g = new_game(client, variant="freecell", deal=1)
    move = g["moves"][0]
    r = act(client, g, type="move", **move)
    assert r.status_code == 200
    g2 = r.json()
    assert g2["version"] == 2 and g2["counters"]["moves"] == 1 and g2["flags"]["can_undo"]
    assert g2["last"] == {"type": "move", **move, "flipped": False}
    body = assert_error(act(client, g, type="move", **move), 409, "stale_version")
    assert body["state"]["version"] == 2 and body["state"]["position"] == g2["position"]
    unchanged(client, g2)


def test_illegal_move_gives_the_reason_and_changes_nothing(client: TestClient) -> None:
    g = new_game(client, variant="freecell", deal=1)
    # two column ends of the same colour: one cannot go on the other
    tops = [col["up"][-1][1] in "DH" for col in g["position"]["tableau"]]
    src, dst = next((i, j) for i in range(8) for j in range(8) if i != j and tops[i] == tops[j])
    body = assert_error(
        act(client, g, type="move", **{"from": f"tableau:{src}", "to": f"tableau:{dst}"}),
        422,
        "illegal_move",
    )
    assert body["error"]["reason"] == "wrong_colour"
    body = assert_error(
        act(client, g, type="move", **{"from": "tableau:0", "to": "foundation:0"}),
        422,
        "illegal_move",
    )
    assert body["error"]["reason"] in ("foundation_wrong_rank", "foundation_wrong_suit")
    body = assert_error(
        act(client, g, type="move", **{"from": "tableau:9", "to": "cell:0"}), 422, "illegal_move"
    )
    assert body["error"]["reason"] == "unknown_pile"
    unchanged(client, g)


def test_run_too_long_names_count_and_limit(client: TestClient) -> None:
    text = (
        "Freecells: 2C 3C 4C 5C\nKS QH JS\nKC\nKD\nKH\nQS QD QC JH JD JC TS TH TD TC 9S 9H 9D 9C\n"
        "8S 8H 8D 8C 7S 7H 7D 7C\n6S 6H 6D 6C 5S 5H 5D\n4S 4H 4D 3S 3H 3D 2S 2H 2D AS AH AD AC\n"
    )
    g = new_game(client, variant="kongdang", position=text)
    assert g["limits"] == {"to_card": 1, "to_empty": 1}
    r = act(client, g, type="move", **{"from": "tableau:0", "to": "tableau:1", "count": 2})
    body = assert_error(r, 422, "illegal_move")
    assert (body["error"]["reason"], body["error"]["count"], body["error"]["limit"]) == (
        "run_too_long",
        2,
        1,
    )
    assert "1" in body["error"]["message"] and "2" in body["error"]["message"]
    unchanged(client, g)


def test_the_limits_shown_stop_at_the_longest_run(client: TestClient) -> None:
    # FreeCell, four free cells and seven empty columns: (4 + 1) * 2^7 by the formula
    text = "Foundations: H-Q C-K D-K S-K\n: KH\n" + ":\n" * 7
    g = new_game(client, variant="freecell", position=text)
    assert g["limits"] == {"to_card": 13, "to_empty": 13}


def test_a_run_over_the_hand_limit_is_played_by_its_steps(client: TestClient) -> None:
    # kongdang, no free cell, two empty columns: 3 cards by hand, 4 by steps
    g = new_game(client, variant="kongdang", position=CARRY)
    assert g["limits"] == {"to_card": 3, "to_empty": 2}
    run = {"from": "tableau:0", "to": "tableau:1", "count": 4}
    steps = [{"from": f"tableau:{a}", "to": f"tableau:{b}"} for a, b in CARRY_STEPS]
    body = assert_error(act(client, g, type="move", **run), 422, "illegal_move")
    assert body["error"]["reason"] == "run_too_long"
    # steps that stop half way, or a wrong run, or steps in another variant
    assert_error(act(client, g, type="move", **run, steps=steps[:6]), 422, "bad_run_steps")
    assert_error(
        act(client, g, type="move", **{**run, "to": "tableau:2"}, steps=steps), 422, "bad_run_steps"
    )
    # a run the rules refuse whatever the limit: red 8♥ on red 10♦
    body = assert_error(
        act(client, g, type="move", **{**run, "count": 3}, steps=steps), 422, "illegal_move"
    )
    assert body["error"]["reason"] == "wrong_colour"
    assert_error(act(client, g, type="draw", steps=steps), 422, "invalid_request")
    fc = new_game(client, variant="freecell", position=CARRY)
    assert_error(act(client, fc, type="move", **run, steps=steps), 422, "not_in_variant")
    # a step the rules refuse: nothing changes
    bad = [{"from": "tableau:0", "to": "tableau:1"}, *steps]
    assert_error(act(client, g, type="move", **run, steps=bad), 422, "bad_run_steps")
    unchanged(client, g)

    r = act(client, g, type="move", **run, steps=steps)
    assert r.status_code == 200, r.text
    moved = r.json()
    assert moved["version"] == g["version"] + 1 and moved["counters"]["moves"] == 1
    assert moved["last"]["type"] == "move" and moved["last"]["count"] == 4
    before = [pile["up"] for pile in g["position"]["tableau"]]
    after = [pile["up"] for pile in moved["position"]["tableau"]]
    assert after[0] == ["QC"] and after[1] == ["TD", "9S", "8H", "7C", "6D"]
    assert after[2:] == before[2:]
    assert moved["position"]["cells"] == g["position"]["cells"]
    # one undo step takes the whole run back
    undone = act(client, moved, type="undo").json()
    assert undone["position"] == g["position"] and undone["counters"]["moves"] == 0


@pytest.mark.parametrize(
    "body",
    [
        {"type": "move"},
        {"type": "move", "from": "tableau:0"},
        {"type": "move", "from": "pile:0", "to": "cell:0"},
        {"type": "move", "from": "tableau:0", "to": "cell:0", "count": 0},
        {"type": "move", "from": "tableau:0", "to": "cell:0", "count": "1"},
        {"type": "teleport"},
        {"type": "undo", "version": "1"},
        {"type": "undo", "version": None},
        {"type": "undo", "version": -1},
        {"type": "undo", "version": True},
    ],
)
def test_invalid_actions(client: TestClient, body: dict[str, Any]) -> None:
    g = new_game(client, variant="freecell", deal=2)
    r = client.post(f"/api/games/{g['id']}/actions", json={"version": 1, **body})
    assert_error(r, 422, "invalid_request")
    unchanged(client, g)


@pytest.mark.parametrize(
    ("variant", "body", "code"),
    [
        ("freecell", {"type": "draw"}, "not_in_variant"),
        ("freecell", {"type": "undo"}, "nothing_to_undo"),
        ("freecell", {"type": "restart"}, "nothing_to_restart"),
        ("freecell", {"type": "autocomplete_step"}, "autocomplete_unavailable"),
        ("freecell", {"type": "autocollect"}, "not_in_variant"),
        ("kongdang", {"type": "autocomplete_step"}, "not_in_variant"),
        ("klondike-3", {"type": "autocollect"}, "not_in_variant"),
    ],
)
def test_refused_actions(client: TestClient, variant: str, body: dict[str, Any], code: str) -> None:
    g = new_game(client, variant=variant, deal=20)
    assert_error(act(client, g, **body), 422, code)
    unchanged(client, g)


def test_draw_undo_restart(client: TestClient) -> None:
    g = new_game(client, variant="klondike-3", deal=7)
    g = act(client, g, type="draw").json()
    assert g["position"]["stock"] == 21 and len(g["position"]["waste"]) == 3
    assert g["last"]["type"] == "draw" and g["counters"]["moves"] == 1
    g = act(client, g, type="draw").json()
    g = act(client, g, type="restart").json()
    assert g["position"]["stock"] == 24 and g["counters"]["moves"] == 0 and g["version"] == 4
    g = act(client, g, type="undo").json()
    assert g["position"]["stock"] == 18 and g["counters"]["moves"] == 2
    g = act(client, g, type="undo").json()
    g = act(client, g, type="undo").json()
    assert g["position"]["stock"] == 24 and not g["flags"]["can_undo"] and g["version"] == 7


def test_autocomplete_and_autocollect(client: TestClient) -> None:
    g = new_game(client, variant="freecell", position=KINGS)
    for n in range(1, 5):
        g = act(client, g, type="autocomplete_step").json()
        assert g["counters"]["moves"] == n and g["counters"]["foundation_cards"] == 48 + n
    assert g["flags"]["won"] and not g["counters"]["clock_running"] and g["moves"] == []
    k = new_game(client, variant="kongdang", position=KINGS)
    assert k["flags"]["autocollect"]
    k = act(client, k, type="autocollect").json()
    assert k["flags"]["won"] and k["counters"]["moves"] == 4 and len(k["last"]["moves"]) == 4
    k = act(client, k, type="undo").json()
    assert k["counters"]["moves"] == 0 and not k["flags"]["can_undo"]


def test_clock_report_keeps_the_version(client: TestClient) -> None:
    g = new_game(client, variant="freecell", deal=8)
    r = client.post(f"/api/games/{g['id']}/clock", json={"running": False})
    assert r.status_code == 200
    paused = r.json()
    assert paused["version"] == 1 and paused["counters"]["clock_running"] is False
    later = client.get(f"/api/games/{g['id']}").json()
    assert later["counters"]["elapsed_ms"] == paused["counters"]["elapsed_ms"]
    r = client.post(f"/api/games/{g['id']}/clock", json={"running": True})
    assert r.json()["counters"]["clock_running"] is True and r.json()["version"] == 1
    assert_error(
        client.post(f"/api/games/{g['id']}/clock", json={"running": "no"}), 422, "invalid_request"
    )


# -- hints -------------------------------------------------------------------------


def test_hint_answers_a_legal_move(client: TestClient) -> None:
    g = new_game(client, variant="freecell", deal=617)
    r = client.post(f"/api/games/{g['id']}/hint", json={"version": 1})
    assert r.status_code == 200, r.text
    hint = r.json()
    assert hint["version"] == 1 and hint["kind"] in ("solver", "heuristic")
    assert hint["move"] in g["moves"] and isinstance(hint["source"], str)
    assert len(hint["line"]) <= 20
    # steps come only with a run over the hand limit, which FreeCell's hint never gives
    assert hint["steps"] == []


def test_a_hint_sends_its_whole_run_of_stock_clicks(client: TestClient) -> None:
    """A new draw-1 game's hint turns the stock through first: all 24 clicks
    are sent (the page says how many), past the 20 moves of a preview."""
    g = new_game(client, variant="klondike-1", deal=2)
    r = client.post(f"/api/games/{g['id']}/hint", json={"version": g["version"]})
    assert r.status_code == 200, r.text
    hint = r.json()
    assert hint["source"] == "first_pass" and hint["move"] == hint["line"][0]
    assert [m["from"] for m in hint["line"]] == ["stock"] * 24


def test_hint_errors(client: TestClient) -> None:
    g = new_game(client, variant="freecell", deal=617)
    body = assert_error(
        client.post(f"/api/games/{g['id']}/hint", json={"version": 9}), 409, "stale_version"
    )
    assert body["state"]["version"] == 1
    assert_error(client.post(f"/api/games/{g['id']}/hint", json={}), 422, "invalid_request")


def test_hints_follow_their_line_and_know_lost_deals(client: TestClient) -> None:
    g = new_game(client, variant="freecell", deal=617)
    first = client.post(f"/api/games/{g['id']}/hint", json={"version": 1}).json()
    assert first["kind"] == "solver" and first["win_chance"] == 1.0 and first["samples"] == 0
    m = first["move"]
    g = act(client, g, type="move", **{"from": m["from"], "to": m["to"], "count": m["count"]})
    g = g.json()
    # the player followed it: the next hint is the next move of the same line
    second = client.post(f"/api/games/{g['id']}/hint", json={"version": g["version"]}).json()
    assert second["move"] == first["line"][0] and second["line"][:19] == first["line"][1:]
    lost = new_game(client, variant="kongdang", deal=11982)
    assert lost["unsolvable"]
    hint = client.post(f"/api/games/{lost['id']}/hint", json={"version": 1}).json()
    assert hint["kind"] == "unsolvable" and hint["move"] is None and hint["win_chance"] == 0.0


# -- catalogue -----------------------------------------------------------------------


def test_variants(client: TestClient) -> None:
    data = client.get("/api/variants").json()["variants"]
    assert [v["id"] for v in data] == list(VARIANTS)
    kong = next(v for v in data if v["id"] == "kongdang")
    assert kong["names"]["zh-Hant"] == "空當接龍" and kong["options"]["run_limit"] == "doubling"
    assert kong["options"]["finishing"] == "autocollect"
    k3 = next(v for v in data if v["id"] == "klondike-3")
    assert k3["options"]["draw"] == 3 and k3["names"]["en"] == "Klondike, draw 3"


def test_deal_catalogue(client: TestClient) -> None:
    data = client.get("/api/deals/kongdang", params={"start": 11980, "count": 5}).json()
    assert data["variant"] == "kongdang" and data["total"] == 1_000_000
    assert [d["deal"] for d in data["deals"]] == [11980, 11981, 11982, 11983, 11984]
    assert [d["unsolvable"] for d in data["deals"]] == [False, False, True, False, False]
    assert data["deals"][2]["deal_id"] == "kongdang-11982"
    # every deal a game can start from, as POST /api/games takes them
    last = 8_589_934_591
    end = client.get("/api/deals/freecell", params={"start": last - 1, "count": 10}).json()
    assert [d["deal"] for d in end["deals"]] == [last - 1, last]
    past = client.get("/api/deals/freecell", params={"start": last + 1})
    assert past.status_code == 200 and past.json()["deals"] == []
    assert len(client.get("/api/deals/klondike-1").json()["deals"]) == 100
    assert_error(client.get("/api/deals/spider"), 422, "unknown_variant")
    assert_error(client.get("/api/deals/freecell", params={"count": 5000}), 422, "invalid_request")
    assert_error(client.get("/api/deals/freecell", params={"start": 0}), 422, "invalid_request")
    assert_error(client.get("/api/deals/freecell", params={"start": "x"}), 422, "invalid_request")


def test_daily_deal(client: TestClient) -> None:
    data = client.get("/api/daily/kongdang", params={"date": "2026-11-29"}).json()
    number = daily_deal("kongdang", dt.date(2026, 11, 29))
    assert data == {
        "variant": "kongdang",
        "date": "2026-11-29",
        "deal": number,
        "deal_id": f"kongdang-{number}",
    }
    assert client.get("/api/daily/freecell").json()["date"] == today_utc().isoformat()
    assert_error(client.get("/api/daily/freecell", params={"date": "29/11/2026"}), 422, "bad_date")
    assert_error(client.get("/api/daily/spider"), 422, "unknown_variant")


def test_statistics_follow_the_player_cookie(tmp_path: Path) -> None:
    app = create_app(Settings(database=f"sqlite:///{tmp_path / 's.sqlite3'}"))
    with TestClient(app) as alice, TestClient(app) as bob:
        first = alice.get("/api/stats")
        cookie = first.headers["set-cookie"]
        assert "jl_player=" in cookie and "HttpOnly" in cookie
        assert first.json()["freecell"] == {
            "games": 0,
            "wins": 0,
            "best_time_ms": None,
            "best_moves": None,
            "streak": 0,
            "best_streak": 0,
            "recent": [],
        }
        assert set(first.json()) == set(VARIANTS)
        assert "set-cookie" not in alice.get("/api/stats").headers  # kept, not renewed
        dealt = new_game(alice, variant="freecell", deal=1)
        # a game counts from its first move: opening a table is not a game
        assert alice.get("/api/stats").json()["freecell"]["games"] == 0
        play_first(alice, dealt)
        play_first(alice, new_game(alice, variant="freecell", position=KINGS))  # custom
        kongdang = new_game(alice, variant="kongdang", deal=5)
        assert alice.get("/api/stats").json()["freecell"]["games"] == 1
        assert bob.get("/api/stats").json()["freecell"]["games"] == 0
        assert alice.get("/api/stats").json()["kongdang"]["games"] == 0
        played = play_first(alice, play_first(alice, kongdang))
        assert played["flags"]["won"] is False
        assert alice.get("/api/stats").json()["kongdang"]["games"] == 1


def play_first(client: TestClient, game: dict[str, Any]) -> dict[str, Any]:
    """The game after its first legal move."""
    m = game["moves"][0]
    r = act(client, game, type="move", **{k: m[k] for k in ("from", "to", "count")})
    assert r.status_code == 200, r.text
    played: dict[str, Any] = r.json()
    return played


def test_a_won_numbered_deal_counts_in_the_statistics(tmp_path: Path) -> None:
    from jielong.engine.solve.api import solve

    rules = rules_for("freecell")
    result = solve("freecell", rules.deal(1), max_seconds=20)
    if result.status != "solved":
        pytest.skip(f"the own solver did not solve deal 1 in time ({result.status})")
    app = create_app(Settings(database=f"sqlite:///{tmp_path / 'w.sqlite3'}"))
    with TestClient(app) as c:
        g = new_game(c, variant="freecell", deal=1)
        for move in result.moves:
            r = act(c, g, type="move", **move.to_json())
            assert r.status_code == 200, r.text
            g = r.json()
        assert g["flags"]["won"]
        stats = c.get("/api/stats").json()["freecell"]
        assert stats["wins"] == 1 and stats["streak"] == 1
        assert stats["best_moves"] == g["counters"]["moves"]
        assert stats["best_time_ms"] == g["counters"]["elapsed_ms"]
        assert stats["recent"] == [
            {
                "date": today_utc().isoformat(),
                "deal": "freecell-1",
                "result": "won",
                "time_ms": stats["best_time_ms"],
                "moves": stats["best_moves"],
            }
        ]
        play_first(c, new_game(c, variant="freecell", deal=2))
        play_first(c, new_game(c, variant="freecell", deal=3))
        new_game(c, variant="freecell", deal=4)  # no move: not a game
        recent = c.get("/api/stats").json()["freecell"]["recent"]
        assert [r["result"] for r in recent] == ["won", "lost", "playing"]
        assert [r["moves"] for r in recent[1:]] == [1, 1]


def test_a_game_the_demo_finished_is_recorded_as_the_demos(tmp_path: Path) -> None:
    from jielong.engine.solve.api import solve

    rules = rules_for("freecell")
    result = solve("freecell", rules.deal(1), max_seconds=20)
    if result.status != "solved":
        pytest.skip(f"the own solver did not solve deal 1 in time ({result.status})")
    app = create_app(Settings(database=f"sqlite:///{tmp_path / 'd.sqlite3'}"))
    with TestClient(app) as c:
        g = new_game(c, variant="freecell", deal=1)
        half = len(result.moves) // 2
        for i, move in enumerate(result.moves):
            # the player plays the first half, the demo the rest
            r = act(c, g, type="move", demo=i >= half, **move.to_json())
            assert r.status_code == 200, r.text
            g = r.json()
        assert g["flags"]["won"]
        stats = c.get("/api/stats").json()["freecell"]
        assert (stats["games"], stats["wins"], stats["streak"]) == (1, 0, 0)
        assert stats["best_time_ms"] is None and stats["best_moves"] is None
        assert [r["result"] for r in stats["recent"]] == ["demo"]
        # the flag is a boolean on any action
        assert_error(act(c, g, type="undo", demo="yes"), 422, "invalid_request")
        assert act(c, g, type="undo", demo=False).status_code == 200


# -- languages, envelope, pages, static files ------------------------------------------


def test_language_negotiation(client: TestClient) -> None:
    path = "/api/games/" + "x" * 24
    assert client.get(path).json()["error"]["message"] == message("game_not_found", "zh-Hant")
    assert client.get(path, headers={"accept-language": "zh-CN,zh;q=0.9"}).json()["error"][
        "message"
    ] == message("game_not_found", "zh-Hans")
    assert client.get(path, params={"lang": "en"}).json()["error"]["message"] == message(
        "game_not_found", "en"
    )
    r = client.get(path, params={"lang": "en"}, headers={"cookie": "lang=zh-Hans"})
    assert r.json()["error"]["message"] == message("game_not_found", "zh-Hans")
    assert negotiate(None, None, "fr, en;q=0.5") == "en"
    # a browser naming only languages the site lacks reads English; one naming
    # none gets the site's own language
    assert negotiate(None, "klingon", "de") == "en"
    assert negotiate(None, "klingon", None) == "zh-Hant"
    assert negotiate(None, None, "zh-TW") == "zh-Hant"


def test_catalogues_cover_every_code_in_every_language() -> None:
    keys = set(catalogue("api", "zh-Hant"))
    for lang in LANGUAGES:
        raw = json.loads(
            (Path(app_module.__file__).with_name("i18n") / f"api.{lang}.json").read_text("utf-8")
        )
        assert set(raw) == keys, lang
        for reason in Illegal:
            assert f"illegal.{reason.value}" in raw
        assert len({raw[f"illegal.{r.value}"] for r in Illegal}) == len(Illegal)
    en = message("illegal_move", "en", reason="run_too_long", count=7, limit=4)
    assert "7" in en and "4" in en
    assert (
        message("illegal_move", "zh-Hant", reason="run_too_long", count=7, limit=4)
        == "可搬 4 張，這串有 7 張"
    )
    assert message("illegal_move", "zh-Hant", reason="wrong_colour") == "顏色必須紅黑交替"


def test_unknown_routes_and_methods_use_the_envelope(client: TestClient) -> None:
    assert_error(client.get("/api/nothing-here"), 404, "not_found")
    assert_error(client.delete("/api/games"), 405, "method_not_allowed")
    assert client.get("/openapi.json").status_code == 200


def test_api_answers_are_not_cached(client: TestClient) -> None:
    assert client.get("/api/variants").headers["cache-control"] == "no-store"


def test_pages_are_mounted(client: TestClient) -> None:
    r = client.get("/play/freecell")
    assert r.status_code == 200 and "text/html" in r.headers["content-type"]


def test_static_files_are_gzipped_and_revalidated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    static = tmp_path / "static"
    static.mkdir()
    (static / "big.js").write_text("export const x = 1;\n" * 500)
    monkeypatch.setattr(app_module, "STATIC_DIR", static)
    app = create_app(Settings(database=f"sqlite:///{tmp_path / 'x.sqlite3'}"))
    with TestClient(app) as c:
        r = c.get("/static/big.js", headers={"accept-encoding": "gzip"})
        assert r.status_code == 200 and r.headers["content-encoding"] == "gzip"
        assert r.headers["cache-control"] == "no-cache" and "etag" in r.headers
        assert r.text == "export const x = 1;\n" * 500
        again = c.get("/static/big.js", headers={"if-none-match": r.headers["etag"]})
        assert again.status_code == 304
        assert "set-cookie" not in r.headers


def test_the_device_takes_the_demos_mark_as_the_server_does() -> None:
    from jielong.play.actions import parse_action
    from jielong.session import ActionError

    assert parse_action({"type": "draw", "demo": True})[0] == "draw"
    marked = {"type": "move", "from": "tableau:0", "to": "cell:0", "demo": True}
    kind, move, _ = parse_action(marked)
    assert kind == "move" and move is not None
    with pytest.raises(ActionError):
        parse_action({"type": "draw", "demo": "yes"})
