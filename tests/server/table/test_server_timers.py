"""What happens at a table because time passes, in virtual time: the countdown before
*go*, the grace period of a person who is away, the stand-in bot that plays their seat
and hands it back, a return within or after the grace period.

A :class:`~ligretto.server.table.table.Table` runs in-process with recording listeners and a
:class:`~ligretto.server.table.clock.VirtualScheduler`: nothing happens until the test moves
the clock, so every figure is exact and no test waits on the wall clock.  (The same
behaviours over real WebSockets, with short real figures: ``test_server_ops.py``.)
"""

from __future__ import annotations

from typing import Any

import pytest
from listeners import Recorder

from ligretto.engine.actions import Turn
from ligretto.engine.rules import RuleSet
from ligretto.engine.views import view
from ligretto.protocol import Phase
from ligretto.server.table.clock import VirtualScheduler
from ligretto.server.table.table import Table, TableError

TICK = 2**-10
"""A moment (a binary fraction: clock readings stay exact, so "just before" is before)."""
COUNTDOWN = 3.0
GRACE = 10.0
ONE_ROUND = RuleSet().replace(match_end="rounds:1")


def _table(scheduler: VirtualScheduler, *, grace_s: float = GRACE, seats: int = 2) -> Table:
    return Table(
        "TIMERS",
        seats=seats,
        rules=ONE_ROUND,
        grace_s=grace_s,
        countdown_s=COUNTDOWN,
        scheduler=scheduler,
        match_seeds=lambda n: 1234 + n,
    )


def _seat_of(message: dict[str, Any], index: int) -> dict[str, Any]:
    seat: dict[str, Any] = message["seats"][index]
    return seat


def _playing(scheduler: VirtualScheduler) -> tuple[Table, Recorder, Recorder, str]:
    """Ann and Bob at a table whose round is on (the countdown run out); Bob's token."""
    table = _table(scheduler)
    ann, bob = Recorder(), Recorder()
    table.join(ann, "Ann")
    _, token = table.join(bob, "Bob")
    table.start(0)
    scheduler.advance(COUNTDOWN)
    assert table.phase is Phase.PLAYING
    return table, ann, bob, token


def test_go_comes_exactly_when_the_countdown_ends_and_acts_wait_for_it() -> None:
    scheduler = VirtualScheduler()
    table = _table(scheduler)
    ann, bob = Recorder(), Recorder()
    table.join(ann, "Ann")
    table.join(bob, "Bob")
    started = scheduler.now()
    table.start(0)
    assert table.phase is Phase.COUNTDOWN and table.start_at == started + COUNTDOWN
    assert ann.of("snapshot") and bob.of("snapshot"), "the round is dealt at the start of the countdown"

    scheduler.advance(COUNTDOWN - TICK)
    assert table.phase is Phase.COUNTDOWN and not ann.of("go")
    with pytest.raises(TableError) as early:
        table.act(0, Turn(0), 1)
    assert early.value.code == "countdown"
    assert table.game is not None and not table.game.log, "an act in the countdown changed the round"

    scheduler.advance(TICK)
    assert table.phase is Phase.PLAYING
    assert ann.of("go") == bob.of("go") == [{"type": "go", "round": 1}]
    assert table.act(0, Turn(0), 2).ok
    table.close()


def test_a_stand_in_takes_the_seat_exactly_when_the_grace_period_ends_and_plays() -> None:
    scheduler = VirtualScheduler()
    table, ann, bob, _ = _playing(scheduler)
    mark = len(ann.messages)
    table.disconnected(bob)
    (away,) = ann.since(mark, "table")
    assert _seat_of(away, 1)["connected"] is False and _seat_of(away, 1)["stand_in"] is False

    scheduler.advance(GRACE - TICK)
    seat = table.seats[1]
    assert seat is not None and not seat.stand_in, "the stand-in came before the grace period ended"
    assert not ann.since(mark, "events"), "someone played Bob's seat while he was only away"

    scheduler.advance(TICK)
    assert seat.stand_in and not seat.connected
    standing = ann.since(mark, "table")[-1]
    assert _seat_of(standing, 1)["stand_in"] is True and _seat_of(standing, 1)["connected"] is False
    assert standing["grace_s"] == GRACE
    scheduler.run_until(lambda: any(m["by"] == 1 for m in ann.since(mark, "events")), limit_s=60)
    table.close()


def test_back_within_the_grace_period_no_stand_in_ever_comes() -> None:
    scheduler = VirtualScheduler()
    table, ann, bob, token = _playing(scheduler)
    mark = len(ann.messages)
    table.disconnected(bob)
    scheduler.advance(GRACE - 1)
    back = Recorder()
    assert table.rejoin(back, token) == 1
    assert table.pending_timers == 0, "the grace period's timer outlived the return"
    scheduler.advance(10 * GRACE)
    seat = table.seats[1]
    assert seat is not None and seat.connected and not seat.stand_in
    assert not any(_seat_of(m, 1)["stand_in"] for m in ann.since(mark, "table"))
    assert not [m for m in ann.since(mark, "events") if m["by"] == 1], "a bot played a seat whose person was back"
    table.close()


def test_back_after_the_grace_period_the_stand_in_hands_back_and_plays_no_more() -> None:
    scheduler = VirtualScheduler()
    table, ann, bob, token = _playing(scheduler)
    table.disconnected(bob)
    scheduler.advance(GRACE)
    mark = len(ann.messages)
    scheduler.run_until(lambda: any(m["by"] == 1 for m in ann.since(mark, "events")), limit_s=60)

    back = Recorder()
    assert table.rejoin(back, token) == 1
    returned = len(ann.messages)
    handed = ann.since(mark, "table")[-1]
    assert _seat_of(handed, 1)["stand_in"] is False and _seat_of(handed, 1)["connected"] is True
    (snapshot,) = back.of("snapshot")
    assert table.game is not None and snapshot["view"] == view(table.game, 1).to_dict()

    scheduler.advance(60.0)  # far longer than any bot waits between two moves
    assert not [m for m in ann.since(returned, "events") if m["by"] == 1], (
        "the stand-in kept playing after the person returned"
    )
    assert table.act(1, Turn(1), "bob-1").ok
    table.close()


def test_the_grace_period_starts_again_after_a_return() -> None:
    """Away, back, away again: the stand-in comes a full grace period after the *last*
    disconnection, not after the first one."""
    scheduler = VirtualScheduler()
    table, _, bob, token = _playing(scheduler)
    table.disconnected(bob)
    scheduler.advance(6.0)
    back = Recorder()
    table.rejoin(back, token)
    scheduler.advance(1.0)
    table.disconnected(back)
    scheduler.advance(GRACE - TICK)  # the first grace period would have ended long ago
    seat = table.seats[1]
    assert seat is not None and not seat.stand_in, "the stand-in came before a full grace period after the last drop"
    scheduler.advance(TICK)
    assert seat.stand_in and table.phase is Phase.PLAYING
    table.close()


def test_a_person_who_dropped_out_in_the_lobby_gets_a_stand_in_a_grace_period_after_leaving() -> None:
    """Their grace period runs from when they left, not from the start."""
    scheduler = VirtualScheduler()
    table = _table(scheduler)
    ann, bob = Recorder(), Recorder()
    table.join(ann, "Ann")
    table.join(bob, "Bob")
    table.disconnected(bob)
    scheduler.advance(4.0)
    mark = len(ann.messages)
    table.start(0)
    scheduler.advance(6.0 - TICK)
    seat = table.seats[1]
    assert seat is not None and not seat.stand_in
    scheduler.advance(TICK)
    assert seat.stand_in, "nobody plays the seat of the person who dropped out before the start"
    scheduler.run_until(lambda: any(m["by"] == 1 for m in ann.since(mark, "events")), limit_s=60)
    table.close()


def test_closing_a_table_cancels_its_countdown_grace_periods_and_bots() -> None:
    scheduler = VirtualScheduler()
    table, ann, bob, _ = _playing(scheduler)
    table.disconnected(bob)
    scheduler.advance(GRACE)  # a stand-in plays
    table.close()
    mark = len(ann.messages)
    assert table.pending_timers == 0 and scheduler.pending == 0
    scheduler.advance(600.0)
    assert ann.messages[mark:] == [], "a closed table still sent something"
