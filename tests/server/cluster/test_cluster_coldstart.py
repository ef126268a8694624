"""A service started from nothing (issue 16, point 1; docs/deploy.md, "A cold start"):
the stored tables of the shared database, no lease in an empty Redis, three REAL
processes started at once — every table ends owned by exactly one process, none owns more
than its fair share, and every table is playable: its host finds its seat through any
process."""

from __future__ import annotations

import math
from typing import Any

from servicekit import ON_POSTGRESQL, Cluster, rejoin

from ligretto.server.cluster import keys

TABLES = 9
PROCESSES = 3
START_GRACE_S = 3.0
SLACK = 0
"""Tables a process may own beyond its fair share (ceil(TABLES / PROCESSES)): none, once
the processes started together have seen each other's heartbeats (the grace of a start)."""


@ON_POSTGRESQL
def test_a_cold_start_spreads_the_stored_tables(cluster: Cluster, arun: Any) -> None:
    first = cluster.start(1)[0]
    codes = [cluster.create_on(first) for _ in range(TABLES)]

    async def seated() -> dict[str, Any]:
        hosts = {}
        for code in codes:
            hosts[code] = await first.client(f"host-{code}").join(code)
        for host in hosts.values():
            await host.close()
        return hosts

    hosts = arun(seated())
    first.stop()
    cluster.redis.flushdb()  # from nothing: no lease, no process, no table known to Redis
    cluster.processes.remove(first)
    # Started together, but a loaded test machine (the suite's other workers) can start three
    # Pythons a second or two apart: a start's grace that covers it, so that each process has
    # seen the others' heartbeats before it takes its share (the default is one renewal).
    processes = cluster.start_together(PROCESSES, start_grace_s=START_GRACE_S)

    def settled() -> bool:
        return sum(cluster.health(p)["tables"] for p in processes) == TABLES

    cluster.wait_until(settled, what="every stored table taken")
    owners = {code: cluster.owner(code) for code in codes}
    assert all(owner in processes for owner in owners.values()), owners
    counts = [cluster.health(p)["tables"] for p in processes]
    fair = math.ceil(TABLES / PROCESSES)
    assert max(counts) <= fair + SLACK, f"not spread: {counts}"
    assert set(cluster.redis.smembers(keys.TABLES)) == set(codes)

    async def playable() -> None:
        for index, code in enumerate(codes):
            entry = processes[index % PROCESSES]  # often not the owner: carried by the relay
            back = await rejoin([entry], code, hosts[code].token, f"back-{code}")
            assert back.seat == hosts[code].seat
            await back.close()

    arun(playable(), 120)
    assert {code: cluster.owner(code) for code in codes} == owners, "nothing moved meanwhile"
