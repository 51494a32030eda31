"""The store's tables and the SQL of a game's actions.

The schema is created by the toolkit (:data:`metadata`); the statements an
action runs are written once here, in the driver's parameter style, and run
by :mod:`jielong.store` on the driver's own connections (:mod:`jielong.store.dbapi`
says why).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypedDict

import sqlalchemy as sa

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
    # the moves on the board now (what the statistics' latest games show), and
    # whether the demo played in the game: its win is then not the player's
    sa.Column("moves", sa.Integer, nullable=False, server_default="0"),
    sa.Column("demo", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Index("games_player_variant", "player", "variant", "created_ms"),
)

# the undo stack: step ``idx`` (0 = the first) of a game, pushed by the
# action that made version ``pushed``; an undo deletes its row, and a draw
# that closes a pure loop of stock turns the loop's rows (the step it came
# back to is written again with the loop in it)
game_steps = sa.Table(
    "game_steps",
    metadata,
    sa.Column("game", sa.String(64), primary_key=True),
    sa.Column("idx", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("pushed", sa.Integer, nullable=False),
    sa.Column("step", sa.Text, nullable=False),
    sa.Index("game_steps_pushed", "game", "pushed"),
)

# statistics per player and variant (games from a deal with a move made;
# custom positions do not count, nor is a game the demo played in a win).
# ``latest`` is the player's newest game in the variant: starting another
# one while it is not won ends the streak.
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

# deals dealt as winnable ("winnable deals only"; jielong.web.services.winnable)
winnable_deals = sa.Table(
    "winnable_deals",
    metadata,
    sa.Column("variant", sa.String(32), primary_key=True),
    sa.Column("deal", sa.String(24), primary_key=True),  # text, as in games
)

# the daily deal of each variant and date as this database first served it
# (jielong.web.services.daily)
daily_deals = sa.Table(
    "daily_deals",
    metadata,
    sa.Column("variant", sa.String(32), primary_key=True),
    sa.Column("date", sa.String(10), primary_key=True),
    sa.Column("deal", sa.String(24), nullable=False),  # text, as in games
)


class GameRow(TypedDict):
    """A row of ``games`` as the driver reads it."""

    id: str
    player: str | None
    variant: str
    deal: str | None
    start_text: str | None
    daily: str | None
    version: int
    depth: int
    last: str | None
    elapsed_ms: int
    running_since: int | None
    created_ms: int
    updated_ms: int
    won_ms: int | None
    won_moves: int | None
    moves: int
    demo: bool


GAME_COLUMNS = tuple(c.name for c in games.columns)
# what an action changes in a game's row
UPDATED_COLUMNS = (
    "version",
    "depth",
    "last",
    "elapsed_ms",
    "running_since",
    "updated_ms",
    "won_ms",
    "won_moves",
    "moves",
    "demo",
)
# a game of the statistics' latest games (one with a move made)
RECENT_COLUMNS = ("created_ms", "deal", "moves", "elapsed_ms", "won_ms", "won_moves", "demo")
STATS_COLUMNS = ("games", "wins", "best_time_ms", "best_moves", "streak", "best_streak")


_NAME = re.compile(r"(?<![:\w]):([a-z_]+)")


@dataclass(frozen=True)
class Named:
    """A statement with named parameters (``:name``), sent in the driver's
    positional style: :meth:`bind` puts the values in the statement's order."""

    text: str
    names: tuple[str, ...]

    def bind(self, values: Mapping[str, object]) -> tuple[object, ...]:
        return tuple(values[name] for name in self.names)


class Queries:
    """The statements of an action, in the driver's parameter style."""

    def __init__(self, placeholder: str) -> None:
        def sql(text: str) -> str:
            return " ".join(text.split()).replace("?", placeholder)

        def named(text: str) -> Named:
            flat = " ".join(text.split())
            names = tuple(_NAME.findall(flat))
            return Named(_NAME.sub(lambda _name: placeholder, flat), names)

        self.select_game = sql(f"SELECT {', '.join(GAME_COLUMNS)} FROM games WHERE id = ?")
        self.select_steps = sql(
            "SELECT idx, pushed, step FROM game_steps WHERE game = ? AND pushed > ? ORDER BY idx"
        )
        update_game = f"""UPDATE games SET {", ".join(f"{c} = :{c}" for c in UPDATED_COLUMNS)}
            WHERE id = :id AND version = :expected_version"""
        self.update_game = named(update_game)
        # PostgreSQL: an action's whole write as one statement (its own
        # transaction), one round trip instead of four
        self.update_and_push = named(
            f"""WITH changed AS ({update_game} RETURNING id)
            INSERT INTO game_steps (game, idx, pushed, step)
            SELECT id, :idx, :version, :step FROM changed"""
        )
        self.update_and_pop = named(
            f"""WITH changed AS ({update_game} RETURNING id)
            DELETE FROM game_steps WHERE game IN (SELECT id FROM changed) AND idx = :idx"""
        )
        self.insert_step = sql(
            "INSERT INTO game_steps (game, idx, pushed, step) VALUES (?, ?, ?, ?)"
        )
        self.delete_steps = sql("DELETE FROM game_steps WHERE game = ? AND idx >= ?")
        self.find_daily = sql(
            """SELECT id FROM games WHERE player = ? AND variant = ? AND daily = ?
            ORDER BY created_ms DESC LIMIT 1"""
        )
        self.version_of = sql("SELECT version FROM games WHERE id = ?")
        self.stats = sql(
            f"SELECT variant, {', '.join(STATS_COLUMNS)} FROM player_stats "
            "WHERE player = ? ORDER BY variant"
        )
        self.recent = sql(
            f"""SELECT {", ".join(RECENT_COLUMNS)} FROM games
            WHERE player = ? AND variant = ? AND deal IS NOT NULL AND (version > 1 OR moves > 0)
            ORDER BY created_ms DESC, id DESC LIMIT ?"""
        )
        self.latest_unfinished = sql(
            """SELECT id, variant FROM games
            WHERE player = ? AND won_ms IS NULL AND version > 1
            ORDER BY updated_ms DESC LIMIT 1"""
        )
        self.insert_game = sql(
            f"INSERT INTO games ({', '.join(GAME_COLUMNS)}) "
            f"VALUES ({', '.join('?' for _ in GAME_COLUMNS)})"
        )
        self.update_clock = sql(
            "UPDATE games SET elapsed_ms = ?, running_since = ? WHERE id = ? AND version = ?"
        )
        # one more game; the streak ends if the latest game was not won
        self.count_game = sql(
            """INSERT INTO player_stats (player, variant, games, wins, streak, best_streak,
            latest, latest_won) VALUES (?, ?, 1, 0, 0, 0, ?, ?)
            ON CONFLICT (player, variant) DO UPDATE SET games = player_stats.games + 1,
            streak = CASE WHEN player_stats.latest_won THEN player_stats.streak ELSE 0 END,
            latest = excluded.latest, latest_won = excluded.latest_won"""
        )
        self.count_win = named(
            """UPDATE player_stats SET wins = wins + 1,
            best_time_ms = CASE WHEN best_time_ms IS NULL OR best_time_ms > :won_ms
                THEN :won_ms ELSE best_time_ms END,
            best_moves = CASE WHEN best_moves IS NULL OR best_moves > :won_moves
                THEN :won_moves ELSE best_moves END,
            streak = CASE WHEN latest = :game THEN streak + 1 ELSE streak END,
            best_streak = CASE WHEN latest = :game AND streak + 1 > best_streak
                THEN streak + 1 ELSE best_streak END,
            latest_won = latest_won OR latest = :game
            WHERE player = :player AND variant = :variant"""
        )
