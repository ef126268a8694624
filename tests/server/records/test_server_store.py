"""The store keeps each action's time (the table's clock when it took effect) and gives
back one stored round (``Store.round_log``) that deals and replays to the round played;
one table is restored by its code (``Store.load_table``), as another process would take
it over.  Each test runs on an SQLite file and on a PostgreSQL database (``store_db``)."""

from __future__ import annotations

import logging
import time

import pytest
from listeners import Quiet

from ligretto.engine.actions import Turn, Vote
from ligretto.engine.rules import RuleSet
from ligretto.engine.serial import action_from_dict
from ligretto.engine.state import Round
from ligretto.protocol import Phase
from ligretto.server.ops import logs, metrics
from ligretto.server.records.store import Store
from ligretto.server.table.clock import VirtualScheduler
from ligretto.server.table.table import Table
from pgserver import PgServer, StoreDatabase


def _played(url: str) -> tuple[Table, Store, VirtualScheduler]:
    """A two-seat table whose first round ends by a vote after a few turns at known times."""
    store = Store(url)
    scheduler = VirtualScheduler(start=1000.0)
    rules = RuleSet().replace(match_end="rounds:2")
    table = Table("T1", seats=2, rules=rules, store=store, countdown_s=1.0, scheduler=scheduler)
    table.join(Quiet(), "Ann")
    table.join(Quiet(), "Bob")
    table.start(0)
    scheduler.advance(1.0)
    assert table.phase is Phase.PLAYING
    scheduler.advance(0.5)
    assert table.act(0, Turn(0)).ok
    scheduler.advance(0.25)
    assert table.act(1, Turn(1)).ok
    scheduler.advance(2.0)
    assert table.act(0, Vote(0)).ok
    assert table.act(1, Vote(1)).ok
    store.commit()
    return table, store, scheduler


def test_each_action_is_stored_with_the_time_it_took_effect(store_db: StoreDatabase) -> None:
    table, store, _ = _played(store_db.url)
    try:
        times = [at for (at,) in store.db.execute("SELECT at FROM actions WHERE code = 'T1' ORDER BY idx")]
        assert times == [1001.5, 1001.75, 1003.75, 1003.75]
    finally:
        table.close()
        store.close()


def test_round_log_gives_the_round_to_replay(store_db: StoreDatabase) -> None:
    table, store, _ = _played(store_db.url)
    try:
        game = table.game
        assert game is not None and game.over
        log = store.round_log("T1", 1, 1)
        assert log is not None
        assert (log.code, log.match, log.number) == ("T1", 1, 1)
        assert [(p.seat, p.name, p.bot) for p in log.players] == [(0, "Ann", None), (1, "Bob", None)]
        assert [(a.index, a.seat, a.at) for a in log.actions] == [
            (0, 0, 1001.5),
            (1, 1, 1001.75),
            (2, 0, 1003.75),
            (3, 1, 1003.75),
        ]
        again = Round.deal(RuleSet.from_dict(log.rules), len(log.players), log.seed)
        for logged in log.actions:
            again.apply(action_from_dict(logged.action))
        assert again.over and again.log == game.log
        assert store.round_log("T1", 1, 2) is None  # not dealt yet (the table is scoring)
        assert store.round_log("nope", 1, 1) is None
    finally:
        table.close()
        store.close()


def test_one_table_is_restored_by_its_code_as_another_process_would(store_db: StoreDatabase) -> None:
    """Two tables in play; a second store on the same database (another process taking
    one over) restores only the table asked for, its round replayed to where it was."""
    store = Store(store_db.url)
    scheduler = VirtualScheduler(start=1000.0)
    tables = [Table(code, seats=2, store=store, countdown_s=1.0, scheduler=scheduler) for code in ("T1", "T2")]
    for table in tables:
        table.join(Quiet(), "Ann")
        table.join(Quiet(), "Bob")
        table.start(0)
    scheduler.advance(1.0)
    first, second = tables
    assert first.act(0, Turn(0)).ok and first.act(1, Turn(1)).ok and second.act(1, Turn(1)).ok
    store.commit()
    other = Store(store_db.url)
    try:
        restored = other.load_table("T1", countdown_s=1.0)
        assert restored is not None and restored.code == "T1"
        assert restored.game is not None and first.game is not None
        assert restored.game.log == first.game.log and len(restored.game.log) == 2
        assert [s.token for s in restored.seats if s] == [s.token for s in first.seats if s]
        assert other.load_table("NOPE") is None
        second.drop()
        store.save_table(second.record())  # as the lobby does
        store.commit()
        assert other.load_table("T2") is None, "a dropped table is not restored"
        assert [t.code for t in other.load_tables(countdown_s=1.0)] == ["T1"]
        restored.close()
    finally:
        for table in tables:
            table.close()
        other.close()
        store.close()


def test_a_lost_postgresql_connection_loses_no_write(postgres: PgServer) -> None:
    """PostgreSQL drops the store's connection (a restart, a failover of the database):
    the commit that fails keeps its writes, the next one connects again and writes them."""
    import psycopg

    store = Store(postgres.new_database())
    scheduler = VirtualScheduler(start=1000.0)
    table = Table("LOST", seats=2, store=store, countdown_s=1.0, scheduler=scheduler)
    try:
        table.join(Quiet(), "Ann")
        table.join(Quiet(), "Bob")
        table.start(0)
        scheduler.advance(1.0)
        (backend,) = store.writer_db.execute("SELECT pg_backend_pid()").fetchone()  # the commits' connection
        with psycopg.connect(postgres.url("postgres"), autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s, 5000)", (backend,))  # waits till it is gone
        store.commit = lambda: None  # type: ignore[method-assign]  # the writes of one turn, then:
        assert table.act(0, Turn(0)).ok and table.act(1, Turn(1)).ok
        del store.commit
        assert store.pending
        store.commit()  # fails on the dropped connection: kept
        assert store.pending
        store.commit()  # connected again
        assert not store.pending
        again = Store(store.db.url)  # type: ignore[attr-defined]
        restored = again.load_table("LOST", countdown_s=1.0)
        assert restored is not None and restored.game is not None and table.game is not None
        assert restored.game.log == table.game.log and len(restored.game.log) == 2
        restored.close()
        again.close()
    finally:
        table.close()
        store.close()


def database_errors() -> float:
    return metrics.REGISTRY.get_sample_value("ligretto_backend_errors_total", {"backend": "database"}) or 0.0


def unwritten() -> float:
    return metrics.REGISTRY.get_sample_value("ligretto_unwritten_commits") or 0.0


def test_the_store_carries_on_after_postgresql_restarts(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PostgreSQL stops (a restart, a failover): the commits meanwhile fail at once,
    keeping their writes (no wait for a server that is not there), and the log says so in
    one line, not a traceback a commit; once it is back, the next commit connects again,
    writes everything and says so."""
    server = PgServer().start()
    try:
        store = Store(server.new_database())
        monkeypatch.setattr(logs.BACKENDS, "now", lambda: 1000.0)  # every failure within one span of the log
        monkeypatch.setattr(logs.BACKENDS, "windows", {})
        scheduler = VirtualScheduler(start=1000.0)
        table = Table("BACK", seats=2, store=store, countdown_s=1.0, scheduler=scheduler)
        table.join(Quiet(), "Ann")
        table.join(Quiet(), "Bob")
        table.start(0)
        scheduler.advance(1.0)
        server.halt()
        started = time.monotonic()
        assert table.act(0, Turn(0)).ok and table.act(1, Turn(1)).ok  # each commits at once: fails
        assert store.pending, "the writes were kept"
        assert time.monotonic() - started < 3, "a commit waited for the absent server"
        before = database_errors()
        for _ in range(10):
            store.commit()  # a storm of failing commits
        assert database_errors() == before + 10, "each failed commit counted in /metrics"
        failed = [r for r in caplog.records if r.name == "ligretto.store" and r.levelno == logging.ERROR]
        assert len(failed) == 1 and failed[0].exc_info is None, [r.getMessage() for r in failed]
        assert "could not write to" in failed[0].getMessage() and store.failed_commits == 12
        assert unwritten() == 12, "/metrics counts the commits not written yet"
        server.run()
        store.writer_db.clock = lambda: time.monotonic() + 60  # type: ignore[attr-defined]  # past the back-off (of the commits' connection)
        store.commit()
        assert not store.pending
        assert "12 commits had failed meanwhile" in caplog.text and store.failed_commits == 0
        assert unwritten() == 0
        again = Store(store.db.url)  # type: ignore[attr-defined]
        restored = again.load_table("BACK", countdown_s=1.0)
        assert restored is not None and restored.game is not None and table.game is not None
        assert restored.game.log == table.game.log and len(restored.game.log) == 2
        restored.close()
        again.close()
        table.close()
        store.close()
    finally:
        server.stop()
