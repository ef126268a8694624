"""The table's clock and scheduler (``ligretto.server.table.clock``): the virtual scheduler runs
timers in time order, and a table given one runs its countdown, grace periods and bots
in virtual time, without an event loop or a single wall-clock wait."""

from __future__ import annotations

import asyncio

import pytest
from listeners import Quiet

from ligretto.bots.driver import MIN_MOVE_REAL_TIME
from ligretto.engine.rules import RuleSet
from ligretto.protocol import Phase
from ligretto.server.table.clock import LoopScheduler, Timers, VirtualScheduler
from ligretto.server.table.table import Table

ONE_ROUND = RuleSet().replace(match_end="rounds:1")


def test_timers_run_in_time_order_and_equal_times_in_the_order_they_were_set() -> None:
    scheduler = VirtualScheduler(start=50.0)
    ran: list[tuple[str, float]] = []

    def note(name: str) -> None:
        ran.append((name, scheduler.now()))

    scheduler.call_later(2.0, lambda: note("late"))
    scheduler.call_later(1.0, lambda: note("first"))
    scheduler.call_later(1.0, lambda: note("second"))
    assert scheduler.advance(0.5) == 0 and scheduler.now() == 50.5
    assert scheduler.advance(1.0) == 2
    assert ran == [("first", 51.0), ("second", 51.0)]
    assert scheduler.now() == 51.5
    scheduler.advance(10.0)
    assert ran[-1] == ("late", 52.0) and scheduler.now() == 61.5


def test_timers_set_by_timers_run_within_the_same_advance() -> None:
    scheduler = VirtualScheduler(start=0.0)
    times: list[float] = []

    def tick() -> None:
        times.append(scheduler.now())
        if len(times) < 5:
            scheduler.call_later(0.25, tick)

    scheduler.call_later(0.0, tick)
    assert scheduler.advance(1.0) == 5
    assert times == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert scheduler.pending == 0


def test_a_cancelled_timer_never_runs_and_time_only_moves_forward() -> None:
    scheduler = VirtualScheduler()
    ran: list[str] = []
    timer = scheduler.call_later(1.0, lambda: ran.append("cancelled"))
    scheduler.call_later(2.0, lambda: ran.append("kept"))
    timer.cancel()
    assert scheduler.pending == 1 and scheduler.next_due == scheduler.now() + 2.0
    scheduler.advance(5.0)
    assert ran == ["kept"]
    with pytest.raises(ValueError, match="forward"):
        scheduler.advance(-1.0)


def test_run_until_jumps_from_timer_to_timer_and_gives_up_when_nothing_is_set() -> None:
    scheduler = VirtualScheduler(start=0.0)
    done: list[bool] = []
    scheduler.call_later(7.5, lambda: done.append(True))
    assert scheduler.run_until(lambda: bool(done)) == 7.5
    with pytest.raises(TimeoutError):
        scheduler.run_until(lambda: False)


def test_the_loop_scheduler_sets_no_timer_without_a_running_loop() -> None:
    scheduler = LoopScheduler(clock=lambda: 123.0)
    assert scheduler.now() == 123.0
    assert scheduler.call_later(0.0, lambda: None) is None

    async def scenario() -> list[str]:
        ran: list[str] = []
        timer = scheduler.call_later(0.0, lambda: ran.append("fired"))
        assert timer is not None
        cancelled = scheduler.call_later(0.0, lambda: ran.append("cancelled"))
        assert cancelled is not None
        cancelled.cancel()
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        return ran

    assert asyncio.run(scenario()) == ["fired"]


def test_timers_forget_a_timer_when_it_fires_or_is_cancelled() -> None:
    scheduler = VirtualScheduler()
    timers = Timers(scheduler)
    fired: list[int] = []
    first = timers.later(1.0, lambda: fired.append(1))
    second = timers.later(2.0, lambda: fired.append(2))
    assert timers.pending == 2 and first != second
    timers.cancel(second)
    assert timers.pending == 1
    scheduler.advance(3.0)
    assert fired == [1] and timers.pending == 0
    timers.later(1.0, lambda: fired.append(3))
    timers.cancel_all()
    scheduler.advance(3.0)
    assert fired == [1] and scheduler.pending == 0


def test_the_countdown_ends_exactly_at_start_at_in_virtual_time() -> None:
    scheduler = VirtualScheduler()
    table = Table("COUNT", seats=2, scheduler=scheduler, countdown_s=3.0)
    table.join(Quiet(), "Ann")
    table.join(Quiet(), "Bob")
    table.start(0)
    assert table.phase is Phase.COUNTDOWN and table.start_at == scheduler.now() + 3.0
    scheduler.advance(2.999)
    assert table.phase is Phase.COUNTDOWN
    scheduler.advance(0.001)
    assert table.phase is Phase.PLAYING and table.pending_timers == 0


def test_a_stand_in_comes_when_the_grace_period_is_over_and_plays() -> None:
    scheduler = VirtualScheduler()
    table = Table("GRACE", seats=2, scheduler=scheduler, countdown_s=1.0, grace_s=30.0, match_seeds=lambda n: 7)
    ann, bob = Quiet(), Quiet()
    table.join(ann, "Ann")
    table.join(bob, "Bob")
    table.start(0)
    scheduler.advance(1.0)
    table.disconnected(bob)
    scheduler.advance(29.9)
    seat = table.seats[1]
    assert seat is not None and not seat.stand_in and 1 not in table.bots
    scheduler.advance(0.1)
    assert seat.stand_in and 1 in table.bots
    game = table.game
    assert game is not None
    scheduler.advance(30.0)
    assert any(action.player == 1 for action in game.log), "the stand-in played"
    table.close()
    assert scheduler.pending == 0, "closing cancels the bots' timers and the table's"


def _bots_round(seed: int) -> tuple[Table, VirtualScheduler]:
    scheduler = VirtualScheduler()
    table = Table("BOTS", seats=3, rules=ONE_ROUND, scheduler=scheduler, countdown_s=1.0, match_seeds=lambda n: seed)
    table.join(Quiet(), "Ann")
    table.add_bot(0, "smart:machine")
    table.add_bot(0, "greedy:expert")
    table.start(0)
    return table, scheduler


def test_bots_play_a_whole_round_in_virtual_time_the_same_way_every_time() -> None:
    table, scheduler = _bots_round(11)
    elapsed = scheduler.run_until(lambda: table.phase is Phase.OVER)
    game = table.game
    assert game is not None and game.over and game.log
    assert {action.player for action in game.log} == {1, 2}, "Ann never played"
    again, again_scheduler = _bots_round(11)
    assert again_scheduler.run_until(lambda: again.phase is Phase.OVER) == elapsed
    assert again.game is not None and again.game.log == game.log
    assert scheduler.pending == 0, "no bot is left waiting once the round is over"


def test_a_bot_waits_at_least_the_shortest_move_time() -> None:
    table, scheduler = _bots_round(3)
    scheduler.advance(1.0)
    assert table.phase is Phase.PLAYING
    game = table.game
    assert game is not None
    scheduler.advance(MIN_MOVE_REAL_TIME * 0.99)
    assert not game.log, "no bot moved before its shortest move time"
    scheduler.advance(MIN_MOVE_REAL_TIME * 0.01)
    assert [action.player for action in game.log] == [1], "the machine bot moved first"
    table.close()
