"""The stress harness's Redis outage (issue 27, ``ligretto stress --scenarios redis_down``):
:func:`run_redis_down`.

A service of its own (``harness/service.py``: ``processes`` processes, a private Redis and
PostgreSQL) with ``tables`` tables playing, placed on every process.  After ``settle_s``
of play, Redis is stopped (SIGTERM: it comes back empty, as with no persistence) for
``down_s`` and started again on the same port; after ``settle_s`` more it hangs (SIGSTOP)
for ``hang_s`` and resumes (SIGCONT); then ``settle_s`` of play again.  At the start and
the end of each outage every spectator and each table's first person drop their connection
and come back through the next process (one that does not own their table cannot find its
owner: 1013, and they try the next; as Redis comes back empty, not even the owner's
process has offered it again yet), and every process is asked ``POST /api/tables`` every
:data:`PROBE_S` (docs/deploy.md, "Redis is unreachable": 503 ``unavailable``, never a 500).

Wrong answers: a client ejected (``harness/service.py``), an answer to ``POST
/api/tables`` while Redis was stopped or hung other than 503 ``unavailable`` (one that
comes once it is back may be a table made, 201), none within the probe's time, and every
table taken over (``ligretto_take_overs_total`` over the processes) that no process handed
over to rebalance the service (``ligretto_handed_over_total``): no process died, so any
other take-over is spurious.  Reported beside: the ack latency before, during and after
each outage, the seconds from Redis back to every process's ``/readyz`` saying ``ready``,
the tables each process had before and after, the processes' rebalancing
(``ligretto_handed_over_total``) and the shared figures of :meth:`ServiceRun.finish`
(acks lost, tracebacks, hidden cards).
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ligretto.harness.scenario import ScenarioReport
from ligretto.harness.service import ServiceRun, answer
from ligretto.testkit.pgserver import PgServer
from ligretto.testkit.serverprocess import ServerProcess

PROBE_S = 0.25
"""Seconds between two ``POST /api/tables`` to each process during an outage."""
TRY_AGAIN = "503 unavailable"
ANSWER_S = 5.0
"""How long a probe waits for its answer (past a hang: after it)."""
NEW_TABLE = {"seats": 2}


@dataclass(slots=True)
class Creations:
    """The answers to ``POST /api/tables`` during an outage, by status and error code (``0``:
    none within the probe's time), those that came while Redis was away and after."""

    away: Counter[str] = field(default_factory=Counter)
    after: Counter[str] = field(default_factory=Counter)
    back_at: float = math.inf
    """When Redis was back (``time.monotonic``)."""

    @property
    def wrong(self) -> int:
        """Anything but 503 ``unavailable`` while Redis was away; after, a table made is right too."""
        return sum(n for key, n in self.away.items() if key != TRY_AGAIN) + sum(
            n for key, n in self.after.items() if key not in (TRY_AGAIN, "201")
        )

    def report(self) -> dict[str, dict[str, int]]:
        return {"while_away": dict(self.away), "answered_after": dict(self.after)}


async def creations(run: ServiceRun, seconds: float, timeout: float, found: Creations) -> None:
    """``POST /api/tables`` to every process every :data:`PROBE_S` for ``seconds``, each
    answered within ``timeout`` (after the outage: when ``found.back_at`` is before it)."""
    deadline = time.monotonic() + seconds

    async def ask(process: ServerProcess) -> None:
        while time.monotonic() < deadline:
            status, body = await asyncio.to_thread(answer, process, "POST", "/api/tables", NEW_TABLE, timeout)
            error = body.get("error") if isinstance(body, dict) else None
            (found.after if time.monotonic() > found.back_at else found.away)[
                f"{status} {error}" if error else str(status)
            ] += 1
            await asyncio.sleep(PROBE_S)

    await asyncio.gather(*(ask(p) for p in run.processes))


async def run_redis_down(
    folder: Path,
    *,
    processes: int,
    tables: int,
    players: int = 2,
    settle_s: float,
    down_s: float,
    hang_s: float,
    seed: int = 0,
    cpus: set[int] | None = None,
    pg: PgServer | None = None,
    **settings: Any,
) -> ScenarioReport:
    """Redis stopped, then hung, under a service's live tables (see the module's docstring)."""
    run = ServiceRun(folder, processes, seed, cpus, pg, **settings)
    try:
        await run.start()
        opened = await run.opening(tables, players, settle_s)
        placed, take_overs, handed = opened.placed, opened.take_overs, opened.handed
        # Stopped, and started again empty on the same port.
        run.mark("stopped")
        await asyncio.to_thread(run.redis.stop)
        dropped = await run.drop_some()
        while_stopped = Creations()
        await creations(run, down_s, ANSWER_S, while_stopped)
        back_while_stopped = sum(c.back for c in dropped)
        back = run.mark("stopped_back")
        await asyncio.to_thread(run.redis.start)
        await run.drop_some()  # and again as it comes back (empty: the service not known yet)
        ready_stopped = await run.ready_after(back)
        run.mark("after_stopped")
        await asyncio.sleep(settle_s)
        # Hung, and resumed.
        run.mark("hung")
        run.redis.hang()
        # (a request held by the hung Redis is answered once it resumes, or not in time)
        while_hung = Creations()
        probes = asyncio.create_task(creations(run, hang_s, hang_s + ANSWER_S, while_hung))
        await run.drop_some()
        await asyncio.sleep(hang_s)
        back_while_hung = sum(c.back for c in dropped)
        resumed = while_hung.back_at = run.mark("hung_back")
        run.redis.resume()
        await run.drop_some()
        await probes
        ready_hung = await run.ready_after(resumed)
        run.mark("after_hung")
        await asyncio.sleep(settle_s)
        taken = int(await run.metric("ligretto_take_overs_total") - take_overs)
        handed_over = int(await run.metric("ligretto_handed_over_total") - handed)
        spurious = max(0, taken - handed_over)  # no process died: a table taken is one handed over, or spurious
        owned_after = await run.owned()
    except BaseException:
        await run.abort()
        raise
    report = ScenarioReport(
        "redis_down",
        "Redis outages (stopped, hung)",
        tried=2,
        seconds=0.0,
        wrong_answers=while_stopped.wrong + while_hung.wrong + spurious,
        details={
            "down_s": down_s,
            "hang_s": hang_s,
            "tables_per_process": {"before": placed, "after": owned_after},
            "creations": {"stopped": while_stopped.report(), "hung": while_hung.report()},
            "ready_after_s": {"stopped": ready_stopped, "hung": ready_hung},
            "dropped_each_time": len(dropped),
            "back_before_redis": {"stopped": back_while_stopped, "hung": back_while_hung},
            "take_overs": taken,
            "handed_over": handed_over,
            "spurious_take_overs": spurious,
        },
    )
    return await run.finish(report)
