"""Bounded growth: game creation is rate-limited per player and per address,
and unfinished games nobody touches expire while the statistics stay."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from api_checks import new_game
from fastapi.testclient import TestClient

from jielong.session import LOOP_TURNS
from jielong.store import Store
from jielong.store.tables import game_steps, games
from jielong.web.app import Settings, create_app
from jielong.web.services.growth import CreationLimit, expire_games
from jielong.web.state import app_state

KINGS = "Foundations: H-Q C-Q D-Q S-Q\nKH\nKC\nKD\nKS\n:\n:\n:\n:\n"


def test_one_client_cannot_start_games_without_end(tmp_path: Path) -> None:
    app = create_app(Settings(database=f"sqlite:///{tmp_path / 'g.sqlite3'}", hint_workers=1))
    with TestClient(app) as client:
        started = time.monotonic()
        statuses = [
            client.post("/api/games", json={"variant": "freecell", "deal": 1}).status_code
            for _ in range(100)
        ]
        # a burst of 60, then one a second
        allowed = 60 + int(time.monotonic() - started) + 1
        assert 60 <= statuses.count(201) <= allowed and 429 in statuses, statuses
        r = client.post("/api/games", json={"variant": "freecell", "deal": 1})
        assert r.status_code == 429 and r.json()["error"]["code"] == "rate_limited"
        assert int(r.headers["retry-after"]) >= 1


def test_creation_is_limited_per_player_and_per_address(tmp_path: Path) -> None:
    app = create_app(Settings(database=f"sqlite:///{tmp_path / 'g.sqlite3'}", hint_workers=1))
    app_state(app).creation_limit = CreationLimit(player=(3, 0.01), address=(5, 0.01))
    with TestClient(app) as alice, TestClient(app) as bob:
        for _ in range(3):
            new_game(alice, variant="freecell")
        assert alice.post("/api/games", json={"variant": "freecell"}).status_code == 429
        # another player from the same address: what the address has left
        new_game(bob, variant="freecell")
        new_game(bob, variant="freecell")
        r = bob.post("/api/games", json={"variant": "freecell"})
        assert r.status_code == 429 and int(r.headers["retry-after"]) > 1


def test_abandoned_games_expire_and_the_statistics_stay(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'g.sqlite3'}")
    app = create_app(Settings(hint_workers=1, expire_days=7), store=store)
    with TestClient(app) as client:
        old = new_game(client, variant="freecell", deal=5)
        moved = client.post(
            f"/api/games/{old['id']}/actions",
            json={"version": 1, "type": "move", **old["moves"][0]},
        )
        assert moved.status_code == 200
        won = new_game(client, variant="kongdang", position=KINGS)
        r = client.post(
            f"/api/games/{won['id']}/actions", json={"version": 1, "type": "autocollect"}
        )
        assert r.json()["flags"]["won"] is True
        fresh = new_game(client, variant="kongdang", deal=9)
        stats = client.get("/api/stats").json()
        cookie = client.cookies["jl_player"]
        # eight days without a touch for the first two games
        eight_days_ago = int(time.time() * 1000) - 8 * 86_400_000
        with store.engine.begin() as conn:
            conn.execute(
                games.update()
                .where(games.c.id.in_([old["id"], won["id"]]))
                .values(updated_ms=eight_days_ago)
            )
    # a server starting sweeps at once
    with TestClient(create_app(Settings(hint_workers=1, expire_days=7), store=store)) as again:
        again.cookies.set("jl_player", cookie)
        for _ in range(50):
            if again.get(f"/api/games/{old['id']}").status_code == 404:
                break
            time.sleep(0.1)
        assert again.get(f"/api/games/{old['id']}").status_code == 404
        assert again.get(f"/api/games/{won['id']}").status_code == 200
        assert again.get(f"/api/games/{fresh['id']}").status_code == 200

        # the statistics still count the expired game (the list of recent
        # results shows the games there are)
        def counts(answer: dict[str, Any]) -> dict[str, Any]:
            return {v: {k: n for k, n in row.items() if k != "recent"} for v, row in answer.items()}

        assert counts(again.get("/api/stats").json()) == counts(stats)
        assert stats["freecell"]["games"] == 1
    with store.engine.connect() as conn:
        steps = sa.select(sa.func.count()).where(game_steps.c.game == old["id"])
        assert conn.execute(steps).scalar_one() == 0
    # everything unfinished before now: the fresh game only
    assert expire_games(store.engine, int(time.time() * 1000) + 1) == 1


def test_ten_thousand_draws_keep_a_game_small_and_undo_goes_back_to_the_deal(
    tmp_path: Path,
) -> None:
    """10,000 draws, the first 100 one request each and the rest as a
    device's offline actions: the game keeps a few short step rows (a pure
    loop of stock turns is cut from its stack), every counter as without
    the cut, and undo walks back to the deal."""
    store = Store(f"sqlite:///{tmp_path / 'g.sqlite3'}")

    def stored(game_id: str) -> tuple[int, int]:
        with store.engine.connect() as conn:
            size = sa.func.coalesce(sa.func.sum(sa.func.length(game_steps.c.step)), 0)
            query = sa.select(sa.func.count(), size).where(game_steps.c.game == game_id)
            rows, size = conn.execute(query).one()
        return int(rows), int(size)

    with TestClient(create_app(Settings(hint_workers=1), store=store)) as client:
        g = new_game(client, variant="klondike-3", deal=7)
        start, url = g["position"], f"/api/games/{g['id']}"
        for _ in range(100):
            r = client.post(f"{url}/actions", json={"version": g["version"], "type": "draw"})
            assert r.status_code == 200, r.text
            g = r.json()
            assert stored(g["id"])[0] < 2 * LOOP_TURNS
        for part in range(100, 10_000, 500):
            actions = [{"type": "draw"}] * min(500, 10_000 - part)
            r = client.post(f"{url}/sync", json={"version": g["version"], "actions": actions})
            assert r.status_code == 200, r.text
            g = r.json()
        assert g["counters"]["moves"] == 10_000 and g["counters"]["recycles"] == 1111
        rows, size = stored(g["id"])
        # 24 cards turned three at a time loop every 9 turns; what is left of
        # the last loop is on the stack (a step is some 50 bytes of JSON)
        assert rows < 9 and size < 64 * rows
        assert len(client.get(f"{url}/record").json()["steps"]) == rows
        undos = 0
        while g["flags"]["can_undo"]:
            r = client.post(f"{url}/actions", json={"version": g["version"], "type": "undo"})
            assert r.status_code == 200, r.text
            g, undos = r.json(), undos + 1
        assert undos == rows and stored(g["id"]) == (0, 0)
        assert g["position"] == start and g["counters"]["moves"] == 0
        r = client.post(f"{url}/actions", json={"version": g["version"], "type": "undo"})
        assert r.status_code == 422 and r.json()["error"]["code"] == "nothing_to_undo"
