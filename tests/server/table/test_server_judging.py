"""Fair judging at a table, on an injected clock (``server/table/judging.py``, docs/fairness.md).

Two seats race for one pile: seat 1 starts a pile with its 1, and both then show the 2
of that colour.  Each test sends the two plays at chosen virtual times with chosen stamps
and measured delays, and checks who won, when each play took effect, what the loser was
told and what was logged.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from listeners import Recorder

from ligretto.engine.actions import Turn
from ligretto.engine.events import Applied, Reason, Refused
from ligretto.engine.races import CAP_MS, DEFAULT_WINDOW_MS, Arbitration, Fairness
from ligretto.engine.rules import RuleSet
from ligretto.engine.serial import action_to_dict
from ligretto.engine.views import view
from ligretto.protocol import Phase
from ligretto.server.ops import metrics
from ligretto.server.records.store import SqliteStore
from ligretto.server.table.clock import VirtualScheduler
from ligretto.server.table.record import DealRecord, TableRecord
from ligretto.server.table.table import Table, TableError
from racedeals import a_race

RULES = RuleSet()


SEED, START, NEAR_TWO, FAR_TWO = a_race(RULES)


class Log:
    """A store that keeps the actions in the order the table logged them."""

    def __init__(self) -> None:
        self.actions: list[dict[str, Any]] = []

    def save_table(self, record: TableRecord) -> None:
        pass

    def start_round(self, deal: DealRecord, table: TableRecord) -> None:
        pass

    def record_action(
        self, deal: DealRecord, index: int, action: dict[str, Any], at: float, ranked: float | None = None
    ) -> None:
        assert index == len(self.actions)
        self.actions.append(action)


def playing(fairness: Fairness | None = None, store: Any = None) -> tuple[Table, VirtualScheduler, list[Recorder]]:
    """A two-seat table at the race: seat 1's 1 is down, both seats show its 2."""
    scheduler = VirtualScheduler()
    table = Table(
        "RACE",
        seats=2,
        rules=RULES,
        scheduler=scheduler,
        countdown_s=0.1,
        match_seeds=lambda number: SEED,
        fairness=fairness,
        store=store or Log(),
    )
    people = [Recorder(), Recorder()]
    for person, name in zip(people, ("Near", "Far"), strict=True):
        table.join(person, name)
    watcher = Recorder()
    table.watch(watcher)
    table.start(0)
    scheduler.advance(0.1)
    assert table.phase is Phase.PLAYING
    assert isinstance(table.act(1, START, "one"), Applied)  # a new pile is never held
    return table, scheduler, [*people, watcher]


def ack(listener: Recorder, ident: str) -> dict[str, Any]:
    (answer,) = [m for m in listener.of("ack") if m["id"] == ident]
    return answer


def test_two_plays_arriving_in_one_order_are_judged_in_the_other() -> None:
    """Near (at the table) plays its 2 at t0; far, measured 100 ms away, sent its 2 at
    t0 + 50 ms and it arrives at t0 + 150 ms.  Far saw the table 100 ms late, so it is
    ranked at t0 - 50 ms: it goes first, and near's play, held while a far play ranked
    earlier could still come (far's round trip, 200 ms), is refused."""
    log = Log()
    table, clock, (near, far, watcher) = playing(store=log)
    table.judge.measured(1, 0.1)  # far's pings measured it
    t0 = clock.now()
    assert table.act(0, NEAR_TWO, "n", sent=t0, delay=0.0) is None, "a contestable play is held"
    clock.advance(0.15)
    assert not near.of("ack", "n")
    assert isinstance(table.act(1, FAR_TWO, "f", sent=t0 + 0.05, delay=0.1), Applied), "nothing to wait for"
    assert ack(far, "f")["applied"] and not near.of("ack", "n")
    clock.advance(0.049)  # near's release: t0 + far's round trip
    assert not near.of("ack", "n")
    clock.advance(0.002)
    lost = ack(near, "n")
    assert lost == {
        "type": "ack",
        "id": "n",
        "applied": False,
        "reason": "does_not_fit",
        "message": Reason.DOES_NOT_FIT.text,
        "by": 1,
        "by_ms": 50,
    }
    race = {"type": "race", "round": 1, "pile": NEAR_TWO.pile, "winner": 1, "loser": 0, "ms": 50}
    for listener in (near, far, watcher):
        assert listener.of("race") == [race]
    # The order decided is the order logged: start, far's 2, near's refused 2.
    assert log.actions == [action_to_dict(a) for a in (START, FAR_TWO, NEAR_TWO)]
    game = table.game
    assert game is not None and game.pile_seats[NEAR_TWO.pile or 0] == [1, 1]


def test_by_arrival_the_first_to_arrive_wins_and_nothing_waits() -> None:
    table, clock, (_, far, watcher) = playing(Fairness(Arbitration.ARRIVAL))
    table.judge.measured(1, 0.1)
    t0 = clock.now()
    assert isinstance(table.act(0, NEAR_TWO, "n", sent=t0, delay=0.0), Applied)
    clock.advance(0.03)
    result = table.act(1, FAR_TWO, "f", sent=t0 - 0.03, delay=0.1)
    assert result == Refused(Reason.DOES_NOT_FIT)
    assert ack(far, "f")["by"] == 0 and ack(far, "f")["by_ms"] == 30  # by arrival: 30 ms sooner
    assert watcher.of("race") == [
        {"type": "race", "round": 1, "pile": NEAR_TWO.pile, "winner": 0, "loser": 1, "ms": 30}
    ]


@pytest.mark.parametrize(("later_s", "race"), [(0.25, True), (0.251, False)])
def test_a_play_refused_long_after_the_card_that_took_its_place_is_no_race(later_s: float, race: bool) -> None:
    """A race is two plays ranked at most 250 ms apart (``races.RACE_MS``; by arrival, as
    they arrived); a play that came later only learns whose card took its place: no margin,
    no race for anyone."""
    table, clock, (near, far, watcher) = playing(Fairness(Arbitration.ARRIVAL))
    before = metrics.RACES._value.get()
    assert isinstance(table.act(0, NEAR_TWO, "n", sent=clock.now(), delay=0.0), Applied)
    clock.advance(later_s)
    assert table.act(1, FAR_TWO, "f", sent=clock.now(), delay=0.0) == Refused(Reason.DOES_NOT_FIT)
    told = ack(far, "f")
    assert told["by"] == 0 and told.get("by_ms") == (round(later_s * 1000) if race else None)
    for listener in (near, far, watcher):
        assert len(listener.of("race")) == race
    assert metrics.RACES._value.get() - before == race


def test_a_far_play_ranked_at_the_same_time_is_a_race_though_it_lands_later() -> None:
    """Near plays its 2 at t0 (held for far's round trip, at most the window: 200 ms); far,
    150 ms away, sends its 2 at t0 + 350 ms and it arrives at t0 + 500 ms, 300 ms after
    near's card landed: ranked at t0 + 200 ms, it was a race all the same, lost by 200 ms."""
    table, clock, (near, far, watcher) = playing()
    table.judge.measured(1, 0.15)
    t0 = clock.now()
    assert table.act(0, NEAR_TWO, "n", sent=t0, delay=0.0) is None
    clock.advance(0.5)
    assert ack(near, "n")["applied"]
    assert table.act(1, FAR_TWO, "f", sent=t0 + 0.35, delay=0.15) == Refused(Reason.DOES_NOT_FIT)
    assert ack(far, "f")["by"] == 0 and ack(far, "f")["by_ms"] == 200
    assert watcher.of("race") == [
        {"type": "race", "round": 1, "pile": NEAR_TWO.pile, "winner": 0, "loser": 1, "ms": 200}
    ]


def test_rivals_at_the_same_distance_hold_nothing() -> None:
    """Both seats measured 20 ms away: a play ranked earlier by the other would already be
    here, so a contested play takes effect as it arrives (and the first to arrive wins)."""
    table, clock, (_, far, _) = playing()
    table.judge.measured(1, 0.02)
    assert isinstance(table.act(0, NEAR_TWO, "n", sent=clock.now() - 0.02, delay=0.02), Applied)
    clock.advance(0.005)
    assert table.act(1, FAR_TWO, "f", sent=clock.now() - 0.02, delay=0.02) == Refused(Reason.DOES_NOT_FIT)
    assert ack(far, "f")["by_ms"] == 5


@pytest.mark.parametrize("early_s", [0.01, 0.5], ids=["honest", "liar"])
def test_a_stamp_earlier_than_the_measured_delay_gains_nothing_beyond_it(early_s: float) -> None:
    """The liar: far stamps its play 500 ms early, from a connection measured 10 ms away.
    It is ranked at its arrival minus 20 ms (10 ms each way), exactly as an honest client
    10 ms away is: near's play, sent 25 ms before far's arrived, still wins by 5 ms."""
    table, clock, (near, far, _) = playing()
    table.judge.measured(1, 0.01)
    t0 = clock.now()
    assert table.act(0, NEAR_TWO, "n", sent=t0, delay=0.0) is None, "held 20 ms for far"
    clock.advance(0.02)
    assert ack(near, "n")["applied"]
    clock.advance(0.005)
    assert table.act(1, FAR_TWO, "f", sent=clock.now() - early_s, delay=0.01) == Refused(Reason.DOES_NOT_FIT)
    assert ack(far, "f")["by"] == 0 and ack(far, "f")["by_ms"] == 5  # ranked at t0 + 25 - 20 ms


def test_the_delay_credited_to_a_connection_is_capped() -> None:
    """A connection that measures (or makes itself look) 300 ms away is credited the cap,
    150 ms each way: a play that arrives 350 ms after near's is ranked 50 ms after it
    (uncapped it would have been ranked 250 ms before it).  And near's play was held
    only the window, 250 ms, not far's 600 ms round trip."""
    table, clock, (near, far, _) = playing(Fairness(Arbitration.FAIR, 250))
    table.judge.measured(1, 0.3)
    t0 = clock.now()
    assert table.act(0, NEAR_TWO, "n", sent=t0, delay=0.0) is None
    clock.advance(0.249)
    assert not near.of("ack", "n")
    clock.advance(0.002)
    assert ack(near, "n")["applied"]
    clock.advance(0.099)
    assert table.act(1, FAR_TWO, "f", sent=clock.now() - 0.3, delay=0.3) == Refused(Reason.DOES_NOT_FIT)
    assert ack(far, "f")["by_ms"] == round(350 - 2 * CAP_MS)


def test_a_play_arriving_after_the_window_loses_even_if_ranked_earlier() -> None:
    """Far is 150 ms away, but the window (200 ms) is shorter than its round trip: near's
    play is let go after the window; far's, ranked 20 ms earlier, arrives later still: it
    loses, and ``by_ms`` says it was ranked earlier (negative)."""
    table, clock, (near, far, _) = playing()
    table.judge.measured(1, 0.15)
    t0 = clock.now()
    assert table.act(0, NEAR_TWO, "n", sent=t0, delay=0.0) is None
    clock.advance(DEFAULT_WINDOW_MS / 1000)
    assert ack(near, "n")["applied"]
    clock.advance(0.08)
    assert table.act(1, FAR_TWO, "f", sent=clock.now() - 0.15, delay=0.15) == Refused(Reason.DOES_NOT_FIT)
    assert ack(far, "f")["by"] == 0 and ack(far, "f")["by_ms"] == -20


def test_a_play_ranked_later_never_overtakes_one_held_for_its_pile() -> None:
    """Near's play is held for far (measured 100 ms away).  Far's play arrives sooner than
    its delay says (its stamp is its arrival): ranked 50 ms after near's, it would be let
    go at once, before near's; it waits behind near's play instead, and loses."""
    log = Log()
    table, clock, (near, far, _) = playing(store=log)
    table.judge.measured(1, 0.1)
    t0 = clock.now()
    assert table.act(0, NEAR_TWO, "n", sent=t0, delay=0.0) is None
    clock.advance(0.15)
    assert table.act(1, FAR_TWO, "f", sent=clock.now(), delay=0.1) is None, "it waits behind near's play"
    clock.advance(0.051)
    assert ack(near, "n")["applied"]
    assert ack(far, "f")["applied"] is False and ack(far, "f")["by_ms"] == 50
    assert log.actions == [action_to_dict(a) for a in (START, NEAR_TWO, FAR_TWO)]


def test_the_delays_follow_the_seats_when_the_gaps_are_closed() -> None:
    """A match starts with seats 0 and 2 taken: seat 2 becomes seat 1, and its delay with it."""
    table = Table("GAPS", seats=3, rules=RULES, scheduler=VirtualScheduler(), countdown_s=0.1)
    people = [Recorder(), Recorder(), Recorder()]
    for person, name in zip(people, ("Ann", "Bea", "Cy"), strict=True):
        table.join(person, name)
    table.leave(1)
    table.judge.measured(0, 0.01)
    table.judge.measured(2, 0.1)
    table.start(0)
    assert table.size == 2 and table.judge.delays == {0: 0.01, 1: 0.1}


def test_nobody_waits_for_a_rival_who_is_away() -> None:
    """Far is measured 100 ms away but its connection is gone (its grace period runs):
    it cannot play, so near's play for the pile it shows a card for takes effect at once."""
    table, clock, (near, far, _) = playing()
    table.judge.measured(1, 0.1)
    table.disconnected(far)
    assert isinstance(table.act(0, NEAR_TWO, "n", sent=clock.now(), delay=0.0), Applied)
    assert ack(near, "n")["applied"] and table.judge.pending == 0


def test_plays_that_cannot_be_contested_take_effect_at_once() -> None:
    """Turning the hand is never held (nor is a new pile: ``playing`` starts one)."""
    table, _, (near, _, _) = playing()
    table.judge.measured(1, 0.1)
    assert isinstance(table.act(0, Turn(0), "t"), Applied)
    assert ack(near, "t")["applied"]


def test_a_seats_later_action_waits_behind_its_held_play() -> None:
    table, clock, (near, _, _) = playing()
    table.judge.measured(1, 0.05)
    assert table.act(0, NEAR_TWO, "n") is None
    assert table.act(0, Turn(0), "t") is None, "a turn after a held play takes effect after it"
    clock.advance(0.1)
    assert [m["id"] for m in near.of("ack")] == ["n", "t"]
    assert all(m["applied"] for m in near.of("ack"))


def test_held_plays_are_answered_when_the_table_closes() -> None:
    log = Log()
    table, clock, (near, _, _) = playing(store=log)
    table.judge.measured(1, 0.1)
    assert table.act(0, NEAR_TWO, "n") is None
    counted = metrics.ACTIONS.reasons.get("round_over", 0)
    table.close()
    assert metrics.ACTIONS.reasons.get("round_over", 0) == counted + 1, "the answered play is counted"
    assert ack(near, "n") == {
        "type": "ack",
        "id": "n",
        "applied": False,
        "reason": "round_over",
        "message": Reason.ROUND_OVER.text,
    }
    assert log.actions == [action_to_dict(START)], "a play that never reached the engine is not logged"
    clock.advance(1.0)
    assert len(near.of("ack")) == 1


def test_a_bot_waits_for_its_held_play_then_plays_on() -> None:
    """A bot's contestable play is held like anyone's (here for a person measured 100 ms
    away); it plans its next move only once the play has taken effect (``TableBots.settled``)."""
    scheduler = VirtualScheduler()
    table = Table("BOTS", seats=2, rules=RULES, scheduler=scheduler, countdown_s=0.1, match_seeds=lambda n: SEED)
    person = Recorder()
    table.join(person, "Ann")
    table.judge.measured(0, 0.1)
    table.add_bot(0, "smart:machine")
    table.start(0)
    scheduler.run_until(lambda: table.phase is not Phase.COUNTDOWN)
    bot = table.bots._bots[1]
    held = 0
    for _ in range(2000):
        if table.phase is not Phase.PLAYING:
            break
        scheduler.advance(0.01)
        if bot.held:
            held += 1
            assert table.judge.pending >= 1, "a bot waits only on a play that is held"
    assert held, "the bot never had a play held (the person shows no card?)"
    assert table.game is not None and table.game.log, "the bot played"


def test_the_judging_is_a_table_setting() -> None:
    scheduler = VirtualScheduler()
    table = Table("SET", seats=2, scheduler=scheduler)
    host = Recorder()
    table.join(host, "Ann")
    assert table.table_message().arbitration == "fair" and table.table_message().window_ms == DEFAULT_WINDOW_MS
    table.set_rules(0, preset="classic", options={}, arbitration="arrival", window_ms=120)
    assert host.of("table")[-1]["arbitration"] == "arrival" and host.of("table")[-1]["window_ms"] == 120
    for bad in ({"arbitration": "fastest"}, {"window_ms": 251}, {"window_ms": -1}):
        with pytest.raises(TableError) as refused:
            table.set_rules(0, preset="classic", options={}, **bad)  # type: ignore[arg-type]
        assert refused.value.code == "bad_fairness"
    assert table.fairness == Fairness(Arbitration.ARRIVAL, 120), "a refused setting changed nothing"
    again = Table.restore(table.record(), [])
    assert again.fairness == Fairness(Arbitration.ARRIVAL, 120)


def test_the_time_plays_were_held_is_in_the_metrics() -> None:
    """Near's play is held 100 ms (far measured 50 ms away); far's, ranked earlier, is not."""
    before = metrics.HOLDS._sum.get()
    races = metrics.RACES._value.get()
    table, clock, _ = playing()
    table.judge.measured(1, 0.05)
    table.act(0, NEAR_TWO, "n")
    clock.advance(0.03)
    table.act(1, FAR_TWO, "f", sent=clock.now() - 0.05, delay=0.05)
    clock.advance(0.1)
    assert metrics.HOLDS._sum.get() - before == pytest.approx(0.1, abs=1e-6)
    assert metrics.RACES._value.get() == races + 1
    text = metrics.render().decode()
    assert "ligretto_hold_seconds_bucket" in text and "ligretto_races_total" in text


def test_a_judged_race_is_restored_as_it_was_decided(tmp_path: Path) -> None:
    """The store logs the order the judge decided; a table restored from the file (as after
    ``kill -9``) replays it to the same round: far's card on the pile, near's still shown."""

    async def play() -> dict[str, Any]:
        store = SqliteStore(tmp_path / "judged.db")
        table, clock, _ = playing(store=store)
        table.judge.measured(1, 0.1)
        t0 = clock.now()
        table.act(0, NEAR_TWO, "n", sent=t0, delay=0.0)
        clock.advance(0.03)
        table.act(1, FAR_TWO, "f", sent=t0 - 0.07, delay=0.1)
        clock.advance(0.2)
        game = table.game
        assert game is not None and game.pile_seats[FAR_TWO.pile or 0] == [1, 1]
        seen = view(game, None)
        store.commit()
        table.close()
        store.db.close()
        return {"view": seen, "log": list(game.log)}

    before = asyncio.run(play())
    store = SqliteStore(tmp_path / "judged.db")
    (restored,) = store.load_tables(countdown_s=0.01)
    assert restored.game is not None
    assert view(restored.game, None) == before["view"]
    assert list(restored.game.log) == before["log"]
    store.close()
