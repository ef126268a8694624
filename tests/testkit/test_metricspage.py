"""The one reader of a server's Prometheus page (``ligretto.testkit.metricspage``)."""

from __future__ import annotations

from ligretto.testkit.metricspage import sample_key, samples


def test_metrics_parsing() -> None:
    text = '# HELP x\nligretto_actions_total 12.0\nligretto_action_latency_seconds_bucket{le="0.001"} 3.0\n'
    assert samples(text) == {
        "ligretto_actions_total": 12.0,
        'ligretto_action_latency_seconds_bucket{le="0.001"}': 3.0,
    }


def test_labels_are_keyed_in_one_order_whatever_the_pages_order() -> None:
    text = 'ligretto_gc_pause_seconds_bucket{le="0.01",generation="2"} 1.0\n'
    assert samples(text) == {sample_key("ligretto_gc_pause_seconds_bucket", {"generation": "2", "le": "0.01"}): 1.0}
    assert sample_key("x", {"b": "1", "a": "2"}) == 'x{a="2",b="1"}'
