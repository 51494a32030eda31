"""What an operator sees of the running site: Prometheus metrics and one JSON
access-log line per request.

Both are recorded by the site's one ASGI layer (:mod:`jielong.web.http.site`),
outside the routes: requests and latencies by route template (never by
path, so no game id becomes a label), games created and actions by what the
request asked for, as the route read it from the body
(:func:`counted_as`, so that no body is parsed twice), hints by kind and
outcome from the hint's answer, and the hint pool's queue.  Game ids never
appear in clear: the log shows a short hash of each, enough to follow one
game's requests.

With several server processes (``jielong serve --workers``), the metrics are
kept in files under ``PROMETHEUS_MULTIPROC_DIR``, which ``jielong serve``
sets, so that any process's ``/metrics`` adds up all of them.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import time
import zlib
from typing import Any
from urllib.parse import parse_qsl, urlencode

import orjson
from prometheus_client import Counter, Gauge, Histogram
from starlette.types import Scope

from jielong.play import actions

access_log = logging.getLogger("jielong.access")
INFO = logging.INFO
# the action types the API takes: the only values of the actions' label
ACTION_TYPES = frozenset(actions.ACTION_TYPES)

REQUESTS = Counter("jielong_requests", "HTTP requests answered", ["method", "route", "status"])
LATENCY = Histogram(
    "jielong_request_seconds",
    "Time from a request's start to the end of its answer",
    ["method", "route"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)
GAMES_CREATED = Counter("jielong_games_created", "Games created", ["variant"])
ACTIONS = Counter("jielong_actions", "Actions asked for, by type and outcome", ["type", "outcome"])
HINTS = Counter("jielong_hints", "Hints asked for, by kind and outcome", ["kind", "outcome"])
HINT_QUEUE = Gauge(
    "jielong_hint_queue_depth",
    "Hint computations running or waiting for a worker",
    multiprocess_mode="livesum",
)

_CREATE = re.compile(r"/api/games")
_ACTION = re.compile(r"/api/games/[^/]+/actions")
_HINT = re.compile(r"/api/games/[^/]+/hint")
_GAME_PATH = re.compile(r"(/api/games/)([^/]+)")
BODY_LIMIT = 64 * 1024  # what is read of an answer for its labels
_COUNTED_AS = "jielong.counted_as"
_WORD = re.compile(r"[a-z0-9_-]{1,40}")


def game_tag(game_id: str) -> str:
    """A game id as logged: a short hash, the same for every request of the game."""
    return "g-" + hashlib.sha256(game_id.encode()).hexdigest()[:12]


def redact(path: str, query: str) -> str:
    """The request's target with every game id replaced by its tag."""
    path = _GAME_PATH.sub(lambda m: m.group(1) + game_tag(m.group(2)), path)
    if not query:
        return path
    pairs = [(k, game_tag(v) if k == "game" else v) for k, v in parse_qsl(query, True)]
    return f"{path}?{urlencode(pairs)}"


def counted_as(scope: Scope, label: str) -> None:
    """What a route read of its request, left in the request's state for
    :func:`count`: a new game's variant, an action's type.  A request the
    route refused before reading its body has none."""
    scope.setdefault("state", {})[_COUNTED_AS] = label


def label_of(scope: Scope) -> str | None:
    """The label :func:`counted_as` left, if any."""
    label = scope.get("state", {}).get(_COUNTED_AS)
    return label if isinstance(label, str) else None


def _json(raw: bytes) -> dict[str, object]:
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        try:  # what only the standard parser reads (NaN, a byte-order mark)
            value = json.loads(raw)
        except ValueError:
            return {}
    return value if isinstance(value, dict) else {}


def gunzip(data: bytes) -> bytes:
    try:
        return zlib.decompress(data, 16 + zlib.MAX_WBITS)
    except zlib.error:
        return b""


def _label(value: object) -> str:
    """A word from a request or an answer as a label, when it is one: labels
    must stay few, and a client may send anything."""
    return value if isinstance(value, str) and _WORD.fullmatch(value) else "other"


_per_route: dict[tuple[str, str, int], tuple[Counter, Histogram]] = {}
_actions: dict[tuple[str, str], Counter] = {}


def request_done(method: str, route: str, status: int, seconds: float) -> None:
    """One more request answered, and its latency, by method and route."""
    key = (method, route, status)
    metrics = _per_route.get(key)
    if metrics is None:
        # the labelled series, found once (routes, methods and statuses are few)
        metrics = REQUESTS.labels(method, route, str(status)), LATENCY.labels(method, route)
        if len(_per_route) > 10_000:  # (any method a client sends is a label)
            _per_route.clear()
        _per_route[key] = metrics
    metrics[0].inc()
    metrics[1].observe(seconds)


def request_kind(method: str, path: str) -> str:
    """What a request is counted as beside its route: ``create``, ``action``,
    ``hint`` or nothing."""
    if method != "POST" or not path.startswith("/api/games"):
        return ""
    if _CREATE.fullmatch(path):
        return "create"
    if _ACTION.fullmatch(path):
        return "action"
    if _HINT.fullmatch(path):
        return "hint"
    return ""


def count(kind: str, status: int, asked: str | None, answer: bytes) -> None:
    """Games created, actions by type and outcome (``asked``: what the route
    read of the request, see :func:`counted_as`), hints by kind and outcome."""
    if kind == "create":
        if status == 201:
            GAMES_CREATED.labels(_label(asked)).inc()
    elif kind == "action":
        outcome = {200: "done", 409: "stale", 422: "refused"}.get(status, "error")
        # a body refused before the route read it has no type: only a known name is a label
        label = asked if asked in ACTION_TYPES else "other"
        key = (label, outcome)
        counter = _actions.get(key)
        if counter is None:  # (types and outcomes are few and known)
            counter = _actions[key] = ACTIONS.labels(*key)
        counter.inc()
    else:
        body = _json(answer)
        if status == 200:
            HINTS.labels(_label(body.get("kind")), "answered").inc()
        else:
            error = body.get("error")
            code = error.get("code") if isinstance(error, dict) else None
            HINTS.labels("none", _label(code) if code else str(status)).inc()


def log(scope: Scope, route: str, status: int, seconds: float, size: int) -> None:
    """One access-log line: the request's target with game ids hashed."""
    query = scope.get("query_string", b"").decode("latin-1")
    client = scope.get("client")
    line = {
        "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()) + "Z",
        "method": scope["method"],
        "target": redact(scope["path"], query),
        "route": route,
        "status": status,
        "ms": round(seconds * 1000, 1),
        "bytes": size,
        "client": client[0] if client else None,
    }
    access_log.info(json.dumps(line, separators=(",", ":")))


def log_config(access: bool) -> dict[str, Any]:
    """uvicorn's logging set-up plus ``jielong.access``: one JSON line per
    request on standard output when ``access`` (uvicorn's own access log,
    which prints game ids, stays off)."""
    from uvicorn.config import LOGGING_CONFIG

    config: dict[str, Any] = json.loads(json.dumps(LOGGING_CONFIG))
    config["formatters"]["line"] = {"format": "%(message)s"}
    config["handlers"]["jielong_access"] = {
        "class": "logging.StreamHandler",
        "formatter": "line",
        "stream": "ext://sys.stdout",
    }
    config["loggers"]["jielong.access"] = {
        "handlers": ["jielong_access"],
        "level": "INFO" if access else "WARNING",
        "propagate": False,
    }
    return config


def share_metrics(workers: int) -> None:
    """With several server processes, keep the metrics in files that every
    process's ``/metrics`` reads (a fresh directory per start, as the client
    library asks, unless the operator named one)."""
    import os
    import shutil
    import tempfile

    if workers < 2 or os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        return
    directory = tempfile.mkdtemp(prefix="jielong-metrics-")
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = directory
    import atexit

    atexit.register(shutil.rmtree, directory, ignore_errors=True)
