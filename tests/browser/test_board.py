"""The table in Chromium: every variant, by mouse, touch and keyboard, at phone
and desktop sizes, checked against the server's own view of the game."""

from __future__ import annotations

import json
from typing import Any

import pytest
from board_driver import (
    NEAR_END,
    VARIANTS,
    Touch,
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
)
from conftest import Server, screenshot
from solver_checks import CARRY, CARRY_STEPS

from jielong.engine.cards import DECK
from jielong.engine.rules.variants import get_variant

pytestmark = pytest.mark.browser


def moves_made(server: Server, gid: str) -> int:
    count: int = server.game(gid)["counters"]["moves"]
    return count


def selected_or_moved(page: Any, version: int) -> bool:
    """Wait until a press has either selected cards or played a move; True
    when it selected."""
    page.wait_for_function(
        "(v) => document.querySelector('.card.sel') || "
        "document.getElementById('board').dataset.version !== String(v)",
        arg=version,
    )
    drawn: int = read_board(page)["version"]
    return drawn == version


def select_or_send(page: Any, device: str, selector: str, version: int) -> bool:
    tap(page, device, selector)
    return selected_or_moved(page, version)


def assert_drawn(page: Any, server: Server, gid: str) -> dict[str, Any]:
    state = server.game(gid)
    wait_board(page, state["version"], gid)
    assert read_board(page) == expected_board(state)
    return state


@pytest.mark.parametrize("variant", VARIANTS)
def test_deal_by_number_is_drawn_as_the_server_has_it(
    page: Any, server: Server, device: str, variant: str
) -> None:
    number, _ = deal_with_tableau_move(variant)
    gid = open_game(page, f"/play/{variant}?deal={number}")
    state = assert_drawn(page, server, gid)
    assert state["deal_id"] == f"{variant}-{number}"
    assert page.locator("#status .deal-id").inner_text() == t("status.deal", id=state["deal_id"])
    # face-down cards never carry a card name
    assert page.locator(".card.down[data-card]").count() == 0
    screenshot(page, f"{variant}-{device}")


@pytest.mark.parametrize("variant", VARIANTS)
def test_click_move_then_undo_then_reload(
    page: Any, server: Server, device: str, variant: str
) -> None:
    number, move = deal_with_tableau_move(variant)
    gid = open_game(page, f"/play/{variant}?deal={number}")
    start = server.game(gid)
    code = source_card(start, str(move.src), 1)
    if select_or_send(page, device, card_selector(str(move.src), code), start["version"]):
        # more than one destination: the card is selected, the target is clicked
        assert page.locator(f'[data-pile="{move.dst}"].dest').count() == 1
        tap(page, device, f'[data-pile="{move.dst}"] .card')
    wait_board(page, start["version"] + 1)
    after = assert_drawn(page, server, gid)
    assert after["counters"]["moves"] == 1

    page.locator('#actions button[data-act="undo"]').click()
    wait_board(page, start["version"] + 2)
    undone = assert_drawn(page, server, gid)
    assert undone["position"] == start["position"]

    if select_or_send(page, device, card_selector(str(move.src), code), start["version"] + 2):
        tap(page, device, f'[data-pile="{move.dst}"] .card')
    wait_board(page, start["version"] + 3)
    page.reload()
    wait_board(page, start["version"] + 3)
    assert game_id(page) == gid
    assert assert_drawn(page, server, gid)["counters"]["moves"] == 1


@pytest.mark.parametrize("variant", VARIANTS)
def test_drag_move(page: Any, server: Server, device: str, variant: str) -> None:
    number, move = deal_with_tableau_move(variant)
    gid = open_game(page, f"/play/{variant}?deal={number}")
    start = server.game(gid)
    code = source_card(start, str(move.src), 1)
    drag(
        page,
        device,
        centre(page, card_selector(str(move.src), code)),
        centre(page, f'[data-pile="{move.dst}"] .card'),
    )
    wait_board(page, start["version"] + 1)
    after = assert_drawn(page, server, gid)
    assert after["counters"]["moves"] == 1
    assert code in after["position"]["tableau"][move.dst.index]["up"]


@pytest.mark.parametrize("variant", VARIANTS)
def test_keyboard_move(page: Any, server: Server, device: str, variant: str) -> None:
    if device == "phone":
        pytest.skip("keyboard play is checked at desktop size")
    number, move = deal_with_tableau_move(variant)
    gid = open_game(page, f"/play/{variant}?deal={number}")
    start = server.game(gid)
    page.locator('[data-pile="tableau:0"]').focus()
    for _ in range(move.src.index):
        page.keyboard.press("ArrowRight")
    # the focus ring follows on the next frame
    page.wait_for_function(
        "(pile) => document.activeElement.dataset.pile === pile", arg=str(move.src)
    )
    page.keyboard.press("Enter")
    if selected_or_moved(page, start["version"]):
        step = "ArrowRight" if move.dst.index > move.src.index else "ArrowLeft"
        for _ in range(abs(move.dst.index - move.src.index)):
            page.keyboard.press(step)
        page.keyboard.press("Enter")
    wait_board(page, start["version"] + 1)
    assert assert_drawn(page, server, gid)["counters"]["moves"] == 1
    page.keyboard.press("u")
    wait_board(page, start["version"] + 2)
    assert assert_drawn(page, server, gid)["counters"]["moves"] == 0
    if get_variant(variant).family == "klondike":
        page.keyboard.press(" ")
        wait_board(page, start["version"] + 3)
        assert assert_drawn(page, server, gid)["position"]["waste"]


def illegal_tableau_move(state: dict[str, Any]) -> dict[str, Any]:
    tableau = state["position"]["tableau"]
    legal = {(m["from"], m["to"], m["count"]) for m in state["moves"]}
    for i, src in enumerate(tableau):
        for j, dst in enumerate(tableau):
            key = (f"tableau:{i}", f"tableau:{j}", 1)
            if i != j and src["up"] and dst["up"] and key not in legal:
                return {"from": f"tableau:{i}", "to": f"tableau:{j}", "count": 1}
    raise AssertionError("every tableau pair is legal")


@pytest.mark.parametrize("variant", VARIANTS)
def test_illegal_drop_shows_the_reason_and_changes_nothing(
    page: Any, server: Server, device: str, variant: str
) -> None:
    number, _ = deal_with_tableau_move(variant)
    gid = open_game(page, f"/play/{variant}?deal={number}")
    start = server.game(gid)
    move = illegal_tableau_move(start)
    code = source_card(start, move["from"], 1)
    drag(
        page,
        device,
        centre(page, card_selector(move["from"], code)),
        centre(page, f'[data-pile="{move["to"]}"] .card'),
    )
    toast = page.locator("#toast.show")
    toast.wait_for()
    # the page shows the server's own words in the page's language
    zh_status, zh_answer = server.api_lang(
        "POST",
        f"/api/games/{gid}/actions",
        {"version": start["version"], "type": "move", **move},
        "zh-Hant",
    )
    assert zh_status == 422 and zh_answer["error"]["code"] == "illegal_move"
    assert toast.inner_text() == zh_answer["error"]["message"]
    page.wait_for_timeout(250)
    assert page.locator(".card.dragging").count() == 0
    after = assert_drawn(page, server, gid)
    assert after["version"] == start["version"]
    assert after["counters"]["moves"] == 0


def test_drop_on_the_stock_is_asked_and_refused_with_the_reason(
    page: Any, server: Server, device: str
) -> None:
    number, move = deal_with_tableau_move("klondike-1")
    gid = open_game(page, f"/play/klondike-1?deal={number}")
    start = server.game(gid)
    code = source_card(start, str(move.src), 1)
    sent: list[dict[str, Any]] = []
    page.on(
        "request",
        lambda r: sent.append(json.loads(r.post_data or "{}")) if "/actions" in r.url else None,
    )
    drag(
        page,
        device,
        centre(page, card_selector(str(move.src), code)),
        centre(page, '[data-pile="stock"]'),
    )
    page.locator("#toast.show").wait_for()
    assert sent and sent[-1]["to"] == "stock" and sent[-1]["from"] == str(move.src)
    status, answer = server.api_lang(
        "POST", f"/api/games/{gid}/actions", {**sent[-1], "version": start["version"]}, "zh-Hant"
    )
    assert status == 422 and answer["error"]["code"] == "illegal_move"
    assert page.locator("#toast").inner_text() == answer["error"]["message"]
    after = assert_drawn(page, server, gid)
    assert after["version"] == start["version"]


def run_position(variant: str) -> str:
    """A FreeCell position with one empty free cell and no empty column (hand
    limit 2 under both formulas) and the run 8H 7C 6D at the end of column 0,
    which fits on the 9C ending column 1."""
    col0 = ["9S", "8H", "7C", "6D"]
    col1_end = "9C"
    cells = ["KC", "KD", "KH"]
    used = {*col0, col1_end, *cells}
    rest = [c.code() for c in DECK if c.code() not in used]
    columns: list[list[str]] = [rest[0:2] + col0, rest[2:7] + [col1_end]]
    rest = rest[7:]
    for i in range(6):
        columns.append(rest[i::6])
    lines = ["Freecells: " + " ".join([*cells, "-"])]
    lines += [" ".join(col) for col in columns]
    return "\n".join(lines) + "\n"


def overlay_arrow(page: Any, act: str) -> tuple[float, float]:
    box = page.locator(f'.run-overlay [data-act="{act}"]').bounding_box()
    assert box is not None
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


@pytest.mark.parametrize("variant", ["freecell", "kongdang"])
def test_long_press_overlay_moves_the_start_and_refuses_a_long_run(
    page: Any, server: Server, device: str, variant: str
) -> None:
    body = {"variant": variant, "position": run_position(variant)}
    status, state = server.api("POST", "/api/games", body)
    assert status == 201, state
    assert state["limits"]["to_card"] == 2
    # the page's timers on a clock the test can stop: a resting finger repeats
    # an arrow's step after a pause, which a slow machine could otherwise
    # reach between two steps of the slide
    page.clock.install()
    gid = open_game(page, f"/play/{variant}?game={state['id']}")
    x, y = centre(page, card_selector("tableau:0", "6D"))
    touch = Touch(page) if device == "phone" else None
    if touch:
        touch.down(x, y)
    else:
        page.mouse.move(x, y)
        page.mouse.down()
    page.locator(".run-overlay").wait_for()
    label = page.locator(".run-overlay .label")
    assert label.inner_text() == t("overlay.run", card="♦6", n=1)
    # slide onto the up arrow, off it, onto it again and off: two steps up
    # (leaving the arrow stops the repeat that a resting finger starts)
    up = overlay_arrow(page, "up")
    mid = overlay_arrow(page, "confirm")
    path = [up, mid, up, mid]
    at = (x, y)
    page.clock.pause_at(page.evaluate("Date.now()") + 1000)
    for point in path:
        if touch:
            touch.move(*at, *point, steps=4)
        else:
            page.mouse.move(*point, steps=4)
        at = point
        page.clock.run_for(60)
    assert label.inner_text() == t("overlay.run", card="♥8", n=3)
    assert page.locator(".run-overlay .too-long").inner_text() == t("overlay.tooLong", n=3, m=2)
    assert page.locator('[data-pile="tableau:0"] .card.run').count() == 3
    screenshot(page, f"{variant}-{device}-overlay")
    page.clock.resume()
    if touch:
        touch.up(*at)
    else:
        page.mouse.up()
    page.locator(".run-overlay").wait_for(state="detached")
    page.locator('[data-pile="tableau:0"] .card.sel').nth(2).wait_for()
    assert page.locator('[data-pile="tableau:0"] .card.sel').count() == 3
    card = t("card.name", suit=t("suit.H"), rank=t("rank.8"))
    assert page.locator("#announce").text_content() == t("board.selected", card=card, n=3)
    tap(page, device, card_selector("tableau:1", "9C"))
    toast = page.locator("#toast.show")
    toast.wait_for()
    _, answer = server.api_lang(
        "POST",
        f"/api/games/{gid}/actions",
        {
            "version": state["version"],
            "type": "move",
            "from": "tableau:0",
            "to": "tableau:1",
            "count": 3,
        },
        "zh-Hant",
    )
    assert answer["error"]["reason"] == "run_too_long"
    assert toast.inner_text() == answer["error"]["message"]
    after = assert_drawn(page, server, gid)
    assert after["counters"]["moves"] == 0

    # Esc closes the overlay and changes nothing
    if device == "desktop":
        page.mouse.move(x, y)
        page.mouse.down()
        page.locator(".run-overlay").wait_for()
        page.mouse.move(x + 1, y + 1)
        page.keyboard.press("Escape")
        page.locator(".run-overlay").wait_for(state="detached")
        page.mouse.up()
        assert page.locator(".card.sel").count() == 0
        assert server.game(gid)["version"] == state["version"]


@pytest.mark.parametrize("variant", VARIANTS)
def test_near_end_game_finishes_and_shows_the_win_panel(
    page: Any, server: Server, device: str, variant: str
) -> None:
    family = get_variant(variant).family
    body = {"variant": variant, "position": NEAR_END[family]}
    status, state = server.api("POST", "/api/games", body)
    assert status == 201, state
    gid = open_game(page, f"/play/{variant}?game={state['id']}")
    act = "autocollect" if get_variant(variant).finishing == "autocollect" else "autocomplete"
    button = page.locator(f'#actions button[data-act="{act}"]')
    label = "action.autocollect" if act == "autocollect" else "action.autocomplete"
    assert button.inner_text() == t(label)
    button.click()
    panel = page.locator(".panel.win")
    panel.wait_for()
    final = server.game(gid)
    assert final["flags"]["won"]
    figures = panel.locator(".figures").inner_text()
    assert t("win.moves", n=final["counters"]["moves"]) in figures
    assert final["counters"]["moves"] == 4
    assert t("win.home", n=52) in figures
    if family == "klondike":
        assert t("win.recycles", n=0) in figures
    screenshot(page, f"{variant}-{device}-won")
    page.locator('.panel button[data-act="view"]').click()
    panel.wait_for(state="detached")
    assert read_board(page)["foundations"] == final["position"]["foundations"]


@pytest.mark.parametrize("variant", VARIANTS)
def test_hint_shows_a_move(page: Any, server: Server, device: str, variant: str) -> None:
    if device == "phone":
        pytest.skip("hints are checked at desktop size")
    number, _ = deal_with_tableau_move(variant)
    gid = open_game(page, f"/play/{variant}?deal={number}")
    start = server.game(gid)
    page.locator('#actions button[data-act="hint"]').click()
    page.locator("[data-pile].hint-from").wait_for(timeout=20_000)
    assert page.locator("[data-pile].hint-dst").count() == 1
    assert page.locator("#hintbar .bar").count() == 1
    screenshot(page, f"{variant}-{device}-hint")
    if get_variant(variant).hint_plays_on_second_click:
        page.locator('#actions button[data-act="hint"]').click()
        wait_board(page, start["version"] + 1)
        assert assert_drawn(page, server, gid)["counters"]["moves"] == 1


def test_kongdang_hint_plays_a_long_run_by_its_steps(
    page: Any, server: Server, device: str
) -> None:
    if device == "phone":
        pytest.skip("hints are checked at desktop size")
    status, game = server.api("POST", "/api/games", {"variant": "kongdang", "position": CARRY})
    assert status == 201 and game["limits"]["to_card"] == 3
    gid = open_game(page, f"/play/kongdang?game={game['id']}")
    run = {"from": "tableau:0", "to": "tableau:1", "count": 4}
    steps = [{"from": f"tableau:{a}", "to": f"tableau:{b}", "count": 1} for a, b in CARRY_STEPS]
    # the answer is fixed here: which line a solver finds first may vary
    answer = {"version": game["version"], "kind": "solver", "move": run, "line": []}
    page.route(
        "**/api/games/*/hint",
        lambda route: route.fulfill(
            json={**answer, "steps": steps, "source": "fcsolve"}, status=200
        ),
    )
    page.locator('#actions button[data-act="hint"]').click()
    page.locator('[data-pile="tableau:0"].hint-from').wait_for()
    assert page.locator('[data-pile="tableau:1"].hint-dst').count() == 1
    # the bar says how many cards the run carries: one more than the hand may move
    run_text = t("overlay.run", card="♠9", n=4)
    assert run_text in page.locator("#hintbar .bar").inner_text()
    screenshot(page, f"kongdang-{device}-run-hint")
    # four cards by a second click, where the hand may move three
    with page.expect_request(lambda r: r.url.endswith("/actions")) as sent:
        page.locator('#actions button[data-act="hint"]').click()
    assert json.loads(sent.value.post_data) == {
        "version": game["version"],
        "type": "move",
        **run,
        "steps": steps,
    }
    wait_board(page, game["version"] + 1, gid)
    state = assert_drawn(page, server, gid)
    assert state["counters"]["moves"] == 1
    assert state["position"]["tableau"][1]["up"] == ["TD", "9S", "8H", "7C", "6D"]


def switch_language(page: Any, device: str, lang: str) -> None:
    """Pick a language where the player finds the switch: in the header on a
    wide screen, in the Display dialog on a phone (the header has no room)."""
    header = page.locator("header.top .tools > .langs")
    if device == "phone":
        assert not header.is_visible()
        page.locator("#settings-button").click()
        link = page.locator(f'#settings .langs a[data-lang="{lang}"]')
    else:
        assert not page.locator("#settings .langs").is_visible()
        link = header.locator(f'a[data-lang="{lang}"]')
    # the switch reloads the page: wait for the new document, not on the old
    # one (a check run while the page is between documents finds no root)
    with page.expect_navigation(wait_until="load"):
        link.click()
    assert page.evaluate("document.documentElement.lang") == lang
    wait_board(page)


def test_language_switch(page: Any, server: Server, device: str) -> None:
    open_game(page, "/play/freecell?deal=1")
    undo = page.locator('#actions button[data-act="undo"]')
    assert undo.inner_text() == t("action.undo")
    switch_language(page, device, "en")
    assert undo.inner_text() == t("action.undo", "en")
    assert page.title() == t("variant.freecell", "en")
    switch_language(page, device, "zh-Hans")
    assert undo.inner_text() == t("action.undo", "zh-Hans")
    page.goto("/")
    assert page.locator("h1").inner_text() == t("site.title", "zh-Hans")
    screenshot(page, f"home-{device}")


def test_stale_version_says_the_game_moved_on_and_shows_it(
    page: Any, server: Server, device: str
) -> None:
    number, move = deal_with_tableau_move("freecell")
    gid = open_game(page, f"/play/freecell?deal={number}")
    start = server.game(gid)
    # another tab plays the move: this page still shows the older version
    status, moved = server.api(
        "POST",
        f"/api/games/{gid}/actions",
        {"version": start["version"], "type": "move", **move_json(move)},
    )
    assert status == 200
    code = source_card(start, str(move.src), 1)
    if select_or_send(page, device, card_selector(str(move.src), code), start["version"]):
        tap(page, device, f'[data-pile="{move.dst}"] .card')
    wait_board(page, moved["version"])
    assert read_board(page) == expected_board(server.game(gid))
    # the server's own words: the game changed elsewhere, here it is now
    stale_status, stale = server.api_lang(
        "POST",
        f"/api/games/{gid}/actions",
        {"version": start["version"], "type": "move", **move_json(move)},
        "zh-Hant",
    )
    assert stale_status == 409
    page.locator("#toast.show").wait_for()
    assert page.locator("#toast").inner_text() == stale["error"]["message"]
    page.locator('#actions button[data-act="undo"]').click()
    wait_board(page, moved["version"] + 1)
    assert assert_drawn(page, server, gid)["counters"]["moves"] == 0


def test_unsolvable_deal_is_labelled(page: Any, server: Server, device: str) -> None:
    if device == "phone":
        pytest.skip("the label is checked at desktop size")
    open_game(page, "/play/kongdang?deal=11982")
    assert page.locator("#status .unsolvable").inner_text() == t("status.unsolvable")
    box = page.locator('.dealbox input[name="deal"]')
    assert box.input_value() == "11982"
    # keys typed into the deal box are not table commands ("n": a new deal)
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    box.press("n")
    page.wait_for_timeout(500)
    assert posts == []
    box.fill("11982")
    check = page.locator(".dealbox .deal-check")
    page.wait_for_function("() => document.querySelector('.deal-check').textContent !== ''")
    assert check.inner_text() == t("deal.unsolvable", n=11982)
    box.fill("617")
    page.locator(".dealbox button").click()
    page.wait_for_function(
        "() => document.querySelector('#status .deal-id').textContent.includes('617')"
    )
    assert page.locator("#status .unsolvable").count() == 0


def test_clock_pauses_while_the_tab_is_hidden(page: Any, server: Server, device: str) -> None:
    if device == "phone":
        pytest.skip("the clock is checked at desktop size")
    gid = open_game(page, "/play/klondike-1?deal=3")
    assert server.game(gid)["counters"]["clock_running"]
    hide = """(hidden) => {
      Object.defineProperty(document, "hidden", {value: hidden, configurable: true});
      document.dispatchEvent(new Event("visibilitychange"));
    }"""
    page.evaluate(hide, True)
    page.wait_for_function("() => true")
    for _ in range(50):
        if not server.game(gid)["counters"]["clock_running"]:
            break
        page.wait_for_timeout(100)
    paused = server.game(gid)["counters"]
    assert not paused["clock_running"]
    page.wait_for_timeout(300)
    assert server.game(gid)["counters"]["elapsed_ms"] == paused["elapsed_ms"]
    page.evaluate(hide, False)
    for _ in range(50):
        if server.game(gid)["counters"]["clock_running"]:
            break
        page.wait_for_timeout(100)
    assert server.game(gid)["counters"]["clock_running"]


def test_no_animation_when_reduced_motion_is_preferred(browser: Any, server: Server) -> None:
    context = browser.new_context(base_url=server.base, reduced_motion="reduce", locale="zh-TW")
    page = context.new_page()
    try:
        gid = open_game(page, "/play/klondike-3?deal=2")
        start = server.game(gid)
        page.evaluate(
            """() => { window.animated = 0; const original = Element.prototype.animate;
            Element.prototype.animate = function (...args) { window.animated++;
            return original.apply(this, args); }; }"""
        )
        page.locator('[data-pile="stock"]').click()
        wait_board(page, start["version"] + 1)
        assert page.evaluate("window.animated") == 0
        assert read_board(page)["waste"]
    finally:
        context.close()


def stuck_klondike(waste: str = "") -> str:
    """Seven black face-up cards that fit nowhere; stock empty, and the waste
    empty or holding one seen card that fits nowhere either."""
    tops = ["2C", "2S", "4C", "4S", "6C", "6S", "8C"]
    rest = [c.code() for c in DECK if c.code() not in tops and c.code() != waste]
    lines = [f"Waste: {waste}", "Recycles: 1"] if waste else []
    for i, top in enumerate(tops):
        lines.append(": " + " ".join(rest[i::7]) + " | " + top)
    return "\n".join(lines) + "\n"


def test_no_legal_move_panel(page: Any, server: Server, device: str) -> None:
    status, state = server.api(
        "POST", "/api/games", {"variant": "klondike-3", "position": stuck_klondike()}
    )
    assert status == 201, state
    assert state["flags"]["no_legal_move"] and not state["moves"]
    open_game(page, f"/play/klondike-3?game={state['id']}")
    panel = page.locator(".panel.stuck")
    panel.wait_for()
    assert panel.locator("h2").inner_text() == t("stuck.title")
    exits = panel.locator("button").all_inner_texts()
    assert exits == [t("action.undo"), t("action.restart"), t("win.again"), t("win.view")]
    screenshot(page, f"klondike-3-{device}-stuck")
    panel.locator('button[data-act="view"]').click()
    panel.wait_for(state="detached")
    assert read_board(page) == expected_board(server.game(state["id"]))


def test_home_offers_to_continue_the_unfinished_game(
    page: Any, server: Server, device: str
) -> None:
    gid = open_game(page, "/play/freecell?deal=5")
    page.goto("/")
    link = page.locator('a[data-resume="freecell"]')
    assert link.is_visible()
    assert page.locator('a[data-resume="klondike-3"]').is_hidden()
    link.click()
    wait_board(page)
    assert game_id(page) == gid
    page.goto("/play/freecell")
    wait_board(page)
    page.wait_for_function("() => location.search.includes('game=')")
    # the bare address opens a new game, which becomes the one to continue
    assert game_id(page) != gid


def stuck_game(server: Server) -> dict[str, Any]:
    """A draw-1 game on :func:`stuck_klondike` with one seen card in the waste."""
    body = {"variant": "klondike-1", "position": stuck_klondike(waste="3S")}
    status, state = server.api("POST", "/api/games", body)
    assert status == 201, state
    return state


def warning_on_hint(page: Any, state: dict[str, Any]) -> Any:
    """The warning bar the hint answers with, the game open on the page."""
    open_game(page, f"/play/klondike-1?game={state['id']}")
    page.keyboard.press("h")
    bar = page.locator("#hintbar .bar.warn")
    bar.wait_for(timeout=20_000)
    return bar


def test_no_progress_bar_offers_its_exits(page: Any, server: Server, device: str) -> None:
    if device == "phone":
        pytest.skip("the no-progress bar is checked at desktop size")
    state = stuck_game(server)
    assert state["moves"] and not state["flags"]["no_legal_move"]
    bar = warning_on_hint(page, state)
    assert t("hint.noProgress") in bar.inner_text()
    exits = bar.locator("button").all_inner_texts()
    assert exits == [
        t("action.undo"),
        t("action.hint"),
        t("action.restart"),
        t("action.new"),
        t("action.close"),
    ]
    screenshot(page, "klondike-1-desktop-no-progress")
    bar.locator('button[data-act="dismiss"]').click()
    bar.wait_for(state="detached")


def test_a_hint_that_could_only_go_round_says_so(page: Any, server: Server, device: str) -> None:
    if device == "phone":
        pytest.skip("the hint bars are checked at desktop size")
    state = stuck_game(server)
    # turn the waste over and back twice: both positions come up twice
    for _ in range(4):
        status, state = server.api(
            "POST",
            f"/api/games/{state['id']}/actions",
            {"type": "draw", "version": state["version"]},
        )
        assert status == 200, state
    bar = warning_on_hint(page, state)
    assert t("hint.exhausted") in bar.inner_text()
    assert page.locator(".ghost").count() == 0  # no move shown on the table


def test_daily_deal_is_kept_apart_and_resumed(page: Any, server: Server, device: str) -> None:
    if device == "phone":
        pytest.skip("the daily deal is checked at desktop size")
    gid = open_game(page, "/play/kongdang?daily=1")
    state = server.game(gid)
    assert state["daily"] is not None
    assert page.locator("#status .daily").inner_text() == t("status.daily", date=state["daily"])
    # a numbered game of the same variant does not replace the daily one
    other = open_game(page, "/play/kongdang?deal=9")
    assert other != gid
    assert open_game(page, "/play/kongdang?daily=1") == gid
