"""The WebSocket endpoints: ``/ws`` (one :class:`Connection` per client: its receiving
loop until a ``hello`` seats it, then its :class:`SeatedReader` called as each message is
parsed (``wsprotocol.py``); rate limit, ``hello`` and silence deadlines (``silence.py``),
every message validated by ``protocol.decode`` and handed to the one dispatcher; its messages out through the lobby's
outbox, written at once (framed once per broadcast, below the ASGI layers: ``wsprotocol.py``)
or from a backlog if the client is slow to read) and ``/ws/lobby``
(the live list of public tables, ``listing.py``: read within the same rate limit, closed
when its client stops taking the list).  Both are counted against the connection caps
(``server/web/admission.py``): one over them is refused before the upgrade."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Awaitable, Callable

from starlette.types import Message
from starlette.websockets import WebSocket, WebSocketDisconnect

from ligretto import protocol
from ligretto.protocol import NO_HELLO, SILENT, STALLED, ProtocolError
from ligretto.server.cluster.directory import Unavailable
from ligretto.server.cluster.keys import RELAYED
from ligretto.server.cluster.relay import carry
from ligretto.server.ops import metrics
from ligretto.server.ops.addresses import address_of
from ligretto.server.ops.heap import COLLECTOR
from ligretto.server.ops.logs import Sampled
from ligretto.server.table import dispatch
from ligretto.server.table.latency import Latency
from ligretto.server.table.seats import CoolingDown
from ligretto.server.table.table import Table, TableError
from ligretto.server.web.admission import RateLimit, Refusal
from ligretto.server.web.listing import Viewer
from ligretto.server.web.lobby import Lobby
from ligretto.server.web.outbox import Outbox, start_eagerly
from ligretto.server.web.settings import Settings
from ligretto.server.web.silence import Silence
from ligretto.server.web.wsprotocol import FRAMES, Frames, Reader, text_frame

log = logging.getLogger("ligretto.server")
FLOODED = "too many messages: the connection is closed"
"""The text of the ``rate_limited`` error before the close (1008), ``/ws`` and ``/ws/lobby`` alike."""
READ_HEADERS = frozenset({RELAYED.encode()})
"""The request headers a ``/ws`` connection reads (the relay's: the client was carried here
by another process of the service); of its scope's headers, the app keeps these alone
(``app.App``): a browser sends a dozen others, 1-2 KB a connection for as long as it is open."""
SAMPLED = Sampled()
"""What clients cause at will (refused messages, silent connections) is logged through
this: a few lines a second per cause at most (``server/ops/logs.py``); ``/metrics`` counts all."""


def offered(websocket: WebSocket) -> Frames | None:
    """What the server's protocol offers the connection below ASGI (``wsprotocol.FRAMES``);
    ``None`` under any other server."""
    frames: Frames | None = websocket.scope.get("extensions", {}).get(FRAMES)
    return frames


class Connection:
    """One WebSocket: its seat (if any), its table, its rate limit, and its messages on
    their way out."""

    def __init__(self, websocket: WebSocket, settings: Settings, outbox: Outbox) -> None:
        self.websocket = websocket
        self.seat: int | None = None
        self.table: Table | None = None
        self.outbox = outbox
        self.backlog: deque[str] | None = None
        """Messages waiting behind a send the client was slow to take (``None``: none is)."""
        self.sender: asyncio.Task[None] | None = None
        """The task that sends the backlog, while there is one."""
        self.closed = False
        self.rate_limit = RateLimit(settings.rate_per_s, settings.burst)
        self.reactions = protocol.ReactionLimit()
        self.latency = Latency()
        metrics.CONNECTIONS.inc()  # (less by one when it is gone: _gone)
        frames = offered(websocket)
        self.write_frame: Callable[[bytes], bool] | None = frames.write_frame if frames else None
        """Writes ready-made frames below the ASGI layers, if the server offers it
        (``server/web/wsprotocol.py``): ``False`` when it cannot now."""
        self.pending: list[str] = []
        """This turn's messages not written yet (:meth:`flush` writes them) and their frames."""
        self.frames: list[bytes] = []

    def send(self, message: protocol.Outgoing) -> None:
        """Encode (a broadcast once for all its listeners) and hand to the outbox."""
        self.outbox.post(self, protocol.wire(message))

    def detach(self) -> None:
        """Another connection took this one's seat: forget the table and close."""
        self.table = None
        self.outbox.post(self, "")  # the close marker, after what was sent before

    def deliver(self, text: str) -> None:
        """One message of the outbox's turn (``""``: the close): framed and kept for
        :meth:`flush` when the socket takes ready-made frames, else written now."""
        if self.closed:
            return
        if self.backlog is None and text and self.write_frame is not None:
            self.pending.append(text)
            self.frames.append(text_frame(text))
            return
        self.flush()
        self.write(text)

    def flush(self) -> None:
        """Write the turn's messages together: one system call for the lot (an action's ack
        and events to its sender); if the socket cannot take them now, one by one."""
        if not self.pending:
            return
        # The two lists are kept, not replaced: new ones each turn, for every connection,
        # were a young collection's largest share of objects to scan (issue 31).
        frames = b"".join(self.frames)  # (one frame: that frame itself, not a copy)
        self.frames.clear()
        assert self.write_frame is not None
        if self.closed or (self.backlog is None and self.write_frame(frames)):
            self.pending.clear()
            return
        texts = self.pending.copy()
        self.pending.clear()
        for text in texts:
            self.write(text)

    def write(self, text: str) -> None:
        """Put one message (``""``: the close) on the socket now; if the client is slow to
        read, it waits in the backlog, behind the others, and a task sends it."""
        if self.closed:
            return
        if self.backlog is not None:
            self.backlog.append(text)
            return
        try:
            rest = start_eagerly(self._write(text))
        except Exception:  # the client is gone: its receiving loop ends the connection
            self.closed = True
            return
        if rest is not None:
            self.backlog = deque()
            self.sender = asyncio.create_task(self._drain(rest))

    async def _write(self, text: str) -> None:
        if text:
            await self.websocket.send_text(text)
        else:
            self.closed = True
            await self.websocket.close(code=4001, reason="replaced")

    async def _drain(self, rest: asyncio.Task[None]) -> None:
        try:
            await rest
            while self.backlog and not self.closed:
                await self._write(self.backlog.popleft())
        except Exception:  # as in write
            self.closed = True
        finally:
            self.backlog = None
            self.sender = None


async def refuse(websocket: WebSocket, refusal: Refusal) -> None:
    """Refuse a WebSocket before the upgrade: the HTTP answer (503 or 429 with an error
    body), or, on a server without the denial-response extension, a close (403)."""
    metrics.REFUSED.labels(refusal.code).inc()
    log.debug("refused connection from %s: %s", websocket.client, refusal.code)
    if "websocket.http.response" in websocket.scope.get("extensions", {}):
        await websocket.send_denial_response(refusal.response())
    else:
        await websocket.close(code=protocol.TRY_AGAIN, reason=refusal.code)


async def admit(websocket: WebSocket, lobby: Lobby) -> str | None:
    """Admit a WebSocket under the lobby's connection caps and accept it: the address its
    place is counted under, for the caller to give back (``lobby.connections.release``)
    once it closes; ``None``: refused before the upgrade."""
    address = address_of(websocket.client)
    refusal = lobby.connections.admit(address)
    if refusal is not None:
        await refuse(websocket, refusal)
        return None
    try:
        await websocket.accept()
    except BaseException:
        lobby.connections.release(address)
        raise
    return address


async def admitted(websocket: WebSocket, serve: Callable[[Lobby, WebSocket], Awaitable[None]]) -> None:
    """:func:`admit` a WebSocket and ``serve`` it until it closes; its place is given back after."""
    lobby: Lobby = websocket.app.state.lobby
    address = await admit(websocket, lobby)
    if address is None:
        return
    try:
        await serve(lobby, websocket)
    finally:
        lobby.connections.release(address)


async def websocket_endpoint(websocket: WebSocket) -> None:
    """``/ws``: one client's connection to a table, admitted (:func:`admit`), until it closes.  One
    coroutine from the app down to the connection's loop (not :func:`admitted` and a
    serving function under it): every frame suspended in between is kept for as long as
    each of thousands of sockets is open (issue 31)."""
    lobby: Lobby = websocket.app.state.lobby
    frames = _frames_of(websocket, lobby)
    address = await admit(websocket, lobby)
    if address is None:
        return
    try:
        conn = Connection(websocket, lobby.settings, lobby.outbox)
        silence = Silence(lobby.settings, asyncio.get_running_loop().time)
        closing: tuple[int, str] | None = None
        carried: tuple[str, str] | None = None
        """(the owner's URL, the hello) of a connection carried to another process's table."""
        relayed = bool(websocket.headers.get(RELAYED))
        read_with: Callable[[Reader | None], None] | None = frames.read_with if frames else None
        receive = websocket.receive if frames is None else frames.receive
        reader: SeatedReader | None = None
        try:
            # A client that says nothing for silence_s (no message, not even a ping) is gone as
            # far as the table is concerned: a stalled network closes no socket by itself.
            async with asyncio.timeout(None) as silence.deadline:
                lobby.silences.add(silence)
                while (raw := _text(await receive())) is not None:  # (None: disconnected)
                    if reader is not None and reader.failure is not None:
                        raise reader.failure  # the reader took this message and failed on it
                    if conn.table is None:  # its hello may name a table another process owns
                        closing, carried = await _routed(lobby, raw, relayed)
                        if closing or carried:
                            break
                    if await _over_rate(lobby, conn, raw):
                        break
                    silence.heard(seated=conn.table is not None)
                    if read_with is not None and conn.table is not None and silence.hello_by is None:
                        # Seated: the next messages are handled as they are parsed, until one
                        # needs this loop (the reader declines it, and it comes here).
                        reader = SeatedReader(lobby, conn, silence)
                        read_with(reader)
                    # Not kept while the loop waits, seated for as long as the socket is
                    # open: the hello's text (its message's dict is not kept either).
                    del raw
        except TimeoutError:
            closing = (NO_HELLO, "no hello") if silence.no_hello() else (SILENT, "silent")
        except WebSocketDisconnect:
            pass
        finally:
            lobby.silences.discard(silence)
            _gone(conn, read_with)
        await _leave(websocket, closing, carried)
    finally:
        lobby.connections.release(address)


def _text(message: Message) -> str | None:
    """A received message's text (bytes decoded as UTF-8, what is not UTF-8 replaced);
    ``None`` for the disconnect."""
    if message["type"] == "websocket.disconnect":
        return None
    raw = message.get("text")
    if raw is None:
        raw = (message.get("bytes") or b"").decode("utf-8", "replace")
    return str(raw)


def _frames_of(websocket: WebSocket, lobby: Lobby) -> Frames | None:
    """What the server's protocol offers the socket below ASGI (:func:`offered`), its
    pings turned off if the lobby has a silence deadline."""
    frames = offered(websocket)
    if frames is not None and lobby.settings.silence_s > 0:
        # Its silence deadline closes a client that has said nothing for silence_s (6 s),
        # and every client pings well within it (docs/protocol.md, Heartbeats): uvicorn's
        # keepalive pings (every 20 s, 20 s for the pong) would never find a dead client
        # sooner, and each connection's next one is a timer (issue 31).  A connection
        # carried to another process is closed when that process's deadline closes it.
        frames.no_pings()
    return frames


def _gone(conn: Connection, read_with: Callable[[Reader | None], None] | None) -> None:
    """The client is gone: its seat is away (and its grace period runs) before anything
    else, since closing a silent socket may wait for a client that does not answer (its
    reader, if it had one, dropped first)."""
    if read_with is not None:
        read_with(None)
    if conn.table is not None:
        conn.table.disconnected(conn)
    metrics.CONNECTIONS.dec()
    COLLECTOR.release()
    conn.closed = True  # nothing more to send
    if conn.sender is not None:
        conn.sender.cancel()


class SeatedReader:
    """A seated connection's messages, handled as the server's WebSocket protocol parses
    them (``wsprotocol.py``'s reader), not each through the ASGI ``receive`` chain: the
    same rate limit, validation, dispatch and silence deadline as :func:`websocket_endpoint`'s loop.
    It declines (the message goes to that loop) a message over the rate limit, one that
    finds the connection without a table, and a ``hello`` that has to wait for a seat
    cooling down (whose token is then counted twice)."""

    __slots__ = ("conn", "failure", "lobby", "silence")

    def __init__(self, lobby: Lobby, conn: Connection, silence: Silence) -> None:
        self.lobby = lobby
        self.conn = conn
        self.silence = silence
        self.failure: Exception | None = None
        """What handling a message raised: the loop raises it (the connection ends as an
        error in the loop would end it)."""

    def __call__(self, raw: str) -> bool:
        conn = self.conn
        if conn.table is None or not conn.rate_limit.allow():
            return False
        try:
            handle(self.lobby, conn, raw)
        except CoolingDown:
            return False
        except Exception as error:  # a defect: the loop ends the connection with it
            self.failure = error
            return False
        self.silence.heard()
        return True


async def _routed(lobby: Lobby, raw: str, relayed: bool) -> tuple[tuple[int, str] | None, tuple[str, str] | None]:
    """Where a message before the connection's hello goes: (the close, if its table's
    owner cannot be reached now; (the owner's URL, the message), if another process owns
    it); neither: handled here."""
    try:
        owner = await lobby.directory.route(raw, relayed)
    except Unavailable:
        return (protocol.TRY_AGAIN, "table moving"), None
    return None, None if owner is None else (owner, raw)


async def _leave(websocket: WebSocket, closing: tuple[int, str] | None, carried: tuple[str, str] | None) -> None:
    """Close the connection (with ``closing``: its code and reason), or carry it on."""
    if closing is not None:
        code, reason = closing
        SAMPLED.log(log, reason, logging.INFO, "closing connection from %s: %s", websocket.client, reason)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(websocket.close(code=code, reason=reason), 2.0)
    elif carried is not None:
        await carry(websocket, *carried)


async def _over_rate(lobby: Lobby, conn: Connection, raw: str) -> bool:
    """Handle one message within the connection's rate limit; ``True``: it was refused
    ``rate_limited``, and the connection is closed (1008).  A ``hello`` with the token of a
    seat that is cooling down after a flood waits (reading nothing more meanwhile) until
    it may come back."""
    if conn.rate_limit.allow():
        while True:
            try:
                handle(lobby, conn, raw)
                return False
            except CoolingDown as cooling:
                await asyncio.sleep(cooling.wait_s)
    _bad(conn, "rate_limited", FLOODED)
    if conn.table is not None and conn.seat is not None:
        conn.table.cool_down(conn.seat, lobby.settings.cool_down_s)
    await asyncio.sleep(0.05)
    await conn.websocket.close(code=1008)
    return True


def _bad(conn: Connection, code: str, text: str, id: str | int | None = None) -> None:
    metrics.BAD_MESSAGES.labels(code).inc()
    SAMPLED.log(log, code, logging.INFO, "refused message from %s: %s (%s)", conn.websocket.client, code, text)
    conn.send(protocol.error_message(code, text, id))


def handle(lobby: Lobby, conn: Connection, raw: str) -> str | None:
    """Validate one message and hand it to the dispatcher (the one local play uses too);
    the code of the error it was answered with, if any (:class:`CoolingDown` is raised:
    that hello is not answered yet)."""
    try:
        message = protocol.decode(raw)
    except ProtocolError as error:
        _bad(conn, error.code, error.message)
        return error.code
    client_id = getattr(message, "id", None)
    try:
        dispatch.dispatch(conn, message, lobby.tables.get, find_profile=lobby.find_profile)
    except CoolingDown:
        raise  # the caller holds the hello for a while and tries again
    except (ProtocolError, TableError) as error:
        _bad(conn, error.code, error.message, client_id)
        return error.code
    return None


async def lobby_endpoint(websocket: WebSocket) -> None:
    """The live list of public tables: sent on connect and whenever it changes (not to an
    address whose last lobby socket flooded, for ``cool_down_s``)."""
    lobby: Lobby = websocket.app.state.lobby
    refusal = lobby.lobby_cooling.refusal(address_of(websocket.client))
    if refusal is not None:
        await refuse(websocket, refusal)
        return
    await admitted(websocket, _stream_lobby)


async def _stream_lobby(lobby: Lobby, websocket: WebSocket) -> None:
    """One accepted ``/ws/lobby`` socket: the lobby's live list writes to it (``listing.py``)
    while this reads what its client sends (nothing, or a keepalive), within ``/ws``'s rate
    limit, until it closes, floods, or stops taking the list (a send stuck for ``silence_s``)."""
    settings = lobby.settings
    reading = asyncio.ensure_future(_read_lobby(websocket, RateLimit(settings.rate_per_s, settings.burst)))
    viewer = Viewer(websocket, lobby.live_list.scheduler, settings.silence_s, on_stall=reading.cancel)
    lobby.live_list.add(viewer)
    try:
        await asyncio.wait({reading})
    finally:
        reading.cancel()
        lobby.live_list.remove(viewer)
    if reading.cancelled():
        await _leave(websocket, (STALLED, "stalled"), None)
    elif reading.result():
        lobby.lobby_cooling.flooded(address_of(websocket.client))
        metrics.BAD_MESSAGES.labels("rate_limited").inc()
        SAMPLED.log(log, "rate_limited", logging.INFO, "closing lobby socket from %s: rate_limited", websocket.client)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(_close_flooded(websocket), 2.0)


async def _close_flooded(websocket: WebSocket) -> None:
    """As ``/ws`` does: the error ``rate_limited``, then the close (1008)."""
    await websocket.send_text(protocol.wire(protocol.error_message("rate_limited", FLOODED)))
    await websocket.close(code=1008)


async def _read_lobby(websocket: WebSocket, rate: RateLimit) -> bool:
    """Read (and ignore) what a lobby client sends until it disconnects (``False``) or
    sends more than the rate limit lets through (``True``)."""
    try:
        while (await websocket.receive())["type"] != "websocket.disconnect":
            if not rate.allow():
                return True
    except (WebSocketDisconnect, RuntimeError):
        pass
    return False
