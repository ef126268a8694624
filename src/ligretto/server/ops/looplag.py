"""How late the server's event loop is: a timer of :data:`TICK_S` is set again and again,
and how much later than asked it fires goes to ``ligretto_loop_lag_seconds``.

Every table of a process waits on its one loop: a lag is how long any message that came
meanwhile waited before the server even looked at it (a young collection, a turn with
many actions, a slow commit).  ``ligretto loadtest`` reports it beside the latencies its
clients measure, which also hold the clients' own delays (docs/benchmarks.md, issue 31)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from ligretto.server.ops import metrics

TICK_S = 0.05
"""Seconds asked of each timer: 20 looks a second, nothing against the loop's work."""


async def watch(
    tick_s: float = TICK_S,
    clock: Callable[[], float] | None = None,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> None:
    """Observe the loop's lag every ``tick_s`` until cancelled (the server's lifespan);
    ``clock`` (default: the loop's) and ``sleep`` are the tests' to fake."""
    clock = clock or asyncio.get_running_loop().time
    while True:
        asked = clock() + tick_s
        await sleep(tick_s)
        metrics.LOOP_LAG.observe(max(0.0, clock() - asked))
