"""After a restart the round waits for its people (``Table.resume``), in virtual time.

A table is rebuilt from its record and the actions of its round, as the store does after
a restart, on a fresh :class:`~ligretto.server.table.clock.VirtualScheduler`.  A round that
was being played (or counted down) is then in ``countdown``: no bot or stand-in acts and
no person may, until every seated person is back (or has a stand-in) -- then a fresh
countdown -- or until the catch-up time and a countdown have passed.  ``start_at`` says
when, all along.  Grace periods run from the restart as before.
"""

from __future__ import annotations

from typing import Any

import pytest
from listeners import Quiet, Recorder

from ligretto.engine.actions import Turn
from ligretto.engine.rules import RuleSet
from ligretto.engine.serial import action_to_dict
from ligretto.engine.views import view
from ligretto.protocol import Phase
from ligretto.server.table.clock import VirtualScheduler
from ligretto.server.table.table import Table, TableError

TICK = 2**-10
COUNTDOWN = 3.0
CATCH_UP = 15.0
GRACE = 30.0
MATCH = RuleSet().replace(match_end="rounds:3")


def _before_the_crash(*, grace_s: float = GRACE, go: bool = True, left: bool = False) -> tuple[Table, list[str]]:
    """Ann, Bob and an expert bot; the round on for 5 s (the bot has played), or still
    counting down (``go=False``); Ann and Bob gave up their seats (``left``); the people's
    tokens."""
    scheduler = VirtualScheduler()
    table = Table(
        "RESUME",
        seats=3,
        rules=MATCH,
        grace_s=grace_s,
        countdown_s=COUNTDOWN,
        scheduler=scheduler,
        match_seeds=lambda n: 77 + n,
    )
    tokens = [table.join(Quiet(), name)[1] for name in ("Ann", "Bob")]
    table.add_bot(0, "smart:expert")
    table.start(0)
    if go:
        scheduler.advance(COUNTDOWN)
        assert table.act(0, Turn(0)).ok
        scheduler.advance(5.0)
        game = table.game
        assert table.phase is Phase.PLAYING and game is not None
        assert any(action.player == 2 for action in game.log), "the bot has played"
    if left:
        table.leave(0)
        table.leave(1)
    table.close()  # the process dies
    return table, tokens


def _restarted(table: Table, catch_up_s: float = CATCH_UP) -> tuple[Table, VirtualScheduler]:
    """The table as the store rebuilds it after a restart, resumed."""
    scheduler = VirtualScheduler(start=5000.0)
    game = table.game
    actions = [] if game is None else [action_to_dict(action) for action in game.log]
    again = Table.restore(table.record(), actions, countdown_s=COUNTDOWN, scheduler=scheduler)
    again.resume(catch_up_s)
    return again, scheduler


def _log(table: Table) -> int:
    assert table.game is not None
    return len(table.game.log)


def _seat(message: dict[str, Any], index: int) -> dict[str, Any]:
    seat: dict[str, Any] = message["seats"][index]
    return seat


def test_a_restored_round_waits_for_its_people_then_counts_down_afresh() -> None:
    before, (ann_token, bob_token) = _before_the_crash()
    table, scheduler = _restarted(before)
    restart = scheduler.now()
    played = _log(table)
    assert table.phase is Phase.COUNTDOWN
    assert table.start_at == restart + CATCH_UP + COUNTDOWN, "at the latest: the catch-up time and a countdown"

    # Ann is back after 10 s: nothing has happened, and the round still waits for Bob.
    scheduler.advance(10.0)
    assert _log(table) == played, "a bot acted before the people were back"
    ann = Recorder()
    assert table.rejoin(ann, ann_token) == 0
    (welcome, state, snapshot) = ann.messages
    assert welcome["type"] == "welcome" and state["type"] == "table" and snapshot["type"] == "snapshot"
    assert state["phase"] == "countdown" and state["start_at"] == restart + CATCH_UP + COUNTDOWN
    assert table.game is not None and snapshot["view"] == view(table.game, 0).to_dict(), "the round as it was"
    assert snapshot["view"]["ending"] is None and snapshot["round"] == 1
    with pytest.raises(TableError) as refused:
        table.act(0, Turn(0))
    assert refused.value.code == "countdown"

    # Bob is back 2 s later: the last one, so a fresh countdown for everyone, told to both.
    scheduler.advance(2.0)
    bob = Recorder()
    assert table.rejoin(bob, bob_token) == 1
    back = scheduler.now()
    for person in (ann, bob):
        last = person.of("table")[-1]
        assert last["phase"] == "countdown" and last["start_at"] == back + COUNTDOWN
        assert _seat(last, 0)["connected"] and _seat(last, 1)["connected"]
    assert bob.messages[-1]["type"] == "snapshot", "Bob's table message came with his fresh countdown"
    scheduler.advance(COUNTDOWN - TICK)
    assert table.phase is Phase.COUNTDOWN and _log(table) == played
    assert not ann.of("go")
    scheduler.advance(TICK)
    assert table.phase is Phase.PLAYING and [m["round"] for m in ann.of("go")] == [1]
    assert table.act(1, Turn(1)).ok
    scheduler.advance(5.0)
    assert table.game is not None and any(action.player == 2 for action in table.game.log[played:]), (
        "the bot is back at work"
    )
    table.close()


def test_nobody_back_the_round_starts_after_the_catch_up_time_and_grace_periods_still_end() -> None:
    before, _ = _before_the_crash()
    table, scheduler = _restarted(before)
    restart = scheduler.now()
    played = _log(table)
    scheduler.advance(CATCH_UP + COUNTDOWN - TICK)
    assert table.phase is Phase.COUNTDOWN and _log(table) == played
    scheduler.advance(TICK)
    assert table.phase is Phase.PLAYING
    scheduler.advance(5.0)
    assert table.game is not None
    assert {action.player for action in table.game.log[played:]} == {2}, "only the bot plays: the people are away"
    # The grace periods ran from the restart: at its end, stand-ins play for Ann and Bob.
    scheduler.advance(restart + GRACE - scheduler.now() - TICK)
    assert not any(seat is not None and seat.stand_in for seat in table.seats)
    scheduler.advance(TICK)
    assert all(seat is not None and (seat.stand_in or seat.bot is not None) for seat in table.seats)
    mark = _log(table)
    scheduler.advance(10.0)
    assert table.game is not None and {0, 1} <= {action.player for action in table.game.log[mark:]}
    table.close()


def test_a_grace_period_shorter_than_the_catch_up_ends_the_wait() -> None:
    """Bob's grace period (5 s) ends during the catch-up while Ann is back: his stand-in
    is the last one awaited, so the fresh countdown starts then, and the stand-in plays."""
    before, (ann_token, _) = _before_the_crash(grace_s=5.0)
    table, scheduler = _restarted(before)
    restart = scheduler.now()
    ann = Recorder()
    table.rejoin(ann, ann_token)
    assert table.start_at == restart + CATCH_UP + COUNTDOWN, "Bob is awaited"
    scheduler.advance(5.0)
    bob = table.seats[1]
    assert bob is not None and bob.stand_in
    assert table.start_at == restart + 5.0 + COUNTDOWN
    assert ann.of("table")[-1]["start_at"] == table.start_at
    scheduler.advance(COUNTDOWN)
    assert table.phase is Phase.PLAYING
    mark = _log(table)
    scheduler.advance(10.0)
    assert table.game is not None and 1 in {action.player for action in table.game.log[mark:]}
    table.close()


def test_a_round_with_nobody_to_wait_for_gets_one_countdown() -> None:
    """Both people left before the crash (stand-ins play their seats): nobody to wait for."""
    before, _ = _before_the_crash(left=True)
    assert all(seat is not None and (seat.stand_in or seat.bot is not None) for seat in before.seats)
    table, scheduler = _restarted(before)
    assert table.phase is Phase.COUNTDOWN and table.start_at == scheduler.now() + COUNTDOWN
    scheduler.advance(COUNTDOWN)
    assert table.phase is Phase.PLAYING
    table.close()


def test_a_round_restored_in_its_countdown_waits_too() -> None:
    before, (ann_token, bob_token) = _before_the_crash(go=False)
    assert before.phase is Phase.COUNTDOWN
    table, scheduler = _restarted(before)
    assert table.start_at == scheduler.now() + CATCH_UP + COUNTDOWN, "not the old countdown's rest"
    table.rejoin(Quiet(), ann_token)
    table.rejoin(Quiet(), bob_token)
    assert table.start_at == scheduler.now() + COUNTDOWN
    scheduler.advance(COUNTDOWN)
    assert table.phase is Phase.PLAYING and _log(table) == 0
    table.close()


def test_a_restart_during_the_catch_up_waits_again() -> None:
    """Killed again while the restored round waits: its record says ``countdown``, and the
    next restart waits for the people as the first did."""
    before, (ann_token, _) = _before_the_crash()
    first, scheduler = _restarted(before)
    played = _log(first)
    first.rejoin(Quiet(), ann_token)
    scheduler.advance(4.0)
    first.close()
    assert first.record().phase == "countdown"
    table, scheduler = _restarted(first)
    assert _log(table) == played
    assert table.phase is Phase.COUNTDOWN and table.start_at == scheduler.now() + CATCH_UP + COUNTDOWN
    scheduler.advance(CATCH_UP + COUNTDOWN)
    assert table.phase is Phase.PLAYING
    table.close()
