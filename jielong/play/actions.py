"""An action as JSON (the HTTP contract's shape, without its version),
checked and played on a session.

The server's sync of a game played on a device and the browser's worker
both play actions through :func:`play_action`, so a device plays by exactly
the rules the server replays it with.
"""

from __future__ import annotations

from collections.abc import Sequence

from jielong.engine.rules.core import InvalidMoveError, Move
from jielong.session import MAX_RUN_STEPS, ActionError, Session

ACTION_TYPES = ("move", "draw", "undo", "restart", "autocomplete_step", "autocollect")
# ``demo``: the demo played it (the store then records the game as the demo's)
_MOVE_FIELDS = {"type", "from", "to", "count", "steps", "demo"}


def _refuse(detail: str) -> ActionError:
    return ActionError("invalid_request", detail=detail)


def parse_action(data: object) -> tuple[str, Move | None, list[Move] | None]:
    """The action's type, its move and the single-card steps of a run, or
    :class:`ActionError` ``invalid_request`` naming what is wrong."""
    if not isinstance(data, dict):
        raise _refuse("an action is an object")
    kind = data.get("type")
    if kind not in ACTION_TYPES:
        raise _refuse("type")
    assert isinstance(kind, str)
    if not isinstance(data.get("demo", False), bool):
        raise _refuse("demo")
    if kind != "move":
        extra = sorted(set(data) - {"type", "demo"})
        if extra:
            raise _refuse(extra[0])
        return kind, None, None
    extra = sorted(set(data) - _MOVE_FIELDS)
    if extra:
        raise _refuse(extra[0])
    try:
        move = Move.from_json(data)
        raw = data.get("steps")
        steps = None
        if raw is not None:
            if not isinstance(raw, list) or not 0 < len(raw) <= MAX_RUN_STEPS:
                raise _refuse("steps")
            steps = [Move.from_json(s) for s in raw]
    except InvalidMoveError as e:
        raise _refuse(str(e)) from None
    return kind, move, steps


def perform(
    session: Session,
    kind: str,
    move: Move | None = None,
    now: int | None = None,
    *,
    steps: Sequence[Move] | None = None,
) -> None:
    """Perform one action of the HTTP contract by its type, or raise
    :class:`ActionError` and change nothing: the one place where the
    contract's names meet the session's methods."""
    if kind == "move":
        if move is None:
            raise ActionError("invalid_request")
        if steps is None:
            session.move(move, now)
        else:
            session.move_by_steps(move, steps, now)
        return
    if steps is not None:
        raise ActionError("invalid_request")
    if kind == "draw":
        session.draw(now)
    elif kind == "undo":
        session.undo(now)
    elif kind == "restart":
        session.restart(now)
    elif kind == "autocomplete_step":
        session.autocomplete_step(now)
    elif kind == "autocollect":
        session.autocollect(now)
    else:
        raise ActionError("invalid_request")


def play_action(session: Session, data: object, now: int | None = None) -> None:
    """Play the action ``data`` on ``session``, or raise :class:`ActionError`
    and change nothing."""
    kind, move, steps = parse_action(data)
    perform(session, kind, move, now, steps=steps)
