"""Persistence: games, their undo steps, statistics and the deals kept, in
SQLite (the default) or PostgreSQL.

``games`` is the store itself, ``rows`` a stored game, ``kept`` the daily and
winnable deals every process agrees on, ``tables`` every table and its SQL,
``upgrade`` the upgrade of older databases and ``dbapi`` the raw connections
of the fast path (the statements an action runs, past SQLAlchemy's core).
"""

from jielong.store.games import Store, default_url, normalise_url
from jielong.store.kept import (
    insert_once,
    keep_daily_deal,
    kept_daily_deal,
    record_winnable_deal,
    winnable_deal_known,
)
from jielong.store.rows import GameRecord, StaleVersion, new_game_id

__all__ = [
    "GameRecord",
    "StaleVersion",
    "Store",
    "default_url",
    "insert_once",
    "keep_daily_deal",
    "kept_daily_deal",
    "new_game_id",
    "normalise_url",
    "record_winnable_deal",
    "winnable_deal_known",
]
