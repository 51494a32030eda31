"""What the OpenAPI document says about errors: every API answer other than
a success has the JSON error shape, with these statuses."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, JsonValue

from jielong.rules.variants import VARIANTS

VARIANT_IDS: list[JsonValue] = list(VARIANTS)
DEAL_ID_PATTERN = r"^[a-z0-9-]+-[0-9]{1,20}$"
DATE_PATTERN = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"


def _whole(value: object) -> object:
    """A JSON integer: ``3`` or ``3.0`` (JSON does not tell them apart), not
    ``true``, ``"3"`` or ``3.5``."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError("a whole number")
    if isinstance(value, float):
        if not value.is_integer():
            raise ValueError("a whole number")
        return int(value)
    return value


WholeNumber = Annotated[int, BeforeValidator(_whole)]
"""An integer field as JSON Schema's ``integer`` means it."""


class ErrorDetail(BaseModel):
    model_config = ConfigDict(extra="allow")

    code: str
    """Machine-readable: ``game_not_found``, ``illegal_move``, ``rate_limited``, ..."""
    message: str
    """For people, in the player's language."""


class ErrorBody(BaseModel):
    """An error answer; a 409 carries the game's current ``state`` beside it."""

    model_config = ConfigDict(extra="allow")

    error: ErrorDetail


_RETRY: dict[str, Any] = {
    "Retry-After": {"description": "seconds to wait", "schema": {"type": "integer"}}
}

ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorBody, "description": "The body cannot be read: not JSON, or not text"},
    404: {"model": ErrorBody, "description": "No such game or address"},
    405: {"model": ErrorBody, "description": "The address does not take that method"},
    409: {"model": ErrorBody, "description": "The game changed: its current state is given"},
    413: {"model": ErrorBody, "description": "The request body is too large"},
    422: {
        "model": ErrorBody,
        "description": "A value the request names is refused: its code says which and why",
    },
    429: {"model": ErrorBody, "description": "Too many requests", "headers": _RETRY},
    503: {
        "model": ErrorBody,
        "description": "Hints or storage unavailable for now",
        "headers": _RETRY,
    },
}
