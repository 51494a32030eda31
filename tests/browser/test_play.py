"""How the table answers the hand: moves drawn before the server's answer,
quick inputs kept in order, refusals put back with the server's reason."""

from __future__ import annotations

from typing import Any

import pytest
from board_driver import (
    card_selector,
    centre,
    deal_with_tableau_move,
    drag,
    expected_board,
    move_json,
    open_game,
    read_board,
    source_card,
    tap,
    wait_board,
)
from conftest import Server, screenshot

from jielong.cards import DECK

pytestmark = pytest.mark.browser

ACTIONS = "**/api/games/*/actions"


class Held:
    """Holds the page's actions on their way to the server until released."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.routes: list[Any] = []
        self.holding = True
        page.route(ACTIONS, self._hold)

    def _hold(self, route: Any) -> None:
        if self.holding:
            self.routes.append(route)
        else:
            route.continue_()

    def release(self) -> None:
        self.holding = False
        for route in self.routes:
            route.continue_()


def assert_drawn(page: Any, server: Server, gid: str) -> dict[str, Any]:
    state = server.game(gid)
    wait_board(page, state["version"], gid)
    assert read_board(page) == expected_board(state)
    return state


def test_a_listed_move_is_drawn_before_the_answer_and_a_stale_one_put_back(
    page: Any, server: Server, device: str
) -> None:
    number, move = deal_with_tableau_move("klondike-1")
    gid = open_game(page, f"/play/klondike-1?deal={number}")
    start = server.game(gid)
    src, dst = str(move.src), str(move.dst)
    code = source_card(start, src, 1)
    assert move_json(move) in start["moves"]
    source_down = start["position"]["tableau"][move.src.index]["down"]

    # another tab draws: this page's version is stale, its list still offers the move
    status, elsewhere = server.api(
        "POST", f"/api/games/{gid}/actions", {"version": start["version"], "type": "draw"}
    )
    assert status == 200
    held = Held(page)
    drag(
        page,
        device,
        centre(page, card_selector(src, code)),
        centre(page, f'[data-pile="{dst}"] .card'),
    )
    page.wait_for_selector(card_selector(dst, code), state="attached")
    assert read_board(page)["version"] == start["version"]
    assert len(held.routes) == 1
    held.release()
    # the server refuses the stale move: the board shows its game and says why
    page.locator("#toast.show").wait_for()
    assert_drawn(page, server, gid)
    assert page.locator(card_selector(src, code)).count() == 1

    # played again on the fresh version: drawn at once, the turned card follows the answer
    held = Held(page)
    drag(
        page,
        device,
        centre(page, card_selector(src, code)),
        centre(page, f'[data-pile="{dst}"] .card'),
    )
    page.wait_for_selector(card_selector(dst, code), state="attached")
    shown = read_board(page)
    assert shown["version"] == elsewhere["version"]
    assert shown["tableau"][move.src.index] == {"down": source_down, "up": []}
    screenshot(page, f"paint-first-{device}")
    held.release()
    wait_board(page, elsewhere["version"] + 1, gid)
    state = assert_drawn(page, server, gid)
    assert state["counters"]["moves"] == 2
    if source_down:
        assert len(read_board(page)["tableau"][move.src.index]["up"]) == 1


def test_quick_stock_clicks_are_drawn_at_once_and_all_played(
    page: Any, server: Server, device: str
) -> None:
    gid = open_game(page, "/play/klondike-1?deal=3")
    start = server.game(gid)
    stock = start["position"]["stock"]
    held = Held(page)
    x, y = centre(page, '[data-pile="stock"]')
    for _ in range(6):
        if device == "phone":
            page.touchscreen.tap(x, y)
        else:
            page.mouse.click(x, y)
    # every click is drawn at once; the cards stay face down until the answers name them
    page.wait_for_function(
        "(n) => document.querySelector('[data-pile=\"stock\"] .badge')?.textContent === String(n)",
        arg=stock - 6,
    )
    assert page.locator('[data-pile="waste"] .card.down').count() == 3
    # one action on its way at a time, each on the version the one before gave
    assert len(held.routes) == 1
    held.release()
    wait_board(page, start["version"] + 6, gid)
    state = assert_drawn(page, server, gid)
    assert state["counters"]["moves"] == 6
    assert state["position"]["stock"] == stock - 6
    assert page.locator('[data-pile="waste"] .card.down').count() == 0


def home_position() -> str:
    """Klondike: the ace of clubs at home; the ace of spades on column 1 can
    only go home (three empty foundations); the two of clubs on column 2 can
    go home or onto the three of hearts of column 3."""
    tops = ["AS", "2C", "3H", "KS", "KD", "QS", "JS"]
    rest = [c.code() for c in DECK if c.code() not in {*tops, "AC"}]
    lines = ["Foundations: AC"]
    lines += [": " + " ".join(rest[i::7]) + " | " + top for i, top in enumerate(tops)]
    return "\n".join(lines) + "\n"


def double_tap(page: Any, device: str, selector: str) -> None:
    x, y = centre(page, selector)
    if device == "phone":
        page.touchscreen.tap(x, y)
        page.touchscreen.tap(x, y)
    else:
        page.mouse.dblclick(x, y)


def test_one_tap_double_tap_and_enter_send_cards_home(
    page: Any, server: Server, device: str
) -> None:
    status, state = server.api(
        "POST", "/api/games", {"variant": "klondike-1", "position": home_position()}
    )
    assert status == 201, state
    gid = open_game(page, f"/play/klondike-1?game={state['id']}")
    # an ace with only empty foundations to go to: one tap sends it
    tap(page, device, card_selector("tableau:0", "AS"))
    wait_board(page, state["version"] + 1, gid)
    assert "AS" in server.game(gid)["position"]["foundations"]
    # a card with two places to go: one tap selects, a double tap sends it home
    tap(page, device, card_selector("tableau:1", "2C"))
    page.wait_for_selector(".card.sel")
    page.keyboard.press("Escape")
    page.wait_for_selector(".card.sel", state="detached")
    double_tap(page, device, card_selector("tableau:1", "2C"))
    wait_board(page, state["version"] + 2, gid)
    after = assert_drawn(page, server, gid)
    assert after["position"]["foundations"][0] == "2C"
    assert after["counters"]["moves"] == 2
    # Enter does what a tap does: back to the start, then the keyboard only
    for version in (state["version"] + 3, state["version"] + 4):
        page.locator('#actions button[data-act="undo"]').click()
        wait_board(page, version, gid)
    page.locator('[data-pile="tableau:0"]').focus()
    page.keyboard.press("Enter")
    wait_board(page, state["version"] + 5, gid)
    page.locator('[data-pile="tableau:1"]').focus()
    page.keyboard.press("Enter")
    page.wait_for_selector(".card.sel")
    page.keyboard.press("Enter")
    wait_board(page, state["version"] + 6, gid)
    final = assert_drawn(page, server, gid)
    assert sorted(c for c in final["position"]["foundations"] if c) == ["2C", "AS"]
