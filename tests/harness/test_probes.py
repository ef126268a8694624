"""What the load test reads of the server (``ligretto.harness.probes``)."""

from __future__ import annotations

from ligretto.harness.probes import parse_metrics, server_gc


def test_metrics_parsing() -> None:
    text = '# HELP x\nligretto_actions_total 12.0\nligretto_action_latency_seconds_bucket{le="0.001"} 3.0\n'
    assert parse_metrics(text) == {
        "ligretto_actions_total": 12.0,
        'ligretto_action_latency_seconds_bucket{le="0.001"}': 3.0,
    }


def test_the_servers_gc_pauses_are_read_from_its_histogram() -> None:
    name = "ligretto_gc_pause_seconds"
    before = parse_metrics(
        f'{name}_bucket{{generation="2",le="0.01"}} 1.0\n{name}_bucket{{generation="2",le="0.025"}} 2.0\n'
        f'{name}_bucket{{generation="2",le="+Inf"}} 2.0\n{name}_count{{generation="2"}} 2.0\n'
        f'{name}_sum{{generation="2"}} 0.03\n'
    )
    after = parse_metrics(
        f'{name}_bucket{{generation="2",le="0.01"}} 1.0\n{name}_bucket{{generation="2",le="0.025"}} 4.0\n'
        f'{name}_bucket{{generation="2",le="+Inf"}} 4.0\n{name}_count{{generation="2"}} 4.0\n'
        f'{name}_sum{{generation="2"}} 0.07\n'
    )
    report = server_gc(before, after)
    assert report["2"] == {"collections": 2, "total_ms": 40.0, "longest_under_ms": 25.0}
    assert report["0"] == {"collections": 0, "total_ms": 0.0, "longest_under_ms": None}
