"""The load clients' WebSocket (``ligretto.harness.wire``) against a real websockets server on
127.0.0.1: the handshake, messages both ways (a fragmented one read whole), pings answered,
closes from either side, and a refused handshake."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from websockets.asyncio.server import ServerConnection, serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.http11 import Request, Response

from ligretto.harness.wire import Text, Wire

Handler = Callable[[ServerConnection], Awaitable[None]]


async def with_server(handler: Handler, body: Callable[[str], Awaitable[Any]], **options: Any) -> Any:
    async with serve(handler, "127.0.0.1", 0, **options) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        return await body(f"ws://127.0.0.1:{port}/ws")


class Inbox:
    def __init__(self) -> None:
        self.texts: list[bytes] = []
        self.closes: list[ConnectionClosed] = []
        self.changed = asyncio.Event()

    def text(self, data: Text) -> None:
        self.texts.append(bytes(data))
        self.changed.set()

    def close(self, closed: ConnectionClosed) -> None:
        self.closes.append(closed)
        self.changed.set()

    async def until(self, done: Callable[[], bool]) -> None:
        async with asyncio.timeout(5):
            while not done():
                self.changed.clear()
                await self.changed.wait()


def test_messages_both_ways_pings_answered_and_the_servers_close_reported() -> None:
    pong: list[float] = []

    async def handler(ws: ServerConnection) -> None:
        assert await ws.recv() == "héllo"
        await ws.send("one")
        await ws.send(["frag", "mented ", "message"])  # three frames, one message
        pong.append(await (await ws.ping()))  # answered by the wire's protocol
        await ws.send("two")
        await ws.close(1001, "going away")

    async def body(url: str) -> list[bytes]:
        inbox = Inbox()
        wire = await Wire.open(url, inbox.text, inbox.close, timeout=5, compression=False, max_size=1 << 20)
        wire.send("héllo".encode())
        await inbox.until(lambda: bool(inbox.closes))
        closed = inbox.closes[0]
        assert closed.rcvd is not None and closed.rcvd.code == 1001 and closed.rcvd.reason == "going away"
        with pytest.raises(ConnectionClosed):
            wire.send(b"too late")
        assert len(inbox.closes) == 1
        return inbox.texts

    texts = asyncio.run(with_server(handler, body))
    assert texts == [b"one", b"fragmented message", b"two"]
    assert len(pong) == 1 and pong[0] >= 0


def test_the_clients_close_is_a_closing_handshake_with_1000_and_compression_is_offered() -> None:
    seen: list[Any] = []

    async def handler(ws: ServerConnection) -> None:
        seen.append(ws.request.headers.get("Sec-WebSocket-Extensions") if ws.request else None)
        try:
            async for message in ws:
                await ws.send(message)  # echo
        finally:
            seen.append(ws.close_code)

    async def body(url: str) -> list[bytes]:
        inbox = Inbox()
        wire = await Wire.open(url, inbox.text, inbox.close, timeout=5, compression=True, max_size=1 << 20)
        wire.send(b'{"type":"ping"}' * 50)  # compressed by the negotiated extension
        await inbox.until(lambda: bool(inbox.texts))
        await wire.close()
        await inbox.until(lambda: bool(inbox.closes))
        assert inbox.closes[0].sent is not None and inbox.closes[0].sent.code == 1000
        return inbox.texts

    texts = asyncio.run(with_server(handler, body))
    assert texts == [b'{"type":"ping"}' * 50]
    assert seen[0] is not None and "permessage-deflate" in seen[0]
    assert seen[1] == 1000


def test_a_refused_handshake_or_no_server_raises_from_open() -> None:
    def refuse(_connection: ServerConnection, _request: Request) -> Response:
        return Response(403, "Forbidden", Headers(), b"no")

    async def handler(_ws: ServerConnection) -> None:  # never reached
        raise AssertionError

    async def body(url: str) -> None:
        with pytest.raises(InvalidStatus):
            await Wire.open(url, Inbox().text, Inbox().close, timeout=5, compression=False, max_size=1 << 20)

    asyncio.run(with_server(handler, body, process_request=refuse))

    async def nobody() -> None:
        async with serve(handler, "127.0.0.1", 0) as server:
            port = next(iter(server.sockets)).getsockname()[1]
        with pytest.raises(OSError):  # the port is free again: refused
            await Wire.open(
                f"ws://127.0.0.1:{port}/ws", Inbox().text, Inbox().close, timeout=5, compression=False, max_size=1 << 20
            )

    asyncio.run(nobody())
