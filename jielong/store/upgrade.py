"""Bring a database written by an earlier version of the store up to date.

Earlier, a game row held its whole undo stack as one JSON document (column
``steps``), rewritten by every action, and statistics were computed by
reading all of a player's games.  The upgrade moves each game's steps into
``game_steps`` rows, fills ``player_stats`` from the games, and drops the
old column, in one transaction.

Later still, a game counted in the statistics when it was dealt, and a win
the demo played counted as the player's.  A game now counts from its first
move: the upgrade adds the ``moves`` and ``demo`` columns and takes the
games never moved out of the counts (which demo played a game before is not
known).

A step's JSON may now carry ``loops`` and ``turns`` (a pure loop of stock
turns cut from the stack) and be of kind ``loop``; a step stored before has
neither and reads as it did, so there is nothing to upgrade.
"""

from __future__ import annotations

import json
from typing import TypedDict

import sqlalchemy as sa
from sqlalchemy.engine import Engine


class _StatsRow(TypedDict):
    """A ``player_stats`` row being filled."""

    player: str
    variant: str
    games: int
    wins: int
    best_time_ms: int | None
    best_moves: int | None
    streak: int
    best_streak: int
    latest: str
    latest_won: bool


def upgrade(engine: Engine, game_steps: sa.Table, player_stats: sa.Table) -> None:
    """Upgrade the database of ``engine`` in place, filling the store's
    ``game_steps`` and ``player_stats`` tables (given by the store, which
    imports this module)."""
    columns = {c["name"] for c in sa.inspect(engine).get_columns("games")}
    if "steps" in columns:
        _steps_in_rows(engine, game_steps, player_stats)
    _count_from_first_move(engine)


def _count_from_first_move(engine: Engine) -> None:
    if "demo" in {c["name"] for c in sa.inspect(engine).get_columns("games")}:
        return
    try:
        with engine.begin() as conn:
            conn.exec_driver_sql("ALTER TABLE games ADD COLUMN moves INTEGER NOT NULL DEFAULT 0")
            conn.exec_driver_sql("ALTER TABLE games ADD COLUMN demo BOOLEAN NOT NULL DEFAULT FALSE")
            # the steps on the undo stack: the moves, but for a restart's step
            conn.exec_driver_sql("UPDATE games SET moves = depth")
            conn.exec_driver_sql(
                """UPDATE player_stats SET games = games - (SELECT COUNT(*) FROM games
                WHERE games.player = player_stats.player AND games.variant = player_stats.variant
                AND games.deal IS NOT NULL AND games.version = 1 AND games.depth = 0)"""
            )
    except sa.exc.DBAPIError:
        # another process upgraded it meanwhile
        if "demo" not in {c["name"] for c in sa.inspect(engine).get_columns("games")}:
            raise


def _steps_in_rows(engine: Engine, game_steps: sa.Table, player_stats: sa.Table) -> None:
    try:
        with engine.begin() as conn:
            conn.exec_driver_sql("ALTER TABLE games ADD COLUMN depth INTEGER NOT NULL DEFAULT 0")
            rows = conn.exec_driver_sql(
                "SELECT id, player, variant, deal, won_ms, won_moves, steps FROM games "
                "ORDER BY created_ms, id"
            ).all()
            latest: dict[tuple[str, str], _StatsRow] = {}
            for game_id, player, variant, deal, won_ms, won_moves, steps in rows:
                stack = json.loads(steps)["steps"]
                if stack:
                    conn.execute(
                        game_steps.insert(),
                        [
                            {"game": game_id, "idx": i, "pushed": 0, "step": json.dumps(step)}
                            for i, step in enumerate(stack)
                        ],
                    )
                    conn.execute(
                        sa.text("UPDATE games SET depth = :depth WHERE id = :id"),
                        {"depth": len(stack), "id": game_id},
                    )
                if player is not None and deal is not None:
                    _count(latest, player, variant, game_id, won_ms, won_moves)
            if latest:
                conn.execute(player_stats.insert(), list(latest.values()))
            conn.exec_driver_sql("ALTER TABLE games DROP COLUMN steps")
    except sa.exc.DBAPIError:
        # another process upgraded it meanwhile
        columns = {c["name"] for c in sa.inspect(engine).get_columns("games")}
        if "steps" in columns:
            raise


def _count(
    latest: dict[tuple[str, str], _StatsRow],
    player: str,
    variant: str,
    game_id: str,
    won_ms: int | None,
    won_moves: int | None,
) -> None:
    """Add one game (in the order they were created) to the player's row."""
    row = latest.setdefault(
        (player, variant),
        {
            "player": player,
            "variant": variant,
            "games": 0,
            "wins": 0,
            "best_time_ms": None,
            "best_moves": None,
            "streak": 0,
            "best_streak": 0,
            "latest": game_id,
            "latest_won": True,
        },
    )
    row["games"] += 1
    if not row["latest_won"]:
        row["streak"] = 0
    row["latest"], row["latest_won"] = game_id, won_ms is not None
    if won_ms is not None:
        row["wins"] += 1
        row["streak"] += 1
        row["best_streak"] = max(row["best_streak"], row["streak"])
        best_ms = row["best_time_ms"]
        if best_ms is None or won_ms < best_ms:
            row["best_time_ms"] = won_ms
        best_moves = row["best_moves"]
        if won_moves is not None and (best_moves is None or won_moves < best_moves):
            row["best_moves"] = won_moves
