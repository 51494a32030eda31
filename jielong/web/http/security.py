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
from starlette.requests import cookie_parser

from jielong.store import insert_once

PLAYER_COOKIE = "jl_player"
COOKIE_SECONDS = 5 * 365 * 86400

# The pages load everything from the site itself, with no inline script and
# no inline style: the board places its piles and cards through each
# element's style object, which the policy does not govern.
CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
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
        # Cookie headers already checked, and the id each carries: a player
        # sends the same header with every request, and parsing it and
        # checking its signature cost more than the rest of the headers'
        # work.  Only headers that passed the check are kept.
        self._known: dict[bytes, str] = {}

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

    def from_cookie_headers(self, headers: list[bytes]) -> tuple[str, str | None]:
        """The player of a request's ``Cookie`` headers, and ``None``; or a
        new player and the cookie value to give them."""
        whole = b"; ".join(headers)
        player = self._known.get(whole)
        if player is not None:
            return player, None
        values = cookie_parser(whole.decode("latin-1"))
        player = self.check(values.get(PLAYER_COOKIE) or "")
        if player is None:
            return self.issue()
        if len(self._known) >= KNOWN_COOKIES:
            self._known.clear()
        self._known[whole] = player
        return player, None


KNOWN_COOKIES = 50_000
"""Cookie headers remembered as checked (about 100 bytes each; forgotten all
at once when full, which only costs the checks again)."""

_SECURITY_HEADERS = (
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    # game ids are bearer tokens in the table's address
    (b"referrer-policy", b"same-origin"),
    (b"cross-origin-opener-policy", b"same-origin"),
)


class SiteHeaderValues:
    """The security headers of an answer, as raw header pairs made once: the
    policy (the docs' own under :data:`DOCS_PATHS`), and the player cookie
    when one is given (not with static files, ``Secure`` over HTTPS)."""

    def __init__(self) -> None:
        policy = (b"content-security-policy", CONTENT_SECURITY_POLICY.encode())
        docs = (b"content-security-policy", DOCS_CONTENT_SECURITY_POLICY.encode())
        self._plain = [policy, *_SECURITY_HEADERS]
        self._docs = [docs, *_SECURITY_HEADERS]

    def for_request(self, path: str, cookie: str | None, https: bool) -> list[tuple[bytes, bytes]]:
        headers = self._docs if path.startswith(DOCS_PATHS) else self._plain
        if cookie is None or path.startswith("/static/"):
            return headers
        # behind a proxy the server's --forwarded-allow-ips decides whether
        # the proxy's X-Forwarded-Proto makes this HTTPS
        secure = "; Secure" if https else ""
        value = (
            f"{PLAYER_COOKIE}={cookie}; Max-Age={COOKIE_SECONDS}; Path=/; "
            f"HttpOnly; SameSite=lax{secure}"
        )
        return [*headers, (b"set-cookie", value.encode("latin-1"))]
