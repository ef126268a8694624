"""Carrying a client to its table's owner, without the client knowing (docs/deploy.md).

A browser does not follow a redirect on a WebSocket upgrade, and a ``hello`` names its
table only after the upgrade, so a ``/ws`` connection whose table another process owns is
carried there: this process opens its own WebSocket to the owner, sends it the ``hello``
and relays every message both ways, unchanged, until either side closes (the owner's
close code passed on).  The owner does everything else: seats, rate limit, deadlines,
the outbox; it counts the client's own address (``X-Forwarded-For``).  An HTTP request
about such a table is forwarded the same way.  What the
extra hop costs is measured in docs/benchmarks.md ("Several processes")."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import urllib.error
import urllib.request

import websockets
from starlette.requests import Request
from starlette.responses import Response
from starlette.websockets import WebSocket

from ligretto import protocol
from ligretto.server.cluster.directory import Unavailable
from ligretto.server.cluster.keys import RELAYED
from ligretto.server.ops import metrics
from ligretto.server.ops.addresses import address_of

log = logging.getLogger("ligretto.cluster")

OPEN_S = 2.0
"""Seconds the owner has to accept the relay's WebSocket."""
FORWARD_S = 5.0
"""Seconds the owner has to answer a forwarded HTTP request."""
FORWARDED_HEADERS = ("content-type", "authorization", "host")
"""What of a request is passed on to the owner (the host: invite links name the entrance)."""
FORWARDED_FOR = "x-forwarded-for"
"""The client's address as this process sees it, for the owner's per-address limits (it
believes it from the addresses of ``--forwarded-allow-ips``)."""


async def carry(websocket: WebSocket, url: str, first: str) -> None:
    """Relay the accepted ``websocket`` to the owner's ``url`` (``ws://…/ws``), starting with
    the message ``first`` (its ``hello``), until either side closes."""
    try:
        upstream = await websockets.connect(
            url,
            additional_headers={RELAYED: "1", FORWARDED_FOR: address_of(websocket.client)},
            max_size=protocol.MAX_FRAME_BYTES,
            compression=None,
            open_timeout=OPEN_S,
            ping_interval=None,  # the client's own pings pass through; the owner pings too
        )
    except (OSError, TimeoutError, websockets.InvalidHandshake, websockets.InvalidURI):
        log.info("the owner at %s cannot be reached: the client is to try again", url)
        await _close(websocket, protocol.TRY_AGAIN, "table moving")
        return
    metrics.RELAYED.inc()
    async with upstream:
        await upstream.send(first)
        down = asyncio.create_task(_down(upstream, websocket))
        up = asyncio.create_task(_up(websocket, upstream))
        await asyncio.wait({down, up}, return_when=asyncio.FIRST_COMPLETED)
        for task in (down, up):
            task.cancel()
        code = upstream.close_code
    if (down.done() and not up.done()) or code is not None:
        await _close(websocket, protocol.MOVED if code in (None, 1005, 1006) else code, "")


async def _up(websocket: WebSocket, upstream: websockets.ClientConnection) -> None:
    """The client's messages to the owner."""
    with contextlib.suppress(Exception):
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
            text = message.get("text")
            await upstream.send(text if text is not None else message.get("bytes") or b"")


async def _down(upstream: websockets.ClientConnection, websocket: WebSocket) -> None:
    """The owner's messages to the client."""
    with contextlib.suppress(Exception):
        async for message in upstream:
            if isinstance(message, str):
                await websocket.send_text(message)
            else:
                await websocket.send_bytes(message)


async def _close(websocket: WebSocket, code: int, reason: str) -> None:
    with contextlib.suppress(Exception):
        await websocket.close(code=code, reason=reason)


async def forward(request: Request, address: str) -> Response:
    """The answer of the process at ``address`` (``http://host:port``) to ``request``."""
    body = await request.body()
    url = address.rstrip("/") + request.url.path + (f"?{request.url.query}" if request.url.query else "")
    headers = {name: value for name, value in request.headers.items() if name in FORWARDED_HEADERS}
    headers[RELAYED] = "1"
    headers[FORWARDED_FOR] = address_of(request.client)
    outgoing = urllib.request.Request(url, data=body or None, method=request.method, headers=headers)

    def call() -> tuple[int, str, bytes]:
        try:
            with urllib.request.urlopen(outgoing, timeout=FORWARD_S) as answer:
                return answer.status, answer.headers.get("content-type", ""), answer.read()
        except urllib.error.HTTPError as error:
            return error.code, error.headers.get("content-type", ""), error.read()

    try:
        status, kind, raw = await asyncio.to_thread(call)
    except (OSError, TimeoutError) as error:
        raise Unavailable(str(error)) from None
    return Response(raw, status_code=status, media_type=kind or None)
