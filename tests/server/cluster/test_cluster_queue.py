"""The matchmaking queue of a service (issue 29, point 1): the tickets in one REAL Redis.
Players queued on different processes land at one table, each seated once; a group's
tickets are taken by one process only (the Lua script), whichever asks first; a ticket
whose process died leaves the queue; a party made on one process and joined on another
is seated together.  Who is playing now (point 2) is the service's on
every process's lobby socket."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import redis.asyncio
from servicekit import ON_POSTGRESQL, Cluster

from ligretto.server.cluster import keys
from ligretto.server.cluster.queue import Person, Ticket
from ligretto.server.cluster.redisqueue import RedisQueue


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
