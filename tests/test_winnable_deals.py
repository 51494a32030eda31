"""Winnable deals only: the pool of checked deals, the record of deals dealt
as winnable, and the option through the HTTP API."""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import sqlalchemy as sa
from api_checks import app_client, new_game
from fastapi.testclient import TestClient

from jielong.engine.catalogue import CATALOGUE_SIZE, DAILY_KLONDIKE_NODES, unsolvable_deals
from jielong.engine.rules.klondike import Klondike
from jielong.engine.rules.registry import rules_for
from jielong.engine.solve.klondike import find_win
from jielong.store import Store
from jielong.store.tables import games
from jielong.web.app import Settings, create_app
from jielong.web.i18n import LANGUAGES, message
from jielong.web.services.winnable import KLONDIKE_VARIANTS, WinnableDeals, WinnablePool
from jielong.web.state import app_state


def wait_for(condition: Callable[[], bool], seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        time.sleep(0.01)


class FakeCheck:
    """Even numbers are winnable; counts its calls, and can be held."""

    def __init__(self) -> None:
        self.calls = 0
        self.lock = threading.Lock()
        self.release = threading.Event()
        self.release.set()
        self.entered = threading.Event()

    def __call__(self, variant: str, number: int) -> bool:
        self.entered.set()
        self.release.wait(10)
        with self.lock:
            self.calls += 1
        return number % 2 == 0


def counting_candidates() -> Callable[[str], int]:
    numbers = itertools.count(1)
    lock = threading.Lock()

    def candidate(variant: str) -> int:
        with lock:
            return next(numbers)

    return candidate


@pytest.fixture
def fake_pool() -> Iterator[tuple[WinnablePool, FakeCheck]]:
    check = FakeCheck()
    pool = WinnablePool(3, check=check, candidate=counting_candidates())
    yield pool, check
    check.release.set()
    pool.stop()


def full(pool: WinnablePool) -> bool:
    return all(len(pool.ready(v)) == pool.size for v in pool.variants)


# -- the pool -------------------------------------------------------------------


def test_pool_does_nothing_until_a_deal_is_asked_for(
    fake_pool: tuple[WinnablePool, FakeCheck],
) -> None:
    pool, check = fake_pool
    time.sleep(0.05)
    assert not pool.running() and check.calls == 0
    assert all(pool.ready(v) == () for v in KLONDIKE_VARIANTS)


def test_pool_fills_takes_and_refills(fake_pool: tuple[WinnablePool, FakeCheck]) -> None:
    pool, check = fake_pool
    first = pool.take("klondike-3")  # empty: checked in this thread
    assert first % 2 == 0
    assert pool.running()
    wait_for(lambda: full(pool))
    for v in pool.variants:
        ready = pool.ready(v)
        assert all(n % 2 == 0 for n in ready) and len(set(ready)) == len(ready)
    # full: the thread sleeps instead of checking more deals
    calls = check.calls
    time.sleep(0.3)
    assert check.calls == calls
    waiting = pool.ready("klondike-1")
    assert pool.take("klondike-1") == waiting[0]
    assert pool.ready("klondike-1")[: len(waiting) - 1] == waiting[1:]
    wait_for(lambda: len(pool.ready("klondike-1")) == pool.size)
    assert check.calls > calls


def test_pool_stops_and_still_deals(fake_pool: tuple[WinnablePool, FakeCheck]) -> None:
    pool, check = fake_pool
    pool.take("klondike-3")
    wait_for(lambda: full(pool))
    pool.stop()
    assert not pool.running()
    assert all(pool.ready(v) == () for v in pool.variants)
    calls = check.calls
    # after stopping, a deal is still found, in the caller's thread only
    assert pool.take("klondike-1") % 2 == 0
    time.sleep(0.1)
    assert not pool.running() and pool.ready("klondike-1") == ()
    assert check.calls > calls


def test_stop_waits_for_a_check_in_progress_and_keeps_nothing(
    fake_pool: tuple[WinnablePool, FakeCheck],
) -> None:
    pool, check = fake_pool
    pool.take("klondike-3")
    wait_for(lambda: full(pool))
    check.entered.clear()
    check.release.clear()
    pool.take("klondike-3")  # wakes the thread, whose check now waits
    assert check.entered.wait(5)
    stopper = threading.Thread(target=pool.stop)
    stopper.start()
    time.sleep(0.1)
    assert stopper.is_alive() and pool.running()
    check.release.set()
    stopper.join(10)
    assert not stopper.is_alive() and not pool.running()
    assert pool.ready("klondike-3") == ()


def test_a_failing_check_does_not_spin() -> None:
    calls = 0

    def broken(variant: str, number: int) -> bool:
        nonlocal calls
        calls += 1
        if threading.current_thread().name == "winnable-deals":
            raise RuntimeError("broken check")
        return True

    pool = WinnablePool(2, check=broken, candidate=counting_candidates())
    try:
        assert pool.take("klondike-3") >= 1
        wait_for(lambda: calls >= 2)
        time.sleep(0.2)
        settled = calls
        time.sleep(0.2)
        assert calls == settled and pool.running()
        assert all(pool.ready(v) == () for v in pool.variants)
    finally:
        pool.stop()
    assert not pool.running()


def test_a_pool_of_size_zero_never_starts_a_thread() -> None:
    check = FakeCheck()
    pool = WinnablePool(0, check=check, candidate=counting_candidates())
    assert pool.take("klondike-1") == 2
    assert not pool.running() and pool.ready("klondike-1") == ()
    with pytest.raises(KeyError):
        pool.take("freecell")
    with pytest.raises(ValueError):
        WinnablePool(-1)


# -- the record of deals dealt as winnable --------------------------------------


def test_record_of_winnable_deals(tmp_path: Any) -> None:
    store = Store(f"sqlite:///{tmp_path / 'record.sqlite3'}")
    try:
        first = WinnableDeals(store.engine)
        assert not first.known("klondike-3", 12)
        first.record("klondike-3", 12)
        first.record("klondike-3", 12)  # twice is harmless
        assert first.known("klondike-3", 12)
        assert not first.known("klondike-1", 12) and not first.known("klondike-3", 13)
        # another server process reads it from the database
        other = WinnableDeals(store.engine)
        assert other.known("klondike-3", 12) and not other.known("klondike-3", 14)
    finally:
        store.close()


# -- through the HTTP API -------------------------------------------------------


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with app_client(tmp_path_factory, "winnable") as c:
        yield c
    assert not app_state(c.app).winnable.running()


def game_count(client: TestClient) -> int:
    store = app_state(client.app).store
    with store.engine.connect() as conn:
        count: int = conn.execute(sa.select(sa.func.count()).select_from(games)).scalar_one()
    return count


def test_no_pool_work_in_an_app_that_deals_no_winnable_deal(tmp_path: Any) -> None:
    app = create_app(Settings(database=f"sqlite:///{tmp_path / 'g.sqlite3'}", hint_workers=1))
    with TestClient(app) as c:
        g = new_game(c, variant="klondike-3")
        assert g["winnable"] is False
        assert not app_state(app).winnable.running()


@pytest.mark.parametrize("variant", KLONDIKE_VARIANTS)
def test_winnable_klondike_deal_is_won_by_replaying_the_solver(
    client: TestClient, variant: str
) -> None:
    before = game_count(client)
    g = new_game(client, variant=variant, winnable=True)
    assert game_count(client) == before + 1
    assert g["variant"] == variant and g["winnable"] is True and g["unsolvable"] is False
    assert 1 <= g["deal"] <= CATALOGUE_SIZE and g["deal_id"] == f"{variant}-{g['deal']}"
    assert g["counters"]["moves"] == 0
    rules = rules_for(variant)
    assert isinstance(rules, Klondike)
    position = rules.deal(g["deal"])
    assert g["moves"] == [m.to_json() for m in rules.legal_moves(position)]
    result = find_win(rules, position, max_nodes=DAILY_KLONDIKE_NODES)
    assert result.status == "solved" and result.moves
    for move in result.moves:
        assert move in rules.legal_moves(position)
        position = rules.play(position, move)
    assert rules.is_won(position)
    # every later answer about the game says so too
    again = client.get(f"/api/games/{g['id']}").json()
    assert again["winnable"] is True
    first = result.moves[0]
    r = client.post(
        f"/api/games/{g['id']}/actions",
        json={"version": g["version"], "type": "move", **first.to_json()}
        if first.src.kind != "stock"
        else {"version": g["version"], "type": "draw"},
    )
    assert r.status_code == 200, r.text
    assert r.json()["winnable"] is True


def test_pool_refills_after_a_deal_is_taken(client: TestClient) -> None:
    pool = app_state(client.app).winnable
    new_game(client, variant="klondike-1", winnable=True)
    assert pool.running()
    wait_for(lambda: full(pool), 120)
    for variant in KLONDIKE_VARIANTS:
        waiting = pool.ready(variant)
        g = new_game(client, variant=variant, winnable=True)
        assert g["deal"] == waiting[0] and g["winnable"] is True
        wait_for(lambda: full(pool), 120)
        assert pool.ready(variant)[: pool.size - 1] == waiting[1:]


@pytest.mark.parametrize("variant", ["freecell", "kongdang"])
def test_freecell_winnable_is_an_ordinary_random_deal(client: TestClient, variant: str) -> None:
    pool = app_state(client.app).winnable
    g = new_game(client, variant=variant, winnable=True)
    assert g["variant"] == variant and 1 <= g["deal"] <= CATALOGUE_SIZE
    assert g["deal"] not in unsolvable_deals("freecell")
    assert g["winnable"] is True and g["unsolvable"] is False
    assert variant not in pool.variants
    # a catalogue deal proven unsolvable is not winnable, whatever asked for it
    bad = min(unsolvable_deals("freecell"))
    assert new_game(client, variant=variant, deal=bad)["winnable"] is False


def test_klondike_random_deal_without_the_option(client: TestClient) -> None:
    g = new_game(client, variant="klondike-3", winnable=False)
    assert g["variant"] == "klondike-3" and isinstance(g["winnable"], bool)
    custom = new_game(
        client,
        variant="klondike-3",
        position=rules_for("klondike-3").to_text(rules_for("klondike-3").deal(5)),
    )
    assert custom["deal"] is None and custom["winnable"] is False


@pytest.mark.parametrize("variant", KLONDIKE_VARIANTS)
def test_klondike_daily_deals_say_they_are_winnable(client: TestClient, variant: str) -> None:
    r = client.post("/api/games", json={"variant": variant, "daily": True})
    assert r.status_code in (200, 201), r.text
    g = r.json()
    assert g["daily"] is not None and g["winnable"] is True
    # the same deal opened by its number was not dealt as winnable here
    plain = new_game(client, variant=variant, deal=g["deal"])
    assert plain["winnable"] is False


@pytest.mark.parametrize(
    ("extra", "conflicts"),
    [
        ({"deal": 5}, ["deal"]),
        ({"deal_id": "klondike-3-5"}, ["deal_id"]),
        ({"daily": True}, ["daily"]),
        ({"position": "whatever"}, ["position"]),
        ({"deal": 5, "daily": True}, ["deal", "daily"]),
    ],
)
def test_winnable_with_a_chosen_deal_is_refused(
    client: TestClient, extra: dict[str, Any], conflicts: list[str]
) -> None:
    before = game_count(client)
    r = client.post("/api/games", json={"variant": "klondike-3", "winnable": True, **extra})
    assert r.status_code == 422, r.text
    error = r.json()["error"]
    assert error["code"] == "winnable_with_deal"
    assert error["field"] == "winnable" and error["conflicts"] == conflicts
    assert all(name in error["message"] for name in conflicts)
    assert game_count(client) == before


def test_winnable_with_deal_id_alone_is_refused(client: TestClient) -> None:
    before = game_count(client)
    r = client.post("/api/games", json={"deal_id": "freecell-5", "winnable": True})
    assert r.status_code == 422 and r.json()["error"]["code"] == "winnable_with_deal"
    assert game_count(client) == before


@pytest.mark.parametrize("value", ["yes", "true", 1, 0, None, [], {}])
def test_winnable_must_be_a_boolean(client: TestClient, value: Any) -> None:
    before = game_count(client)
    r = client.post("/api/games", json={"variant": "klondike-1", "winnable": value})
    assert r.status_code == 422, r.text
    error = r.json()["error"]
    assert error["code"] == "invalid_request" and error["field"] == "winnable"
    assert game_count(client) == before


def test_winnable_without_a_variant_is_refused(client: TestClient) -> None:
    before = game_count(client)
    r = client.post("/api/games", json={"winnable": True})
    assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_request"
    r = client.post("/api/games", json={"variant": "spider", "winnable": True})
    assert r.status_code == 422 and r.json()["error"]["code"] == "unknown_variant"
    assert game_count(client) == before


def test_the_refusal_is_worded_in_each_language() -> None:
    texts = {message("winnable_with_deal", lang, fields="deal") for lang in LANGUAGES}
    assert len(texts) == len(LANGUAGES)
    assert all("deal" in text and "{" not in text for text in texts)
