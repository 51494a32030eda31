"""Boards through the HTTP API: PySolFC's import boards start games (which
never count in the statistics), and the refused ones say what is wrong and
where, in the player's language."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from api_checks import app_client, new_game
from fastapi.testclient import TestClient

from jielong.engine.rules.registry import rules_for
from jielong.engine.solve.result import SolveResult
from jielong.play.answers import analyse

BOARDS = Path(__file__).parent / "fixtures" / "boards"


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with app_client(tmp_path_factory, "api-board") as c:
        yield c


def board(name: str) -> str:
    return (BOARDS / name).read_bytes().decode("utf-8")


@pytest.mark.parametrize(
    ("name", "deal"),
    [("624.board", 624), ("624-with-utf8-bom.board", 624), ("with-10-for-rank.txt", 24)],
)
def test_boards_start_games(client: TestClient, name: str, deal: int) -> None:
    game = new_game(client, variant="freecell", position=board(name))
    assert game["deal"] is None
    reference = new_game(client, variant="freecell", deal=deal)
    assert game["position"] == reference["position"]
    assert game["moves"] == reference["moves"]


@pytest.mark.parametrize(
    ("name", "error", "en", "zh"),
    [
        (
            "624-with-dup-card.board",
            {"code": "duplicate_cards", "cards": ["KC"], "line": 2, "missing": ["4H"]},
            "written twice: KC (line 2); missing: 4H",
            "重複的牌：KC（第 2 行）；缺少：4H",
        ),
        (
            "624-missing-cards.board",
            {"code": "missing_cards", "cards": ["5H"]},
            "missing: 5H",
            "缺少的牌：5H",
        ),
        (
            "624-invalid-foundations-line.board",
            {"code": "bad_foundations", "line": 1, "token": "zzz"},
            "line 1: “zzz” is not a foundation",
            "第 1 行：「zzz」不是回收堆的寫法",
        ),
    ],
)
def test_refused_boards_say_what_and_where(
    client: TestClient, name: str, error: dict[str, object], en: str, zh: str
) -> None:
    for lang, text in (("en", en), ("zh-Hant", zh)):
        r = client.post(
            f"/api/games?lang={lang}", json={"variant": "freecell", "position": board(name)}
        )
        assert r.status_code == 422
        body = r.json()["error"]
        assert body["code"] == "bad_position"
        assert error.items() <= body["position_error"].items()
        assert text in body["message"], body["message"]


def test_klondike_layout_starts_a_game(client: TestClient) -> None:
    rules = rules_for("klondike-3")
    layout = rules.to_text(rules.deal(9), "pysol")  # type: ignore[call-arg]
    game = new_game(client, variant="klondike-3", position=layout)
    reference = new_game(client, variant="klondike-3", deal=9)
    assert game["position"] == reference["position"]


def test_position_text_code_and_link_read_back(client: TestClient) -> None:
    game = new_game(client, variant="kongdang", deal=11982)
    moved = client.post(
        f"/api/games/{game['id']}/actions",
        json={"version": game["version"], "type": "move", **game["moves"][0]},
    ).json()
    answer = client.get(f"/api/games/{game['id']}/position").json()
    assert answer["version"] == moved["version"]
    assert answer["link"] == f"/play/kongdang?position={answer['code']}"
    for key in ("text", "pysol", "code"):
        copy = new_game(client, variant="kongdang", position=answer[key])
        assert copy["position"] == moved["position"] and copy["deal"] is None


@pytest.mark.parametrize(("variant", "deal"), [("freecell", 617), ("klondike-1", 5)])
def test_analysis_gives_a_line_that_plays_to_a_win(
    client: TestClient, variant: str, deal: int
) -> None:
    game = new_game(client, variant=variant, deal=deal)
    answer = client.get(f"/api/games/{game['id']}/analysis").json()
    assert answer["status"] == "solved" and answer["version"] == game["version"]
    assert answer["length"] == len(answer["moves"]) > 0
    assert answer["thoughtful"] == variant.startswith("klondike")
    assert {s["solver"] for s in answer["solvers"]} >= {"own"}
    for move in answer["moves"]:
        game = client.post(
            f"/api/games/{game['id']}/actions",
            json={"version": game["version"], "type": "move", **move},
        ).json()
    assert game["flags"]["won"]
    after = client.get(f"/api/games/{game['id']}/analysis").json()
    assert (after["status"], after["length"], after["thoughtful"]) == ("solved", 0, False)


def test_analysis_proves_a_lost_position(client: TestClient) -> None:
    # Klondike draw 3 deal 7 is proven lost (the survey's test), as a position
    rules = rules_for("klondike-3")
    text = rules.to_text(rules.deal(7))
    game = new_game(client, variant="klondike-3", position=text)
    answer = client.get(f"/api/games/{game['id']}/analysis").json()
    assert (answer["status"], answer["moves"], answer["thoughtful"]) == ("unsolvable", [], True)


def test_a_won_position_is_refused_in_the_players_language(client: TestClient) -> None:
    won = "Foundations: H-K C-K D-K S-K\n" + ":\n" * 8
    r = client.post("/api/games?lang=zh-Hant", json={"variant": "freecell", "position": won})
    assert r.status_code == 422
    body = r.json()["error"]
    assert body["position_error"] == {"code": "won"}
    assert "所有的牌都已回收" in body["message"]


def _result(status: str, length: int, solver: str) -> SolveResult:
    rules = rules_for("freecell")
    move = rules.legal_moves(rules.deal(1))[0]
    return SolveResult(status, (move,) * length, solver=solver)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("answers", "status", "length", "solver"),
    [
        ([("solved", 90, "own"), ("solved", 60, "fcsolve")], "solved", 60, "fcsolve"),
        ([("unknown", 0, "own"), ("solved", 70, "fcsolve")], "solved", 70, "fcsolve"),
        ([("unsolvable", 0, "own"), ("unknown", 0, "fcsolve")], "unsolvable", 0, None),
        ([("unknown", 0, "own"), ("unknown", 0, "fcsolve")], "unknown", 0, None),
    ],
)
def test_the_verdict_joins_both_solvers(
    monkeypatch: pytest.MonkeyPatch,
    answers: list[tuple[str, int, str]],
    status: str,
    length: int,
    solver: str | None,
) -> None:
    from jielong.engine.solve import api, fcsolve

    given = {name: _result(s, n, name) for s, n, name in answers}
    monkeypatch.setattr(fcsolve, "available", lambda: True)
    monkeypatch.setattr(api, "solve", lambda *a, solver="own", **k: given[solver])
    answer = analyse("freecell", rules_for("freecell").deal(1), 1.0)
    assert (answer["status"], answer["length"], answer["solver"]) == (status, length, solver)
    assert len(answer["moves"]) == length
    assert [s["solver"] for s in answer["solvers"]] == ["own", "fcsolve"]
