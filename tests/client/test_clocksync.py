"""The Python clients' clock sync (the terminal's, the fairness bench's players'), on an
injected clock: the offset of the shortest recent round trip, acts stamped with the
server's time, pings that echo the last pong."""

from __future__ import annotations

import pytest

from ligretto import protocol
from ligretto.client.clocksync import CLOCK_GAP_S, CLOCK_PINGS, PING_S, RECENT, ClockSync, ping_gap
from ligretto.protocol.limits import MAX_HELD_S
from ligretto.terminal.model import Phase, TableModel

ACT = {"type": "act", "id": 4, "action": {"kind": "turn"}}


def pong(sent: float, server_t: float) -> dict[str, object]:
    return {"type": "pong", "t": sent, "server_t": server_t}


def test_an_act_is_stamped_with_the_local_clock_plus_the_offset_of_the_shortest_trip() -> None:
    model = TableModel()
    model.receive(pong(10.0, 990.5), now=11.0)  # a trip of 1 s: offset 980
    model.receive(pong(20.0, 995.1), now=20.2)  # a trip of 0.2 s: offset 975
    model.receive(pong(30.0, 1010.0), now=30.6)  # 0.6 s: not the shortest
    assert model.clock_offset == pytest.approx(975.0) and model.best_round_trip == pytest.approx(0.2)
    stamped = model.clock.stamped(ACT, now=40.0)
    assert stamped["t"] == pytest.approx(40.0 + 975.0, abs=0.005)
    assert {key: value for key, value in stamped.items() if key != "t"} == ACT, "nothing else changes"
    assert "t" not in ACT, "the intent itself is not changed"
    protocol.decode(protocol.encode(stamped))  # a valid act


def test_no_stamp_before_the_first_pong_and_other_messages_leave_as_they_are() -> None:
    clock = ClockSync()
    assert clock.stamped(ACT, now=5.0) == ACT, "without an offset the server counts it as sent on arrival"
    clock.ponged(pong(1.0, 101.0), now=1.2)
    assert clock.stamped({"type": "ready"}, now=5.0) == {"type": "ready"}
    assert clock.stamped({"type": "ping", "t": 12.5}, now=5.0) == {"type": "ping", "t": 12.5}


def test_only_recent_round_trips_count() -> None:
    clock = ClockSync()
    clock.ponged(pong(0.0, 500.0), now=0.01)  # a very short trip, long ago
    for i in range(RECENT):
        sent = 10.0 + i
        clock.ponged(pong(sent, sent + 200.1), now=sent + 0.2)
    assert clock.offset == pytest.approx(200.0), "the old trip's offset was forgotten"


def test_the_first_ping_has_no_echo_and_every_later_one_echoes_the_last_pong() -> None:
    clock = ClockSync()
    assert clock.ping(now=100.0) == {"type": "ping", "t": 100.0}
    clock.ponged(pong(100.0, 5000.25), now=100.04)
    ping = clock.ping(now=101.0)
    assert ping["t"] == 101.0 and ping["echo"] == 5000.25
    assert ping["held"] == pytest.approx(0.96), "seconds since that pong arrived"
    clock.ponged(pong(101.0, 5001.5), now=101.03)
    later = clock.ping(now=102.5)
    assert later["echo"] == 5001.5 and later["held"] == pytest.approx(1.47)
    message = protocol.decode(protocol.encode(later))
    assert isinstance(message, protocol.Ping) and message.echo == 5001.5


def test_a_new_connection_starts_its_echoes_afresh_and_keeps_the_offset() -> None:
    clock = ClockSync()
    clock.ponged(pong(10.0, 900.0), now=10.2)
    clock.connected()
    assert clock.ping(now=11.0) == {"type": "ping", "t": 11.0}
    assert clock.offset == pytest.approx(889.9)


def test_a_pong_kept_too_long_or_a_clock_set_back_gives_no_echo() -> None:
    """``held`` must be 0-60 s for the server; outside it the ping says nothing of the trip."""
    clock = ClockSync()
    clock.ponged(pong(10.0, 900.0), now=10.1)
    assert "echo" not in clock.ping(now=10.1 + MAX_HELD_S + 1)
    assert "echo" not in clock.ping(now=9.0)
    clock.ponged(pong(20.0, 910.0), now=19.0)  # the clock went back meanwhile: no trip measured
    assert clock.best is not None and clock.best.seconds == pytest.approx(0.1)


def test_the_pings_schedule_three_quick_ones_then_one_a_second() -> None:
    assert [ping_gap(sent) for sent in range(1, 6)] == [CLOCK_GAP_S] * (CLOCK_PINGS - 1) + [PING_S] * 3
    assert PING_S == 1.0 and ping_gap(9, every=0.3) == 0.3


def test_the_countdown_reads_the_same_clock() -> None:
    model = TableModel(start_at=1000.0)
    model.phase = Phase.COUNTDOWN
    model.receive(pong(20.0, 995.1), now=20.2)
    assert model.countdown(now=22.0) == pytest.approx(1000.0 - (22.0 + model.clock.offset))


def test_the_round_trip_is_the_median_of_the_recent_ones() -> None:
    clock = ClockSync()
    assert clock.round_trip == 0.0
    for sent, back in ((100.0, 100.4), (101.0, 101.1), (102.0, 102.2)):
        clock.ponged(pong(sent, sent + 5.0), now=back)
    assert clock.round_trip == pytest.approx(0.2)


def test_a_pong_read_by_the_protocol_counts_as_its_json_object() -> None:
    read, plain = ClockSync(), ClockSync()
    read.ponged(protocol.Pong(10.0, 990.5), now=11.0)
    plain.ponged(pong(10.0, 990.5), now=11.0)
    assert read.trips == plain.trips and read.last_pong == plain.last_pong == (990.5, 11.0)
