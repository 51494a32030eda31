"""Driving the table page: opening games, reading the drawn board, gestures."""

from __future__ import annotations

import json
import time
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

from jielong.engine.rules.core import Move
from jielong.engine.rules.registry import rules_for

VARIANTS = ("klondike-3", "klondike-1", "freecell", "kongdang")

# Every card at home but the kings: one move each to finish.
NEAR_END = {
    "klondike": "Foundations: QC QD QH QS\n: | KC\n: | KD\n: | KH\n: | KS\n: |\n: |\n: |\n",
    "freecell": "Foundations: C-Q D-Q H-Q S-Q\nKC\nKD\nKH\nKS\n:\n:\n:\n:\n",
}

I18N = Path(__file__).resolve().parents[2] / "jielong" / "web" / "i18n"


@cache
def texts(lang: str) -> dict[str, Any]:
    result: dict[str, Any] = json.loads((I18N / f"ui.{lang}.json").read_text(encoding="utf-8"))
    return result


def t(key: str, lang: str = "zh-Hant", **values: object) -> str:
    text: str = texts(lang)[key]
    for name, value in values.items():
        text = text.replace("{" + name + "}", str(value))
    return text


@cache
def deal_with_tableau_move(variant: str) -> tuple[int, Move]:
    """A deal whose opening offers a one-card move between two tableau piles,
    found with the rules core (so each test plays a real, known move)."""
    rules = rules_for(variant)
    for number in range(1, 500):
        for move in rules.legal_moves(rules.deal(number)):
            if move.src.kind == "tableau" and move.dst.kind == "tableau" and move.count == 1:
                return number, move
    raise AssertionError(f"no deal of {variant} opens with a tableau move")


def move_json(move: Move) -> dict[str, Any]:
    return {"from": str(move.src), "to": str(move.dst), "count": move.count}


READ_BOARD = """() => {
  const board = document.getElementById("board");
  const cards = (pile) => [...board.querySelectorAll(`[data-pile="${pile}"] .card`)];
  const up = (pile) => cards(pile).filter((c) => c.dataset.card).map((c) => c.dataset.card);
  const out = {version: Number(board.dataset.version), tableau: [], foundations: []};
  for (let i = 0; board.querySelector(`[data-pile="tableau:${i}"]`); i++) {
    const id = `tableau:${i}`;
    out.tableau.push({down: cards(id).filter((c) => !c.dataset.card).length, up: up(id)});
  }
  for (let i = 0; i < 4; i++) out.foundations.push(up(`foundation:${i}`)[0] || null);
  if (board.querySelector('[data-pile="cell:0"]')) {
    out.cells = [0, 1, 2, 3].map((i) => up(`cell:${i}`)[0] || null);
  }
  if (board.querySelector('[data-pile="stock"]')) {
    const badge = board.querySelector('[data-pile="stock"] .badge');
    out.stock = badge ? Number(badge.textContent) : 0;
    out.waste = up("waste");
  }
  return out;
}"""


def expected_board(state: dict[str, Any]) -> dict[str, Any]:
    """What the page must show for a server state (the waste fans its last three)."""
    pos = state["position"]
    out: dict[str, Any] = {
        "version": state["version"],
        "tableau": [{"down": p["down"], "up": p["up"]} for p in pos["tableau"]],
        "foundations": pos["foundations"],
    }
    if pos.get("cells") is not None:
        out["cells"] = pos["cells"]
    if pos.get("stock") is not None:
        out["stock"] = pos["stock"]
        out["waste"] = pos["waste"][-3:]
    return out


def game_id(page: Any) -> str:
    found: str = parse_qs(urlparse(page.url).query)["game"][0]
    return found


def wait_board(page: Any, version: int | None = None, game: str | None = None) -> None:
    """Wait until the board shows ``version`` (of ``game``, when given: a new
    game starts at the version the one before may still show)."""
    selector = "#board[data-version]" if version is None else f'#board[data-version="{version}"]'
    if game is not None:
        selector += f'[data-game="{game}"]'
    # not a position drawn ahead of the server's answer
    selector += ":not([data-pending])"
    page.wait_for_selector(selector, state="attached")
    # cards glide for a moment after each redraw; gestures aim at where they land
    page.wait_for_function("() => document.getAnimations().every((a) => a.playState !== 'running')")


def wait_held(page: Any, held: list[Any], settle_ms: int = 0) -> int:
    """How many requests a route holds once one has come (10 s at most),
    and ``settle_ms`` more for any extra one. The page may send a request
    after what the test waited for, and the test hears of a request only
    while it waits on the page, so a count read at once can be short."""
    deadline = time.monotonic() + 10
    while not held and time.monotonic() < deadline:
        page.wait_for_timeout(20)
    if settle_ms:
        page.wait_for_timeout(settle_ms)
    return len(held)


def open_game(page: Any, path: str) -> str:
    page.goto(path)
    wait_board(page)
    page.wait_for_function("() => location.search.includes('game=')")
    return game_id(page)


def read_board(page: Any) -> dict[str, Any]:
    result: dict[str, Any] = page.evaluate(READ_BOARD)
    return result


def centre(page: Any, selector: str) -> tuple[float, float]:
    # a redraw replaces every card: one that went between finding the card
    # and measuring it is found again in the new board (redraws that are
    # not needed are caught where they happen, see test_looks.py)
    box = None
    for _ in range(3):
        box = page.locator(selector).last.bounding_box()
        if box is not None:
            break
        page.wait_for_timeout(50)
    assert box is not None, selector
    # the upper part of a card: the part that shows when cards are fanned
    return box["x"] + box["width"] / 2, box["y"] + min(box["height"] / 2, 12)


def card_selector(pile: str, code: str | None = None) -> str:
    inner = f'.card[data-card="{code}"]' if code else ".card[data-card]"
    return f'[data-pile="{pile}"] {inner}'


def pile_selector(pile: str) -> str:
    return f'[data-pile="{pile}"] > .slot'


def source_card(state: dict[str, Any], pile: str, count: int) -> str:
    """The code of the first card a move of ``count`` cards from ``pile`` takes."""
    pos = state["position"]
    kind, _, index = pile.partition(":")
    if kind == "tableau":
        up: list[str] = pos["tableau"][int(index)]["up"]
        return up[len(up) - count]
    if kind == "waste":
        top: str = pos["waste"][-1]
        return top
    if kind == "cell":
        cell: str = pos["cells"][int(index)]
        return cell
    found: str = pos["foundations"][int(index)]
    return found


def tap(page: Any, device: str, selector: str) -> None:
    x, y = centre(page, selector)
    if device == "phone":
        page.touchscreen.tap(x, y)
    else:
        page.mouse.click(x, y)


class Touch:
    """Touch gestures through the DevTools protocol (Playwright offers taps only)."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.cdp = page.context.new_cdp_session(page)

    def _send(self, kind: str, x: float, y: float) -> None:
        points = [] if kind == "touchEnd" else [{"x": x, "y": y, "id": 1}]
        self.cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

    def down(self, x: float, y: float) -> None:
        self._send("touchStart", x, y)

    def move(self, x0: float, y0: float, x1: float, y1: float, steps: int = 8) -> None:
        for i in range(1, steps + 1):
            self._send("touchMove", x0 + (x1 - x0) * i / steps, y0 + (y1 - y0) * i / steps)

    def up(self, x: float, y: float) -> None:
        self._send("touchEnd", x, y)


def drag(page: Any, device: str, start: tuple[float, float], end: tuple[float, float]) -> None:
    """Drag from ``start`` to ``end``. A press held still for the page's long
    press opens the run overlay instead; on a loaded machine the first move can
    reach the page that late. Such a gesture is closed (the overlay's lift
    only selects, and Escape clears that) and made again."""
    for _ in range(3):
        if _drag_once(page, device, start, end):
            return
        page.keyboard.press("Escape")
        page.locator(".run-overlay").wait_for(state="detached")
    raise AssertionError(f"every drag from {start} became a long press")


def _drag_once(
    page: Any, device: str, start: tuple[float, float], end: tuple[float, float]
) -> bool:
    touch = Touch(page) if device == "phone" else None
    first = (start[0] + (end[0] - start[0]) / 8, start[1] + (end[1] - start[1]) / 8)
    if touch:
        touch.down(*start)
        touch.move(*start, *first, steps=1)
    else:
        page.mouse.move(*start)
        page.mouse.down()
        page.mouse.move(*first)
    # the first move has reached the page: the press is a drag by now, or
    # the long press has fired and its overlay is open
    long_press = page.locator(".run-overlay").count() > 0
    if touch:
        touch.move(*first, *end, steps=7)
        touch.up(*end)
    else:
        page.mouse.move(*end, steps=7)
        page.mouse.up()
    return not long_press


def open_menu(page: Any, device: str) -> None:
    """Open the action bar's menu where it is one (phones); on a wide screen
    its contents are in the bar already."""
    if device == "phone" and page.locator("#more.open").count() == 0:
        tap(page, device, "#actions .more-toggle")
        page.locator("#more.open").wait_for()
