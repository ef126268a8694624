"""Tables do not pile up: timers that fired are forgotten, and a table nobody has been
connected to for ``abandoned_s`` with no match on is closed, dropped from memory and
marked in the file as dropped, so a restart does not bring it back (a table closed
because the server shuts down is restored).

In-process in virtual time (a ``VirtualScheduler`` given to the table or the lobby; a
hand-driven clock for ``Table.abandoned``), and end to end on a real server started with
a short ``abandoned_s``.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from listeners import Quiet

from ligretto.engine.rules import RuleSet
from ligretto.server.app import Lobby, Settings
from ligretto.server.clock import VirtualScheduler
from ligretto.server.store import SqliteStore
from ligretto.server.table import Phase, Table


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_timers_that_fired_or_were_cancelled_are_forgotten() -> None:
    scheduler = VirtualScheduler()
    table = Table("TIMERS", seats=2, grace_s=0.05, countdown_s=0.01, scheduler=scheduler)
    ann, bob = Quiet(), Quiet()
    table.join(ann, "Ann")
    _, token = table.join(bob, "Bob")
    table.start(0)
    assert table.pending_timers == 1  # the countdown
    scheduler.advance(0.01)
    assert table.phase is Phase.PLAYING and table.pending_timers == 0

    # Bob drops and comes back twenty times within his grace period: one timer at most.
    for _ in range(20):
        table.disconnected(bob)
        assert table.pending_timers == 1
        scheduler.advance(0.04)
        bob = Quiet()
        table.rejoin(bob, token)
        assert table.pending_timers == 0
    # Away for good: the grace period runs out, a stand-in plays, nothing is left.
    table.disconnected(bob)
    scheduler.advance(0.05)
    seat = table.seats[1]
    assert seat is not None and seat.stand_in
    assert table.pending_timers == 0
    table.close()


def test_a_table_is_abandoned_when_nobody_is_there_for_long_and_no_match_is_on() -> None:
    clock = Clock()
    table = Table("EMPTY", seats=2, clock=clock)
    clock.now += 59
    assert not table.abandoned(60), "created a minute ago: not yet"
    clock.now += 1
    assert table.abandoned(60), "nobody came"

    ann = Quiet()
    table.join(ann, "Ann")
    clock.now += 1000
    assert not table.abandoned(60), "Ann is connected"
    table.disconnected(ann)
    clock.now += 30
    assert not table.abandoned(60), "Ann left half a minute ago"
    watcher = Quiet()
    table.watch(watcher)
    clock.now += 1000
    assert not table.abandoned(60), "a spectator is there"
    table.disconnected(watcher)
    clock.now += 60
    assert table.abandoned(60)


def test_a_table_with_a_match_on_is_never_abandoned() -> None:
    async def scenario() -> None:
        clock = Clock()
        table = Table("MATCH", seats=2, clock=clock, countdown_s=0.01, grace_s=3600)
        ann = Quiet()
        table.join(ann, "Ann")
        table.add_bot(0, "smart:expert")
        table.start(0)
        table.disconnected(ann)
        clock.now += 10_000
        assert table.phase in (Phase.COUNTDOWN, Phase.PLAYING) and not table.abandoned(60)
        table.close()

    asyncio.run(scenario())


def test_the_sweep_drops_abandoned_tables_and_the_file_keeps_them_dropped(tmp_path: Path) -> None:
    async def scenario() -> None:
        store = SqliteStore(tmp_path / "sweep.db")
        scheduler = VirtualScheduler()
        lobby = Lobby(Settings(abandoned_s=60), store, scheduler=scheduler)
        empty = lobby.create(2, RuleSet(), public=True, grace_s=60)
        kept = lobby.create(2, RuleSet(), public=True, grace_s=60)
        kept.join(Quiet(), "Ann")
        scheduler.advance(59.9)
        assert lobby.sweep() == [], "created less than a minute ago: not yet"
        scheduler.advance(0.1)
        assert lobby.sweep() == [empty.code]
        assert empty.closed and empty.dropped and empty.code not in lobby.tables
        assert lobby.public_tables() == [kept.summary()]
        assert lobby.sweep() == []
        await asyncio.sleep(0)  # the store commits on the loop's next turn
        store.close()

        again = SqliteStore(tmp_path / "sweep.db")
        assert [t.code for t in again.load_tables()] == [kept.code]
        again.close()

    asyncio.run(scenario())


def test_a_real_server_drops_an_abandoned_table_and_does_not_restore_it(
    server_with: Any, match_starter: Any, arun: Any
) -> None:
    server = server_with(abandoned_s=1.0)

    async def scenario() -> tuple[str, str]:
        left = server.create_table(2)
        bob = await server.client("Bob").join(left)
        await bob.close()
        staying = server.create_table(2)
        ann = await server.client("Ann").join(staying)
        # A match on, everyone away: never abandoned (the bot plays on).
        code, (carl,), _ = await match_starter(server, ["Carl"], bots=["smart:expert"])
        await carl.close()
        deadline = time.monotonic() + 10
        while server.http("GET", f"/api/tables/{left}")[0] != 404:
            assert time.monotonic() < deadline, "the abandoned table is still there"
            await asyncio.sleep(0.1)
        assert server.http("GET", f"/api/tables/{staying}")[0] == 200, "Ann is at this table"
        assert server.http("GET", f"/api/tables/{code}")[1]["phase"] == "playing"
        assert not ann.closed
        await ann.close()
        return left, code

    left, playing = arun(scenario())
    server.kill()
    server.start()
    assert server.http("GET", f"/api/tables/{left}")[0] == 404, "a closed table came back after a restart"
    assert server.http("GET", f"/api/tables/{playing}")[0] == 200
