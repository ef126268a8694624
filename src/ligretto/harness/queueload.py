"""``ligretto loadtest --queue``: people arriving at the matchmaking queue ("Play with
people", docs/protocol.md "The queue") at a steady rate, against a real server.

Arrivals come at ``arrivals`` people a minute for ``duration`` seconds, spaced as a
Poisson process (exponential gaps from a seeded generator, so a run can be repeated).
Each arrival is one real client: it opens ``/ws/queue``, queues for a table of ``seats``,
waits for ``seated``, takes its seat on ``/ws`` with the token handed out and waits for
the dealt round (its ``snapshot``); then it gives up the seat (``leave``: a stand-in
plays on) and closes.  Measured: the time from arrival to the dealt round (median, 90th
percentile, most), and the share of the tables' seats taken by people (the rest went to
bots when a group's countdown ended), with the tables and what failed."""

from __future__ import annotations

import asyncio
import json
import random
import statistics
import time
from dataclasses import dataclass, field
from typing import Any

import websockets

from ligretto import protocol

KEEPALIVE_S = 2.0
"""Seconds between a waiting client's pings."""
SEED = 29
"""The arrivals' generator's seed (the same gaps every run)."""


@dataclass(slots=True)
class QueueFigures:
    """What the arrivals met."""

    dealt_s: list[float] = field(default_factory=list)
    """Each seated person's time from arrival to the dealt round."""
    people_at: dict[str, int] = field(default_factory=dict)
    """Table code -> the people the queue seated there."""
    errors: list[str] = field(default_factory=list)


async def arrive(ws_base: str, index: int, seats: int, timeout: float, figures: QueueFigures) -> None:
    """One person: queue, be seated, come to the seat, see the dealt round, leave."""
    start = time.monotonic()
    try:
        async with websockets.connect(f"{ws_base}/queue", open_timeout=timeout) as queue:
            await queue.send(
                json.dumps({"type": "queue", "v": protocol.VERSION, "seats": seats, "name": f"Load {index}"})
            )
            keepalive = asyncio.create_task(_keep_alive(queue))
            try:
                seated = await _until(queue, protocol.Seated, timeout)
            finally:
                keepalive.cancel()
        async with websockets.connect(ws_base, open_timeout=timeout) as table:
            hello = {"type": "hello", "v": protocol.VERSION, "code": seated.code, "token": seated.token}
            await table.send(json.dumps(hello))
            await _until(table, protocol.Snapshot, timeout)
            figures.dealt_s.append(time.monotonic() - start)
            figures.people_at[seated.code] = figures.people_at.get(seated.code, 0) + 1
            await table.send(json.dumps({"type": "leave"}))
    except (OSError, TimeoutError, websockets.ConnectionClosed, protocol.ProtocolError) as error:
        figures.errors.append(f"arrival {index}: {type(error).__name__}: {error}")


async def _keep_alive(ws: Any) -> None:
    """Ping while waiting, as the clients do (the server closes a socket silent for 6 s)."""
    while True:
        await asyncio.sleep(KEEPALIVE_S)
        await ws.send(json.dumps({"type": "ping", "t": time.time()}))


async def _until(ws: Any, kind: type[Any], timeout: float) -> Any:
    """The first message of ``kind`` (an ``error`` raises :class:`~ligretto.protocol.ProtocolError`)."""
    async with asyncio.timeout(timeout):
        while True:
            message = protocol.decode_server(await ws.recv())
            if isinstance(message, kind):
                return message
            if isinstance(message, protocol.Error):
                raise protocol.ProtocolError(message.code, message.message)


async def run_queue_load(
    ws_base: str, arrivals: int, duration: float, seats: int, *, countdown_s: float = 30.0, timeout: float = 10.0
) -> dict[str, Any]:
    """Arrivals at ``arrivals`` a minute for ``duration`` s at the server's ``/ws`` endpoint
    ``ws_base``; each waits at most the queue's countdown and ``timeout`` more."""
    rng = random.Random(SEED)
    figures = QueueFigures()
    people: list[asyncio.Task[None]] = []
    began = time.monotonic()
    at = rng.expovariate(arrivals / 60.0)
    while at < duration:
        await asyncio.sleep(max(0.0, began + at - time.monotonic()))
        people.append(asyncio.create_task(arrive(ws_base, len(people), seats, countdown_s + timeout, figures)))
        at += rng.expovariate(arrivals / 60.0)
    await asyncio.gather(*people)
    return queue_report(figures, arrivals, duration, seats, len(people))


def queue_report(figures: QueueFigures, arrivals: int, duration: float, seats: int, came: int) -> dict[str, Any]:
    dealt = sorted(figures.dealt_s)
    tables = len(figures.people_at)
    seated = sum(figures.people_at.values())
    return {
        "arrivals_per_minute": arrivals,
        "duration_s": duration,
        "seats": seats,
        "arrived": came,
        "dealt": len(dealt),
        "tables": tables,
        "median_to_dealt_s": round(statistics.median(dealt), 2) if dealt else None,
        "p90_to_dealt_s": round(dealt[int(0.9 * (len(dealt) - 1))], 2) if dealt else None,
        "max_to_dealt_s": round(dealt[-1], 2) if dealt else None,
        "people_share_of_seats": round(seated / (tables * seats), 3) if tables else None,
        "errors": figures.errors,
    }


def format_queue_report(report: dict[str, Any]) -> str:
    lines = [
        f"arrivals: {report['arrivals_per_minute']} a minute for {report['duration_s']:g} s,"
        f" tables of {report['seats']}",
        f"arrived {report['arrived']}, dealt {report['dealt']}, at {report['tables']} tables",
        f"time to a dealt round: median {report['median_to_dealt_s']} s, 90th percentile {report['p90_to_dealt_s']} s,"
        f" most {report['max_to_dealt_s']} s",
        f"seats taken by people: {report['people_share_of_seats']}",
        f"errors: {len(report['errors'])}",
    ]
    lines += [f"  {error}" for error in report["errors"][:10]]
    return "\n".join(lines)
