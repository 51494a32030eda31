"""How the table looks, measured in Chromium at phone and desktop sizes:
readable cards in long columns, free cells apart from foundations, and bars
that never cover the buttons."""

from __future__ import annotations

import json
import re
import urllib.request
from typing import Any

import pytest
from board_driver import (
    card_selector,
    open_game,
    open_menu,
    source_card,
    t,
    tap,
    wait_board,
    wait_held,
)
from conftest import PHONE, Server, screenshot
from test_board import stuck_klondike

from jielong.engine.cards import DECK

pytestmark = pytest.mark.browser

# The face-up cards of every column, each with the bottom of its corner
# index, its own bottom, and the top of the card that covers it.
READ_INDEXES = """() => {
  const board = document.getElementById("board").getBoundingClientRect();
  const out = [];
  for (const pile of document.querySelectorAll('#board [data-pile^="tableau:"]')) {
    const cards = [...pile.querySelectorAll(".card")];
    cards.forEach((card, i) => {
      if (!card.dataset.card) return;
      const box = card.getBoundingClientRect();
      const rankText = card.querySelector(".rank");
      const rank = rankText.getBoundingClientRect();
      const suit = card.querySelector(".index-suit").getBoundingClientRect();
      const next = cards[i + 1]?.getBoundingClientRect();
      out.push({
        card: card.dataset.card,
        indexBottom: Math.max(rank.bottom, suit.bottom),
        // the rank's baseline (face units of a 140-high face)
        baseline: box.top + (Number(rankText.getAttribute("y")) * box.height) / 140,
        suitBottom: suit.bottom,
        indexRight: Math.max(rank.right, suit.right),
        rankHeight: rank.height,
        top: box.top, right: box.right, bottom: box.bottom,
        coveredAt: next ? next.top : null,
        boardBottom: board.bottom, boardRight: board.right,
        court: Boolean(card.querySelector('use[href^="#court-"]')),
      });
    });
  }
  return out;
}"""


def long_klondike() -> str:
    """A column of six face-down cards under a whole K..2 run, and a second
    long column: the longest a Klondike column gets."""
    run = ["KS", "QH", "JC", "TD", "9S", "8H", "7C", "6D", "5S", "4H", "3C", "2D"]
    run2 = ["KH", "QS", "JD", "TC", "9H", "8S", "7D"]
    down = ["AS", "AH", "AC", "AD", "2S", "2H"]
    rest = [c.code() for c in DECK if c.code() not in run + run2 + down]
    lines = ["Stock: " + " ".join(rest[5:-3]), "Waste: " + " ".join(rest[-3:])]
    lines.append(": " + " ".join(down) + " | " + " ".join(run))
    lines.append(": " + " ".join(rest[:5]) + " | " + " ".join(run2))
    lines += [": |"] * 5
    return "\n".join(lines) + "\n"


def check_indexes(page: Any, label: str) -> None:
    cards = page.evaluate(READ_INDEXES)
    assert cards, label
    for c in cards:
        where = f"{label}: {c['card']}"
        # the corner index shows down to the rank's baseline (a long column
        # squeezes its fan that far: a J's hook may go under the next card)
        if c["coveredAt"] is not None:
            assert c["baseline"] <= c["coveredAt"] + 0.5, where
            assert c["suitBottom"] <= c["coveredAt"] + 0.5, where
        assert c["indexBottom"] <= c["bottom"] and c["indexRight"] <= c["right"] + 0.5, where
        # big enough to read, and the column stays on the board
        assert c["rankHeight"] >= 13, where
        assert c["bottom"] <= c["boardBottom"] + 0.5 and c["right"] <= c["boardRight"], where
        assert c["court"] == (c["card"][0] in "JQK"), where


def test_every_face_up_card_shows_its_whole_index(page: Any, server: Server, device: str) -> None:
    status, state = server.api(
        "POST", "/api/games", {"variant": "klondike-3", "position": long_klondike()}
    )
    assert status == 201, state
    sizes = (
        [(390, 844), (844, 390)] if device == "phone" else [(1280, 800), (1366, 768), (1920, 1080)]
    )
    for width, height in sizes:
        page.set_viewport_size({"width": width, "height": height})
        open_game(page, f"/play/klondike-3?game={state['id']}")
        check_indexes(page, f"long Klondike column at {width}x{height}")
        screenshot(page, f"looks-long-column-{width}x{height}")
        open_game(page, "/play/freecell?deal=1")
        check_indexes(page, f"FreeCell deal 1 at {width}x{height}")


@pytest.mark.parametrize("variant", ["freecell", "kongdang"])
def test_free_cells_and_foundations_are_told_apart(page: Any, device: str, variant: str) -> None:
    open_game(page, f"/play/{variant}?deal=1")
    boxes = page.evaluate(
        """() => [0, 1, 2, 3].flatMap((i) => ["cell", "foundation"].map((kind) => {
          const pile = document.querySelector(`[data-pile="${kind}:${i}"]`);
          const slot = getComputedStyle(pile.querySelector(".slot"));
          const mark = pile.querySelector(".mark use")?.getAttribute("href") || null;
          const r = pile.getBoundingClientRect();
          const border = slot.borderTopStyle;
          return {id: `${kind}:${i}`, left: r.left, right: r.right, border, mark};
        }))"""
    )
    at = {b["id"]: b for b in boxes}
    between_cells = at["cell:1"]["left"] - at["cell:0"]["right"]
    between_groups = at["foundation:0"]["left"] - at["cell:3"]["right"]
    # a gap that reads as two groups, and two different kinds of frame
    assert between_groups >= 2.5 * between_cells, (between_groups, between_cells)
    assert {at[f"cell:{i}"]["border"] for i in range(4)} == {"dashed"}
    assert {at[f"foundation:{i}"]["border"] for i in range(4)} == {"solid"}
    marks = [at[f"foundation:{i}"]["mark"] for i in range(4)]
    if variant == "kongdang":
        # fixed homes, left to right ♣ ♦ ♥ ♠
        assert marks == ["#suit-C", "#suit-D", "#suit-H", "#suit-S"]
    else:
        assert marks == [None] * 4
    screenshot(page, f"looks-{variant}-top-row-{device}")


def test_hint_bars_never_cover_the_action_buttons(page: Any, server: Server, device: str) -> None:
    status, stuck = server.api(
        "POST", "/api/games", {"variant": "klondike-1", "position": stuck_klondike(waste="3S")}
    )
    assert status == 201, stuck
    sizes = (
        [(390, 844), (844, 390)] if device == "phone" else [(1280, 800), (1366, 768), (1920, 1080)]
    )
    for width, height in sizes:
        page.set_viewport_size({"width": width, "height": height})
        for path, bar in (
            (f"/play/klondike-1?game={stuck['id']}", "#hintbar .bar.warn"),
            ("/play/freecell?deal=1", "#hintbar .bar.info"),
        ):
            open_game(page, path)
            page.locator('#actions button[data-act="hint"]').click()
            page.locator(bar).wait_for(timeout=20_000)
            shown = page.locator(bar).bounding_box()
            shown_buttons = "#actions button:visible, #more :is(button, a):visible"
            for button in page.locator(shown_buttons).all():
                box = button.bounding_box()
                overlap = min(shown["y"] + shown["height"], box["y"] + box["height"]) - max(
                    shown["y"], box["y"]
                )
                across = min(shown["x"] + shown["width"], box["x"] + box["width"]) - max(
                    shown["x"], box["x"]
                )
                assert overlap <= 0 or across <= 0, (width, height, path, box, shown)
            screenshot(page, f"looks-hintbar-{width}x{height}")


def test_a_wrong_deal_number_says_why_in_the_players_language(
    page: Any, server: Server, device: str
) -> None:
    # the server decides, whether the number comes as a number or as typed
    status, body = server.api_lang("POST", "/api/games", {"variant": "kongdang", "deal": "x"}, "en")
    assert (status, body["error"]["code"]) == (422, "bad_deal")
    english = body["error"]["message"]
    assert english == "A deal number is a whole number from 1 to 8,589,934,591"
    status, body = server.api("POST", "/api/games", {"variant": "kongdang", "deal": " 12 "})
    assert status == 201 and body["deal_id"] == "kongdang-12"
    status, body = server.api_lang(
        "POST", "/api/games", {"variant": "kongdang", "deal": 0}, "zh-Hant"
    )
    message = body["error"]["message"]
    assert message == "牌局編號是 1 到 8,589,934,591 之間的整數"

    # a wrong number in the address: its reason, and no other deal in its place
    page.goto("/play/kongdang?deal=0")
    problem = page.locator(".panel.problem")
    problem.wait_for()
    assert message in problem.inner_text()
    assert page.locator("#board[data-version]").count() == 0
    problem.locator('button[data-act="fresh"]').click()
    page.wait_for_selector("#board[data-version]")
    assert page.locator(".panel.problem").count() == 0

    # the deal box: the same reason for each wrong entry, the game unchanged;
    # answers that take a few frames redraw the menu while the player types
    # the next number, which stays as typed
    gid = open_game(page, "/play/kongdang?deal=7")
    open_menu(page, device)

    held: list[Any] = []
    page.route("**/api/games", lambda route: held.append(route))
    box = page.locator("#more .dealbox input")
    for typed in ("0", "-5", "abc", ""):
        box.fill(typed)
        box.press("Enter")
        # the menu is drawn again while the answer is awaited: the box keeps
        # what was typed, and the focus
        page.locator('#more button[data-act="new"][aria-busy="true"]').wait_for()
        assert box.input_value() == typed
        assert box.evaluate("(el) => el === document.activeElement")
        wait_held(page, held)
        held.pop().continue_()
        toast = page.locator("#toast.show")
        toast.wait_for()
        assert toast.inner_text() == message, typed
        assert box.evaluate("(el) => el.validationMessage") == ""
        page.evaluate("document.getElementById('toast').classList.remove('show')")
    assert page.locator("#board").get_attribute("data-game") == gid
    page.unroute("**/api/games")
    box.fill("1000001")
    box.press("Enter")
    page.wait_for_function("(g) => document.getElementById('board').dataset.game !== g", arg=gid)
    assert "kongdang-1000001" in page.locator("#status .deal-id").inner_text()

    # the home page's box goes to the table, which says the same
    page.goto("/")
    home_box = page.locator('form[action="/play/kongdang"] input[name="deal"]')
    home_box.fill("-5")
    home_box.press("Enter")
    page.locator(".panel.problem").wait_for()
    assert message in page.locator(".panel.problem").inner_text()


def test_display_choices_are_kept_in_the_browser(page: Any, device: str) -> None:
    page.emulate_media(color_scheme="dark")
    open_game(page, "/play/freecell?deal=1")
    felt = "() => getComputedStyle(document.body).backgroundColor"
    club = """() => getComputedStyle(document.querySelector('.card[data-card="2C"]')).color"""
    size = """() => {
      const card = document.querySelector('.card[data-card="2C"]');
      const width = card.getBoundingClientRect().width;
      const units = Number(card.querySelector('.rank').getAttribute('font-size'));
      return [width, (units * width) / 100];
    }"""
    # the system's dark scheme is followed until the player picks one
    assert page.evaluate(felt) == "rgb(15, 51, 35)"
    assert page.evaluate(club) == "rgb(26, 26, 26)"
    width, index = page.evaluate(size)
    page.locator("#settings-button").click()
    dialog = page.locator("#settings")
    dialog.locator('input[name="theme"][value="light"]').check()
    dialog.locator('input[name="fourColour"]').check()
    dialog.locator('input[name="large"]').check()
    page.keyboard.press("Escape")
    assert dialog.is_hidden()
    assert page.evaluate(felt) == "rgb(31, 107, 67)"
    assert page.evaluate(club) == "rgb(27, 122, 54)"
    page.wait_for_function(f"() => ({size})()[1] > {index} + 0.5")
    larger, _ = page.evaluate(size)
    if device == "desktop":
        assert larger > width + 5
    screenshot(page, f"looks-display-choices-{device}")
    # kept: the next page of this browser opens with them
    page.goto("/")
    assert page.evaluate("() => document.documentElement.dataset.theme") == "light"
    assert page.evaluate("() => document.documentElement.className") == "four-colour large-cards"
    page.locator("#settings-button").click()
    page.locator('#settings input[name="theme"][value="dark"]').check()
    assert (
        page.evaluate("() => getComputedStyle(document.body).backgroundColor") == "rgb(15, 17, 19)"
    )


def as_player(page: Any, server: Server) -> Any:
    """POST to the API as the browser's player, so the games are its own."""
    page.goto("/")
    cookie = next(c for c in page.context.cookies() if c["name"] == "jl_player")

    def call(path: str, body: object) -> dict[str, Any]:
        req = urllib.request.Request(
            server.base + path, data=json.dumps(body).encode(), method="POST"
        )
        req.add_header("Content-Type", "application/json")
        req.add_header("Cookie", f"jl_player={cookie['value']}")
        with urllib.request.urlopen(req, timeout=30) as r:
            answer: dict[str, Any] = json.loads(r.read())
            return answer

    return call


# The versions the board is drawn at, one entry per rebuild of its cards.
COUNT_REBUILDS = """() => {
  const board = document.getElementById("board");
  window.rebuilt = [];
  const note = () => window.rebuilt.push(board.dataset.version);
  new MutationObserver(note).observe(board, { childList: true });
}"""


def test_a_win_cascades_and_the_statistics_show_it(page: Any, server: Server, device: str) -> None:
    from jielong.engine.rules.registry import rules_for
    from jielong.engine.solve.api import solve

    result = solve("freecell", rules_for("freecell").deal(1), max_seconds=20)
    if result.status != "solved":
        pytest.skip(f"the own solver did not solve deal 1 in time ({result.status})")
    call = as_player(page, server)
    game = call("/api/games", {"variant": "freecell", "deal": 1})
    for move in result.moves[:-1]:
        body = {"version": game["version"], "type": "move", **move.to_json()}
        game = call(f"/api/games/{game['id']}/actions", body)
    last = result.moves[-1]
    open_game(page, f"/play/freecell?game={game['id']}")
    assert page.locator("a.stats-link").get_attribute("href") == "/stats#freecell"
    code = source_card(game, str(last.src), 1)
    tap(page, device, card_selector(str(last.src), code))
    cascade = page.locator(".cascade")
    cascade.wait_for()
    page.wait_for_function("() => document.querySelectorAll('.cascade .card').length >= 8")
    screenshot(page, f"looks-win-cascade-{device}")
    # a tap skips it, and the win panel is there
    tap(page, device, ".cascade .skip")
    cascade.wait_for(state="detached")
    assert page.locator(".panel.win").is_visible()

    # with reduced motion preferred the same win shows no cascade
    page.emulate_media(reduced_motion="reduce")
    page.evaluate(COUNT_REBUILDS)
    page.keyboard.press("u")
    page.locator(".panel.win").wait_for(state="detached")
    wait_board(page, game["version"] + 2)
    # the bars change height with the undo (at phone size); the board is laid
    # out for that once, not rebuilt again a frame later under the finger
    page.wait_for_timeout(300)
    assert page.evaluate("window.rebuilt").count(str(game["version"] + 2)) == 1
    tap(page, device, card_selector(str(last.src), code))
    page.locator(".panel.win").wait_for()
    page.wait_for_timeout(300)
    assert page.locator(".cascade").count() == 0

    # the statistics page: the win, its time and moves, and the latest results
    won = server.game(game["id"])
    second = call("/api/games", {"variant": "freecell", "deal": 2})
    # a game counts from its first move
    first = {"version": 1, "type": "move", **second["moves"][0]}
    call(f"/api/games/{second['id']}/actions", first)
    call("/api/games", {"variant": "freecell", "deal": 3})
    page.goto("/stats#freecell")
    section = page.locator('section[data-variant="freecell"]')
    figure = lambda name: section.locator(f'[data-figure="{name}"] dd').inner_text()  # noqa: E731
    assert figure("played") == "2" and figure("won") == "1" and figure("rate") == "50%"
    assert figure("streak") == "1" and figure("bestStreak") == "1"
    assert figure("fewestMoves") == str(won["counters"]["moves"])
    # won twice (the undo above), the faster time counts
    seconds = won["counters"]["elapsed_ms"] // 1000
    best = figure("bestTime")
    assert (
        re.fullmatch(r"\d+:\d\d", best)
        and int(best.replace(":", "")) <= seconds // 60 * 100 + seconds % 60
    )
    # the latest games, newest first: date, deal, result, moves, time
    rows = section.locator("table.recent tbody tr")
    assert rows.count() == 2
    cells = rows.nth(1).locator("td").all_inner_texts()
    assert cells[1:4] == ["freecell-1", t("stats.result.won"), str(won["counters"]["moves"])]
    assert re.fullmatch(r"\d{4}-\d\d-\d\d", cells[0]) and re.fullmatch(r"\d+:\d\d", cells[4])
    assert rows.nth(0).locator("td.result").inner_text() == t("stats.result.playing")
    other = page.locator('section[data-variant="kongdang"]')
    assert other.locator('[data-figure="played"] dd').inner_text() == "0"
    screenshot(page, f"looks-statistics-{device}")
    # and the home page leads there
    page.goto("/")
    assert page.locator("a.stats-link").get_attribute("href") == "/stats"


def test_home_page_invites_play(page: Any, server: Server, device: str) -> None:
    from test_board import deal_with_tableau_move, move_json

    call = as_player(page, server)
    tiles = page.locator("li.game")
    assert tiles.count() == 4
    # all four games on one screen, each with its picture, today's deal and streak
    height = page.viewport_size["height"]
    for i in range(4):
        tile = tiles.nth(i)
        box = tile.bounding_box()
        assert box["y"] + box["height"] <= height, tile.get_attribute("data-variant")
        assert tile.locator("svg.mini").count() == 1
        assert tile.locator("a.daily").get_attribute("data-state") == "new"
        assert tile.locator(".streak").inner_text() == "連勝 0"
    assert page.locator("a.continue").count() == 0
    screenshot(page, f"looks-home-{device}")

    # a daily deal begun, and a game with a move made
    page.goto("/play/kongdang?daily=1")
    page.wait_for_selector("#board[data-version]")
    number, move = deal_with_tableau_move("freecell")
    game = call("/api/games", {"variant": "freecell", "deal": number})
    body = {"version": game["version"], "type": "move", **move_json(move)}
    call(f"/api/games/{game['id']}/actions", body)
    page.goto("/")
    daily = page.locator('li.game[data-variant="kongdang"] a.daily')
    assert daily.get_attribute("data-state") == "playing"
    assert daily.locator(".state").inner_text() == "進行中"
    first = page.locator("main.home > a, main.home > ul").first
    assert first.get_attribute("class") == "continue"
    assert first.get_attribute("data-variant") == "freecell"
    screenshot(page, f"looks-home-continue-{device}")
    first.click()
    page.wait_for_selector(f'#board[data-game="{game["id"]}"]')


# Each page's width beyond the screen's, and the header's parts that end
# past its right edge.
OVERFLOW = """() => {
  const width = document.documentElement.clientWidth;
  const out = [];
  for (const el of document.querySelectorAll("header.top a, header.top button")) {
    const box = el.getBoundingClientRect();
    if (box.width && box.right > width + 0.5) out.push(el.textContent.trim());
  }
  return { extra: document.documentElement.scrollWidth - width, past: out };
}"""


@pytest.mark.parametrize("lang", ["zh-Hant", "zh-Hans", "en"])
def test_no_page_is_wider_than_a_phone(browser: Any, server: Server, lang: str) -> None:
    # the narrowest phones in use are 320 CSS pixels wide; English labels are the longest
    for width in (320, 390):
        phone = dict(PHONE, viewport={"width": width, "height": 700})
        context = browser.new_context(base_url=server.base, **phone)
        page = context.new_page()
        for path in ("/", "/stats", "/rules/klondike-3", "/play/klondike-3", "/play/freecell"):
            page.goto(f"{path}?lang={lang}")
            if path.startswith("/play/"):
                wait_board(page)
            found = page.evaluate(OVERFLOW)
            assert found == {"extra": 0, "past": []}, (width, path, found)
        # the language switch is in the Display dialog there, whole names and all
        page.locator("#settings-button").click()
        links = page.locator("#settings .langs a")
        assert [links.nth(i).inner_text() for i in range(3)] == ["繁體中文", "简体中文", "English"]
        screenshot(page, f"phone-header-{lang}-{width}")
        context.close()
