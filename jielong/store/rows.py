"""A stored game as the store hands it out, and its row in the games table."""

from __future__ import annotations

import datetime as dt
import json
import secrets
from dataclasses import dataclass, field

import orjson

from jielong.engine.rules.core import Move
from jielong.session import LAST_TYPES, STEP_KINDS, Frame, Last, LastType, Session
from jielong.store.tables import GameRow


def new_game_id() -> str:
    """A private game id: 144 random bits, URL-safe (24 characters)."""
    return secrets.token_urlsafe(18)


@dataclass(kw_only=True)
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
    # the demo played a move in this game: a win of it is not the player's
    demo: bool = False


class StaleVersion(Exception):
    """An action on another version of the game than the stored one (it was
    asked of an older one, or the game changed since it was read);
    ``current`` is how it is now, ``None`` when it is gone."""

    def __init__(self, current: GameRecord | None) -> None:
        super().__init__("stale version")
        self.current = current


def json_text(value: object) -> str:
    """A step or an answer's ``last`` as stored: JSON text by orjson (a tenth
    of the standard encoder's cost), or by the standard one for what orjson
    refuses (integers past 64 bits)."""
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return json.dumps(value, separators=(",", ":"))


def last_from_json(data: object) -> Last:
    """A stored game's record of its last action (:meth:`Last.to_json`)."""
    if not isinstance(data, dict) or data.get("type") not in LAST_TYPES:
        raise ValueError(f"not an action's record: {data!r}")
    kind: LastType = data["type"]
    if kind in ("undo", "autocollect"):
        moves = tuple(Move.from_json(m) for m in data["moves"])
        step = data.get("kind") if kind == "undo" else None
        if step is not None and step not in STEP_KINDS:
            raise ValueError(f"not an action's record: {data!r}")
        return Last(kind, moves, kind=step)
    if kind == "restart":
        return Last(kind)
    flipped = data.get("flipped")
    return Last(kind, (Move.from_json(data),), flipped if isinstance(flipped, bool) else None)


def row_values(record: GameRecord) -> dict[str, object]:
    s = record.session
    return {
        "player": record.player,
        "variant": s.variant.id,
        "deal": None if s.deal is None else str(s.deal),
        "start_text": s.start_text,
        "daily": None if s.daily is None else s.daily.isoformat(),
        "version": record.version,
        "depth": s.top.depth,
        "last": None if s.last is None else json_text(s.last.to_json()),
        "elapsed_ms": s.elapsed_ms,
        "running_since": s.running_since,
        "created_ms": record.created_ms,
        "updated_ms": record.updated_ms,
        "won_ms": s.won_ms,
        "won_moves": s.won_moves,
        "moves": s.moves_count,
        "demo": record.demo,
    }


def session_root(row: GameRow) -> Frame:
    """The bottom of a game's undo stack: its start position, dealt or parsed."""
    session = Session(
        row["variant"],
        deal=None if row["deal"] is None else int(row["deal"]),
        start_text=row["start_text"],
    )
    return session.top


def record_from_row(row: GameRow, top: Frame) -> GameRecord:
    session = Session(
        row["variant"],
        deal=None if row["deal"] is None else int(row["deal"]),
        start_text=row["start_text"],
        daily=None if row["daily"] is None else dt.date.fromisoformat(row["daily"]),
        elapsed_ms=row["elapsed_ms"],
        running_since=row["running_since"],
        won_ms=row["won_ms"],
        won_moves=row["won_moves"],
        last=None if row["last"] is None else last_from_json(orjson.loads(row["last"])),
        replayed=top,
    )
    return GameRecord(
        id=row["id"],
        version=row["version"],
        session=session,
        player=row["player"],
        created_ms=row["created_ms"],
        updated_ms=row["updated_ms"],
        stored_top=top,
        stored_won=row["won_ms"] is not None,
        demo=bool(row["demo"]),
    )
