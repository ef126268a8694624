"""Heartbeats: a connection that falls silent (its socket open, nothing received) is taken
for a gone one -- the others see the seat away, the grace period runs and a stand-in
plays, exactly as for a closed socket -- while connections that keep pinging, the
terminal client's included, are never cut off.

The server runs with a short silence deadline (``Settings.silence_s``) so nothing waits
long; the test clients ping faster than it.  These tests wait on the wall clock on
purpose: what they check is real pings over a real socket keeping a real connection
open against the server's real deadline (``asyncio.timeout`` on its receiving loop).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import pytest

from ligretto.terminal import remote as remote_module
from ligretto.terminal.remote import RemoteTable, SeatTokens

Message = dict[str, Any]
WAIT_S = 5.0
SILENCE_S = 1.5
KEEPALIVE_S = 0.3
GRACE_S = 1.0


def _seat(table: Message, index: int) -> dict[str, Any]:
    entry: dict[str, Any] = table["seats"][index]
    return entry


async def _seated(server: Any, code: str, names: list[str]) -> list[Any]:
    return [await server.client(name, keepalive=KEEPALIVE_S).join(code) for name in names]


def test_a_silent_connection_is_away_for_the_others_and_a_stand_in_takes_over(
    server_with: Callable[..., Any], arun: Callable[[Coroutine[Any, Any, Any]], Any]
) -> None:
    server = server_with(silence_s=SILENCE_S)

    async def scenario() -> None:
        code = server.create_table(2, grace_s=GRACE_S, options={"match_end": "rounds:1"})
        ann, bob = await _seated(server, code, ["Ann", "Bob"])
        watcher = server.client("watcher", keepalive=KEEPALIVE_S)
        await watcher.watch(code)
        marks = [len(c.messages) for c in (ann, bob, watcher)]
        await ann.command({"type": "start"})
        for client, mark in zip((ann, bob, watcher), marks, strict=True):
            await client.wait_for("go", since=mark, timeout=WAIT_S)
        await bob.play(2)
        assert not bob.closed

        # Bob's network stalls: his socket stays open, nothing more comes from him.
        mark_ann, mark_watcher = len(ann.messages), len(watcher.messages)
        last_sent = time.monotonic()
        bob.keepalive = None
        away = await ann.wait_for(
            lambda m: m["type"] == "table" and not _seat(m, 1)["connected"], since=mark_ann, timeout=WAIT_S
        )
        noticed = time.monotonic() - last_sent
        # Not before the deadline (his last ping left at most KEEPALIVE_S before), not long after it.
        assert SILENCE_S - KEEPALIVE_S - 0.1 <= noticed <= SILENCE_S + 1.5, noticed
        assert not _seat(away, 1)["stand_in"]
        assert _seat(away, 0)["connected"], "Ann keeps pinging: she is there"
        await watcher.wait_for(lambda m: m["type"] == "table" and not _seat(m, 1)["connected"], since=mark_watcher)
        # The silent socket is closed with its own code.
        assert await bob.wait_closed() == 4002

        # The grace period runs as for a closed socket, then a stand-in bot plays the seat.
        stand_in = await ann.wait_for(
            lambda m: m["type"] == "table" and _seat(m, 1)["stand_in"], since=mark_ann, timeout=GRACE_S + WAIT_S
        )
        assert time.monotonic() - last_sent >= SILENCE_S - KEEPALIVE_S + GRACE_S - 0.1
        assert not _seat(stand_in, 1)["connected"]
        await ann.wait_for(lambda m: m["type"] == "events" and m["by"] == 1, since=ann.messages.index(stand_in))

        # Ann and the watcher, who only pinged all this time, were never cut off.
        assert not ann.closed and not watcher.closed
        assert all(_seat(m, 0)["connected"] for m in ann.all("table"))

        # Bob comes back with his token: his seat, no stand-in any more.
        back = server.client("Bob again", keepalive=KEEPALIVE_S)
        await back.connect()
        welcome = await back.hello(code, token=bob.token)
        assert welcome["type"] == "welcome" and welcome["seat"] == 1, welcome
        table = await back.wait_for("table")
        assert _seat(table, 1)["connected"] and not _seat(table, 1)["stand_in"]
        await back.wait_for("snapshot")
        assert not ann.problems and not watcher.problems and not back.problems
        for client in (ann, watcher, back):
            await client.close()

    arun(scenario())


def test_a_client_that_only_pings_is_never_cut_off_and_one_that_says_nothing_is(
    server_with: Callable[..., Any], arun: Callable[[Coroutine[Any, Any, Any]], Any]
) -> None:
    server = server_with(silence_s=SILENCE_S)

    async def scenario() -> None:
        code = server.create_table(2)
        (ann,) = await _seated(server, code, ["Ann"])
        mute = server.client("mute", keepalive=None)
        await mute.connect()  # not even a hello
        started = time.monotonic()
        assert await mute.wait_closed(timeout=SILENCE_S + WAIT_S) == 4002
        assert time.monotonic() - started >= SILENCE_S - 0.1
        # Ann has sent nothing but pings for three deadlines: still there, still answered.
        await asyncio.sleep(max(0.0, 3 * SILENCE_S - (time.monotonic() - started)))
        assert not ann.closed
        mark = len(ann.messages)
        await ann.send({"type": "ping", "t": 7.25})
        pong = await ann.wait_for("pong", since=mark)
        assert pong["t"] == 7.25
        assert all(_seat(m, 0)["connected"] for m in ann.all("table"))
        await ann.close()

    arun(scenario())


def test_the_terminal_client_keeps_pinging_while_the_person_thinks(
    server_with: Callable[..., Any],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    arun: Callable[[Coroutine[Any, Any, Any]], Any],
) -> None:
    server = server_with(silence_s=SILENCE_S)
    monkeypatch.setattr(remote_module, "KEEPALIVE_S", KEEPALIVE_S)

    async def scenario() -> None:
        code = server.create_table(2)
        watcher = server.client("watcher", keepalive=KEEPALIVE_S)
        await watcher.watch(code)
        received: list[Message] = []
        table = RemoteTable(server.url, code, "Tess", tokens=SeatTokens(tmp_path / "seats.json"))
        table.start(received.append)
        await watcher.wait_for(lambda m: m["type"] == "table" and m["seats"][0] is not None)
        # The person sends nothing for three deadlines: the client's pings keep the seat.
        await asyncio.sleep(3 * SILENCE_S)
        assert table.connects == 1, "the connection was never cut"
        assert sum(1 for m in received if m.get("type") == "pong") >= 3 * SILENCE_S / KEEPALIVE_S / 2
        assert all(m["seats"][0]["connected"] for m in watcher.all("table") if m["seats"][0] is not None)
        await table.close()
        await watcher.close()

    arun(scenario())
