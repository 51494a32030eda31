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
    game_id,
    move_json,
    open_game,
    read_board,
    source_card,
    t,
    tap,
    wait_board,
    wait_held,
)
from conftest import Server, screenshot

from jielong.engine.cards import DECK

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
    assert wait_held(page, held.routes, 200) == 1
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
    assert wait_held(page, held.routes, 200) == 1
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


def test_a_game_with_moves_is_never_replaced_without_asking(
    page: Any, server: Server, device: str
) -> None:
    gid = open_game(page, "/play/klondike-1?deal=3")
    start = server.game(gid)
    tap(page, device, '[data-pile="stock"]')
    wait_board(page, start["version"] + 1, gid)
    dialog = page.locator('[role="dialog"][aria-modal="true"]')
    new_deal = page.locator('#actions button[data-act="new"]')
    # N or 新牌 asks first, the safe answer in focus; Esc keeps the game
    if device == "desktop":
        page.keyboard.press("n")
    else:
        new_deal.tap()
    dialog.wait_for()
    assert dialog.locator("h2").inner_text() == t("confirm.newTitle")
    assert page.evaluate("document.activeElement.dataset.answer") == "no"
    screenshot(page, f"confirm-new-{device}")
    page.keyboard.press("n")
    page.keyboard.press("Escape")
    dialog.wait_for(state="detached")
    assert game_id(page) == gid
    # the keyboard reaches the other answer
    new_deal.click()
    dialog.wait_for()
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.dataset.answer") == "yes"
    page.keyboard.press("Enter")
    page.wait_for_function("(g) => !location.search.includes(g)", arg=gid)
    fresh = game_id(page)
    wait_board(page, game=fresh)
    # Back returns to the game left behind
    page.go_back()
    wait_board(page, game=gid)
    assert game_id(page) == gid
    # the rules page's Play over an unfinished game asks too: kept, then left
    resume = page.locator("a[data-resume]")
    for leave in (False, True):
        page.goto("/rules/klondike-1")
        assert resume.get_attribute("href") == f"/play/klondike-1?game={gid}"
        page.locator("main.rules a.button.primary").click()
        dialog.wait_for()
        assert dialog.locator("h2").inner_text() == t("confirm.resumeTitle")
        page.locator(f'[data-answer="{"yes" if leave else "no"}"]').click()
        if not leave:
            wait_board(page, game=gid)
    page.wait_for_function("(g) => !location.search.includes(g)", arg=gid)
    newest = game_id(page)
    page.goto("/rules/klondike-1")
    assert resume.get_attribute("href") == f"/play/klondike-1?game={newest}"


AUTOCOMPLETE_NEXT = "Foundations: QC QD QH JS\n: | KC\n: | KD\n: | KH\n: QS | KS\n: |\n: |\n: |\n"

# Clicks the third action button in the very frame it turns into auto-complete.
CLICK_AS_IT_CHANGES = """() => {
  const actions = document.getElementById("actions");
  window.thirdClicked = false;
  new MutationObserver((_, observer) => {
    const third = actions.querySelector("button.third");
    if (third?.dataset.act !== "autocomplete") return;
    observer.disconnect();
    third.click();
    window.thirdClicked = true;
  }).observe(actions, {childList: true, subtree: true});
}"""


def test_the_third_button_ignores_a_press_as_it_changes_meaning(
    page: Any, server: Server, device: str
) -> None:
    status, state = server.api(
        "POST", "/api/games", {"variant": "klondike-1", "position": AUTOCOMPLETE_NEXT}
    )
    assert status == 201, state
    gid = open_game(page, f"/play/klondike-1?game={state['id']}")
    third = page.locator("#actions button.third")
    assert third.get_attribute("data-act") == "new"
    page.evaluate(CLICK_AS_IT_CHANGES)
    # the king goes to an empty column and turns the last face-down card
    drag(
        page,
        device,
        centre(page, card_selector("tableau:3", "KS")),
        centre(page, '[data-pile="tableau:4"] > .slot'),
    )
    page.wait_for_function("() => window.thirdClicked")
    page.wait_for_timeout(300)
    assert server.game(gid)["counters"]["moves"] == 1
    assert third.get_attribute("data-act") == "autocomplete"
    page.wait_for_timeout(500)
    third.click()
    page.locator(".panel.win").wait_for()
    assert server.game(gid)["flags"]["won"]


def test_restart_asks_first_when_the_game_has_moves(page: Any, server: Server, device: str) -> None:
    gid = open_game(page, "/play/klondike-1?deal=4")
    start = server.game(gid)
    tap(page, device, '[data-pile="stock"]')
    wait_board(page, start["version"] + 1, gid)
    page.evaluate("() => document.querySelector('button[data-act=\"restart\"]').click()")
    dialog = page.locator('[role="dialog"][aria-modal="true"]')
    dialog.wait_for()
    assert dialog.locator("h2").inner_text() == t("confirm.restartTitle")
    assert t("confirm.restartBody", n=1) == dialog.locator("p").first.inner_text()
    page.keyboard.press("Escape")
    dialog.wait_for(state="detached")
    assert server.game(gid)["counters"]["moves"] == 1
    page.evaluate("() => document.querySelector('button[data-act=\"restart\"]').click()")
    dialog.wait_for()
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    wait_board(page, start["version"] + 2, gid)
    assert server.game(gid)["counters"]["moves"] == 0
