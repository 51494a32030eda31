"""The HTML pages: home, a table per game, a rules page per game.

The pages are thin shells: the table is drawn by the ES modules under
``static/js`` from the game state the API sends. Every visible text comes
from the UI catalogues in ``i18n/ui.<lang>.json``.
"""

from __future__ import annotations

import json
from functools import cache
from html import escape
from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
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


def _script_json(data: object) -> str:
    # "<" escaped so that no text can close the script element
    return json.dumps(data, ensure_ascii=False).replace("<", "\\u003c")


def _long_short(long: str, short: str) -> str:
    """A label that phones show in its short form (the style sheet picks)."""
    if long == short:
        return escape(long)
    return f'<span class="long">{escape(long)}</span><span class="short">{escape(short)}</span>'


def _lang_switch(lang: str) -> str:
    items = []
    for code in LANGUAGES:
        own = catalogue(code)
        # phones show the short name
        name = _long_short(own["lang.name"], own["lang.short"])
        current = ' aria-current="true"' if code == lang else ""
        full = escape(own["lang.name"])
        items.append(
            f'<a href="?lang={code}" data-lang="{code}" lang="{code}" aria-label="{full}"'
            f"{current}>{name}</a>"
        )
    label = escape(catalogue(lang)["nav.lang"])
    return f'<nav class="langs" aria-label="{label}">{"".join(items)}</nav>'


def _settings(t: dict[str, str], langs: str) -> str:
    """The display choices: a button and the small dialog it opens
    (settings.js). On phones the header has no room for the language
    switch (``langs``), and the dialog holds it."""

    def choice(kind: str, name: str, value: str, text: str) -> str:
        return f'<label><input type="{kind}" name="{name}"{value}> {escape(t[text])}</label>'

    themes = "".join(
        choice("radio", "theme", f' value="{v}"', "settings.theme." + v)
        for v in ("system", "light", "dark")
    )
    title = escape(t["settings.title"])
    return (
        '<button type="button" id="settings-button" class="settings-button"'
        ' aria-haspopup="dialog" aria-expanded="false" aria-controls="settings">'
        f"{title}</button>"
        f'<div id="settings" class="settings" role="dialog" aria-label="{title}" hidden>'
        f"<form><fieldset><legend>{escape(t['settings.theme'])}</legend>{themes}</fieldset>"
        f"{choice('checkbox', 'fourColour', '', 'settings.fourColour')}"
        f"{choice('checkbox', 'large', '', 'settings.large')}"
        f'<label><input type="checkbox" id="device-only" name="deviceOnly">'
        f" {escape(t['settings.deviceOnly'])}</label>"
        f'<div class="lang-choice"><p>{escape(t["nav.lang"])}</p>{langs}</div>'
        f'<button type="button" data-close>{escape(t["action.close"])}</button></form></div>'
    )


JS_DIR = Path(__file__).parent.parent / "static" / "js"


@cache
def _preloads(script: str) -> str:
    # the table's modules are fetched at once rather than import by import
    if script != "main.js":
        return ""
    names = sorted(p.name for p in JS_DIR.glob("*.js") if p.name not in ("main.js", "home.js"))
    return "".join(f'<link rel="modulepreload" href="/static/js/{n}">' for n in names)


def _page(
    lang: str, title: str, body: str, script: str, boot: dict[str, object], stats: str = "/stats"
) -> str:
    t = catalogue(lang)
    langs = _lang_switch(lang)
    return (
        "<!doctype html>\n"
        f'<html lang="{lang}"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1, viewport-fit=cover">'
        '<meta name="color-scheme" content="light dark">'
        f"<title>{escape(title)}</title>"
        '<link rel="icon" href="/static/img/icon.svg" type="image/svg+xml">'
        '<link rel="manifest" href="/manifest.webmanifest">'
        '<link rel="apple-touch-icon" href="/static/img/apple-touch-icon.png">'
        f'<meta name="theme-color" content="{THEME_COLOUR}">'
        '<link rel="stylesheet" href="/static/css/site.css">'
        f'<script type="module" src="/static/js/{script}"></script>'
        '<script type="module" src="/static/js/pwa.js"></script>'
        f"{_preloads(script)}"
        "</head><body>"
        '<header class="top">'
        f'<a class="home" href="/">{_long_short(t["site.title"], t["site.short"])}</a>'
        f'<div class="tools"><a class="stats-link" href="{stats}">'
        f"{_long_short(t['nav.stats'], t['nav.stats.short'])}</a>"
        f"{langs}{_settings(t, langs)}</div></header>"
        f"{body}"
        f'<script type="application/json" id="boot">{_script_json(boot)}</script>'
        "</body></html>"
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
    t = catalogue(lang)
    body = f'<main class="home"><h1>{escape(variant)}?</h1><ul class="games">'
    for v in VARIANTS.values():
        body += f'<li><a href="/play/{v.id}">{escape(t["variant." + v.id])}</a></li>'
    body += "</ul></main>"
    return HTMLResponse(_page(lang, t["site.title"], body, "home.js", {"lang": lang}), 404)


def _resume_link(variant: str, t: dict[str, str]) -> str:
    # shown by home.js when this browser keeps an unfinished game of the variant
    return (
        f'<a class="resume" data-resume="{variant}" href="/play/{variant}" hidden>'
        f"{escape(t['home.resume'])}</a>"
    )


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
    number_boxes = []
    for v in VARIANTS.values():
        deal = daily_deals(v.id, today)
        state = daily_state(store.find_daily(player, v.id, today))
        streak = (streaks.get(v.id) or {}).get("streak") or 0
        name = escape(t["variant." + v.id])
        tiles.append(
            f'<li class="game" data-variant="{v.id}">'
            f'<a class="picture" href="/play/{v.id}" aria-label="{name}">{mini_table(v.family)}</a>'
            f'<h2><a href="/play/{v.id}">{name}</a></h2>'
            f'<a class="button primary" href="/play/{v.id}">{escape(t["home.play"])}</a>'
            f'<a class="daily {state}" href="/play/{v.id}?daily=1" data-state="{state}"'
            f' title="{escape(fill(t["home.daily"], date=today.isoformat(), deal=deal))}">'
            f"{escape(t['home.dailyShort'])}"
            f' <span class="state">{escape(t["home.daily." + state])}</span></a>'
            f'<p class="meta"><span class="streak" data-streak="{streak}">'
            f"{escape(fill(t['home.streak'], n=streak))}</span>"
            f' <a href="/rules/{v.id}">{escape(t["home.rules"])}</a> {_resume_link(v.id, t)}</p>'
            "</li>"
        )
        if v.numbered_deals:
            number_boxes.append(
                f'<form class="deal-form" action="/play/{v.id}" method="get" novalidate>'
                f"<label>{name} · {escape(t['home.byNumber'])} "
                '<input name="deal" type="text" inputmode="numeric" autocomplete="off" size="9">'
                f'</label><button type="submit">{escape(t["home.go"])}</button></form>'
            )
    body = (
        f'<main class="home">{MINI_DEFS}<h1 class="sr-only">{escape(t["site.title"])}</h1>'
        f"{continue_banner(store.latest_unfinished(player), t)}"
        f'<ul class="games">{"".join(tiles)}</ul>{"".join(number_boxes)}'
        f'<p class="tagline">{escape(t["site.tagline"])}</p></main>'
    )
    return HTMLResponse(_page(lang, t["site.title"], body, "home.js", {"lang": lang}))


@router.get("/play/{variant}", response_class=HTMLResponse)
def play(request: Request, variant: str) -> HTMLResponse:
    lang = choose_language(request)
    v = VARIANTS.get(variant)
    if v is None:
        return _not_found(lang, variant)
    t = catalogue(lang)
    texts = {k: val for k, val in t.items() if not k.startswith("rules.")}
    boot: dict[str, object] = {"lang": lang, "variant": _variant_boot(v), "t": texts}
    name = escape(t["variant." + v.id])
    deal_options = ""
    if v.family == "klondike":
        # outside the redrawn action bar, so the switch keeps its focus and state
        deal_options = (
            f'<label title="{escape(t["deal.winnableHelp"])}">'
            '<input type="checkbox" id="winnable-only" role="switch"'
            ' aria-describedby="winnable-help">'
            f"<span>{escape(t['deal.winnableOnly'])}</span></label>"
            f'<span class="sr-only" id="winnable-help">{escape(t["deal.winnableHelp"])}</span>'
        )
    # the live chance to win in the status line, computed in the background
    deal_options = (
        f'<div class="deal-options">{deal_options}<label title="{escape(t["odds.help"])}">'
        f'<input type="checkbox" id="show-odds" role="switch">'
        f"<span>{escape(t['odds.switch'])}</span></label></div>"
    )
    body = (
        f'<main class="play {v.family}" data-variant="{v.id}">'
        f'<h1 class="game-name">{name}</h1>'
        # the clock ticks outside the live region: it is not announced every second
        '<div class="status" id="status"><span class="time" id="clock" role="timer"></span>'
        '<span class="status-live" id="status-live" role="status"></span></div>'
        '<div class="hintbar" id="hintbar" aria-live="polite"></div>'
        f'<div class="board" id="board" role="application" aria-label="{escape(t["board.label"])}"'
        f' aria-describedby="keys-help"></div>'
        f'<p class="sr-only" id="keys-help">{escape(t["board.keys"])}</p>'
        '<p class="sr-only" id="announce" aria-live="polite"></p>'
        # one slim row of the actions played most; the rest in a menu that
        # phones open from the row (wide screens show it beside the row)
        '<div class="bar-row"><div class="actions" id="actions"></div>'
        f'<div class="more" id="more"><div class="more-actions" id="more-actions"></div>'
        f"{deal_options}</div></div>"
        '<div class="toast" id="toast" role="alert" aria-live="assertive"></div>'
        '<div class="panel-host" id="panel"></div>'
        "</main>"
    )
    page = _page(lang, t["variant." + v.id], body, "main.js", boot, stats=f"/stats#{v.id}")
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
    name = t["variant." + v.id]
    title = fill(t["rules.title"], name=name)
    parts = [f'<main class="rules"><h1>{escape(title)}</h1>']
    for section in _rules_sections(v, lang):
        parts.append(f"<section><h2>{escape(section['h'])}</h2>")
        parts.extend(f"<p>{escape(p)}</p>" for p in section["p"] if p.strip())
        parts.append("</section>")
    play_text = escape(t["rules.play"])
    parts.append(
        f'<p class="links"><a class="button primary" href="/play/{v.id}">{play_text}</a> '
        f"{_resume_link(v.id, t)}</p>"
    )
    parts.append("</main>")
    return HTMLResponse(_page(lang, title, "".join(parts), "home.js", {"lang": lang}))


@router.get("/stats", response_class=HTMLResponse)
async def stats(request: Request) -> HTMLResponse:
    lang = choose_language(request)
    t = catalogue(lang)
    figures = await run_in_threadpool(player_stats, app_state(request).store, request.state.player)
    body = stats_body(figures, t)
    return HTMLResponse(_page(lang, t["stats.title"], body, "home.js", {"lang": lang}))
