"""Fencing (``storewrite.fenced``, ``Store.take_over``): a process that lost a table to
another one (it stalled past its lease, and the other took the table over) can no longer
write it, and a take-over waits for a commit of the table in flight, so what that commit
wrote (and acknowledged) is in the restore.  On an SQLite file and on PostgreSQL."""

from __future__ import annotations

import threading

from listeners import Quiet

from ligretto.engine.actions import Turn
from ligretto.server.records import storewrite
from ligretto.server.records.store import Store
from ligretto.server.table.clock import VirtualScheduler
from ligretto.server.table.table import Table
from pgserver import StoreDatabase


def dealt(code: str, store: Store, scheduler: VirtualScheduler) -> Table:
    table = Table(code, seats=2, store=store, countdown_s=1.0, scheduler=scheduler)
    table.join(Quiet(), "Ann")
    table.join(Quiet(), "Bob")
    table.start(0)
    scheduler.advance(1.0)
    return table


def stored_actions(store: Store, code: str) -> int:
    (count,) = store.db.execute("SELECT COUNT(*) FROM actions WHERE code = ?", (code,)).fetchone()
    return int(count)


def test_a_table_taken_over_is_no_longer_written_by_its_old_owner(store_db: StoreDatabase) -> None:
    old, new = Store(store_db.url), Store(store_db.url)
    fenced: list[set[str]] = []
    old.fence_with(fenced.append)
    new.fence_with(lambda codes: None)
    scheduler = VirtualScheduler(start=1000.0)
    taken, kept = dealt("TAKEN", old, scheduler), dealt("KEPT", old, scheduler)
    restored: Table | None = None
    try:
        assert taken.act(0, Turn(0)).ok and kept.act(0, Turn(0)).ok
        assert stored_actions(old, "TAKEN") == 1 and fenced == []

        assert new.take_over("TAKEN") == 1, "the first take-over holds token 1"
        restored = new.load_table("TAKEN", countdown_s=1.0)
        assert restored is not None and restored.game is not None and len(restored.game.log) == 1

        # The old owner plays on (it does not know yet): one commit with both tables.
        old.commit = lambda: None  # type: ignore[method-assign]  # collect both, then commit once
        assert taken.act(1, Turn(1)).ok and kept.act(1, Turn(1)).ok
        del old.commit
        old.commit()
        assert fenced == [{"TAKEN"}], "the old owner is told which table it lost"
        assert stored_actions(old, "TAKEN") == 1, "the old owner overwrote the new owner's table"
        assert stored_actions(old, "KEPT") == 2, "a table it still holds is written in the same commit"

        # The new owner holds token 1; a third process taking it over fences it too.
        with new.writer_db.transaction(immediate=True):
            assert storewrite.fenced(new.writer_db, {"TAKEN": 1}) == set()
        third = Store(store_db.url)
        assert third.take_over("TAKEN") == 2
        with new.writer_db.transaction(immediate=True):
            assert storewrite.fenced(new.writer_db, {"TAKEN": 1}) == {"TAKEN"}
        third.close()
    finally:
        for table in (taken, kept, restored):
            if table is not None:
                table.close()
        old.close()
        new.close()


def test_a_take_over_waits_for_the_old_owners_commit_in_flight_and_restores_it(store_db: StoreDatabase) -> None:
    """The old owner's commit checked its token (and locked the table's row) before the
    take-over: the take-over waits for that commit, then the restore has its action."""
    old, new = Store(store_db.url), Store(store_db.url)
    old.fence_with(lambda codes: None)
    scheduler = VirtualScheduler(start=1000.0)
    table = dealt("RACE", old, scheduler)
    restored: Table | None = None
    try:
        db = old.writer_db
        with db.transaction(immediate=True):
            assert storewrite.fenced(db, {"RACE": 0}) == set(), "still the owner"
            db.execute(
                "INSERT INTO actions (code, match, round, idx, action, at) VALUES (?, ?, ?, ?, ?, ?)",
                ("RACE", 1, 1, 0, '{"type": "turn", "player": 0}', 1001.0),
            )
            taking = threading.Thread(target=new.take_over, args=("RACE",))
            taking.start()
            taking.join(0.5)
            assert taking.is_alive(), "the take-over did not wait for the commit in flight"
        taking.join(10)
        assert not taking.is_alive()
        restored = new.load_table("RACE", countdown_s=1.0)
        assert restored is not None and restored.game is not None
        assert len(restored.game.log) == 1, "the restore lost what the old owner committed"
        with db.transaction(immediate=True):
            assert storewrite.fenced(db, {"RACE": 0}) == {"RACE"}, "the old owner still holds it"
    finally:
        table.close()
        if restored is not None:
            restored.close()
        old.close()
        new.close()


def test_without_fencing_a_store_writes_as_before(store_db: StoreDatabase) -> None:
    """One process (no ``fence_with``): no token is read, a take-over changes nothing it writes."""
    store, other = Store(store_db.url), Store(store_db.url)
    scheduler = VirtualScheduler(start=1000.0)
    table = dealt("ALONE", store, scheduler)
    try:
        other.take_over("ALONE")
        assert table.act(0, Turn(0)).ok
        assert stored_actions(store, "ALONE") == 1
    finally:
        table.close()
        store.close()
        other.close()
