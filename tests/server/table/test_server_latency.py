"""A connection's round trips as the server measures them (``server/table/latency.py``), and the
``ping`` handling that feeds them (``server/table/dispatch.py``)."""

from __future__ import annotations

import sys
from typing import Any

from pytest import approx

from ligretto import protocol
from ligretto.server.table import dispatch
from ligretto.server.table.clock import VirtualScheduler
from ligretto.server.table.latency import SAMPLES, Latency
from ligretto.server.table.table import Table


def test_an_echo_of_the_last_pong_measures_one_round_trip() -> None:
    latency = Latency()
    assert latency.one_way == 0.0, "nothing measured: no delay is credited"
    latency.ponged(100.0)
    assert latency.pinged(100.0, 0.25, 100.45) == approx(0.2)  # arrived 0.45 s later, kept 0.25 s
    assert latency.one_way == approx(0.1)


def test_only_the_last_pong_counts_and_only_once() -> None:
    latency = Latency()
    latency.ponged(100.0)
    assert latency.pinged(99.0, 0.0, 100.5) is None, "an echo of a time the server never sent"
    assert latency.pinged(None, None, 100.5) is None, "no echo"
    assert latency.pinged(100.0, 0.0, 100.2) == approx(0.2)
    assert latency.pinged(100.0, 0.0, 100.3) is None, "the same pong echoed twice"
    latency.ponged(101.0)
    assert latency.pinged(101.0, 0.5, 101.2) is None, "kept longer than the trip took: not a trip"
    assert list(latency.samples) == [approx(0.2)]


def test_the_estimate_is_half_the_median_of_the_recent_trips() -> None:
    latency = Latency()
    now = 0.0
    for trip in [0.2] * SAMPLES + [0.9]:  # one slow trip does not move it
        latency.ponged(now)
        latency.pinged(now, 0.0, now + trip)
        now += 1.0
    assert latency.one_way == approx(0.1)
    for _ in range(SAMPLES):  # the connection got slower: the estimate follows
        latency.ponged(now)
        latency.pinged(now, 0.0, now + 0.4)
        now += 1.0
    assert latency.one_way == approx(0.2)


def test_only_the_last_trips_are_kept_in_a_small_list() -> None:
    """A connection keeps :data:`SAMPLES` trips, oldest dropped first, in a list that stays
    small however long it pings (a ``deque(maxlen=SAMPLES)`` was 760 bytes: issue 31)."""
    latency = Latency()
    for n in range(5 * SAMPLES):
        latency.ponged(float(n))
        latency.pinged(float(n), 0.0, n + (n + 1) / 1000)
    assert latency.samples == [approx((n + 1) / 1000) for n in range(4 * SAMPLES, 5 * SAMPLES)]
    assert sys.getsizeof(latency.samples) < 250


class Client:
    def __init__(self) -> None:
        self.seat: int | None = None
        self.table: Any = None
        self.reactions = protocol.ReactionLimit()
        self.latency = Latency()
        self.sent: list[Any] = []

    def send(self, message: protocol.Outgoing) -> None:
        self.sent.append(protocol.as_dict(message))

    def detach(self) -> None:
        pass


def test_pings_that_echo_their_pong_feed_the_connections_estimate() -> None:
    client = Client()
    dispatch.dispatch(client, protocol.decode('{"type": "ping", "t": 5.0}'))
    (pong,) = client.sent
    assert pong["t"] == 5.0
    echo = protocol.encode({"type": "ping", "t": 6.0, "echo": pong["server_t"], "held": 0.0})
    dispatch.dispatch(client, protocol.decode(echo))
    assert len(client.latency.samples) == 1 and 0.0 <= client.latency.samples[0] < 1.0
    assert client.sent[1]["type"] == "pong"


def test_a_seated_connections_pings_tell_its_tables_judge_its_delay() -> None:
    table = Table("PING", seats=2, scheduler=VirtualScheduler())
    client = Client()
    table.join(client, "Ann")
    client.table = table
    assert client.seat == 0 and table.judge.delays == {}
    dispatch.dispatch(client, protocol.decode('{"type": "ping", "t": 5.0}'))
    assert table.judge.delays == {}, "no round trip yet"
    echo = protocol.encode({"type": "ping", "t": 6.0, "echo": client.sent[-1]["server_t"], "held": 0.0})
    dispatch.dispatch(client, protocol.decode(echo))
    assert table.judge.delays == {0: approx(client.latency.one_way)}
    assert client.latency.samples, "measured"


def test_a_ping_with_a_bad_held_is_refused_as_invalid() -> None:
    for held in (-1, 61, "soon"):
        try:
            protocol.decode(protocol.encode({"type": "ping", "t": 1.0, "echo": 1.0, "held": held}))
        except protocol.ProtocolError as error:
            assert error.code == "invalid"
        else:
            raise AssertionError(f"held {held!r} was accepted")
