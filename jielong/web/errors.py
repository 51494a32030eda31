"""Error answers and request parsing shared by the API's routers.

Every refusal is an :class:`ApiError`: an HTTP status, a machine code, and a
message in the player's language from the catalogues.  The routers import it
from here, and :mod:`jielong.web.app` installs the handlers that turn it (and
FastAPI's and Starlette's own errors) into the answer.

The status of a refusal follows one rule: 400 only for a request that cannot
be read (a body that is not JSON, or not text); a request that can be read but
names a value the API refuses (an unknown variant, a deal, deal id, date or
position that does not parse or is out of range, an illegal move) is 422.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from contextlib import contextmanager

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from jielong.engine.catalogue import check_deal_number, deal_limit, today_utc
from jielong.engine.rules.variants import VARIANTS, get_variant
from jielong.engine.shuffles import DealError
from jielong.web.http.responses import JSONResponse
from jielong.web.i18n import message, negotiate
from jielong.web.services.hintgate import HintRefused
from jielong.web.services.hintpool import HintBusy, HintUnavailable
from jielong.web.views.patterns import deal_text, deal_text_pattern, matches

DAILY_RANGE_DAYS = 366
"""Daily deals are served for dates up to a year either side of today."""
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


class ApiError(Exception):
    """An error answer: HTTP status, machine code, message parameters, and
    ``extra`` fields for the body (``state`` beside ``error``)."""

    def __init__(
        self,
        status: int,
        code: str,
        params: dict[str, object] | None = None,
        *,
        details: dict[str, object] | None = None,
        extra: dict[str, object] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(code)
        self.status = status
        self.code = code
        self.params = params or {}
        self.details = details or {}
        self.extra = extra or {}
        self.headers = headers


def language(request: Request) -> str:
    return negotiate(
        request.cookies.get("lang"),
        request.query_params.get("lang"),
        request.headers.get("accept-language"),
    )


def error_response(request: Request, error: ApiError) -> JSONResponse:
    body: dict[str, object] = {
        "error": {
            "code": error.code,
            "message": message(error.code, language(request), **error.params),
            **error.details,
        },
        **error.extra,
    }
    headers = {"Cache-Control": "no-store", **(error.headers or {})}
    return JSONResponse(body, status_code=error.status, headers=headers)


# how the validator names the member of a union a value was tried against
_UNION_MEMBER = re.compile(r"str|int|float|bool|list\[.*\]|dict\[.*\]|[a-z-]+\[.*\]")


def _field_path(loc: tuple[object, ...]) -> str:
    """The field a validation error is about, as the body names it
    (``steps.0.from``), without the union members it was tried as."""
    parts = [str(p) for p in loc if p != "body"]
    while parts and _UNION_MEMBER.fullmatch(parts[-1]):
        parts.pop()
    return ".".join(parts) or "body"


def validation_error(request: Request, exc: Exception) -> JSONResponse:
    """FastAPI's refusal of a request body or query, as an :class:`ApiError`."""
    assert isinstance(exc, RequestValidationError)
    errors = exc.errors()
    if any(e.get("type") == "json_invalid" for e in errors):
        return error_response(request, ApiError(400, "malformed_json"))
    first = errors[0] if errors else {}
    where = _field_path(first.get("loc", ()))
    # the message names the field in the player's language; the validator's
    # own (English) words go beside it for developers
    return error_response(
        request,
        ApiError(
            422,
            "invalid_request",
            {"detail": where},
            details={"field": where, "detail": str(first.get("msg", ""))},
        ),
    )


def http_error(request: Request, exc: Exception) -> JSONResponse:
    """Starlette's own errors (no route, wrong method) in the same shape."""
    assert isinstance(exc, StarletteHTTPException)
    codes = {404: "not_found", 405: "method_not_allowed"}
    code = codes.get(exc.status_code, "invalid_request")
    return error_response(
        request,
        ApiError(
            exc.status_code,
            code,
            {"detail": str(exc.detail)},
            headers=dict(exc.headers) if exc.headers else None,
        ),
    )


def daily_range(today: dt.date) -> tuple[dt.date, dt.date]:
    """The first and last dates whose daily deals are served."""
    span = dt.timedelta(days=DAILY_RANGE_DAYS)
    return today - span, today + span


def parse_date(text: str | None) -> dt.date:
    """A daily deal's date: YYYY-MM-DD within :data:`DAILY_RANGE_DAYS` of
    today (a date far off would cost a solver run for nobody)."""
    today = today_utc()
    if text is None:
        return today
    try:
        if not _DATE.fullmatch(text):
            raise ValueError(text)
        date = dt.date.fromisoformat(text)
    except ValueError:
        raise ApiError(422, "bad_date", {"date": text}) from None
    first, last = daily_range(today)
    if not first <= date <= last:
        raise ApiError(
            422,
            "date_out_of_range",
            {"first": first.isoformat(), "last": last.isoformat()},
            details={"first": first.isoformat(), "last": last.isoformat()},
        )
    return date


def deal_number(variant: str, value: int | str) -> int:
    """The deal number asked for, or one answer for every wrong one (empty,
    not a whole number, out of range) that names the range."""
    number = value if isinstance(value, int) else None
    # digits only, as the document's pattern says (no sign or zero first)
    if isinstance(value, str) and matches(deal_text_pattern(variant), value):
        number = int(deal_text(value))
    try:
        if number is None:
            raise DealError(value)
        check_deal_number(variant, number)
    except DealError:
        limit = deal_limit(variant)
        raise ApiError(
            422, "bad_deal", {"max": f"{limit:,}"}, details={"min": 1, "max": limit}
        ) from None
    return number


def check_variant(variant: str | None) -> str:
    if variant is None:
        raise ApiError(422, "invalid_request", {"detail": "variant"}, details={"field": "variant"})
    if variant not in VARIANTS:
        raise ApiError(422, "unknown_variant", {"variant": variant})
    return variant


def variant_or_error(variant: str) -> str:
    try:
        return get_variant(variant).id
    except KeyError:
        raise ApiError(422, "unknown_variant", {"variant": variant}) from None


@contextmanager
def pool_refusals() -> Iterator[None]:
    """The hint pool's and its gate's refusals as the API answers them: 429
    past a player's or an address's share, 503 while the pool is full or away,
    each with the Retry-After a client should wait."""
    try:
        yield
    except HintRefused as e:
        raise ApiError(
            429,
            "rate_limited",
            {"seconds": e.seconds},
            details={"retry_after": e.seconds},
            headers={"Retry-After": str(e.seconds)},
        ) from None
    except HintBusy:
        raise ApiError(503, "hint_busy", headers={"Retry-After": "1"}) from None
    except HintUnavailable:
        raise ApiError(503, "hint_unavailable", headers={"Retry-After": "1"}) from None
