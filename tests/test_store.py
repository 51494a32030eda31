"""The game store, on SQLite and on PostgreSQL (same tests, both databases)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import datetime as dt
import json
import threading
import time
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
import sqlalchemy as sa

from jielong.engine.rules.core import Move, Pile
from jielong.session import MAX_UNDO_STEPS, Session, Step
from jielong.store import StaleVersion, Store, new_game_id, normalise_url
from jielong.store.tables import game_steps, games, player_stats

T = TypeVar("T")

KINGS = "Foundations: H-Q C-Q D-Q S-Q\nKH\nKC\nKD\nKS\n:\n:\n:\n:\n"


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    if request.param == "sqlite":
        s = Store(f"sqlite:///{tmp_path / 'games.sqlite3'}")
    else:
        s = Store(request.getfixturevalue("postgres_url"))
        with s.engine.begin() as conn:
            for table in (games, game_steps, player_stats):
                conn.execute(table.delete())
    yield s
    s.close()


def _play(record_session: Session, n: int) -> None:
    for _ in range(n):
        record_session.move(record_session.legal_moves()[0])


def test_create_load_round_trip(store: Store) -> None:
    session = Session("klondike-3", deal=42)
    session.set_clock(True, now=1_000)
    record = store.create(session, "player-aaaaaaaaaaaa", now=1_000)
    assert record.version == 1 and len(record.id) >= 22
    session.draw(now=2_000)
    session.move(session.legal_moves()[-1], now=2_500)
    session.undo(now=3_000)
    session.draw(now=3_500)
    saved = store.save(record, 1, now=4_000)
    assert saved.version == 2
    loaded = store.load(record.id)
    assert loaded is not None
    assert loaded.version == 2 and loaded.player == "player-aaaaaaaaaaaa"
    got, want = loaded.session, session
    assert got.positions == want.positions and got.counts == want.counts
    assert got.steps == want.steps and got.last == want.last
    assert (got.elapsed_ms, got.running_since) == (want.elapsed_ms, want.running_since)
    assert got.deal == 42 and got.variant.id == "klondike-3"
    assert store.load(new_game_id()) is None


def test_custom_position_and_daily_round_trip(store: Store) -> None:
    # stored in canonical form: a comment (even one PostgreSQL could not
    # store) is not kept
    custom = store.create(Session("freecell", start_text=KINGS + "# by hand \x00\n"), None, now=0)
    loaded = store.load(custom.id)
    assert loaded is not None and loaded.session.deal is None
    assert loaded.session.position == custom.session.start
    day = dt.date(2026, 11, 29)
    daily = store.create(Session("kongdang", deal=7, daily=day), "player-bbbbbbbbbbbb", now=0)
    assert store.find_daily("player-bbbbbbbbbbbb", "kongdang", day) is not None
    found = store.find_daily("player-bbbbbbbbbbbb", "kongdang", day)
    assert found is not None and found.id == daily.id and found.session.daily == day
    assert store.find_daily("player-bbbbbbbbbbbb", "freecell", day) is None
    assert store.find_daily("player-cccccccccccc", "kongdang", day) is None


def test_games_are_stored_as_explicit_json_one_row_per_step(store: Store) -> None:
    session = Session("kongdang", deal=617)
    record = store.create(session, None, now=0)
    session.move(Move(Pile("tableau", 0), Pile("cell", 2)))
    record = store.save(record, 1, now=1)
    session.move(Move(Pile("tableau", 1), Pile("cell", 3)))
    record = store.save(record, 2, now=2)
    session.undo()
    store.save(record, 3, now=3)
    with store.engine.connect() as conn:
        rows = conn.execute(
            sa.select(game_steps.c.idx, game_steps.c.pushed, game_steps.c.step).where(
                game_steps.c.game == record.id
            )
        ).all()
        depth = conn.execute(sa.select(games.c.depth).where(games.c.id == record.id)).scalar()
    assert depth == 1
    assert [(idx, pushed, json.loads(step)) for idx, pushed, step in rows] == [
        (0, 2, {"kind": "move", "moves": [["tableau:0", "cell:2", 1]]})
    ]


class _Recording:
    """A cursor that notes each statement and its parameters' size."""

    def __init__(self, cursor: Any, sent: list[tuple[str, int]]) -> None:
        self._cursor, self._sent = cursor, sent

    def execute(self, statement: str, params: Any = ()) -> Any:
        self._sent.append((statement.split()[0].upper(), len(repr(params))))
        return self._cursor.execute(statement, params)

    def executemany(self, statement: str, params: Any) -> Any:
        self._sent.append((statement.split()[0].upper(), len(repr(params))))
        return self._cursor.executemany(statement, params)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._cursor, name)


@contextlib.contextmanager
def _statements(store: Store) -> Iterator[list[tuple[str, int]]]:
    """The statements the store sends meanwhile, with their parameters' size."""
    sent: list[tuple[str, int]] = []
    connections = store._connections
    real = connections.cursor

    @contextlib.contextmanager
    def recording() -> Iterator[Any]:
        with real() as cursor:
            yield _Recording(cursor, sent)

    connections.cursor = recording  # type: ignore[method-assign]
    try:
        yield sent
    finally:
        del connections.cursor


def _turns(session: Session, n: int) -> list[Step]:
    """``n`` stock turns from the session's position, as steps (a stack
    replayed from them keeps every one, as one written before pure loops of
    stock turns were cut does)."""
    rules, pos, steps = session.rules, session.position, []
    for _ in range(n):
        turn = next(m for m in rules.legal_moves(pos) if "stock" in (m.src.kind, m.dst.kind))
        steps.append(Step("move", (turn,)))
        pos = rules.play(pos, turn)
    return steps


def test_an_action_writes_the_same_whatever_the_games_length(store: Store) -> None:
    """A draw on a stack of the most steps a game keeps sends the database
    what a draw at the second step does: the new step, not the whole history
    again; a game read again at its version is not read step by step."""
    short = Session("klondike-1", deal=5)
    short.draw()
    # 9,998 stock turns kept one by one, then a move of the tableau (legal
    # from the deal on): the next draw brings back no cards below it
    move = Step("move", (Move(Pile("tableau", 2), Pile("tableau", 4)),))
    steps = [*_turns(Session("klondike-1", deal=5), MAX_UNDO_STEPS - 2), move]
    long = Session("klondike-1", deal=5, steps=steps)
    records = [store.create(s, "player-hhhhhhhhhhhh", now=0) for s in (short, long)]
    sizes = []
    for record in records:
        with _statements(store) as sent:
            loaded = store.load(record.id)
            assert loaded is not None
            loaded.session.draw(now=1)
            store.save(loaded, 1, now=1)
            loaded = store.load(record.id)
            assert loaded is not None
            loaded.session.undo(now=2)
            store.save(loaded, 2, now=2)
        sizes.append(sent)
    # the same statements, parameters equal but for a few digits (counts,
    # depth): read the game row; write its row and the step pushed or undone
    # (PostgreSQL: as one statement each, its own transaction)
    if store.dialect == "sqlite":
        kinds = ["SELECT", "BEGIN", "UPDATE", "INSERT", "COMMIT"]
        kinds += ["SELECT", "BEGIN", "UPDATE", "DELETE", "COMMIT"]
    else:
        kinds = ["SELECT", "WITH", "SELECT", "WITH"]
    assert [kind for kind, _ in sizes[0]] == [kind for kind, _ in sizes[1]] == kinds
    assert sum(n for _, n in sizes[1]) <= sum(n for _, n in sizes[0]) + 40
    with store.engine.connect() as conn:
        count = conn.execute(
            sa.select(sa.func.count()).where(game_steps.c.game == records[1].id)
        ).scalar()
    assert count == MAX_UNDO_STEPS - 1


def _three_games_one_stale(store: Store) -> tuple[list[Any], Any]:
    """Three games, each with a move to save at version 1, and a copy of the
    third, loaded before its save, with another move: stale."""
    records = [store.create(Session("freecell", deal=d), None, now=0) for d in (1, 2, 3)]
    stale = store.load(records[2].id)
    assert stale is not None
    for record in records:
        record.session.move(record.session.legal_moves()[0])
    store.save(records[2], 1, now=1)
    stale.session.move(stale.session.legal_moves()[1])
    return records, stale


def _assert_saved_once_more(store: Store, records: list[Any]) -> None:
    """Every game is stored at version 2 with its own moves; the store closes."""
    for record in records:
        loaded = store.load(record.id)
        assert loaded is not None and loaded.version == 2
        assert loaded.session.steps == record.session.steps
    store.close()


def test_sqlite_writers_queued_behind_a_commit_share_the_next_one(tmp_path: Path) -> None:
    """Writes that wait for the disk go in together: one commit for all, and
    each keeps its own outcome (a stale one is refused, the others land)."""
    store = Store(f"sqlite:///{tmp_path / 'games.sqlite3'}")
    records, stale = _three_games_one_stale(store)
    outcomes: dict[int, str] = {}

    def save(i: int, record: Any) -> None:
        try:
            store.save(record, 1, now=2)
            outcomes[i] = "saved"
        except StaleVersion:
            outcomes[i] = "stale"

    writers = [
        threading.Thread(target=save, args=(i, r))
        for i, r in enumerate((records[0], records[1], stale))
    ]
    with _statements(store) as sent:
        with store._writer._write_lock:  # a commit in progress
            for t in writers:
                t.start()
            while len(store._writer._queue) < 3:
                time.sleep(0.01)
        for t in writers:
            t.join()
    assert outcomes == {0: "saved", 1: "saved", 2: "stale"}
    assert [kind for kind, _ in sent].count("COMMIT") == 1
    _assert_saved_once_more(store, records)


def _on_a_loop_of_its_own(coroutine: Coroutine[Any, Any, T]) -> T:
    """The coroutine's result, run on a new event loop in a thread of its own
    (this thread may already run one: the browser tests' driver does)."""
    with concurrent.futures.ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, coroutine).result()


def test_sqlite_writes_handed_over_from_the_event_loop_share_a_commit(tmp_path: Path) -> None:
    """Saves from the event loop queue behind a commit in progress and go in
    together, each told its own outcome only once that commit is done; the
    loop runs meanwhile."""
    store = Store(f"sqlite:///{tmp_path / 'games.sqlite3'}")
    records, stale = _three_games_one_stale(store)

    async def save_all() -> list[object]:
        saving = [
            asyncio.ensure_future(store.save_soon(r, 1, now=2))
            for r in (records[0], records[1], stale)
        ]
        await asyncio.sleep(0.2)
        # a commit in progress holds the write lock: nothing is told yet
        assert not any(s.done() for s in saving)
        lock.release()
        return await asyncio.gather(*saving, return_exceptions=True)

    lock = store._writer._write_lock
    with _statements(store) as sent:
        lock.acquire()
        outcomes = _on_a_loop_of_its_own(save_all())
    assert [type(o).__name__ for o in outcomes] == ["GameRecord", "GameRecord", "StaleVersion"]
    assert [kind for kind, _ in sent].count("COMMIT") == 1
    _assert_saved_once_more(store, records)


def test_reads_and_saves_from_the_event_loop(store: Store) -> None:
    """The event loop's reads and saves (SQLite: the write committed by the
    writer's thread; PostgreSQL: asynchronous connections) store what the
    blocking ones do, and refuse a stale write with the game as it is."""
    record = store.create(Session("freecell", deal=21), "player-jjjjjjjjjjjj", now=0)
    expected = Session("freecell", deal=21)

    async def play() -> None:
        for i in range(6):
            if store.local:
                mine = store.load(record.id)
            else:
                mine = await store.load_soon(record.id)
            assert mine is not None and mine.version == i + 1
            if i == 3:
                mine.session.undo()
                expected.undo()
            else:
                move = mine.session.legal_moves()[i % 2]
                mine.session.move(move)
                expected.move(move)
            await store.save_soon(mine, i + 1, now=i)
        stale = store.load(record.id)
        assert stale is not None
        stale.session.move(stale.session.legal_moves()[0])
        await store.save_soon(stale, 7, now=9)
        with pytest.raises(StaleVersion) as err:
            await store.save_soon(stale, 7, now=9)
        assert err.value.current is not None and err.value.current.version == 8

    _on_a_loop_of_its_own(play())
    other = Store(store.url)  # no replay cache: read from the database
    loaded = other.load(record.id)
    assert loaded is not None and loaded.version == 8
    expected.move(loaded.session.steps[-1].moves[0])
    assert loaded.session.positions == expected.positions
    other.close()


def test_another_process_reads_only_the_steps_pushed_since(store: Store) -> None:
    """Two stores on one database, as two server processes: each replays
    only the steps the other pushed since its own last read."""
    other = Store(store.url)
    record = store.create(Session("freecell", deal=11), "player-iiiiiiiiiiii", now=0)
    seen = other.load(record.id)
    assert seen is not None
    expected = Session("freecell", deal=11)
    version = 1
    for i in range(6):
        mine = store.load(record.id)
        assert mine is not None
        if i == 3:
            mine.session.undo()
            expected.undo()
        else:
            move = mine.session.legal_moves()[i % 2]
            mine.session.move(move)
            expected.move(move)
        store.save(mine, version, now=i)
        version += 1
        theirs = other.load(record.id)
        assert theirs is not None and theirs.version == version
        assert theirs.session.positions == expected.positions
        assert theirs.session.steps == expected.steps
    other.close()


def test_a_loop_of_draws_is_stored_as_one_step_another_process_reads(store: Store) -> None:
    """Draws that come back to the cards below them are cut from the stored
    stack (their rows deleted, the step they came back to rewritten); a
    store that read the game before reads the steps written since."""
    other = Store(store.url)
    record = store.create(Session("klondike-3", deal=5), "player-jjjjjjjjjjjj", now=0)
    assert other.load(record.id) is not None
    expected = Session("klondike-3", deal=5)
    for version in range(1, 31):  # over three loops of nine turns
        mine = store.load(record.id)
        assert mine is not None
        mine.session.draw()
        expected.draw()
        store.save(mine, version, now=version)
        theirs = other.load(record.id)
        assert theirs is not None and theirs.version == version + 1
        assert theirs.session.positions == expected.positions
        assert theirs.session.counts == expected.counts and theirs.session.steps == expected.steps
        with store.engine.connect() as conn:
            rows = conn.execute(
                sa.select(game_steps.c.idx).where(game_steps.c.game == record.id)
            ).scalars()
            assert sorted(rows) == list(range(len(expected.steps)))
    assert expected.moves_count == 30 and len(expected.steps) < 9
    other.close()


def test_a_stale_write_is_refused_and_changes_nothing(store: Store) -> None:
    record = store.create(Session("freecell", deal=1), None, now=0)
    first = store.load(record.id)
    second = store.load(record.id)
    assert first is not None and second is not None
    _play(first.session, 1)
    store.save(first, 1, now=1)
    _play(second.session, 2)
    with pytest.raises(StaleVersion) as err:
        store.save(second, 1, now=2)
    current = err.value.current
    assert current is not None and current.version == 2 and len(current.session.steps) == 1
    again = store.load(record.id)
    assert again is not None and again.version == 2
    assert again.session.positions == first.session.positions


def test_concurrent_writers_on_one_version_exactly_one_wins(store: Store) -> None:
    record = store.create(Session("freecell", deal=9), None, now=0)
    n = 6
    barrier = threading.Barrier(n)
    outcomes: list[str] = []

    def write(i: int) -> None:
        mine = store.load(record.id)
        assert mine is not None
        mine.session.move(mine.session.legal_moves()[i])
        barrier.wait()
        try:
            store.save(mine, 1, now=i)
            outcomes.append("won")
        except StaleVersion:
            outcomes.append("stale")

    threads = [threading.Thread(target=write, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["stale"] * (n - 1) + ["won"]
    final = store.load(record.id)
    assert final is not None and final.version == 2 and len(final.session.steps) == 1


def test_clock_write_keeps_the_version_and_checks_it(store: Store) -> None:
    record = store.create(Session("freecell", deal=3), None, now=0)
    record.session.set_clock(True, now=100)
    record.session.set_clock(False, now=700)
    assert store.save_clock(record)
    loaded = store.load(record.id)
    assert loaded is not None and loaded.version == 1 and loaded.session.elapsed_ms == 600
    record.version = 5
    assert not store.save_clock(record)
    assert store.version_of(record.id) == 1 and store.version_of(new_game_id()) is None


def test_statistics_per_variant(store: Store) -> None:
    me, other = "player-dddddddddddd", "player-eeeeeeeeeeee"

    def finished(variant: str, won_ms: int | None, moves: int, t: int, player: str = me) -> None:
        session = Session(variant, deal=t + 1)
        session.move(session.legal_moves()[0])  # a game counts from its first move
        if won_ms is not None:
            session.won_ms, session.won_moves = won_ms, moves
        store.create(session, player, now=t)

    finished("freecell", 90_000, 100, 1)
    finished("freecell", None, 0, 2)  # given up: breaks the streak
    finished("freecell", 80_000, 120, 3)
    finished("freecell", 70_000, 130, 4)
    finished("freecell", 99_000, 90, 5)
    finished("freecell", None, 0, 6)  # in progress: does not break it yet
    finished("klondike-1", 5_000, 60, 7)
    finished("freecell", 1_000, 1, 8, player=other)
    custom = Session("freecell", start_text=KINGS)
    custom.won_ms, custom.won_moves = 10, 4
    store.create(custom, me, now=9)  # custom positions never count
    store.create(Session("kongdang", deal=3), me, now=10)  # nor do games with no move
    stats = store.stats(me)
    assert stats["freecell"] == {
        "games": 6,
        "wins": 4,
        "best_time_ms": 70_000,
        "best_moves": 90,
        "streak": 3,
        "best_streak": 3,
    }
    assert stats["klondike-1"]["wins"] == 1 and stats["klondike-1"]["streak"] == 1
    assert "kongdang" not in stats
    assert store.stats("player-ffffffffffff") == {}


def test_statistics_come_from_an_aggregate_kept_by_first_moves_and_wins(store: Store) -> None:
    me = "player-jjjjjjjjjjjj"
    old = store.create(Session("freecell", deal=1), me, now=1)
    new = store.create(Session("freecell", deal=2), me, now=2)
    assert store.stats(me) == {}  # no move yet: no game
    # the first move counts the game: the old one is abandoned for the new
    old.session.move(old.session.legal_moves()[0])
    old = store.save(old, 1, now=3)
    new.session.move(new.session.legal_moves()[0])
    new = store.save(new, 1, now=3)
    for record, version, ms in ((new, 2, 5_000), (old, 2, 4_000)):
        record.session.won_ms, record.session.won_moves = ms, 80
        saved = store.save(record, version, now=3)
        saved.session.move(saved.session.legal_moves()[0])  # does not count the win again
        store.save(saved, version + 1, now=4)
    with _statements(store) as sent:
        stats = store.stats(me)
    assert [kind for kind, _ in sent] == ["SELECT"]
    # winning the abandoned game counts, but does not mend the streak it ended
    assert stats == {
        "freecell": {
            "games": 2,
            "wins": 2,
            "best_time_ms": 4_000,
            "best_moves": 80,
            "streak": 1,
            "best_streak": 1,
        }
    }
    with store.engine.begin() as conn:
        conn.execute(games.delete())
    assert store.stats(me) == stats  # kept when games are removed


def test_a_database_of_the_earlier_layout_is_upgraded(tmp_path: Path) -> None:
    """Games stored with their whole history in one column keep their steps,
    and the statistics are counted from them once."""
    url = f"sqlite:///{tmp_path / 'old.sqlite3'}"
    engine = sa.create_engine(url)
    step = {"kind": "move", "moves": [["tableau:0", "cell:2", 1]]}
    with engine.begin() as conn:
        conn.exec_driver_sql(
            "CREATE TABLE games (id VARCHAR(64) PRIMARY KEY, player VARCHAR(64), "
            "variant VARCHAR(32) NOT NULL, deal VARCHAR(24), start_text TEXT, daily VARCHAR(10), "
            "version INTEGER NOT NULL, steps TEXT NOT NULL, last TEXT, "
            "elapsed_ms BIGINT NOT NULL, running_since BIGINT, created_ms BIGINT NOT NULL, "
            "updated_ms BIGINT NOT NULL, won_ms BIGINT, won_moves INTEGER)"
        )
        for i, (steps, won) in enumerate((([step], None), ([], 9_000)), start=1):
            conn.execute(
                sa.text(
                    "INSERT INTO games VALUES (:id, 'player-kkkkkkkkkkkk', 'kongdang', :deal, "
                    "NULL, NULL, 3, :steps, NULL, 0, NULL, :t, :t, :won, :moves)"
                ),
                {
                    "id": f"game-{i:020d}",
                    "deal": str(617 + i),
                    "steps": json.dumps({"format": 1, "steps": steps}),
                    "t": i,
                    "won": won,
                    "moves": None if won is None else 7,
                },
            )
    engine.dispose()
    store = Store(url)
    loaded = store.load(f"game-{1:020d}")
    assert loaded is not None and loaded.version == 3
    assert loaded.session.steps == [Step.from_json(step)]
    assert store.stats("player-kkkkkkkkkkkk")["kongdang"] == {
        "games": 2,
        "wins": 1,
        "best_time_ms": 9_000,
        "best_moves": 7,
        "streak": 1,
        "best_streak": 1,
    }
    Store(url).close()  # upgraded once only
    store.close()


def test_games_never_moved_leave_the_counts_of_an_earlier_database(tmp_path: Path) -> None:
    """A database from when a game counted as it was dealt: the games with
    no move made are taken out of the counts, once."""
    url = f"sqlite:///{tmp_path / 'dealt.sqlite3'}"
    store = Store(url)
    me = "player-mmmmmmmmmmmm"
    moved = Session("freecell", deal=1)
    moved.move(moved.legal_moves()[0])
    store.create(moved, me, now=1)
    store.create(Session("freecell", deal=2), me, now=2)
    store.close()
    with sa.create_engine(url).begin() as conn:
        conn.exec_driver_sql("ALTER TABLE games DROP COLUMN demo")
        conn.exec_driver_sql("ALTER TABLE games DROP COLUMN moves")
        # as the earlier store counted them: both games
        conn.exec_driver_sql("UPDATE player_stats SET games = 2")
    for _ in range(2):
        again = Store(url)
        assert again.stats(me)["freecell"]["games"] == 1
        assert [g["moves"] for g in again.recent(me, ["freecell"], 5)["freecell"]] == [1]
        again.close()


def test_sqlite_runs_in_wal_mode(tmp_path: Path) -> None:
    s = Store(f"sqlite:///{tmp_path / 'sub' / 'x.sqlite3'}")
    with s.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
    s.close()


def test_urls() -> None:
    assert normalise_url("postgresql://u@h/db") == "postgresql+psycopg://u@h/db"
    assert normalise_url("postgres://u@h/db") == "postgresql+psycopg://u@h/db"
    assert normalise_url("sqlite:////tmp/x") == "sqlite:////tmp/x"


def test_default_database_is_under_the_user_data_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    s = Store()
    assert s.url == f"sqlite:///{tmp_path / 'jielong' / 'jielong.sqlite3'}"
    assert (tmp_path / "jielong" / "jielong.sqlite3").exists()
    s.close()


def test_deal_numbers_past_64_bits(store: Store) -> None:
    big = 10**20 - 1
    session = Session("klondike-3", deal=big)
    session.draw()
    record = store.create(session, "player-gggggggggggg", now=0)
    loaded = store.load(record.id)
    assert loaded is not None and loaded.session.deal == big
    assert store.stats("player-gggggggggggg")["klondike-3"]["games"] == 1
