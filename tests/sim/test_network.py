"""The simulated network (``ligretto.sim.network``): latencies, their checks, the seeded
per-message delays and the command line's milliseconds."""

from __future__ import annotations

import math

import pytest

from ligretto.sim.network import (
    CAP_S,
    WINDOW_S,
    Arbitration,
    Latency,
    LatencyError,
    latency_from_ms,
    per_seat_ms,
)


def test_a_latency_holds_seconds_per_seat_and_defaults_to_arrival_without_jitter() -> None:
    latency = Latency((0.01, 0.1))
    assert latency.delay_s == (0.01, 0.1)
    assert latency.jitter_s == (0.0, 0.0)
    assert latency.arbitration is Arbitration.ARRIVAL and not latency.fair
    assert (latency.window_s, latency.cap_s) == (WINDOW_S, CAP_S) == (0.200, 0.150)
    assert latency.seats == 2
    assert Latency((0.0,), arbitration="fair").fair  # type: ignore[arg-type] -- as text, too
    assert latency.to_dict() == {
        "delay_ms": [10.0, 100.0],
        "jitter_ms": [0.0, 0.0],
        "arbitration": "arrival",
        "window_ms": 200.0,
        "cap_ms": 150.0,
    }


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"delay_s": ()}, "a delay for every seat"),
        ({"delay_s": (0.01, -0.02)}, "a delay must be a number of seconds, 0 or more, not -0.02"),
        ({"delay_s": (math.inf,)}, "a delay must be"),
        ({"delay_s": (math.nan,)}, "a delay must be"),
        ({"delay_s": (0.01, 0.02), "jitter_s": (0.0,)}, "2 delays but 1 jitters"),
        ({"delay_s": (0.01,), "jitter_s": (-1.0,)}, "a jitter must be"),
        ({"delay_s": (0.01,), "window_s": -0.08}, "the window must be"),
        ({"delay_s": (0.01,), "cap_s": -0.1}, "the cap must be"),
    ],
)
def test_a_bad_latency_is_refused_with_a_clear_error(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(LatencyError, match=message):
        Latency(**kwargs)  # type: ignore[arg-type]


def test_a_bad_arbitration_is_refused() -> None:
    with pytest.raises(LatencyError, match="the arbitration must be arrival or fair, not 'fastest'"):
        Latency((0.0,), arbitration="fastest")  # type: ignore[arg-type]


def test_the_number_of_delays_must_match_the_players() -> None:
    Latency((0.0, 0.1)).check_players(2)
    with pytest.raises(LatencyError, match="2 delays for 4 players"):
        Latency((0.0, 0.1)).check_players(4)


def test_each_message_takes_the_delay_plus_a_seeded_share_of_the_jitter() -> None:
    latency = Latency((0.010, 0.100, 0.050), (0.0, 0.020, 0.005))
    one, two, other = latency.link("ligretto:1:0"), latency.link("ligretto:1:0"), latency.link("ligretto:2:0")
    draws = [[link.delay(seat) for _ in range(200) for seat in range(3)] for link in (one, two, other)]
    assert draws[0] == draws[1], "the same round gives the same delays"
    assert draws[0] != draws[2], "another round draws its own"
    by_seat = [draws[0][seat::3] for seat in range(3)]
    assert set(by_seat[0]) == {0.010}, "no jitter: exactly the delay"
    for seat, (delay, jitter) in enumerate(zip(latency.delay_s, latency.jitter_s, strict=True)):
        if jitter:
            assert all(delay <= d < delay + jitter for d in by_seat[seat])
            assert max(by_seat[seat]) - min(by_seat[seat]) > jitter / 2, "spread over the jitter"
    assert one.estimate == (0.010, 0.100, 0.050), "the table's estimate is the mean delay"


def test_milliseconds_per_seat_or_one_for_all() -> None:
    assert per_seat_ms("--latency", "10,10,100,100", 4) == (0.01, 0.01, 0.1, 0.1)
    assert per_seat_ms("--latency", "25", 3) == (0.025,) * 3
    assert per_seat_ms("--latency", " 0 , 12.5", 2) == (0.0, 0.0125)


@pytest.mark.parametrize(
    ("text", "players", "message"),
    [
        ("10,100,50", 4, "--latency: 3 values for 4 players: give one per seat, or one for all"),
        ("10,-5", 2, "--latency: -5 is not a number of milliseconds, 0 or more"),
        ("10,fast", 2, "--latency: not a number of milliseconds: 'fast'"),
        ("10,,20", 3, "--latency: not a number of milliseconds: ''"),
        ("inf", 2, "--latency: inf is not a number of milliseconds"),
    ],
)
def test_bad_milliseconds_are_refused(text: str, players: int, message: str) -> None:
    with pytest.raises(LatencyError, match=message):
        per_seat_ms("--latency", text, players)


def test_the_command_lines_options_make_a_latency_only_when_given() -> None:
    assert latency_from_ms(4, None) is None
    latency = latency_from_ms(2, "10,100", jitter="0,5", arbitration="fair", window=100, cap=120)
    assert latency == Latency((0.01, 0.1), (0.0, 0.005), Arbitration.FAIR, 0.1, 0.12)
    # fair judging alone: every seat at the table, judged fairly
    assert latency_from_ms(3, None, arbitration="fair") == Latency((0.0,) * 3, (), Arbitration.FAIR)
    assert latency_from_ms(2, None, jitter="4") == Latency((0.0, 0.0), (0.004, 0.004))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"window": 80.0}, "--window and --cap are for --arbitration fair"),
        ({"cap": 100.0, "arbitration": "arrival"}, "--window and --cap are for --arbitration fair"),
        ({"window": -1.0, "arbitration": "fair"}, "--window: -1 is not a number of milliseconds"),
        ({"cap": math.nan, "arbitration": "fair"}, "--cap: nan is not"),
        ({"jitter": "1,2,3"}, "--jitter: 3 values for 2 players"),
        ({"arbitration": "first"}, "--arbitration: 'first' is not one of arrival, fair"),
    ],
)
def test_options_that_do_not_go_together_are_refused(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(LatencyError, match=message):
        latency_from_ms(2, "10,100", **kwargs)  # type: ignore[arg-type]
