"""Response headers that keep the pages to themselves, and the signed player id.

The player is anonymous: the server issues a random id in an HttpOnly cookie
on first contact, signed with a key kept in the games' database (so every
server process and machine on one database knows it, across restarts).  A
cookie value the server did not sign is ignored and replaced, so nobody can
hand a victim an id they chose (session fixation) or guess another player's.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

import sqlalchemy as sa
from sqlalchemy.engine import Engine
from starlette.datastructures import MutableHeaders
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from jielong.store import insert_once

PLAYER_COOKIE = "jl_player"
COOKIE_SECONDS = 5 * 365 * 86400

# The pages load everything from the site itself and run no inline script;
# style attributes stay allowed because the board positions its cards with
# them (style-src-attr only: no <style> elements, no inline script).
CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "style-src-attr 'unsafe-inline'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)
# FastAPI's interactive docs (only with ``jielong serve --docs``) load the
# Swagger UI from its CDN and start it with an inline script.
DOCS_CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net",
        "style-src 'self' https://cdn.jsdelivr.net",
        "img-src 'self' data: https://fastapi.tiangolo.com",
        "object-src 'none'",
        "base-uri 'none'",
        "frame-ancestors 'none'",
    )
)
DOCS_PATHS = ("/docs", "/redoc")

_keys = sa.Table(
    "site_keys",
    sa.MetaData(),
    sa.Column("name", sa.String(32), primary_key=True),
    sa.Column("value", sa.String(128), nullable=False),
)


def player_key(engine: Engine) -> bytes:
    """The key that signs player ids: made once per database, then read."""
    _keys.create(engine, checkfirst=True)
    insert_once(engine, _keys, name="player", value=secrets.token_hex(32))
    with engine.connect() as conn:
        value = conn.execute(sa.select(_keys.c.value).where(_keys.c.name == "player")).scalar_one()
    return bytes.fromhex(value)


class PlayerIds:
    """Issue and check signed player ids: ``<id>.<signature>`` in the cookie,
    the bare id in ``request.state.player`` and the games' table."""

    def __init__(self, key: bytes) -> None:
        self._key = key

    def _signature(self, player: str) -> str:
        mac = hmac.new(self._key, player.encode(), hashlib.sha256).digest()[:18]
        return base64.urlsafe_b64encode(mac).decode()

    def issue(self) -> tuple[str, str]:
        """A fresh id and its cookie value."""
        player = secrets.token_urlsafe(18)
        return player, f"{player}.{self._signature(player)}"

    def check(self, value: str) -> str | None:
        """The id a cookie value carries, or ``None`` unless this server signed it."""
        player, dot, signature = value.partition(".")
        if not dot or len(player) != 24 or len(signature) != 24:
            return None
        if not hmac.compare_digest(signature, self._signature(player)):
            return None
        return player


class SiteHeaders:
    """Security headers on every answer, ``Cache-Control: no-store`` on the
    API's, and the player cookie: found in ``request.state.player``, given
    (``Secure`` over HTTPS) to a browser that has no valid one.  Plain ASGI:
    this runs on every request."""

    def __init__(self, app: ASGIApp, *, players: PlayerIds) -> None:
        self.app = app
        self.players = players

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        found = self.players.check(Request(scope).cookies.get(PLAYER_COOKIE) or "")
        cookie = None
        if found is None:
            player, cookie = self.players.issue()
        else:
            player = found
        scope.setdefault("state", {})["player"] = player
        path: str = scope["path"]
        api = path.startswith("/api/")
        give_cookie = cookie is not None and not path.startswith("/static/")
        # behind a proxy the server's --forwarded-allow-ips decides whether
        # the proxy's X-Forwarded-Proto sets this
        secure = "; Secure" if scope.get("scheme") == "https" else ""
        policy = CONTENT_SECURITY_POLICY
        if path.startswith(DOCS_PATHS):
            policy = DOCS_CONTENT_SECURITY_POLICY

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers["Content-Security-Policy"] = policy
                headers["X-Content-Type-Options"] = "nosniff"
                headers["X-Frame-Options"] = "DENY"
                # game ids are bearer tokens in the table's address
                headers["Referrer-Policy"] = "same-origin"
                headers["Cross-Origin-Opener-Policy"] = "same-origin"
                if api and "cache-control" not in headers:
                    headers["Cache-Control"] = "no-store"
                if give_cookie:
                    headers.append(
                        "Set-Cookie",
                        f"{PLAYER_COOKIE}={cookie}; Max-Age={COOKIE_SECONDS}; Path=/; "
                        f"HttpOnly; SameSite=lax{secure}",
                    )
            await send(message)

        await self.app(scope, receive, send_with_headers)
