"""Draw the app icons (PNG) from ``jielong/web/static/img/icon.svg`` with
Debian's Chromium: the sizes a home screen asks for, and a "maskable" one
whose picture stays inside the circle a launcher may cut it to.

    python scripts/icons.py     # rewrites jielong/web/static/img/icon-*.png
"""

from __future__ import annotations

import base64
from pathlib import Path

from playwright.sync_api import sync_playwright

from jielong.testing.browser import launch_chromium

IMG = Path(__file__).resolve().parent.parent / "jielong" / "web" / "static" / "img"
# the table's felt green, as the manifest's theme colour
BACKGROUND = "#1d5c3a"
ICONS = {
    # name: (size, maskable)
    "icon-192.png": (192, False),
    "icon-512.png": (512, False),
    "icon-maskable-512.png": (512, True),
    "apple-touch-icon.png": (180, True),
}


def page_html(svg: str, size: int, maskable: bool) -> str:
    data = base64.b64encode(svg.encode()).decode()
    # a maskable icon keeps its picture within the middle 80% (the safe zone)
    inner = int(size * 0.7) if maskable else size
    background = BACKGROUND if maskable else "transparent"
    return (
        f"<html><body style='margin:0;width:{size}px;height:{size}px;background:{background};"
        "display:flex;align-items:center;justify-content:center'>"
        f"<img src='data:image/svg+xml;base64,{data}' width='{inner}' height='{inner}'>"
        "</body></html>"
    )


def main() -> None:
    svg = (IMG / "icon.svg").read_text(encoding="utf-8")
    with sync_playwright() as p:
        browser = launch_chromium(p)
        for name, (size, maskable) in ICONS.items():
            page = browser.new_page(viewport={"width": size, "height": size})
            page.set_content(page_html(svg, size, maskable))
            page.screenshot(path=str(IMG / name), omit_background=not maskable)
            page.close()
            print(f"wrote {IMG / name}")
        browser.close()


if __name__ == "__main__":
    main()
