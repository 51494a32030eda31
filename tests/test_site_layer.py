"""The site's one request layer: the move route dispatched past the router
answers as the framework would (errors, storage outages, bugs, chunked and
oversized bodies, gzip), and checked player cookies are remembered, never
forged ones."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from api_checks import new_game
from fastapi.testclient import TestClient

from jielong.store import Store
from jielong.web.app import Settings, create_app
from jielong.web.http import site
from jielong.web.http.limits import MAX_BODY_BYTES
from jielong.web.http.security import PLAYER_COOKIE, PlayerIds
from jielong.web.state import app_state


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    db = tmp_path_factory.mktemp("site") / "games.sqlite3"
    app = create_app(Settings(database=f"sqlite:///{db}", hint_workers=1))
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c


def _actions(game: dict[str, Any]) -> str:
    return f"/api/games/{game['id']}/actions"


def test_a_move_answers_with_every_header_and_gzip_only_when_large(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = new_game(client, variant="freecell", deal=3)
    body = {"version": 1, "type": "move", **game["moves"][0]}
    r = client.post(_actions(game), json=body, headers={"accept-encoding": "gzip"})
    assert r.status_code == 200 and r.json()["version"] == 2
    assert "content-encoding" not in r.headers  # small: sent as is
    assert r.headers["cache-control"] == "no-store"
    assert r.headers["x-frame-options"] == "DENY" and "content-security-policy" in r.headers
    assert "x-shell-version" not in r.headers
    monkeypatch.setattr(site, "GZIP_JSON_FROM", 100)
    undo = {"version": 2, "type": "undo"}
    raw = client.post(_actions(game), json=undo, headers={"accept-encoding": "gzip"})
    assert raw.headers["content-encoding"] == "gzip" and "Accept-Encoding" in raw.headers["vary"]
    assert raw.json()["version"] == 3 and raw.json()["counters"]["moves"] == 0
    # (the client unzips it)
    assert int(raw.headers["content-length"]) < len(json.dumps(raw.json())) / 2
    # and uncompressed to a client that does not take gzip
    plain = client.post(_actions(game), json={"version": 3, "type": "undo"})
    assert plain.status_code == 422 and "content-encoding" not in plain.headers


def test_a_move_sent_in_chunks_is_read_and_an_oversized_one_refused(client: TestClient) -> None:
    game = new_game(client, variant="freecell", deal=4)
    data = json.dumps({"version": 1, "type": "move", **game["moves"][0]}).encode()
    chunks = iter([data[:10], data[10:]])
    headers = {"content-type": "application/json"}
    r = client.post(_actions(game), content=chunks, headers=headers)
    assert r.status_code == 200 and r.json()["version"] == 2
    big = (b"x" * 8192 for _ in range(MAX_BODY_BYTES // 8192 + 2))
    r = client.post(_actions(game), content=big, headers=headers)
    assert r.status_code == 413 and r.json()["error"]["code"] == "body_too_large"
    assert client.get(f"/api/games/{game['id']}").json()["version"] == 2


def test_a_move_whose_store_fails_answers_503_then_recovers(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'games.sqlite3'}")
    app = create_app(Settings(hint_workers=1), store=store)
    with TestClient(app) as client:
        game = new_game(client, variant="freecell", deal=5)
        body = {"version": 1, "type": "move", **game["moves"][0]}
        save_soon = store.save_soon  # how a move is saved on SQLite

        async def down(*args: Any) -> Any:
            raise sa.exc.OperationalError("UPDATE", {}, Exception("disk I/O error"))

        store.save_soon = down  # type: ignore[method-assign]
        r = client.post(_actions(game), json=body)
        assert r.status_code == 503 and r.json()["error"]["code"] == "storage_unavailable"
        assert int(r.headers["retry-after"]) > 0 and r.headers["cache-control"] == "no-store"
        assert app_state(app).storage_outage.failing
        store.save_soon = save_soon  # type: ignore[method-assign]
        assert client.post(_actions(game), json=body).status_code == 200
        assert not app_state(app).storage_outage.failing


def test_a_bug_in_a_move_is_a_500(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'games.sqlite3'}")
    app = create_app(Settings(hint_workers=1), store=store)
    with TestClient(app, raise_server_exceptions=False) as client:
        game = new_game(client, variant="freecell", deal=6)

        async def broken(*args: Any) -> Any:
            raise RuntimeError("a bug")

        store.save_soon = broken  # type: ignore[method-assign]
        r = client.post(_actions(game), json={"version": 1, "type": "move", **game["moves"][0]})
        assert r.status_code == 500
        metrics = client.get("/metrics").text
        route = 'route="/api/games/{game_id}/actions"'
        assert any(route in line and 'status="500"' in line for line in metrics.splitlines())


def test_other_methods_on_the_move_route_go_to_the_router(client: TestClient) -> None:
    game = new_game(client, variant="freecell", deal=7)
    r = client.get(_actions(game))
    assert r.status_code == 405 and r.json()["error"]["code"] == "method_not_allowed"
    slash = client.post(_actions(game) + "/", json={}, follow_redirects=False)
    assert slash.status_code == 307 and slash.headers["location"].endswith(_actions(game))


def test_checked_cookies_are_remembered_and_forged_ones_never() -> None:
    players = PlayerIds(b"k" * 32)
    player, cookie = players.issue()
    header = f"lang=en; {PLAYER_COOKIE}={cookie}".encode()
    assert players.from_cookie_headers([header]) == (player, None)
    assert players.from_cookie_headers([header]) == (player, None)  # from memory
    forged = header[:-1] + (b"A" if header[-1:] != b"A" else b"B")
    other, new = players.from_cookie_headers([forged])
    assert other != player and new is not None and new.startswith(other + ".")
    again, renewed = players.from_cookie_headers([forged])
    assert again != other and renewed is not None  # refused every time, never kept
    # another server's key does not sign this one's players
    assert PlayerIds(b"j" * 32).from_cookie_headers([header])[0] != player
    # several Cookie headers are read together, as one
    split = [b"lang=en", f"{PLAYER_COOKIE}={cookie}".encode()]
    assert players.from_cookie_headers(split) == (player, None)
