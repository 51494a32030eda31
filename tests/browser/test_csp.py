"""Every page under the strict Content-Security-Policy (no inline script, no
inline style): the home, rules and statistics pages, and each game played
through a few moves, a hint and an analysis, without one violation."""

from __future__ import annotations

from typing import Any

import pytest
from board_driver import (
    VARIANTS,
    card_selector,
    deal_with_tableau_move,
    open_game,
    source_card,
    tap,
    wait_board,
)
from conftest import DESKTOP, Server
from test_board import select_or_send

pytestmark = pytest.mark.browser

# installed before any of the page's own scripts: every violation the
# browser reports, with the directive and what it blocked
WATCH = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__violations.push(`${e.violatedDirective} ${e.blockedURI} ${e.sample}`);
});
"""


def violations(page: Any) -> list[str]:
    found: list[str] = page.evaluate("() => window.__violations")
    return found


def _play(page: Any, server: Server, variant: str) -> int:
    """A move by clicks, its undo, a draw (Klondike), a hint and the analysis;
    the number of steps the analysis took on the table."""
    number, move = deal_with_tableau_move(variant)
    gid = open_game(page, f"/play/{variant}?deal={number}")
    assert violations(page) == [], variant
    start = server.game(gid)
    version = start["version"]
    card = card_selector(str(move.src), source_card(start, str(move.src), 1))
    if select_or_send(page, "desktop", card, version):
        tap(page, "desktop", f'[data-pile="{move.dst}"] .card')
    wait_board(page, version + 1)
    page.locator('#actions button[data-act="undo"]').click()
    wait_board(page, version + 2)
    version += 2
    if start["position"].get("stock"):
        page.locator('[data-pile="stock"]').click()
        wait_board(page, version + 1)
    # the hint draws a gliding copy of the cards it moves
    page.locator('#actions button[data-act="hint"]').click()
    page.locator("[data-pile].hint-from").wait_for(timeout=20_000)
    # the analysis steps along its line on the table
    page.locator("#board-tools-open").click()
    page.locator("#analysis-run").click()
    page.locator("#analysis-verdict[data-status]").wait_for(timeout=30_000)
    if page.locator("#analysis-as-position").is_visible():
        # a numbered deal's line is stepped through as a position of its own
        page.locator("#analysis-as-position").click()
        page.wait_for_function("(g) => !location.search.includes(g)", arg=gid)
        page.locator("#analysis-next").wait_for(timeout=30_000)
    if page.locator("#analysis-next").is_visible():
        before = page.locator("#board").get_attribute("data-version")
        page.locator("#analysis-next").click()
        page.wait_for_function(
            "(v) => document.getElementById('board').dataset.version !== v", arg=before
        )
        stepped = 1
        # stepping goes on on the table: the dialog made way for the step bar
        page.locator("#step-bar-close").click()
    else:
        stepped = 0
        page.locator("#board-tools-close").click()
    return stepped


def test_no_page_breaks_the_content_security_policy(browser: Any, server: Server) -> None:
    context = browser.new_context(base_url=server.base, locale="zh-TW", **DESKTOP)
    context.add_init_script(WATCH)
    page = context.new_page()
    page.set_default_timeout(15_000)
    console: list[str] = []
    page.on("console", lambda m: console.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: console.append(str(e)))
    try:
        response = page.goto("/")
        csp = response.headers["content-security-policy"]
        assert "unsafe-inline" not in csp and "style-src 'self'" in csp
        # a style attribute in markup would be refused: the check can see one
        page.evaluate("() => { document.body.innerHTML += '<i style=\"color: red\"></i>'; }")
        page.wait_for_function("() => window.__violations.length > 0")
        assert "style-src" in violations(page)[0]
        console.clear()

        for path in ["/", "/stats", *(f"/rules/{v}" for v in VARIANTS)]:
            page.goto(path)
            page.wait_for_load_state("networkidle")
            assert violations(page) == [], path
        stepped = 0
        for variant in VARIANTS:
            stepped += _play(page, server, variant)
            assert violations(page) == [], variant
        assert stepped  # at least one analysis line was stepped through on the table
        page.goto("/stats")
        page.wait_for_load_state("networkidle")
        assert violations(page) == []
        assert console == []
    finally:
        context.close()
