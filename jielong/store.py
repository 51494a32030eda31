"""Persistence of games: SQLite (WAL) by default, PostgreSQL by URL.

A game row holds explicit JSON (the undo steps as pile ids and counts), never
pickle.  Writes are compare-and-set on the game's version inside one
transaction (``UPDATE ... WHERE id = ? AND version = ?``), so of two writers
that read the same version exactly one wins, whichever process or machine
they run on.  Statistics are derived from the games themselves, so they can
never disagree with them.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import secrets
import threading
from collections import OrderedDict
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from jielong.session import Replay, Session, Step

metadata = sa.MetaData()

games = sa.Table(
    "games",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("player", sa.String(64), nullable=True),
    sa.Column("variant", sa.String(32), nullable=False),
    # text: Klondike deal numbers run past the range of a 64-bit integer
    sa.Column("deal", sa.String(24), nullable=True),
    sa.Column("start_text", sa.Text, nullable=True),
    sa.Column("daily", sa.String(10), nullable=True),
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("steps", sa.Text, nullable=False),
    sa.Column("last", sa.Text, nullable=True),
    sa.Column("elapsed_ms", sa.BigInteger, nullable=False),
    sa.Column("running_since", sa.BigInteger, nullable=True),
    sa.Column("created_ms", sa.BigInteger, nullable=False),
    sa.Column("updated_ms", sa.BigInteger, nullable=False),
    sa.Column("won_ms", sa.BigInteger, nullable=True),
    sa.Column("won_moves", sa.Integer, nullable=True),
    sa.Index("games_player_variant", "player", "variant", "created_ms"),
)

# deals dealt as winnable ("winnable deals only"; jielong.web.winnable)
winnable_deals = sa.Table(
    "winnable_deals",
    metadata,
    sa.Column("variant", sa.String(32), primary_key=True),
    sa.Column("deal", sa.String(24), primary_key=True),  # text, as in games
)

# the daily deal of each variant and date as this database first served it
# (jielong.web.daily)
daily_deals = sa.Table(
    "daily_deals",
    metadata,
    sa.Column("variant", sa.String(32), primary_key=True),
    sa.Column("date", sa.String(10), primary_key=True),
    sa.Column("deal", sa.String(24), nullable=False),  # text, as in games
)


def insert_once(engine: Engine, table: sa.Table, **values: Any) -> None:
    """Insert a row unless a row with its key is there already (then that
    one stands, whoever wrote it)."""
    try:
        with engine.begin() as conn:
            conn.execute(table.insert().values(**values))
    except sa.exc.IntegrityError:
        pass


def default_url() -> str:
    from platformdirs import user_data_dir

    directory = Path(user_data_dir("jielong"))
    directory.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{directory / 'jielong.sqlite3'}"


def normalise_url(url: str) -> str:
    """Use the psycopg 3 driver for plain ``postgresql://`` URLs."""
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def new_game_id() -> str:
    """A private game id: 144 random bits, URL-safe (24 characters)."""
    return secrets.token_urlsafe(18)


@dataclass
class GameRecord:
    """A stored game: its id, owner, version and the session it holds."""

    id: str
    version: int
    session: Session
    player: str | None = None
    created_ms: int = 0
    updated_ms: int = 0


class StaleVersion(Exception):
    """The game changed since it was read; ``current`` is how it is now."""

    def __init__(self, current: GameRecord | None) -> None:
        super().__init__("stale version")
        self.current = current


REPLAY_CACHE_SIZE = 256
"""Games whose replayed positions are kept in memory, keyed by version."""


class Store:
    def __init__(self, url: str | None = None, *, pool_size: int = 10) -> None:
        self.url = normalise_url(url or default_url())
        # A game's id and version name its steps exactly, so their replayed
        # positions can be reused instead of replaying them on every request.
        self._replays: OrderedDict[tuple[str, int], Replay] = OrderedDict()
        self._replays_lock = threading.Lock()
        # SQLite lets one writer in at a time and makes the others sleep and
        # retry; queueing this process's writers on a lock is much faster.
        self._write_lock: threading.Lock | contextlib.nullcontext[None] = contextlib.nullcontext()
        sa_url = sa.make_url(self.url)
        self.dialect = sa_url.get_backend_name()
        if self.dialect == "sqlite":
            database = sa_url.database
            if database and database != ":memory:":
                Path(database).parent.mkdir(parents=True, exist_ok=True)
            self.engine: Engine = sa.create_engine(
                self.url, connect_args={"timeout": 30, "check_same_thread": False}
            )
            sa.event.listen(self.engine, "connect", _sqlite_pragmas)
            self._write_lock = threading.Lock()
        else:
            self.engine = sa.create_engine(
                self.url, pool_size=pool_size, max_overflow=pool_size, pool_pre_ping=True
            )
        metadata.create_all(self.engine)

    def close(self) -> None:
        self.engine.dispose()

    # -- games --------------------------------------------------------------

    def create(self, session: Session, player: str | None, now: int) -> GameRecord:
        record = GameRecord(new_game_id(), 1, session, player, now, now)
        with self._write_lock, self.engine.begin() as conn:
            conn.execute(games.insert().values(id=record.id, **_row(record)))
        return record

    def load(self, game_id: str) -> GameRecord | None:
        with self.engine.connect() as conn:
            row = conn.execute(games.select().where(games.c.id == game_id)).mappings().first()
        return None if row is None else self._record(row)

    def _record(self, row: Any) -> GameRecord:
        key = (row["id"], row["version"])
        with self._replays_lock:
            replayed = self._replays.get(key)
            if replayed is not None:
                self._replays.move_to_end(key)
        record = _record_from_row(row, replayed)
        if replayed is None:
            self._remember(record)
        return record

    def _remember(self, record: GameRecord) -> None:
        with self._replays_lock:
            self._replays[(record.id, record.version)] = record.session.replay()
            while len(self._replays) > REPLAY_CACHE_SIZE:
                self._replays.popitem(last=False)

    def save(self, record: GameRecord, expected_version: int, now: int) -> GameRecord:
        """Write ``record`` as version ``expected_version + 1`` if the stored
        game is still at ``expected_version``; else raise :class:`StaleVersion`."""
        saved = replace(record, version=expected_version + 1, updated_ms=now)
        values = _row(saved)
        with self._write_lock, self.engine.begin() as conn:
            result = conn.execute(
                games.update()
                .where(games.c.id == record.id, games.c.version == expected_version)
                .values(**values)
            )
            if result.rowcount != 1:
                row = conn.execute(games.select().where(games.c.id == record.id)).mappings().first()
                raise StaleVersion(None if row is None else self._record(row))
        self._remember(saved)
        return saved

    def save_clock(self, record: GameRecord) -> bool:
        """Write only the clock, if the game is still at ``record.version``
        (the version does not change: the position did not)."""
        with self._write_lock, self.engine.begin() as conn:
            result = conn.execute(
                games.update()
                .where(games.c.id == record.id, games.c.version == record.version)
                .values(
                    elapsed_ms=record.session.elapsed_ms,
                    running_since=record.session.running_since,
                )
            )
        return bool(result.rowcount == 1)

    def find_daily(self, player: str, variant: str, date: dt.date) -> GameRecord | None:
        """The player's game of the daily deal of ``date``, if they began it."""
        query = (
            games.select()
            .where(
                games.c.player == player,
                games.c.variant == variant,
                games.c.daily == date.isoformat(),
            )
            .order_by(games.c.created_ms.desc())
            .limit(1)
        )
        with self.engine.connect() as conn:
            row = conn.execute(query).mappings().first()
        return None if row is None else self._record(row)

    def version_of(self, game_id: str) -> int | None:
        with self.engine.connect() as conn:
            value = conn.execute(
                sa.select(games.c.version).where(games.c.id == game_id)
            ).scalar_one_or_none()
        return None if value is None else int(value)

    # -- statistics ---------------------------------------------------------

    def stats(self, player: str) -> dict[str, dict[str, int | None]]:
        """Per variant: games, wins, best time and moves, current and best
        streak.  Custom positions do not count; a game that is not the
        player's latest in its variant and was never won breaks a streak."""
        query = (
            sa.select(games.c.variant, games.c.won_ms, games.c.won_moves)
            .where(games.c.player == player, games.c.deal.is_not(None))
            .order_by(games.c.variant, games.c.created_ms, games.c.id)
        )
        with self.engine.connect() as conn:
            rows = conn.execute(query).all()
        by_variant: dict[str, list[tuple[int | None, int | None]]] = {}
        for variant, won_ms, won_moves in rows:
            by_variant.setdefault(variant, []).append((won_ms, won_moves))
        return {variant: _variant_stats(results) for variant, results in by_variant.items()}


def _variant_stats(results: list[tuple[int | None, int | None]]) -> dict[str, int | None]:
    wins = [(ms, moves) for ms, moves in results if ms is not None]
    best_streak = streak = 0
    for i, (ms, _) in enumerate(results):
        if ms is not None:
            streak += 1
            best_streak = max(best_streak, streak)
        elif i < len(results) - 1:
            streak = 0  # given up: a newer game was started
    return {
        "games": len(results),
        "wins": len(wins),
        "best_time_ms": min((ms for ms, _ in wins if ms is not None), default=None),
        "best_moves": min((mv for _, mv in wins if mv is not None), default=None),
        "streak": streak,
        "best_streak": best_streak,
    }


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")  # an accepted action survives a crash
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.close()


def _row(record: GameRecord) -> dict[str, Any]:
    s = record.session
    return {
        "player": record.player,
        "variant": s.variant.id,
        "deal": None if s.deal is None else str(s.deal),
        "start_text": s.start_text,
        "daily": None if s.daily is None else s.daily.isoformat(),
        "version": record.version,
        "steps": json.dumps({"format": 1, "steps": [step.to_json() for step in s.steps]}),
        "last": None if s.last is None else json.dumps(s.last),
        "elapsed_ms": s.elapsed_ms,
        "running_since": s.running_since,
        "created_ms": record.created_ms,
        "updated_ms": record.updated_ms,
        "won_ms": s.won_ms,
        "won_moves": s.won_moves,
    }


def _record_from_row(row: Any, replayed: Replay | None = None) -> GameRecord:
    steps = []
    if replayed is None:
        steps = [Step.from_json(item) for item in json.loads(row["steps"])["steps"]]
    session = Session(
        row["variant"],
        deal=None if row["deal"] is None else int(row["deal"]),
        start_text=row["start_text"],
        daily=None if row["daily"] is None else dt.date.fromisoformat(row["daily"]),
        steps=steps,
        elapsed_ms=row["elapsed_ms"],
        running_since=row["running_since"],
        won_ms=row["won_ms"],
        won_moves=row["won_moves"],
        last=None if row["last"] is None else json.loads(row["last"]),
        replayed=replayed,
    )
    return GameRecord(
        row["id"], row["version"], session, row["player"], row["created_ms"], row["updated_ms"]
    )
