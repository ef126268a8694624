"""The stress harness's PostgreSQL restarts (issue 27, ``ligretto stress --scenarios
postgres_restart``): :func:`run_postgres_restart`.

A service of its own (``harness/service.py``) with ``tables`` tables playing.  The
database is restarted under them (``pg_ctl stop -m MODE``, then started again on the same
port and data): first ``fast`` (what is under way rolled back, a checkpoint), then, after
``settle_s`` of play, ``immediate`` (as a crash: recovered from its log at the start) and,
right after it, ``kill -9`` of the process with the most tables -- as soon as a commit of
it succeeded after PostgreSQL's return with none left unwritten (its ``/metrics``), so
that everything it acknowledged is stored -- and the others take its tables over
(docs/deploy.md: their own connection to the database was left dead by the restart, and
the first take-over's read is tried again on a new one).  Its people come back through
the others; ``settle_s`` of play after.

Checked, beside the shared figures (acks lost: every action acknowledged before, during
and after the restarts in the database at the end; tracebacks; ejections; hidden cards):
the dead process's tables all taken over (a wrong answer for each one that is not, or
that another process gave up: ``could not restore``; one more if it never committed again
before its kill).  Reported: how long PostgreSQL was away each time, the seconds from its
return to every process's ``/readyz`` saying ``ready``, the commits that failed meanwhile
(``ligretto_backend_errors_total`` of the database) and their sampled log lines, the ack
latency in each window, and the seconds from the kill to each of its tables accepting an
action again (``interrupted_s``).
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from ligretto.harness.kills import until
from ligretto.harness.scenario import ScenarioReport
from ligretto.harness.service import ServiceRun
from ligretto.testkit.metricspage import sample_key, samples
from ligretto.testkit.pgserver import PgServer

TAKE_OVERS = "ligretto_take_overs_total"
"""The processes' count of tables taken over from another."""
ERRORS = "ligretto_backend_errors_total"
"""The processes' count of failed database (and Redis) calls, by ``backend``."""
UNWRITTEN = "ligretto_unwritten_commits"
"""A process's count of its store's commits that failed since it last wrote: 0 once a
commit succeeds after failed ones.  (Not the log's "writing to ... again": that line may
end the first restart's failures after the second began, whose failures are sampled out of
the log, and a kill on it lost the acknowledgements of the second's failed commits.)"""
COMMIT_FAILED = "could not write to "
"""The start of the store's (sampled) log line of a failed commit."""
RECOMMIT_S = 10.0
"""How long the victim has to commit again after the last restart (a wrong answer if not:
the kill goes ahead)."""
COMMITS = "ligretto_store_commits_total"
"""A process's count of its store's commits that succeeded."""
TAKE_OVER_S = 30.0
"""How long the others have to take the victim's tables over (a wrong answer each if not)."""


async def _restart(run: ServiceRun, mode: str) -> dict[str, Any]:
    """``pg_ctl stop -m mode`` and start again; how long it was away and the seconds from
    its return to each process ready."""
    assert run.pg is not None
    pg = run.pg
    went = run.mark(f"restart_{mode}")
    await asyncio.to_thread(pg.halt, mode)
    await asyncio.to_thread(pg.run)
    back = run.mark(f"{mode}_back")
    ready = await run.ready_after(back)
    return {"mode": mode, "away_s": round(back - went, 2), "ready_after_s": ready}


def _store_of(process: Any) -> tuple[float, float, float]:
    """From one ``/metrics`` of ``process``: its store's commits, its commits not written
    yet and its database errors."""
    found = samples(process.http("GET", "/metrics")[1])
    errors = found.get(sample_key(ERRORS, {"backend": "database"}), 0.0)
    return found.get(COMMITS, 0.0), found.get(UNWRITTEN, 0.0), errors


async def _kill_after_commit(run: ServiceRun, victim: int, errors_before: float) -> dict[str, Any]:
    """``kill -9`` of process ``victim`` once a commit of it succeeded after the restart's
    return (read after it: a connection the restart left dead fails, a success is on a live
    one) with none unwritten (every failed one's writes went with it), both in one
    ``/metrics`` (the store counts its commit after it counts 0 unwritten)."""
    process = run.processes[victim]
    start = time.monotonic()
    since = (await asyncio.to_thread(_store_of, process))[0]
    committed = False
    while not committed and time.monotonic() - start < RECOMMIT_S:
        commits, unwritten, errors = await asyncio.to_thread(_store_of, process)
        committed = commits > since and unwritten == 0
        if not committed:
            await asyncio.sleep(0.02)
    run.stopped.add(victim)
    run.mark("killed")
    await asyncio.to_thread(process.kill)
    return {
        "commits_failed_first": errors > errors_before,
        "committed_again": committed,
        "waited_s": round(time.monotonic() - start, 2),
    }


async def _taken_over(run: ServiceRun, before: float, tables: int, timeout: float) -> bool:
    """Wait until the live processes have taken ``tables`` tables over since ``before``
    (their ``ligretto_take_overs_total``), for at most ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while await run.metric(TAKE_OVERS) - before < tables:
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.1)
    return True


async def run_postgres_restart(
    folder: Path,
    *,
    processes: int,
    tables: int,
    players: int = 2,
    settle_s: float,
    seed: int = 0,
    cpus: set[int] | None = None,
    pg: PgServer | None = None,
    **settings: Any,
) -> ScenarioReport:
    """PostgreSQL restarted under a service's live tables, then a process killed right
    after a restart (see the module's docstring)."""
    run = ServiceRun(folder, processes, seed, cpus, pg, **settings)
    try:
        await run.start()
        await run.seat(tables, players)
        errors = await run.metric(ERRORS, backend="database")
        run.mark("before")
        await asyncio.sleep(settle_s)
        restarts = [await _restart(run, "fast")]
        run.mark("after_fast")
        await asyncio.sleep(settle_s)
        failed_commits = int(await run.metric(ERRORS, backend="database") - errors)
        owned = await run.owned()
        victim = max(range(len(run.processes)), key=lambda i: owned.get(run.processes[i].url, 0))
        victim_tables = owned.get(run.processes[victim].url, 0)
        victim_errors = await asyncio.to_thread(run.processes[victim].metric, ERRORS, backend="database")
        others = [p for i, p in enumerate(run.processes) if i != victim and i not in run.stopped]
        others_taken = sum([await asyncio.to_thread(p.metric, TAKE_OVERS) for p in others])
        restarts.append(await _restart(run, "immediate"))
        kill = await _kill_after_commit(run, victim, victim_errors)
        run.mark("after_kill")
        # Its tables are taken over once their leases run out: wait for that (its clients
        # may not even have seen their sockets close yet), then for every client to be back.
        await _taken_over(run, others_taken, victim_tables, TAKE_OVER_S)
        await until(lambda: all(t.dropped_at is None for t in run.tables.values()), 30.0)
        await asyncio.sleep(settle_s)
        taken = int(await run.metric(TAKE_OVERS) - others_taken)
        owned_after = await run.owned()
    except BaseException:
        await run.abort()
        raise
    logs = "".join(p.log_text() for p in run.processes)
    given_up = logs.count("given up for now")
    report = ScenarioReport(
        "postgres_restart",
        "PostgreSQL restarts",
        tried=len(restarts),
        seconds=0.0,
        wrong_answers=max(0, victim_tables - taken) + given_up + (not kill["committed_again"]),
        details={
            "restarts": restarts,
            "kill": kill | {"tables": victim_tables},
            "tables_per_process": {"before_kill": owned, "after": owned_after},
            "take_overs": taken,
            "restores_given_up": given_up,
            "commits_failed": failed_commits,  # in the first restart (every process alive)
            "commit_failure_lines": logs.count(COMMIT_FAILED),
        },
    )
    return await run.finish(report)
