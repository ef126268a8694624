"""What the load test reports (``ligretto.harness.figures``)."""

from __future__ import annotations

from ligretto.harness.figures import percentiles
from ligretto.sim.stats import percentile


def test_percentiles_are_the_simulators() -> None:
    values = [i / 1000 for i in range(1, 101)]
    figures = percentiles(values)
    # Interpolated between order statistics, as sim.stats.percentile (rank 49.5 of 0..99 is 50.5 ms).
    assert (figures["p50"], figures["p95"], figures["p99"], figures["max"], figures["n"]) == (
        50.5,
        95.05,
        99.01,
        100,
        100,
    )
    assert figures["p99"] == round(1000 * percentile(values, 0.99), 2)
    assert percentiles([])["p99"] is None
