"""The stress harness's rolling restart (issue 27, ``ligretto stress --scenarios
rolling_restart``): :func:`run_rolling_restart`.

A service of its own (``harness/service.py``) with ``tables`` tables playing.  Each
process in turn is told to stop (SIGTERM: it drains, commits and hands its tables over to
the others, docs/deploy.md), started again on its port once it has exited, and, once its
``/readyz`` says ``ready``, followed by ``settle_s`` of play before the next.  The clients
play on throughout, each connection to the next process (one that is down: the next).
After the last, the service has up to ``rebalance_s`` to spread the tables again (a
process over its share hands one over between rounds; every ``settle_s`` the tables not
yet spread have their people vote their rounds to an end, so that some are between rounds).

Wrong answers, beside the shared ones (a client ejected; acks lost, tracebacks, hidden
cards): a table that no process has at the end, and tables not spread: some live process
more than one above or below the fair share (the tables over the processes, rounded up or
down).  Reported: the seconds
from each SIGTERM to its process's exit, from there to ``/healthz`` answering again and on
to ``/readyz`` saying ``ready``, the
seconds each table could take no action after its connections dropped (``interrupted_s``:
median, max), the tables each process had after each restart and at the end, the seconds
until they were spread, the take-overs and hand-overs the processes counted.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from ligretto.harness.scenario import ScenarioReport
from ligretto.harness.service import ServiceRun
from ligretto.testkit.pgserver import PgServer

POLL_S = 0.25


def spread(owned: dict[str, int], tables: int) -> bool:
    """Every table on a process, and each process within one of the fair share (the mean,
    rounded down or up: of ten tables over three, 2 to 5)."""
    low, high = tables // max(1, len(owned)), -(-tables // max(1, len(owned)))
    return sum(owned.values()) == tables and all(low - 1 <= count <= high + 1 for count in owned.values())


async def _restart(run: ServiceRun, index: int) -> dict[str, Any]:
    """SIGTERM process ``index``, start it again once it exited, wait until it is ready."""
    process = run.processes[index]
    run.mark(f"stop_{index}")
    run.stopped.add(index)
    began = time.monotonic()
    await asyncio.to_thread(process.stop)
    exited = time.monotonic()
    await asyncio.to_thread(process.start)
    started = time.monotonic()
    run.stopped.discard(index)
    ready = await run.ready_after(started)
    return {
        "process": index,
        "exit_s": round(exited - began, 2),
        "start_s": round(started - exited, 2),
        "ready_after_healthz_s": ready.get(process.url),
        "tables_per_process": await run.owned(),
    }


async def _spread(run: ServiceRun, timeout: float, nudge_s: float) -> float | None:
    """Seconds until the tables are spread (``None``: not within ``timeout``), their rounds
    voted to an end every ``nudge_s`` meanwhile."""
    began = nudged = time.monotonic()
    while time.monotonic() - began < timeout:
        if spread(await run.owned(), len(run.tables)):
            return round(time.monotonic() - began, 2)
        if time.monotonic() - nudged >= nudge_s:
            run.force_round_ends()
            nudged = time.monotonic()
        await asyncio.sleep(POLL_S)
    return None


async def run_rolling_restart(
    folder: Path,
    *,
    processes: int,
    tables: int,
    players: int = 2,
    settle_s: float,
    rebalance_s: float,
    seed: int = 0,
    cpus: set[int] | None = None,
    pg: PgServer | None = None,
    **settings: Any,
) -> ScenarioReport:
    """Every process of a service restarted in turn under its live tables (see the
    module's docstring)."""
    run = ServiceRun(folder, processes, seed, cpus, pg, **settings)
    try:
        await run.start()
        opened = await run.opening(tables, players, settle_s)
        placed, take_overs, handed = opened.placed, opened.take_overs, opened.handed
        restarts = []
        for index in range(len(run.processes)):
            restarts.append(await _restart(run, index))
            run.mark(f"after_{index}")
            await asyncio.sleep(settle_s)
        run.mark("spreading")
        spread_s = await _spread(run, rebalance_s, settle_s)
        owned = await run.owned()
        # (counted since the last start of each process: what the service did after the restarts)
        moved = {
            "take_overs_since_last_start": int(await run.metric("ligretto_take_overs_total")),
            "handed_over_since_last_start": int(await run.metric("ligretto_handed_over_total")),
            "before_restarts": {"take_overs": int(take_overs), "handed_over": int(handed)},
        }
    except BaseException:
        await run.abort()
        raise
    lost_tables = max(0, len(run.tables) - sum(owned.values()))
    report = ScenarioReport(
        "rolling_restart",
        "processes restarted",
        tried=len(restarts),
        seconds=0.0,
        wrong_answers=lost_tables + (spread_s is None),
        details={
            "tables_per_process": {"before": placed, "end": owned},
            "restarts": restarts,
            "spread_after_s": spread_s,
            "tables_lost": lost_tables,
            "moves": moved,
        },
    )
    return await run.finish(report)
