"""``ligretto join URL --queue``: wait in the server's matchmaking queue on the command line
(``/ws/queue``, docs/protocol.md "The queue"), each change of the wait printed as a line,
until the server hands a seat (``seated``): its token is kept as any seat's
(``remote.SeatTokens``), so the app that follows comes back to that seat.  Ctrl-C (or any
end of the socket) leaves the queue: the server drops the ticket when the socket closes.

With ``--party`` it makes a party first (its code printed for friends, who come with
``--party CODE``; each change of the members is a line) and queues it when its maker is
ready (Enter); a member waits for the maker's queue, then for its own seat at that table."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import threading
from collections.abc import Awaitable, Callable
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


MAKE = ""
"""``party``: make a party (its code printed), rather than join one by its code."""


def party_line(party: protocol.Party, making: bool, queued: bool = False) -> str:
    """One line of a party: its code, its members, and who queues it (``making``: this
    terminal, which has ``queued`` it or not yet)."""
    who = " and ".join(party.members) if len(party.members) < 3 else ", ".join(party.members)
    if not making:
        return f"party {party.code}: {who}; waiting for {party.members[0]} to queue"
    if queued:
        return f"party {party.code}: {who}"
    return f"party {party.code}: {who}; friends join with --party {party.code}; press Enter to queue together"


async def wait_in_queue(
    url: str,
    name: str,
    seats: int,
    *,
    profile: str | None = None,
    party: str | None = None,
    ready: Callable[[], Awaitable[object]] | None = None,
    tokens: SeatTokens | None = None,
    say: Callable[[str], Any] = print,
) -> protocol.Seated:
    """Queue at the server ``url`` until seated; the seat's token is kept in ``tokens``.
    ``party``: :data:`MAKE` makes a party and queues it once ``ready`` returns (by default,
    a line on standard input); a code joins that party, whose maker queues it."""
    who: dict[str, Any] = {"v": protocol.VERSION, "name": name}
    if profile is not None:
        who["profile"] = profile
    queue = json.dumps({"type": "queue", "seats": seats, **who})
    if party is None:
        first = queue
    elif party == MAKE:
        first = json.dumps({"type": "party_make", **who})
    else:
        first = json.dumps({"type": "party_join", "code": party, **who})
    queuing: asyncio.Task[None] | None = None
    try:
        async with websockets.connect(ws_url(url) + "/queue", open_timeout=10) as ws:
            await ws.send(first)
            while True:
                try:
                    raw = await _receive(ws)
                except TimeoutError:
                    await ws.send(json.dumps({"type": "ping", "t": 0.0}))
                    continue
                answer = protocol.decode_server(raw)
                if isinstance(answer, protocol.Party):
                    if not answer.members:
                        raise QueueRefused("party_over", "the party's maker left: the party is no more")
                    say(party_line(answer, party == MAKE, queuing is not None and queuing.done()))
                    if party == MAKE and queuing is None:
                        queuing = asyncio.create_task(_queue_when(ready or _enter, ws, queue))
                elif isinstance(answer, protocol.Queued):
                    say(wait_line(answer))
                elif isinstance(answer, protocol.Seated):
                    (tokens or SeatTokens()).put(f"{ws_url(url)}#{answer.code}", answer.token)
                    say(f"seated at table {answer.code}, seat {answer.seat + 1}")
                    return answer
                elif isinstance(answer, protocol.Error):
                    raise QueueRefused(answer.code, answer.message)
    finally:
        if queuing is not None:
            queuing.cancel()


async def _queue_when(ready: Callable[[], Awaitable[object]], ws: Any, queue: str) -> None:
    await ready()
    await ws.send(queue)


async def _enter() -> None:
    """A line on standard input (or its end).  Read in a daemon thread: a Ctrl-C while it
    waits ends the program without waiting for the read."""
    loop = asyncio.get_running_loop()
    read: asyncio.Future[None] = loop.create_future()

    def done() -> None:
        if not read.done():
            read.set_result(None)

    def wait() -> None:
        sys.stdin.readline()
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits any more
            loop.call_soon_threadsafe(done)

    threading.Thread(target=wait, daemon=True).start()
    await read


async def _receive(ws: Any) -> str | bytes:
    raw: str | bytes = await asyncio.wait_for(ws.recv(), KEEPALIVE_S)
    return raw
