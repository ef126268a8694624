"""The server's WebSocket protocol: uvicorn's own (websockets' sans-I/O one), except that
it never parses more of a client's bytes at once than the application is about to read,
and reads a closed connection no further than its close frame needs.

uvicorn parses all it reads in one go: a client that floods hands it up to a few hundred
KiB at a time, thousands of small frames, each parsed and queued while every other table
waits; and once the server has closed a connection (the rate limit: code 1008) uvicorn
reads on for up to 10 s, parsing and dropping whatever comes before the client's own
close frame.  Here what arrives waits as bytes and is parsed :data:`FEED_BYTES` at a time,
the next piece only once the application has taken the messages of the last one; after
the server's close a client has :data:`AFTER_CLOSE_BYTES` left for its close frame, past
that its connection is closed at once (what was sent to it still goes out first).
docs/reliability.md has the figures.

And one way out below the ASGI layers: a message every listener of a table receives is
framed once (:func:`text_frame`), and each connection writes its frames of a loop's turn
in one go with :meth:`WebSocketProtocol.write_frame` (the scope's ``ligretto.frames``
extension), not through Starlette's, the middleware's and uvicorn's sends and the
``websockets`` framing for each message and listener: 9 % less CPU per action at 1,000
tables (docs/benchmarks.md, issue 31).  Whenever the socket cannot take the frames at once
(paused for a slow reader, closing, closed) the connection sends through ASGI instead,
which waits or raises as before.

And one way in: a connection that has joined its table hands the protocol a *reader*
(:meth:`WebSocketProtocol.read_with`, the same extension's ``read``), called with each text
message as soon as it is parsed.  The message is handled there and then, instead of
travelling up through uvicorn's queue, uvicorn's, the middleware's and Starlette's
``receive`` for each message: that chain of coroutines, rebuilt for every message, was a
third of the server's CPU and most of what its young collections scanned (issue 31).  The
reader may decline a message (``False``: it needs the connection's own loop, say to wait
or to close): the message is then queued as uvicorn queues it, and the reader is dropped;
whenever the application takes a message from the queue the reader is dropped too, until
the application has handled it and sets its reader again.  So messages are handled in the
order they came.

Below the parser too: once the request is read, the bytes are fed a whole frame at a time
(:func:`frame_end`), and a seated connection's ordinary message (final, text, masked, no
extension bits, UTF-8: :func:`text_of`) goes to its reader without websockets' parser, whose
generator and ``Frame`` per message were 5 % of the CPU at 1,000 tables (issue 31); every
other frame (pings, closes, fragments, anything malformed) is the parser's, which answers it
as before.

One fix more: a connection refused before the upgrade (``server/web/admission.py``: 429 or
503) is a handshake done, not "ASGI callable returned without completing handshake"
logged at ERROR for each (Kludex/uvicorn pull request 3138, open).

And less memory per connection (issue 31, docs/benchmarks.md): uvicorn's ``asyncio.Queue``
of received events and its ``writable`` ``asyncio.Event`` are an :class:`Inbox` and a
:class:`Flag`, which make no deque; and the opening handshake's request and response
(``websockets``' objects, with their headers) are let go once the handshake is done,
instead of living as long as the connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import typing
from collections.abc import Callable
from typing import Any, Literal

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.frames import Frame, Opcode
from websockets.protocol import Protocol, State

try:
    from websockets.speedups import apply_mask  # websockets' C one, as its own frames use
except ImportError:  # pragma: no cover (a build without it)
    from websockets.utils import apply_mask

FEED_BYTES = 4096
"""Bytes parsed at once: one client message at its largest (``protocol.MAX_MESSAGE_BYTES``)."""
AFTER_CLOSE_BYTES = 64 * 1024
"""What a client may still send once the server has closed its connection."""
FRAMES = "ligretto.frames"
"""The scope extension (the connection's :class:`WebSocketProtocol`, as :class:`Frames`)
through which a connection writes ready-made frames, reads messages as they are parsed
and from its own ``receive``, and turns uvicorn's keepalive pings off; absent under any
other server (tests in process)."""

Reader = Callable[[str], bool]
"""Handles one text message now (``True``), or declines it (``False``): it is queued for the
connection's ``receive`` and the reader is dropped (:meth:`WebSocketProtocol.read_with`)."""


class Frames(typing.Protocol):
    """What the scope's :data:`FRAMES` offers the application below ASGI: the protocol
    itself, no object more per connection (a dict of three bound methods was 0.25 KiB)."""

    def write_frame(self, frame: bytes) -> bool: ...

    def read_with(self, reader: Reader | None) -> None: ...

    def no_pings(self) -> None: ...

    async def receive(self) -> Any:
        """The ASGI ``receive`` itself: one coroutine suspended while the application
        waits, not Starlette's ``WebSocket.receive`` over it (whose states the caller
        keeps: it stops at the disconnect)."""


OVER_LIMIT = -1
"""What :func:`frame_end` says of a frame whose header announces more than the limit."""


def frame_end(data: bytearray, limit: int) -> int:
    """The size of the first frame in ``data``, or 0 while it is not all there;
    :data:`OVER_LIMIT` for a frame whose header announces more than ``limit`` bytes (the
    parser refuses it at its header: 1009)."""
    size = len(data)
    if size < 2:
        return 0
    length, end = data[1] & 0x7F, 2
    if length == 126:
        if size < 4:
            return 0
        length, end = int.from_bytes(data[2:4], "big"), 4
    elif length == 127:
        if size < 10:
            return 0
        length, end = int.from_bytes(data[2:10], "big"), 10
    if length > limit:
        return OVER_LIMIT
    end += length + (4 if data[1] & 0x80 else 0)  # (a client's frames carry a mask)
    return end if size >= end else 0


def text_of(frame: bytes) -> str | None:
    """The text of ``frame`` (one whole frame, as :func:`frame_end` cuts them) if it is a
    client's ordinary message: final, text, no extension bits, masked, UTF-8; else ``None``
    (control frames, fragments, a missing mask, bad UTF-8: the parser reads those, and
    answers what is wrong with them)."""
    if frame[0] != 0x81 or not frame[1] & 0x80:
        return None
    length = frame[1] & 0x7F
    start = 2 if length < 126 else 4 if length == 126 else 10
    try:
        return apply_mask(frame[start + 4 :], frame[start : start + 4]).decode()
    except UnicodeDecodeError:
        return None


class _Framer:
    """Frames a text; the listeners of a table get the same text one after another
    (``protocol.Broadcast``), so the last text's frame is kept and it is framed once."""

    __slots__ = ("_frame", "_text")

    def __init__(self) -> None:
        self._text = ""
        self._frame = b""

    def __call__(self, text: str) -> bytes:
        if text is not self._text:
            self._frame = Frame(Opcode.TEXT, text.encode()).serialize(mask=False)
            self._text = text
        return self._frame


text_frame = _Framer()
"""``text`` as one unmasked text frame, as a server sends it (no extension: the server runs
without permessage-deflate)."""


class Inbox:
    """A connection's received events on their way to its application: what uvicorn uses of
    its ``asyncio.Queue`` (``put_nowait``, ``get``, ``empty``) for the one reader there is,
    on a list; the reader's future is made only while it waits.  An ``asyncio.Queue`` is
    four deques (its items, its getters, its putters, its ``join`` event's waiters): 3.3 KB
    a connection."""

    __slots__ = ("_getter", "_items")

    def __init__(self) -> None:
        self._items: list[Any] = []
        self._getter: asyncio.Future[None] | None = None

    def put_nowait(self, item: Any) -> None:
        self._items.append(item)
        getter, self._getter = self._getter, None
        if getter is not None and not getter.done():
            getter.set_result(None)

    def empty(self) -> bool:
        return not self._items

    def arrival(self) -> asyncio.Future[None]:
        """What to wait for while the inbox is empty: done when an event comes (one reader
        at a time: a second is an error)."""
        if self._getter is not None and not self._getter.done():
            raise RuntimeError("a connection's events have one reader at a time")
        self._getter = asyncio.get_running_loop().create_future()
        return self._getter

    def take(self) -> Any:
        """The first event (there is one)."""
        # A few events at most wait here: uvicorn stops reading the socket while any does.
        return self._items.pop(0)

    async def get(self) -> Any:
        """The first event, once there is one."""
        while not self._items:
            await self.arrival()
        return self.take()


class Flag:
    """Whether the socket takes writes now: what uvicorn uses of its ``writable``
    ``asyncio.Event`` (``set``, ``clear``, ``is_set``, ``wait``), whose waiters' list is
    made only while a sender waits (the event's is a deque, made for every connection)."""

    __slots__ = ("_value", "_waiters")

    def __init__(self, value: bool) -> None:
        self._value = value
        self._waiters: list[asyncio.Future[None]] | None = None

    def is_set(self) -> bool:
        return self._value

    def set(self) -> None:
        if self._value:
            return
        self._value = True
        for waiter in self._waiters or ():
            if not waiter.done():
                waiter.set_result(None)

    def clear(self) -> None:
        self._value = False

    async def wait(self) -> Literal[True]:
        if self._value:
            return True
        waiter = asyncio.get_running_loop().create_future()
        waiters = self._waiters = self._waiters or []
        waiters.append(waiter)
        try:
            await waiter
            return True
        finally:
            waiters.remove(waiter)
            if not waiters:
                self._waiters = None


class WebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol, parsing a client's bytes only as the application
    reads them (``uvicorn.run(ws=WebSocketProtocol)``)."""

    # uvicorn's protocol sets 37 attributes on each connection, more than the 30 Python 3.11
    # keeps inline in an object: each connection had a dict of its own, 1.6 KB.  Named here
    # they are slots, 8 bytes each (issue 31).  One that a later uvicorn adds goes to the
    # dict as before (tests/server/web/test_server_wsprotocol.py says which).
    __slots__ = (
        # uvicorn's, in the order its __init__ and handle_connect set them
        "config",
        "app",
        "loop",
        "logger",
        "root_path",
        "asgi_version",
        "app_state",
        "connections",
        "tasks",
        "default_headers",
        "transport",
        "server",
        "client",
        "scheme",
        "queue",
        "handshake_initiated",
        "handshake_complete",
        "close_sent",
        "disconnected",
        "close_timer",
        "close_timeout",
        "initial_response",
        "conn",
        "read_paused",
        "writable",
        "ping_interval",
        "ping_timeout",
        "ping_timer",
        "pong_timer",
        "pending_ping_payload",
        "ping_sent_at",
        "last_ping_rtt",
        "frames",
        "curr_msg_data_type",
        "request",
        "response",
        "scope",
        # ours
        "after_close",
        "inbox",
        "reader",
        "unparsed",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # uvicorn calls only these methods of the two (tests/server/web/test_server_wsprotocol.py
        # reads its source to hold it to that).
        self.inbox = Inbox()
        self.queue = self.inbox  # type: ignore[assignment]
        self.writable = Flag(True)  # type: ignore[assignment]
        self.unparsed = bytearray()
        """Bytes received and not parsed yet (in order, before anything received later)."""
        self.after_close = 0
        self.reader: Reader | None = None

    def handle_connect(self, event: Any) -> None:
        super().handle_connect(event)
        # The request is read (the scope has what the application needs of it): uvicorn
        # keeps it, and so does websockets' parser, as a variable of the generator that
        # read it and then parses frames for the rest of the connection.  That generator is
        # started afresh, as a frame parser alone, here where it is between the two: the
        # request was fed to it a line at a time (:meth:`_feed`), so its last line ended
        # what it was given, and nothing of a frame can have been read yet.
        del self.request
        conn = self.conn
        if not self.close_sent and conn.handshake_exc is None and not conn.reader.buffer:
            conn.parser = Protocol.parse(conn)
            next(conn.parser)
        if not self.close_sent and not self.config.ws_per_message_deflate:
            self.scope["extensions"][FRAMES] = self  # type: ignore[assignment]  # (ASGI says a dict)

    def no_pings(self) -> None:
        """Send this connection no keepalive pings (before it is accepted, which starts
        them): the application closes it itself when its client falls silent."""
        self.ping_interval = None

    def read_with(self, reader: Reader | None) -> None:
        """Hand each text message to ``reader`` as soon as it is parsed, until it declines one
        or the application takes one from ``receive`` (``None``: queue them all for ``receive``
        again).  While messages wait in the queue, later ones queue behind them."""
        self.reader = reader

    def send_receive_event_to_app(self) -> None:
        reader = self.reader
        if reader is not None and self.curr_msg_data_type == "text" and not self.close_sent and self.queue.empty():
            data = self.frames[0] if len(self.frames) == 1 else b"".join(self.frames)
            try:
                text = data.decode()
            except UnicodeDecodeError:
                text = None  # uvicorn's own path closes the connection (1007)
            if text is not None and reader(text):
                self.frames = []
                return
            self.reader = None
        super().send_receive_event_to_app()

    def write_frame(self, frame: bytes) -> bool:
        """Write frames of :func:`text_frame` (one, or several joined) now; ``False`` if the
        socket cannot take them at once (not open yet or any more, or paused because the
        client is slow to read): the caller then sends through ASGI, which waits or raises."""
        if (
            self.close_sent
            or self.disconnected
            or self.initial_response is not None
            or not self.handshake_complete
            or not self.writable.is_set()
            or self.conn.state is not State.OPEN
        ):
            return False
        self.transport.write(frame)
        return True

    def data_received(self, data: bytes) -> None:
        if self.close_sent:
            self.after_close += len(data)
            if self.after_close + len(self.unparsed) > AFTER_CLOSE_BYTES:
                self.unparsed.clear()
                self.transport.close()  # no more reading; what is queued to send is flushed
                return
        self.unparsed += data
        self._feed()

    def _feed(self) -> None:
        """Parse the bytes waiting, a piece at a time, until a piece gave the application
        a message to read (uvicorn then pauses reading until it has read them all).  Once
        the request is read, a piece is a whole frame (a frame not all there yet waits for
        the rest), so the parser is never left inside one: a seated connection's ordinary
        message is read here (:meth:`_read_now`), any other frame by the parser."""
        while self.unparsed and not self.read_paused:
            if self.transport.is_closing():
                self.unparsed.clear()
                return
            if self.handshake_initiated and not self.close_sent:
                limit = self.config.ws_max_size
                end = frame_end(self.unparsed, limit)
                if not end:
                    return
                over = end == OVER_LIMIT
                if over:
                    end = len(self.unparsed)  # what has come of it: the parser refuses it (1009)
                frame = bytes(self.unparsed[:end])
                del self.unparsed[:end]
                # (A frame of the limit's size is the parser's too.)
                if over or len(frame) > limit or not self._read_now(frame):
                    super().data_received(frame)
                continue
            size = FEED_BYTES
            if not self.handshake_initiated:
                # The opening handshake's request a line at a time: frames sent right
                # behind it wait until it is read (:meth:`handle_connect`).
                end = self.unparsed.find(b"\n", 0, FEED_BYTES)
                if end >= 0:
                    size = end + 1
            piece = bytes(self.unparsed[:size])
            del self.unparsed[:size]
            super().data_received(piece)

    def _read_now(self, frame: bytes) -> bool:
        """Hand ``frame`` to the reader if it is an ordinary text message (whole, masked, no
        extension bits, UTF-8) and nothing is ahead of it: no fragments, nothing queued for
        the application.  ``False``: the parser is to read it (the reader, if it declined,
        is dropped, and the message goes to the queue as any other)."""
        reader = self.reader
        if reader is None or self.frames or not self.handshake_complete or not self.queue.empty():
            return False
        text = text_of(frame)
        if text is None:
            return False
        if reader(text):
            return True
        self.reader = None
        return False

    async def receive(self) -> Any:
        # uvicorn's, with the inbox's wait in it: one coroutine suspended for as long as
        # the application waits (uvicorn's and the inbox's were two more, 0.4 KiB).
        inbox = self.inbox
        while inbox.empty():
            await inbox.arrival()
        message = inbox.take()
        if self.read_paused and inbox.empty():
            self.read_paused = False
            self.transport.resume_reading()
        # The application has a message in hand: nothing goes to a reader before it has
        # handled it (and set its reader again).
        self.reader = None
        if self.unparsed and not self.read_paused:
            self._feed()  # the application has read everything parsed: the next piece
        return message

    async def send(self, message: Any) -> None:
        await super().send(message)
        if message["type"] == "websocket.accept" and self.handshake_complete:
            with contextlib.suppress(AttributeError):
                del self.response  # sent: uvicorn reads it no more
        if message["type"] == "websocket.http.response.body" and not message.get("more_body", False):
            self.handshake_complete = True  # a refusal before the upgrade: the handshake is done
        if self.close_sent and self.unparsed:
            # The client's close frame may wait among the bytes not parsed yet.
            self.data_received(b"")
