"""The event loop's lag on ``/metrics`` (``ligretto.server.ops.looplag``), on a fake clock."""

from __future__ import annotations

import asyncio

import pytest

from ligretto.server.ops import looplag, metrics


def _sample(name: str, labels: dict[str, str] | None = None) -> float:
    return metrics.REGISTRY.get_sample_value(f"ligretto_loop_lag_seconds_{name}", labels or {}) or 0.0


def test_how_late_each_timer_fired_is_observed() -> None:
    now = [0.0]
    late_by = iter([0.0, 0.002, 0.2])

    async def sleep(seconds: float) -> None:
        try:
            now[0] += seconds + next(late_by)
        except StopIteration:
            raise asyncio.CancelledError from None

    count, total = _sample("count"), _sample("sum")
    over_50 = count - _sample("bucket", {"le": "0.05"})
    with pytest.raises(asyncio.CancelledError):
        asyncio.run(looplag.watch(0.05, clock=lambda: now[0], sleep=sleep))
    assert _sample("count") - count == 3
    assert _sample("sum") - total == pytest.approx(0.202)
    assert _sample("count") - _sample("bucket", {"le": "0.05"}) - over_50 == 1, "one look over 50 ms"
