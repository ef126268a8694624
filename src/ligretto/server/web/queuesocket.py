"""``/ws/queue``: one client waiting in the matchmaking queue (``matchmaker.py``).

The socket has a receiving task (``queue``, ``unqueue``, ``ping`` answered ``pong``, within
``/ws``'s rate limit) and a sending task (what the matchmaker hands its ticket: ``queued``
while it waits, ``seated`` once its table is dealt) in one task group.  A socket that
closes, floods or stays silent for ``silence_s`` leaves the queue at once; after
``seated`` the ticket is done, and the client may queue again on the same socket."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from starlette.websockets import WebSocket, WebSocketDisconnect

from ligretto import protocol
from ligretto.protocol import SILENT, ProtocolError
from ligretto.server.ops import metrics
from ligretto.server.web.admission import RateLimit
from ligretto.server.web.lobby import Lobby
from ligretto.server.web.matchmaker import Matchmaker
from ligretto.server.web.sockets import FLOODED, admitted

log = logging.getLogger("ligretto.server")


async def queue_endpoint(websocket: WebSocket) -> None:
    """``/ws/queue``: wait for a table with people."""
    await admitted(websocket, _wait)


class _Waiter:
    """One ``/ws/queue`` socket: its ticket (while it waits) and its texts on their way out."""

    def __init__(self, maker: Matchmaker) -> None:
        self.maker = maker
        self.ticket: str | None = None
        self.out: asyncio.Queue[str] = asyncio.Queue()

    def deliver(self, text: str, last: bool = False) -> None:
        """A text for the client; ``last``: its seats (the ticket is done)."""
        if last:
            self.ticket = None
        self.out.put_nowait(text)

    def error(self, code: str, text: str) -> None:
        metrics.BAD_MESSAGES.labels(code).inc()
        self.out.put_nowait(protocol.wire(protocol.error_message(code, text)))

    async def handle(self, raw: str) -> None:
        try:
            message = protocol.decode_queue(raw)
            if isinstance(message, protocol.Ping):  # a keepalive, and a barrier: answered in order
                self.out.put_nowait(protocol.wire(protocol.pong_message(message.t, time.time())))
                return
            if isinstance(message, protocol.Unqueue):
                await self.leave()
                return
            if self.ticket is not None:
                raise ProtocolError("already_queued", "this connection waits in the queue already")
            ticket = self.maker.ticket(message)
        except ProtocolError as error:
            self.error(error.code, error.message)
            return
        self.ticket = ticket.id
        await self.maker.join(ticket, self.deliver)

    async def leave(self) -> None:
        if self.ticket is not None:
            ticket, self.ticket = self.ticket, None
            await self.maker.leave(ticket)


async def _wait(lobby: Lobby, websocket: WebSocket) -> None:
    waiter = _Waiter(websocket.app.state.matchmaker)
    settings = lobby.settings
    rate = RateLimit(settings.rate_per_s, settings.burst)
    try:
        async with asyncio.TaskGroup() as group:
            sending = group.create_task(_send(websocket, waiter))
            await _receive(websocket, waiter, rate, settings.silence_s)
            sending.cancel()
    except* (WebSocketDisconnect, RuntimeError, OSError):
        pass
    finally:
        await waiter.leave()


async def _receive(websocket: WebSocket, waiter: _Waiter, rate: RateLimit, silence_s: float) -> None:
    """Read the client's messages until it closes, floods or stays silent."""
    while True:
        try:
            message = await asyncio.wait_for(websocket.receive(), silence_s if silence_s else None)
        except TimeoutError:
            with contextlib.suppress(Exception):
                await websocket.close(code=SILENT, reason="silent")
            return
        if message["type"] == "websocket.disconnect":
            return
        if not rate.allow():
            waiter.error("rate_limited", FLOODED)
            await asyncio.sleep(0.05)  # the error goes out before the close
            with contextlib.suppress(Exception):
                await websocket.close(code=1008)
            return
        raw = message.get("text")
        if raw is None:
            raw = (message.get("bytes") or b"").decode("utf-8", "replace")
        await waiter.handle(raw)


async def _send(websocket: WebSocket, waiter: _Waiter) -> None:
    while True:
        text = await waiter.out.get()
        await websocket.send_text(text)
