"""Security headers on every answer, the API docs only on request, and player
ids that only the server issues (signed), Secure over HTTPS."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest
from api_checks import new_game
from fastapi.testclient import TestClient

from jielong.testing.processes import ServerProcess
from jielong.web.app import Settings, create_app
from jielong.web.http.security import PlayerIds


def _played(client: TestClient) -> dict[str, object]:
    """A FreeCell game with a move made (a game counts from its first move)."""
    game = new_game(client, variant="freecell", deal=3)
    body = {"version": game["version"], "type": "move", **game["moves"][0]}
    r = client.post(f"/api/games/{game['id']}/actions", json=body)
    assert r.status_code == 200, r.text
    return game


def _app(tmp_path: Path, *, docs: bool = False) -> TestClient:
    db = f"sqlite:///{tmp_path / 'games.sqlite3'}"
    return TestClient(create_app(Settings(database=db, hint_workers=1, docs=docs)))


def test_every_answer_carries_the_security_headers(tmp_path: Path) -> None:
    with _app(tmp_path) as client:
        for path in ("/", "/play/freecell", "/api/variants", "/static/js/main.js", "/nowhere"):
            r = client.get(path)
            csp = r.headers["content-security-policy"]
            assert re.search(r"script-src 'self'( 'wasm-unsafe-eval')?;", csp), path
            assert "frame-ancestors 'none'" in csp, path
            # no inline script, and no inline style either (the board sets its
            # styles through the elements' style objects)
            assert "unsafe-inline" not in csp and "style-src-attr" not in csp, path
            assert "style-src 'self';" in csp, path
            assert r.headers["x-content-type-options"] == "nosniff"
            assert r.headers["x-frame-options"] == "DENY"
            assert r.headers["referrer-policy"] == "same-origin"
        # the pages need no inline script: only the boot data, which is not run
        page = client.get("/play/freecell").text
        scripts = re.findall(r"<script[^>]*>", page)
        assert scripts and all(
            'src="/static/' in tag or 'type="application/json"' in tag for tag in scripts
        ), scripts
        assert not re.search(r"<[^>]*\s(on[a-z]+|style)=", page)
        # the docs load a CDN's scripts: only when asked for
        assert client.get("/docs").status_code == 404
        assert client.get("/openapi.json").status_code == 200
    with _app(tmp_path, docs=True) as client:
        r = client.get("/docs")
        assert r.status_code == 200 and "cdn.jsdelivr.net" in r.headers["content-security-policy"]


def test_a_player_id_the_client_chose_is_not_taken(tmp_path: Path) -> None:
    with _app(tmp_path) as alice, _app(tmp_path) as bob:
        chosen = "a" * 24
        for client in (alice, bob):
            client.cookies.set("jl_player", chosen)
        r = alice.post("/api/games", json={"variant": "freecell", "deal": 3})
        issued = r.cookies["jl_player"]
        # a game counts from its first move
        move = {"version": 1, "type": "move", **r.json()["moves"][0]}
        assert alice.post(f"/api/games/{r.json()['id']}/actions", json=move).status_code == 200
        assert chosen not in issued
        assert bob.get("/api/stats").json()["freecell"]["games"] == 0
        assert alice.get("/api/stats").json()["freecell"]["games"] == 1
        # a forged or altered signature is replaced as well
        player, _, signature = issued.partition(".")
        forged = f"{player}.{signature[::-1]}"
        bob.cookies.clear()
        bob.cookies.set("jl_player", forged)
        r = bob.get("/api/stats")
        assert r.json()["freecell"]["games"] == 0 and r.cookies["jl_player"] != forged


def test_ids_are_signed_with_the_databases_key(tmp_path: Path) -> None:
    with _app(tmp_path) as first:
        _played(first)
        cookie = first.cookies["jl_player"]
    # another server on the same database (or after a restart) knows the player
    with _app(tmp_path) as second:
        second.cookies.set("jl_player", cookie)
        r = second.get("/api/stats")
        assert "set-cookie" not in r.headers and r.json()["freecell"]["games"] == 1
    ids = PlayerIds(b"k" * 32)
    player, value = ids.issue()
    assert ids.check(value) == player and PlayerIds(b"j" * 32).check(value) is None
    assert ids.check(player) is None and ids.check("") is None


def test_the_cookie_is_secure_over_https(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'games.sqlite3'}"
    app = create_app(Settings(database=db, hint_workers=1))
    with TestClient(app, base_url="https://testserver") as client:
        assert "Secure" in client.get("/api/stats").headers["set-cookie"]
    with TestClient(app) as client:
        assert "Secure" not in client.get("/api/stats").headers["set-cookie"]


@pytest.mark.slow
def test_a_proxy_is_believed_only_from_the_allowed_addresses(tmp_path: Path) -> None:
    database = f"sqlite:///{tmp_path / 'games.sqlite3'}"
    https = {"X-Forwarded-Proto": "https"}
    with ServerProcess(database, "--hint-workers", "1") as trusted:
        r = httpx.get(trusted.url + "/api/stats", headers=https)
        assert "Secure" in r.headers["set-cookie"]
    with ServerProcess(database, "--hint-workers", "1", "--forwarded-allow-ips", "10.9.9.9") as s:
        r = httpx.get(s.url + "/api/stats", headers=https)
        assert "Secure" not in r.headers["set-cookie"]


def test_over_https_the_cookie_is_a_host_cookie_and_a_plain_one_is_replaced(
    tmp_path: Path,
) -> None:
    db = f"sqlite:///{tmp_path / 'games.sqlite3'}"
    app = create_app(Settings(database=db, hint_workers=1))
    with TestClient(app) as plain:
        _played(plain)
        planted = plain.cookies["jl_player"]
    with TestClient(app, base_url="https://testserver") as victim:
        # an id planted as a plain cookie (from a sibling host, or over HTTP)
        victim.cookies.set("jl_player", planted)
        r = victim.get("/api/stats")
        assert r.json()["freecell"]["games"] == 0
        issued = r.headers["set-cookie"]
        assert issued.startswith("__Host-jl_player=") and planted not in issued
        assert "Secure" in issued and "Path=/" in issued and "Domain" not in issued
        _played(victim)
        r = victim.get("/api/stats")
        assert "set-cookie" not in r.headers and r.json()["freecell"]["games"] == 1


def test_a_padded_cookie_header_keeps_the_player(tmp_path: Path) -> None:
    with _app(tmp_path) as client:
        _played(client)
        cookie = client.cookies["jl_player"]
        client.cookies.clear()
        for n in range(20):
            header = f"pad{n}={'x' * 20_000}; jl_player={cookie}"
            r = client.get("/api/stats", headers={"Cookie": header})
            assert "set-cookie" not in r.headers and r.json()["freecell"]["games"] == 1
