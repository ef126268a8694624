"""What the load test reads of the server (``ligretto.harness.probes``)."""

from __future__ import annotations

from ligretto.harness.probes import server_gc
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
