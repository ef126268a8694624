"""What ``ligretto loadtest`` reads of the server and of its own process: the server's
memory and CPU (``/proc``, ``--server-pid``), its ``/metrics`` (action latency, garbage
collector pauses), this process's own collector pauses; plain HTTP requests."""

from __future__ import annotations

import asyncio
import gc
import http.client as http_client
import json
import math
import os
import resource
import time
import urllib.request
from typing import Any

from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed

from ligretto.testkit.metricspage import samples


async def drain(ws: ClientConnection) -> None:
    """Read (and drop) what the server sends a connection until it closes, so the
    server's sends to it never wait on this client."""
    try:
        async for _ in ws:
            pass
    except ConnectionClosed:
        pass


def http(url: str, body: dict[str, Any] | None = None, timeout: float = 10.0, *, source: str | None = None) -> bytes:
    """GET ``url`` (POST ``body`` as JSON if given), from the local address ``source`` if
    given (another loopback address: 127.0.0.2); the answer's bytes, an HTTP error raised."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    handlers: list[urllib.request.BaseHandler] = [urllib.request.ProxyHandler({})]
    if source is not None:
        handlers.append(_FromAddress(source))
    with urllib.request.build_opener(*handlers).open(request, timeout=timeout) as response:
        payload: bytes = response.read()
        return payload


class _FromAddress(urllib.request.HTTPHandler):
    """Plain HTTP connections from one local address."""

    def __init__(self, address: str) -> None:
        super().__init__()
        self.address = address

    def http_open(self, req: urllib.request.Request) -> http_client.HTTPResponse:
        def connection(host: str, **kwargs: Any) -> http_client.HTTPConnection:
            return http_client.HTTPConnection(host, source_address=(self.address, 0), **kwargs)

        return self.do_open(connection, req)


async def alive(base: str, pid: int | None = None) -> bool:
    """Whether the server at ``base`` still answers ``/healthz`` with ``ok`` (and, given its
    process id, that process still runs): a stress scenario's crash check."""
    try:
        healthy = json.loads(await asyncio.to_thread(http, f"{base}/healthz")).get("status") == "ok"
    except Exception:
        return False
    return bool(healthy) and (pid is None or rss_of(pid)[0] is not None)


def rss_of(pid: int) -> tuple[int | None, int | None]:
    """(VmRSS, VmHWM) of a process in bytes, from /proc/PID/status."""
    values: dict[str, int] = {}
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                key, _, rest = line.partition(":")
                if key in ("VmRSS", "VmHWM"):
                    values[key] = int(rest.split()[0]) * 1024
    except OSError:
        return None, None
    return values.get("VmRSS"), values.get("VmHWM")


def cpu_seconds_of(pid: int) -> float | None:
    """User plus system CPU seconds a process has used, from /proc/PID/stat."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            fields = stat.read().rpartition(")")[2].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def metrics(base: str) -> dict[str, float]:
    try:
        return samples((await asyncio.to_thread(http, f"{base}/metrics")).decode())
    except Exception:
        return {}


Observed = tuple[float, float, list[tuple[float, float]]]
"""A histogram's observations in a window: (count, sum, [(bound, count up to it)])."""


def _histogram(name: str, before: dict[str, float], after: dict[str, float]) -> Observed:
    """A histogram's observations during the window, from two pages of ``/metrics`` (:data:`Observed`)."""
    count = after.get(f"{name}_count", 0.0) - before.get(f"{name}_count", 0.0)
    total = after.get(f"{name}_sum", 0.0) - before.get(f"{name}_sum", 0.0)
    buckets = sorted(
        (float(key.split('le="')[1].rstrip('"}')), after[key] - before.get(key, 0.0))
        for key in after
        if key.startswith(f"{name}_bucket")
    )
    return count, total, buckets


def _p99(observed: Observed) -> float:
    """The upper bound of the bucket the 99th percentile fell in (inf: past the last one)."""
    count, _, buckets = observed
    return next((le for le, n in buckets if n >= 0.99 * count), math.inf)


def server_latency(before: dict[str, float], after: dict[str, float]) -> dict[str, Any]:
    """The server's own action handling time during the window (``ligretto_action_latency``)."""
    observed = _histogram("ligretto_action_latency_seconds", before, after)
    count, total, _ = observed
    if count <= 0:
        return {"actions": 0}
    return {"actions": int(count), "mean_ms": round(1000 * total / count, 3), "p99_bucket_ms": 1000 * _p99(observed)}


def server_loop_lag(before: dict[str, float], after: dict[str, float]) -> dict[str, Any]:
    """How late the server's event loop was during the window (``ligretto_loop_lag_seconds``,
    a look every 50 ms): the looks, their mean, the bucket their 99th percentile fell in,
    and how many were over 50 ms."""
    observed = _histogram("ligretto_loop_lag_seconds", before, after)
    count, total, buckets = observed
    if count <= 0:
        return {"looks": 0}
    within_50 = next((n for le, n in buckets if le == 0.05), count)
    return {
        "looks": int(count),
        "mean_ms": round(1000 * total / count, 2),
        "p99_bucket_ms": 1000 * _p99(observed),
        "over_50_ms": int(count - within_50),
    }


def server_gc(before: dict[str, float], after: dict[str, float]) -> dict[str, Any]:
    """The server's garbage-collector pauses during the window (``ligretto_gc_pause_seconds``),
    by generation (2: full collections): how many, their total, and the bucket the longest
    fell in (``longest_under_ms``)."""
    name = "ligretto_gc_pause_seconds"
    report: dict[str, Any] = {}
    for generation in ("0", "1", "2"):
        label = f'generation="{generation}"'
        count = after.get(f"{name}_count{{{label}}}", 0.0) - before.get(f"{name}_count{{{label}}}", 0.0)
        total = after.get(f"{name}_sum{{{label}}}", 0.0) - before.get(f"{name}_sum{{{label}}}", 0.0)
        bounds = sorted(
            float(key.split('le="')[1].split('"')[0])
            for key in after
            if key.startswith(f"{name}_bucket{{{label}") and after[key] > before.get(key, 0.0)
        )
        report[generation] = {
            "collections": int(count),
            "total_ms": round(1000 * total, 1),
            "longest_under_ms": 1000 * bounds[0] if bounds else None,
        }
    return report


class GcPauses:
    """The garbage collector's pauses in this process while it is entered."""

    def __init__(self) -> None:
        self.pauses: list[float] = []
        self._start = 0.0

    def _callback(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._start = time.perf_counter()
        else:
            self.pauses.append(time.perf_counter() - self._start)

    def __enter__(self) -> GcPauses:
        gc.callbacks.append(self._callback)
        return self

    def __exit__(self, *exc: object) -> None:
        gc.callbacks.remove(self._callback)


class Memory:
    """The server's resident memory, from /proc (``--server-pid``) or from /metrics."""

    def __init__(self, base: str, pid: int | None) -> None:
        self.base = base
        self.pid = pid
        self.source: str | None = None
        self.values: dict[str, int | None] = {}
        self.peak: int | None = None

    async def read(self, when: str) -> None:
        if self.pid is not None:
            rss, self.peak = rss_of(self.pid)
            self.source = f"/proc/{self.pid}/status" if rss is not None else None
        else:
            value = (await metrics(self.base)).get("process_resident_memory_bytes")
            rss = None if value is None else int(value)
            self.source = "/metrics" if rss is not None else None
        self.values[when] = rss


class Cpu:
    """CPU used by the server (``--server-pid``) and by this process over the window."""

    def __init__(self, pid: int | None) -> None:
        self.pid = pid
        self.wall = time.perf_counter()
        self.server = None if pid is None else cpu_seconds_of(pid)
        self.own = own_cpu()
        self.figures: dict[str, float | None] = {}

    def stop(self) -> None:
        wall = time.perf_counter() - self.wall
        server = None if self.pid is None else cpu_seconds_of(self.pid)
        used = None if server is None or self.server is None else server - self.server
        self.figures = {
            "server_percent": None if used is None else round(100 * used / wall, 1),
            "loadtest_percent": round(100 * (own_cpu() - self.own) / wall, 1),
        }


def own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime
