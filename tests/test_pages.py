"""The HTML pages without a browser: languages, catalogues, rules pages, home."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from jielong.engine.catalogue import CATALOGUE_SIZE, daily_deal, today_utc
from jielong.engine.rules.variants import VARIANTS
from jielong.web.i18n import LANGUAGES, sections
from jielong.web.i18n import from_accept_language as accept_language
from jielong.web.views.pages import catalogue

I18N = Path(__file__).resolve().parents[1] / "jielong" / "web" / "i18n"


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    from jielong.web.app import Settings, create_app

    db = tmp_path_factory.mktemp("pages") / "pages.sqlite"
    with TestClient(create_app(Settings(database=f"sqlite:///{db}", hint_workers=1))) as c:
        yield c


def test_catalogues_have_the_same_keys_and_no_empty_text() -> None:
    keys = [set(json.loads((I18N / f"ui.{lang}.json").read_text("utf-8"))) for lang in LANGUAGES]
    assert keys[0] == keys[1] == keys[2]
    for lang in LANGUAGES:
        for key, value in catalogue(lang).items():
            # only the optional hint paragraph of plain FreeCell is blank
            assert value or key == "rules.freecell.hintExtra", f"{lang}: {key} is empty"
        for family in ("klondike", "freecell"):
            found = sections(lang, f"rules.{family}")
            assert found and all(s["h"] and any(s["p"]) for s in found), f"{lang}: {family}"


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("zh-TW,zh;q=0.9", "zh-Hant"),
        ("zh-CN,zh;q=0.9,en;q=0.8", "zh-Hans"),
        ("zh-Hans", "zh-Hans"),
        ("en-US,en;q=0.9", "en"),
        ("fr-FR, en;q=0.5, zh-HK;q=0.7", "zh-Hant"),
        ("fr, de", None),
        ("en;q=0, zh-SG", "zh-Hans"),
    ],
)
def test_accept_language(header: str, expected: str | None) -> None:
    assert accept_language(header) == expected


def test_language_order_cookie_query_header(client: TestClient) -> None:
    page = client.get("/", headers={"Accept-Language": "en"})
    assert '<html lang="en">' in page.text
    page = client.get("/?lang=zh-Hans", headers={"Accept-Language": "en"})
    assert '<html lang="zh-Hans">' in page.text
    client.cookies.set("lang", "zh-Hant")
    try:
        page = client.get("/?lang=en", headers={"Accept-Language": "en"})
        assert '<html lang="zh-Hant">' in page.text
    finally:
        client.cookies.clear()
    assert '<html lang="zh-Hant">' in client.get("/").text


def test_home_lists_every_game_with_its_daily_deal(client: TestClient) -> None:
    text = client.get("/", headers={"Accept-Language": "en"}).text
    today = today_utc().isoformat()
    for v in VARIANTS:
        assert f'href="/play/{v}"' in text
        assert f'href="/rules/{v}"' in text
        assert f'href="/play/{v}?daily=1"' in text
        assert f"Daily deal ({today} UTC): #{daily_deal(v, today_utc())}" in text


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_rules_pages_are_complete(client: TestClient, variant: str, lang: str) -> None:
    page = client.get(f"/rules/{variant}?lang={lang}")
    assert page.status_code == 200
    body = page.text
    assert re.search(r"\{[a-zA-Z]+\}", body) is None, "a placeholder was left unfilled"
    assert body.count("<section>") >= 5
    assert f'href="/play/{variant}"' in body
    if variant == "kongdang":
        assert "2^f × (e + 1)" in body
    if variant == "freecell":
        assert "(f + 1) × 2^e" in body


def test_play_page_embeds_its_texts_and_variant(client: TestClient) -> None:
    page = client.get("/play/kongdang", headers={"Accept-Language": "zh-CN"})
    assert page.status_code == 200
    found = re.search(r'<script type="application/json" id="boot">(.*?)</script>', page.text)
    assert found is not None
    boot = json.loads(found[1])
    assert boot["lang"] == "zh-Hans"
    assert boot["variant"]["finishing"] == "autocollect"
    assert boot["variant"]["foundationsBySuit"] is True
    assert boot["variant"]["catalogueSize"] == CATALOGUE_SIZE
    assert boot["t"]["action.undo"] == "撤销"
    assert not any(key.startswith("rules.") for key in boot["t"])
    assert 'id="board"' in page.text


def test_unknown_variant_is_a_404_page(client: TestClient) -> None:
    for path in ("/play/spider", "/rules/spider"):
        page = client.get(path)
        assert page.status_code == 404
        assert 'href="/play/freecell"' in page.text


def test_static_modules_are_served(client: TestClient) -> None:
    page = client.get("/play/freecell")
    for src in re.findall(r'(?:src|href)="(/static/[^"]+)"', page.text):
        assert client.get(src).status_code == 200, src
