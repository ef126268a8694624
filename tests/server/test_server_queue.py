"""The matchmaking queue end to end (issue 29, point 1): a REAL ``ligretto serve`` (its
queue in memory) and REAL WebSocket clients of ``/ws/queue``, who then take the seat they
were handed on ``/ws`` as any player does.  The server's queue countdown is short (2.5 s), so
a lone player's table fills with bots within the test."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from ligretto.ratings import BOT_RATINGS
from realserver import TEST_RATE, running

QUEUE_COUNTDOWN_S = 2.5


@pytest.fixture(scope="module")
def queue_server(tmp_path_factory: pytest.TempPathFactory, server_class: type[Any]) -> Iterator[Any]:
    """The module's one server (the real server with the tests' WebSocket clients)."""
    folder = tmp_path_factory.mktemp("queue")
    server = server_class.in_folder(folder, queue_countdown_s=QUEUE_COUNTDOWN_S, **TEST_RATE)
    with running(server) as process:
        yield process


async def queued(server: Any, label: str, seats: int, **more: Any) -> Any:
    client = await server.client(label).connect("/ws/queue")
    await client.send({"type": "queue", "v": 1, "seats": seats, "name": label, **more})
    return client


async def take_seat(server: Any, seated: dict[str, Any], label: str) -> Any:
    """Come to the seat the queue handed out, with its token: a dealt round."""
    player = await server.client(label).connect()
    welcome = await player.hello(seated["code"], token=seated["token"])
    assert welcome["type"] == "welcome" and welcome["seat"] == seated["seat"], welcome
    await player.wait_for("snapshot")
    return player


def test_people_queued_together_land_at_one_dealt_table(queue_server: Any, arun: Any) -> None:
    async def scenario() -> None:
        ann = await queued(queue_server, "Ann", 2)
        bob = await queued(queue_server, "Bob", 2)
        seats = [await c.wait_for("seated", timeout=5.0) for c in (ann, bob)]
        assert seats[0]["code"] == seats[1]["code"]
        assert {s["seat"] for s in seats} == {0, 1}
        players = [await take_seat(queue_server, s, n) for s, n in zip(seats, ("Ann", "Bob"), strict=True)]
        table = players[0].table
        assert table is not None and table["phase"] != "lobby"
        assert [seat["name"] for seat in table["seats"]] == ["Ann", "Bob"]  # people, no bot
        assert queue_server.metric("ligretto_queue_tables_total") >= 1
        for client in (ann, bob, *players):
            assert not client.problems
            await client.close()

    arun(scenario())


def test_a_lone_player_waits_out_the_countdown_and_plays_bots_of_about_their_rating(
    queue_server: Any, arun: Any
) -> None:
    async def scenario() -> None:
        cleo = await queued(queue_server, "Cleo", 3)
        waiting = await cleo.wait_for("queued")
        assert waiting["people"] == 1 and waiting["seats"] == 3
        assert 0 < waiting["starts_in"] <= QUEUE_COUNTDOWN_S
        seated = await cleo.wait_for("seated", timeout=5.0)
        player = await take_seat(queue_server, seated, "Cleo")
        table = player.table
        assert table is not None
        names = [seat["name"] for seat in table["seats"]]
        assert names[0] == "Cleo" and all("bot" in n for n in names[1:]), names
        # a guest's conservative rating is 0: the nearest calibrated bot is a casual one
        assert min(BOT_RATINGS, key=lambda s: abs(BOT_RATINGS[s].conservative)).endswith(":casual")
        assert all(n.startswith(("Greedy", "Smart")) for n in names[1:])
        await cleo.close()
        await player.close()

    arun(scenario())


def test_leaving_the_queue_and_bad_requests_lose_nothing(queue_server: Any, arun: Any) -> None:
    async def scenario() -> None:
        dan = await queued(queue_server, "Dan", 4)
        await dan.send({"type": "queue", "v": 1, "seats": 4, "name": "Dan"})
        assert (await dan.wait_for("error"))["code"] == "already_queued"
        await dan.send({"type": "unqueue"})
        await dan.barrier()  # the unqueue is taken before the pong
        eve = await queued(queue_server, "Eve", 4, preset="nosuch")
        assert (await eve.wait_for("error"))["code"] == "bad_rules"
        await eve.send({"type": "queue", "v": 1, "seats": 13, "name": "Eve"})
        assert (await eve.wait_for("error", since=1))["code"] == "invalid"
        await eve.send({"type": "queue", "v": 1, "seats": 2, "name": " "})
        assert (await eve.wait_for("error", since=2))["code"] == "bad_name"
        # Dan left: Eve and Fay make a table of two, Dan is handed nothing
        await eve.send({"type": "queue", "v": 1, "seats": 4, "name": "Eve"})
        fay = await queued(queue_server, "Fay", 4)
        seats = [await c.wait_for("seated", timeout=5.0) for c in (eve, fay)]
        assert seats[0]["code"] == seats[1]["code"]
        player = await take_seat(queue_server, seats[0], "Eve")
        table = player.table
        assert table is not None
        assert [seat["name"] for seat in table["seats"]][:2] == ["Eve", "Fay"]
        assert "Dan" not in [seat["name"] for seat in table["seats"]]
        assert not [m for m in await dan.barrier() if m["type"] == "seated"]
        assert not [m for m in dan.messages if m["type"] == "seated"]
        for client in (dan, eve, fay, player):
            await client.close()

    arun(scenario())


def test_who_is_playing_now_is_live_on_the_lobby_socket_and_the_api(queue_server: Any, arun: Any) -> None:
    """Issue 29, point 2: the ``lobby`` message's ``now`` follows the queue and the tables
    as they change (no client polls), and ``GET /api/now`` says the same."""

    async def scenario() -> None:
        watcher = await queue_server.client("lobby").connect("/ws/lobby")
        first = await watcher.wait_for("lobby")
        assert first["now"]["online"] >= 1  # the lobby socket itself
        gus = await queued(queue_server, "Gus", 5)
        await watcher.wait_for(lambda m: m["type"] == "lobby" and m["now"]["queued"] == 1)
        status, now = queue_server.http("GET", "/api/now")
        assert status == 200 and now["queued"] == 1 and now["online"] >= 2, now
        await gus.send({"type": "unqueue"})
        await watcher.wait_for(lambda m: m["type"] == "lobby" and m["now"]["queued"] == 0)

        hal, ivy = await queued(queue_server, "Hal", 2), await queued(queue_server, "Ivy", 2)
        seats = [await c.wait_for("seated", timeout=5.0) for c in (hal, ivy)]
        players = [await take_seat(queue_server, s, n) for s, n in zip(seats, ("Hal", "Ivy"), strict=True)]
        spectator = await queue_server.client("Spectator").watch(seats[0]["code"])
        shown = await watcher.wait_for(
            lambda m: (
                m["type"] == "lobby"
                and m["now"]["playing"] >= 2
                and m["now"]["watching"] >= 1
                and seats[0]["code"] in [t["code"] for t in m["tables"]]
            ),  # a public table to watch
            timeout=5.0,
        )
        assert shown["now"]["queued"] == 0
        status, now = queue_server.http("GET", "/api/now")
        assert now["playing"] >= 2 and now["watching"] >= 1
        for client in (watcher, gus, hal, ivy, spectator, *players):
            await client.close()

    arun(scenario())


def test_a_party_of_friends_is_seated_together(queue_server: Any, arun: Any) -> None:
    async def scenario() -> None:
        ann = await queue_server.client("Ann").connect("/ws/queue")
        await ann.send({"type": "party_make", "v": 1, "name": "Ann"})
        code = (await ann.wait_for("party"))["code"]
        bob = await queue_server.client("Bob").connect("/ws/queue")
        await bob.send({"type": "party_join", "v": 1, "code": code, "name": "Bob"})
        for friend in (ann, bob):
            await friend.wait_for(lambda m: m["type"] == "party" and m["members"] == ["Ann", "Bob"])
        cid = await queue_server.client("Cid").connect("/ws/queue")
        await cid.send({"type": "party_join", "v": 1, "code": "nosuch", "name": "Cid"})
        assert (await cid.wait_for("error"))["code"] == "no_party"
        await bob.send({"type": "queue", "v": 1, "seats": 3, "name": "Bob"})  # the maker queues, not a member
        assert (await bob.wait_for("error"))["code"] == "already_queued"
        await ann.send({"type": "queue", "v": 1, "seats": 3, "name": "Ann"})
        for friend in (ann, bob):
            waiting = await friend.wait_for("queued")
            assert (waiting["people"], waiting["seats"]) == (2, 3)
        seats = [await f.wait_for("seated", timeout=10.0) for f in (ann, bob)]
        assert seats[0]["code"] == seats[1]["code"] and seats[0]["seat"] != seats[1]["seat"]
        player = await take_seat(queue_server, seats[1], "Bob")
        table = player.table
        assert table is not None
        names = [seat["name"] for seat in table["seats"]]
        assert names[:2] == ["Ann", "Bob"] and "bot" in names[2], names
        await cid.send({"type": "party_join", "v": 1, "code": code, "name": "Cid"})  # seated: the party is no more
        assert (await cid.wait_for("error", since=1))["code"] == "no_party"
        for client in (ann, bob, cid, player):
            assert not client.problems
            await client.close()

    arun(scenario())


def test_a_silent_or_flooding_queue_socket_is_closed_and_leaves_the_queue(server_with: Any, arun: Any) -> None:
    """The production rate limit and a short silence: what ``/ws`` does, ``/ws/queue`` does."""
    server = server_with(silence_s=1.0)

    async def scenario() -> None:
        quiet = server.client("Quiet", keepalive=None)
        await quiet.connect("/ws/queue")
        await quiet.send({"type": "queue", "v": 1, "seats": 4, "name": "Quiet"})
        assert (await quiet.wait_for("queued"))["people"] == 1
        assert await quiet.wait_closed() == 4002  # silent: closed, out of the queue
        flood = await server.client("Flood").connect("/ws/queue")
        await flood.send({"type": "queue", "v": 1, "seats": 4, "name": "Flood"})
        await flood.wait_for("queued")
        assert await flood.flood() == 1008
        assert (await flood.wait_for("error"))["code"] == "rate_limited"
        for _ in range(100):  # the socket's end takes its ticket out: polled, not slept on
            status, now = server.http("GET", "/api/now")
            if now["queued"] == 0:
                break
            await asyncio.sleep(0.02)
        assert status == 200 and now["queued"] == 0, now

    arun(scenario())
