"""The position dialog in Chromium: a pasted board that is refused says why in
place, in the page's language; a good one starts a game with the solvers'
verdict; three steps along their line; the shared link opens the same
position in a fresh browser context."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from board_driver import expected_board, game_id, open_game, read_board, wait_board
from conftest import DESKTOP, Server, screenshot

from jielong.engine.rules.registry import rules_for

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
BOARDS = ROOT / "tests" / "fixtures" / "boards"
UI = json.loads((ROOT / "jielong" / "web" / "i18n" / "ui.zh-Hant.json").read_text("utf-8"))


def t(key: str, **values: object) -> str:
    text: str = UI[key]
    for name, value in values.items():
        text = text.replace("{" + name + "}", str(value))
    return text


def board(name: str) -> str:
    return (BOARDS / name).read_bytes().decode("utf-8")


def drawn_as_served(page: Any, server: Server, gid: str) -> dict[str, Any]:
    state = server.game(gid)
    wait_board(page, state["version"], gid)
    assert read_board(page) == expected_board(state)
    return state


def test_paste_analyse_step_share(page: Any, browser: Any, server: Server, device: str) -> None:
    open_game(page, "/play/freecell?deal=5")
    stats = "() => fetch('/api/stats').then((r) => r.json())"
    before = page.evaluate(stats)
    page.locator("#board-tools-open").click()
    dialog = page.locator("#board-tools")
    assert dialog.is_visible()

    # refused: the culprit is named in place, in the page's language (the
    # board arrives as a dropped file)
    area = page.locator("#position-input")
    page.evaluate(
        """(text) => {
          const data = new DataTransfer();
          data.items.add(new File([text], "624-with-dup-card.board", { type: "text/plain" }));
          const section = document.querySelector(".board-paste");
          section.dispatchEvent(new DragEvent("drop", { dataTransfer: data, bubbles: true }));
        }""",
        board("624-with-dup-card.board"),
    )
    page.wait_for_function("() => document.getElementById('position-input').value !== ''")
    assert area.input_value() == board("624-with-dup-card.board")
    page.locator("#position-start").click()
    error = page.locator("#position-error")
    error.wait_for(state="visible")
    assert "重複的牌：KC（第 2 行）；缺少：4H" in error.inner_text()
    assert area.get_attribute("aria-invalid") == "true"
    assert (
        page.evaluate(
            "() => { const a = document.getElementById('position-input');"
            " return a.value.slice(a.selectionStart, a.selectionEnd); }"
        )
        == board("624-with-dup-card.board").splitlines()[1]
    )

    # accepted (a byte-order mark and all): a new game, never counted, and its verdict
    area.fill(board("624-with-utf8-bom.board"))
    assert error.inner_text() == ""
    page.locator("#position-start").click()
    verdict = page.locator('#analysis-verdict[data-status="solved"]')
    verdict.wait_for()
    gid = game_id(page)
    start = drawn_as_served(page, server, gid)
    assert start["deal"] is None
    n = page.locator("#analysis-line li").count()
    assert n > 0 and verdict.inner_text() == t("analysis.solved", n=n)
    assert page.locator("#analysis-solvers li").count() >= 1
    screenshot(page, f"analysis-verdict-{device}")

    # the line is labelled with its solver and reads by the cards it moves
    assert page.locator('#analysis-solvers li[aria-current="true"]').count() == 1
    assert page.locator("#analysis-line-of").inner_text().endswith(f"{n} 步：")
    labels = page.locator("#analysis-line li button").all_inner_texts()
    assert sum(bool(re.match("[♠♥♦♣]", label)) for label in labels) >= n // 2

    # stepping happens on the table: the dialog makes way for the step bar
    bar = page.locator("#step-bar")
    page.locator("#analysis-next").click()
    bar.wait_for()
    assert not dialog.is_visible()
    for i in (1, 2, 3):
        if i > 1:
            page.locator("#step-bar-next").click()
        page.locator("#step-bar-step").get_by_text(t("analysis.step", i=i, n=n)).wait_for()
        state = drawn_as_served(page, server, gid)
        assert state["counters"]["moves"] == i
    third = state["position"]
    # the move to come, by its card
    assert page.locator("#step-bar-move").inner_text() == t("analysis.coming", move=labels[3])
    # the bar sits on the board, clear of the action bar
    shown, actions = bar.bounding_box(), page.locator(".bar-row").bounding_box()
    assert shown is not None and actions is not None
    assert shown["y"] + shown["height"] <= actions["y"] + 0.5
    page.locator("#step-bar-prev").click()
    page.locator("#step-bar-step").get_by_text(t("analysis.step", i=2, n=n)).wait_for()
    assert drawn_as_served(page, server, gid)["counters"]["moves"] == 2
    # "play to here" from the dialog's list plays on the table too
    page.locator("#step-bar-open").click()
    assert dialog.is_visible() and not bar.is_visible()
    page.locator("#analysis-line li button").nth(2).click()
    page.locator("#step-bar-step").get_by_text(t("analysis.step", i=3, n=n)).wait_for()
    assert not dialog.is_visible()
    assert drawn_as_served(page, server, gid)["position"] == third

    # games from positions never count in the statistics
    assert page.evaluate(stats) == before

    page.locator("#step-bar-next").click()
    page.locator("#step-bar-step").get_by_text(t("analysis.step", i=4, n=n)).wait_for()
    assert drawn_as_served(page, server, gid)["counters"]["moves"] == 4
    screenshot(page, f"analysis-step-bar-{device}")
    page.locator("#step-bar-prev").click()
    page.locator("#step-bar-step").get_by_text(t("analysis.step", i=3, n=n)).wait_for()
    assert drawn_as_served(page, server, gid)["position"] == third
    page.locator("#step-bar-open").click()
    assert dialog.is_visible() and not bar.is_visible()
    assert page.locator('#analysis-line button[aria-current="step"]').inner_text() == labels[2]

    # the shared link opens the same position as a new game elsewhere
    page.locator("#position-copy-link").click()
    link = page.locator("#position-link")
    page.wait_for_function("() => document.getElementById('position-link').value !== ''")
    url = link.input_value()
    assert "/play/freecell?position=f." in url
    assert page.locator("#position-copy").input_value().count("\n") >= 8
    screenshot(page, f"analysis-share-{device}")

    fresh = browser.new_context(base_url=server.base, locale="en-GB", **DESKTOP)
    try:
        other = fresh.new_page()
        other.set_default_timeout(10_000)
        gid2 = open_game(other, url)
        assert gid2 != gid
        shared = drawn_as_served(other, server, gid2)
        assert shared["position"] == third and shared["deal"] is None
        assert shared["counters"]["moves"] == 0
    finally:
        fresh.close()


@pytest.mark.parametrize("device", ["desktop"])
def test_a_dealt_klondike_game_is_analysed_and_stepped_as_a_copy(
    page: Any, server: Server, device: str
) -> None:
    gid = open_game(page, "/play/klondike-1?deal=5")
    page.locator("#board-tools-open").click()
    page.locator("#analysis-run").click()
    page.locator('#analysis-verdict[data-status="solved"]').wait_for()
    # the solvers saw the face-down cards: the page says so
    assert page.locator("#analysis-thoughtful").inner_text() == t("analysis.thoughtful")
    # a dealt game is not stepped through (that would play it): a copy is
    assert not page.locator("#analysis-next").is_visible()
    page.locator("#analysis-as-position").click()
    page.wait_for_function(f"() => !location.search.includes({json.dumps(gid)})")
    page.locator('#analysis-verdict[data-status="solved"]').wait_for()
    copy = game_id(page)
    assert server.game(copy)["deal"] is None
    assert server.game(copy)["position"] == server.game(gid)["position"]
    n = page.locator("#analysis-line li").count()
    page.locator("#analysis-next").click()
    page.locator("#step-bar-step").get_by_text(t("analysis.step", i=1, n=n)).wait_for()
    assert drawn_as_served(page, server, copy)["counters"]["moves"] == 1
    assert server.game(gid)["counters"]["moves"] == 0


@pytest.mark.parametrize("device", ["desktop"])
def test_pysol_import_boards_in_the_dialog(page: Any, server: Server, device: str) -> None:
    """PySolFC's six import boards: three start the deal they hold, three are
    refused with the culprit named (here in the page's language)."""
    open_game(page, "/play/freecell?deal=5")
    page.locator("#board-tools-open").click()
    area, error = page.locator("#position-input"), page.locator("#position-error")
    for name, said in (
        ("624-with-dup-card.board", "重複的牌：KC（第 2 行）"),
        ("624-missing-cards.board", "缺少的牌：5H"),
        ("624-invalid-foundations-line.board", "第 1 行：「zzz」不是回收堆的寫法"),
    ):
        area.fill(board(name))
        page.locator("#position-start").click()
        error.get_by_text(said).wait_for()
    for name, deal in (("624.board", 624), ("with-10-for-rank.txt", 24)):
        before = game_id(page)
        area.fill(board(name))
        page.locator("#position-start").click()
        page.wait_for_function(f"() => !location.search.includes({json.dumps(before)})")
        dealt = rules_for("freecell").deal(deal)
        gid = game_id(page)
        columns = [col["up"] for col in server.game(gid)["position"]["tableau"]]
        assert columns == [[c.code() for c in col] for col in dealt.tableau]
        page.locator('#analysis-verdict[data-status="solved"]').wait_for()
        drawn_as_served(page, server, gid)


@pytest.mark.parametrize("device", ["phone"])
def test_a_board_file_is_opened_with_the_pages_own_button(
    page: Any, server: Server, device: str
) -> None:
    """The file button speaks the page's language (the browser's own would
    speak the browser's); the board it opens fills the box and starts."""
    open_game(page, "/play/freecell?deal=5")
    page.locator("#board-tools-open").click()
    pick = page.locator("label.file-button")
    assert pick.inner_text() == t("analysis.openFile")
    native = page.locator("#position-file").bounding_box()  # the browser's button, hidden
    assert native is not None and native["width"] <= 1 and native["height"] <= 1
    with page.expect_file_chooser() as chooser:
        pick.click()
    chooser.value.set_files(str(BOARDS / "624.board"))
    area = page.locator("#position-input")
    page.wait_for_function("() => document.querySelector('#position-input').value.length > 0")
    assert area.input_value() == board("624.board")
    before = game_id(page)
    page.locator("#position-start").click()
    page.wait_for_function(f"() => !location.search.includes({json.dumps(before)})")
    columns = [col["up"] for col in server.game(game_id(page))["position"]["tableau"]]
    dealt = rules_for("freecell").deal(624)
    assert columns == [[c.code() for c in col] for col in dealt.tableau]
