"""One WebSocket for a load client, on a raw asyncio transport: websockets' sans-I/O
``ClientProtocol`` does the handshake and the framing, and each text message is handed to
the client's callback in the turn its bytes arrive.

A load test plays thousands of clients from one core, and what its clients spend on
themselves is inside the latencies they measure.  websockets' asyncio client reads through
a task per connection, a message queue and a ``recv()`` per message, and writes through a
context manager per message; here a message costs the parser and one call, as the server's
seated reader does (``server/web/wsprotocol.py``).  Pings are answered and closing
handshakes completed by the protocol itself: every batch of received data is followed by
whatever it has to send.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import cast

from websockets.client import ClientProtocol
from websockets.exceptions import ConnectionClosed, InvalidState
from websockets.extensions.permessage_deflate import enable_client_permessage_deflate
from websockets.frames import Frame, Opcode
from websockets.http11 import Response
from websockets.protocol import State
from websockets.uri import parse_uri

Text = bytes | bytearray | memoryview
"""A text message's UTF-8 bytes as websockets' frames hold them (msgspec reads each kind)."""
OnText = Callable[[Text], None]
"""Called with each text message, as it is read."""
OnClose = Callable[[ConnectionClosed], None]
"""Called once when an open connection is closed, whichever side closed it."""


class Wire(asyncio.Protocol):
    """A client WebSocket: :meth:`open` it, :meth:`send` text, :meth:`close` it."""

    def __init__(self, uri: str, on_text: OnText, on_close: OnClose, *, compression: bool, max_size: int) -> None:
        extensions = enable_client_permessage_deflate(None) if compression else None
        self.protocol = ClientProtocol(parse_uri(uri), extensions=extensions, max_size=max_size)
        self.on_text = on_text
        self.on_close = on_close
        self.transport: asyncio.Transport | None = None
        self.opened: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.lost: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.fragments: list[Text] = []
        """The parts of a fragmented text message so far (servers seldom fragment)."""

    @classmethod
    async def open(
        cls, uri: str, on_text: OnText, on_close: OnClose, *, timeout: float, compression: bool, max_size: int
    ) -> Wire:
        """Connect and complete the opening handshake within ``timeout`` seconds; raises
        ``OSError``, ``TimeoutError`` or websockets' handshake errors."""
        wire = cls(uri, on_text, on_close, compression=compression, max_size=max_size)
        target = wire.protocol.uri
        loop = asyncio.get_running_loop()
        async with asyncio.timeout(timeout):
            await loop.create_connection(lambda: wire, target.host, target.port)
            try:
                await asyncio.shield(wire.opened)
            except BaseException:
                wire.abort()
                raise
        return wire

    # --- asyncio.Protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast("asyncio.Transport", transport)  # (uvloop's are not subclasses)
        self.protocol.send_request(self.protocol.connect())
        self._flush()

    def data_received(self, data: bytes) -> None:
        self.protocol.receive_data(data)
        self._read()

    def eof_received(self) -> bool | None:
        self.protocol.receive_eof()  # (a refusal's body may end only here)
        self._read()
        return None  # the transport closes itself

    def _read(self) -> None:
        """Hand over what the protocol has parsed, then send what it has to answer."""
        for event in self.protocol.events_received():
            if isinstance(event, Frame):
                self._frame(event)
            elif isinstance(event, Response):
                self._handshake()
        self._flush()

    def connection_lost(self, exc: Exception | None) -> None:
        protocol = self.protocol
        if protocol.state is not State.CLOSED:
            protocol.receive_eof()  # a connection lost without a closing handshake: 1006
            self._read()
        self.lost.set_result(None)
        if self.opened.done():
            self.on_close(protocol.close_exc)
        else:
            self._failed(ConnectionError(f"connection lost during the opening handshake: {exc}"))

    # --- messages

    def _handshake(self) -> None:
        if self.opened.done():
            return
        failure = self.protocol.handshake_exc
        if failure is None:
            self.opened.set_result(None)
        else:
            self._failed(failure)

    def _failed(self, failure: BaseException) -> None:
        """The opening handshake failed: :meth:`open` raises it, if it still waits."""
        self.opened.set_exception(failure)
        self.opened.exception()  # retrieved: an open() already given up on does not log it

    def _frame(self, frame: Frame) -> None:
        opcode = frame.opcode
        if opcode is Opcode.TEXT:
            if frame.fin:
                self.on_text(frame.data)
            else:
                self.fragments = [frame.data]
        elif opcode is Opcode.CONT and self.fragments:
            self.fragments.append(frame.data)
            if frame.fin:
                data, self.fragments = b"".join(self.fragments), []
                self.on_text(data)

    def send(self, text: bytes) -> None:
        """Send one text message (UTF-8 bytes); ``ConnectionClosed`` once closing."""
        try:
            self.protocol.send_text(text)
        except InvalidState:
            raise self.protocol.close_exc from None
        self._flush()

    def _flush(self) -> None:
        transport = self.transport
        if transport is None or transport.is_closing():
            return
        for data in self.protocol.data_to_send():
            if data:
                transport.write(data)
            elif transport.can_write_eof():
                transport.write_eof()
        if self.protocol.close_expected() and self.protocol.state is State.CLOSED:
            transport.close()

    async def close(self, timeout: float = 2.0) -> None:
        """The closing handshake (code 1000), then the TCP connection; aborted after ``timeout``."""
        if self.protocol.state is State.OPEN:
            self.protocol.send_close(1000)
            self._flush()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                await asyncio.shield(self.lost)
        self.abort()

    def abort(self) -> None:
        if self.transport is not None and not self.lost.done():
            self.transport.abort()
