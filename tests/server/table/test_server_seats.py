"""``leave`` is for good (``server/table/seats.py``): in a match the seat is a stand-in's from then
on and its token lets nobody back (``bad_token``), after a restore too; in the lobby the
seat is freed and its token is gone with it.

A :class:`~ligretto.server.table.table.Table` in-process with recording listeners and a
:class:`~ligretto.server.table.clock.VirtualScheduler`.  (Over a real socket and a real
restart: ``test_server_restore.py``.)
"""

from __future__ import annotations

import pytest
from listeners import Recorder

from ligretto.bots.spec import BotSpec
from ligretto.engine.actions import Turn, Vote
from ligretto.engine.rules import RuleSet
from ligretto.engine.serial import action_to_dict
from ligretto.protocol import Phase
from ligretto.server.table.clock import VirtualScheduler
from ligretto.server.table.table import Table, TableError

COUNTDOWN = 1.0


def _table(scheduler: VirtualScheduler, match_end: str = "rounds:1") -> tuple[Table, Recorder, Recorder, str, str]:
    """Ann (host) and Bob at a two-seat table in its lobby; their tokens."""
    rules = RuleSet().replace(match_end=match_end)
    table = Table("SEATS", seats=2, rules=rules, countdown_s=COUNTDOWN, scheduler=scheduler, match_seeds=lambda n: n)
    ann, bob = Recorder(), Recorder()
    _, ann_token = table.join(ann, "Ann")
    _, bob_token = table.join(bob, "Bob")
    return table, ann, bob, ann_token, bob_token


def _playing(scheduler: VirtualScheduler, match_end: str = "rounds:1") -> tuple[Table, Recorder, Recorder, str, str]:
    table, ann, bob, ann_token, bob_token = _table(scheduler, match_end)
    table.start(0)
    scheduler.advance(COUNTDOWN)
    assert table.phase is Phase.PLAYING
    return table, ann, bob, ann_token, bob_token


def _refused(table: Table, token: str) -> Recorder:
    """Coming back with ``token`` is refused with ``bad_token``; the would-be listener."""
    back = Recorder()
    with pytest.raises(TableError) as refusal:
        table.rejoin(back, token)
    assert refusal.value.code == "bad_token"
    assert back.messages == [] and back not in table.listeners
    return back


def test_leave_in_a_match_spends_the_token_and_the_stand_in_keeps_the_seat() -> None:
    scheduler = VirtualScheduler()
    table, ann, bob, _, token = _playing(scheduler)
    table.leave(1)
    seat = table.seats[1]
    assert seat is not None and seat.left and seat.stand_in and not seat.connected
    assert bob.seat is None and 1 in table.bots, "Bob watches now; a stand-in plays his seat"

    mark = len(ann.messages)
    _refused(table, token)
    assert ann.since(mark, "table") == [], "a refused token changes nothing anyone sees"
    assert seat.stand_in and 1 in table.bots, "the stand-in was not cancelled"
    scheduler.run_until(lambda: any(m["by"] == 1 for m in ann.since(mark, "events")), limit_s=60)
    game = table.game
    assert game is not None and any(action.player == 1 for action in game.log), "the stand-in plays on"

    # The seat stays the stand-in's: the old token never gets it back, whatever happens.
    _refused(table, token)
    with pytest.raises(TableError) as refusal:
        table.act(bob.seat, Turn(1))
    assert refusal.value.code == "not_seated", "the old connection is a spectator"
    table.close()


def test_a_seat_left_on_the_score_sheet_is_the_stand_ins_in_the_next_round() -> None:
    scheduler = VirtualScheduler()
    table, ann, _, _, token = _playing(scheduler, "rounds:2")
    for seat in (0, 1):
        assert table.act(seat, Vote(seat)).ok
    assert table.phase is Phase.SCORING
    table.leave(1)
    assert table.phase is Phase.SCORING, "Ann has not said she is ready"
    _refused(table, token)
    table.ready(0)
    assert table.phase is Phase.COUNTDOWN, "the stand-in is ready at once"
    _refused(table, token)
    scheduler.advance(COUNTDOWN)
    assert table.phase is Phase.PLAYING and 1 in table.bots
    assert ann.of("table")[-1]["seats"][1]["stand_in"] is True
    table.close()


def test_a_seat_left_is_the_stand_ins_in_the_rematch_too() -> None:
    scheduler = VirtualScheduler()
    table, _, _, _, token = _playing(scheduler)
    table.leave(1)
    table.leave(1)  # again (from another old connection): nothing changes
    game = table.game
    assert game is not None
    ann_plays = BotSpec("smart", "machine").driver(game, 0, table.round_key)
    while table.phase is Phase.PLAYING:  # Ann plays a bot's choices, the stand-in its own
        _, action = ann_plays.plan()
        if action is not None:
            table.act(0, action)
        scheduler.advance(0.25)
        assert scheduler.now() < 3600, "the round never ended"
    assert table.phase is Phase.OVER
    _refused(table, token)
    table.start(0)
    scheduler.advance(COUNTDOWN)
    assert table.phase is Phase.PLAYING and table.matches_played == 2
    seat = table.seats[1]
    assert seat is not None and seat.left and seat.stand_in and 1 in table.bots
    _refused(table, token)
    table.close()


def test_leave_in_the_lobby_frees_the_seat_and_its_token_is_gone() -> None:
    scheduler = VirtualScheduler()
    table, ann, bob, _, token = _table(scheduler)
    table.leave(1)
    assert table.seats[1] is None and bob.seat is None
    _refused(table, token)
    carl = Recorder()
    seat, carls = table.join(carl, "Carl")
    assert seat == 1 and carls != token
    _refused(table, token)
    assert ann.of("table")[-1]["seats"][1]["name"] == "Carl"
    table.close()


def test_a_restored_table_still_refuses_the_token_of_a_seat_left_in_its_match() -> None:
    scheduler = VirtualScheduler()
    table, _, _, ann_token, bob_token = _playing(scheduler)
    table.act(0, Turn(0))
    table.leave(1)
    record = table.record()
    assert record.seats[1] is not None and record.seats[1].left
    game = table.game
    assert game is not None
    actions = [action_to_dict(action) for action in game.log]
    table.close()

    later = VirtualScheduler()
    again = Table.restore(record, actions, scheduler=later)
    assert again.record() == record
    again.resume()
    _refused(again, bob_token)
    later.run_until(lambda: again.phase is Phase.PLAYING)  # the restored round waits, then goes on
    _refused(again, bob_token)
    seat = again.seats[1]
    assert seat is not None and seat.left and seat.stand_in and 1 in again.bots, "the stand-in plays on"
    assert again.rejoin(Recorder(), ann_token) == 0, "the person who stayed comes back"
    again.close()


def test_a_seat_cooling_down_after_a_flood_refuses_its_token_until_the_time_is_up() -> None:
    scheduler = VirtualScheduler()
    table, _, bob, _, token = _playing(scheduler)
    table.disconnected(bob)
    table.cool_down(1, 2.0)
    early = Recorder()
    scheduler.advance(1.5)
    with pytest.raises(TableError) as refusal:
        table.rejoin(early, token)
    assert refusal.value.code == "rate_limited" and "0.5 s" in refusal.value.message
    assert early.messages == [] and early not in table.listeners
    seat = table.seats[1]
    assert seat is not None and not seat.connected
    scheduler.advance(0.5)
    back = Recorder()
    assert table.rejoin(back, token) == 1 and back in table.listeners
    assert seat.connected and seat.cooling_until is None
