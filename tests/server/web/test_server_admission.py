"""Admission control (docs/protocol.md, Limits; ``server/web/admission.py``): the caps on open
WebSockets per address and in all, the quota of tables per address a minute, the
``hello`` deadline and the capped lobby list.

The rules are tested at the unit level with ``now`` passed in (no clock); each is then
tested once against a real server, whose settings are small enough to reach (its
per-address limits are off for other tests: ``realserver.OPEN_LIMITS``)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Coroutine
from typing import Any

import pytest
import websockets
from starlette.datastructures import Address

from ligretto import protocol
from ligretto.bots.spec import BotSpec
from ligretto.engine.rules import RuleSet
from ligretto.protocol import Phase
from ligretto.server.ops.addresses import address_of
from ligretto.server.web.admission import ConnectionCount, Cooling, RateLimit, Refusal, TableQuota
from ligretto.server.web.lobby import Lobby
from ligretto.server.web.settings import Settings

Run = Callable[[Coroutine[Any, Any, Any]], Any]
WAIT_S = 5.0

# --- open connections ------------------------------------------------------------------


def test_connections_are_capped_per_address_and_counted_back_on_close() -> None:
    count = ConnectionCount(per_address=2, total=0)
    assert count.admit("1.2.3.4") is None and count.admit("1.2.3.4") is None
    refusal = count.admit("1.2.3.4")
    assert refusal is not None
    assert (refusal.status, refusal.code) == (429, "too_many_connections")
    assert "at most 2" in refusal.message
    assert count.admit("5.6.7.8") is None, "another address has its own allowance"
    assert count.count == 3, "a refused connection is not counted"
    count.release("1.2.3.4")
    assert count.admit("1.2.3.4") is None
    for _ in range(3):
        count.release("1.2.3.4")
    count.release("5.6.7.8")
    assert count.count == 0 and count.by_address == {}, "nothing is kept of closed connections"


def test_connections_are_capped_in_all() -> None:
    count = ConnectionCount(per_address=0, total=3)
    assert [count.admit(f"10.0.0.{i}") for i in range(3)] == [None, None, None]
    refusal = count.admit("10.0.0.9")
    assert refusal is not None and (refusal.status, refusal.code) == (503, "server_full")
    count.release("10.0.0.0")
    assert count.admit("10.0.0.9") is None


def test_zero_turns_the_connection_caps_off() -> None:
    count = ConnectionCount(per_address=0, total=0)
    assert all(count.admit("1.1.1.1") is None for _ in range(500))


def test_an_address_is_the_clients_host() -> None:
    assert address_of(Address("9.8.7.6", 5555)) == "9.8.7.6"
    assert address_of(None) == "unknown"


def test_a_sockets_rate_limit_is_a_burst_then_a_steady_rate() -> None:
    now = [100.0]
    rate = RateLimit(rate_per_s=20.0, burst=40, clock=lambda: now[0])
    assert all(rate.allow() for _ in range(40)), "the burst at once"
    assert not rate.allow()
    now[0] += 0.5
    assert sum(rate.allow() for _ in range(40)) == 10, "then 20 a second"
    now[0] += 60.0
    assert sum(rate.allow() for _ in range(100)) == 40, "never more than the burst saved up"


# --- the table quota ---------------------------------------------------------------------


def test_the_table_quota_is_a_sliding_minute_per_address() -> None:
    quota = TableQuota(3)
    assert [quota.allow("a", now) for now in (100.0, 110.0, 120.0)] == [None, None, None]
    refusal = quota.allow("a", 130.0)
    assert refusal is not None and (refusal.status, refusal.code) == (429, "too_many_tables")
    assert refusal.retry_after_s == pytest.approx(30.0), "the first of the three leaves the window at 160"
    assert "try again in 30 s" in refusal.message
    assert quota.allow("b", 130.0) is None, "another address has its own quota"
    assert quota.allow("a", 159.9) is not None
    assert quota.allow("a", 160.0) is None, "60 s after the first, one more may be made"
    assert quota.allow("a", 161.0) is not None


def test_a_refused_table_does_not_count_against_the_quota() -> None:
    quota = TableQuota(1)
    assert quota.allow("a", 0.0) is None
    for now in (10.0, 20.0, 50.0):
        assert quota.allow("a", now) is not None
    assert quota.allow("a", 60.0) is None, "the refusals did not move the window"


def test_the_quota_forgets_addresses_of_past_minutes() -> None:
    quota = TableQuota(5)
    for i in range(100):
        assert quota.allow(f"10.0.{i}.1", float(i)) is None
    quota.allow("late", 300.0)
    assert set(quota.created) == {"late"}


def test_zero_turns_the_quota_off() -> None:
    quota = TableQuota(0)
    assert all(quota.allow("a", 1.0) is None for _ in range(1000))
    assert quota.created == {}


def test_a_refusal_answers_with_an_error_body_and_retry_after() -> None:
    response = Refusal(429, "too_many_tables", "slow down", 12.2).response()
    assert response.status_code == 429
    assert response.headers["retry-after"] == "13"
    assert json.loads(bytes(response.body)) == {"error": "too_many_tables", "message": "slow down"}
    assert Refusal(503, "server_full", "full", 0.0).response().headers["retry-after"] == "1"


# --- the lobby list ----------------------------------------------------------------------


def _lobby(**settings: Any) -> Lobby:
    return Lobby(Settings(**settings))


def test_the_lobby_list_is_capped_with_the_waiting_and_newest_tables_first() -> None:
    lobby = _lobby(lobby_tables=3)
    made = [lobby.create(2, RuleSet(), public=True, grace_s=60.0) for _ in range(5)]
    lobby.create(2, RuleSet(), public=False, grace_s=60.0)
    full = made[4]
    full.seat_bot(_bot())
    full.seat_bot(_bot())
    assert full.phase is Phase.LOBBY and full.free_seat() is None
    listing = lobby.public_listing()
    assert listing.total == 5, "every public table is counted, shown or not; the private one is not"
    assert [t.code for t in listing.tables] == [made[3].code, made[2].code, made[1].code]
    assert lobby.public_tables() == listing.tables


def test_a_lobby_list_of_many_tables_stays_small() -> None:
    lobby = _lobby()
    for _ in range(1000):
        lobby.create(4, RuleSet(), public=True, grace_s=60.0)
    listing = lobby.public_listing()
    assert len(listing.tables) == protocol.LOBBY_TABLES and listing.total == 1000
    assert len(protocol.wire(protocol.lobby_message(listing, protocol.Now(0, 0, 0, 0)))) < 20_000


def test_zero_lists_every_public_table() -> None:
    lobby = _lobby(lobby_tables=0)
    for _ in range(60):
        lobby.create(2, RuleSet(), public=True, grace_s=60.0)
    assert len(lobby.public_listing().tables) == 60


def _bot() -> BotSpec:
    return BotSpec.parse("random:casual")


# --- against a real server ---------------------------------------------------------------


async def _open(server: Any, path: str = "/ws") -> Any:
    return await websockets.connect(f"ws://127.0.0.1:{server.port}{path}", open_timeout=WAIT_S, ping_interval=None)


async def _refused(server: Any, path: str = "/ws") -> tuple[int, dict[str, Any], str | None]:
    with pytest.raises(websockets.InvalidStatus) as refused:
        await _open(server, path)
    response = refused.value.response
    return response.status_code, json.loads(response.body), response.headers.get("Retry-After")


def test_a_real_server_refuses_connections_over_its_caps(server_with: Callable[..., Any], arun: Run) -> None:
    server = server_with(connections_per_address=3)

    async def scenario() -> None:
        players = [await _open(server), await _open(server)]
        watcher = await _open(server, "/ws/lobby")  # the lobby's sockets count too
        status, body, retry = await _refused(server)
        assert status == 429 and body["error"] == "too_many_connections" and retry is not None
        assert (await _refused(server, "/ws/lobby"))[0] == 429
        await players[0].close()
        for _ in range(50):  # the server counts the close once it has seen it
            try:
                players[0] = await _open(server)
                break
            except websockets.InvalidStatus:
                await asyncio.sleep(0.05)
        else:
            pytest.fail("a closed connection was never counted back")
        for ws in (*players, watcher):
            await ws.close()

    arun(scenario())
    assert server.healthy()
    assert "ERROR" not in server.log_text(), "a refusal is no error of the server's"


def test_a_full_real_server_answers_503(server_with: Callable[..., Any], arun: Run) -> None:
    server = server_with(max_connections=2)

    async def scenario() -> None:
        held = [await _open(server), await _open(server, "/ws/lobby")]
        status, body, _ = await _refused(server)
        assert status == 503 and body == {"error": "server_full", "message": "the server is full (2 connections)"}
        for ws in held:
            await ws.close()

    arun(scenario())


def test_a_real_server_closes_a_connection_that_never_says_hello(server_with: Callable[..., Any], arun: Run) -> None:
    server = server_with(hello_s=1.0)

    async def scenario() -> None:
        code = server.create_table(2)
        lurker = await server.client("lurker", keepalive=0.3).connect()  # pings, never joins
        player = await server.client("Ann", keepalive=0.3).join(code)
        opened = time.monotonic()
        assert await lurker.wait_closed(timeout=WAIT_S) == protocol.NO_HELLO
        assert lurker.ws.close_reason == "no hello"
        assert time.monotonic() - opened < 1.0 + 1.0
        await asyncio.sleep(0.5)  # past the deadline: the player who joined is not cut off
        await player.barrier()
        assert not player.closed
        await player.close()

    arun(scenario())


def test_a_real_server_gives_each_address_a_table_quota(server_with: Callable[..., Any]) -> None:
    server = server_with(tables_per_minute=3)
    for _ in range(3):
        server.create_table(2)
    status, body = server.http("POST", "/api/tables", {"seats": 2})
    assert status == 429 and body["error"] == "too_many_tables"
    assert body["message"].startswith("at most 3 tables a minute from one address")
    status, body = server.http("POST", "/api/tutorial", {"name": "Tess"})
    assert status == 429 and body["error"] == "too_many_tables", "tutorials share the quota"
    status, body = server.http("POST", "/api/tables", {"seats": 99})
    assert status == 400 and body["error"] == "bad_seats", "a bad request is told so, quota or not"
    assert server.http("GET", "/healthz")[1]["tables"] == 3


def test_a_real_servers_lobby_list_is_capped(server_with: Callable[..., Any], arun: Run) -> None:
    server = server_with(lobby_tables=2)
    codes = [server.create_table(2, public=True) for _ in range(3)]
    status, listing = server.http("GET", "/api/tables")
    assert status == 200 and listing["total"] == 3
    assert [t["code"] for t in listing["tables"]] == codes[:0:-1]

    async def scenario() -> None:
        watcher = await server.client("watcher").connect("/ws/lobby")
        message = await watcher.wait_for("lobby", timeout=WAIT_S)
        assert message["total"] == 3 and [t["code"] for t in message["tables"]] == codes[:0:-1]
        await watcher.close()

    arun(scenario())


def test_a_seat_whose_connection_flooded_cannot_come_straight_back(server_with: Callable[..., Any], arun: Run) -> None:
    """Coming back at once with the seat's token would refill the rate limit: for
    ``cool_down_s`` after the rate limit closed it, the seat's ``hello`` is held (nothing
    else read on that connection), then answered; the seat is away meanwhile."""
    server = server_with(cool_down_s=1.0)
    code = server.create_table(2)

    async def scenario() -> None:
        flooder = await server.client("flooder").join(code, "Flo")
        token = flooder.find("welcome")["token"]
        watcher = await server.client("watcher").watch(code)
        assert await flooder.flood() == 1008
        closed = time.monotonic()
        away = await watcher.wait_for(lambda m: m["type"] == "table" and not m["seats"][0]["connected"])
        back = server.client("back")
        await back.connect()
        welcome = await back.hello(code, token=token)
        waited = time.monotonic() - closed
        assert welcome["type"] == "welcome" and welcome["seat"] == 0, welcome
        assert waited >= 0.8, f"let back {waited:.2f} s after the flood, within the cool-down"
        assert away["seats"][0]["name"] == "Flo"
        seats = (await watcher.wait_for(lambda m: m["type"] == "table" and m["seats"][0]["connected"]))["seats"]
        assert seats[0]["name"] == "Flo"
        # seated again: a game action is the table's to refuse (no round yet), not "not_joined"
        assert (await back.act({"kind": "turn"}))["code"] == "not_playing"
        for client in (watcher, back):
            await client.close()

    arun(scenario())


def test_a_real_server_closes_a_flooding_lobby_socket_and_serves_the_rest(
    server_with: Callable[..., Any], arun: Run
) -> None:
    """``/ws/lobby`` has ``/ws``'s rate limit (the server's own: a burst of 40, then 20 a
    second): a client that floods it gets ``rate_limited`` and the close 1008, as on ``/ws``,
    while another lobby socket still gets the list as tables are made, and a player is
    answered.  The flooder's address opens no lobby socket for ``cool_down_s`` (429
    ``cooling_down`` before the upgrade: coming straight back costs a refusal, not a socket);
    then its place is given back."""
    server = server_with(connections_per_address=1, cool_down_s=1.0)
    table = server.create_table(2)
    flooders = {"X-Forwarded-For": "10.0.0.9"}  # (the test's proxy: 127.0.0.1 is trusted)

    async def scenario() -> None:
        flooder = await server.client("flooder").connect("/ws/lobby", flooders)
        watcher = await server.client("watcher").connect("/ws/lobby", {"X-Forwarded-For": "10.0.0.8"})
        player = await server.client("Ann").join(table)
        await flooder.wait_for("lobby")
        assert await flooder.flood() == 1008
        assert flooder.find("error", code="rate_limited") is not None
        with pytest.raises(websockets.InvalidStatus) as cooling:
            await server.client("again").connect("/ws/lobby", flooders)
        assert cooling.value.response.status_code == 429
        assert b"cooling_down" in cooling.value.response.body and cooling.value.response.headers["Retry-After"] == "1"
        public = server.create_table(3, public=True)
        listed = await watcher.wait_for(lambda m: m["type"] == "lobby" and m["tables"], timeout=WAIT_S)
        assert [t["code"] for t in listed["tables"]] == [public]
        assert (await player.act({"kind": "turn"}))["code"] == "not_playing", "the player's table still answers"
        deadline = asyncio.get_running_loop().time() + WAIT_S
        while True:  # once cooled down, the flooder's place is given back (one per address)
            try:
                back = await server.client("back").connect("/ws/lobby", flooders)
                break
            except websockets.InvalidStatus as refused:
                assert refused.response.status_code == 429
                assert asyncio.get_running_loop().time() < deadline, "the address never cooled down"
                await asyncio.sleep(0.1)
        assert [t["code"] for t in (await back.wait_for("lobby"))["tables"]] == [public]
        for client in (watcher, player, back):
            await client.close()

    arun(scenario())
    text = server.http("GET", "/metrics")[1]
    assert 'ligretto_bad_messages_total{code="rate_limited"} 1.0' in text
    assert server.healthy()


def test_a_flooders_address_cools_down_then_is_forgotten() -> None:
    now = [100.0]
    cooling = Cooling(2.0, clock=lambda: now[0])
    assert cooling.refusal("10.0.0.9") is None
    cooling.flooded("10.0.0.9")
    refused = cooling.refusal("10.0.0.9")
    assert refused is not None and (refused.status, refused.code, refused.retry_after_s) == (429, "cooling_down", 2.0)
    assert cooling.refusal("10.0.0.8") is None, "only the flooder's address"
    now[0] = 101.5
    assert cooling.refusal("10.0.0.9") is not None
    now[0] = 102.0
    assert cooling.refusal("10.0.0.9") is None and "10.0.0.9" not in cooling.until
    off = Cooling(0.0, clock=lambda: now[0])
    off.flooded("10.0.0.9")
    assert off.refusal("10.0.0.9") is None, "0 turns it off"
