"""A game being played, knowing nothing of HTTP.

``game`` is the game itself (:class:`Session`, its actions, what the last
one did and the refusals), ``history`` its undo stack (the steps, the frames
they make, and the loops of Klondike's stock turns cut from it).
"""

from jielong.session.game import (
    LAST_TYPES,
    MAX_RUN_STEPS,
    ActionError,
    IllegalAction,
    Last,
    LastType,
    Session,
    now_ms,
)
from jielong.session.history import (
    LOOP_TURNS,
    MAX_UNDO_STEPS,
    STEP_KINDS,
    Frame,
    Step,
    StepKind,
    common_frame,
)

__all__ = [
    "LAST_TYPES",
    "LOOP_TURNS",
    "MAX_RUN_STEPS",
    "MAX_UNDO_STEPS",
    "STEP_KINDS",
    "ActionError",
    "Frame",
    "IllegalAction",
    "Last",
    "LastType",
    "Session",
    "Step",
    "StepKind",
    "common_frame",
    "now_ms",
]
