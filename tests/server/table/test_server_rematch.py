"""After a match, a rematch for those who want one (``server/table/rounds.py``,
``Rounds.rematch``): *Ready* once the match is over says "a rematch"; it starts at once
when every seat wants one (bots always do), else ``ready_s`` after the first person said
so with the seats that want one, the others freed (told ``no_rematch``, watching on: a
spectator follows the table); fewer than two wanting one start nothing.  A person away or
gone is never counted as wanting one.

A :class:`~ligretto.server.table.table.Table` in-process with recording listeners on a
:class:`~ligretto.server.table.clock.VirtualScheduler` (the wait is the table's timer, run
in virtual time); the same in a real browser: ``tests/browser/test_score_sheet.py``."""

from __future__ import annotations

from listeners import Recorder

from ligretto.engine.actions import Vote
from ligretto.engine.rules import RuleSet
from ligretto.engine.serial import action_to_dict
from ligretto.protocol import Phase
from ligretto.server.table.clock import VirtualScheduler
from ligretto.server.table.table import Table

TICK = 2**-10
COUNTDOWN = 1.0
WAIT = 20.0
NAMES = ("Ann", "Bob", "Cleo")


def _over(scheduler: VirtualScheduler, bots: int = 0) -> tuple[Table, list[Recorder]]:
    """Ann (the host), Bob and Cleo (and ``bots`` bots) after a match of one round."""
    rules = RuleSet().replace(match_end="rounds:1")
    table = Table("AGAIN", seats=3 + bots, rules=rules, countdown_s=COUNTDOWN, scheduler=scheduler, ready_s=WAIT)
    listeners = [Recorder() for _ in NAMES]
    for listener, name in zip(listeners, NAMES, strict=True):
        table.join(listener, name)
    for _ in range(bots):
        table.add_bot(0, "greedy:beginner")
    table.start(0)
    scheduler.advance(COUNTDOWN)
    for _ in range(3600):  # the people vote (again after each bot's play): a stalemate, or the bot's Stop
        for seat in range(3):
            if table.phase is Phase.PLAYING:
                table.act(seat, Vote(seat))  # refused while the vote stands: nothing changes
        if table.phase is Phase.OVER:
            break
        scheduler.advance(1.0)
    assert table.matches_played == 1
    return table, listeners


def test_the_rematch_waits_for_those_who_want_it_at_most_ready_s_and_frees_the_others() -> None:
    scheduler = VirtualScheduler()
    table, (ann, bob, cleo) = _over(scheduler)
    told = ann.of("table")[-1]
    assert told["phase"] == "over" and [seat["ready"] for seat in told["seats"]] == [False, False, False]
    scheduler.advance(10 * WAIT)  # nobody asked: nothing runs out
    assert table.phase is Phase.OVER and table.ready_by is None

    first = scheduler.now()
    table.ready(1)  # Bob wants a rematch: the others have WAIT seconds
    for person in (ann, bob, cleo):
        told = person.of("table")[-1]
        assert told["ready_by"] == first + WAIT and [s["ready"] for s in told["seats"]] == [False, True, False]
    table.ready(2)
    scheduler.advance(WAIT - TICK)
    assert table.phase is Phase.OVER
    mark = [len(person.messages) for person in (ann, bob, cleo)]
    scheduler.advance(TICK)

    # Bob and Cleo play again, closed up as seats 0 and 1; Ann watches and is told why.
    assert table.phase is Phase.COUNTDOWN and table.matches_played == 2 and table.size == 2
    assert [seat.name for seat in table.seats if seat is not None] == ["Bob", "Cleo"]
    assert [e["code"] for e in ann.since(mark[0], "error")] == ["no_rematch"]
    assert ann.since(mark[0], "snapshot")[-1]["view"]["viewer"] is None, "Ann watches the rematch"
    assert [w["seat"] for w in bob.since(mark[1], "welcome")] == [0]
    assert [w["seat"] for w in cleo.since(mark[2], "welcome")] == [1]
    told = bob.of("table")[-1]
    assert told["host"] == 0 and told["ready_by"] is None, "the host passed to Bob"
    assert table.pending_timers == 1, "only the countdown: the wait is over"


def test_the_rematch_starts_at_once_when_every_seat_wants_it_and_bots_always_do() -> None:
    scheduler = VirtualScheduler()
    table, _ = _over(scheduler, bots=1)
    table.ready(0)
    table.ready(2)
    assert table.phase is Phase.OVER and table.ready_by == scheduler.now() + WAIT
    table.ready(1)
    assert table.phase is Phase.COUNTDOWN and table.size == 4 and table.matches_played == 2
    assert table.ready_by is None and table.pending_timers == 1


def test_one_wanting_a_rematch_alone_starts_nothing_and_may_ask_again() -> None:
    scheduler = VirtualScheduler()
    table, (ann, _, _) = _over(scheduler)
    table.ready(0)
    scheduler.advance(WAIT)
    assert table.phase is Phase.OVER and table.size == 3 and table.ready_by is None
    assert [seat["ready"] for seat in ann.of("table")[-1]["seats"]] == [False, False, False]
    assert not ann.of("error")
    table.ready(0)
    assert table.ready_by == scheduler.now() + WAIT


def test_a_person_gone_or_away_never_wants_a_rematch() -> None:
    scheduler = VirtualScheduler()
    table, (_, _, cleo) = _over(scheduler)
    table.disconnected(cleo)  # Cleo's connection drops, far beyond her grace period
    scheduler.advance(table.settings.grace_s * 2)
    table.ready(0)
    table.ready(1)
    assert table.phase is Phase.OVER, "Cleo, away, is not counted as wanting one"
    table.leave(2)  # she gives her seat up: freed, and then everyone left wants one
    assert table.phase is Phase.COUNTDOWN and table.size == 2
    assert [seat.name for seat in table.seats if seat is not None] == ["Ann", "Bob"]


def test_a_restart_during_the_wait_waits_again() -> None:
    scheduler = VirtualScheduler()
    table, _ = _over(scheduler)
    table.ready(1)
    table.ready(2)
    scheduler.advance(WAIT - 1)
    table.close()
    later = VirtualScheduler(start=9000.0)
    assert table.game is not None
    log = [action_to_dict(action) for action in table.game.log]
    again = Table.restore(table.record(), log, countdown_s=COUNTDOWN, scheduler=later)
    again.resume()
    assert again.phase is Phase.OVER and again.ready_by == 9000.0 + WAIT
    later.advance(WAIT)
    assert again.phase is Phase.COUNTDOWN and again.size == 2 and again.matches_played == 2
    again.close()
