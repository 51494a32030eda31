"""The README's pictures: FreeCell and Klondike a few moves into a game, on a
phone and a desktop, written to docs/img/ when asked:

    JIELONG_SCREENSHOTS=1 .venv/bin/python -m pytest tests/browser/test_readme_shots.py
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from board_driver import open_game
from conftest import DESKTOP, PHONE, Server

from jielong.engine.rules.registry import rules_for
from jielong.engine.solve.api import solve

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        os.environ.get("JIELONG_SCREENSHOTS") != "1", reason="README pictures only when asked"
    ),
]

IMG = Path(__file__).resolve().parents[2] / "docs" / "img"


def freecell_game(server: Server) -> str:
    """FreeCell deal 1 after the first 30 moves of a solution: cards at home,
    in the cells and on the move."""
    result = solve("freecell", rules_for("freecell").deal(1), max_seconds=20)
    assert result.status == "solved"
    status, game = server.api("POST", "/api/games", {"variant": "freecell", "deal": 1})
    assert status == 201, game
    for move in result.moves[:30]:
        body = {"version": game["version"], "type": "move", **move.to_json()}
        status, game = server.api("POST", f"/api/games/{game['id']}/actions", body)
        assert status == 200, game
    gid: str = game["id"]
    return gid


def klondike_game(server: Server) -> str:
    """Klondike (draw 1) deal 3 after a few dozen plain moves: home first,
    then moves between columns that turn a card, else a draw."""
    status, game = server.api("POST", "/api/games", {"variant": "klondike-1", "deal": 3})
    assert status == 201, game

    def rank(move: dict[str, Any]) -> int:
        if move["to"].startswith("foundation"):
            return 0
        if move["from"] == "waste":
            return 1
        if not move["from"].startswith("tableau"):
            return 9
        pile = game["position"]["tableau"][int(move["from"].split(":")[1])]
        return (
            2
            if move["to"].startswith("tableau")
            and move["count"] == len(pile["up"])
            and pile["down"]
            else 9
        )

    for _ in range(40):
        useful = sorted((m for m in game["moves"] if rank(m) < 9), key=rank)
        body = {"type": "move", **useful[0]} if useful else {"type": "draw"}
        status, game = server.api(
            "POST", f"/api/games/{game['id']}/actions", {"version": game["version"], **body}
        )
        assert status == 200, game
    gid: str = game["id"]
    return gid


def test_readme_screenshots(browser: Any, server: Server) -> None:
    IMG.mkdir(parents=True, exist_ok=True)
    games = {"freecell": freecell_game(server), "klondike": klondike_game(server)}
    for device, options in (("phone", PHONE), ("desktop", DESKTOP)):
        context = browser.new_context(
            base_url=server.base, locale="zh-TW", **{**options, "device_scale_factor": 1}
        )
        page = context.new_page()
        for name, gid in games.items():
            variant = "freecell" if name == "freecell" else "klondike-1"
            open_game(page, f"/play/{variant}?game={gid}")
            path = IMG / f"{name}-{device}.png"
            page.screenshot(path=str(path))
            assert path.stat().st_size < 150_000, path
        context.close()
