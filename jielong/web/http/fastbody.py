"""A leaner request handler for the route every move goes through.

FastAPI's general handler reads the body, parses the content type through
the e-mail package, solves the endpoint's dependencies and records
telemetry: a third of the CPU of an action.  The action endpoint takes only
path parameters, one JSON body model and the request, so this route class
does just that: the same body rules (JSON only with a JSON content type,
the same validation by the same model), the same errors, then the endpoint
in a thread pool of its own (or on the event loop, for an endpoint
defined with ``async def``).  The route keeps its place in the OpenAPI
schema, which is made from the endpoint's signature as for any route.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import json
from collections.abc import Awaitable, Callable, Coroutine
from concurrent.futures import Executor, ThreadPoolExecutor
from typing import Any, get_type_hints

import orjson
from fastapi import HTTPException, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from pydantic import BaseModel, ValidationError

SERVER_DATABASE_THREADS = 16
"""Threads running these routes' endpoints when defined without ``async``
(per server process); the move route's endpoint runs on the event loop."""


def endpoint_threads(threads: int) -> Executor:
    """A pool for these routes' endpoints.  The framework's thread pool
    (through anyio) costs about 65 us of CPU per call on this machine's
    Python, the event loop's own executor about 20 us; and these threads
    are not shared with the slower routes."""
    return ThreadPoolExecutor(threads, thread_name_prefix="jielong-endpoint")


_default = endpoint_threads(SERVER_DATABASE_THREADS)


def _is_json(content_type: str) -> bool:
    """``application/json`` or ``application/<anything>+json``, as FastAPI reads it."""
    kind = content_type.split(";", 1)[0].strip().lower()
    main, _, sub = kind.partition("/")
    return main == "application" and (sub == "json" or sub.endswith("+json"))


async def json_body(request: Request, model: type[BaseModel], raw: bytes) -> BaseModel:
    """The request's body ``raw`` validated as ``model``, or the validation
    error FastAPI would raise for it (the app answers those in one shape)."""
    if not raw:
        raise RequestValidationError(
            [{"type": "missing", "loc": ("body",), "msg": "Field required", "input": None}]
        )
    content_type = request.headers.get("content-type")
    data: object = raw  # not JSON: validated as bytes, and refused as FastAPI does
    if content_type is not None and _is_json(content_type):
        try:
            data = orjson.loads(raw)
        except orjson.JSONDecodeError:
            # what orjson refuses but the standard parser takes (NaN, a
            # byte-order mark, integers past 64 bits) goes on as before
            try:
                data = json.loads(raw)
            except json.JSONDecodeError as e:
                raise RequestValidationError(
                    [
                        {
                            "type": "json_invalid",
                            "loc": ("body", e.pos),
                            "msg": "JSON decode error",
                            "input": {},
                            "ctx": {"error": e.msg},
                        }
                    ]
                ) from e
            except UnicodeDecodeError as e:
                # bytes in no Unicode encoding: refused as FastAPI's own routes do
                raise HTTPException(400, "There was an error parsing the body") from e
    try:
        return model.model_validate(data, from_attributes=True)  # as FastAPI validates
    except ValidationError as e:
        errors = [{**err, "loc": ("body", *err["loc"])} for err in e.errors()]
        raise RequestValidationError(errors) from None


class JsonBodyRoute(APIRoute):
    """A route whose endpoint takes path parameters (strings), one body
    model and the request, handled without FastAPI's general machinery."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        respond = self.responder(_default)

        async def handle(request: Request) -> Response:
            return await respond(request, await request.body())

        return handle

    def responder(self, threads: Executor) -> Callable[[Request, bytes], Awaitable[Response]]:
        """The answer to a request whose body has been read (the site's
        request layer reads it itself), the endpoint run in ``threads``."""
        endpoint = self.endpoint
        hints = get_type_hints(endpoint)
        names = list(inspect.signature(endpoint).parameters)
        (body_name,) = [
            n for n in names if isinstance(hints.get(n), type) and issubclass(hints[n], BaseModel)
        ]
        model: type[BaseModel] = hints[body_name]
        request_name = next(n for n in names if hints.get(n) is Request)
        # an endpoint defined with async def chooses where its work runs
        on_loop = inspect.iscoroutinefunction(endpoint)

        async def respond(request: Request, raw: bytes) -> Response:
            body = await json_body(request, model, raw)
            kwargs = {**request.path_params, body_name: body, request_name: request}
            response: Response
            if on_loop:
                response = await endpoint(**kwargs)
            else:
                call = functools.partial(endpoint, **kwargs)
                response = await asyncio.get_running_loop().run_in_executor(threads, call)
            return response

        return respond
