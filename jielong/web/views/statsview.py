"""The player's statistics: the figures /api/stats answers with, and the
statistics page drawn from the same figures."""

from __future__ import annotations

import datetime as dt
from html import escape
from typing import Any, Literal, TypedDict

from jielong.engine.rules.variants import VARIANTS
from jielong.store import Store

RECENT = 20


class Result(TypedDict):
    """One of the latest games: when it was dealt (UTC date), its deal, how
    it ended (``demo``: the demo played in it and it was won), its moves and
    time (the win's, or as it was left)."""

    date: str
    deal: str
    result: Literal["won", "demo", "lost", "playing"]
    time_ms: int | None
    moves: int | None


class Figures(TypedDict):
    """A player's figures in one variant."""

    games: int
    wins: int
    best_time_ms: int | None
    best_moves: int | None
    streak: int
    best_streak: int
    recent: list[Result]


def player_stats(store: Store, player: str) -> dict[str, Figures]:
    """Per variant: games, wins, best time and moves, current and best streak,
    and the latest games with a move made, oldest first (``won``; ``demo``
    for one the demo played in and won; ``lost`` for a game left for a
    newer one; ``playing`` for the latest game not won yet)."""
    found = store.stats(player)
    recent = store.recent(player, list(VARIANTS), RECENT)
    out: dict[str, Figures] = {}
    for v in VARIANTS:
        row = found.get(v, {})
        results = recent.get(v, [])
        last = len(results) - 1
        out[v] = {
            # the counts are never NULL in a stored row
            "games": row.get("games") or 0,
            "wins": row.get("wins") or 0,
            "best_time_ms": row.get("best_time_ms"),
            "best_moves": row.get("best_moves"),
            "streak": row.get("streak") or 0,
            "best_streak": row.get("best_streak") or 0,
            "recent": [_result(v, game, i == last) for i, game in enumerate(results)],
        }
    return out


def _result(variant: str, game: dict[str, Any], latest: bool) -> Result:
    won = game["won_ms"] is not None
    result: Literal["won", "demo", "lost", "playing"]
    result = ("demo" if game["demo"] else "won") if won else "playing" if latest else "lost"
    date = dt.datetime.fromtimestamp(game["created_ms"] / 1000, dt.UTC).date()
    return {
        "date": date.isoformat(),
        "deal": f"{variant}-{game['deal']}",
        "result": result,
        "time_ms": game["won_ms"] if won else game["elapsed_ms"],
        "moves": game["won_moves"] if won else game["moves"],
    }


def clock(ms: int | None) -> str:
    if ms is None:
        return "—"
    s = ms // 1000
    h, m = divmod(s // 60, 60)
    return f"{h}:{m:02}:{s % 60:02}" if h else f"{m}:{s % 60:02}"


def recent_table(recent: list[Result], t: dict[str, str]) -> str:
    """The latest games, newest first, as a table: date, deal, result,
    moves and time."""
    if not recent:
        return f'<p class="chart-empty">{escape(t["stats.noGames"])}</p>'
    heads = "".join(
        f'<th scope="col">{escape(t["stats.col." + c])}</th>'
        for c in ("date", "deal", "result", "moves", "time")
    )
    rows = []
    for r in reversed(recent):
        kind = r["result"]
        deal = escape(r["deal"])
        rows.append(
            f'<tr class="{kind}"><td>{r["date"]}</td>'
            f"<td>{deal}</td>"
            f'<td class="result">{escape(t["stats.result." + kind])}</td>'
            f'<td class="num">{"—" if r["moves"] is None else r["moves"]}</td>'
            f'<td class="num">{clock(r["time_ms"])}</td></tr>'
        )
    summary = escape(
        t["stats.recentSummary"].format(
            n=len(recent), won=sum(r["result"] == "won" for r in recent)
        )
    )
    return (
        f'<div class="recent-wrap"><table class="recent"><caption class="sr-only">{summary}'
        f"</caption><thead><tr>{heads}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )


def stats_body(figures: dict[str, Figures], t: dict[str, str]) -> str:
    return (
        f'<main class="stats"><h1>{escape(t["stats.title"])}</h1>'
        + "".join(section(v, figures[v], t) for v in VARIANTS)
        + "</main>"
    )


def section(variant: str, row: Figures, t: dict[str, str]) -> str:
    games, wins = row["games"], row["wins"]
    rate = f"{round(100 * wins / games)}%" if games else "—"
    moves = "—" if row["best_moves"] is None else str(row["best_moves"])
    figures = [
        ("played", str(games)),
        ("won", str(wins)),
        ("rate", rate),
        ("streak", str(row["streak"])),
        ("bestStreak", str(row["best_streak"])),
        ("bestTime", clock(row["best_time_ms"])),
        ("fewestMoves", moves),
    ]
    items = "".join(
        f'<div class="figure" data-figure="{key}"><dt>{escape(t["stats." + key])}</dt>'
        f"<dd>{escape(value)}</dd></div>"
        for key, value in figures
    )
    name = escape(t["variant." + variant])
    return (
        f'<section class="stats-game" id="{variant}" data-variant="{variant}">'
        f'<h2><a href="/play/{variant}">{name}</a></h2><dl class="figures">{items}</dl>'
        f"<h3>{escape(t['stats.recent'])}</h3>{recent_table(row['recent'], t)}</section>"
    )
