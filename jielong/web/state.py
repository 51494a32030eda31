"""What the app holds, as one typed object: its settings, the store and the
services its routes share.

:func:`jielong.web.app.create_app` makes one :class:`AppState` and sets it as
the app's ``state``; a route reads it by :func:`app_state` (typed), never by
untyped attributes of its own.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from fastapi import Request
from starlette.datastructures import State

from jielong.store import Store
from jielong.web.http.storage import Outage
from jielong.web.services.costly import CostlyWork
from jielong.web.services.daily import DailyDeals
from jielong.web.services.growth import CreationLimit
from jielong.web.services.hintgate import HintGate
from jielong.web.services.hintpool import HintPool
from jielong.web.services.winnable import WinnableDeals, WinnablePool


@dataclass(frozen=True)
class Settings:
    database: str | None = None
    """SQLAlchemy URL; ``None``: SQLite under the user's data directory."""
    hint_workers: int = 2
    hint_queue: int = 8
    hint_seconds: float = 2.0
    docs: bool = False
    """Serve FastAPI's interactive docs at /docs (they load scripts from a CDN)."""
    expire_days: float = 30.0
    """Unfinished games untouched this long are deleted (0: kept for ever)."""

    @classmethod
    def from_env(cls) -> Settings:
        env = os.environ
        return cls(
            database=env.get("JIELONG_DATABASE") or None,
            hint_workers=int(env.get("JIELONG_HINT_WORKERS", "2")),
            hint_queue=int(env.get("JIELONG_HINT_QUEUE", "8")),
            hint_seconds=float(env.get("JIELONG_HINT_SECONDS", "2.0")),
            docs=env.get("JIELONG_DOCS") == "1",
            expire_days=float(env.get("JIELONG_EXPIRE_DAYS", "30")),
        )

    def to_env(self) -> dict[str, str]:
        env = {
            "JIELONG_HINT_WORKERS": str(self.hint_workers),
            "JIELONG_HINT_QUEUE": str(self.hint_queue),
            "JIELONG_HINT_SECONDS": str(self.hint_seconds),
            "JIELONG_DOCS": "1" if self.docs else "0",
            "JIELONG_EXPIRE_DAYS": str(self.expire_days),
        }
        if self.database:
            env["JIELONG_DATABASE"] = self.database
        return env


class AppState(State):
    """The app's ``state``: Starlette's, with these attributes, all set at
    creation.  A test may swap one for a differently tuned copy."""

    settings: Settings
    store: Store
    hints: HintPool
    """The hint workers' pool."""
    hint_gate: HintGate
    """Who may ask for a hint now."""
    creation_limit: CreationLimit
    costly: CostlyWork
    """Places for work that costs a solver run (daily deals, analyses)."""
    winnable: WinnablePool
    """The thread that finds winnable Klondike deals."""
    winnable_deals: WinnableDeals
    """The winnable deals found and kept."""
    daily_deals: DailyDeals
    storage_outage: Outage

    def __init__(
        self,
        *,
        settings: Settings,
        store: Store,
        hints: HintPool,
        winnable: WinnablePool,
        daily_deals: DailyDeals,
        storage_outage: Outage,
    ) -> None:
        super().__init__()
        self.settings = settings
        self.store = store
        self.hints = hints
        self.hint_gate = HintGate()
        self.creation_limit = CreationLimit()
        self.costly = CostlyWork()
        self.winnable = winnable
        self.winnable_deals = WinnableDeals(store.engine)
        self.daily_deals = daily_deals
        self.storage_outage = storage_outage


def app_state(where: Request | object) -> AppState:
    """What the app of ``where`` (a request, or the app itself, such as a
    test client's) holds."""
    app = where.app if isinstance(where, Request) else where
    state = getattr(app, "state", None)
    assert isinstance(state, AppState), "an app made by jielong.web.app.create_app"
    return state
