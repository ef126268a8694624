"""Three REAL ``ligretto serve --redis`` processes as one service (issue 16, point 1):
tables created through each process and placed by load, clients spread over all three
(carried to the owner by the relay), the lobby the same everywhere (HTTP and ``/ws/lobby``;
a tournament made through one process listed once by all, none of its tables),
``/healthz`` and ``/metrics`` per process, a ``hello`` for no table refused as on one
process; the per-address limit counts a relayed client's own address."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
import websockets
from servicekit import ON_POSTGRESQL, Cluster

WAIT_S = 30.0  # a loaded machine: the lobby feed and the relays take their time


def _listed(process: Any) -> list[str]:
    status, body = process.http("GET", "/api/tables")
    assert status == 200, body
    return [t["code"] for t in body["tables"]]


async def _lobby_socket(process: Any) -> list[str]:
    """The codes of the first list ``/ws/lobby`` of ``process`` sends."""
    async with websockets.connect(f"ws://127.0.0.1:{process.port}/ws/lobby") as ws:
        message = json.loads(await asyncio.wait_for(ws.recv(), WAIT_S))
    assert message["type"] == "lobby", message
    return [t["code"] for t in message["tables"]]


async def _hello_for_no_table(process: Any) -> dict[str, Any]:
    client = process.client("nobody")
    await client.connect()
    answer: dict[str, Any] = await client.hello("nosuchcode", "Ann")
    await client.close()
    return answer


def test_three_processes_serve_as_one(cluster: Cluster, arun: Any) -> None:
    processes = cluster.start(3)
    ids = {cluster.health(p)["process"] for p in processes}
    assert len(ids) == 3, "each process has its own id"
    for process in processes:
        health = cluster.health(process)
        assert health["address"] == process.url and health["tables"] == 0
        # The metrics name the process.
        status, text = process.http("GET", "/metrics")
        assert status == 200
        assert f'ligretto_process{{address="{process.url}",process="{health["process"]}"}} 1.0' in text

    # Tables created through each process: placed by load, one on each.
    codes = [p.create_table(2, public=True) for p in processes]
    owners = [cluster.owner(code) for code in codes]
    assert set(owners) == set(processes), "three tables on three empty processes: one each"
    assert [cluster.health(p)["tables"] for p in processes] == [1, 1, 1]
    # A hello for no table is refused as on one process (after the placement: a process
    # publishes its connections, its load, in its heartbeat).
    for process in processes:
        answer = arun(_hello_for_no_table(process))
        assert answer["type"] == "error" and answer["code"] == "no_table"

    # The lobby is the same everywhere: every public table, in one order.
    cluster.wait_until(lambda: all(sorted(_listed(p)) == sorted(codes) for p in processes), WAIT_S, "one lobby")
    assert _listed(processes[0]) == _listed(processes[1]) == _listed(processes[2])
    for process in processes:
        assert sorted(arun(_lobby_socket(process))) == sorted(codes)
    # A table's details through any process (forwarded to its owner).
    for process in processes:
        for code in codes:
            status, details = process.http("GET", f"/api/tables/{code}")
            assert status == 200 and details["code"] == code, details
    status, missing = processes[0].http("GET", "/api/tables/nosuchtable")
    assert status == 404 and missing["error"] == "no_table"

    async def play() -> None:
        # At each table, one person through its owner, the other through another process.
        for index, code in enumerate(codes):
            owner = owners[index]
            other = processes[(processes.index(owner) + 1) % 3]
            host = await owner.client(f"host{index}").join(code)
            guest = await other.client(f"guest{index}").join(code)
            await host.command({"type": "set_rules", "preset": "classic", "options": {"match_end": "rounds:1"}})
            await host.wait_for(lambda m: m["type"] == "table" and m["seats"][1] is not None)
            await host.command({"type": "start"})
            for client in (host, guest):
                await client.wait_for("go", timeout=WAIT_S)
            for _ in range(3):
                assert (await host.play(1))[0]["type"] == "ack"
                assert (await guest.play(1))[0]["type"] == "ack"
            await host.barrier()
            await guest.barrier()
            assert {**host.view, "viewer": 1} == guest.view  # type: ignore[dict-item]
            assert not host.problems and not guest.problems
            await host.close()
            await guest.close()

    arun(play())
    # Every lobby shows the tables' new phase (the owners published it).
    cluster.wait_until(
        lambda: all(_listed(p) == _listed(processes[0]) for p in processes), WAIT_S, "the same lobby after play"
    )
    # A tournament made through one process: every lobby lists it once, none of its tables.
    status, cup = processes[1].http(
        "POST", "/api/tournaments", {"name": "Service cup", "table_size": 2, "stages": 2, "bots": ["smart:casual"] * 4}
    )
    assert status == 201, cup
    status, started = processes[1].http("POST", f"/api/tournaments/{cup['id']}/start", {"host": cup["host"]})
    assert status == 200, started
    stage_codes = {t["code"] for t in started["played"][0]["tables"]}
    line = {"id": cup["id"], "name": "Service cup", "stage": 1, "stages": 2, "tables": 2}

    def cup_listed(process: Any) -> bool:
        body = process.http("GET", "/api/tables")[1]
        assert not stage_codes & {t["code"] for t in body["tables"]}
        return bool(body["tournaments"] == [line])

    cluster.wait_until(lambda: all(cup_listed(p) for p in processes), WAIT_S, "the tournament in every lobby")


@ON_POSTGRESQL  # nothing of the database is at stake: the service's own set-up only
def test_the_owner_counts_a_relayed_clients_own_address(cluster: Cluster, arun: Any) -> None:
    """One connection per address: two people behind one entrance, from two addresses (the
    header a trusted proxy sets), both get to the owner's table through the relay; a third
    connection from one of those addresses, straight to the owner, is one too many there."""
    owner, entrance = cluster.start(2, connections_per_address=1)
    code = cluster.create_on(owner, seats=3)

    async def scenario() -> None:
        seated = []
        for name, address in (("Bob", "10.0.0.2"), ("Cid", "10.0.0.3")):
            client = entrance.client(name)
            await client.connect(headers={"X-Forwarded-For": address})
            welcome = await client.hello(code, name)
            assert welcome["type"] == "welcome", f"{name} from {address} refused by the owner: {welcome}"
            seated.append(client)
        with pytest.raises(websockets.InvalidStatus) as refused:
            await owner.client("Bob again").connect(headers={"X-Forwarded-For": "10.0.0.2"})
        assert refused.value.response.status_code == 429
        for client in seated:
            await client.close()

    arun(scenario(), 60)
