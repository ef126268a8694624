"""What the load test reads of the server (``ligretto.harness.probes``)."""

from __future__ import annotations

from ligretto.harness.probes import server_gc, server_loop_lag
from ligretto.testkit.metricspage import samples


def test_the_servers_gc_pauses_are_read_from_its_histogram() -> None:
    name = "ligretto_gc_pause_seconds"
    before = samples(
        f'{name}_bucket{{generation="2",le="0.01"}} 1.0\n{name}_bucket{{generation="2",le="0.025"}} 2.0\n'
        f'{name}_bucket{{generation="2",le="+Inf"}} 2.0\n{name}_count{{generation="2"}} 2.0\n'
        f'{name}_sum{{generation="2"}} 0.03\n'
    )
    after = samples(
        f'{name}_bucket{{generation="2",le="0.01"}} 1.0\n{name}_bucket{{generation="2",le="0.025"}} 4.0\n'
        f'{name}_bucket{{generation="2",le="+Inf"}} 4.0\n{name}_count{{generation="2"}} 4.0\n'
        f'{name}_sum{{generation="2"}} 0.07\n'
    )
    report = server_gc(before, after)
    assert report["2"] == {"collections": 2, "total_ms": 40.0, "longest_under_ms": 25.0}
    assert report["0"] == {"collections": 0, "total_ms": 0.0, "longest_under_ms": None}


def test_the_servers_loop_lag_is_read_from_its_histogram() -> None:
    name = "ligretto_loop_lag_seconds"

    def page(counts: dict[str, float], total: float) -> dict[str, float]:
        lines = [f'{name}_bucket{{le="{le}"}} {n}' for le, n in counts.items()]
        return samples("\n".join([*lines, f"{name}_count {counts['+Inf']}", f"{name}_sum {total}"]) + "\n")

    before = page({"0.001": 10.0, "0.05": 10.0, "0.1": 10.0, "+Inf": 10.0}, 0.001)
    # 200 more looks: 150 under 1 ms, 48 more under 50 ms, 2 between 50 and 100 ms
    after = page({"0.001": 160.0, "0.05": 208.0, "0.1": 210.0, "+Inf": 210.0}, 0.401)
    assert server_loop_lag(before, after) == {"looks": 200, "mean_ms": 2.0, "p99_bucket_ms": 50.0, "over_50_ms": 2}
    assert server_loop_lag(after, after) == {"looks": 0}, "nothing looked at in the window"
