"""The matchmaking queue of a service (issue 29, point 1): the tickets in one REAL Redis.
Players queued on different processes land at one table, each seated once; a group's
tickets are taken by one process only (the Lua script), whichever asks first; a ticket
whose process died leaves the queue; a party made on one process and joined on another
is seated together; a Redis that stops in the middle of a seating loses no ticket and
seats none twice.  Who is playing now (point 2) is the service's on
every process's lobby socket."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from pathlib import Path
from typing import Any

import redis.asyncio
import redis.exceptions
from servicekit import ON_POSTGRESQL, Cluster

from ligretto.server.cluster import keys
from ligretto.server.cluster.queue import Person, Ticket
from ligretto.server.cluster.redisdirectory import RedisDirectory
from ligretto.server.cluster.redisqueue import RedisQueue
from ligretto.server.table.clock import VirtualScheduler
from ligretto.server.web.lobby import Lobby
from ligretto.server.web.matchmaker import Matchmaker
from ligretto.server.web.settings import Settings
from redisserver import RedisServer


def ticket(id: str, process: str, seats: int = 2) -> Ticket:
    return Ticket(id, process, seats, "classic", time.time(), 0.0, [Person(id)])


def test_two_processes_never_take_one_ticket_twice(redis_url: str, arun: Any) -> None:
    async def scenario() -> None:
        clients = [redis.asyncio.from_url(redis_url, decode_responses=True) for _ in range(2)]
        await clients[0].delete(keys.QUEUE)
        await clients[0].set(keys.process("p1"), "{}")  # both holders alive
        await clients[0].set(keys.process("p2"), "{}")
        one, two = RedisQueue(clients[0], "p1"), RedisQueue(clients[1], "p2")
        handed: list[str] = []

        def hand(text: str, last: bool) -> None:
            handed.append(text)

        for q in (one, two):
            await q.start()
        await one.join(ticket("a", "p1"), hand)
        await two.join(ticket("b", "p2"), hand)
        await one.join(ticket("c", "p1"), hand)
        assert sorted(t.id for t in await two.waiting()) == ["a", "b", "c"]
        # both take overlapping groups at once: one wins, the other takes nothing
        won = await asyncio.gather(one.take(["a", "b"]), two.take(["b", "c"]))
        assert sorted(won) == [False, True]
        left = sorted(t.id for t in await one.waiting())
        assert left == (["c"] if won[0] else ["a"])
        # what one process has for a ticket the other holds reaches it through Redis
        await one.deliver("b", "for b", last=True)
        for _ in range(100):
            if handed:
                break
            await asyncio.sleep(0.02)
        assert handed == ["for b"]
        assert two.held() == 0, "the last text lets the ticket go"
        # a ticket whose holder's heartbeat is gone is dropped by the next reader
        await two.join(ticket("d", "p3"), hand)
        assert "d" not in [t.id for t in await one.waiting()]
        assert not await clients[0].hexists(keys.QUEUE, "d")
        for q in (one, two):
            await q.stop()
        for client in clients:
            await client.aclose()

    arun(scenario())


@ON_POSTGRESQL  # the subject is the queue in Redis, not the database
def test_players_queued_on_two_processes_land_at_one_table(cluster: Cluster, arun: Any) -> None:
    processes = cluster.start(2, queue_countdown_s=30.0)

    async def scenario() -> None:
        clients = []
        for index, process in enumerate(processes):
            client = await process.client(f"P{index}").connect("/ws/queue")
            await client.send({"type": "queue", "v": 1, "seats": 2, "name": f"P{index}"})
            clients.append(client)
        seats = [await c.wait_for("seated", timeout=10.0) for c in clients]
        assert seats[0]["code"] == seats[1]["code"] and {s["seat"] for s in seats} == {0, 1}
        players = []
        for index, (process, seat) in enumerate(zip(processes, seats, strict=True)):
            player = await process.client(f"Player{index}").connect()  # relayed to the owner if need be
            welcome = await player.hello(seat["code"], token=seat["token"])
            assert welcome["type"] == "welcome" and welcome["seat"] == seat["seat"], welcome
            await player.wait_for("snapshot")
            players.append(player)
        for client in clients:  # each seated once: nothing more came
            await client.barrier()
            assert [m["type"] for m in client.messages].count("seated") == 1
        # who is playing now is the whole service's on either process's lobby (at least
        # one of them is not the table's owner: its count has the other's people)
        watchers = [await p.client(f"Lobby{i}").connect("/ws/lobby") for i, p in enumerate(processes)]
        for watcher in watchers:
            await watcher.wait_for(lambda m: m["type"] == "lobby" and m["now"]["playing"] == 2, timeout=10.0)
        # a party across processes: made on one, joined on the other, seated together
        ann = await processes[0].client("Ann").connect("/ws/queue")
        await ann.send({"type": "party_make", "v": 1, "name": "Ann"})
        code = (await ann.wait_for("party"))["code"]
        bob = await processes[1].client("Bob").connect("/ws/queue")
        await bob.send({"type": "party_join", "v": 1, "code": code, "name": "Bob"})
        for friend in (ann, bob):
            await friend.wait_for(lambda m: m["type"] == "party" and m["members"] == ["Ann", "Bob"], timeout=10.0)
        await ann.send({"type": "queue", "v": 1, "seats": 2, "name": "Ann"})
        party_seats = [await f.wait_for("seated", timeout=10.0) for f in (ann, bob)]
        assert party_seats[0]["code"] == party_seats[1]["code"] and {s["seat"] for s in party_seats} == {0, 1}
        for client in (*clients, *players, *watchers, ann, bob):
            assert not client.problems
            await client.close()

    arun(scenario())


def test_a_redis_outage_while_seating_loses_no_ticket_and_seats_none_twice(tmp_path: Path, arun: Any) -> None:
    """A REAL redis-server of the test's own, stopped at the worst moments of a seating:
    right after a process took a group's tickets (no table code can be reserved, and the
    tickets cannot go back either), and right after it made the table (the seat of a person
    waiting on the other process cannot be published).  While it is down the tickets wait
    in the process; once it is back (empty, as a restart is) they are in the queue again and
    seated, and each person is handed exactly one seat.  Tickets that merely wait when it
    restarts empty are put back by the processes whose sockets hold them."""
    server = RedisServer(tmp_path)
    server.start()

    async def heartbeats(client: Any) -> None:
        for process in ("p1", "p2"):
            await client.set(keys.process(process), "{}")

    async def scenario() -> None:
        directory = RedisDirectory(server.url, "http://127.0.0.1:1", process="p1")
        lobby = Lobby(Settings(queue_countdown_s=30.0), scheduler=VirtualScheduler(), directory=directory)
        directory.lobby = lobby  # (as its start does: no renewals, no lobby feed here)
        queue = directory.make_queue()
        maker = Matchmaker(lobby, queue)
        other_client = redis.asyncio.from_url(server.url, decode_responses=True)
        other = RedisQueue(other_client, "p2")  # the second process: its socket's seats come over Redis
        sockets: dict[str, list[dict[str, Any]]] = {id: [] for id in "abcdef"}
        failures: list[str] = []

        def socket(id: str) -> Any:
            return lambda text, last: sockets[id].append({**json.loads(text), "last": last})

        async def back_up() -> None:
            server.start()
            for _ in range(3):  # (a pooled connection of before the stop fails once)
                with contextlib.suppress(redis.exceptions.ConnectionError):
                    await heartbeats(other_client)
                    break
            async with asyncio.timeout(10.0):  # both processes listen again on the channel
                while (await other_client.pubsub_numsub(keys.SEATED))[0][1] < 2:
                    await asyncio.sleep(0.05)

        async def looks(count: int) -> None:
            for _ in range(count):
                try:
                    await maker.tick()
                except Exception as error:  # as ``run`` does: Redis gone, tried again next time
                    failures.append(repr(error))

        async def looks_until(seated: str) -> None:
            """Looks (a pooled connection of before the stop fails once) until ``seated`` is."""
            async with asyncio.timeout(10.0):
                while not sockets[seated]:
                    await looks(1)
                    await asyncio.sleep(0.05)  # (a seat of the other process comes over pub/sub)

        await queue.start()
        await other.start()
        await heartbeats(other_client)
        # 1. Redis stops right after the group's tickets were taken: no table, no way back
        take = queue.take

        async def take_then_stop(ids: list[str]) -> bool:
            taken = await take(ids)
            server.stop()
            return taken

        queue.take = take_then_stop  # type: ignore[method-assign]
        await queue.join(ticket("a", "p1"), socket("a"))
        await other.join(ticket("b", "p2"), socket("b"))
        await looks(2)
        queue.take = take  # type: ignore[method-assign]
        assert failures and not lobby.tables and not any(sockets.values()), "those looks failed, and made nothing"
        await back_up()
        await looks_until("a")
        await looks_until("b")
        seated = [sockets[id][-1] for id in "ab"]
        assert [m["type"] for m in seated] == ["seated", "seated"] and seated[0]["code"] == seated[1]["code"]
        # 2. Redis stops once the table is made, before the other process's seat is published
        deliver = queue.deliver

        async def stop_then_deliver(id: str, text: str, last: bool = False) -> None:
            server.stop()
            queue.deliver = deliver  # type: ignore[method-assign]
            await deliver(id, text, last)

        await queue.join(ticket("c", "p1"), socket("c"))
        await other.join(ticket("d", "p2"), socket("d"))
        queue.deliver = stop_then_deliver  # type: ignore[method-assign]
        await looks(2)
        assert [m["type"] for m in sockets["c"]] == ["seated"] and not sockets["d"]
        await back_up()
        await looks_until("d")
        assert sockets["d"][0]["code"] == sockets["c"][0]["code"] != seated[0]["code"]
        assert len(lobby.tables) == 2
        for id, texts in list(sockets.items())[:4]:  # one seat each, and nothing after it
            assert [m["type"] for m in texts].count("seated") == 1 and texts[-1]["last"], (id, texts)
        assert not await other_client.hlen(keys.QUEUE) and not maker.owes
        # 3. Redis restarts empty while two people merely wait (tables of 3: not full):
        # each process puts the tickets its sockets hold back at its next look
        await queue.join(ticket("e", "p1", seats=3), socket("e"))
        await other.join(ticket("f", "p2", seats=3), socket("f"))
        await looks(1)
        server.stop()
        await back_up()
        for reader in (queue, other):  # a look of each process (p2's: its matchmaker's)
            with contextlib.suppress(redis.exceptions.ConnectionError):  # (its connection of before)
                await reader.waiting()
            await reader.waiting()
        assert sorted(await other_client.hkeys(keys.QUEUE)) == ["e", "f"]
        await looks(1)
        assert [(m["type"], m["people"]) for m in sockets["e"]] == [("queued", 2)], "waiting with f, as before"
        for q in (queue, other):
            await q.stop()
        await other_client.aclose()
        await directory.redis.aclose()

    try:
        arun(scenario())
    finally:
        server.stop()
