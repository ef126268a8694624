"""``ligretto loadtest --queue``: people arriving at the matchmaking queue ("Play with
people", docs/protocol.md "The queue") at a steady rate, against a real server.

Arrivals come at ``arrivals`` people a minute for ``duration`` seconds, spaced as a
Poisson process (exponential gaps from a seeded generator, so a run can be repeated).
Each arrival is one real client: it opens ``/ws/queue``, queues for a table of ``seats``,
waits for ``seated``, takes its seat on ``/ws`` with the token handed out and waits for
the dealt round (its ``snapshot``); then it gives up the seat (``leave``: a stand-in
plays on) and closes.  Measured: the time from arrival to the dealt round (median, 90th
percentile, most), and the share of the tables' seats taken by people (the rest went to
bots when a group's countdown ended), with the tables and what failed.

With ``ratings`` (the server's database), each arrival queues with a profile of its own
whose rating (:func:`draw_rating`: μ from a normal law of mean 25 and deviation 8, σ
uniform from 2 to 25/3, from a second seeded generator) is written there before the first
arrival (``server/records/seeding.py``): the grouping by rating band then has work to do.
Measured besides: the spread of the conservative ratings (μ − 3σ) of the people at each
table (max − min; median and 90th percentile over the tables of two people or more), and
the time to a dealt round in each band of conservative rating (:data:`BANDS`)."""

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
from ligretto.ratings import Rating
from ligretto.server.records.seeding import seed_profiles

KEEPALIVE_S = 2.0
"""Seconds between a waiting client's pings."""
SEED = 29
"""The arrivals' generator's seed (the same gaps every run; the ratings' is ``SEED + 1``)."""
BANDS = (0.0, 10.0, 20.0)
"""The bounds of the bands of conservative rating the wait is reported in: below 0, 0 to
10, 10 to 20, 20 and more (a new player is 0; the drawn ratings are mostly -10 to 30)."""


def draw_rating(rng: random.Random) -> Rating:
    """One arrival's rating: μ ~ N(25, 8²), σ ~ U(2, 25/3) (a new player's σ at most)."""
    return Rating(rng.gauss(25.0, 8.0), rng.uniform(2.0, 25.0 / 3))


def band_of(conservative: float) -> str:
    """The name of the band of a conservative rating (``BANDS``)."""
    low = None
    for bound in BANDS:
        if conservative < bound:
            return f"below {bound:g}" if low is None else f"{low:g} to {bound:g}"
        low = bound
    return f"{low:g} and more"


@dataclass(slots=True)
class QueueFigures:
    """What the arrivals met."""

    dealt_s: list[float] = field(default_factory=list)
    """Each seated person's time from arrival to the dealt round."""
    people_at: dict[str, int] = field(default_factory=dict)
    """Table code -> the people the queue seated there."""
    errors: list[str] = field(default_factory=list)
    ratings_at: dict[str, list[float]] = field(default_factory=dict)
    """Table code -> the conservative ratings of its people (arrivals with profiles only)."""
    rated_s: list[tuple[float, float]] = field(default_factory=list)
    """(conservative rating, time to the dealt round) of each seated arrival with a profile."""


@dataclass(frozen=True, slots=True)
class Arrival:
    """One person to arrive: their number and, with ratings, their profile's secret and rating."""

    index: int
    profile: str | None = None
    rating: Rating | None = None


async def arrive(ws_base: str, person: Arrival, seats: int, timeout: float, figures: QueueFigures) -> None:
    """One person: queue, be seated, come to the seat, see the dealt round, leave."""
    index = person.index
    start = time.monotonic()
    message: dict[str, Any] = {"type": "queue", "v": protocol.VERSION, "seats": seats, "name": f"Load {index}"}
    if person.profile is not None:
        message["profile"] = person.profile
    try:
        async with websockets.connect(f"{ws_base}/queue", open_timeout=timeout) as queue:
            await queue.send(json.dumps(message))
            keepalive = asyncio.create_task(_keep_alive(queue))
            try:
                seated = await _until(queue, protocol.Seated, timeout)
            finally:
                keepalive.cancel()
        async with websockets.connect(ws_base, open_timeout=timeout) as table:
            hello = {"type": "hello", "v": protocol.VERSION, "code": seated.code, "token": seated.token}
            await table.send(json.dumps(hello))
            await _until(table, protocol.Snapshot, timeout)
            dealt_s = time.monotonic() - start
            figures.dealt_s.append(dealt_s)
            figures.people_at[seated.code] = figures.people_at.get(seated.code, 0) + 1
            if person.rating is not None:
                figures.ratings_at.setdefault(seated.code, []).append(person.rating.conservative)
                figures.rated_s.append((person.rating.conservative, dealt_s))
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
    ws_base: str,
    arrivals: int,
    duration: float,
    seats: int,
    *,
    countdown_s: float = 30.0,
    timeout: float = 10.0,
    ratings: str | None = None,
) -> dict[str, Any]:
    """Arrivals at ``arrivals`` a minute for ``duration`` s at the server's ``/ws`` endpoint
    ``ws_base``; each waits at most the queue's countdown and ``timeout`` more.
    ``ratings``: the server's database, where each arrival's profile is made first."""
    rng = random.Random(SEED)
    times = []
    at = rng.expovariate(arrivals / 60.0)
    while at < duration:
        times.append(at)
        at += rng.expovariate(arrivals / 60.0)
    people = [Arrival(index) for index in range(len(times))]
    if ratings is not None:
        drawn = random.Random(SEED + 1)
        rated = [draw_rating(drawn) for _ in times]
        secrets = await asyncio.to_thread(seed_profiles, ratings, "Load", rated)
        people = [Arrival(i, secret, rating) for i, (secret, rating) in enumerate(zip(secrets, rated, strict=True))]
    figures = QueueFigures()
    tasks: list[asyncio.Task[None]] = []
    began = time.monotonic()
    for person, at in zip(people, times, strict=True):
        await asyncio.sleep(max(0.0, began + at - time.monotonic()))
        tasks.append(asyncio.create_task(arrive(ws_base, person, seats, countdown_s + timeout, figures)))
    await asyncio.gather(*tasks)
    return queue_report(figures, arrivals, duration, seats, len(tasks))


def _p90(values: list[float]) -> float:
    """The 90th percentile of sorted ``values`` (the nearest rank below)."""
    return values[int(0.9 * (len(values) - 1))]


def queue_report(figures: QueueFigures, arrivals: int, duration: float, seats: int, came: int) -> dict[str, Any]:
    dealt = sorted(figures.dealt_s)
    tables = len(figures.people_at)
    seated = sum(figures.people_at.values())
    report: dict[str, Any] = {
        "arrivals_per_minute": arrivals,
        "duration_s": duration,
        "seats": seats,
        "arrived": came,
        "dealt": len(dealt),
        "tables": tables,
        "median_to_dealt_s": round(statistics.median(dealt), 2) if dealt else None,
        "p90_to_dealt_s": round(_p90(dealt), 2) if dealt else None,
        "max_to_dealt_s": round(dealt[-1], 2) if dealt else None,
        "people_share_of_seats": round(seated / (tables * seats), 3) if tables else None,
        "errors": figures.errors,
    }
    if figures.rated_s:
        report["ratings"] = rating_report(figures)
    return report


def rating_report(figures: QueueFigures) -> dict[str, Any]:
    """The spread of conservative ratings at the tables, and the wait in each band."""
    spreads = sorted(max(r) - min(r) for r in figures.ratings_at.values() if len(r) > 1)
    bands: dict[str, list[float]] = {}
    for conservative, dealt_s in sorted(figures.rated_s):
        bands.setdefault(band_of(conservative), []).append(dealt_s)
    return {
        "tables_of_two_or_more": len(spreads),
        "median_spread": round(statistics.median(spreads), 1) if spreads else None,
        "p90_spread": round(_p90(spreads), 1) if spreads else None,
        "max_spread": round(spreads[-1], 1) if spreads else None,
        "bands": [
            {
                "band": band,
                "people": len(waits),
                "median_to_dealt_s": round(statistics.median(waits), 2),
                "p90_to_dealt_s": round(_p90(sorted(waits)), 2),
            }
            for band, waits in bands.items()
        ],
    }


def format_queue_report(report: dict[str, Any]) -> str:
    lines = [
        f"arrivals: {report['arrivals_per_minute']} a minute for {report['duration_s']:g} s,"
        f" tables of {report['seats']}",
        f"arrived {report['arrived']}, dealt {report['dealt']}, at {report['tables']} tables",
        f"time to a dealt round: median {report['median_to_dealt_s']} s, 90th percentile {report['p90_to_dealt_s']} s,"
        f" most {report['max_to_dealt_s']} s",
        f"seats taken by people: {report['people_share_of_seats']}",
    ]
    rated = report.get("ratings")
    if rated is not None:
        lines.append(
            f"spread of conservative ratings at a table (max - min, {rated['tables_of_two_or_more']} tables):"
            f" median {rated['median_spread']}, 90th percentile {rated['p90_spread']}, most {rated['max_spread']}"
        )
        lines += [
            f"  rating {b['band']}: {b['people']} people, to a dealt round median {b['median_to_dealt_s']} s,"
            f" 90th percentile {b['p90_to_dealt_s']} s"
            for b in rated["bands"]
        ]
    lines.append(f"errors: {len(report['errors'])}")
    lines += [f"  {error}" for error in report["errors"][:10]]
    return "\n".join(lines)
