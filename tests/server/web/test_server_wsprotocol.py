"""The server's WebSocket protocol (``server/web/wsprotocol.py``) against a real server: a
client that floods and never reads is cut off as soon as the rate limit closes it (not
read on for uvicorn's 10 s), the server parsing only what its application reads; an
ordinary client still gets the close code and its messages in order."""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Callable, Coroutine
from typing import Any

import pytest
import websockets

Arun = Callable[[Coroutine[Any, Any, Any]], Any]
ACT = '{"type": "act", "id": %d, "action": {"kind": "turn"}}'

pytestmark = pytest.mark.rate_limited  # the tests are about the server's own limit


def _metric(text: str, name: str) -> float:
    match = re.search(rf"^{re.escape(name)} (\S+)$", text, re.MULTILINE)
    return float(match.group(1)) if match else 0.0


def test_a_flooding_client_that_never_reads_is_cut_off_at_once(server: Any, arun: Arun) -> None:
    code = server.create_table(2)

    async def scenario() -> tuple[float, int]:
        ws = await websockets.connect(server.ws_url, ping_interval=None, compression=None)
        await ws.send(json.dumps({"type": "hello", "v": 1, "code": code, "name": "Flood"}))
        await asyncio.wait_for(ws.recv(), 5.0)  # the welcome: from now on it never reads
        start = time.monotonic()
        sent = 0
        try:
            while time.monotonic() - start < 8.0:  # uvicorn alone would read on for 10 s
                sent += 1
                await ws.send(ACT % sent)
        except websockets.ConnectionClosed:
            pass
        return time.monotonic() - start, sent

    seconds, sent = arun(scenario())
    assert seconds < 5.0, f"still connected after {seconds:.1f} s and {sent} messages"
    assert sent > 1000
    text = server.http("GET", "/metrics")[1]
    assert _metric(text, 'ligretto_bad_messages_total{code="rate_limited"}') == 1
    # The burst (40) was read; not the thousands that followed (lobby: each is not_playing).
    assert _metric(text, 'ligretto_bad_messages_total{code="not_playing"}') <= 40
    assert server.healthy()


def test_a_client_that_sends_a_burst_gets_every_answer_in_order(server: Any, arun: Arun) -> None:
    """Messages arriving together are parsed a piece at a time: none is lost or reordered."""
    pad = "x" * 3000  # a few of these fill more than one piece of 4 KiB

    def message(t: int) -> str:
        return json.dumps({"type": "ping", "t": t, "pad": pad} if t % 3 == 0 else {"type": "ping", "t": t})

    async def scenario() -> list[float]:
        ws = await websockets.connect(server.ws_url, ping_interval=None, compression=None)
        for t in range(30):
            await ws.send(message(t))
        answers = [json.loads(await asyncio.wait_for(ws.recv(), 5.0)) for _ in range(30)]
        await ws.close()
        return [a["t"] if a["type"] == "pong" else -1.0 for a in answers]

    # Every third ping has a field too many (an error, -1); the others are answered in order.
    assert arun(scenario()) == [-1.0 if t % 3 == 0 else float(t) for t in range(30)]


class MemoryTransport(asyncio.Transport):
    """A transport that keeps what the server writes (a test reads it as the client)."""

    def __init__(self) -> None:
        super().__init__()
        self.written = bytearray()
        self.closed = False
        self.reading = True

    def pause_reading(self) -> None:
        self.reading = False

    def resume_reading(self) -> None:
        self.reading = True

    def write(self, data: Any) -> None:
        self.written += data

    def is_closing(self) -> bool:
        return self.closed

    def close(self) -> None:
        self.closed = True

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"sockname": ("127.0.0.1", 8000), "peername": ("127.0.0.1", 40000)}.get(name, default)

    def take(self) -> bytes:
        data, self.written = bytes(self.written), bytearray()
        return data


async def _handshake(app: Any, protocol: type[Any] | None = None, **config: Any) -> tuple[Any, MemoryTransport, Any]:
    """The server's protocol (``protocol``, default ``WebSocketProtocol``) running ``app``
    (uvicorn's ``Config`` with ``config`` more), over a memory transport, with a sans-I/O
    client whose opening handshake is done: (server, transport, client)."""
    from uvicorn.config import Config
    from uvicorn.server import ServerState
    from websockets.client import ClientProtocol
    from websockets.uri import parse_uri

    from ligretto.server.web.wsprotocol import WebSocketProtocol

    settings = Config(app=app, ws_per_message_deflate=False, lifespan="off", **config)
    server = (protocol or WebSocketProtocol)(config=settings, server_state=ServerState(), app_state={})
    transport = MemoryTransport()
    server.connection_made(transport)
    client = ClientProtocol(parse_uri("ws://127.0.0.1:8000/ws"))
    client.send_request(client.connect())
    server.data_received(b"".join(client.data_to_send()))
    for _ in range(10):
        await asyncio.sleep(0)
    client.receive_data(transport.take())
    return server, transport, client


def test_ready_made_frames_go_out_below_asgi_only_while_the_socket_can_take_them() -> None:
    """``write_frame`` (the scope's ``ligretto.frames``) writes a frame the client reads as
    the text sent, once the handshake is done; it declines (the connection then sends through
    ASGI, which waits or raises) while the transport is paused for a slow reader, and once
    the client has sent its close."""
    from websockets.frames import Frame, Opcode

    from ligretto.server.web.wsprotocol import FRAMES, text_frame

    scopes: list[Any] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await receive()
        await send({"type": "websocket.accept"})
        scopes.append(scope)
        while (await receive())["type"] != "websocket.disconnect":
            pass

    async def scenario() -> None:
        server, transport, client = await _handshake(app)
        assert client.handshake_exc is None and scopes
        write = scopes[0]["extensions"][FRAMES].write_frame

        def read() -> list[str]:
            client.receive_data(transport.take())
            return [event.data.decode() for event in client.events_received() if isinstance(event, Frame)]

        text = '{"type":"events","seq":1,"é":"ü"}'
        assert text_frame(text) is text_frame(text), "a broadcast's text is framed once"
        assert write(text_frame(text)) is True
        assert read() == [text]
        server.pause_writing()  # the transport's buffer is over its high-water mark
        assert write(text_frame("held")) is False and transport.written == b""
        server.resume_writing()
        assert write(text_frame(text + " ")) is True and read() == [text + " "]

        client.send_close(1000)
        server.data_received(b"".join(client.data_to_send()))
        assert write(text_frame("after the close")) is False
        transport.take()
        assert Frame(Opcode.TEXT, b"x").serialize(mask=False) == text_frame("x")
        server.connection_lost(None)
        for _ in range(5):
            await asyncio.sleep(0)

    asyncio.run(scenario())


def test_a_reader_takes_messages_as_they_are_parsed_and_what_it_declines_keeps_its_order() -> None:
    """``read_with`` (the scope's ``ligretto.frames``): each text message goes to the reader
    as it is parsed, not to the application's ``receive``; one it declines is queued for
    ``receive`` and the reader dropped; while a message waits there, later ones queue behind it;
    a message the application takes from ``receive`` drops the reader too, until it sets it
    again, so no message is handled before one that came earlier."""

    from ligretto.server.web.wsprotocol import FRAMES

    scopes: list[Any] = []
    received: list[str] = []
    reading = asyncio.Event()

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await receive()
        await send({"type": "websocket.accept"})
        scopes.append(scope)
        while True:
            await reading.wait()
            message = await receive()
            if message["type"] == "websocket.disconnect":
                return
            received.append(message.get("text") or repr(message.get("bytes")))

    async def scenario() -> None:
        server, transport, client = await _handshake(app)
        read_with = scopes[0]["extensions"][FRAMES].read_with

        taken: list[str] = []

        def reader(text: str) -> bool:
            if text.startswith("wait"):
                return False
            taken.append(text)
            return True

        def send(*texts: str) -> None:
            for text in texts:
                client.send_text(text.encode())
            server.data_received(b"".join(client.data_to_send()))

        read_with(reader)
        send("a", "b é")
        assert taken == ["a", "b é"] and not server.read_paused, "taken as parsed, reading goes on"
        send("wait 1", "c", "d")
        assert taken == ["a", "b é"], "declined: the reader is dropped"
        assert not transport.reading, "a message waits for receive: the socket is not read meanwhile"
        read_with(reader)
        send("e")
        assert taken == ["a", "b é"], "behind the declined message, still waiting to be read"
        client.send_binary(b"\x01")
        server.data_received(b"".join(client.data_to_send()))
        reading.set()
        for _ in range(20):
            await asyncio.sleep(0)
        assert received == ["wait 1", "c", "d", "e", repr(b"\x01")], "read in the order they came"
        assert transport.reading
        send("f")
        for _ in range(5):
            await asyncio.sleep(0)
        assert received[-1] == "f", "what the application reads drops the reader"
        read_with(reader)
        send("f")
        assert taken == ["a", "b é", "f"], "the queue read and the reader set again: it has messages again"
        client.send_binary(b"\x02")
        server.data_received(b"".join(client.data_to_send()))
        for _ in range(5):
            await asyncio.sleep(0)
        assert received[-1] == repr(b"\x02"), "bytes go to receive"
        read_with(None)
        send("g")
        for _ in range(5):
            await asyncio.sleep(0)
        assert received[-1] == "g" and taken[-1] == "f"
        server.connection_lost(None)
        for _ in range(5):
            await asyncio.sleep(0)

    asyncio.run(scenario())


def test_uvicorn_uses_no_more_of_its_queue_and_writable_event_than_the_inbox_and_flag_have() -> None:
    """The protocol's ``queue`` and ``writable`` are an ``Inbox`` and a ``Flag``, not asyncio's
    queue and event: uvicorn's source (and ours) may call only the methods they have, and
    hand the objects themselves nowhere (an upgrade of uvicorn that does fails here)."""
    import inspect

    from uvicorn.protocols.websockets import websockets_sansio_impl

    from ligretto.server.web import wsprotocol

    source = inspect.getsource(websockets_sansio_impl) + inspect.getsource(wsprotocol)
    for name, kind in (("queue", wsprotocol.Inbox), ("writable", wsprotocol.Flag)):
        called = set(re.findall(rf"self\.{name}\.(\w+)", source))
        offered = {method for method in vars(kind) if not method.startswith("_")}
        assert called and called <= offered, f"uvicorn calls {called - offered} of its {name}"
        bare = re.findall(rf"self\.{name}\b(?!\.)(.{{0,40}})", source)
        assert all(re.match(r"(: [^=]+)? = ", rest) for rest in bare), f"{name} handed on: {bare}"


def test_the_inbox_hands_its_one_reader_every_event_in_order() -> None:
    from ligretto.server.web.wsprotocol import Inbox

    async def scenario() -> None:
        inbox = Inbox()
        assert inbox.empty()
        reader = asyncio.ensure_future(inbox.get())
        await asyncio.sleep(0)
        assert not reader.done(), "nothing yet: the reader waits"
        with pytest.raises(RuntimeError):
            await inbox.get()  # a second reader while one waits
        inbox.put_nowait({"n": 1})
        inbox.put_nowait({"n": 2})
        assert await reader == {"n": 1} and not inbox.empty()
        assert await inbox.get() == {"n": 2} and inbox.empty()
        cancelled = asyncio.ensure_future(inbox.get())
        await asyncio.sleep(0)
        cancelled.cancel()
        await asyncio.sleep(0)
        inbox.put_nowait({"n": 3})  # after a reader gave up: kept for the next one
        assert await asyncio.wait_for(inbox.get(), 1.0) == {"n": 3}

    asyncio.run(scenario())


def test_the_flag_wakes_every_sender_waiting_for_the_socket() -> None:
    from ligretto.server.web.wsprotocol import Flag

    async def scenario() -> None:
        flag = Flag(True)
        assert flag.is_set() and await flag.wait() is True
        flag.clear()
        waiting = [asyncio.ensure_future(flag.wait()) for _ in range(3)]
        await asyncio.sleep(0)
        assert not any(w.done() for w in waiting) and not flag.is_set()
        waiting[0].cancel()
        await asyncio.sleep(0)
        flag.set()
        assert await asyncio.gather(*waiting[1:]) == [True, True] and flag.is_set()
        flag.set()  # set twice: nothing to wake
        flag.clear()
        late = asyncio.ensure_future(flag.wait())
        await asyncio.sleep(0)
        flag.set()
        assert await asyncio.wait_for(late, 1.0) is True

    asyncio.run(scenario())


def test_the_inbox_and_flag_are_a_small_part_of_asyncios_queue_and_event() -> None:
    """Each connection has one of each: asyncio's queue and event were 3.3 KB with their
    deques; these two hundred bytes or so (issue 31)."""
    import tracemalloc

    from ligretto.server.web.wsprotocol import Flag, Inbox

    def per_connection(make: Callable[[], Any]) -> float:
        tracemalloc.start()
        try:
            start = tracemalloc.get_traced_memory()[0]
            kept = [make() for _ in range(200)]
            size = (tracemalloc.get_traced_memory()[0] - start) / len(kept)
        finally:
            tracemalloc.stop()
        return size

    ours = per_connection(lambda: (Inbox(), Flag(True)))
    asyncios = per_connection(lambda: (asyncio.Queue(), asyncio.Event()))
    assert ours < 400 and asyncios > 2000, (ours, asyncios)


def _reading_app(received: list[str], scopes: list[Any] | None = None) -> Callable[..., Coroutine[Any, Any, None]]:
    """An application that accepts (its scope then kept in ``scopes``) and keeps the text of
    every message until the client goes."""

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await receive()
        await send({"type": "websocket.accept"})
        if scopes is not None:
            scopes.append(scope)
        while (message := await receive())["type"] != "websocket.disconnect":
            received.append(message.get("text") or repr(message.get("bytes")))

    return app


@pytest.mark.parametrize("size", [None, 1, 7, 64, 300])
def test_frames_that_come_with_the_handshake_are_read(size: int | None) -> None:
    """A client's frames right behind its opening request, in the same packet or cut
    anywhere (``size`` bytes at a time; ``None``: all at once), are read in order, none
    lost: the server starts its frame parser afresh after the request (to let the request
    go), so the cut must never fall inside a frame it already began to read."""
    from uvicorn.config import Config
    from uvicorn.server import ServerState
    from websockets.client import ClientProtocol
    from websockets.protocol import State
    from websockets.uri import parse_uri

    from ligretto.server.web.wsprotocol import WebSocketProtocol

    received: list[str] = []
    texts = ['{"type":"hello"}', "é" * 70, "x" * 3000, "last"]

    async def scenario() -> None:
        config = Config(app=_reading_app(received), ws_per_message_deflate=False, lifespan="off")
        server = WebSocketProtocol(config=config, server_state=ServerState(), app_state={})
        transport = MemoryTransport()
        server.connection_made(transport)
        client = ClientProtocol(parse_uri("ws://127.0.0.1:8000/ws"))
        client.send_request(client.connect())
        request = b"".join(client.data_to_send())
        # The frames as the client will send them once open (masked), behind the request.
        opened = ClientProtocol(parse_uri("ws://127.0.0.1:8000/ws"), state=State.OPEN)
        for text in texts:
            opened.send_text(text.encode())
        data = request + b"".join(opened.data_to_send())
        cuts = [data] if size is None else [data[i : i + size] for i in range(0, len(data), size)]
        for cut in cuts:
            server.data_received(cut)
            for _ in range(3):
                await asyncio.sleep(0)
        for _ in range(20):
            await asyncio.sleep(0)
        client.receive_data(transport.take())
        assert client.handshake_exc is None and client.state is State.OPEN
        assert received == texts
        server.connection_lost(None)
        for _ in range(5):
            await asyncio.sleep(0)

    asyncio.run(scenario())


def test_the_handshake_request_and_response_are_let_go_once_the_handshake_is_done() -> None:
    """websockets' request and response of the opening handshake (with all their headers)
    live no longer than the handshake: not as long as the connection (issue 31)."""
    import gc
    import weakref

    from ligretto.server.web.wsprotocol import WebSocketProtocol

    kept: dict[str, weakref.ref[Any]] = {}

    class Watched(WebSocketProtocol):
        def handle_connect(self, event: Any) -> None:
            kept["request"] = weakref.ref(event)
            super().handle_connect(event)

        async def send(self, message: Any) -> None:
            if message["type"] == "websocket.accept":
                kept["response"] = weakref.ref(self.response)
            await super().send(message)

    received: list[str] = []

    async def scenario() -> None:
        server, _transport, client = await _handshake(_reading_app(received), protocol=Watched)
        assert client.handshake_exc is None and set(kept) == {"request", "response"}
        client.send_text(b"still read")
        server.data_received(b"".join(client.data_to_send()))
        for _ in range(5):
            await asyncio.sleep(0)
        assert received == ["still read"]
        alive = [name for name, ref in kept.items() if ref() is not None]
        assert alive == [], f"kept by the open connection: {alive}"
        server.connection_lost(None)
        for _ in range(5):
            await asyncio.sleep(0)

    gc.disable()  # freed at once, not by a collection of cycles
    try:
        asyncio.run(scenario())
    finally:
        gc.enable()


def test_every_attribute_uvicorn_sets_on_a_connection_is_a_slot() -> None:
    """uvicorn's protocol sets 37 attributes per connection, more than Python keeps inline:
    as a dict they were 1.6 KB a connection (issue 31).  Through a connection's life
    (handshake, messages, keepalive, close) none lands in a dict; one a later uvicorn adds
    would, and fails here until it is named in ``WebSocketProtocol.__slots__``."""
    import sys

    received: list[str] = []

    async def scenario() -> Any:
        server, _transport, client = await _handshake(_reading_app(received))
        assert server.ping_timer is not None, "keepalive pings scheduled"
        client.send_text(b"a message")
        client.send_ping(b"1234")
        server.data_received(b"".join(client.data_to_send()))
        for _ in range(5):
            await asyncio.sleep(0)
        assert received == ["a message"]
        client.send_close(1000)
        server.data_received(b"".join(client.data_to_send()))
        server.connection_lost(None)
        for _ in range(5):
            await asyncio.sleep(0)
        return server

    server = asyncio.run(scenario())
    assert vars(server) == {}, f"in the instance dict: {sorted(vars(server))}"
    assert sys.getsizeof(server) < 500


def test_frame_end_finds_whole_frames_of_every_length_and_waits_for_the_rest() -> None:
    from websockets.frames import Frame, Opcode

    from ligretto.server.web.wsprotocol import OVER_LIMIT, frame_end, text_of

    for size in (0, 5, 125, 126, 200, 65_535, 65_536, 70_000):
        frame = Frame(Opcode.TEXT, b"\xc3\xa9" * (size // 2) + b"x" * (size % 2)).serialize(mask=True)
        after = frame + b"\x81\x80more"
        assert frame_end(bytearray(after), 1 << 20) == len(frame), size
        assert text_of(frame) == "é" * (size // 2) + "x" * (size % 2)
        for cut in {1, 2, 3, 4, 9, len(frame) - 1}:
            if cut < len(frame):
                assert frame_end(bytearray(frame[:cut]), 1 << 20) == 0, (size, cut)
        if size > 125:  # over the limit, said at its header: the parser refuses it (1009)
            assert frame_end(bytearray(frame[:12]), size - 1) == OVER_LIMIT
    assert text_of(Frame(Opcode.TEXT, b"x").serialize(mask=False)) is None, "a client's frame is masked"
    assert text_of(Frame(Opcode.TEXT, b"x", fin=False).serialize(mask=True)) is None, "a fragment"
    assert text_of(Frame(Opcode.BINARY, b"x").serialize(mask=True)) is None
    assert text_of(Frame(Opcode.TEXT, b"\xff").serialize(mask=True)) is None, "not UTF-8"


def test_a_seated_connections_messages_skip_the_parser_and_the_rest_still_goes_through_it() -> None:
    """An ordinary message of a connection with a reader is read without websockets' parser,
    however its bytes are cut; a ping and a fragmented message go through the parser, and
    every message is read in the order it came (the ping answered); bad UTF-8 is refused by
    the parser as before (1007)."""
    from websockets.frames import Frame, Opcode

    from ligretto.server.web.wsprotocol import FRAMES

    scopes: list[Any] = []
    received: list[str] = []
    app = _reading_app(received, scopes)

    async def scenario() -> None:
        server, transport, client = await _handshake(app)
        taken: list[str] = []
        scopes[0]["extensions"][FRAMES].read_with(lambda text: taken.append(text) is None)
        parsed: list[bytes] = []
        conn = server.conn
        parse = conn.receive_data
        conn.receive_data = lambda data: parsed.append(data) or parse(data)

        texts = ["a", "é" * 100, '{"type":"act"}']
        for text in texts:
            client.send_text(text.encode())
        data = b"".join(client.data_to_send())
        for i in range(len(data)):  # a byte at a time
            server.data_received(data[i : i + 1])
        assert taken == texts and parsed == [], "read whole, without the parser"

        client.send_text(b"b")
        client.send_ping(b"p")
        client.send_text(b"frag", fin=False)
        client.send_continuation(b"mented", fin=True)
        client.send_text(b"c")
        server.data_received(b"".join(client.data_to_send()))
        assert taken[3:] == ["b", "fragmented", "c"], "in order, the fragments read by the parser"
        assert parsed, "the ping and the fragments went through it"
        client.receive_data(transport.take())
        assert any(isinstance(e, Frame) and e.opcode is Opcode.PONG for e in client.events_received())
        assert received == [], "nothing declined: nothing for receive"

        server.data_received(Frame(Opcode.TEXT, b"\xff\xfe").serialize(mask=True))
        assert await _close_code(server, transport, client) == 1007

    asyncio.run(scenario())


async def _close_code(server: Any, transport: MemoryTransport, client: Any) -> int | None:
    """The code of the close frame the server has sent the client (``None``: none); then the
    connection is lost."""
    from websockets.frames import Close, Frame, Opcode

    client.receive_data(transport.take())
    closes = [e for e in client.events_received() if isinstance(e, Frame) and e.opcode is Opcode.CLOSE]
    server.connection_lost(None)
    for _ in range(5):
        await asyncio.sleep(0)
    return Close.parse(closes[0].data).code if closes else None


@pytest.mark.parametrize("piece", [500, 2000, 100_000])
def test_a_frame_over_the_size_limit_is_never_read_as_a_message(piece: int) -> None:
    """A seated connection's text frame over ``ws_max_size``, arriving whole or in pieces:
    no part of it reaches the reader (or ``receive``); the parser refuses it at its header
    and closes the connection 1009 (message too big), as for any connection."""
    from websockets.frames import Frame, Opcode

    from ligretto.server.web.wsprotocol import FRAMES

    scopes: list[Any] = []
    received: list[str] = []
    app = _reading_app(received, scopes)

    async def scenario() -> None:
        server, transport, client = await _handshake(app, ws_max_size=1000)
        taken: list[str] = []
        scopes[0]["extensions"][FRAMES].read_with(lambda text: taken.append(text) is None)
        data = Frame(Opcode.TEXT, b"x" * 3000).serialize(mask=True)
        for start in range(0, len(data), piece):
            server.data_received(data[start : start + piece])
        for _ in range(5):
            await asyncio.sleep(0)
        assert taken == [] and received == []
        assert await _close_code(server, transport, client) == 1009

    asyncio.run(scenario())
