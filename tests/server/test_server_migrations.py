"""The store's schema migrations: a file written before versions existed migrates forward
keeping everything; each step runs once; a file of a newer version is refused."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from ligretto.server.migrations import MIGRATIONS, SchemaTooNew, migrate, version_of
from ligretto.server.store import SqliteStore

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


def test_each_step_is_applied_once(tmp_path: Path) -> None:
    db = sqlite3.connect(tmp_path / "x.sqlite", isolation_level=None)
    steps = (("CREATE TABLE a (x)",), ("INSERT INTO a VALUES (1)",))
    assert migrate(db, steps) == 2
    assert migrate(db, steps) == 2  # nothing applied again
    assert db.execute("SELECT x FROM a").fetchall() == [(1,)]
    assert migrate(db, (*steps, ("INSERT INTO a VALUES (2)",))) == 3
    assert db.execute("SELECT x FROM a ORDER BY x").fetchall() == [(1,), (2,)]
    db.close()


def test_a_failing_step_changes_nothing(tmp_path: Path) -> None:
    db = sqlite3.connect(tmp_path / "x.sqlite", isolation_level=None)
    migrate(db, (("CREATE TABLE a (x)",),))
    with pytest.raises(sqlite3.OperationalError):
        migrate(db, (("CREATE TABLE a (x)",), ("INSERT INTO a VALUES (1)", "INSERT INTO nowhere VALUES (1)")))
    assert version_of(db) == 1
    assert db.execute("SELECT COUNT(*) FROM a").fetchone() == (0,)
    db.close()


def test_a_file_of_a_newer_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "new.sqlite"
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
    db.close()
    with pytest.raises(SchemaTooNew, match="newer ligretto"):
        SqliteStore(path)
    db = sqlite3.connect(path)
    assert db.execute("SELECT name FROM sqlite_master").fetchall() == []  # nothing created
    db.close()
