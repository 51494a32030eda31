"""Persistence of games: SQLite (WAL) by default, PostgreSQL by URL.

A game is a row of its own (deal, version, clock, win) plus one row per undo
step on its stack, each explicit JSON (pile ids and counts), never pickle.
An action writes only what it changed: the game row's small columns and the
step it pushed (or the removal of the step it undid), so its cost does not
grow with the game's length.  Writes are compare-and-set on the game's
version inside one transaction (``UPDATE ... WHERE id = ? AND version = ?``),
so of two writers that read the same version exactly one wins, whichever
process or machine they run on.  Statistics are an aggregate per player and
variant, updated in the transaction that creates or wins a game.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import secrets
import threading
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection, Engine

from jielong.optional import require
from jielong.session import Frame, Session, Step, common_frame

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
    sa.Column("depth", sa.Integer, nullable=False),  # steps on the undo stack
    sa.Column("last", sa.Text, nullable=True),
    sa.Column("elapsed_ms", sa.BigInteger, nullable=False),
    sa.Column("running_since", sa.BigInteger, nullable=True),
    sa.Column("created_ms", sa.BigInteger, nullable=False),
    sa.Column("updated_ms", sa.BigInteger, nullable=False),
    sa.Column("won_ms", sa.BigInteger, nullable=True),
    sa.Column("won_moves", sa.Integer, nullable=True),
    sa.Index("games_player_variant", "player", "variant", "created_ms"),
)

# the undo stack: step ``idx`` (0 = the first) of a game, pushed by the
# action that made version ``pushed``; an undo deletes its row
game_steps = sa.Table(
    "game_steps",
    metadata,
    sa.Column("game", sa.String(64), primary_key=True),
    sa.Column("idx", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("pushed", sa.Integer, nullable=False),
    sa.Column("step", sa.Text, nullable=False),
    sa.Index("game_steps_pushed", "game", "pushed"),
)

# statistics per player and variant (games from a deal; custom positions do
# not count).  ``latest`` is the player's newest game in the variant: starting
# another one while it is not won ends the streak.
player_stats = sa.Table(
    "player_stats",
    metadata,
    sa.Column("player", sa.String(64), primary_key=True),
    sa.Column("variant", sa.String(32), primary_key=True),
    sa.Column("games", sa.Integer, nullable=False),
    sa.Column("wins", sa.Integer, nullable=False),
    sa.Column("best_time_ms", sa.BigInteger, nullable=True),
    sa.Column("best_moves", sa.Integer, nullable=True),
    sa.Column("streak", sa.Integer, nullable=False),
    sa.Column("best_streak", sa.Integer, nullable=False),
    sa.Column("latest", sa.String(64), nullable=False),
    sa.Column("latest_won", sa.Boolean, nullable=False),
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
    # the undo stack and win as stored at ``version``: a save writes the
    # difference between them and the session's
    stored_top: Frame | None = field(default=None, repr=False)
    stored_won: bool = False


class StaleVersion(Exception):
    """The game changed since it was read; ``current`` is how it is now."""

    def __init__(self, current: GameRecord | None) -> None:
        super().__init__("stale version")
        self.current = current


REPLAY_CACHE_SIZE = 1024
"""Games whose replayed undo stacks are kept in memory."""


class Store:
    def __init__(self, url: str | None = None, *, pool_size: int = 10) -> None:
        self.url = normalise_url(url or default_url())
        # A game's replayed undo stack at its latest version seen here: a read
        # at that version needs no step, a read at a later one only the steps
        # pushed since (another process may have served those actions).
        self._replays: OrderedDict[str, tuple[int, Frame]] = OrderedDict()
        self._replays_lock = threading.Lock()
        # SQLite lets one writer in at a time and makes the others sleep and
        # retry; queueing this process's writers on a lock is much faster.
        self._write_lock: threading.Lock | contextlib.nullcontext[None] = contextlib.nullcontext()
        sa_url = sa.make_url(self.url)
        self.dialect = sa_url.get_backend_name()
        if self.dialect == "postgresql":
            require("postgres")  # a clear message rather than the driver's import error
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
        from jielong.store_upgrade import upgrade

        upgrade(self.engine)

    def close(self) -> None:
        self.engine.dispose()

    # -- games --------------------------------------------------------------

    def create(self, session: Session, player: str | None, now: int) -> GameRecord:
        record = GameRecord(new_game_id(), 1, session, player, now, now)
        root = session.top.root
        with self._write_lock, self.engine.begin() as conn:
            conn.execute(games.insert().values(id=record.id, **_row(record)))
            self._write_steps(conn, record.id, 1, root, session.top)
            if player is not None and session.deal is not None:
                conn.execute(self._stats_new_game(player, session.variant.id, record.id))
                if session.won_ms is not None:
                    conn.execute(_stats_win(player, record.id, session))
        record.stored_top, record.stored_won = session.top, session.won_ms is not None
        self._remember(record.id, record.version, session.top)
        return record

    def load(self, game_id: str) -> GameRecord | None:
        with self.engine.connect() as conn:
            return self._load(conn, games.c.id == game_id)

    def _load(self, conn: Connection, where: Any) -> GameRecord | None:
        """The game the query finds, its undo stack replayed (or taken from
        memory).  The game row and its step rows are read by two statements:
        a write between them is caught by the steps' versions, and read again."""
        for _ in range(20):
            row = conn.execute(games.select().where(where).limit(1)).mappings().first()
            if row is None:
                return None
            top = self._stack(conn, row["id"], row["version"], row["depth"], row)
            if top is not None:
                return _record_from_row(row, top)
            with self._replays_lock:
                self._replays.pop(row["id"], None)  # read it all again
        raise RuntimeError("a game kept changing while it was read")

    def _stack(
        self, conn: Connection, game_id: str, version: int, depth: int, row: Any
    ) -> Frame | None:
        """The undo stack at ``version``, or None if the step rows read are
        of another version."""
        with self._replays_lock:
            cached = self._replays.get(game_id)
            if cached is not None:
                self._replays.move_to_end(game_id)
        if cached is not None and cached[0] == version:
            return cached[1]
        query = sa.select(game_steps.c.idx, game_steps.c.pushed, game_steps.c.step).where(
            game_steps.c.game == game_id
        )
        since = None if cached is None or cached[0] > version else cached[0]
        if since is not None:
            # only the steps pushed since: the ones below them are the same
            query = query.where(game_steps.c.pushed > since)
        rows = conn.execute(query.order_by(game_steps.c.idx)).all()
        first = rows[0].idx if rows else (depth if since is not None else 0)
        if [r.idx for r in rows] != list(range(first, depth)) or any(
            r.pushed > version for r in rows
        ):
            return None  # steps written after the game row was read
        if cached is not None and since is not None:
            if cached[1].depth < first:
                return None
            base = cached[1].at_depth(first)
        else:
            base = _session_root(row)
        session = Session(
            row["variant"],
            deal=None if row["deal"] is None else int(row["deal"]),
            start_text=row["start_text"],
            replayed=base,
            steps=[Step.from_json(json.loads(r.step)) for r in rows],
        )
        self._remember(game_id, version, session.top)
        return session.top

    def _remember(self, game_id: str, version: int, top: Frame) -> None:
        with self._replays_lock:
            cached = self._replays.get(game_id)
            if cached is None or cached[0] <= version:
                self._replays[game_id] = (version, top)
                self._replays.move_to_end(game_id)
            while len(self._replays) > REPLAY_CACHE_SIZE:
                self._replays.popitem(last=False)

    def _write_steps(
        self, conn: Connection, game_id: str, version: int, stored: Frame, top: Frame
    ) -> None:
        """Make the stored stack ``stored`` into ``top``: delete the steps
        undone, insert the steps pushed (tagged with ``version``)."""
        common = common_frame(stored, top)
        if stored.depth > common.depth:
            conn.execute(
                game_steps.delete().where(
                    game_steps.c.game == game_id, game_steps.c.idx >= common.depth
                )
            )
        frame: Frame | None = top
        pushed = []
        while frame is not None and frame is not common:
            assert frame.step is not None
            pushed.append(
                {
                    "game": game_id,
                    "idx": frame.depth - 1,
                    "pushed": version,
                    "step": json.dumps(frame.step.to_json(), separators=(",", ":")),
                }
            )
            frame = frame.below
        if pushed:
            pushed.reverse()
            conn.execute(game_steps.insert(), pushed)

    def save(self, record: GameRecord, expected_version: int, now: int) -> GameRecord:
        """Write ``record`` as version ``expected_version + 1`` if the stored
        game is still at ``expected_version``; else raise :class:`StaleVersion`."""
        session = record.session
        version = expected_version + 1
        saved = replace(record, version=version, updated_ms=now)
        stored = record.stored_top or session.top.root
        won = session.won_ms is not None
        with self._write_lock, self.engine.begin() as conn:
            result = conn.execute(
                games.update()
                .where(games.c.id == record.id, games.c.version == expected_version)
                .values(**_row(saved))
            )
            if result.rowcount != 1:
                current = self._load(conn, games.c.id == record.id)
                raise StaleVersion(current)
            self._write_steps(conn, record.id, version, stored, session.top)
            if won and not record.stored_won and record.player and session.deal is not None:
                conn.execute(_stats_win(record.player, record.id, session))
        saved.stored_top, saved.stored_won = session.top, won
        self._remember(record.id, version, session.top)
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
        where = sa.and_(
            games.c.player == player,
            games.c.variant == variant,
            games.c.daily == date.isoformat(),
        )
        with self.engine.connect() as conn:
            # the newest, should there be two
            newest = conn.execute(
                sa.select(games.c.id).where(where).order_by(games.c.created_ms.desc()).limit(1)
            ).scalar_one_or_none()
            return None if newest is None else self._load(conn, games.c.id == newest)

    def version_of(self, game_id: str) -> int | None:
        with self.engine.connect() as conn:
            value = conn.execute(
                sa.select(games.c.version).where(games.c.id == game_id)
            ).scalar_one_or_none()
        return None if value is None else int(value)

    # -- statistics ---------------------------------------------------------

    def stats(self, player: str) -> dict[str, dict[str, int | None]]:
        """Per variant: games, wins, best time and moves, current and best
        streak (one row per variant, whatever the number of games)."""
        query = sa.select(
            player_stats.c.variant,
            player_stats.c.games,
            player_stats.c.wins,
            player_stats.c.best_time_ms,
            player_stats.c.best_moves,
            player_stats.c.streak,
            player_stats.c.best_streak,
        ).where(player_stats.c.player == player)
        with self.engine.connect() as conn:
            rows = conn.execute(query).mappings().all()
        return {
            row["variant"]: {k: v for k, v in row.items() if k != "variant"}
            for row in sorted(rows, key=lambda r: str(r["variant"]))
        }

    def _stats_new_game(self, player: str, variant: str, game_id: str) -> Any:
        """One more game; the streak ends if the player's latest game in the
        variant was not won."""
        insert = (postgresql.insert if self.dialect == "postgresql" else sqlite.insert)(
            player_stats
        )
        return insert.values(
            player=player,
            variant=variant,
            games=1,
            wins=0,
            streak=0,
            best_streak=0,
            latest=game_id,
            latest_won=False,
        ).on_conflict_do_update(
            index_elements=[player_stats.c.player, player_stats.c.variant],
            set_={
                "games": player_stats.c.games + 1,
                "streak": sa.case((player_stats.c.latest_won, player_stats.c.streak), else_=0),
                "latest": game_id,
                "latest_won": False,
            },
        )


def _stats_win(player: str, game_id: str, session: Session) -> Any:
    """A game's first win: one more win, the bests, and the streak if it is
    the player's latest game (winning an older one does not mend a streak
    that starting a newer one ended)."""
    s = player_stats.c
    ms, moves = session.won_ms, session.won_moves
    latest = s.latest == game_id
    return (
        player_stats.update()
        .where(s.player == player, s.variant == session.variant.id)
        .values(
            wins=s.wins + 1,
            best_time_ms=sa.case(
                (s.best_time_ms.is_(None), ms), (s.best_time_ms > ms, ms), else_=s.best_time_ms
            ),
            best_moves=sa.case(
                (s.best_moves.is_(None), moves), (s.best_moves > moves, moves), else_=s.best_moves
            ),
            streak=sa.case((latest, s.streak + 1), else_=s.streak),
            best_streak=sa.case(
                (sa.and_(latest, s.streak + 1 > s.best_streak), s.streak + 1),
                else_=s.best_streak,
            ),
            latest_won=sa.case((latest, sa.true()), else_=s.latest_won),
        )
    )


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
        "depth": s.top.depth,
        "last": None if s.last is None else json.dumps(s.last),
        "elapsed_ms": s.elapsed_ms,
        "running_since": s.running_since,
        "created_ms": record.created_ms,
        "updated_ms": record.updated_ms,
        "won_ms": s.won_ms,
        "won_moves": s.won_moves,
    }


def _session_root(row: Any) -> Frame:
    """The bottom of a game's undo stack: its start position, dealt or parsed."""
    session = Session(
        row["variant"],
        deal=None if row["deal"] is None else int(row["deal"]),
        start_text=row["start_text"],
    )
    return session.top


def _record_from_row(row: Any, top: Frame) -> GameRecord:
    session = Session(
        row["variant"],
        deal=None if row["deal"] is None else int(row["deal"]),
        start_text=row["start_text"],
        daily=None if row["daily"] is None else dt.date.fromisoformat(row["daily"]),
        elapsed_ms=row["elapsed_ms"],
        running_since=row["running_since"],
        won_ms=row["won_ms"],
        won_moves=row["won_moves"],
        last=None if row["last"] is None else json.loads(row["last"]),
        replayed=top,
    )
    return GameRecord(
        row["id"],
        row["version"],
        session,
        row["player"],
        row["created_ms"],
        row["updated_ms"],
        stored_top=top,
        stored_won=row["won_ms"] is not None,
    )
