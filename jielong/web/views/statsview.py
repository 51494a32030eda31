"""The player's statistics: the figures /api/stats answers with, and the
statistics page drawn from the same figures."""

from __future__ import annotations

from html import escape
from typing import Literal, TypedDict

from jielong.engine.rules.variants import VARIANTS
from jielong.store import Store

RECENT = 20


class Result(TypedDict):
    """One of the latest games: how it ended, and the win's time and moves."""

    result: Literal["won", "lost", "playing"]
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
    and the latest results oldest first (``won``; ``lost`` for a game left
    for a newer one; ``playing`` for the latest game not won yet)."""
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
            "recent": [
                {
                    "result": "won" if ms is not None else "playing" if i == last else "lost",
                    "time_ms": ms,
                    "moves": moves,
                }
                for i, (ms, moves) in enumerate(results)
            ],
        }
    return out


def clock(ms: int | None) -> str:
    if ms is None:
        return "—"
    s = ms // 1000
    h, m = divmod(s // 60, 60)
    return f"{h}:{m:02}:{s % 60:02}" if h else f"{m}:{s % 60:02}"


def chart(recent: list[Result], t: dict[str, str]) -> str:
    """The latest results as a row of bars: a win stands tall, a game left
    unwon short, the game in progress as an outline."""
    if not recent:
        return f'<p class="chart-empty">{escape(t["stats.noGames"])}</p>'
    width = 12 * RECENT
    bars = []
    for i, r in enumerate(recent):
        x = 12 * i
        kind = r["result"]
        height = {"won": 36, "lost": 12, "playing": 24}[kind]
        label = t["stats.result." + kind]
        if kind == "won":
            label += f" · {clock(r['time_ms'])} · {r['moves']}"
        bars.append(
            f'<rect class="{kind}" x="{x + 1}" y="{40 - height}" width="10" height="{height}"'
            f' rx="2"><title>{escape(label)}</title></rect>'
        )
    summary = escape(
        t["stats.recentSummary"].format(
            n=len(recent), won=sum(r["result"] == "won" for r in recent)
        )
    )
    return (
        f'<svg class="chart" viewBox="0 0 {width} 40" role="img" aria-label="{summary}">'
        f"{''.join(bars)}</svg>"
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
        f"<h3>{escape(t['stats.recent'])}</h3>{chart(row['recent'], t)}</section>"
    )
