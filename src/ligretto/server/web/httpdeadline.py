"""Deadlines for HTTP requests, which uvicorn does not have: its keep-alive timeout runs
only between requests, so a client that opens a connection and sends half a header (or
half a body) holds it for ever.  :func:`deadline_protocol` is uvicorn's httptools
protocol with two more limits (docs/protocol.md, Limits):

- a request must arrive whole (request line, headers and body) within ``timeout_s`` of
  the connection opening or of the previous response, else the connection is closed;
  while the application answers a whole request, no deadline runs;
- a request line and headers of more than ``max_header_bytes`` are answered 400 (the
  parser alone would keep every header it is sent).

A WebSocket upgrade ends the deadline: from then on the socket's own limits apply.
The WebSocket side (a refusal before the upgrade, parsing as the application reads) is
``server/web/wsprotocol.py``."""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol


class HeaderTooLarge(Exception):
    """Raised from a parser callback: the parser turns it into a 400 answer."""


class RequestDeadlineProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with a deadline per request and a header size cap
    (class attributes, set by :func:`deadline_protocol`; 0 turns one off)."""

    timeout_s: float = 10.0
    max_header_bytes: int = 16 * 1024

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline: asyncio.TimerHandle | None = None
        self._header_bytes = 0

    # --- the deadline --------------------------------------------------------------------

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm()

    def handle_websocket_upgrade(self) -> None:
        self._disarm()
        super().handle_websocket_upgrade()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        if self.timeout_s > 0 and not self.transport.is_closing():
            self._deadline = self.loop.call_later(self.timeout_s, self._expired)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expired(self) -> None:
        self._deadline = None
        if self.transport.is_closing() or self.transport.get_protocol() is not self:
            return  # closed already, or a WebSocket now
        cycle = self.cycle
        if cycle is not None and not cycle.response_complete and not cycle.more_body:
            return  # a whole request is being answered: its response arms the next deadline
        self.transport.close()

    # --- the header cap ------------------------------------------------------------------

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._header_bytes = 0

    def on_url(self, url: bytes) -> None:
        self._count(len(url))
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._count(len(name) + len(value))
        super().on_header(name, value)

    def _count(self, size: int) -> None:
        self._header_bytes += size
        if self.max_header_bytes and self._header_bytes > self.max_header_bytes:
            raise HeaderTooLarge(f"request line and headers over {self.max_header_bytes} bytes")


def deadline_protocol(timeout_s: float, max_header_bytes: int) -> type[RequestDeadlineProtocol]:
    """The protocol class to give uvicorn (``http=``), with these limits."""

    class Configured(RequestDeadlineProtocol):
        pass

    Configured.timeout_s = timeout_s
    Configured.max_header_bytes = max_header_bytes
    return Configured
