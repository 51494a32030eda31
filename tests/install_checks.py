"""Playing through the HTTP API of a server in another process, with nothing
but the standard library: for the tests that install the site in a fresh
virtual environment."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from typing import Any


def call(base: str, method: str, path: str, body: object | None = None) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method=method)
    req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            raw = r.read()
            status = r.status
    except urllib.error.HTTPError as e:
        raw = e.read()
        status = e.code
    return status, json.loads(raw) if raw else None


def fetch(base: str, path: str) -> tuple[int, str, str]:
    """Status, content type and text of a page or file."""
    with urllib.request.urlopen(base + path, timeout=30) as r:
        return r.status, r.headers.get("Content-Type", ""), r.read().decode()


def act(base: str, game: dict[str, Any], move: dict[str, Any]) -> dict[str, Any]:
    body = {"version": game["version"], "type": "move", **move}
    status, state = call(base, "POST", f"/api/games/{game['id']}/actions", body)
    assert status == 200, (move, state)
    return dict(state)


def hint(base: str, game: dict[str, Any]) -> dict[str, Any]:
    """A hint for the game as it is; a pool still starting up may answer 503
    at first, and many hints in a row 429, so that is asked again a few times
    (after the Retry-After a 429 names)."""
    path = f"/api/games/{game['id']}/hint"
    for _ in range(5):
        status, answer = call(base, "POST", path, {"version": game["version"]})
        if status not in (429, 503):
            break
        time.sleep(answer["error"].get("retry_after", 1) if status == 429 else 1)
    assert status == 200, answer
    return dict(answer)


def offered(game: dict[str, Any], move: dict[str, Any]) -> bool:
    return any(
        m["from"] == move["from"] and m["to"] == move["to"] and m["count"] == move["count"]
        for m in game["moves"]
    )


def follow_hints(base: str, game: dict[str, Any], hints: int) -> tuple[dict[str, Any], list[str]]:
    """Play what the hints say, at most ``hints`` of them: each hint's move,
    then the moves of its line for as long as the position offers them.
    Returns the game and the kinds of the hints."""
    kinds = []
    for _ in range(hints):
        if game["flags"]["won"]:
            break
        answer = hint(base, game)
        kinds.append(answer["kind"])
        if answer["move"] is None:
            break
        game = act(base, game, answer["move"])
        line = answer.get("line") or []
        if line and line[0] == answer["move"]:
            line = line[1:]
        for move in line:
            if game["flags"]["won"] or not offered(game, move):
                break
            game = act(base, game, move)
    return game, kinds
