"""Small frictions of the table: a run of draws as one hint, a clock that is
not announced every second, English for browsers that ask for no language
the site has."""

from __future__ import annotations

from typing import Any

import pytest
from board_driver import NEAR_END, Touch, card_selector, centre, open_game, t, tap, wait_board
from conftest import DESKTOP, PHONE, Server, screenshot

from jielong.engine.cards import DECK
from jielong.web.i18n import negotiate

pytestmark = pytest.mark.browser

# Klondike draw 1, every card known: the solver's line clicks the stock
# three times (5H, 6H, then 4H) and plays the 4H home.
THREE_DRAWS = """Stock: KH QH JH TH 9H 8H 7H 4H 6H 5H
Waste:
Foundations: KC KD 3H QS
Recycles: 1
: | KS
: |
: |
: |
: |
: |
: |
"""


def test_a_run_of_draws_is_one_hint_that_follows_the_clicks(
    page: Any, server: Server, device: str
) -> None:
    body = {"variant": "klondike-1", "position": THREE_DRAWS}
    status, state = server.api("POST", "/api/games", body)
    assert status == 201, state
    gid = open_game(page, f"/play/klondike-1?game={state['id']}")
    page.locator('#actions button[data-act="hint"]').click()
    said = page.locator("#hintbar .bar.info > span").first
    said.wait_for()
    home = {"from": t("pile.waste"), "to": t("pile.foundation", n=3)}
    assert said.inner_text() == t("hint.draws", n=3, **home)
    # the player clicks the stock as told: the hint goes on, one click shorter
    tap(page, device, '[data-pile="stock"]')
    wait_board(page, state["version"] + 1, gid)
    assert said.inner_text() == t("hint.draws", n=2, **home)
    tap(page, device, '[data-pile="stock"]')
    wait_board(page, state["version"] + 2, gid)
    # one turn left: said as what the hand does, not "Stock → Waste"
    assert said.inner_text() == t("hint.turnStock")
    tap(page, device, '[data-pile="stock"]')
    wait_board(page, state["version"] + 3, gid)
    assert said.inner_text() == t("hint.move", **{**home, "from": f"{t('pile.waste')} ♥4"})


# Counts changes to the status line's live region while the clock ticks.
WATCH_LIVE = """() => new Promise((resolve) => {
  const live = document.querySelector('#status [role="status"]');
  const clock = document.getElementById("clock");
  const before = clock.textContent;
  let changes = 0;
  const all = {subtree: true, childList: true, characterData: true};
  new MutationObserver(() => changes++).observe(live, all);
  const wait = () => {
    if (clock.textContent === before) return setTimeout(wait, 100);
    resolve({changes, clock: clock.textContent});
  };
  wait();
})"""


def test_the_ticking_clock_is_not_in_the_live_region(
    page: Any, server: Server, device: str
) -> None:
    open_game(page, "/play/freecell?deal=1")
    live = page.locator('#status [role="status"]')
    assert live.count() == 1
    assert page.locator('#status [role="status"] #clock').count() == 0
    assert page.locator("#clock").get_attribute("role") == "timer"
    found = page.evaluate(WATCH_LIVE)
    assert found["changes"] == 0
    assert found["clock"] == t("status.time", t=found["clock"].split()[-1])
    assert t("status.moves", n=0) in live.inner_text()


@pytest.mark.parametrize("locale", ["fr-FR", "ja-JP"])
def test_a_browser_asking_for_other_languages_gets_english(
    browser: Any, server: Server, device: str, locale: str
) -> None:
    options = dict(PHONE if device == "phone" else DESKTOP)
    context = browser.new_context(base_url=server.base, locale=locale, **options)
    try:
        page = context.new_page()
        open_game(page, "/play/klondike-3")
        assert page.evaluate("document.documentElement.lang") == "en"
        assert page.locator('#actions button[data-act="undo"]').inner_text() == t(
            "action.undo", "en"
        )
    finally:
        context.close()


def test_language_fallbacks() -> None:
    assert negotiate(None, None, "fr-FR,fr;q=0.9") == "en"
    assert negotiate(None, None, "ja") == "en"
    assert negotiate(None, None, "fr, zh-TW;q=0.5") == "zh-Hant"
    assert negotiate(None, None, "*") == "zh-Hant"
    assert negotiate(None, None, None) == "zh-Hant"
    assert negotiate("zh-Hans", None, "fr") == "zh-Hans"


def long_run_position() -> str:
    """FreeCell: column 4 (the middle of a phone's eight) ends with the run
    9S 8H 7C 6D 5S 4H under three other cards."""
    run = ["9S", "8H", "7C", "6D", "5S", "4H"]
    rest = [c.code() for c in DECK if c.code() not in run]
    others = [rest[3 + i :: 7] for i in range(7)]
    columns = [*others[:3], rest[:3] + run, *others[3:]]
    return "\n".join(" ".join(col) for col in columns) + "\n"


# Whether any highlighted card of the run shares pixels with the overlay.
RUN_COVERED = """() => {
  const o = document.querySelector(".run-overlay").getBoundingClientRect();
  const run = [...document.querySelectorAll('[data-pile="tableau:3"] .card.run')];
  const covered = run.some((c) => {
    const r = c.getBoundingClientRect();
    return r.left < o.right && o.left < r.right && r.top < o.bottom && o.top < r.bottom;
  });
  return {covered, run: run.length};
}"""


RUN_LENGTH = "(n) => document.querySelectorAll('[data-pile=\"tableau:3\"] .card.run').length === n"


def test_the_run_picker_never_covers_the_run(page: Any, server: Server, device: str) -> None:
    body = {"variant": "freecell", "position": long_run_position()}
    status, state = server.api("POST", "/api/games", body)
    assert status == 201, state
    gid = open_game(page, f"/play/freecell?game={state['id']}")
    x, y = centre(page, card_selector("tableau:3", "4H"))
    touch = Touch(page) if device == "phone" else None
    if touch:
        touch.down(x, y)
    else:
        page.mouse.move(x, y)
        page.mouse.down()
    page.locator(".run-overlay").wait_for()
    page.wait_for_selector('[data-pile="tableau:3"] .card.run')
    assert page.evaluate(RUN_COVERED) == {"covered": False, "run": 1}
    if touch:
        touch.up(x, y)
    else:
        page.mouse.up()
    page.keyboard.press("Escape")
    page.locator(".run-overlay").wait_for(state="detached")
    # from the keyboard, every length of the run stays in sight
    page.locator('[data-pile="tableau:3"]').focus()
    for n in range(2, 7):
        page.keyboard.press("ArrowUp")
        page.wait_for_function(RUN_LENGTH, arg=n)
        assert page.evaluate(RUN_COVERED) == {"covered": False, "run": n}
    screenshot(page, f"run-picker-{device}")
    page.keyboard.press("Escape")
    assert server.game(gid)["version"] == state["version"]


def moves_of(server: Server, gid: str) -> int:
    count: int = server.game(gid)["counters"]["moves"]
    return count


def test_the_demo_plays_the_line_pauses_and_each_step_undoes(
    page: Any, server: Server, device: str
) -> None:
    gid = open_game(page, "/play/freecell?deal=1")
    demo = page.locator('#actions button[data-act="demo"]')
    bar = page.locator("#hintbar .bar.demo")
    if device == "desktop":
        page.keyboard.press("d")
    else:
        demo.tap()
    bar.wait_for()
    page.wait_for_function("() => Number(document.getElementById('board').dataset.version) >= 3")
    bar.locator('button[data-act="demo"]').click()
    page.wait_for_selector(
        f"#hintbar .bar.demo button[data-act=demo]:text-is('{t('demo.resume')}')"
    )
    page.wait_for_timeout(700)
    state = server.game(gid)
    made = state["counters"]["moves"]
    assert made >= 2
    assert bar.inner_text().startswith(t("demo.paused", n=made))
    page.wait_for_timeout(900)
    assert server.game(gid)["version"] == state["version"]
    # a step of the demo is a move like any other: one undo takes it back
    page.locator('#actions button[data-act="undo"]').click()
    wait_board(page, state["version"] + 1, gid)
    assert moves_of(server, gid) == made - 1
    screenshot(page, f"demo-{device}")
    bar.locator('button[data-act="demo"]').click()
    page.wait_for_function(
        "(v) => Number(document.getElementById('board').dataset.version) >= v",
        arg=state["version"] + 3,
    )
    bar.locator('button[data-act="demo-stop"]').click()
    bar.wait_for(state="detached")
    # Klondike with cards still face down: no win is known, and it says so
    open_game(page, "/play/klondike-1?deal=3")
    demo.click()
    page.locator("#hintbar .bar.demo .note").wait_for()
    assert page.locator("#hintbar .bar.demo .note").inner_text() == t("demo.noKnownWin")
    page.locator('#hintbar button[data-act="demo-stop"]').click()


def test_the_demo_finishes_a_won_position(page: Any, server: Server, device: str) -> None:
    body = {"variant": "klondike-1", "position": NEAR_END["klondike"]}
    status, state = server.api("POST", "/api/games", body)
    assert status == 201, state
    gid = open_game(page, f"/play/klondike-1?game={state['id']}")
    page.locator('#actions button[data-act="demo"]').click()
    page.locator(".panel.win").wait_for()
    final = server.game(gid)
    assert final["flags"]["won"] and final["counters"]["moves"] == 4
    page.locator("#hintbar .bar.demo").wait_for(state="detached")
