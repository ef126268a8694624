"""A service started from nothing (issue 16, point 1; docs/deploy.md, "A cold start"):
the stored tables of the shared database, no lease in an empty Redis, three REAL
processes started at once — every table ends owned by exactly one process, none owns more
than its fair share, and every table is playable: its host finds its seat through any
process.  Then two of them stop, the third holds every table, and when the two come back
the tables are rebalanced (docs/deploy.md, "A process comes back")."""

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
    _rebalanced_when_two_come_back(cluster, processes, codes, hosts, arun)


def _rebalanced_when_two_come_back(
    cluster: Cluster, processes: list[Any], codes: list[str], hosts: dict[str, Any], arun: Any
) -> None:
    """Two processes stop (their tables handed over): the third holds all nine. The two
    start again: the third hands tables over (none of them is in a round) until it holds
    no more than its fair share and one, and the tables are playable where they went."""
    keeper, *leaving = processes
    for process in leaving:
        process.stop()
    cluster.wait_until(lambda: cluster.health(keeper)["tables"] == TABLES, what="every table on the one left")
    for process in leaving:
        process.start()
    fair = math.ceil(TABLES / PROCESSES)

    def spread() -> bool:
        counts = [cluster.health(p)["tables"] for p in processes]
        return sum(counts) == TABLES and max(counts) <= fair + 1 and min(counts) >= 1

    cluster.wait_until(spread, timeout=20, what="the tables rebalanced over the processes back")
    assert keeper.metric("ligretto_handed_over_total") >= TABLES - (fair + 1)

    async def playable() -> None:
        for code in codes:
            back = await rejoin(processes, code, hosts[code].token, f"again-{code}")
            assert back.seat == hosts[code].seat
            await back.close()

    arun(playable(), 120)
