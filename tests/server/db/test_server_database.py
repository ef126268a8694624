"""The store's connection (``server/db/database.py``): the database chosen by URL, one SQL for
both (``?`` placeholders, a literal ``%``), the schema's types as wide on PostgreSQL as on
SQLite (a 63-bit seed, a wall-clock time to the microsecond, text ordered byte by byte),
a transaction that fails changing nothing, and a bad ``--db`` refused in one line."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from ligretto.server.db.database import DatabaseError, PostgresDatabase, SqliteDatabase, open_database
from ligretto.server.records.store import Store
from ligretto.testkit.serverprocess import free_port
from pgserver import PgServer, StoreDatabase


def test_the_database_is_chosen_by_url(tmp_path: Path, postgres: PgServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for url, path in [
        ("plain.db", tmp_path / "plain.db"),
        (tmp_path / "as-path.db", tmp_path / "as-path.db"),
        ("sqlite:///relative.db", tmp_path / "relative.db"),
        (f"sqlite:///{tmp_path}/absolute.db", tmp_path / "absolute.db"),
    ]:
        db = open_database(url)
        assert isinstance(db, SqliteDatabase) and db.path.resolve() == path, url
        db.close()
        assert path.exists()
    for scheme in ("postgresql", "postgres"):
        db = open_database(postgres.new_database().replace("postgresql", scheme, 1))
        assert isinstance(db, PostgresDatabase)
        assert db.execute("SELECT 1").fetchone() == (1,)
        db.close()
    for bad in ("redis://localhost:6379/0", "sqlite://"):
        with pytest.raises(DatabaseError):
            open_database(bad)


def test_a_password_never_reaches_the_name_a_log_shows() -> None:
    with pytest.raises(DatabaseError) as refused:
        PostgresDatabase("postgresql://ann:s3cret@127.0.0.1:1/games")
    assert "s3cret" not in str(refused.value) and "ann:***@127.0.0.1:1/games" in str(refused.value)


def test_one_sql_for_both_placeholders_and_a_literal_percent(store_db: StoreDatabase) -> None:
    db = open_database(store_db.url)
    try:
        assert db.execute("SELECT '50%' || ?", ("!",)).fetchone() == ("50%!",)
        assert db.execute("SELECT '100%'").fetchone() == ("100%",)
        db.execute(db.dialect.schema("CREATE TABLE t (name TEXT PRIMARY KEY, n INTEGER, at REAL)"))
        db.executemany(
            "INSERT INTO t (name, n, at) VALUES (?, ?, ?)", [("b", 2**62 + 1, 1764612345.123456), ("B", 1, 0.5)]
        )
        db.execute(
            "INSERT INTO t (name, n, at) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET n = excluded.n", ("B", 7, 0)
        )
        assert db.execute("SELECT name, n, at FROM t ORDER BY name").fetchall() == [
            ("B", 7, 0.5),
            ("b", 2**62 + 1, 1764612345.123456),
        ], "byte order (B before b), 64-bit integers and double precision on both"
    finally:
        db.close()


def test_a_failing_transaction_changes_nothing(store_db: StoreDatabase) -> None:
    db = open_database(store_db.url)
    try:
        db.execute(db.dialect.schema("CREATE TABLE t (n INTEGER PRIMARY KEY)"))
        with pytest.raises(db.errors), db.transaction():
            db.execute("INSERT INTO t VALUES (1)")
            db.execute("INSERT INTO t VALUES (1)")
        assert db.execute("SELECT COUNT(*) FROM t").fetchone() == (0,)
        with db.transaction():
            db.execute("INSERT INTO t VALUES (2)")
        assert db.execute("SELECT n FROM t").fetchall() == [(2,)]
    finally:
        db.close()


def test_a_round_seed_and_its_time_read_back_whole(store_db: StoreDatabase) -> None:
    store = Store(store_db.url)
    try:
        seed, started = 2**63 - 1, 1764612345.654321
        store.db.execute(
            "INSERT INTO rounds (code, match, number, seed, started, share) VALUES ('S', 1, 1, ?, ?, 'tok')",
            (seed, started),
        )
        store.db.execute(
            "INSERT INTO tables (code, config, updated) VALUES ('S', ?, 0)", ('{"rules": {}, "seats": []}',)
        )
        assert store.db.execute("SELECT seed, started FROM rounds").fetchone() == (seed, started)
        assert store.round_of_token("tok") == ("S", 1, 1)
    finally:
        store.close()


def test_serve_refuses_a_database_it_cannot_open_in_one_line(tmp_path: Path) -> None:
    for url, code, says in [  # a URL of no database: what was typed (2); no server there (1)
        ("redis://localhost:6379/0", 2, "error: --db: a database is a file, sqlite:///FILE or postgresql://"),
        ("postgresql://ann:s3cret@127.0.0.1:1/games", 1, "could not connect to postgresql://ann:***@127.0.0.1:1/games"),
    ]:
        done = subprocess.run(
            [sys.executable, "-m", "ligretto", "serve", "--port", str(free_port()), "--db", url],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            cwd=tmp_path,
        )
        assert done.returncode == code and done.stderr.startswith(f"ligretto serve: {says}"), done.stderr
        assert "Traceback" not in done.stderr and "s3cret" not in done.stderr


def test_a_checkpoint_starts_the_write_ahead_log_again_though_commits_came_while_it_copied(tmp_path: Path) -> None:
    """Under steady commits a passive checkpoint never finds the whole log copied (commits
    come while it copies), so the log was never started again and grew without end (issue
    31); :meth:`SqliteDatabase.checkpoint` then holds the writer for what came meanwhile
    and starts the log again: the next commit is written at its beginning.  A log shorter
    than ``restart_frames`` goes on (a restart holds the writer)."""
    db = SqliteDatabase(tmp_path / "wal.db")
    db.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)")

    def commit(rows: int) -> None:
        with db.transaction(immediate=True):
            db.executemany("INSERT INTO t (v) VALUES (?)", [("x" * 2000,)] * rows)

    commit(10_000)  # 20 MB of log: its copy takes a while
    stop, commits = threading.Event(), [0]

    def writer() -> None:
        while not stop.is_set():
            commit(1)
            commits[0] += 1

    checkpointer = db.checkpoints_connection(wait_s=10.0)
    checkpointer.set_trace_callback(lambda sql: stop.set() if "RESTART" in sql else None)
    during = threading.Thread(target=writer)
    during.start()
    try:
        deadline = time.monotonic() + 10
        while commits[0] < 3:  # the writer is committing: then the checkpoint starts
            assert during.is_alive() and time.monotonic() < deadline, "the writer does not commit"
            time.sleep(0.001)
        copied = db.checkpoint(checkpointer, restart_frames=1000)
    finally:
        stop.set()
        during.join(10)
    assert copied
    commit(1)
    (_busy, frames, _copied) = db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    assert frames < 100, f"the log went on after the checkpoint: {frames} frames"
    commit(1)
    assert not db.checkpoint(checkpointer, restart_frames=1000), "a short log goes on: no restart"
    checkpointer.close()
    db.close()
