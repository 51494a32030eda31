"""The home page's pieces: a small picture of each game's table, and what
the player has going (the game to continue, today's deal, the streak)."""

from __future__ import annotations

from html import escape

from jielong.store import GameRecord

# one face-down and one face-up card, drawn once per page and reused
MINI_DEFS = (
    '<svg class="mini-defs" width="0" height="0" aria-hidden="true"><defs>'
    '<symbol id="mini-back" viewBox="0 0 14 20"><rect x=".5" y=".5" width="13" height="19"'
    ' rx="2" fill="#1b4f8c" stroke="#fff"/></symbol>'
    '<symbol id="mini-red" viewBox="0 0 14 20"><rect x=".5" y=".5" width="13" height="19"'
    ' rx="2" fill="#fff" stroke="#999" stroke-width=".5"/><circle cx="4.5" cy="4.5" r="2"'
    ' fill="#c62828"/></symbol>'
    '<symbol id="mini-black" viewBox="0 0 14 20"><rect x=".5" y=".5" width="13" height="19"'
    ' rx="2" fill="#fff" stroke="#999" stroke-width=".5"/><circle cx="4.5" cy="4.5" r="2"'
    ' fill="#1a1a1a"/></symbol>'
    "</defs></svg>"
)


def _card(kind: str, x: float, y: float) -> str:
    return f'<use href="#mini-{kind}" x="{x:g}" y="{y:g}" width="14" height="20"/>'


def _slot(x: float, y: float, home: bool) -> str:
    style = (
        'stroke="#ffd54f" stroke-opacity=".7"'
        if home
        else 'stroke="#fff" stroke-opacity=".4" stroke-dasharray="2 1.5"'
    )
    return f'<rect x="{x:g}" y="{y:g}" width="14" height="20" rx="2" fill="none" {style}/>'


def mini_table(family: str) -> str:
    """A 160 x 100 picture of a game's opening table."""
    parts = ['<rect width="160" height="100" rx="8" fill="#1f6b43"/>']
    if family == "klondike":
        parts.append(_card("back", 10, 8))
        parts.append(_card("red", 28, 8))
        parts.extend(_slot(82 + 18 * i, 8, True) for i in range(4))
        for i in range(7):
            x = 10 + 20.3 * i
            parts.extend(_card("back", x, 36 + 4 * k) for k in range(i))
            parts.append(_card("red" if i % 2 else "black", x, 36 + 4 * i))
    else:
        parts.extend(_slot(6 + 17 * i, 8, False) for i in range(4))
        parts.extend(_slot(86 + 17 * i, 8, True) for i in range(4))
        for i in range(8):
            x = 7 + 18.4 * i
            rows = 5 if i < 4 else 4
            parts.extend(
                _card("red" if (i + k) % 2 else "black", x, 36 + 8 * k) for k in range(rows)
            )
    return (
        '<svg class="mini" viewBox="0 0 160 100" aria-hidden="true" focusable="false">'
        f"{''.join(parts)}</svg>"
    )


def daily_state(found: GameRecord | None) -> str:
    """``new``, ``playing`` or ``won`` for the player's game of today's deal."""
    if found is None:
        return "new"
    return "won" if found.session.won_ms is not None else "playing"


def continue_banner(latest: tuple[str, str] | None, t: dict[str, str]) -> str:
    if latest is None:
        return ""
    game_id, variant = latest
    name = escape(t["variant." + variant])
    return (
        f'<a class="continue" href="/play/{variant}?game={escape(game_id)}"'
        f' data-variant="{variant}">'
        f'<span class="label">{escape(t["home.continue"])}</span>'
        f'<span class="what">{name}</span></a>'
    )
