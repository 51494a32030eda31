"""The HTML pages: home, a table per game, a rules page per game.

The pages are thin shells: the table is drawn by the ES modules under
``static/js`` from the game state the API sends. Every visible text comes
from the UI catalogues in ``i18n/ui.<lang>.json``.  The markup is in Jinja2
templates (``web/templates``), which escape every value they are given;
the fragments made in Python (the home page's pictures and banner, the
statistics) come as :class:`~markupsafe.Markup`, escaped where they are made.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import cache
from pathlib import Path

import jinja2
from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from markupsafe import Markup
from starlette.concurrency import run_in_threadpool

from jielong.engine.catalogue import CATALOGUE_SIZE, today_utc
from jielong.engine.rules.variants import VARIANTS, Variant
from jielong.web import i18n
from jielong.web.i18n import LANGUAGES, Section
from jielong.web.state import app_state
from jielong.web.views.homeview import MINI_DEFS, continue_banner, daily_state, mini_table
from jielong.web.views.pwa import THEME_COLOUR
from jielong.web.views.statsview import player_stats, stats_body

router = APIRouter(include_in_schema=False)


def catalogue(lang: str) -> dict[str, str]:
    """The UI texts of one language (keys it lacks come from zh-Hant)."""
    return i18n.catalogue("ui", lang)


def choose_language(request: Request) -> str:
    """``lang`` cookie, else ``?lang=``, else Accept-Language, else zh-Hant."""
    return i18n.negotiate(
        request.cookies.get("lang"),
        request.query_params.get("lang"),
        request.headers.get("accept-language"),
    )


def fill(text: str, **values: object) -> str:
    for key, value in values.items():
        text = text.replace("{" + key + "}", str(value))
    return text


def _script_json(data: object) -> Markup:
    # "<" escaped so that no text can close the script element
    return Markup(json.dumps(data, ensure_ascii=False).replace("<", "\\u003c"))


TEMPLATES = Path(__file__).parent.parent / "templates"
_BREAK = re.compile(r"\n[ \t]*")


class _JoinedLines(jinja2.FileSystemLoader):
    """The templates with their line breaks and indentation left out: written
    readably, sent as compact as hand-joined markup (a space that must stay
    is written ``{{ " " }}``)."""

    def get_source(
        self, environment: jinja2.Environment, template: str
    ) -> tuple[str, str, Callable[[], bool]]:
        source, filename, uptodate = super().get_source(environment, template)
        return _BREAK.sub("", source), filename, uptodate


_ENV = jinja2.Environment(
    loader=_JoinedLines(TEMPLATES), autoescape=True, undefined=jinja2.StrictUndefined
)


def _render(name: str, **values: object) -> str:
    return _ENV.get_template(name).render(**values)


JS_DIR = Path(__file__).parent.parent / "static" / "js"


@cache
def _preloads(script: str) -> tuple[str, ...]:
    # the table's modules are fetched at once rather than import by import
    if script != "main.js":
        return ()
    names = sorted(p.name for p in JS_DIR.glob("*.js") if p.name not in ("main.js", "home.js"))
    # the page's side of the engine (its worker is started later, off the page)
    names += ["engine/client.js", "engine/device.js"]
    return tuple(names)


def _page(
    name: str,
    lang: str,
    title: str,
    script: str,
    boot: dict[str, object],
    stats: str = "/stats",
    **values: object,
) -> str:
    """The page of template ``name``: the shell every page shares (head,
    header with the language switch and the display choices, boot data)
    around its body."""
    return _render(
        name,
        lang=lang,
        t=catalogue(lang),
        title=title,
        script=script,
        preloads=_preloads(script),
        theme_colour=THEME_COLOUR,
        languages=[(code, catalogue(code)) for code in LANGUAGES],
        stats=stats,
        boot_json=_script_json(boot),
        **values,
    )


def _variant_boot(v: Variant) -> dict[str, object]:
    return {
        "id": v.id,
        "family": v.family,
        "draw": v.draw,
        "finishing": v.finishing,
        "hintPlaysOnSecondClick": v.hint_plays_on_second_click,
        "numberedDeals": v.numbered_deals,
        "foundationsBySuit": v.foundations_by_suit,
        # numbered deals run 1..catalogueSize
        "catalogueSize": CATALOGUE_SIZE,
    }


def _not_found(lang: str, variant: str) -> HTMLResponse:
    title = catalogue(lang)["site.title"]
    page = _page(
        "not_found.html",
        lang,
        title,
        "home.js",
        {"lang": lang},
        asked=variant,
        variants=list(VARIANTS.values()),
    )
    return HTMLResponse(page, 404)


@router.get("/", response_class=HTMLResponse)
def home(request: Request) -> HTMLResponse:
    lang = choose_language(request)
    t = catalogue(lang)
    today = today_utc()
    daily_deals = app_state(request).daily_deals
    store = app_state(request).store
    player: str = request.state.player
    streaks = store.stats(player)
    tiles = []
    for v in VARIANTS.values():
        deal = daily_deals(v.id, today)
        streak = (streaks.get(v.id) or {}).get("streak") or 0
        tiles.append(
            {
                "variant": v,
                "picture": Markup(mini_table(v.family)),
                "state": daily_state(store.find_daily(player, v.id, today)),
                "daily_title": fill(t["home.daily"], date=today.isoformat(), deal=deal),
                "streak": streak,
                "streak_text": fill(t["home.streak"], n=streak),
            }
        )
    banner = Markup(continue_banner(store.latest_unfinished(player), t))
    page = _page(
        "home.html",
        lang,
        t["site.title"],
        "home.js",
        {"lang": lang},
        mini_defs=Markup(MINI_DEFS),
        continue_banner=banner,
        tiles=tiles,
    )
    return HTMLResponse(page)


@router.get("/play/{variant}", response_class=HTMLResponse)
def play(request: Request, variant: str) -> HTMLResponse:
    lang = choose_language(request)
    v = VARIANTS.get(variant)
    if v is None:
        return _not_found(lang, variant)
    t = catalogue(lang)
    texts = {k: val for k, val in t.items() if not k.startswith("rules.")}
    boot: dict[str, object] = {"lang": lang, "variant": _variant_boot(v), "t": texts}
    title = t["variant." + v.id]
    page = _page("play.html", lang, title, "main.js", boot, stats=f"/stats#{v.id}", v=v)
    return HTMLResponse(page)


def _rules_sections(v: Variant, lang: str) -> list[Section]:
    t = catalogue(lang)
    values: dict[str, object]
    if v.family == "klondike":
        values = {"draw": v.draw}
        sections = i18n.sections(lang, "rules.klondike")
    else:
        key = "kongdang" if v.run_limit == "doubling" else "freecell"
        values = {
            name: t[f"rules.{key}.{name}"]
            for name in ("slots", "formula", "finish", "finishKey", "hintExtra")
        }
        sections = i18n.sections(lang, "rules.freecell")
    return [
        {"h": fill(s["h"], **values), "p": [fill(p, **values) for p in s["p"]]} for s in sections
    ]


@router.get("/rules/{variant}", response_class=HTMLResponse)
def rules(request: Request, variant: str) -> HTMLResponse:
    lang = choose_language(request)
    v = VARIANTS.get(variant)
    if v is None:
        return _not_found(lang, variant)
    t = catalogue(lang)
    title = fill(t["rules.title"], name=t["variant." + v.id])
    sections = _rules_sections(v, lang)
    page = _page("rules.html", lang, title, "home.js", {"lang": lang}, v=v, sections=sections)
    return HTMLResponse(page)


@router.get("/stats", response_class=HTMLResponse)
async def stats(request: Request) -> HTMLResponse:
    lang = choose_language(request)
    t = catalogue(lang)
    figures = await run_in_threadpool(player_stats, app_state(request).store, request.state.player)
    body = Markup(stats_body(figures, t))
    return HTMLResponse(
        _page("stats.html", lang, t["stats.title"], "home.js", {"lang": lang}, body=body)
    )
