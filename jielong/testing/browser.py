"""Debian's Chromium for Playwright, and the app under uvicorn in a thread."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from jielong.testing.processes import free_port
from jielong.web.app import Settings, create_app

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Playwright

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
)


def chromium_installed() -> bool:
    return Path(CHROMIUM).exists()


def launch_chromium(playwright: Playwright) -> Browser:
    """A headless Chromium from a ``sync_playwright()`` context."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=list(CHROMIUM_ARGS))


class AppThread:
    """The app with ``settings`` served by uvicorn on a free local port, in a
    daemon thread of this process; ``base`` is its address once entered."""

    def __init__(self, settings: Settings, *, timeout: float = 30.0) -> None:
        import uvicorn

        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(
            create_app(settings),
            host="127.0.0.1",
            port=self.port,
            log_level="warning",
            lifespan="on",
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, daemon=True)
        self._timeout = timeout

    def __enter__(self) -> AppThread:
        self._thread.start()
        deadline = time.monotonic() + self._timeout
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                self._server.should_exit = True
                raise RuntimeError("the app did not start")
            time.sleep(0.05)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)
