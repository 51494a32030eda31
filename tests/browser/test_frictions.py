"""Small frictions of the table: a run of draws as one hint, a clock that is
not announced every second, English for browsers that ask for no language
the site has."""

from __future__ import annotations

from typing import Any

import pytest
from board_driver import open_game, t, tap, wait_board
from conftest import DESKTOP, PHONE, Server

from jielong.web.i18n import negotiate

pytestmark = pytest.mark.browser

# Klondike draw 1, every stock card seen: the hint's line clicks the stock
# twice (6S, then 4H) and plays the 4H home.
TWO_DRAWS = """Stock: JH TH 7D KH 8D 5H 3D 7H 9H TS 3S 2S TC 9S 8H 4H 6S
Waste:
Foundations: AC 3H AD AS
Recycles: 1
: | 7C 6D 5S 4D
: 2C | KS QH JC
: 4C JS | 9D 8S
: 3C JD 2D | 7S
: | KC
: QC 5C QS TD 6C | 5D 4S
: QD KD 6H 9C | 8C
"""


def test_a_run_of_draws_is_one_hint_that_follows_the_clicks(
    page: Any, server: Server, device: str
) -> None:
    status, state = server.api(
        "POST", "/api/games", {"variant": "klondike-1", "position": TWO_DRAWS}
    )
    assert status == 201, state
    gid = open_game(page, f"/play/klondike-1?game={state['id']}")
    page.locator('#actions button[data-act="hint"]').click()
    bar = page.locator("#hintbar .bar.info")
    bar.wait_for()
    home = t("pile.foundation", n=2)
    assert bar.inner_text() == t("hint.draws", n=2, **{"from": t("pile.waste"), "to": home})
    # the player clicks the stock as told: the hint goes on, one click shorter
    tap(page, device, '[data-pile="stock"]')
    wait_board(page, state["version"] + 1, gid)
    assert bar.inner_text() == t(
        "hint.move", **{"from": t("pile.stockName"), "to": t("pile.waste")}
    )
    tap(page, device, '[data-pile="stock"]')
    wait_board(page, state["version"] + 2, gid)
    assert bar.inner_text() == t("hint.move", **{"from": f"{t('pile.waste')} ♥4", "to": home})


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
