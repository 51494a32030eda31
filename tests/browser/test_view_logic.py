"""The view's pure modules (no DOM): which click sends a move at once, and the
layout arithmetic, run in Chromium on hand-made states."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import Server

pytestmark = pytest.mark.browser

CLICK_PLAN = """async ([moves, from, count, family]) => {
  const S = await import("/static/js/state.js");
  return S.clickPlan({moves}, from, count, family);
}"""


def mv(src: str, dst: str, count: int = 1) -> dict[str, Any]:
    return {"from": src, "to": dst, "count": count}


@pytest.fixture
def device() -> str:
    # pure logic: one viewport is enough
    return "desktop"


@pytest.fixture
def blank(page: Any, server: Server) -> Any:
    page.goto("/rules/freecell")
    return page


def plan(page: Any, moves: list[dict[str, Any]], src: str, count: int, family: str) -> Any:
    return page.evaluate(CLICK_PLAN, [moves, src, count, family])


def test_freecell_card_that_can_go_home_goes_home(blank: Any, device: str) -> None:
    moves = [
        mv("tableau:0", "tableau:3"),
        mv("tableau:0", "foundation:2"),
        mv("tableau:0", "cell:0"),
    ]
    result = plan(blank, moves, "tableau:0", 1, "freecell")
    assert result == {"kind": "send", "move": mv("tableau:0", "foundation:2")}


def test_empty_free_cells_count_as_one_destination(blank: Any, device: str) -> None:
    moves = [mv("tableau:1", f"cell:{i}") for i in range(4)]
    result = plan(blank, moves, "tableau:1", 1, "freecell")
    assert result == {"kind": "send", "move": mv("tableau:1", "cell:0")}
    moves.append(mv("tableau:1", "tableau:5"))
    result = plan(blank, moves, "tableau:1", 1, "freecell")
    assert result["kind"] == "select"
    assert sorted(result["dests"]) == ["cell:0", "cell:1", "cell:2", "cell:3", "tableau:5"]


def test_klondike_two_destinations_select(blank: Any, device: str) -> None:
    moves = [mv("waste", "foundation:0"), mv("waste", "tableau:2"), mv("tableau:4", "tableau:2", 3)]
    result = plan(blank, moves, "waste", 1, "klondike")
    assert result["kind"] == "select"
    assert result["dests"] == ["foundation:0", "tableau:2"]
    # the count matters: a run of three has its own destinations
    result = plan(blank, moves, "tableau:4", 3, "klondike")
    assert result == {"kind": "send", "move": mv("tableau:4", "tableau:2", 3)}
    assert plan(blank, moves, "tableau:4", 2, "klondike")["dests"] == []


def test_fans_squeeze_to_fit_their_column(blank: Any, device: str) -> None:
    result = blank.evaluate(
        """async () => {
          const L = await import("/static/js/layout.js");
          const roomy = L.fanFor(2, 3, 100, 1000);
          const tight = L.fanFor(6, 13, 100, 500);
          const tighter = L.fanFor(6, 13, 100, 350);
          const last = (fan) => L.cardTops(6, 13, fan).at(-1);
          return {roomy, tight, tighter, lastTight: last(tight), lastTighter: last(tighter)};
        }"""
    )
    # with room to spare the fan opens up, to a limit
    assert result["roomy"] == {"down": 13, "up": 42}
    # face-up cards give way first, down to a readable strip; then face-down ones
    assert 17 <= result["tight"]["up"] < 30 and result["tight"]["down"] == 13
    assert result["lastTight"] + 100 <= 501
    assert result["tighter"]["up"] == 17 and result["tighter"]["down"] < 13
    assert result["lastTighter"] + 100 <= 351


def test_phone_width_fits_eight_columns(blank: Any, device: str) -> None:
    result = blank.evaluate(
        """async () => {
          const L = await import("/static/js/layout.js");
          const column = {down: 0, up: ["KS"]};
          const four = [null, null, null, null];
          const game = {position: {tableau: Array(8).fill(column), foundations: four, cells: four}};
          const l = L.computeLayout(game, 390, 700);
          const right = Math.max(...Object.values(l.piles).map((p) => p.x + p.w));
          return {cw: l.cw, right};
        }"""
    )
    assert result["cw"] >= 40
    assert result["right"] <= 390


def test_empty_foundations_count_as_one_destination(blank: Any, device: str) -> None:
    moves = [mv("tableau:2", f"foundation:{i}") for i in range(4)]
    result = plan(blank, moves, "tableau:2", 1, "klondike")
    assert result == {"kind": "send", "move": mv("tableau:2", "foundation:0")}
