"""Tables do not pile up: timers that fired are forgotten, and every table ends.  A table
no seated person has been connected to (spectators do not count) is closed, dropped from
memory and marked in the file as dropped, and why, so a restart does not bring it back (a
table closed because the server shuts down is restored): after ``deserted_s`` with a match
on (in any phase, bots playing or not: the match is abandoned) or with no person in any
seat (nobody joined, or everyone left), after ``abandoned_s`` in a lobby or a match over
whose people keep their seats.

In-process in virtual time (a ``VirtualScheduler`` given to the table or the lobby; a
hand-driven clock for ``Table.abandoned``), and end to end on a real server started with
a short ``abandoned_s``.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest
from listeners import Quiet, Recorder

from ligretto.bots.spec import BotSpec
from ligretto.engine.actions import Vote
from ligretto.engine.rules import RuleSet
from ligretto.protocol import Phase
from ligretto.server.records.store import SqliteStore
from ligretto.server.table.clock import VirtualScheduler
from ligretto.server.table.table import Abandoned, Table
from ligretto.server.web.lobby import Lobby
from ligretto.server.web.settings import Settings


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


AWAY_S = 60.0
"""``abandoned_s`` of these tests: a lobby (or a match over) whose people are all away."""
DESERTED_S = 20.0
"""``deserted_s`` of these tests: a match on, or no person in any seat."""
TICK = 2**-10


def test_a_table_nobody_joined_is_closed_after_the_deserted_time() -> None:
    clock = Clock()
    table = Table("EMPTY", seats=2, clock=clock)
    table.seat_bot(BotSpec.parse("smart:expert"))  # the API seats bots before anyone joins
    clock.now += DESERTED_S - 1
    assert table.abandoned(AWAY_S, DESERTED_S) is None, "created just now: not yet"
    clock.now += 1
    assert table.abandoned(AWAY_S, DESERTED_S) is Abandoned.NOBODY_SEATED, "nobody came"


def test_a_lobby_whose_people_are_away_waits_the_longer_time_and_spectators_do_not_count() -> None:
    clock = Clock()
    table = Table("LOBBY", seats=2, clock=clock)
    ann = Quiet()
    table.join(ann, "Ann")
    clock.now += 10_000
    assert table.abandoned(AWAY_S, DESERTED_S) is None, "Ann is connected"
    table.disconnected(ann)
    clock.now += AWAY_S / 2
    assert table.abandoned(AWAY_S, DESERTED_S) is None, "Ann left half a minute ago: her seat waits for her"
    watcher = Quiet()
    table.watch(watcher)
    clock.now += AWAY_S / 2
    assert table.abandoned(AWAY_S, DESERTED_S) is Abandoned.AWAY, "a spectator does not keep the table alive"
    table.disconnected(watcher)
    assert table.abandoned(AWAY_S, DESERTED_S) is Abandoned.AWAY


def test_a_person_who_left_the_lobby_leaves_a_table_with_nobody_seated() -> None:
    clock = Clock()
    table = Table("GONE", seats=2, clock=clock)
    ann = Quiet()
    seat, _ = table.join(ann, "Ann")
    clock.now += 10_000
    table.leave(seat)  # Ann stays connected, as a spectator
    clock.now += DESERTED_S - 1
    assert table.abandoned(AWAY_S, DESERTED_S) is None
    clock.now += 1
    assert table.abandoned(AWAY_S, DESERTED_S) is Abandoned.NOBODY_SEATED


def _match_in(phase: Phase, scheduler: VirtualScheduler) -> tuple[Table, Recorder]:
    """Ann and Bob (no bots: nothing moves by itself) at a table in ``phase``, both away
    from now on; a spectator watches."""
    rules = RuleSet().replace(match_end="rounds:2")
    countdown_s = 10_000.0 if phase is Phase.COUNTDOWN else 1.0
    table = Table("MATCH", seats=2, rules=rules, grace_s=3600, countdown_s=countdown_s, scheduler=scheduler)
    ann, bob, watcher = Quiet(), Quiet(), Recorder()
    table.join(ann, "Ann")
    table.join(bob, "Bob")
    table.watch(watcher)
    table.start(0)
    if phase is not Phase.COUNTDOWN:
        scheduler.advance(countdown_s)
    if phase is Phase.SCORING:
        assert table.act(0, Vote(0)).ok and table.act(1, Vote(1)).ok
    table.disconnected(ann)
    table.disconnected(bob)
    assert table.phase is phase
    return table, watcher


@pytest.mark.parametrize("phase", [Phase.COUNTDOWN, Phase.PLAYING, Phase.SCORING])
def test_a_match_with_no_person_connected_is_abandoned_after_the_deserted_time(phase: Phase) -> None:
    scheduler = VirtualScheduler()
    table, _ = _match_in(phase, scheduler)
    scheduler.advance(DESERTED_S - TICK)
    assert table.abandoned(AWAY_S, DESERTED_S) is None, "not yet"
    scheduler.advance(TICK)
    assert table.phase is phase
    assert table.abandoned(AWAY_S, DESERTED_S) is Abandoned.MATCH, "a spectator keeps no match alive"
    table.close()


def test_a_person_back_in_time_keeps_the_match() -> None:
    scheduler = VirtualScheduler()
    table, _ = _match_in(Phase.PLAYING, scheduler)
    scheduler.advance(DESERTED_S - 1)
    ann = Quiet()
    assert table.seats[0] is not None
    table.rejoin(ann, table.seats[0].token)
    scheduler.advance(1000)
    assert table.abandoned(AWAY_S, DESERTED_S) is None, "Ann is back"
    table.disconnected(ann)
    scheduler.advance(DESERTED_S - TICK)
    assert table.abandoned(AWAY_S, DESERTED_S) is None, "the deserted time counts from the last one gone"
    table.close()


def test_the_sweep_ends_an_all_bot_match_and_its_spectators_are_told() -> None:
    """Ann's seat played by a stand-in, a bot at the other: the match plays on by itself
    until the sweep closes it; then no bot acts any more and the spectator, told
    ``no_table``, gets nothing else."""
    scheduler = VirtualScheduler()
    lobby = Lobby(Settings(abandoned_s=AWAY_S, deserted_s=DESERTED_S), scheduler=scheduler)
    table = lobby.create(2, RuleSet().replace(match_end="rounds:50"), public=True, grace_s=1.0)
    ann, watcher = Quiet(), Recorder()
    table.join(ann, "Ann")
    table.add_bot(0, "smart:expert")
    table.watch(watcher)
    table.start(0)
    table.disconnected(ann)
    scheduler.advance(DESERTED_S - TICK)
    assert lobby.sweep() == []
    game = table.game
    assert game is not None and game.log, "the bots play on (a stand-in for Ann, and the bot)"
    scheduler.advance(TICK)
    assert table.phase in (Phase.COUNTDOWN, Phase.PLAYING, Phase.SCORING)
    assert lobby.sweep() == [table.code]
    assert table.closed and table.dropped and table.dropped_because is Abandoned.MATCH
    assert table.code not in lobby.tables and lobby.public_tables() == []
    assert watcher.messages[-1]["type"] == "error" and watcher.messages[-1]["code"] == "no_table"
    told = len(watcher.messages)
    game = table.game
    assert game is not None
    actions = len(game.log)
    scheduler.advance(600)
    assert scheduler.pending == 0, "a timer of the closed table is still set"
    assert table.game is game and len(game.log) == actions, "a bot acted at a closed table"
    assert len(watcher.messages) == told


def test_the_sweep_drops_abandoned_tables_and_the_file_keeps_them_dropped_and_why(tmp_path: Path) -> None:
    async def scenario() -> None:
        store = SqliteStore(tmp_path / "sweep.db")
        scheduler = VirtualScheduler()
        lobby = Lobby(Settings(abandoned_s=60, deserted_s=30, countdown_s=0.0), store, scheduler=scheduler)
        empty = lobby.create(2, RuleSet(), public=True, grace_s=60)
        away = lobby.create(2, RuleSet(), public=True, grace_s=60)
        bob = Quiet()
        away.join(bob, "Bob")
        away.disconnected(bob)
        match = lobby.create(2, RuleSet(), public=True, grace_s=60)
        ann, carl = Quiet(), Quiet()
        match.join(ann, "Ann")
        match.join(carl, "Carl")
        match.start(0)
        scheduler.run_due()  # go
        assert match.phase is Phase.PLAYING
        match.disconnected(ann)
        match.disconnected(carl)
        kept = lobby.create(2, RuleSet(), public=True, grace_s=60)
        kept.join(Quiet(), "Dan")
        scheduler.advance(29.9)
        assert lobby.sweep() == [], "created less than half a minute ago: not yet"
        scheduler.advance(0.1)
        assert sorted(lobby.sweep()) == sorted([empty.code, match.code]), "nobody seated; a match nobody plays"
        assert match.closed and match.dropped and match.code not in lobby.tables
        scheduler.advance(30)
        assert lobby.sweep() == [away.code], "Bob's seat waited for him the longer time"
        assert lobby.public_tables() == [kept.summary()]
        assert lobby.sweep() == []
        await asyncio.sleep(0)  # the store commits on the loop's next turn
        store.close()

        again = SqliteStore(tmp_path / "sweep.db")
        assert [t.code for t in again.load_tables()] == [kept.code]
        records = {code: json.loads(config) for code, config in again.db.execute("SELECT code, config FROM tables")}
        again.close()
        assert {code: (r["dropped"], r["dropped_because"], r["phase"]) for code, r in records.items()} == {
            empty.code: (True, "nobody_seated", "lobby"),
            away.code: (True, "away", "lobby"),
            match.code: (True, "match_abandoned", "playing"),
            kept.code: (False, None, "lobby"),
        }

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
        # A match on, everyone away: abandoned only after deserted_s (10 minutes).
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
