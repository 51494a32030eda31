"""What the OpenAPI document says: each operation's error statuses in the
JSON error shape, and the request bodies as the API reads them.

The document must accept exactly what the API accepts, no more and no less:
the create and act bodies are one-of unions (one kind of new game, one type
of action) with only their own fields, deal numbers and ids within their
variant's range, daily dates within the range served today.  The bodies are
checked in the routes with the same patterns (:mod:`jielong.web.views.patterns`),
so that each refusal keeps its own code and message.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Literal, get_args

from fastapi import FastAPI, Path
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, JsonValue

from jielong.engine.catalogue import deal_limit, today_utc
from jielong.engine.rules.variants import VARIANTS
from jielong.session import MAX_RUN_STEPS
from jielong.web.errors import daily_range
from jielong.web.views.patterns import (
    GAME_ID_PATTERN,
    PILE_PATTERN,
    date_pattern,
    deal_id_pattern,
    deal_text_pattern,
)

VARIANT_IDS: list[JsonValue] = list(VARIANTS)
MAX_VERSION = 2**31 - 1
MAX_POSITION_CHARS = 20_000
MAX_DEAL_TEXT = 40
MAX_COUNT = 52
ACTION_TYPES = Literal["move", "draw", "undo", "restart", "autocomplete_step", "autocollect"]


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

# (the bounds before the validator, or the document shows them as "ge"/"le")
Version = Annotated[int, Field(ge=0, le=MAX_VERSION), BeforeValidator(_whole)]
Count = Annotated[int, Field(ge=1, le=MAX_COUNT), BeforeValidator(_whole)]


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


_RETRY: dict[str, object] = {
    "Retry-After": {"description": "seconds to wait", "schema": {"type": "integer"}}
}

ERROR_RESPONSES: dict[int | str, dict[str, object]] = {
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


def error_responses(*statuses: int) -> dict[int | str, dict[str, object]]:
    """The error answers an operation gives, for its ``responses=``."""
    return {status: ERROR_RESPONSES[status] for status in statuses}


GameId = Annotated[
    str,
    Path(
        description="the private id the game was created with (any other: 404)",
        json_schema_extra={"pattern": GAME_ID_PATTERN},
    ),
]


def _families() -> dict[str, list[str]]:
    families: dict[str, list[str]] = {}
    for variant in VARIANTS.values():
        families.setdefault(variant.family, []).append(variant.id)
    return families


def _kind(title: str, required: list[str], **properties: object) -> dict[str, object]:
    return {
        "title": title,
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


def _variants(ids: list[str]) -> dict[str, object]:
    return {"type": "string", "enum": ids}


def create_body_schema(first: dt.date, last: dt.date) -> dict[str, object]:
    """The body of ``POST /api/games``: exactly one kind of new game."""
    everyone = list(VARIANTS)
    kinds = [
        _kind(
            "A random deal",
            ["variant"],
            variant=_variants(everyone),
            winnable={
                "type": "boolean",
                "description": "a random deal the solver has won (Klondike); FreeCell's "
                "random deals are all solvable already",
            },
        ),
        _kind(
            "The daily deal (the player's own game of it if there is one: 200)",
            ["variant", "daily"],
            variant=_variants(everyone),
            daily={"const": True},
            date={
                "type": "string",
                "format": "date",
                "pattern": date_pattern(first, last),
                "description": "YYYY-MM-DD (UTC), up to a year either side of today",
            },
        ),
    ]
    for family, ids in _families().items():
        limit = deal_limit(ids[0])
        kinds.append(
            _kind(
                f"A {family} deal by number",
                ["variant", "deal"],
                variant=_variants(ids),
                deal={
                    "oneOf": [
                        {"type": "integer", "minimum": 1, "maximum": limit},
                        {
                            "type": "string",
                            "pattern": deal_text_pattern(ids[0]),
                            "maxLength": MAX_DEAL_TEXT,
                        },
                    ],
                    "description": "a number, or its digits as typed in a deal box",
                },
            )
        )
        kinds.append(
            _kind(
                f"A {family} position (never counted in the statistics)",
                ["variant", "position"],
                variant=_variants(ids),
                position={
                    "type": "string",
                    "maxLength": MAX_POSITION_CHARS,
                    # what a position is cannot be said in JSON Schema: the
                    # format names it, and a text that is not one answers 422
                    # bad_position with where and why
                    "format": f"{family}-position",
                    "description": "a position's text or a shared link's code",
                },
            )
        )
    for variant in VARIANTS:
        kinds.append(
            _kind(
                f"A deal id of {variant}",
                ["deal_id"],
                deal_id={"type": "string", "pattern": deal_id_pattern(variant)},
                variant={"const": variant},
            )
        )
    return {"title": "GameCreate", "oneOf": kinds}


def _pile(**extra: object) -> dict[str, object]:
    return {"type": "string", "pattern": PILE_PATTERN, **extra}


_VERSION: dict[str, object] = {"type": "integer", "minimum": 0, "maximum": MAX_VERSION}
_COUNT: dict[str, object] = {"type": "integer", "minimum": 1, "maximum": MAX_COUNT, "default": 1}


_DEMO: dict[str, object] = {
    "type": "boolean",
    "default": False,
    "description": "the demo played it: the game is then recorded as the demo's, not a win",
}


def action_body_schema(other_types: list[str], max_steps: int) -> dict[str, object]:
    """The body of an action: a move with its piles, or one of the other types
    with nothing else."""
    step = _kind("MoveStep", ["from", "to"], **{"from": _pile(), "to": _pile(), "count": _COUNT})
    move = _kind(
        "A move",
        ["version", "type", "from", "to"],
        **{
            "version": _VERSION,
            "type": {"const": "move"},
            "from": _pile(description="stock, waste, foundation:N, tableau:N or cell:N"),
            "to": _pile(),
            "count": _COUNT,
            "steps": {
                "type": "array",
                "items": step,
                "maxItems": max_steps,
                "description": "with a run move: the single-card moves that carry it, as "
                "a hint of a variant whose hint plays on a second click gives them",
            },
            "demo": _DEMO,
        },
    )
    other = _kind(
        "Another action",
        ["version", "type"],
        version=_VERSION,
        type={"type": "string", "enum": other_types},
        demo=_DEMO,
    )
    return {"title": "Action", "oneOf": [move, other]}


def device_action_schema(other_types: list[str], max_steps: int) -> dict[str, object]:
    """An action a device played offline, as a sync carries it: an action's
    body without its version (the sync's own version is the one they follow)."""
    body = action_body_schema(other_types, max_steps)
    kinds = body["oneOf"]
    assert isinstance(kinds, list)
    for kind in kinds:
        kind["properties"].pop("version")
        kind["required"].remove("version")
    return {"title": "DeviceAction", "oneOf": kinds}


def _drop_default_422(document: dict[str, Any]) -> None:
    """FastAPI documents a 422 of its own shape on every operation with
    parameters; the API's 422s are the error shape, listed where they occur."""
    for operations in document["paths"].values():
        for operation in operations.values():
            answer = operation.get("responses", {}).get("422")
            schema = answer and answer["content"]["application/json"]["schema"]
            if schema and schema.get("$ref", "").endswith("/HTTPValidationError"):
                del operation["responses"]["422"]
    schemas = document.get("components", {}).get("schemas", {})
    for name in ("HTTPValidationError", "ValidationError"):
        schemas.pop(name, None)


def _document_bodies(doc: dict[str, Any], today: dt.date) -> None:
    first, last = daily_range(today)
    schemas = doc["components"]["schemas"]
    schemas["GameCreate"] = create_body_schema(first, last)
    others = [t for t in get_args(ACTION_TYPES) if t != "move"]
    schemas["Action"] = action_body_schema(others, MAX_RUN_STEPS)
    if "SyncRequest" in schemas:
        schemas["SyncRequest"]["properties"]["actions"]["items"] = device_action_schema(
            others, MAX_RUN_STEPS
        )
    schemas.pop("MoveStep", None)
    for operations in doc["paths"].values():
        for operation in operations.values():
            for parameter in operation.get("parameters", []):
                if parameter["name"] == "date":
                    parameter["schema"]["pattern"] = date_pattern(first, last)
    _drop_default_422(doc)
    _link_games(doc)


class GameState(BaseModel):
    """A game as every game route answers it (the document's view of
    :func:`jielong.web.views.gamestate.game_state`)."""

    model_config = ConfigDict(extra="allow")

    id: str = Field(description="private: whoever has it can play the game")
    version: int = Field(description="sent back with each action and hint")
    variant: str
    deal: int | None = Field(description="null for a game started from a position")
    deal_id: str | None
    daily: str | None = Field(description="the daily deal's date, YYYY-MM-DD")
    position: dict[str, object]
    moves: list[dict[str, object]] = Field(description="every legal move: {from, to, count}")
    limits: object = Field(description="the live run limits (FreeCell)")
    counters: dict[str, object]
    flags: dict[str, object]
    last: object = Field(description="what the last action did")
    unsolvable: bool
    winnable: bool


def game_responses(status: int, *errors: int) -> dict[int | str, dict[str, object]]:
    return {status: {"model": GameState, "description": "The game"}, **error_responses(*errors)}


# Where a game's id and version go next: from the game a route answers to the
# routes that take them (clients, and the document's own checks, follow these).
_NEXT: dict[str, dict[str, str]] = {
    "read_game": {},
    "act": {"version": "$response.body#/version"},
    "clock": {},
    "hint": {"version": "$response.body#/version"},
    "position": {},
    "analysis": {},
}


def _link_games(doc: dict[str, Any]) -> None:
    ids = {}
    for operations in doc["paths"].values():
        for operation in operations.values():
            ids[operation["operationId"]] = operation
    for operation in ids.values():
        for status, answer in operation["responses"].items():
            ref = answer.get("content", {}).get("application/json", {}).get("schema", {})
            if status.startswith("2") and ref.get("$ref", "").endswith("/GameState"):
                answer["links"] = {
                    name: {
                        "operationId": name,
                        "parameters": {"game_id": "$response.body#/id"},
                        **({"requestBody": body} if body else {}),
                    }
                    for name, body in _NEXT.items()
                    if name in ids
                }


class DocumentedApp(FastAPI):
    """The app whose OpenAPI document has the hand-made bodies in place of the
    models' own, made again when the day changes (the daily range moves)."""

    _made: tuple[dt.date, dict[str, Any]] | None = None

    def openapi(self) -> dict[str, Any]:
        today = today_utc()
        if self._made is None or self._made[0] != today:
            self.openapi_schema = None
            doc = super().openapi()
            _document_bodies(doc, today)
            self._made = (today, doc)
        return self._made[1]
