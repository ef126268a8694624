"""The store's schema migrations: a file written before versions existed migrates forward
keeping everything; each step runs once; a failing step changes nothing; a database of a
newer version is refused.  All but the first (old files are SQLite's) run on an SQLite
file and on a PostgreSQL database (``store_db``), whose version is kept in a table."""

from __future__ import annotations

import re
import sqlite3
import threading
from pathlib import Path

import pytest

from ligretto.server.db.database import Database, open_database
from ligretto.server.db.migrations import MIGRATIONS, SchemaTooNew, migrate, version_of
from ligretto.server.records.store import SqliteStore, Store
from pgserver import StoreDatabase

OLD_SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    code TEXT PRIMARY KEY,
    config TEXT NOT NULL,
    updated REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS rounds (
    code TEXT NOT NULL,
    match INTEGER NOT NULL,
    number INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    started REAL NOT NULL,
    PRIMARY KEY (code, match, number)
);
CREATE TABLE IF NOT EXISTS actions (
    code TEXT NOT NULL,
    match INTEGER NOT NULL,
    round INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    action TEXT NOT NULL,
    PRIMARY KEY (code, match, round, idx)
);
"""
"""The schema exactly as the store wrote it before migrations (user_version 0)."""


def _old_file(path: Path) -> None:
    db = sqlite3.connect(path)
    db.executescript(OLD_SCHEMA)
    db.execute("INSERT INTO tables VALUES ('abc', '{\"dropped\": true}', 1.5)")
    db.execute("INSERT INTO rounds VALUES ('abc', 1, 1, 42, 2.5)")
    db.execute('INSERT INTO actions VALUES (\'abc\', 1, 1, 0, \'{"type": "turn", "player": 0}\')')
    db.commit()
    db.close()


def test_a_file_of_the_old_schema_migrates_forward_keeping_everything(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    _old_file(path)
    store = SqliteStore(path)
    try:
        assert version_of(store.db) == len(MIGRATIONS)
        assert store.db.execute("SELECT code, config, updated FROM tables").fetchall() == [
            ("abc", '{"dropped": true}', 1.5)
        ]
        assert store.db.execute("SELECT code, match, number, seed, started FROM rounds").fetchall() == [
            ("abc", 1, 1, 42, 2.5)
        ]
        # The old round got a share token of 128 random bits (as hex), which finds it.
        ((share,),) = store.db.execute("SELECT share FROM rounds").fetchall()
        assert re.fullmatch(r"[0-9a-f]{32}", share), share
        assert store.round_of_token(share) == ("abc", 1, 1)
        assert store.db.execute("SELECT code, match, round, idx, action, at FROM actions").fetchall() == [
            ("abc", 1, 1, 0, '{"type": "turn", "player": 0}', None)
        ]
        names = {name for (name,) in store.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert {"profiles", "profile_links", "matches", "match_players", "ratings"} <= names
    finally:
        store.close()


def test_each_step_is_applied_once(store_db: StoreDatabase) -> None:
    db = open_database(store_db.url)
    steps = (("CREATE TABLE a (x INTEGER)",), ("INSERT INTO a VALUES (1)",))
    assert migrate(db, steps) == 2
    assert migrate(db, steps) == 2  # nothing applied again
    assert db.execute("SELECT x FROM a").fetchall() == [(1,)]
    assert migrate(db, (*steps, ("INSERT INTO a VALUES (2)",))) == 3
    assert db.execute("SELECT x FROM a ORDER BY x").fetchall() == [(1,), (2,)]
    assert version_of(open_database(store_db.url)) == 3, "another connection (process) reads the same version"
    db.close()


def test_a_failing_step_changes_nothing(store_db: StoreDatabase) -> None:
    db = open_database(store_db.url)
    migrate(db, (("CREATE TABLE a (x INTEGER)",),))
    with pytest.raises(db.errors):
        migrate(
            db,
            (
                ("CREATE TABLE a (x INTEGER)",),
                ("CREATE TABLE b (y INTEGER)", "INSERT INTO a VALUES (1)", "INSERT INTO nowhere VALUES (1)"),
            ),
        )
    assert version_of(db) == 1
    assert db.execute("SELECT COUNT(*) FROM a").fetchone() == (0,)
    assert _tables(db) == {"a"}, "the failing step's new table was not kept"
    db.close()


def _tables(db: Database) -> set[str]:
    """The database's tables, but where PostgreSQL keeps the version."""
    if db.dialect.name == "sqlite":
        rows = db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
    else:
        rows = db.execute("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'")
    return {name for (name,) in rows} - {"ligretto_schema"}


def test_a_database_of_a_newer_version_is_refused(store_db: StoreDatabase) -> None:
    db = open_database(store_db.url)
    with db.transaction():
        db.set_version(len(MIGRATIONS) + 1)
    db.close()
    with pytest.raises(SchemaTooNew, match="newer ligretto"):
        Store(store_db.url)
    db = open_database(store_db.url)
    assert _tables(db) == set()  # nothing created
    assert version_of(db) == len(MIGRATIONS) + 1
    db.close()


def test_a_new_database_gets_every_table_and_the_latest_version(store_db: StoreDatabase) -> None:
    store = Store(store_db.url)
    try:
        assert version_of(store.db) == len(MIGRATIONS)
        assert {"tables", "rounds", "actions", "profiles", "matches", "match_players", "ratings"} <= _tables(store.db)
    finally:
        store.close()
    again = Store(store_db.url)  # a second process, or a restart: nothing to do
    assert version_of(again.db) == len(MIGRATIONS)
    again.close()


def test_processes_opening_one_new_database_at_once_migrate_it_once(store_db: StoreDatabase) -> None:
    """Several server processes started together on one (PostgreSQL) database: each step
    is applied by one of them, under the lock; the others find it done."""
    opened: list[Store] = []
    failed: list[BaseException] = []

    def open_store() -> None:
        try:
            opened.append(Store(store_db.url))
        except BaseException as error:
            failed.append(error)

    threads = [threading.Thread(target=open_store) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    try:
        assert failed == [] and len(opened) == 4
        assert {version_of(store.db) for store in opened} == {len(MIGRATIONS)}
        (count,) = opened[0].db.execute("SELECT COUNT(*) FROM rounds").fetchone()
        assert count == 0
    finally:
        for store in opened:
            store.close()
