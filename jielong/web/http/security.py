"""Response headers that keep the pages to themselves, and the signed player id.

The player is anonymous: the server issues a random id in an HttpOnly cookie
on first contact, signed with a key kept in the games' database (so every
server process and machine on one database knows it, across restarts).  A
cookie value the server did not sign is ignored and replaced, so nobody can
hand a victim an id they chose or guess another player's.  Over HTTPS the
cookie is a ``__Host-`` one, which nobody but this host can set: an id the
server issued to someone else and planted in a victim's browser (session
fixation) is replaced there.  Whoever holds an id has the player's
statistics and recent results, and the ids (so the play) of their games of
the daily deals (``POST /api/games`` with ``daily`` answers with that game)
and of their latest unfinished game (the home page's "continue" link);
their other games are reached by their game ids alone.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from jielong.store import insert_once

PLAYER_COOKIE = "jl_player"
COOKIE_SECONDS = 5 * 365 * 86400

# The pages load everything from the site itself, with no inline script and
# no inline style: the board places its piles and cards through each
# element's style object, which the policy does not govern.
CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'self'",
        # WebAssembly: the engine worker's Python runtime
        "script-src 'self' 'wasm-unsafe-eval'",
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
        # Cookie values already checked, and the id each carries: a player
        # sends the same value with every request, and checking its
        # signature costs more than the rest of the headers' work.  Only the
        # player cookie's value is kept (COOKIE_CHARS at most), never the
        # header it came in, and only once it passed the check.
        self._known: dict[str, str] = {}

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

    def from_cookie_headers(
        self, headers: list[bytes], *, https: bool = False
    ) -> tuple[str, str | None]:
        """The player of a request's ``Cookie`` headers, and ``None``; or a
        new player and the cookie value to give them.

        Over HTTPS only the ``__Host-`` cookie counts: a sibling subdomain or
        a man in the middle of a plain HTTP request can plant a
        ``jl_player`` cookie (one the server issued to the attacker), but
        not a ``__Host-`` one, so a player seen with only the plain cookie
        gets a new id."""
        plain, host = player_cookie_values(headers)
        for value in host if https else (*plain, *host):
            player = self._known.get(value) or self.check(value)
            if player is not None:
                if len(self._known) >= KNOWN_COOKIES:
                    self._known.clear()
                self._known[value] = player
                return player, None
        return self.issue()


COOKIE_CHARS = 49
"""A player cookie's value: 24 characters of id, a dot, 24 of signature."""

COOKIE_CANDIDATES = 4
"""Player cookies of one request whose signature is checked."""

KNOWN_COOKIES = 20_000
"""Cookie values remembered as checked (under 200 bytes each, 4 MB at most;
forgotten all at once when full, which only costs the checks again)."""

HOST_COOKIE = f"__Host-{PLAYER_COOKIE}"
"""The player cookie's name over HTTPS: a ``__Host-`` cookie is only taken
by a browser from this host over HTTPS, with ``Path=/`` and no domain."""

_PLAYER_VALUES = re.compile(rb"(?:^|;)[ \t]*(__Host-)?" + PLAYER_COOKIE.encode() + rb"=([^;]*)")


def player_cookie_values(headers: list[bytes]) -> tuple[list[str], list[str]]:
    """The plain and the ``__Host-`` player cookies' values in ``Cookie``
    headers that may be ids (of the right length; a few of each at most: a
    browser holding a stale one beside its own sends both)."""
    plain: list[str] = []
    host: list[str] = []
    for header in headers:
        for m in _PLAYER_VALUES.finditer(header):
            value = m.group(2).strip()
            found = host if m.group(1) else plain
            if len(value) == COOKIE_CHARS and len(found) < COOKIE_CANDIDATES:
                found.append(value.decode("latin-1"))
    return plain, host


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
        name, secure = (HOST_COOKIE, "; Secure") if https else (PLAYER_COOKIE, "")
        value = f"{name}={cookie}; Max-Age={COOKIE_SECONDS}; Path=/; HttpOnly; SameSite=lax{secure}"
        return [*headers, (b"set-cookie", value.encode("latin-1"))]
