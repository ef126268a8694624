"""Between rounds nobody holds the table (``server/table/rounds.py``): the score sheet waits
for *Ready* at most ``ready_s`` after the first person said it, then deals the next round
for everyone; the host may deal it at once when half of the people are ready.

A :class:`~ligretto.server.table.table.Table` in-process with recording listeners on a
:class:`~ligretto.server.table.clock.VirtualScheduler`: the wait is the table's timer, run in
virtual time.  (The same over a real socket and in a real browser:
``tests/browser/test_score_sheet.py``.)
"""

from __future__ import annotations

from typing import Any

import pytest
from listeners import Recorder

from ligretto.engine.actions import Vote
from ligretto.engine.rules import RuleSet
from ligretto.engine.serial import action_to_dict
from ligretto.protocol import Phase
from ligretto.server.table.clock import VirtualScheduler
from ligretto.server.table.table import Table, TableError
from ligretto.server.table.timing import READY_S

TICK = 2**-10
COUNTDOWN = 1.0
WAIT = 20.0
NAMES = ("Ann", "Bob", "Cleo", "Dan")


def _table(scheduler: VirtualScheduler, people: int, **settings: Any) -> tuple[Table, list[Recorder], list[str]]:
    """``people`` persons (Ann, the host, first) at a table of a match of 4 rounds; their
    listeners and tokens."""
    rules = RuleSet().replace(match_end="rounds:4")
    table = Table("READY", seats=people, rules=rules, countdown_s=COUNTDOWN, scheduler=scheduler, **settings)
    listeners = [Recorder() for _ in range(people)]
    tokens = [table.join(listener, name)[1] for listener, name in zip(listeners, NAMES, strict=False)]
    return table, listeners, tokens


def _to_the_sheet(table: Table, scheduler: VirtualScheduler) -> None:
    """Play the round that is dealt (everyone votes: a stalemate) to its score sheet."""
    scheduler.advance(COUNTDOWN)
    assert table.phase is Phase.PLAYING
    for seat in range(table.size):
        assert table.act(seat, Vote(seat)).ok
    assert table.phase is Phase.SCORING


def _refused(code: str, call: Any, *args: Any) -> None:
    with pytest.raises(TableError) as refusal:
        call(*args)
    assert refusal.value.code == code, refusal.value.message


def test_the_score_sheet_waits_for_ready_at_most_ready_s_after_the_first_and_again_after_a_restart() -> None:
    scheduler = VirtualScheduler()
    table, (ann, bob, cleo), _ = _table(scheduler, 3, ready_s=WAIT)
    assert ann.of("table")[-1]["ready_s"] == WAIT and ann.of("table")[-1]["ready_by"] is None
    table.start(0)
    _to_the_sheet(table, scheduler)
    assert table.ready_by is None and ann.of("table")[-1]["ready_by"] is None

    # Nobody has said Ready: nobody is kept waiting, so nothing runs out.
    scheduler.advance(10 * WAIT)
    assert table.phase is Phase.SCORING and table.round_number == 1

    # Bob is ready: from now on Ann and Cleo have WAIT seconds, and everyone is told when.
    scheduler.advance(1.5)
    first = scheduler.now()
    table.ready(1)
    for person in (ann, bob, cleo):
        told = person.of("table")[-1]
        assert told["phase"] == "scoring" and told["ready_by"] == first + WAIT
        assert [seat["ready"] for seat in told["seats"]] == [False, True, False]
    scheduler.advance(WAIT / 2)
    table.ready(2)  # Cleo: the wait does not start again
    assert table.ready_by == first + WAIT and ann.of("table")[-1]["ready_by"] == first + WAIT
    mark = len(ann.messages)
    scheduler.advance(WAIT / 2 - TICK)
    assert table.phase is Phase.SCORING and not ann.since(mark, "table")

    # Time is up: the next round is dealt for everyone, Ann (not ready) too.
    scheduler.advance(TICK)
    assert table.phase is Phase.COUNTDOWN and table.round_number == 2
    told = ann.of("table")[-1]
    assert told["phase"] == "countdown" and told["start_at"] == first + WAIT + COUNTDOWN
    assert told["ready_by"] is None and table.ready_by is None
    assert ann.since(mark, "snapshot")[-1]["view"]["viewer"] == 0, "Ann is dealt in"
    assert table.pending_timers == 1, "only the countdown's timer: the wait is over"

    # Everyone ready before the time is up: dealt at once, and the wait's timer is gone.
    _to_the_sheet(table, scheduler)
    table.ready(0)
    assert table.ready_by == scheduler.now() + WAIT and table.pending_timers == 1
    table.ready(1)
    table.ready(2)
    assert table.phase is Phase.COUNTDOWN and table.round_number == 3
    assert table.ready_by is None and table.pending_timers == 1

    # A restart on a score sheet that waits: the whole wait again from the restart.
    _to_the_sheet(table, scheduler)
    table.ready(2)
    scheduler.advance(WAIT - 1)
    table.close()  # the process dies
    later = VirtualScheduler(start=9000.0)
    assert table.game is not None
    log = [action_to_dict(action) for action in table.game.log]
    again = Table.restore(table.record(), log, countdown_s=COUNTDOWN, scheduler=later)
    assert again.ready_s == WAIT and again.phase is Phase.SCORING
    again.resume()
    assert again.ready_by == 9000.0 + WAIT
    later.advance(WAIT - TICK)
    assert again.phase is Phase.SCORING
    later.advance(TICK)
    assert again.phase is Phase.COUNTDOWN and again.round_number == 4
    again.close()


def test_the_host_deals_the_next_round_once_half_of_the_people_are_ready() -> None:
    scheduler = VirtualScheduler()
    table, (ann, *_), _ = _table(scheduler, 4)
    watcher = Recorder()
    table.watch(watcher)
    assert table.ready_s == READY_S
    _refused("not_scoring", table.next_round, 0)  # in the lobby
    table.start(0)
    _refused("not_scoring", table.next_round, 0)  # counting down
    _to_the_sheet(table, scheduler)

    # Not the host's to say; and the host alone is not half of four.
    _refused("not_host", table.next_round, 1)
    _refused("not_host", table.next_round, None)
    mark = len(ann.messages)
    _refused("too_few_ready", table.next_round, 0)
    assert table.phase is Phase.SCORING and ann.messages[mark:] == [], "a refusal changes nothing"
    seat = table.seats[0]
    assert seat is not None and not seat.ready

    # Dan gives his seat up (a stand-in is ready at once): with the host, half of four.
    table.leave(3)
    table.next_round(0)
    assert table.phase is Phase.COUNTDOWN and table.round_number == 2
    assert watcher.of("table")[-1]["phase"] == "countdown", "told to spectators too"

    # Next time Bob is ready first; the host deals the round at once, Cleo is dealt in.
    _to_the_sheet(table, scheduler)
    table.ready(1)
    assert table.ready_by == scheduler.now() + READY_S
    table.next_round(0)
    assert table.phase is Phase.COUNTDOWN and table.round_number == 3 and table.ready_by is None
    assert table.pending_timers == 1, "the wait's timer is gone"
    table.close()


def test_the_wait_is_a_setting_of_the_table_in_its_bounds() -> None:
    scheduler = VirtualScheduler()
    table, (ann, _), _ = _table(scheduler, 2)
    for wrong in (4.9, 600.5, -1.0):
        _refused("bad_ready", lambda value: table.set_rules(0, preset="classic", options={}, ready_s=value), wrong)
    assert table.ready_s == READY_S
    table.set_rules(0, preset="classic", options={}, ready_s=5.0)
    assert table.ready_s == 5.0 and ann.of("table")[-1]["ready_s"] == 5.0
    table.set_rules(0, preset="classic", options={})
    assert table.ready_s == 5.0, "left out, it keeps its value"
    table.start(0)
    _refused("started", lambda: table.set_rules(0, preset="classic", options={}, ready_s=60.0))
    table.close()
