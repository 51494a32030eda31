"""Message catalogues and language negotiation.

Catalogues are flat JSON files ``<kind>.<lang>.json`` beside this module:
``api`` holds the API's error messages (``error.<code>`` and
``illegal.<reason>``), ``ui`` the pages' texts.  Messages are templates with
``{name}`` parameters.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import TypedDict, cast

LANGUAGES = ("zh-Hant", "zh-Hans", "en")
DEFAULT_LANGUAGE = "zh-Hant"
# for browsers that ask only for languages the site does not have
FOREIGN_LANGUAGE = "en"
_HERE = Path(__file__).parent


class Section(TypedDict):
    """A section of a rules page: its heading and paragraphs."""

    h: str
    p: list[str]


@cache
def _entries(kind: str, lang: str) -> dict[str, object]:
    """The ``kind`` catalogue of ``lang`` as written; keys it lacks come from
    the default language's catalogue."""
    if lang not in LANGUAGES or not kind.isidentifier():
        raise KeyError(f"no catalogue {kind}.{lang}")
    entries: dict[str, object] = json.loads((_HERE / f"{kind}.{lang}.json").read_text("utf-8"))
    if lang != DEFAULT_LANGUAGE:
        return {**_entries(kind, DEFAULT_LANGUAGE), **entries}
    return entries


@cache
def catalogue(kind: str, lang: str) -> dict[str, str]:
    """The texts of the ``kind`` catalogue of ``lang`` (keys it lacks come
    from the default language's); the structured entries are read by
    :func:`sections`."""
    return {k: v for k, v in _entries(kind, lang).items() if isinstance(v, str)}


@cache
def sections(lang: str, key: str) -> list[Section]:
    """A rules page's sections from the UI catalogue (``rules.klondike``,
    ``rules.freecell``): lists of headings and paragraphs."""
    found = _entries("ui", lang)[key]
    if not isinstance(found, list):
        raise KeyError(f"{key} is a text, not sections")
    return cast(list[Section], found)


class _Keep(dict[str, object]):
    """Leaves a missing template parameter visible instead of failing."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def message(code: str, lang: str, **params: object) -> str:
    """The player's text for an error ``code`` (``illegal_move`` and
    ``bad_position`` read their ``reason`` parameter)."""
    texts = catalogue("api", lang if lang in LANGUAGES else DEFAULT_LANGUAGE)
    key = f"error.{code}"
    if code == "illegal_move" and f"illegal.{params.get('reason')}" in texts:
        key = f"illegal.{params['reason']}"
    reason = texts.get(f"position.{params.get('reason')}")
    if code == "bad_position" and reason:
        # what is wrong with the text, and where, in the player's language
        params = {**params, "detail": reason.format_map(_Keep(params))}
    template: str = texts.get(key) or texts["error.unknown"]
    return template.format_map(_Keep(params))


def match_language(tag: str) -> str | None:
    """One of our languages for a language tag, or ``None``.

    >>> match_language("zh-TW"), match_language("zh-CN"), match_language("en-GB")
    ('zh-Hant', 'zh-Hans', 'en')
    """
    tag = tag.strip().lower().replace("_", "-")
    for lang in LANGUAGES:
        if tag == lang.lower():
            return lang
    parts = tag.split("-")
    if parts[0] == "zh":
        # a script subtag decides; else the region does (mainland and
        # Singapore write simplified characters)
        if "hans" in parts or "cn" in parts or "sg" in parts or "my" in parts:
            return "zh-Hans"
        return "zh-Hant"
    if parts[0] == "en":
        return "en"
    return None


def from_accept_language(header: str) -> str | None:
    """The best of our languages for an ``Accept-Language`` header.

    >>> from_accept_language("fr;q=1, en;q=0.5, zh-CN;q=0.8")
    'zh-Hans'
    """
    best: tuple[float, int, str] | None = None
    for i, part in enumerate(header.split(",")[:32]):
        tag, _, params = part.partition(";")
        q = 1.0
        name, _, value = params.strip().partition("=")
        if name.strip() == "q":
            try:
                q = float(value)
            except ValueError:
                q = 0.0
        lang = match_language(tag)
        if lang is not None and q > 0 and (best is None or (-q, i) < best[:2]):
            best = (-q, i, lang)
    return None if best is None else best[2]


def negotiate(cookie: str | None, query: str | None, accept_language: str | None) -> str:
    """``lang`` cookie, else ``?lang=``, else Accept-Language; a browser that
    asks only for languages the site lacks (French, Japanese) gets English;
    one that names none gets zh-Hant."""
    for choice in (cookie, query):
        if choice:
            lang = match_language(choice)
            if lang is not None:
                return lang
    found = from_accept_language(accept_language or "")
    if found is not None:
        return found
    asked = [part.split(";")[0].strip() for part in (accept_language or "").split(",")]
    return FOREIGN_LANGUAGE if any(tag and tag != "*" for tag in asked) else DEFAULT_LANGUAGE
