"""PostgreSQL: a throw-away cluster of Debian's PostgreSQL for the test run
(the ``postgres_url`` fixture of ``conftest.py``).

The store tests in ``test_store.py`` run against it too (their ``store``
fixture is parametrized over SQLite and PostgreSQL); the tests here are the
ones only a server database makes sense for: several engines (as several
server processes or machines would hold) racing on one game.
"""

from __future__ import annotations

import threading

from jielong.session import Session
from jielong.store import StaleVersion, Store


def _reset(url: str) -> None:
    store = Store(url)
    with store.engine.begin() as conn:
        for table in ("games", "game_steps", "player_stats"):
            conn.exec_driver_sql(f"DELETE FROM {table}")
    store.close()


def test_plain_postgresql_urls_use_psycopg_3(postgres_url: str) -> None:
    store = Store(postgres_url)
    assert store.engine.url.drivername == "postgresql+psycopg"
    assert store.dialect == "postgresql"
    store.close()


def test_two_engines_racing_on_one_game_never_both_win(postgres_url: str) -> None:
    """Like two server processes: separate engines and connection pools."""
    _reset(postgres_url)
    setup = Store(postgres_url)
    record = setup.create(Session("freecell", deal=617), "p" * 20, 0)
    racers = [Store(postgres_url) for _ in range(4)]
    rounds = 15
    wins = [0] * len(racers)
    stale = [0] * len(racers)

    def race(i: int, barrier: threading.Barrier) -> None:
        barrier.wait()
        mine = racers[i].load(record.id)
        assert mine is not None
        legal = mine.session.legal_moves()
        if legal:
            mine.session.move(legal[i % len(legal)])
        else:
            mine.session.undo()
        try:
            racers[i].save(mine, mine.version, 1)
            wins[i] += 1
        except StaleVersion:
            stale[i] += 1

    for _ in range(rounds):
        barrier = threading.Barrier(len(racers))
        threads = [threading.Thread(target=race, args=(i, barrier)) for i in range(len(racers))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    final = setup.load(record.id)
    assert final is not None
    # every accepted write is exactly one more version: none lost, none doubled
    assert sum(wins) == final.version - 1
    assert sum(wins) + sum(stale) == rounds * len(racers)
    assert sum(wins) >= rounds  # each round someone read the fresh version
    for s in (setup, *racers):
        s.close()
