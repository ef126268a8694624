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

One fix more: a connection refused before the upgrade (``server/web/admission.py``: 429 or
503) is a handshake done, not "ASGI callable returned without completing handshake"
logged at ERROR for each (Kludex/uvicorn pull request 3138, open).
"""

from __future__ import annotations

from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

FEED_BYTES = 4096
"""Bytes parsed at once: one client message at its largest (``protocol.MAX_MESSAGE_BYTES``)."""
AFTER_CLOSE_BYTES = 64 * 1024
"""What a client may still send once the server has closed its connection."""


class WebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol, parsing a client's bytes only as the application
    reads them (``uvicorn.run(ws=WebSocketProtocol)``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.unparsed = bytearray()
        """Bytes received and not parsed yet (in order, before anything received later)."""
        self.after_close = 0

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
        a message to read (uvicorn then pauses reading until it has read them all)."""
        while self.unparsed and not self.read_paused:
            if self.transport.is_closing():
                self.unparsed.clear()
                return
            piece = bytes(self.unparsed[:FEED_BYTES])
            del self.unparsed[:FEED_BYTES]
            super().data_received(piece)

    async def receive(self) -> Any:
        message = await super().receive()
        if self.unparsed and not self.read_paused:
            self._feed()  # the application has read everything parsed: the next piece
        return message

    async def send(self, message: Any) -> None:
        await super().send(message)
        if message["type"] == "websocket.http.response.body" and not message.get("more_body", False):
            self.handshake_complete = True  # a refusal before the upgrade: the handshake is done
        if self.close_sent and self.unparsed:
            # The client's close frame may wait among the bytes not parsed yet.
            self.data_received(b"")
