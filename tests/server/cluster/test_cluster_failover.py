"""Failover (issue 16, point 2), with three REAL processes, a REAL redis-server and REAL
WebSocket clients: ``kill -9`` of a table's owner mid-round; its tables are taken over by
the others (restored from the shared database by replay), every client comes back to its
seat through any process and finds the round exactly as it was; nothing acknowledged is
lost; while the dead owner's lease runs, a client is told to try again.  A stalled owner
is fenced.  A rolling restart (SIGTERM, start again, one process at a time) loses no table
and no acknowledged action."""

from __future__ import annotations

import asyncio
import copy
import os
import signal
import socket
import time
from typing import Any

import websockets
from servicekit import ON_POSTGRESQL, Cluster, rejoin

from ligretto import protocol
from ligretto.server.cluster import keys
from ligretto.server.db.database import open_database

WAIT_S = 10.0


async def _match(owner: Any, guest_entry: Any, code: str, label: str) -> tuple[Any, Any]:
    """Two people at ``code``: the host through its owner, the guest through another
    process (carried by the relay); a one-round match, started, at *go*."""
    host = await owner.client(f"{label}-host").join(code)
    guest = await guest_entry.client(f"{label}-guest").join(code)
    await host.command({"type": "set_rules", "preset": "classic", "options": {"match_end": "rounds:1"}})
    await host.wait_for(lambda m: m["type"] == "table" and m["seats"][1] is not None)
    await host.command({"type": "start"})
    for client in (host, guest):
        await client.wait_for("go", timeout=WAIT_S)
    return host, guest


async def _play(clients: list[Any], rounds: int) -> None:
    for _ in range(rounds):
        for client in clients:
            answers = await client.play(1)
            assert answers and answers[0]["type"] == "ack", answers


async def _settled_view(clients: list[Any]) -> dict[str, Any]:
    """The view every client agrees on, once each has every event of the answered acts."""
    for client in clients:
        await client.barrier()
    views = [{k: v for k, v in c.view.items() if k != "viewer"} for c in clients]
    assert all(view == views[0] for view in views), "the clients disagree"
    assert all(not c.problems for c in clients), [c.problems for c in clients]
    return copy.deepcopy(views[0])


async def _back(processes: list[Any], code: str, clients: list[Any], before: dict[str, Any]) -> list[Any]:
    """Every client of ``code`` back at its seat through the live processes (spread over
    them), its snapshot the view before; at *go* again if the round was restored (a
    client carried by a process that stopped finds its table where it was)."""
    back = []
    for index, client in enumerate(clients):
        live = [p for p in processes if p.alive]
        order = live[index % len(live) :] + live[: index % len(live)]
        again = await rejoin(order, code, client.token, client.label + "-back")
        assert again.seat == client.seat
        snapshot = await again.wait_for("snapshot")
        assert {k: v for k, v in snapshot["view"].items() if k != "viewer"} == before, "not the round that was lost"
        back.append(again)
    for client in back:
        if client.table["phase"] == "countdown":  # restored elsewhere: it counts down afresh
            await client.wait_for("go", timeout=WAIT_S + 5)
    return back


def test_kill_9_of_an_owner_mid_round_then_a_stalled_one(cluster: Cluster, arun: Any) -> None:
    """Its tables (one mid-round, one still in its lobby) are taken over, the people back
    find the round as it was.  Right after the kill the lease still names the dead owner: a
    ``hello`` through another process is closed 1013 (try again; the clients reconnect) and
    the table's details are 503 ``moving``, never ``no_table`` (which the terminal client
    gives up on).  Then one of the two left stalls past its leases
    (``_stalled_past_its_leases``)."""
    processes = cluster.start(3)
    victim = processes[0]
    code = cluster.create_on(victim)
    waiting = cluster.create_on(victim, seats=3, public=True)  # a table still in its lobby
    elsewhere = cluster.create_on(processes[1])

    async def scenario() -> None:
        host, guest = await _match(victim, processes[2], code, "t")
        carl = await processes[1].client("Carl").join(waiting)
        await _play([host, guest], 3)
        view = await _settled_view([host, guest])
        last_seq = guest.all("events")[-1]["seq"]
        victim.kill()
        await carl.wait_closed(timeout=WAIT_S)
        # While the dead owner's lease runs: try again, and the details are "moving".
        early = processes[1].client("Carl-early")
        await early.connect()
        await early.send({"type": "hello", "v": 1, "code": waiting, "token": carl.token})
        assert await early.wait_closed(timeout=WAIT_S) == 1013
        assert early.find("error") is None
        status, body = processes[1].http("GET", f"/api/tables/{waiting}")
        assert status == 503 and body["error"] == "moving", body
        for client in (host, guest):
            await client.wait_closed(timeout=WAIT_S)  # the owner's and the relay's sockets dropped
        back = await _back(processes, code, [host, guest], view)
        await _play(back, 2)
        assert back[0].all("events")[0]["seq"] > last_seq, "the action log does not carry on"
        await _settled_view(back)
        carl_back = await rejoin(processes, waiting, carl.token, "Carl-back")
        assert carl_back.seat == carl.seat
        for client in [*back, carl_back]:
            await client.close()

    arun(scenario(), 120)
    survivors = processes[1:]
    for table in (code, waiting, elsewhere):
        assert cluster.owner(table) in survivors, f"{table} not taken over"
    assert sum(cluster.health(p)["tables"] for p in survivors) == 3
    listed = [t["code"] for t in survivors[0].http("GET", "/api/tables")[1]["tables"]]
    assert waiting in listed
    assert sum(p.metric("ligretto_take_overs_total") for p in survivors) >= 2, "the dead owner's two tables"
    assert processes[2].metric("ligretto_relayed_sockets_total") >= 1, "the guest came through the relay"
    # Then a survivor stalls past its leases, on the same service (the killed process gone).
    _stalled_past_its_leases(cluster, arun, *survivors)


def _stalled_past_its_leases(cluster: Cluster, arun: Any, victim: Any, other: Any) -> None:
    """SIGSTOP of an owner for longer than its leases: the other process takes the table
    over; an act sent to the stalled process meanwhile is acted on when it resumes, before
    it learns it lost the table, but its commit is fenced (docs/deploy.md, "A process that
    stalled"): no ack, the sockets closed, and the players find the new owner's round, which
    never had that act.  The stalled process keeps no table (nor any it had taken over
    from a killed process): what it holds afterwards is only what the other handed it to
    rebalance the service (``_shed_excess``), which may happen at any renewal once it is
    back."""
    code = cluster.create_on(victim)
    other_id = cluster.health(other)["process"]
    handed_before = other.metric("ligretto_handed_over_total")

    async def scenario() -> None:
        host, guest = await _match(victim, victim, code, "s")
        await _play([host, guest], 2)
        view = await _settled_view([host, guest])
        action = {"kind": "turn"}  # always allowed while playing
        victim_id = cluster.health(victim)["process"]
        held = [c for c in cluster.redis.smembers(keys.TABLES) if cluster.redis.get(keys.table(c)) == victim_id]
        assert code in held
        os.kill(victim.pid, signal.SIGSTOP)
        try:
            deadline = time.monotonic() + 20
            # Every table of the stalled process taken over (not only this one) before it
            # resumes: else it takes back the leases still nobody's at its first renewal.
            while any(cluster.redis.get(keys.table(c)) != other_id for c in held):
                assert time.monotonic() < deadline, "the table was not taken over from the stalled process"
                await asyncio.sleep(0.05)
            ident = host.next_id()
            await host.send({"type": "act", "id": ident, "action": action}, paced=False)
            await asyncio.sleep(0.2)  # in the stalled process's socket
        finally:
            os.kill(victim.pid, signal.SIGCONT)
        for client in (host, guest):
            await client.wait_closed(timeout=WAIT_S)
        acked = host.find(lambda m: m.get("id") == ident and m["type"] == "ack")
        assert acked is None, f"acknowledged by a process that no longer owns the table: {acked}"
        back = await _back([other, victim], code, [host, guest], view)
        await _play(back, 1)
        await _settled_view(back)
        for client in back:
            await client.close()

    arun(scenario(), 120)
    assert cluster.owner(code) is other
    kept = cluster.health(victim)["tables"]
    handed = other.metric("ligretto_handed_over_total") - handed_before
    assert kept <= handed, f"the stalled process kept {kept - handed} of its tables"
    assert victim.metric("ligretto_fenced_tables_total") >= 1, "the stalled process's commit was fenced"


def test_a_rolling_restart_loses_nothing(cluster: Cluster, arun: Any) -> None:
    # (a request's 10 s deadline would end the held process's graceful shutdown below
    # while a loaded machine still stops the quick one: 60 s, its socket closes it sooner)
    processes = cluster.start(3, request_timeout_s=60.0)
    codes = [cluster.create_on(p) for p in processes]

    async def scenario() -> None:
        tables = {}
        for index, code in enumerate(codes):
            tables[code] = list(await _match(processes[index], processes[(index + 1) % 3], code, f"t{index}"))
            await _play(tables[code], 2)
        for process in processes:
            views = {code: await _settled_view(clients) for code, clients in tables.items()}
            mine = [code for code in codes if cluster.owner(code) is process]
            assert mine, "each process owns a table when its turn comes"
            process.stop()  # SIGTERM: commit, hand the tables over, exit
            for code, clients in tables.items():
                dropped = [c for c in clients if c.closed or not await _alive(c)]
                if dropped:
                    for client in clients:
                        await client.close()
                    tables[code] = await _back(processes, code, clients, views[code])
                await _play(tables[code], 1)  # acknowledged while that process is away
            for code in mine:
                assert cluster.owner(code) is not None, f"{code} not handed over"
            process.start()  # same port, same database, a new process id
        for clients in tables.values():
            await _settled_view(clients)
            for client in clients:
                await client.close()

    arun(scenario(), 240)
    assert sorted(c for c in codes if cluster.owner(c) is not None) == sorted(codes), "a table was lost"
    _two_stopped_together(cluster, processes, codes)


def _two_stopped_together(cluster: Cluster, processes: list[Any], codes: list[str]) -> None:
    """Two processes told to stop at once, one of them held in uvicorn's graceful shutdown
    by a request whose body never comes: it drains (takes none of the other's tables, and
    its heartbeat says it is leaving), so the third takes every table the quick one handed
    over, and then the held one's own once it stops too."""
    held, quick, third = processes
    quicks = [cluster.create_on(quick) for _ in range(4)]
    codes = [*codes, *quicks]
    third_id = cluster.health(third)["process"]

    def on_third(tables: list[str]) -> bool:  # (the held process no longer listens: the leases say)
        return all(cluster.redis.get(keys.table(code)) == third_id for code in tables)

    with socket.create_connection(("127.0.0.1", held.port), timeout=5) as pending:
        pending.sendall(b"POST /api/profiles HTTP/1.1\r\nHost: a\r\nContent-Length: 100\r\n\r\n")
        seen = len(held.log_text())
        assert held.process is not None
        held.process.send_signal(signal.SIGTERM)
        quick.stop()
        assert held.alive, "still in its graceful shutdown when the quick one hands its tables over"
        cluster.wait_until(lambda: on_third(quicks), 10, "the quick one's tables taken by the third")
        assert "took over table" not in held.log_text()[seen:], "a stopping process took tables over"
    held.stop()
    cluster.wait_until(lambda: on_third(codes), 10, "every table on the third")


async def _alive(client: Any) -> bool:
    """Its connection still works (a barrier comes back)."""
    try:
        await client.barrier(timeout=3.0)
    except (AssertionError, websockets.ConnectionClosed):
        return False
    return True


PEOPLE = ("Ann", "Bob", "Cid", "Dee")


@ON_POSTGRESQL  # the service's own set-up: what is at stake is who directs, not the database
def test_a_tournament_carries_on_when_its_director_dies(cluster: Cluster, arun: Any) -> None:
    """Two tournaments made through one process and entered and started through the other
    (behind a load balancer, any request reaches any process): the starting process
    directs both (it holds their leases) and holds their first stages' tables.  An
    entrant's seat asked through the first process is the owner's answer.  Then the
    director is killed (``kill -9``) mid-round of the bots' first stage: the survivor takes
    its tables over, and they still name their tournament and keep an entrant from
    watching another table of their stage; it takes the tournaments over too, and the
    bots' one plays to its end (its first stage recorded by the tables' new owner, its
    second paired there), every table of a stage dealt the same deals."""
    maker, director = cluster.start(2)
    director_id = cluster.health(director)["process"]
    # The people's cup: nobody comes, so its first stage stays on (stand-ins wait for the grace).
    people_cup = _tournament(maker, {"name": "Peek cup", "table_size": 2, "stages": 2, "pairing": "mixed"})
    people = {}
    for name in PEOPLE:
        _, profile = director.http("POST", "/api/profiles", {"name": name, "symbol": "sun"})
        bearer = {"Authorization": f"Bearer {profile['secret']}"}
        status, entered = director.http(
            "POST", f"/api/tournaments/{people_cup['id']}/entrants", {"name": name}, headers=bearer
        )
        assert status == 201, entered
        people[name] = {"profile": profile["secret"], "secret": entered["secret"]}
    peek_codes = _started(director, people_cup)
    for person in people.values():
        status, seat = maker.http("POST", f"/api/tournaments/{people_cup['id']}/seat", {"secret": person["secret"]})
        assert status == 200, seat  # the table is the director's: its answer, forwarded
        assert (
            director.http("POST", f"/api/tournaments/{people_cup['id']}/seat", {"secret": person["secret"]})[1] == seat
        )
        person.update(seat)
    # The bots' cup: two stages of two tables of four, one round a match.
    bots = {"name": "Bot cup", "table_size": 4, "stages": 2, "bots": ["smart:machine"] * 8}
    bot_cup = _tournament(maker, {**bots, "options": {"match_end": "rounds:1"}})
    bot_codes = _started(director, bot_cup)
    for ident in (people_cup["id"], bot_cup["id"]):
        assert cluster.redis.get(keys.tournament(ident)) == director_id, "the starting process directs it"
    # The director made every stage table; the rebalancer may already have handed one that
    # was not in a round to the idle process (4 tables, 2 processes: within one of the share).
    stage_codes = [*peek_codes, *bot_codes]
    assert sum(cluster.owner(code) is director for code in stage_codes) >= len(stage_codes) - 1
    watched = next(code for code in bot_codes if cluster.owner(code) is director)

    async def scenario() -> None:
        watcher = maker.client("watching the bots")
        await watcher.connect()
        assert (await watcher.hello(watched, watch=True))["type"] == "welcome"
        await watcher.wait_for("go", timeout=WAIT_S)
        director.kill()  # mid-round of the first stage
        await watcher.wait_closed(timeout=WAIT_S)
        assert watcher.find("round_over") is None, "killed after the round, not during it"
        cluster.wait_until(lambda: all(cluster.owner(c) is maker for c in peek_codes), WAIT_S, "taken over")
        # The taken-over tables name their tournament, and keep out an entrant of the stage's other table.
        ann = people["Ann"]
        other = next(code for code in peek_codes if code != ann["code"])
        tag = {"id": people_cup["id"], "name": "Peek cup", "stage": 1, "stages": 2}
        ann_watching = maker.client("Ann watching")
        await ann_watching.connect()
        refused = await ann_watching.hello(other, watch=True, profile=ann["profile"])
        assert (refused["type"], refused["code"]) == ("error", protocol.OWN_STAGE), refused
        mark = len(ann_watching.messages)
        await ann_watching.send({"type": "hello", "v": 1, "code": other, "watch": True, "token": ann["token"]})
        refused = await ann_watching.wait_for("error", since=mark)
        assert refused["code"] == protocol.OWN_STAGE, refused
        welcome = await ann_watching.hello(ann["code"], watch=True, profile=ann["profile"])
        assert welcome["type"] == "welcome", welcome
        assert (await ann_watching.wait_for("table", code=ann["code"]))["tournament"] == tag
        stranger = maker.client("Eve")
        await stranger.connect()
        assert (await stranger.hello(other, watch=True))["type"] == "welcome"
        assert (await stranger.wait_for("table"))["tournament"] == tag
        for client in (ann_watching, stranger):
            assert not client.problems, client.problems
            await client.close()

    arun(scenario(), 60)
    # The bots' cup ends on the survivor: it took the tournament's lease and paired stage 2.
    cluster.wait_until(lambda: _details(maker, bot_cup["id"])["state"] == "over", 90, "the bots' cup over")
    details = _details(maker, bot_cup["id"])
    assert [stage["number"] for stage in details["played"]] == [1, 2]
    assert sorted(line["entrant"] for line in details["standings"]) == list(range(8))
    assert all(line["rounds"] == 2 for line in details["standings"]), details["standings"]
    db = open_database(cluster.db)
    try:
        for stage in details["played"]:
            assert stage["over"] and all(table["rounds"] for table in stage["tables"])
            seeds = [
                db.execute("SELECT number, seed FROM rounds WHERE code = ? AND match = 1", (t["code"],)).fetchall()
                for t in stage["tables"]
            ]
            assert len(seeds) == 2 and seeds[0] and seeds[0] == seeds[1], f"stage {stage['number']}: {seeds}"
    finally:
        db.close()
    stage_two = [t["code"] for t in details["played"][1]["tables"]]
    assert all(cluster.redis.sismember(keys.TABLES, c) or cluster.owner(c) in (maker, None) for c in stage_two)
    assert maker.metric("ligretto_take_overs_total") >= len(peek_codes) + len(bot_codes)
    assert cluster.redis.get(keys.tournament(people_cup["id"])) == cluster.health(maker)["process"]


def _tournament(process: Any, spec: dict[str, Any]) -> dict[str, Any]:
    status, made = process.http("POST", "/api/tournaments", spec)
    assert status == 201, made
    return dict(made)


def _started(process: Any, made: dict[str, Any]) -> list[str]:
    """Start the tournament through ``process``: the codes of its first stage's tables."""
    status, details = process.http("POST", f"/api/tournaments/{made['id']}/start", {"host": made["host"]})
    assert status == 200 and details["state"] == "playing", details
    return [table["code"] for table in details["played"][0]["tables"]]


def _details(process: Any, ident: str) -> dict[str, Any]:
    status, details = process.http("GET", f"/api/tournaments/{ident}")
    assert status == 200, details
    return dict(details)
