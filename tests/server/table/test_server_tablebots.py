"""A table's bots in real time (``ligretto.server.table.bots``), tested in virtual time: each
bot is the shared :class:`~ligretto.bots.driver.BotDriver` and every wait it plans is a
timer of the table's scheduler, so its pace is exactly its driver's, nothing happens
before its first delay, and a stand-in stops the moment its person is back."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from listeners import Quiet

from ligretto.bots import STRATEGIES, BotSpec, Observation, Strategy, register
from ligretto.bots.driver import LOOK_AGAIN, MIN_MOVE_REAL_TIME
from ligretto.engine import Action, Round, Turn, Vote
from ligretto.engine.events import Applied, Refused
from ligretto.protocol import Phase
from ligretto.server.table.clock import VirtualScheduler
from ligretto.server.table.table import STAND_IN, Table

RHYTHM = [True, False, True, True, False, False, True]
"""The test strategy's answers, round and round: turn the hand, or wait and look again."""


@pytest.fixture(autouse=True)
def rhythm_strategy() -> Iterator[None]:
    """``test-rhythm``: turns or waits by a fixed rhythm, whatever the table shows, so a
    twin driver off the table plans exactly what the table's bot plans."""
    saved = dict(STRATEGIES)

    @register("test-rhythm")
    class Rhythm(Strategy):
        asked = 0

        def choose(self, seen: Observation) -> Action | None:
            turn = RHYTHM[self.asked % len(RHYTHM)]
            self.asked += 1
            return Turn(seen.seat) if turn else None

    yield
    STRATEGIES.clear()
    STRATEGIES.update(saved)


class Recording(Table):
    """A table that notes when each action arrives, on its scheduler's clock."""

    acts: list[tuple[float, int, Action]]

    def act(self, index: int | None, action: Action, client_id: str | int | None = None) -> Applied | Refused:
        assert index is not None
        self.acts.append((self.scheduler.now(), index, action))
        return super().act(index, action, client_id)


def recording(scheduler: VirtualScheduler, seats: int, **options: Any) -> Recording:
    table = Recording("PACE", seats=seats, scheduler=scheduler, match_seeds=lambda n: 5, **options)
    table.acts = []
    return table


def planned_moves(spec: BotSpec, game: Round, seat: int, round_key: str, *, start: float, until: float) -> list[float]:
    """When a twin of the table's bot, seeded the same way, would make its moves: it waits
    each delay its driver plans, in order, from ``start``."""
    twin = spec.driver(game, seat, round_key, real_time=True)
    times = []
    now = start
    while True:
        delay, action = twin.plan()
        now += delay
        if now > until:
            return times
        if action is not None:
            times.append(now)


@pytest.mark.parametrize("level", ["casual", "expert", "machine"])
def test_a_bot_moves_after_exactly_the_delays_its_driver_plans(level: str) -> None:
    scheduler = VirtualScheduler()
    table = recording(scheduler, 3, countdown_s=1.0)
    table.join(Quiet(), "Ann")
    specs = {1: BotSpec("test-rhythm", level), 2: BotSpec("test-rhythm", "beginner")}
    for spec in specs.values():
        table.add_bot(0, str(spec))
    table.start(0)
    scheduler.advance(1.0)
    assert table.phase is Phase.PLAYING
    go = scheduler.now()
    game = table.game
    assert game is not None
    expected = {
        seat: planned_moves(spec, game, seat, table.round_key, start=go, until=go + 30.0)
        for seat, spec in specs.items()
    }

    # Nothing happens before a bot's first delay is over; then its first move, on time.
    first = min(times[0] for times in expected.values())
    scheduler.advance(first - go - 1e-9)
    assert table.acts == [], "a bot moved before its first delay was over"
    scheduler.advance(go + 30.0 - scheduler.now())

    for seat in specs:
        moves = [when for when, index, _ in table.acts if index == seat]
        assert moves == pytest.approx(expected[seat], abs=1e-9), f"seat {seat} off its driver's pace"
        assert len(moves) >= 5
    assert all(action == Turn(index) for _, index, action in table.acts)
    assert 0 not in {index for _, index, _ in table.acts}, "the person's seat has no bot"
    gaps = [b - a for a, b in zip(expected[1], expected[1][1:], strict=False)]
    if level == "machine":  # a move after the real-time floor, each look LOOK_AGAIN before it
        assert {round(gap, 9) for gap in gaps} == {
            round(MIN_MOVE_REAL_TIME, 9),
            round(LOOK_AGAIN + MIN_MOVE_REAL_TIME, 9),
            round(2 * LOOK_AGAIN + MIN_MOVE_REAL_TIME, 9),
        }
    else:
        assert min(gaps) > MIN_MOVE_REAL_TIME, "human levels are slower than the floor"
    table.close()
    assert scheduler.pending == 0, "closing cancels every bot's timer"


def test_the_bots_stop_when_the_round_is_over() -> None:
    scheduler = VirtualScheduler()
    table = recording(scheduler, 3, countdown_s=1.0)
    table.join(Quiet(), "Ann")
    table.add_bot(0, "test-rhythm:casual")
    table.add_bot(0, "test-rhythm:machine")
    table.start(0)
    scheduler.advance(5.0)
    game = table.game
    assert game is not None and 1 in table.bots and 2 in table.bots
    moves = len(table.acts)
    for seat in range(3):  # everyone calls a stalemate: the round is over
        assert table.act(seat, Vote(seat)).ok
    assert game.over and table.phase is not Phase.PLAYING
    assert 1 not in table.bots and 2 not in table.bots
    assert scheduler.pending == table.pending_timers, "no bot timer is left once the round is over"
    scheduler.advance(30.0)
    assert len(table.acts) == moves + 3, "no bot moved after the round was over"
    table.close()


def test_a_stand_in_plays_at_its_pace_and_stops_the_moment_its_person_rejoins() -> None:
    scheduler = VirtualScheduler()
    table = recording(scheduler, 2, countdown_s=1.0, grace_s=5.0)
    ann, bob = Quiet(), Quiet()
    table.join(ann, "Ann")
    _, token = table.join(bob, "Bob")
    table.start(0)
    scheduler.advance(1.0)
    game = table.game
    assert game is not None
    table.disconnected(bob)
    scheduler.advance(5.0)
    assert 1 in table.bots, "the grace period is over: a stand-in plays"
    came = scheduler.now()
    expected = planned_moves(STAND_IN, game, 1, table.round_key, start=came, until=came + 20.0)
    assert len(expected) >= 3
    # Rejoin halfway between the stand-in's third and fourth moves: one is planned.
    back = (expected[2] + expected[3]) / 2
    scheduler.advance(back - came)
    moves = [when for when, index, _ in table.acts if index == 1]
    assert moves == pytest.approx(expected[:3], abs=1e-9), "the stand-in plays at its driver's pace"
    assert scheduler.pending >= 1, "its next move is planned"

    table.rejoin(Quiet(), token)
    assert 1 not in table.bots
    assert scheduler.pending == table.pending_timers == 0, "the stand-in's planned move is cancelled"
    scheduler.advance(60.0)
    assert [when for when, index, _ in table.acts if index == 1] == moves, "the stand-in moved after Bob was back"
    table.close()
