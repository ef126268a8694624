"""The directory in Redis (``server/cluster/redisdirectory.py``, ``failover.py``), in
process against the session's REAL redis-server: a code is one process's only; a lost
lease lets the table go; a table nobody holds is an orphan that another process restores
from the shared store; placement by load; a handover releases every lease; while a
process takes a table over, a ``hello`` for it (through the web app, in process) is told
to try again, never ``no_table``, and a request for a table nobody holds takes it over
and is answered; the first take-over after a REAL PostgreSQL restarted works, and one
the database cannot serve gives its lease up."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import redis
import redis.asyncio
from listeners import Recorder
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from ligretto import protocol
from ligretto.engine.rules import RuleSet
from ligretto.server.cluster import failover, keys
from ligretto.server.cluster.directory import Unavailable
from ligretto.server.cluster.redisdirectory import RedisDirectory
from ligretto.server.cluster.renewer import STALL_S, Renewer
from ligretto.server.records.store import Store
from ligretto.server.web.app import create_app
from ligretto.server.web.lobby import Lobby
from ligretto.server.web.settings import Settings
from ligretto.testkit.serverprocess import OPEN_LIMITS
from pgserver import PgServer
from redisserver import RedisServer


async def _process(url: str, db: Path | str, name: str) -> tuple[Lobby, RedisDirectory]:
    directory = RedisDirectory(url, f"http://{name}.invalid:1", process=name)
    lobby = Lobby(Settings(), Store(db), directory=directory)
    await directory.start(lobby)
    return lobby, directory


async def _table(lobby: Lobby) -> str:
    code = await lobby.reserve_code()
    lobby.create(2, RuleSet(), public=True, grace_s=60, code=code)
    await asyncio.sleep(0)  # the store commits on the loop's next turn
    return code


async def _shut(lobby: Lobby, directory: RedisDirectory) -> None:
    directory.leave()
    for table in lobby.tables.values():
        table.close()
    lobby.store.close()
    await directory.stop()


def test_a_code_is_one_process_s_only(redis_url: str, tmp_path: Path, arun: Any) -> None:
    async def scenario() -> None:
        a_lobby, a = await _process(redis_url, tmp_path / "l.db", "a")
        b_lobby, b = await _process(redis_url, tmp_path / "l.db", "b")
        code = await _table(a_lobby)
        assert not await b.reserve(code, stored=True), "another process's code"
        assert await a.redis.get(keys.table(code)) == "a"
        assert code in await a.redis.smembers(keys.TABLES)
        tutorial = await a_lobby.reserve_code(stored=False)
        assert tutorial not in await a.redis.smembers(keys.TABLES), "a tutorial is not restored anywhere"
        await _shut(b_lobby, b)
        await _shut(a_lobby, a)

    arun(scenario())


def test_a_lost_lease_lets_the_table_go(redis_url: str, tmp_path: Path, arun: Any) -> None:
    async def scenario() -> None:
        lobby, directory = await _process(redis_url, tmp_path / "l.db", "a")
        kept, lost = await _table(lobby), await _table(lobby)
        table = lobby.tables[lost]
        await directory.redis.set(keys.table(lost), "someone-else")  # taken over meanwhile
        await directory.renew()
        assert lost not in lobby.tables and table.closed and lost not in directory.owned
        assert kept in lobby.tables and await directory.redis.pttl(keys.table(kept)) > 0
        assert await directory.redis.get(keys.table(lost)) == "someone-else", "not taken back"
        await _shut(lobby, directory)

    arun(scenario())


def test_a_table_nobody_holds_is_restored_by_another_process(redis_url: str, tmp_path: Path, arun: Any) -> None:
    async def scenario() -> None:
        a_lobby, a = await _process(redis_url, tmp_path / "l.db", "a")
        code = await _table(a_lobby)
        b_lobby, b = await _process(redis_url, tmp_path / "l.db", "b")
        assert await failover.orphans(b.redis, b.owned) == [], "a holds it"
        a.leave()  # a stalls: no renewals; its lease runs out
        await a.redis.delete(keys.table(code))
        assert await failover.orphans(b.redis, b.owned) == [code]
        await b._take_orphans()
        assert code in b_lobby.tables and await b.redis.get(keys.table(code)) == "b"
        assert b_lobby.tables[code].summary() == a_lobby.tables[code].summary(), "the same table"
        await _shut(b_lobby, b)
        a_lobby.store.close()
        await a.redis.aclose()

    arun(scenario())


def test_new_tables_go_to_the_least_loaded_process(redis_url: str, tmp_path: Path, arun: Any) -> None:
    async def scenario() -> None:
        a_lobby, a = await _process(redis_url, tmp_path / "l.db", "a")
        b_lobby, b = await _process(redis_url, tmp_path / "l.db", "b")
        assert await a._least_loaded() == ("a", "http://a.invalid:1"), "a tie: by id"
        await _table(a_lobby)
        assert await a._least_loaded() == ("b", "http://b.invalid:1"), "fewer tables"
        await _table(b_lobby)
        await _table(b_lobby)
        b_lobby.connections.count = 0
        a_lobby.connections.count = 5
        await a._beat()
        assert await b._least_loaded() == ("b", "http://b.invalid:1"), "connections count first"
        await _shut(a_lobby, a)
        assert await b._least_loaded() == ("b", "http://b.invalid:1"), "a left the service"
        await _shut(b_lobby, b)

    arun(scenario())


def test_a_handover_releases_every_lease(redis_url: str, tmp_path: Path, arun: Any) -> None:
    async def scenario() -> None:
        lobby, directory = await _process(redis_url, tmp_path / "l.db", "a")
        codes = [await _table(lobby) for _ in range(3)]
        await _shut(lobby, directory)
        check = redis.asyncio.from_url(redis_url, decode_responses=True)
        assert [await check.get(keys.table(c)) for c in codes] == [None, None, None]
        assert sorted(await check.smembers(keys.TABLES)) == sorted(codes), "still the service's: to be taken"
        assert await check.get(keys.process("a")) is None
        assert all(task.done() for task in directory._tasks), "its tasks have ended (the lobby feed's too)"
        await check.aclose()

    arun(scenario())


def test_a_redis_that_restarted_empty_learns_the_tables_again(redis_url: str, tmp_path: Path, arun: Any) -> None:
    async def scenario() -> None:
        lobby, directory = await _process(redis_url, tmp_path / "l.db", "a")
        code = await _table(lobby)
        tutorial = await lobby.reserve_code(stored=False)
        lobby.create_tutorial("Ann", tutorial)
        await directory.redis.flushall()  # Redis restarted without its data
        await directory.renew()
        assert code in lobby.tables and tutorial in lobby.tables, "nobody else took them: kept"
        assert await directory.redis.get(keys.table(code)) == "a"
        assert await directory.redis.get(keys.table(tutorial)) == "a"
        assert await directory.redis.smembers(keys.TABLES) == {code}, "offered again, the tutorial not"
        await _shut(lobby, directory)

    arun(scenario())


def _quiet(directory: RedisDirectory) -> None:
    """No renewal of its own accord (its thread's and its loop's are the test's to call),
    still a live process (not leaving)."""
    directory.renewer.halt()
    for task in directory._tasks:
        task.cancel()


def test_a_redis_that_restarted_empty_gives_no_live_owner_s_table_to_another(
    redis_url: str, tmp_path: Path, arun: Any
) -> None:
    """After Redis restarted empty, a table comes back into the set of stored tables only
    with its owner's lease (one script, on the renewals' thread): another process's sweep
    between the owner's loop and its thread finds no orphan to take from a live owner (the
    stress harness's ``redis_down`` saw one taken, its owner fenced, its people moved)."""

    async def scenario() -> None:
        a_lobby, a = await _process(redis_url, tmp_path / "l.db", "a")
        b_lobby, b = await _process(redis_url, tmp_path / "l.db", "b")
        code = await _table(a_lobby)
        _quiet(a)
        _quiet(b)
        await a.redis.flushall()  # Redis restarted without its data
        await a._sweep()  # the owner's loop renews before its thread does
        await b._sweep()  # another process looks for orphans meanwhile
        assert code not in b_lobby.tables and await b.redis.get(keys.table(code)) is None, "taken from a live owner"
        await a.renew()  # the owner's thread: its lease and its table offered again, together
        assert await a.redis.get(keys.table(code)) == "a" and await a.redis.smembers(keys.TABLES) == {code}
        await b._sweep()
        assert code in a_lobby.tables and code not in b_lobby.tables
        await _shut(b_lobby, b)
        await _shut(a_lobby, a)

    arun(scenario())


def test_a_hello_right_after_redis_restarted_empty_is_told_to_try_again(
    redis_url: str, tmp_path: Path, arun: Any
) -> None:
    """Redis restarted empty: until its owner offers a stored table again (its next renewal),
    no process knows it; a ``hello`` for it through another process is to try again, never
    ``no_table``, on which a client gives up (the stress harness's ``redis_down`` saw four
    people ejected so).  A stored table nobody offers for ``keys.LEASE_S`` (its owner died
    too) is offered by the process asked, and taken over there."""

    async def scenario() -> None:
        a_lobby, a = await _process(redis_url, tmp_path / "l.db", "a")
        b_lobby, b = await _process(redis_url, tmp_path / "l.db", "b")
        code = await _table(a_lobby)
        _quiet(a)
        _quiet(b)
        await a.redis.flushall()
        with pytest.raises(Unavailable):
            await b.locate(code)
        assert await b.locate("never-made") is None, "a code no table has: no_table"
        await a.renew()
        assert await b.locate(code) == "http://a.invalid:1", "its owner, once it offered it again"
        await a.redis.flushall()  # and now its owner is gone too: nobody offers it
        a_lobby.store.close()
        await a.redis.aclose()
        with pytest.raises(Unavailable):
            await b.locate(code)
        await asyncio.sleep(keys.LEASE_S)
        assert await b.locate(code) is None and code in b_lobby.tables, "taken over where it was asked for"
        await _shut(b_lobby, b)

    arun(scenario())


def test_a_process_told_to_stop_takes_over_no_table_it_was_reaching_for(
    redis_url: str, postgres: PgServer, arun: Any
) -> None:
    """A sweep under way when the process is told to stop (another had just handed its
    tables over) takes nothing over once the process is leaving: it would restore the table
    into a closing store (on PostgreSQL, on a new connection) and write it through a writer
    that has stopped (a traceback in the stress harness's ``redis_down`` as its processes
    were stopped one after the other)."""
    db = postgres.new_database()

    async def scenario() -> None:
        gone_lobby, gone = await _process(redis_url, db, "gone")
        code = await _table(gone_lobby)
        a_lobby, a = await _process(redis_url, db, "a")
        _quiet(a)
        await _shut(gone_lobby, gone)  # handed over: its lease released, its table an orphan
        sweep = asyncio.create_task(a._take_orphans())
        await asyncio.sleep(0)  # under way: waiting for Redis
        a.leave()  # told to stop: then the app closes the tables and the store
        a_lobby.store.close()
        await sweep
        assert code not in a_lobby.tables and await a.redis.get(keys.table(code)) != "a", "taken while leaving"
        await a.stop()

    arun(scenario())


def test_a_dead_process_s_tables_are_spread_over_the_live_ones(redis_url: str, tmp_path: Path, arun: Any) -> None:
    async def scenario() -> None:
        dead_lobby, dead = await _process(redis_url, tmp_path / "l.db", "dead")
        codes = [await _table(dead_lobby) for _ in range(4)]
        dead.leave()
        await dead.redis.delete(*(keys.table(c) for c in codes), keys.process("dead"))  # its leases ran out
        a_lobby, a = await _process(redis_url, tmp_path / "l.db", "a")
        assert not a_lobby.tables, "the grace of a start: nothing taken before the first sweep"
        await a._take_orphans()  # takes all: the only one alive
        assert sorted(a_lobby.tables) == sorted(codes)
        for code in codes[:3]:  # a's tables are gone again: a and b are alive now
            a.owned.discard(code)
            del a_lobby.tables[code]
            await a.redis.delete(keys.table(code))
        b_lobby, b = await _process(redis_url, tmp_path / "l.db", "b")
        await b._take_orphans()
        assert len(b_lobby.tables) == 2, "its fair share: 4 tables, 2 live processes"
        await a._take_orphans()
        assert len(a_lobby.tables) == 2 and not set(a_lobby.tables) & set(b_lobby.tables)
        await _shut(b_lobby, b)
        await _shut(a_lobby, a)
        dead_lobby.store.close()
        await dead.redis.aclose()

    arun(scenario())


def test_processes_started_together_take_their_fair_shares(redis_url: str, tmp_path: Path, arun: Any) -> None:
    """A service started from nothing: the stored tables, no lease; three processes start
    (each beats its heartbeat, takes nothing yet), then sweep: none takes more than its
    fair share, ceil(7 / 3); the last takes the rest; a sweep after takes nothing more."""

    async def scenario() -> None:
        old_lobby, old = await _process(redis_url, tmp_path / "l.db", "old")
        codes = [await _table(old_lobby) for _ in range(7)]
        old.leave()
        await old.redis.flushdb()  # Redis from nothing
        started = [await _process(redis_url, tmp_path / "l.db", name) for name in "abc"]
        assert all(not lobby.tables for lobby, _ in started), "the grace of a start"
        assert await started[0][1].redis.smembers(keys.TABLES) == set(codes), "offered by each"
        for _, directory in started:
            await directory._take_orphans()
        counts = [len(lobby.tables) for lobby, _ in started]
        assert counts == [3, 3, 1], counts
        for _, directory in started:
            await directory._take_orphans()
        assert [len(lobby.tables) for lobby, _ in started] == counts, "every table has its owner"
        taken = [code for lobby, _ in started for code in lobby.tables]
        assert sorted(taken) == sorted(codes)
        for lobby, directory in started:
            await _shut(lobby, directory)
        old_lobby.store.close()
        await old.redis.aclose()

    arun(scenario())


def test_tables_are_spread_until_each_process_is_within_one_of_its_fair_share(
    redis_url: str, tmp_path: Path, arun: Any
) -> None:
    """Nine tables over four processes, 3, 3, 3, 0: the last is more than one below its fair
    share (2 or 3), so the most loaded (the first by id) hands one over (at a renewal, one
    with no round on) and does not take it back itself, though under its fair share (at its
    sweep, or at a ``hello`` there: try again); another takes it: 2, 3, 3, 1, and nothing
    more moves.  (Once a process only shed above its fair share and one, a rolling restart
    of three processes with twelve tables ended 5, 5, 2 in the stress harness's
    ``rolling_restart``.)"""

    async def scenario() -> None:
        processes = [await _process(redis_url, tmp_path / "l.db", name) for name in ("a", "b", "c", "d")]
        for (lobby, directory), tables in zip(processes, (3, 3, 3, 0), strict=True):
            _quiet(directory)
            for _ in range(tables):
                await _table(lobby)
        (_, a), (_, b), _, (_, d) = processes

        async def renewed() -> list[int]:
            for _, directory in processes:
                await directory.renew()  # leases and heartbeats as the renewals keep them
            return [len(lobby.tables) for lobby, _ in processes]

        assert await renewed() == [3, 3, 3, 0]
        await b._shed_excess()  # not the first of the most loaded
        assert await renewed() == [3, 3, 3, 0]
        await a._shed_excess()
        assert await renewed() == [2, 3, 3, 0]
        (handed,) = await failover.orphans(a.redis, a.owned)
        await a._take_orphans()  # its fair share (3) would have it take one back
        with pytest.raises(Unavailable):
            await a.locate(handed)
        assert await renewed() == [2, 3, 3, 0], "taken back by the process that handed it over"
        await d._take_orphans()
        for _, directory in processes:
            await directory._shed_excess()  # each within one of its fair share: kept
        assert await renewed() == [2, 3, 3, 1]
        for lobby, directory in processes:
            await _shut(lobby, directory)

    arun(scenario())


def test_a_census_s_fair_share() -> None:
    census = failover.Census(["x", "y", "z"], held=4, mine=1)
    assert census.share(1) == 3, "a lone process takes every orphan"
    assert census.share(2) == 3, "ceil(8 / 2) - 1, no more than the orphans"
    assert census.share(3) == 2, "ceil(8 / 3) - 1"
    assert failover.Census(["x"], held=0, mine=5).share(2) == 0, "more than its share already"
    assert census.share(0) == 3, "no heartbeat seen yet: as a lone process"


def test_a_renewal_while_a_table_is_being_made_keeps_its_code(redis_url: str, tmp_path: Path, arun: Any) -> None:
    """Between the code's reservation and the table in the lobby a renewal may run: the
    code is not given back (it was, once: the table then had no owner)."""

    async def scenario() -> None:
        lobby, directory = await _process(redis_url, tmp_path / "l.db", "a")
        code = await lobby.reserve_code()
        await directory.renew()  # the table is not made yet
        assert code in directory.owned and await directory.redis.get(keys.table(code)) == "a"
        assert code in await directory.redis.smembers(keys.TABLES)
        await _shut(lobby, directory)

    arun(scenario())


def test_leases_are_renewed_from_a_thread_while_the_event_loop_is_alive(redis_url: str) -> None:
    """A busy loop keeps its leases (the thread renews them); a loop not seen for
    ``STALL_S`` is stuck and lets them run out, as a dead process does (injected clock)."""
    now = [0.0]
    lost: list[list[str]] = []
    renewer = Renewer(
        redis_url, "a", 2000, held=lambda: ["t1", "t2"], beat=lambda: "{}", lost=lost.append, clock=lambda: now[0]
    )
    check = redis.Redis.from_url(redis_url, decode_responses=True)
    check.set(keys.table("t1"), "a", px=500)
    check.set(keys.table("t2"), "b", px=5000)  # taken over meanwhile
    assert renewer.renew_once() == ["t2"]
    assert check.get(keys.table("t1")) == "a" and check.pttl(keys.table("t1")) > 1000
    assert check.get(keys.table("t2")) == "b", "another's lease is left alone"
    assert check.get(keys.process("a")) == "{}" and check.sismember(keys.PROCESSES, "a")
    now[0] = STALL_S
    assert renewer.alive()
    now[0] = STALL_S + 0.1
    assert not renewer.alive(), "a loop not seen for STALL_S is stuck"
    renewer.seen()
    assert renewer.alive()
    renewer.stop()
    check.close()


def unread_by(port: int, connections: int, within_s: float = 10.0) -> None:
    """Until ``connections`` connections to the server on ``port`` of 127.0.0.1 hold bytes
    it has not read (the receive queue of its end, ``/proc/net/tcp``): requests sent to a
    hung server, however long the sending threads took to be scheduled."""
    local = f"0100007F:{port:04X}"
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        rows = [line.split() for line in Path("/proc/net/tcp").read_text().splitlines()[1:]]
        unread = [row for row in rows if row[1] == local and row[3] == "01" and int(row[4].split(":")[1], 16)]
        if len(unread) >= connections:
            return
        time.sleep(0.01)
    raise AssertionError(f"not {connections} requests sent to port {port} within {within_s} s")


def test_a_renewal_held_by_a_hung_redis_takes_its_lease_back_before_anyone_takes_the_table(tmp_path: Path) -> None:
    """Redis hung for longer than a lease (SIGSTOP: its clock runs on, so every lease has
    run out as it resumes).  The owner's renewal, sent while it hung, is one round trip
    (heartbeat, leases, stored tables together): it is done in the same turn of Redis's
    loop as what another process asked after it -- who owns the table, for a ``hello`` --
    so that process's take-over (``SET NX``, a round trip after the answer, as
    :func:`failover.take`) finds the lease back and never takes the table from a live owner
    (the stress harness's ``redis_down`` saw that, the heartbeat a round trip of its own
    before the leases).  The question itself may be answered first, "nobody": Redis serves
    the sockets of one turn in the order its poll lists them, and a socket it served just
    before the hang is listed first."""
    server = RedisServer(tmp_path)
    server.start()
    renewer = Renewer(
        server.url, "a", 1000, held=lambda: ["t1"], stored=lambda: {"t1"}, beat=lambda: "{}", lost=lambda c: None
    )
    check = redis.Redis.from_url(server.url, decode_responses=True)
    took: list[bool] = []

    def locate() -> None:  # as RedisDirectory._locate: who owns it; nobody: take it over
        if check.get(keys.table("t1")) is None:
            took.append(bool(check.set(keys.table("t1"), "b", nx=True, px=1000)))

    try:
        assert renewer.renew_once() == []
        check.ping()  # connected before the hang
        server.hang()
        try:
            renewal = threading.Thread(target=renewer.renew_once)
            renewal.start()
            unread_by(server.port, 1)  # the renewal is in Redis's socket: then the question
            looker = threading.Thread(target=locate)
            looker.start()
            unread_by(server.port, 2)
            time.sleep(1.2)  # past the lease
        finally:
            server.resume()
        looker.join(10)
        renewal.join(10)
        assert True not in took, "the table taken over from its live owner"
        assert check.get(keys.table("t1")) == "a"
        assert check.sismember(keys.TABLES, "t1")
    finally:
        renewer.stop()
        check.close()
        server.stop()


def test_a_redis_that_hangs_does_not_make_the_loop_look_stuck(redis_url: str, tmp_path: Path, arun: Any) -> None:
    """The loop's Redis work hangs (a Redis that does not answer for seconds): the loop
    itself runs, so its leases are still renewed; only a loop that runs nothing is stuck
    (the renewer's clock held by the test, past ``STALL_S``)."""

    async def scenario() -> None:
        directory = RedisDirectory(redis_url, "http://a.invalid:1", process="a", lease_s=0.3)
        lobby = Lobby(Settings(), Store(tmp_path / "l.db"), directory=directory)
        hung = asyncio.Event()

        async def hangs() -> None:
            hung.set()
            await asyncio.Event().wait()  # a Redis call that never returns

        directory._take_orphans = hangs  # type: ignore[method-assign]
        now = [0.0]
        directory.renewer.clock = lambda: now[0]
        await directory.start(lobby)
        await asyncio.wait_for(hung.wait(), 10)  # the loop's renewal is hung from here
        now[0] = STALL_S + 1.0
        deadline = asyncio.get_running_loop().time() + 10
        while not directory.renewer.alive():  # a renewal period or two of the loop's running
            assert asyncio.get_running_loop().time() < deadline, "the loop looks stuck while it runs"
            await asyncio.sleep(0.05)
        await _shut(lobby, directory)

    arun(scenario())


async def _orphaned(url: str, db: Path | str, codes: int = 1) -> list[tuple[str, str]]:
    """Tables of the service whose process is gone (stored, offered in ``keys.TABLES``, no
    lease), each with Ann seated: their codes and Ann's seat tokens."""
    lobby = Lobby(Settings(), Store(db))
    seated = []
    for _ in range(codes):
        code = await _table(lobby)
        _, token = lobby.tables[code].join(Recorder(), "Ann")
        seated.append((code, token))
    await asyncio.sleep(0)  # committed
    lobby.store.close()
    check = redis.asyncio.from_url(url, decode_responses=True)
    await check.sadd(keys.TABLES, *(code for code, _ in seated))
    await check.aclose()
    return seated


def _hello(code: str, **fields: Any) -> dict[str, Any]:
    return {"type": "hello", "v": 1, "code": code, **fields}


def test_a_hello_while_the_table_is_taken_over_is_told_to_try_again(
    redis_url: str, tmp_path: Path, arun: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Process ``b`` holds the lease of a dead process's table and has not restored it yet
    (held here on purpose: ``failover.take`` waits for the test once the lease is b's):
    Ann's ``hello`` with her seat token is closed 1013 (try again, as the clients do),
    not answered ``no_table`` (final for them), and the table's details are 503
    ``moving``, asked directly or relayed by another process; once it is restored, the
    same ``hello`` is welcomed to her seat."""
    db = tmp_path / "l.db"
    [(code, token)] = arun(_orphaned(redis_url, db))
    leased, restore = threading.Event(), threading.Event()
    take = failover.take

    async def held(redis: Any, wanted: str, process: str, lease_ms: int) -> bool:
        taken = await take(redis, wanted, process, lease_ms)
        if taken and wanted == code:
            leased.set()
            await asyncio.to_thread(restore.wait, 30)
        return taken

    monkeypatch.setattr(failover, "take", held)
    directory = RedisDirectory(redis_url, "http://b.invalid:1", process="b", start_grace_s=3600)
    app = create_app(Settings(**OPEN_LIMITS), Store(db), directory=directory)
    with TestClient(app, base_url="http://127.0.0.1:8000", client=("127.0.0.1", 50000)) as client:
        with client.websocket_connect("/ws") as first:
            try:
                first.send_json(_hello(code, watch=True))  # takes the table over here, held
                assert leased.wait(30), "the lease was not taken"
                with client.websocket_connect("/ws") as early:
                    early.send_json(_hello(code, token=token))
                    with pytest.raises(WebSocketDisconnect) as closed:
                        print("answered:", early.receive_json())
                    assert closed.value.code == protocol.TRY_AGAIN
                for headers in ({}, {keys.RELAYED: "1"}):
                    answer = client.get(f"/api/tables/{code}", headers=headers)
                    assert answer.status_code == 503, (headers, answer.text)
                    assert answer.json()["error"] == "moving" and answer.headers["retry-after"] == "1"
            finally:
                restore.set()
            assert first.receive_json()["type"] == "welcome"
        with client.websocket_connect("/ws") as back:
            back.send_json(_hello(code, token=token))
            welcome = back.receive_json()
            assert welcome["type"] == "welcome" and welcome["seat"] == 0, welcome
        assert client.get(f"/api/tables/{code}").status_code == 200
        assert client.get("/api/tables/NOSUCHTABLE").json()["error"] == "no_table", "an unknown code stays final"


def test_a_hello_whose_table_is_handed_over_as_it_is_taken_over_is_told_to_try_again(
    redis_url: str, tmp_path: Path, arun: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A spectator's ``hello`` reaches ``b``, the most loaded of two live processes, for a
    table nobody holds: ``b`` takes it over for the ``hello`` and restores it, and while the
    take-over beats the heartbeat (held here on purpose) ``b``'s rebalancing hands over its
    quietest table -- this one, which nobody has joined yet.  The ``hello`` is told to try
    again (1013: the table is moving), never "here", which the lookup that follows answered
    ``no_table`` (a spectator ejected in the stress harness's ``rolling_restart``); the table
    is still the service's, for another process to take."""

    async def scenario() -> None:
        [(code, _)] = await _orphaned(redis_url, tmp_path / "l.db")
        b_lobby, b = await _process(redis_url, tmp_path / "l.db", "b")
        c_lobby, c = await _process(redis_url, tmp_path / "l.db", "c")
        _quiet(b)
        _quiet(c)
        for _ in range(3):  # b's own tables, a person at each: 4 to 0 with the orphan, b hands one over
            b_lobby.tables[await _table(b_lobby)].join(Recorder(), "Bo")
        beating, beat_on = asyncio.Event(), asyncio.Event()
        beat = b._beat

        async def held_beat() -> None:
            if code in b_lobby.tables and not beating.is_set():  # the take-over's, once restored
                beating.set()
                await beat_on.wait()
            await beat()

        monkeypatch.setattr(b, "_beat", held_beat)
        hello = asyncio.create_task(b.route(json.dumps(_hello(code, watch=True)), relayed=False))
        await asyncio.wait_for(beating.wait(), 10)
        assert code in b_lobby.tables and not b_lobby.tables[code].listeners, "restored, nobody at it yet"
        await c._beat()  # c is alive
        await b._shed_excess()
        assert code not in b_lobby.tables and code not in b.owned, "handed over: the quietest table"
        beat_on.set()
        with pytest.raises(Unavailable):
            print("answered here:", await hello)  # then the lookup: no_table
        assert code in await b.redis.smembers(keys.TABLES), "still the service's"
        await c._take_orphans()
        assert code in c_lobby.tables, "taken over by the other process"
        await _shut(c_lobby, c)
        await _shut(b_lobby, b)

    arun(scenario())


def test_a_hello_for_a_table_dropped_before_its_take_over_is_no_table(
    redis_url: str, tmp_path: Path, arun: Any
) -> None:
    """A stored table nobody holds, dropped for good before any process took it over: the
    ``hello`` that finds it so is answered here (``None``: ``no_table``), and the table is no
    longer the service's."""

    async def scenario() -> None:
        [(code, _)] = await _orphaned(redis_url, tmp_path / "l.db")
        store = Store(tmp_path / "l.db")
        table = store.load_table(code)
        assert table is not None
        table.drop()
        store.save_table(table.record())
        store.commit()
        store.close()
        b_lobby, b = await _process(redis_url, tmp_path / "l.db", "b")
        _quiet(b)
        assert await b.locate(code) is None and code not in b_lobby.tables
        assert code not in await b.redis.smembers(keys.TABLES) and await b.redis.get(keys.table(code)) is None
        await _shut(b_lobby, b)

    arun(scenario())


def test_two_take_overs_of_one_table_at_once_keep_it_marked_until_the_winner_has_it(
    redis_url: str, tmp_path: Path, arun: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two hellos take the same orphan over in one process at once: the one whose
    lease request is answered first lost it (the other's was first at Redis).  It must not
    unmark the table while the winner restores it: a ``hello`` in between would find a lease
    of its own with no table, give it up and restore the table a second time."""

    async def scenario() -> None:
        [(code, _)] = await _orphaned(redis_url, tmp_path / "l.db")
        b_lobby, b = await _process(redis_url, tmp_path / "l.db", "b")
        _quiet(b)
        answered = asyncio.Event()
        take = failover.take

        async def taken_in_turn(redis: Any, asked: str, process: str, lease_ms: int) -> bool:
            if answered.is_set():
                return False  # the second asker: the lease is the first's
            answered.set()
            won = await take(redis, asked, process, lease_ms)
            await winner_answered.wait()  # its answer comes after the loser's
            return won

        winner_answered = asyncio.Event()
        monkeypatch.setattr(failover, "take", taken_in_turn)
        winner = asyncio.create_task(b._adopt(code))
        await asyncio.wait_for(answered.wait(), 10)
        assert await b._adopt(code) is False, "the second take-over lost the lease"
        assert code in b.taking, "still being taken by the first"
        with pytest.raises(Unavailable):
            await b.locate(code)  # a hello now: try again, not a lease given up
        winner_answered.set()
        assert await winner is True
        assert code not in b.taking and code in b_lobby.tables and code in b.owned
        assert await b.locate(code) is None, "here, once restored"
        await _shut(b_lobby, b)

    arun(scenario())


def test_a_request_for_a_table_nobody_holds_takes_it_over_and_is_answered(
    redis_url: str, tmp_path: Path, arun: Any
) -> None:
    """A stored table whose lease nobody holds (its process stopped, or a service started
    again on a restored database) and that no sweep has taken yet (a grace of an hour):
    the first request for its details, or its QR code, takes it over and is answered with
    it, as a ``hello`` is, not ``no_table``."""
    db = tmp_path / "l.db"
    [(code, _), (other, _)] = arun(_orphaned(redis_url, db, codes=2))
    directory = RedisDirectory(redis_url, "http://b.invalid:1", process="b", start_grace_s=3600)
    app = create_app(Settings(**OPEN_LIMITS), Store(db), directory=directory)
    with TestClient(app, base_url="http://127.0.0.1:8000", client=("127.0.0.1", 50000)) as client:
        answer = client.get(f"/api/tables/{code}")
        assert answer.status_code == 200 and answer.json()["code"] == code, answer.text
        qr = client.get(f"/api/tables/{other}/qr.svg")
        assert qr.status_code == 200 and qr.text.startswith("<svg"), qr.text
        assert set(app.state.lobby.tables) == {code, other}


def test_a_hello_to_a_process_told_to_stop_is_told_to_try_again(redis_url: str, tmp_path: Path) -> None:
    """A process told to stop (SIGTERM: it drains, then closes its tables and hands them
    over) still answers the connections it has: a ``hello`` for one of its tables is
    closed 1013 (try again: the table is about to be another's), never ``no_table``, on
    which a client gives up (the stress harness's ``rolling_restart`` saw a person ejected
    so, the table already closed by the stop)."""
    directory = RedisDirectory(redis_url, "http://a.invalid:1", process="a")
    app = create_app(Settings(**OPEN_LIMITS), Store(tmp_path / "l.db"), directory=directory)
    with TestClient(app, base_url="http://127.0.0.1:8000", client=("127.0.0.1", 50000)) as client:
        code = client.post("/api/tables", json={"seats": 2}).json()["code"]
        directory.drain()  # what serve.py does when told to stop, before the app's shutdown
        app.state.lobby.tables[code].close()  # then its shutdown closes every table
        with client.websocket_connect("/ws") as late:
            late.send_json(_hello(code, watch=True))
            with pytest.raises(WebSocketDisconnect) as closed:
                print("answered:", late.receive_json())
            assert closed.value.code == protocol.TRY_AGAIN


def test_the_first_take_over_after_postgresql_restarted(redis_url: str, arun: Any) -> None:
    """A REAL PostgreSQL of its own restarts: process ``b``'s connection on its loop is
    stale, yet its first take-over works (the restore tried once more, on a new
    connection).  While PostgreSQL is away, a take-over gives its lease up (no process
    holding a table it does not have) and says try again; once it is back, it works."""
    server = PgServer().start()
    try:
        db = server.new_database()

        async def scenario() -> None:
            [(first, _), (second, _)] = await _orphaned(redis_url, db, codes=2)
            lobby, directory = await _process(redis_url, db, "b")
            try:
                server.halt()
                server.run()
                assert await directory.locate(first) is None and first in lobby.tables, "taken over at once"
                assert await directory.redis.get(keys.table(first)) == "b"
                server.halt()
                with pytest.raises(Unavailable):
                    await directory.locate(second)
                assert await directory.redis.get(keys.table(second)) is None, "the lease given up"
                assert second not in lobby.tables and second not in directory.owned
                server.run()
                lobby.store.db.clock = lambda: time.monotonic() + 60  # past the back-off of its reconnections
                assert await directory.locate(second) is None and second in lobby.tables
            finally:
                await _shut(lobby, directory)

        arun(scenario())
    finally:
        server.stop()
