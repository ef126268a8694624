"""The app's own routing of ``/ws`` (``server/web/app.py``, ``App``): a player's socket goes
straight to its endpoint, not through Starlette's middleware, router and session (each a
coroutine kept for the socket's life, issue 31), and keeps what those layers and uvicorn's
around them did: the client's address from a trusted proxy's header, counted by the
per-address cap; an exception in the endpoint logged as uvicorn logs it and the socket
closed.  And ``/ws``, which its silence deadline closes, gets no keepalive pings from
uvicorn (the lobby's socket does).  The app runs in this process under uvicorn, with the
server's own protocols."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import AsyncIterator
from typing import Any

import pytest
import uvicorn
import websockets

from ligretto import protocol
from ligretto.server.ops import metrics
from ligretto.server.web import sockets
from ligretto.server.web.app import create_app
from ligretto.server.web.httpdeadline import deadline_protocol
from ligretto.server.web.settings import Settings
from ligretto.server.web.wsprotocol import WebSocketProtocol

WAIT_S = 5.0
SERVERS: list[uvicorn.Server] = []
"""The uvicorn server :func:`serving` runs (a test looks at its connections)."""


@contextlib.asynccontextmanager
async def serving(ping_s: float = 20.0, **settings: Any) -> AsyncIterator[str]:
    """``create_app`` served by uvicorn as ``ligretto serve`` serves it (its protocols, proxy
    headers from 127.0.0.1 believed, keepalive pings every ``ping_s``), on a free port: its
    ``ws://`` address."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    config = uvicorn.Config(
        create_app(Settings(**{"connections_per_address": 0, "tables_per_minute": 0, **settings})),
        http=deadline_protocol(10.0, 16 * 1024),
        ws=WebSocketProtocol,
        proxy_headers=True,
        log_config=None,
        ws_max_size=protocol.MAX_FRAME_BYTES,
        ws_per_message_deflate=False,
        ws_ping_interval=ping_s,
        ws_ping_timeout=ping_s,
    )
    server = uvicorn.Server(config)
    SERVERS[:] = [server]
    task = asyncio.create_task(server.serve(sockets=[listener]))
    try:
        while not server.started:
            assert not task.done(), "the server did not start"
            await asyncio.sleep(0.01)
        yield f"ws://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, WAIT_S)
        listener.close()


async def _open(url: str, forwarded_for: str | None = None) -> Any:
    headers = {"X-Forwarded-For": forwarded_for} if forwarded_for else None
    return await websockets.connect(url, additional_headers=headers, open_timeout=WAIT_S, ping_interval=None)


def test_a_players_socket_goes_through_none_of_starlettes_layers() -> None:
    """While a ``/ws`` connection is open, the coroutines its task is suspended in down to
    the connection's loop are uvicorn's, the app's one and the endpoint's, which is that
    loop, down to the protocol's receive: none of Starlette's (its middleware, router, route,
    session and ``WebSocket.receive`` were eleven of them), nor an admission's or a serving
    function's between, nor uvicorn's receive or its queue's (four more, 0.9 KiB a socket)."""

    async def scenario() -> list[str]:
        async with serving() as url:
            ws = await _open(f"{url}/ws")
            await ws.send('{"type": "ping", "t": 1.0}')
            await asyncio.wait_for(ws.recv(), WAIT_S)
            (task,) = [t for t in asyncio.all_tasks() if "run_asgi" in t.get_coro().__qualname__]
            chain, coroutine = [], task.get_coro()
            while coroutine is not None and hasattr(coroutine, "cr_code"):
                chain.append(f"{coroutine.cr_code.co_filename}:{coroutine.__qualname__}")
                coroutine = coroutine.cr_await
            await ws.close()
            return chain

    chain = asyncio.run(scenario())
    names = [c.rsplit(":", 1)[1] for c in chain]
    assert not [c for c in chain if "/starlette/" in c], chain
    # The endpoint is the connection's loop itself, and it waits in the protocol's own
    # receive (on a future): nothing more is suspended between.
    assert names == [
        "WebSocketsSansIOProtocol.run_asgi",
        "ProxyHeadersMiddleware.__call__",
        "App.__call__",
        "websocket_endpoint",
        "WebSocketProtocol.receive",
    ], chain


def test_a_players_socket_counts_against_the_cap_of_the_address_a_trusted_proxy_names() -> None:
    """``/ws`` behind a proxy (127.0.0.1, trusted): the cap counts the address in its
    ``X-Forwarded-For``, not the proxy's; a connection over it is refused (429) before the
    upgrade, and its place is given back on close."""

    async def scenario() -> None:
        async with serving(connections_per_address=1) as url:
            first = await _open(f"{url}/ws", "10.0.0.1")
            with pytest.raises(websockets.InvalidStatus) as refused:
                await _open(f"{url}/ws", "10.0.0.1")
            assert refused.value.response.status_code == 429
            assert b"too_many_connections" in refused.value.response.body
            other = await _open(f"{url}/ws", "10.0.0.2")  # another client behind the same proxy
            await first.close()
            for _ in range(50):  # the server counts the close once it has seen it
                try:
                    again = await _open(f"{url}/ws", "10.0.0.1")
                    break
                except websockets.InvalidStatus:
                    await asyncio.sleep(0.05)
            else:
                pytest.fail("a closed connection was never counted back")
            for ws in (other, again):
                await ws.close()

    asyncio.run(scenario())


def test_an_exception_in_a_players_socket_is_logged_and_the_socket_closed(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A defect while handling a message: uvicorn logs it with its traceback at ERROR,
    the socket is closed, the connection is counted out of ``/metrics`` and its place under
    the caps is given back."""

    def defect(*args: Any) -> None:
        raise RuntimeError("a defect in handling")

    monkeypatch.setattr(sockets, "handle", defect)
    before = metrics.CONNECTIONS._value.get()

    async def scenario() -> None:
        async with serving(connections_per_address=1) as url:
            ws = await _open(f"{url}/ws")
            await ws.send('{"type": "ping", "t": 1.0}')
            with pytest.raises(websockets.ConnectionClosed):
                await asyncio.wait_for(ws.recv(), WAIT_S)
            assert metrics.CONNECTIONS._value.get() == before
            await (await _open(f"{url}/ws")).close()  # the place was given back

    with caplog.at_level(logging.ERROR, logger="uvicorn.error"):
        asyncio.run(scenario())
    errors = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert [r.getMessage().strip() for r in errors] == ["Exception in ASGI application"]
    assert errors[0].exc_info is not None and "a defect in handling" in str(errors[0].exc_info[1])


async def _pings_in(url: str, seconds: float) -> int:
    """The WebSocket ping frames the server sends a client at ``url`` in ``seconds`` (the
    client answers them, and says nothing else)."""
    from websockets.client import ClientProtocol
    from websockets.frames import Frame, Opcode
    from websockets.uri import parse_uri

    client = ClientProtocol(parse_uri(url))
    target = client.uri
    reader, writer = await asyncio.open_connection(target.host, target.port)
    client.send_request(client.connect())
    pings = 0
    try:
        async with asyncio.timeout(seconds):
            while True:
                writer.write(b"".join(client.data_to_send()))
                data = await reader.read(65536)
                assert data, "the server closed the connection"
                client.receive_data(data)
                events = client.events_received()
                pings += sum(isinstance(e, Frame) and e.opcode is Opcode.PING for e in events)
    except TimeoutError:
        pass
    assert client.handshake_exc is None
    writer.close()
    return pings


@pytest.mark.parametrize("silence_s", [6.0, 0.0])
def test_a_players_socket_gets_no_keepalive_pings_while_its_silence_deadline_runs(silence_s: float) -> None:
    """``/ws`` is closed by its own silence deadline (``silence_s``): the server sends it no
    WebSocket pings (a timer less per connection); the lobby's socket, which has no such
    deadline, gets them, and so does ``/ws`` on a server with no silence deadline."""

    async def scenario() -> tuple[int, int]:
        async with serving(ping_s=0.1, silence_s=silence_s) as url:
            players, lobby = await asyncio.gather(_pings_in(f"{url}/ws", 0.6), _pings_in(f"{url}/ws/lobby", 0.6))
            return players, lobby

    players, lobby = asyncio.run(scenario())
    assert lobby >= 3
    assert players == 0 if silence_s else players >= 3


def test_a_players_socket_keeps_only_the_relays_header_of_its_request() -> None:
    """Of the request's headers (a browser's dozen, a proxy's), the scope a ``/ws``
    connection keeps as long as it is open holds the one the socket reads: the relay's."""

    async def scenario() -> list[Any]:
        async with serving() as url:
            headers = {"X-Ligretto-Relayed": "1", "User-Agent": "Mozilla/5.0 " + "x" * 200, "Accept-Language": "fi"}
            ws = await websockets.connect(f"{url}/ws", additional_headers=headers, ping_interval=None)
            await ws.send('{"type": "ping", "t": 1.0}')
            await asyncio.wait_for(ws.recv(), WAIT_S)
            kept = [p.scope["headers"] for p in SERVERS[0].server_state.connections if isinstance(p, WebSocketProtocol)]
            await ws.close()
            return kept

    assert asyncio.run(scenario()) == [[(b"x-ligretto-relayed", b"1")]]
