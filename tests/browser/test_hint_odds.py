"""The hint bar says how sure a hint is and the chance to win; the live
readout of the chance, once switched on, appears in the status line after a
pause, goes with the next move, and lends its answer to the next hint."""

from __future__ import annotations

import re
from typing import Any

import pytest
from board_driver import open_game, t, wait_board
from conftest import Server, screenshot

pytestmark = pytest.mark.browser


def test_chance_to_win_in_the_hint_bar_and_the_status_line(
    page: Any, server: Server, device: str
) -> None:
    if device == "phone":
        pytest.skip("checked at desktop size")
    gid = open_game(page, "/play/klondike-3?deal=5")
    odds = page.locator("#status .odds")
    assert odds.count() == 0  # off until the player switches it on
    page.locator("#show-odds").check()
    odds.wait_for(timeout=60_000)
    assert "勝算約" in odds.inner_text()
    # an estimate, to the nearest five points and never certain
    found = re.search(r"勝算約 ?(\d+)%", odds.inner_text())
    assert found is not None
    percent = int(found[1])
    assert percent % 5 == 0 and 5 <= percent <= 95
    # the hint of this very version comes from the background answer at once
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if r.url.endswith("/hint") else None)
    page.locator('#actions button[data-act="hint"]').click()
    page.locator("#hintbar .odds").wait_for(timeout=5_000)
    assert asked == []
    text = page.locator("#hintbar").inner_text()
    # a new deal: the stock is turned through first, all eight turns in one hint
    assert "翻牌庫 8 次" in text and "先把牌庫翻完" in text and "勝算約" in text
    # how the chance was made: on its title, from the answer's sampled and decided deals
    title = page.locator("#hintbar .odds").get_attribute("title") or ""
    assert re.search(r"由隨機發出的 \d+ 副未見牌局估算（\d+ 副已判定）", title), title
    screenshot(page, "klondike-3-hint-odds")
    # a move takes the readout away until the next answer
    version = server.game(gid)["version"]
    page.locator('[data-pile="stock"]').click()
    # the draw's answer (a read of the server right after the click could
    # overtake the draw, and wait for a version the board has left)
    wait_board(page, version + 1)
    assert page.locator("#status .odds").count() == 0


def test_the_hint_of_a_stalled_game_says_why(page: Any, server: Server, device: str) -> None:
    if device == "phone":
        pytest.skip("checked at desktop size")
    gid = open_game(page, "/play/klondike-1?deal=5")
    # the seven of spades onto the eight of diamonds, which turns a card over
    move = {"from": "tableau:2", "to": "tableau:4", "count": 1}
    answer = {
        "version": server.game(gid)["version"],
        "kind": "likely",
        "move": move,
        "line": [move],
        "steps": [],
        "source": "onwards",
        "win_chance": 0.55,
        "samples": 40,
        "decided": 38,
        "others": [],
    }
    # a stall takes 300 positions at one count of cards face down: the
    # server's answer is given
    page.route("**/api/games/*/hint", lambda route: route.fulfill(json=answer, status=200))
    page.locator('#actions button[data-act="hint"]').click()
    page.locator("#hintbar .odds").wait_for()
    text = page.locator("#hintbar").inner_text()
    assert t("hint.kind.onwards") in text and t("hint.kind.likely") not in text
    assert page.locator("[data-pile='tableau:4'].hint-dst").count() == 1
    screenshot(page, "klondike-1-hint-onwards")
