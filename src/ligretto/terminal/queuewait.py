"""``ligretto join URL --queue``: wait in the server's matchmaking queue on the command line
(``/ws/queue``, docs/protocol.md "The queue"), each change of the wait printed as a line,
until the server hands a seat (``seated``): its token is kept as any seat's
(``remote.SeatTokens``), so the app that follows comes back to that seat.  Ctrl-C (or any
end of the socket) leaves the queue: the server drops the ticket when the socket closes."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import websockets

from ligretto import protocol
from ligretto.terminal.remote import SeatTokens, ws_url

KEEPALIVE_S = 2.0
"""Seconds between two pings while waiting (the server closes a socket silent for 6 s)."""


class QueueRefused(Exception):
    """The server refused the ``queue`` message (its ``error``: code and text)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{message} ({code})")
        self.code = code


def wait_line(queued: protocol.Queued) -> str:
    """One line of the wait: who is there, and when the table starts at the latest."""
    people = "1 person" if queued.people == 1 else f"{queued.people} people"
    return (
        f"waiting for a table of {queued.seats}: {people} ready, {queued.waiting} in the queue;"
        f" starts in {queued.starts_in:.0f} s at the latest (bots then take the empty seats)"
    )


async def wait_in_queue(
    url: str,
    name: str,
    seats: int,
    *,
    profile: str | None = None,
    tokens: SeatTokens | None = None,
    say: Callable[[str], Any] = print,
) -> protocol.Seated:
    """Queue at the server ``url`` until seated; the seat's token is kept in ``tokens``."""
    message: dict[str, Any] = {"type": "queue", "v": protocol.VERSION, "seats": seats, "name": name}
    if profile is not None:
        message["profile"] = profile
    async with websockets.connect(ws_url(url) + "/queue", open_timeout=10) as ws:
        await ws.send(json.dumps(message))
        while True:
            try:
                raw = await _receive(ws)
            except TimeoutError:
                await ws.send(json.dumps({"type": "ping", "t": 0.0}))
                continue
            answer = protocol.decode_server(raw)
            if isinstance(answer, protocol.Queued):
                say(wait_line(answer))
            elif isinstance(answer, protocol.Seated):
                (tokens or SeatTokens()).put(f"{ws_url(url)}#{answer.code}", answer.token)
                say(f"seated at table {answer.code}, seat {answer.seat + 1}")
                return answer
            elif isinstance(answer, protocol.Error):
                raise QueueRefused(answer.code, answer.message)


async def _receive(ws: Any) -> str | bytes:
    raw: str | bytes = await asyncio.wait_for(ws.recv(), KEEPALIVE_S)
    return raw
