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
import secrets
import time

from starlette.websockets import WebSocket, WebSocketDisconnect

from ligretto import protocol
from ligretto.protocol import SILENT, ProtocolError
from ligretto.server.cluster.queue import Queue
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
    """One ``/ws/queue`` socket: its holder id, its ticket (while it waits), its party (if
    it made or joined one) and its texts on their way out."""

    def __init__(self, maker: Matchmaker) -> None:
        self.maker = maker
        self.id = secrets.token_urlsafe(12)
        """This socket's holder id in the queue (its ticket's id too)."""
        self.ticket: str | None = None
        self.party: str | None = None
        self.made = False
        """It made its party (and queues it)."""
        self.out: asyncio.Queue[str] = asyncio.Queue()

    @property
    def queue(self) -> Queue:
        return self.maker.queue

    def deliver(self, text: str, last: bool = False) -> None:
        """A text for the client; ``last``: its seat (its ticket and party are done)."""
        if last:
            self.ticket = self.party = None
            self.made = False
        self.out.put_nowait(text)

    def error(self, code: str, text: str) -> None:
        metrics.BAD_MESSAGES.labels(code).inc()
        self.out.put_nowait(protocol.wire(protocol.error_message(code, text)))

    async def handle(self, raw: str) -> None:
        try:
            message = protocol.decode_queue(raw)
            if isinstance(message, protocol.Ping):  # a keepalive, and a barrier: answered in order
                self.out.put_nowait(protocol.wire(protocol.pong_message(message.t, time.time())))
            elif isinstance(message, protocol.Unqueue):
                await self.leave()
            elif await self.busy():
                raise ProtocolError("already_queued", "this connection waits in the queue (or a party) already")
            elif isinstance(message, protocol.Queue):
                await self.join(message)
            elif self.party is not None:
                raise ProtocolError("already_queued", "this connection has a party already")
            else:
                await self.join_party(message)
        except ProtocolError as error:
            self.error(error.code, error.message)

    async def busy(self) -> bool:
        """Waiting already: in the queue, or in a friend's party (which its maker queues)."""
        if self.party is not None and not self.made:
            members = await self.queue.party_members(self.party)
            if self.id not in [m.holder for m in members]:  # its maker left: the party is no more
                self.party = None
                self.queue.release(self.id)
        return self.ticket is not None or (self.party is not None and not self.made)

    async def join(self, message: protocol.Queue) -> None:
        """Queue this socket's person, or (its maker's) its whole party."""
        party = None
        if self.party is not None:
            party = (self.party, await self.queue.party_members(self.party))
        ticket = self.maker.ticket(message, self.id, party)
        self.ticket = ticket.id
        await self.maker.join(ticket, self.deliver)

    async def join_party(self, message: protocol.PartyMake | protocol.PartyJoin) -> None:
        """Make a party, or join one by its code (not once it is queued)."""
        member = self.maker.member(self.id, message.v, message.name, message.profile)
        making = isinstance(message, protocol.PartyMake)
        code = message.code if isinstance(message, protocol.PartyJoin) else secrets.token_urlsafe(6)
        if not making and await self.queue.party_queued(code):
            raise ProtocolError("no_party", "that party is in the queue already: ask for a new one")
        if not making and len(await self.queue.party_members(code)) >= protocol.PARTY_MAX:
            raise ProtocolError("party_full", f"that party has {protocol.PARTY_MAX} people, the most a table seats")
        self.queue.hold(self.id, self.deliver)
        members = await self.queue.party_join(code, member, make=making)
        if members is None:
            self.queue.release(self.id)
            raise ProtocolError("no_party", "there is no party with that code")
        self.party, self.made = code, making
        await self.maker.tell_party(code, members)

    async def leave(self) -> None:
        """Out of the queue (the ticket) and of the party (a maker's leaving ends it)."""
        if self.ticket is not None:
            ticket, self.ticket = self.ticket, None
            await self.maker.leave(ticket)
        if self.party is not None:
            code, self.party = self.party, None
            self.queue.release(self.id)
            if self.made:  # the others are told the party is no more (no members)
                members = await self.queue.party_members(code)
                await self.queue.party_end(code)
                for member in members:
                    await self.queue.deliver(member.holder, protocol.wire(protocol.Party(code, [])))
            else:
                await self.maker.tell_party(code, await self.queue.party_leave(code, self.id))
            self.made = False


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
