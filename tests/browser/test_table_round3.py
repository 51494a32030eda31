"""The table, round 3: an ace home on one tap, long columns that squeeze
their fan before the cards shrink, honest statistics, words for touch
screens, and the offline and dark looks."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import pytest
from board_driver import card_selector, open_game, read_board, t, tap, wait_board, wait_held
from conftest import Server, screenshot

from jielong.engine.cards import DECK

pytestmark = pytest.mark.browser

# Klondike draw 1: the ace of hearts may go home or onto the two of spades.
ACE_OR_TWO = """Stock: KS QS JS TS 9S 8S 7S 6S 5S 4S 3S KH QH JH TH 9H 8H 7H 6H 5H 4H 3H 2H
Waste: AS
Foundations: KC KD
: | AH
: | 2S
: |
: |
: |
: |
: |
"""


def custom_game(page: Any, server: Server, variant: str, position: str) -> str:
    status, state = server.api("POST", "/api/games", {"variant": variant, "position": position})
    assert status == 201, state
    return open_game(page, f"/play/{variant}?game={state['id']}")


def test_an_ace_goes_home_on_one_tap(page: Any, server: Server, device: str) -> None:
    gid = custom_game(page, server, "klondike-1", ACE_OR_TWO)
    tap(page, device, card_selector("tableau:0", "AH"))
    wait_board(page, 2, gid)
    board = read_board(page)
    assert "AH" in board["foundations"]
    assert board["tableau"][0]["up"] == [] and board["tableau"][1]["up"] == ["2S"]
    # the waste's ace too
    tap(page, device, card_selector("waste", "AS"))
    wait_board(page, 3, gid)
    assert "AS" in read_board(page)["foundations"]


def long_column(length: int) -> str:
    """A FreeCell position whose first column holds ``length`` cards."""
    codes = [str(c) for c in DECK]
    columns = [codes[:length]]
    rest = codes[length:]
    per = -(-len(rest) // 7)
    columns += [rest[i : i + per] for i in range(0, len(rest), per)]
    return "\n".join(" ".join(col) for col in columns) + "\n"


CARD_BOXES = """(pile) => [...document.querySelectorAll(`[data-pile="${pile}"] .card`)]
  .map((c) => c.getBoundingClientRect()).map((r) => ({top: r.top, w: r.width, h: r.height}))"""


def test_a_long_column_squeezes_its_fan_before_the_cards_shrink(
    page: Any, server: Server, device: str
) -> None:
    open_game(page, "/play/freecell?deal=1")
    usual = page.evaluate(CARD_BOXES, "tableau:0")[0]["h"]
    custom_game(page, server, "freecell", long_column(13))
    cards = page.evaluate(CARD_BOXES, "tableau:0")
    assert len(cards) == 13
    # a column of 13 keeps the cards nearly as tall (they were 73% of it on a desktop)
    assert cards[0]["h"] >= 0.8 * usual
    # the short columns keep an open fan, the long one squeezes, every rank shows
    steps = [b["top"] - a["top"] for a, b in pairwise(cards)]
    other = page.evaluate(CARD_BOXES, "tableau:1")
    assert other[1]["top"] - other[0]["top"] >= max(steps)
    assert min(steps) >= 0.22 * cards[0]["w"]
    screenshot(page, f"long-column-{device}")


def my_stats(page: Any, variant: str) -> dict[str, Any]:
    answer: dict[str, Any] = page.request.get("/api/stats").json()[variant]
    return answer


def test_statistics_count_games_played_and_not_the_demos_wins(page: Any, device: str) -> None:
    from jielong.engine.rules.registry import rules_for
    from jielong.engine.solve.api import solve

    # opening a table is not a game played
    open_game(page, "/play/kongdang")
    assert my_stats(page, "kongdang")["games"] == 0
    result = solve("freecell", rules_for("freecell").deal(1), max_seconds=20)
    if result.status != "solved":
        pytest.skip(f"the own solver did not solve deal 1 in time ({result.status})")
    game = page.request.post("/api/games", data={"variant": "freecell", "deal": 1}).json()
    # the player plays all but the last few moves, the demo finishes
    for move in result.moves[:-4]:
        body = {"version": game["version"], "type": "move", **move.to_json()}
        game = page.request.post(f"/api/games/{game['id']}/actions", data=body).json()
    open_game(page, f"/play/freecell?game={game['id']}")
    page.locator('#actions button[data-act="demo"]').click()
    page.locator(".panel.win").wait_for()
    stats = my_stats(page, "freecell")
    assert (stats["games"], stats["wins"], stats["best_time_ms"]) == (1, 0, None)
    page.goto("/stats#freecell")
    row = page.locator('section[data-variant="freecell"] table.recent tbody tr')
    assert row.count() == 1
    assert row.locator("td.result").inner_text() == t("stats.result.demo")
    assert page.locator('section[data-variant="kongdang"] .chart-empty').count() == 1
    screenshot(page, f"stats-demo-{device}")


# Klondike draw 1, the stock empty and nothing to play from the waste's top:
# the waste must be turned over.
TURN_OVER = """Stock:
Waste: 4H KH QH JH TH 9H 8H 7H 6H 5H
Foundations: KC KD 3H QS
Recycles: 0
: | KS
: |
: |
: |
: |
: |
: |
"""


def test_klondike_words_say_what_the_hand_does(page: Any, server: Server, device: str) -> None:
    from board_driver import centre, drag

    gid = custom_game(page, server, "klondike-1", TURN_OVER)
    page.locator('#actions button[data-act="hint"]').click()
    said = page.locator("#hintbar .bar.info > span").first
    said.wait_for()
    # the waste turned over, then one turn of the stock to the 4 of hearts,
    # which goes home on the 3
    then = {"from": t("pile.waste"), "to": t("pile.foundation", n=3)}
    assert said.inner_text() == t("hint.overDraws", n=1, **then)
    # the empty stock's label speaks of a tap on a touch screen
    label = page.locator('[data-pile="stock"]').get_attribute("aria-label")
    assert label == t("pile.stockEmpty.touch" if device == "phone" else "pile.stockEmpty")
    if device == "phone":
        assert "click" not in t("pile.stockEmpty.touch", "en")
    # the waste's top card dragged onto the empty stock: what happened, in words
    drag(
        page,
        device,
        centre(page, card_selector("waste", "5H")),
        centre(page, '[data-pile="stock"]'),
    )
    toast = page.locator("#toast.show")
    toast.wait_for()
    assert toast.inner_text() == api_text("illegal.wrong_draw")
    wait_board(page, 1, gid)
    screenshot(page, f"words-turn-over-{device}")


def api_text(key: str) -> str:
    import json

    from board_driver import I18N

    text: str = json.loads((I18N / "api.zh-Hant.json").read_text(encoding="utf-8"))[key]
    return text


CONTRAST = """() => {
  const rgb = (text) => (text.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => {
    const f = (x) => ((x /= 255) <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4);
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const over = (fg, bg) => {
    const a = fg.length > 3 ? fg[3] : 1;
    return [0, 1, 2].map((i) => a * fg[i] + (1 - a) * bg[i]);
  };
  const ratio = (a, b) => {
    const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
    return (hi + 0.05) / (lo + 0.05);
  };
  const felt = rgb(getComputedStyle(document.body).backgroundColor);
  const style = (sel) => getComputedStyle(document.querySelector(sel));
  const slot = rgb(style('[data-pile="foundation:0"] > .slot').borderTopColor);
  const mark = rgb(style('[data-pile="foundation:0"] .mark').color);
  const empty = rgb(style('[data-pile="cell:0"] > .slot').borderTopColor);
  const button = style('#actions button[data-act="undo"]');
  return {
    felt: lum(felt),
    slot: ratio(over(slot, felt), felt),
    mark: ratio(over(mark, felt), felt),
    cell: ratio(over(empty, felt), felt),
    button: rgb(button.backgroundColor),
    buttonText: ratio(rgb(button.color), rgb(button.backgroundColor)),
    face: rgb(getComputedStyle(document.documentElement).getPropertyValue("--face")),
  };
}"""


def test_dark_mode_is_a_night_table_and_empty_places_show(page: Any, device: str) -> None:
    open_game(page, "/play/freecell?deal=2")
    light = page.evaluate(CONTRAST)
    page.emulate_media(color_scheme="dark")
    page.wait_for_timeout(100)
    dark = page.evaluate(CONTRAST)
    for looks in (light, dark):
        # WCAG AA for graphics: 3:1; the buttons' words 4.5:1
        assert looks["slot"] >= 3 and looks["mark"] >= 3 and looks["cell"] >= 3, looks
        assert looks["buttonText"] >= 4.5, looks
    # the felt at night is clearly darker, and so are the buttons
    assert light["felt"] >= 2 * dark["felt"]
    assert sum(dark["button"]) < sum(light["button"]) / 2
    screenshot(page, f"dark-table-{device}")
    page.goto("/")
    play = page.locator(".deal-form button").first
    looks = play.evaluate(
        "(b) => { const s = getComputedStyle(b); return [s.backgroundColor, s.borderRadius]; }"
    )
    # not the browser's own grey button
    assert looks[0] not in ("rgb(239, 239, 239)", "rgb(107, 107, 107)") and looks[1] == "8px"
    screenshot(page, f"dark-home-{device}")


ROW = """() => [...document.querySelectorAll("#actions > button")].map((b) => {
  const r = b.getBoundingClientRect();
  return {act: b.dataset.act || "more", top: Math.round(r.top), h: r.height, shown: r.width > 0};
})"""

LOOKS = """() => {
  const card = document.querySelector('[data-pile="tableau:0"] .card:last-child');
  const rank = card.querySelector("text.rank");
  const cards = document.querySelectorAll('[data-pile="tableau:0"] .card');
  const tops = [...cards].map((c) => c.offsetTop);
  return {w: card.offsetWidth, index: Number(rank.getAttribute("font-size")),
          step: tops.length > 1 ? tops.at(-1) - tops.at(-2) : 0};
}"""


def test_one_slim_action_row_and_a_menu(page: Any, server: Server, device: str) -> None:
    open_game(page, "/play/klondike-3?deal=5")
    row = page.evaluate(ROW)
    assert [b["act"] for b in row] == ["undo", "hint", "new", "demo", "more"]
    shown = [b for b in row if b["shown"]]
    # one row, all of it
    assert len({b["top"] for b in shown}) == 1
    # the icons are drawn, not read: each button's name is its label alone
    for act, key in (("undo", "action.undo"), ("hint", "action.hint"), ("demo", "action.demo")):
        named = page.get_by_role("button", name=t(key), exact=True)
        assert named.first.get_attribute("data-act") == act
    icon = page.evaluate(
        """() => getComputedStyle(document.querySelector('#actions [data-act="undo"]'),
        '::before').content"""
    )
    assert "↶" in icon
    restart = page.locator('#more button[data-act="restart"]')
    switch = page.locator("label:has(#winnable-only)")
    if device == "phone":
        assert len(shown) == 5 and max(b["h"] for b in shown) <= 52
        bar = page.locator(".bar-row").bounding_box()
        assert bar is not None and bar["height"] <= 60
        assert not restart.is_visible() and not switch.is_visible()
        tap(page, device, "#actions .more-toggle")
        page.locator("#more.open").wait_for()
        assert restart.is_visible() and switch.is_visible()
        assert page.locator("#more .rules-link").is_visible()
        screenshot(page, f"menu-open-{device}")
        page.keyboard.press("Escape")
        page.locator("#more:not(.open)").wait_for(state="attached")
        assert not restart.is_visible()
        # a choice in the menu closes it
        tap(page, device, "#actions .more-toggle")
        restart.tap()
        page.locator("#more:not(.open)").wait_for(state="attached")
    else:
        # a wide screen has room: the menu's contents sit beside the row
        assert restart.is_visible() and switch.is_visible() and len(shown) == 4
    screenshot(page, f"action-row-{device}")


def test_larger_cards_do_something_on_a_phone_too(page: Any, device: str) -> None:
    open_game(page, "/play/freecell?deal=3")
    usual = page.evaluate(LOOKS)
    page.evaluate("() => localStorage.setItem('jielong.settings', JSON.stringify({large: true}))")
    page.reload()
    wait_board(page)
    large = page.evaluate(LOOKS)
    # larger print on every screen; on a phone, whose width limits the cards,
    # the fans open further and the cards gain the gaps' width
    assert large["index"] > usual["index"]
    assert large["w"] >= usual["w"]
    if device == "phone":
        assert large["step"] > usual["step"]
    screenshot(page, f"large-cards-{device}")


def test_offline_the_bar_is_slim_and_the_statistics_open(
    browser: Any, server: Server, device: str
) -> None:
    from conftest import DESKTOP, PHONE

    from jielong.web.views import pwa

    context = browser.new_context(
        base_url=server.base, locale="zh-TW", **(PHONE if device == "phone" else DESKTOP)
    )
    # without the engine's worker: offline, the table says it needs the server
    context.add_init_script("Object.defineProperty(window, 'Worker', { value: undefined })")
    page = context.new_page()
    page.set_default_timeout(15_000)
    try:
        open_game(page, "/play/freecell?deal=617")
        page.wait_for_function("() => navigator.serviceWorker.controller !== null")
        page.wait_for_function(
            "async (n) => (await caches.keys()).includes(n)",
            arg=f"jielong-shell-{pwa.shell_version()}",
        )
        page.wait_for_function(
            """async () => {
              const cache = await caches.open((await caches.keys())[0]);
              return Boolean(await cache.match("/stats"));
            }"""
        )
        before = page.locator("#board").bounding_box()
        context.set_offline(True)
        answer = page.reload()
        assert answer is not None and answer.from_service_worker
        bar = page.locator(".offline-bar")
        bar.wait_for(state="visible")
        wait_board(page)
        # laid over the board: the board keeps its place and size
        after = page.locator("#board").bounding_box()
        assert before is not None and after is not None
        assert abs(after["y"] - before["y"]) <= 1 and abs(after["height"] - before["height"]) <= 1
        box = bar.bounding_box()
        assert box is not None and box["height"] <= (56 if device == "phone" else 40)
        screenshot(page, f"offline-bar-{device}")
        # the statistics page comes from the shell, not the browser's error page
        answer = page.goto("/stats")
        assert answer is not None and answer.from_service_worker
        assert page.locator("main.stats h1").inner_text() == t("stats.title")
    finally:
        context.set_offline(False)
        context.close()


def no_worker_page(browser: Any, server: Server, device: str) -> tuple[Any, Any]:
    """A page whose hints come from the server (no engine on the device)."""
    from conftest import DESKTOP, PHONE

    context = browser.new_context(
        base_url=server.base, locale="zh-TW", **(PHONE if device == "phone" else DESKTOP)
    )
    context.add_init_script("Object.defineProperty(window, 'Worker', { value: undefined })")
    page = context.new_page()
    page.set_default_timeout(20_000)
    return context, page


def test_the_hint_pressed_again_shows_the_next_move_or_the_line_further(
    browser: Any, server: Server, device: str
) -> None:
    context, page = no_worker_page(browser, server, device)
    try:
        # FreeCell: a solver's line; each press again names one more move of it
        open_game(page, "/play/freecell?deal=617")
        press = page.locator('#actions button[data-act="hint"]')
        press.click()
        said = page.locator("#hintbar .bar.info > span").first
        said.wait_for()
        first = said.inner_text()
        origin = page.locator("[data-pile].hint-from").get_attribute("data-pile")
        then = t("hint.then", moves="")
        assert then not in first
        press.click()
        page.wait_for_function(
            "(n) => (document.querySelector('#hintbar .then')?.textContent || '').length > n",
            arg=len(then),
        )
        one = page.locator("#hintbar .then").inner_text()
        press.click()
        page.wait_for_function(
            "(a) => (document.querySelector('#hintbar .then')?.textContent || '') !== a", arg=one
        )
        two = page.locator("#hintbar .then").inner_text()
        assert two.startswith(one) and t("hint.thenJoin") in two
        # the arrow stays on the move to play now
        assert page.locator("[data-pile].hint-from").get_attribute("data-pile") == origin
        screenshot(page, f"hint-again-line-{device}")

        # Klondike: a sampled hint's next best moves in turn, then its best again
        status, state = server.api(
            "POST", "/api/games", {"variant": "klondike-1", "position": ACE_OR_TWO}
        )
        assert status == 201
        gid = open_game(page, f"/play/klondike-1?game={state['id']}")
        best = {"from": "tableau:0", "to": "foundation:0", "count": 1}
        other = {"from": "tableau:0", "to": "tableau:1", "count": 1}
        draw = {"from": "stock", "to": "waste", "count": 1}
        answer = {
            "version": state["version"],
            "kind": "likely",
            "move": best,
            "line": [best],
            "steps": [],
            "source": "own",
            "win_chance": 0.6,
            "samples": 20,
            "decided": 20,
            "others": [{"move": other, "won": 9, "of": 20}, {"move": draw, "won": 4, "of": 18}],
        }
        page.route("**/api/games/*/hint", lambda route: route.fulfill(json=answer, status=200))
        press.click()
        page.locator("[data-pile='foundation:0'].hint-dst").wait_for()
        press.click()
        said.wait_for()
        page.locator("[data-pile='tableau:1'].hint-dst").wait_for()
        text = page.locator("#hintbar .bar.info").inner_text()
        assert t("hint.other", k=2, n=3, move="").split("：")[0] in text
        assert t("hint.otherWon", won=9, of=20) in text
        screenshot(page, f"hint-again-other-{device}")
        press.click()
        page.wait_for_function(
            "(w) => document.querySelector('#hintbar .bar.info').textContent.includes(w)",
            arg=t("hint.otherWon", won=4, of=18),
        )
        assert t("analysis.turnStock") in page.locator("#hintbar .bar.info").inner_text()
        press.click()
        page.locator("[data-pile='foundation:0'].hint-dst").wait_for()
        assert t("hint.otherWon", won=4, of=18) not in page.locator("#hintbar").inner_text()
        # nothing was played, and only one hint was asked of the server
        assert server.game(gid)["version"] == state["version"]
    finally:
        context.close()


def test_pressing_the_hint_again_while_it_is_searched_keeps_the_search(
    browser: Any, server: Server, device: str
) -> None:
    if device == "phone":
        pytest.skip("checked at desktop size")
    context, page = no_worker_page(browser, server, device)
    held: list[Any] = []
    try:
        gid = custom_game(page, server, "klondike-1", ACE_OR_TWO)
        version = server.game(gid)["version"]
        page.route("**/api/games/*/hint", lambda route: held.append(route))
        press = page.locator('#actions button[data-act="hint"]')
        press.click()
        page.wait_for_function("() => document.querySelector('#actions [aria-busy]') !== null")
        press.click()
        press.click()
        # one search, still on its way: a press again neither stops nor restarts it
        assert wait_held(page, held, 300) == 1
        assert page.locator('#actions button[data-act="hint"][aria-busy]').count() == 1
        held[0].continue_()
        page.locator("[data-pile].hint-dst").first.wait_for()
        assert len(held) == 1 and server.game(gid)["version"] == version
    finally:
        context.close()
