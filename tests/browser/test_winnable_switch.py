"""The "winnable deals only" switch of the Klondike table: kept across
reloads, sent with new deals, and the mark of a deal dealt as winnable."""

from __future__ import annotations

import json
from typing import Any

import pytest
from board_driver import game_id, open_game, open_menu, wait_board
from conftest import Server, screenshot

pytestmark = pytest.mark.browser

SWITCH = "#winnable-only"
MARK = "#status .winnable"
STORAGE = "jielong.klondike.winnableOnly"


def new_deal(page: Any, press: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """Ask for a new deal with ``press()``; the request's body and the state
    the server answered."""
    with page.expect_response(
        lambda r: r.url.endswith("/api/games") and r.request.method == "POST", timeout=30_000
    ) as answer:
        press()
    response = answer.value
    body: dict[str, Any] = json.loads(response.request.post_data or "{}")
    state: dict[str, Any] = response.json()
    page.wait_for_function(f"() => location.search.includes({json.dumps(state['id'])})")
    wait_board(page, state["version"], state["id"])
    return body, state


def tap(page: Any, device: str, selector: str) -> None:
    if device == "phone":
        page.tap(selector)
    else:
        page.click(selector)


@pytest.mark.parametrize("variant", ["klondike-3", "klondike-1"])
def test_switch_is_kept_and_sent_with_new_deals(
    page: Any, server: Server, device: str, variant: str
) -> None:
    first = open_game(page, f"/play/{variant}")
    switch = page.locator(SWITCH)
    open_menu(page, device)
    assert switch.is_visible() and not switch.is_checked()
    # its label names it, in the page's language
    assert page.get_by_role("switch", name="只發有解牌局").count() == 1
    assert page.locator(MARK).count() == 0 or server.game(first)["winnable"]

    tap(page, device, "label:has(#winnable-only)")
    assert switch.is_checked()
    assert page.evaluate(f"() => localStorage.getItem('{STORAGE}')") == "1"
    page.reload()
    wait_board(page)
    assert page.locator(SWITCH).is_checked()
    assert game_id(page) == first  # a reload keeps the game

    body, state = new_deal(page, lambda: tap(page, device, '#actions button[data-act="new"]'))
    assert body == {"variant": variant, "winnable": True}
    assert state["winnable"] is True and state["id"] != first
    assert server.game(state["id"])["winnable"] is True
    mark = page.locator(MARK)
    mark.wait_for()
    assert mark.inner_text() == "有解"
    assert state["deal_id"] in page.locator("#status .deal-id").inner_text()
    screenshot(page, f"winnable-{variant}-{device}")

    # the mark belongs to the game: it is there again after a reload
    page.reload()
    wait_board(page, state["version"], state["id"])
    assert page.locator(MARK).is_visible() and page.locator(SWITCH).is_checked()

    # off again: new deals are plain random ones
    open_menu(page, device)
    tap(page, device, "label:has(#winnable-only)")
    assert not switch.is_checked()
    assert page.evaluate(f"() => localStorage.getItem('{STORAGE}')") == "0"
    if device == "phone":
        body, state = new_deal(page, lambda: page.tap('#actions button[data-act="new"]'))
    else:
        # the switch keeps the focus after the click: letters still command the table
        assert page.evaluate("() => document.activeElement.id") == "winnable-only"
        body, state = new_deal(page, lambda: page.keyboard.press("n"))
    assert body == {"variant": variant}
    assert page.locator(MARK).count() == (1 if state["winnable"] else 0)


def test_switch_works_from_the_keyboard(page: Any, server: Server, device: str) -> None:
    if device == "phone":
        pytest.skip("keyboard on the desktop page")
    open_game(page, "/play/klondike-3")
    page.focus(SWITCH)
    page.keyboard.press("Space")
    assert page.locator(SWITCH).is_checked()
    # letters are table commands while the switch has the focus
    body, state = new_deal(page, lambda: page.keyboard.press("n"))
    assert body == {"variant": "klondike-3", "winnable": True}
    assert state["winnable"] is True
    assert page.evaluate("() => document.activeElement.id") == "winnable-only"
    page.keyboard.press("Space")
    assert not page.locator(SWITCH).is_checked()


def test_numbered_and_daily_deals_are_not_asked_as_winnable(
    page: Any, server: Server, device: str
) -> None:
    if device == "phone":
        pytest.skip("the request bodies do not depend on the device")
    # the first page's own new game is asked for before the next page opens
    open_game(page, "/play/klondike-3")
    page.evaluate(f"() => localStorage.setItem('{STORAGE}', '1')")
    with page.expect_request(lambda r: r.url.endswith("/api/games")) as asked:
        page.goto("/play/klondike-3?deal=77")
    assert json.loads(asked.value.post_data) == {"variant": "klondike-3", "deal": 77}
    wait_board(page)
    with page.expect_request(lambda r: r.url.endswith("/api/games")) as asked:
        page.goto("/play/klondike-3?daily=1")
    assert json.loads(asked.value.post_data) == {"variant": "klondike-3", "daily": True}
    wait_board(page)


def test_freecell_tables_have_no_switch(page: Any, server: Server, device: str) -> None:
    open_game(page, "/play/freecell")
    assert page.locator(SWITCH).count() == 0
    # FreeCell catalogue deals are all winnable: no mark says so
    assert page.locator(MARK).count() == 0
