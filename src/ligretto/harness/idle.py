"""The stress harness's idle and half-open connections (issue 13, "Measured";
``python -m ligretto.harness.stress --scenario idle``): ``sockets`` WebSockets that never
say ``hello`` (each pinging every ``ping_s``, so only the hello deadline, code 4003, may
close it; ``ping_s=0``: silent, closed by the silence deadline, 4002) and ``half_open``
HTTP connections that send half a request's headers and stop (closed by the request
deadline, ``server/web/httpdeadline.py``).  It reports how many the server closed within
its deadline (plus ``margin_s``), how many it refused at the door (admission control),
``/healthz`` latency before and while they are held, and the server's memory."""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import time
from typing import Any
from urllib.parse import urlsplit

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from ligretto.harness.client import Pacer
from ligretto.harness.probes import rss_of
from ligretto.harness.run import server_urls
from ligretto.harness.scenario import ScenarioReport
from ligretto.sim.stats import percentile

OPENING = 100
"""Connections being opened at once (more would overflow the server's listen backlog)."""


class Held:
    """What became of the connections of one kind: opened, refused at the door, closed by
    the server (and how many of those within the deadline), the close codes, and the
    shortest and longest time any stayed open."""

    def __init__(self, deadline_s: float) -> None:
        self.deadline_s = deadline_s
        self.tried = 0
        self.settled = 0
        """Connections opened or refused so far."""
        self.refused: dict[str, int] = {}
        self.closed_by_server = 0
        self.in_time = 0
        self.codes: dict[str, int] = {}
        self.longest_s = 0.0
        self.shortest_s = math.inf

    def closed(self, opened: float, code: int | None) -> None:
        held = time.monotonic() - opened
        self.closed_by_server += 1
        self.in_time += held <= self.deadline_s
        self.longest_s = max(self.longest_s, held)
        self.shortest_s = min(self.shortest_s, held)
        if code is not None:
            self.codes[str(code)] = self.codes.get(str(code), 0) + 1

    def report(self) -> dict[str, Any]:
        return {
            "tried": self.tried,
            "refused": dict(sorted(self.refused.items())),
            "closed_by_server": self.closed_by_server,
            "closed_in_time": self.in_time,
            "close_codes": dict(sorted(self.codes.items())),
            "deadline_s": self.deadline_s,
            "shortest_open_s": round(self.shortest_s, 2) if self.closed_by_server else None,
            "longest_open_s": round(self.longest_s, 2),
        }


async def _idle_socket(ws_url: str, ping_s: float, wait_s: float, held: Held, gate: Pacer) -> None:
    """One WebSocket that never says hello, until the server closes it (or ``wait_s``)."""
    held.tried += 1
    async with gate.slots:
        await gate.turn()
        try:
            ws = await connect(ws_url, compression=None, ping_interval=None, proxy=None, open_timeout=30)
        except InvalidStatus as error:
            status = str(error.response.status_code)
            held.refused[status] = held.refused.get(status, 0) + 1
            held.settled += 1
            return
    held.settled += 1
    opened = time.monotonic()
    try:
        async with asyncio.timeout(wait_s):
            while True:
                if ping_s <= 0:
                    await ws.recv()
                    continue
                # A ping every ping_s (its pong and anything else read in between).
                await ws.send(json.dumps({"type": "ping", "t": 0.0}))
                next_ping = time.monotonic() + ping_s
                with contextlib.suppress(TimeoutError):
                    while (left := next_ping - time.monotonic()) > 0:
                        await asyncio.wait_for(ws.recv(), left)
    except ConnectionClosed:
        held.closed(opened, ws.close_code)
    except TimeoutError:
        pass  # still open: not closed by the server
    finally:
        await ws.close()


async def _half_open(host: str, port: int, wait_s: float, held: Held, gate: Pacer) -> None:
    """One HTTP connection with half a request's headers sent, until the server closes it."""
    held.tried += 1
    async with gate.slots:
        await gate.turn()
        reader, writer = await asyncio.open_connection(host, port)
    held.settled += 1
    opened = time.monotonic()
    writer.write(b"GET /healthz HTTP/1.1\r\nHost: stress\r\nX-Half: ")
    try:
        async with asyncio.timeout(wait_s):
            while await reader.read(4096):
                pass
        held.closed(opened, None)
    except ConnectionError:
        held.closed(opened, None)
    except TimeoutError:
        pass
    finally:
        writer.close()


async def healthz_ms(host: str, port: int) -> float:
    """The time of one ``GET /healthz`` on a fresh connection, in milliseconds."""
    start = time.perf_counter()
    reader, writer = await asyncio.open_connection(host, port)
    writer.write(b"GET /healthz HTTP/1.1\r\nHost: stress\r\nConnection: close\r\n\r\n")
    answer = await asyncio.wait_for(reader.read(), 30.0)
    writer.close()
    if b" 200 " not in answer.split(b"\r\n", 1)[0]:
        raise ConnectionError(f"/healthz answered {answer[:40]!r}")
    return 1000 * (time.perf_counter() - start)


async def _probe(host: str, port: int, every_s: float, times: list[float], stop: asyncio.Event) -> None:
    while not stop.is_set():
        times.append(await healthz_ms(host, port))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), every_s)


def _latency(times: list[float]) -> dict[str, Any]:
    if not times:
        return {"probes": 0}
    return {
        "probes": len(times),
        "p50_ms": round(percentile(times, 0.5), 2),
        "p99_ms": round(percentile(times, 0.99), 2),
        "max_ms": round(max(times), 2),
    }


async def run_idle(
    url: str,
    sockets: int,
    half_open: int,
    *,
    ping_s: float = 3.0,
    hello_s: float = 10.0,
    request_timeout_s: float = 10.0,
    margin_s: float = 2.0,
    open_rate: float = 0.0,
    server_pid: int | None = None,
) -> ScenarioReport:
    """Idle WebSockets and half-open HTTP connections held against the server at ``url``
    (whose deadlines are ``hello_s`` and ``request_timeout_s``), opened ``OPENING`` at a
    time and at most ``open_rate`` a second (0: as fast as they open); the report (tried:
    the connections asked for; details: each kind's, ``/healthz`` before, while held,
    after)."""
    base, ws_url = server_urls(url)
    parts = urlsplit(base)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    rss_before = rss_of(server_pid)[0] if server_pid else None
    before = [await healthz_ms(host, port) for _ in range(20)]
    sockets_held, half_held = Held(hello_s + margin_s), Held(request_timeout_s + margin_s)
    wait_s = max(hello_s, request_timeout_s) + 2 * margin_s
    gate = Pacer(open_rate if open_rate > 0 else 1e9, OPENING)
    during: list[float] = []
    stop = asyncio.Event()
    probe = asyncio.create_task(_probe(host, port, 0.25, during, stop))
    start = time.monotonic()
    idle = [_idle_socket(ws_url, ping_s, wait_s, sockets_held, gate) for _ in range(sockets)]
    half = [_half_open(host, port, wait_s, half_held, gate) for _ in range(half_open)]
    held = asyncio.gather(*idle, *half)
    # The server's memory while (nearly) every connection is open: once all are opened.
    while sockets_held.settled + half_held.settled < sockets + half_open and not held.done():
        await asyncio.sleep(0.05)
    rss_held = rss_of(server_pid)[0] if server_pid else None
    opening_s = time.monotonic() - start
    await held
    seconds = time.monotonic() - start
    stop.set()
    try:
        await probe
        after = [await healthz_ms(host, port) for _ in range(5)]
        alive = True
    except (OSError, TimeoutError):
        after, alive = [], False
    return ScenarioReport(
        scenario="idle",
        what="idle and half-open connections",
        tried=sockets + half_open,
        seconds=round(seconds, 1),
        crashes=0 if alive else 1,
        # left open past the deadline and its margin, or closed for another reason
        wrong_answers=sum(held.tried - held.in_time - sum(held.refused.values()) for held in (sockets_held, half_held)),
        rss_before=rss_before,
        rss_after=rss_of(server_pid)[0] if server_pid else None,
        details={
            "websockets_without_hello": sockets_held.report() | {"ping_s": ping_s},
            "half_open_http": half_held.report(),
            "healthz_before": _latency(before),
            "healthz_during": _latency(during),
            "healthz_after": _latency(after),
            "server_rss_held_bytes": rss_held,
            "open_rate": open_rate or None,
            "opened_per_s": round((sockets + half_open) / opening_s, 1) if opening_s else None,
        },
    )
