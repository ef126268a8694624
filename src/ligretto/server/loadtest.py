"""``ligretto loadtest``: many real WebSocket clients playing at a human pace against a server.

It creates ``tables`` tables over the HTTP API and seats ``players`` clients at each
(real ``websockets`` connections, all from this one process; ``loadclient.py``): the
first to join is the host, who sets ``match_end`` to ``rounds:1000`` (the match never
ends during a test) and starts the match.  Each client then plays like the greedy bot at
a human pace (the chosen level's reaction times), one action in flight at a time, and
sends ``ready`` after every round.

Measured, for the actions sent during the measuring window (which opens once every table
has started its first round):

- ack latency: from sending ``act`` to receiving the ``ack`` with the same ``id``;
- fan-out latency: from sending ``act`` to each *other* client at the table receiving
  the ``events`` message it caused (matched exactly: by round and ``seq``, the action's
  index in the round's log, which the sender learns from its own copy of the events; a
  copy that reaches another client first belongs to the sender's action in flight);
- actions per second, refusals by reason, errors (server error messages, unexpected
  closes, timeouts), failed connections, and the server's resident memory before the
  clients connect and at the end of the window, per connection;
- how late this process's own event loop ran and its garbage collector's pauses: the
  clients share the machine with the server, and their own delays count in the latencies.

The server's memory is read from ``/proc/PID/status`` with ``--server-pid`` (same
machine), else from ``process_resident_memory_bytes`` on ``/metrics`` if the server
exports it (ours uses a private registry without process metrics, so it does not).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import math
import os
import resource
import sys
import time
import urllib.request
from array import array
from collections.abc import Sequence
from typing import Any, NoReturn

from websockets.exceptions import ConnectionClosed

from ligretto.bots.reaction import LEVELS
from ligretto.server.loadclient import Client, ClientSettings, Figures, Pacer, TableRun

MATCH_END = "rounds:1000"
"""So that no match ends during a test."""
DRAIN_S = 0.5
"""Seconds between the last acknowledged action and closing the connections."""
TARGETS = {"ack_p99_ms": 50.0, "fanout_p99_ms": 100.0, "errors": 0, "server_bytes_per_connection": 100 * 1024}
"""The issue's targets: p99 ack < 50 ms, p99 fan-out < 100 ms, no errors, < 100 KiB a connection."""
DESCRIPTION = "Many real WebSocket clients playing at a human pace against a ligretto server."


# --- setting up a table ------------------------------------------------------------------


async def _seat_table(table: TableRun, players: int, settings: ClientSettings, figures: Figures, pacer: Pacer) -> bool:
    """Connect a table's clients (the host first), set the rules, start, wait for "go"."""
    clients = [Client(table, i, settings, figures) for i in range(players)]
    table.clients = clients
    first = await clients[0].open(pacer)
    rest = await asyncio.gather(*(c.open(pacer) for c in clients[1:]))
    joined = [c for c, ok in zip(clients, [first, *rest], strict=True) if ok]
    host = next((c for c in joined if c.seat == table.host_seat), None)
    if host is None or len(joined) < 2:
        figures.error("table_not_started", f"{table.code}: {len(joined)} of {players} joined")
        return False
    try:
        await host.send({"type": "set_rules", "options": {"match_end": MATCH_END}})
        await host.send({"type": "start"})
        await asyncio.wait_for(host.playing.wait(), settings.timeout + 5)
    except (TimeoutError, ConnectionClosed) as error:
        figures.error("table_not_started", f"{table.code}: {type(error).__name__} {error}")
        return False
    for client in joined:
        client.start_playing()
    return True


def _http(url: str, body: dict[str, Any] | None = None, timeout: float = 10.0) -> bytes:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(request, timeout=timeout) as response:
        payload: bytes = response.read()
        return payload


async def _create_tables(base: str, count: int, players: int, figures: Figures) -> list[TableRun]:
    slots = asyncio.Semaphore(8)

    async def create() -> TableRun | None:
        async with slots:
            try:
                reply = await asyncio.to_thread(_http, f"{base}/api/tables", {"seats": players})
                code = json.loads(reply)["code"]
            except Exception as error:
                figures.tables_failed += 1
                figures.error("create_table", f"{type(error).__name__}: {error}")
                return None
        figures.tables_created += 1
        return TableRun(code)

    made = await asyncio.gather(*(create() for _ in range(count)))
    return [table for table in made if table is not None]


# --- the server's side: memory, CPU, its own latency histogram ---------------------------


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


def parse_metrics(text: str) -> dict[str, float]:
    """The samples of a Prometheus text page, by name with labels."""
    samples = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            with contextlib.suppress(ValueError):
                samples[name] = float(value)
    return samples


async def _metrics(base: str) -> dict[str, float]:
    try:
        return parse_metrics((await asyncio.to_thread(_http, f"{base}/metrics")).decode())
    except Exception:
        return {}


def _server_latency(before: dict[str, float], after: dict[str, float]) -> dict[str, Any]:
    """The server's own action handling time during the window (``ligretto_action_latency``)."""
    name = "ligretto_action_latency_seconds"
    count = after.get(f"{name}_count", 0.0) - before.get(f"{name}_count", 0.0)
    if count <= 0:
        return {"actions": 0}
    total = after.get(f"{name}_sum", 0.0) - before.get(f"{name}_sum", 0.0)
    buckets = sorted(
        (float(key.split('le="')[1].rstrip('"}')), after[key] - before.get(key, 0.0))
        for key in after
        if key.startswith(f"{name}_bucket")
    )
    p99 = next((le for le, n in buckets if n >= 0.99 * count), math.inf)
    return {"actions": int(count), "mean_ms": round(1000 * total / count, 3), "p99_bucket_ms": 1000 * p99}


def _server_gc(before: dict[str, float], after: dict[str, float]) -> dict[str, Any]:
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


# --- the run -----------------------------------------------------------------------------


def raise_file_limit() -> int:
    """Raise the soft limit on open files to the hard limit; return the new soft limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def percentiles(values: list[float]) -> dict[str, float | None]:
    """p50/p95/p99/max in milliseconds (nearest rank)."""
    if not values:
        return {"p50": None, "p95": None, "p99": None, "max": None, "n": 0}
    ordered = sorted(values)

    def rank(q: float) -> float:
        return round(1000 * ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))], 2)

    return {
        "p50": rank(0.50),
        "p95": rank(0.95),
        "p99": rank(0.99),
        "max": round(1000 * ordered[-1], 2),
        "n": len(values),
    }


async def run_loadtest(
    url: str,
    tables: int,
    players: int,
    duration: float,
    level: str = "casual",
    *,
    server_pid: int | None = None,
    speed: float = 1.0,
    timeout: float = 10.0,
    compression: bool = True,
    connect_rate: float = 200.0,
    connect_concurrency: int = 64,
    seed: int = 0,
) -> dict[str, Any]:
    """Run one load test against the server at ``url`` and return its report (see module doc)."""
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}: expected one of {', '.join(LEVELS)}")
    if not 2 <= players <= 12 or tables < 1 or duration <= 0 or speed <= 0:
        raise ValueError("need 2-12 players, at least one table, a positive duration and speed")
    base = url.rstrip("/")
    settings = ClientSettings(
        ws_url=("ws" + base[4:] if base.startswith("http") else base) + "/ws",
        level=level,
        speed=speed,
        timeout=timeout,
        compression=compression,
        connect_rate=connect_rate,
        connect_concurrency=connect_concurrency,
        seed=seed,
    )
    file_limit = raise_file_limit()
    figures = Figures()
    memory = _Memory(base, server_pid)
    await memory.read("before")

    # 1. Tables, connections, every match started.
    setup_start = time.perf_counter()
    runs = await _create_tables(base, tables, players, figures)
    pacer = Pacer(connect_rate, connect_concurrency)
    started = await asyncio.gather(*(_seat_table(t, players, settings, figures, pacer) for t in runs))
    figures.tables_started = sum(started)
    setup_s = time.perf_counter() - setup_start

    # 2. The measuring window.
    metrics_before = await _metrics(base)
    gc.collect()
    gc.freeze()  # the clients and tables live all along: no collection needs to scan them
    cpu = _Cpu(server_pid)
    window_start = time.perf_counter()
    lag = asyncio.create_task(_loop_lag(window_start + duration))
    with _GcPauses() as gc_pauses:
        await asyncio.sleep(duration)
        window_end = time.perf_counter()
        lags = await lag
    cpu.stop()
    await memory.read("after")
    metrics_after = await _metrics(base)

    gc.unfreeze()

    # 3. Let the actions in flight come back, then close everything.
    clients = [c for t in runs for c in t.clients]
    for client in clients:
        client.stopping = True
        if client.player is not None and not client.in_flight:
            client.player.cancel()
    in_flight = [c.player for c in clients if c.player is not None and not c.player.done()]
    if in_flight:
        await asyncio.wait(in_flight, timeout=timeout)
    await asyncio.sleep(DRAIN_S)  # the last events on their way to the other clients
    await asyncio.gather(*(c.close() for c in clients))
    return _report(
        figures=figures,
        request={"url": url, "tables": tables, "players": players, "duration_s": duration, "level": level},
        window=(window_start, window_end),
        setup_s=setup_s,
        memory=memory,
        cpu=cpu,
        server_latency=_server_latency(metrics_before, metrics_after),
        server_gc=_server_gc(metrics_before, metrics_after),
        extra={"speed": speed, "compression": compression, "file_limit": file_limit},
        lags=lags,
        gc_pauses=gc_pauses.pauses,
    )


LAG_TICK_S = 0.05


async def _loop_lag(until: float) -> list[float]:
    """How late this process's own event loop wakes up (every 50 ms): when the clients
    themselves are slow, the latencies they measure are inflated by this much."""
    lags = []
    while (now := time.perf_counter()) < until:
        await asyncio.sleep(LAG_TICK_S)
        lags.append(max(0.0, time.perf_counter() - now - LAG_TICK_S))
    return lags


class _GcPauses:
    """The garbage collector's pauses in this process while it is entered."""

    def __init__(self) -> None:
        self.pauses: list[float] = []
        self._start = 0.0

    def _callback(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._start = time.perf_counter()
        else:
            self.pauses.append(time.perf_counter() - self._start)

    def __enter__(self) -> _GcPauses:
        gc.callbacks.append(self._callback)
        return self

    def __exit__(self, *exc: object) -> None:
        gc.callbacks.remove(self._callback)


class _Memory:
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
            value = (await _metrics(self.base)).get("process_resident_memory_bytes")
            rss = None if value is None else int(value)
            self.source = "/metrics" if rss is not None else None
        self.values[when] = rss


class _Cpu:
    """CPU used by the server (``--server-pid``) and by this process over the window."""

    def __init__(self, pid: int | None) -> None:
        self.pid = pid
        self.wall = time.perf_counter()
        self.server = None if pid is None else cpu_seconds_of(pid)
        self.own = _own_cpu()
        self.figures: dict[str, float | None] = {}

    def stop(self) -> None:
        wall = time.perf_counter() - self.wall
        server = None if self.pid is None else cpu_seconds_of(self.pid)
        used = None if server is None or self.server is None else server - self.server
        self.figures = {
            "server_percent": None if used is None else round(100 * used / wall, 1),
            "loadtest_percent": round(100 * (_own_cpu() - self.own) / wall, 1),
        }


def _own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _report(
    *,
    figures: Figures,
    request: dict[str, Any],
    window: tuple[float, float],
    setup_s: float,
    memory: _Memory,
    cpu: _Cpu,
    server_latency: dict[str, Any],
    server_gc: dict[str, Any],
    extra: dict[str, Any],
    lags: list[float],
    gc_pauses: list[float],
) -> dict[str, Any]:
    start, end = window
    seconds = end - start
    acks = _within(figures.ack_sent, figures.ack_latency, start, end)
    fanout = _within(figures.fanout_sent, figures.fanout_latency, start, end)
    sent_in_window = sum(1 for sent in figures.sent if start <= sent < end)
    errors = sum(figures.errors.values()) + figures.connections_failed
    before, after = memory.values.get("before"), memory.values.get("after")
    opened = figures.connections_opened
    per_connection = None if before is None or after is None or not opened else round((after - before) / opened)
    report: dict[str, Any] = {
        **request,
        **extra,
        "setup_s": round(setup_s, 2),
        "window_s": round(seconds, 2),
        "tables_created": figures.tables_created,
        "tables_started": figures.tables_started,
        "connections": opened,
        "connections_failed": figures.connections_failed,
        "connect_errors": figures.connect_errors,
        "actions": len(acks),
        "actions_sent": sent_in_window,
        "actions_per_s": round(len(acks) / seconds, 1),
        "refusals": sum(figures.refusals.values()),
        "refusal_reasons": dict(sorted(figures.refusals.items())),
        "late_actions": figures.late,
        "rounds_completed": figures.rounds_completed,
        "messages_received": figures.messages_received,
        "unmatched_events": figures.unmatched_events,
        "ack_ms": percentiles(acks),
        "fanout_ms": percentiles(fanout),
        "server_action_ms": server_latency,
        "server_gc": server_gc,
        "loadtest_loop_lag_ms": percentiles(lags),
        "loadtest_gc_ms": {
            "collections": len(gc_pauses),
            "total": round(1000 * sum(gc_pauses), 1),
            "max": round(1000 * max(gc_pauses, default=0.0), 2),
        },
        "errors": errors,
        "error_kinds": dict(sorted(figures.errors.items())),
        "error_samples": figures.error_samples,
        "cpu": cpu.figures,
        "server_memory": {
            "source": memory.source,
            "rss_before_bytes": before,
            "rss_after_bytes": after,
            "peak_bytes": memory.peak,
            "per_connection_bytes": per_connection,
        },
    }
    report["targets"] = _targets(report)
    return report


def _within(sent: array[float], latency: array[float], start: float, end: float) -> list[float]:
    """The latencies of the actions sent within [start, end)."""
    return [late for at, late in zip(sent, latency, strict=True) if start <= at < end]


def _targets(report: dict[str, Any]) -> dict[str, bool | None]:
    ack, fanout = report["ack_ms"]["p99"], report["fanout_ms"]["p99"]
    per_connection = report["server_memory"]["per_connection_bytes"]
    return {
        "ack_p99_under_50ms": None if ack is None else ack < TARGETS["ack_p99_ms"],
        "fanout_p99_under_100ms": None if fanout is None else fanout < TARGETS["fanout_p99_ms"],
        "zero_errors": report["errors"] == TARGETS["errors"],
        "memory_under_100KiB_per_connection": (
            None if per_connection is None else per_connection < TARGETS["server_bytes_per_connection"]
        ),
    }


# --- the command -------------------------------------------------------------------------


def format_report(report: dict[str, Any]) -> str:
    """The report for people."""
    ack, fan, lag = report["ack_ms"], report["fanout_ms"], report["loadtest_loop_lag_ms"]
    memory = report["server_memory"]

    def kib(value: int | None) -> str:
        return "unknown" if value is None else f"{value / 1024:,.0f} KiB"

    lines = [
        f"load test: {report['tables']} tables x {report['players']} players, level {report['level']}, "
        f"{report['window_s']} s measured (set-up {report['setup_s']} s)",
        f"connections   {report['connections']} opened, {report['connections_failed']} failed; "
        f"tables started {report['tables_started']}/{report['tables']}",
        f"actions       {report['actions']} acknowledged, {report['actions_per_s']}/s; "
        f"{report['refusals']} refused {report['refusal_reasons'] or ''}; {report['late_actions']} late; "
        f"{report['rounds_completed']} rounds completed",
        f"ack           p50 {ack['p50']} ms, p95 {ack['p95']} ms, p99 {ack['p99']} ms, max {ack['max']} ms",
        f"fan-out       p50 {fan['p50']} ms, p95 {fan['p95']} ms, p99 {fan['p99']} ms, max {fan['max']} ms",
        f"server        handling {report['server_action_ms']}; CPU {report['cpu']}",
        f"server GC     {_gc_line(report['server_gc'])}",
        f"client loop   late by p99 {lag['p99']} ms, max {lag['max']} ms (inflates the latencies above); "
        f"GC {report['loadtest_gc_ms']}",
        f"errors        {report['errors']} {report['error_kinds'] or ''}",
    ]
    lines.extend(f"              {sample}" for sample in report["error_samples"][:5])
    if memory["source"] is None:
        lines.append(
            "server memory unknown: the server does not export process_resident_memory_bytes; "
            "run the load test on the server's machine with --server-pid PID"
        )
    else:
        lines.append(
            f"server memory {kib(memory['rss_before_bytes'])} before, {kib(memory['rss_after_bytes'])} after, "
            f"{kib(memory['per_connection_bytes'])} per connection (from {memory['source']})"
        )
    met = ", ".join(
        f"{name}: {'yes' if ok else 'no' if ok is not None else '?'}" for name, ok in report["targets"].items()
    )
    lines.append(f"targets       {met}")
    return "\n".join(lines)


def _gc_line(gc_report: dict[str, Any]) -> str:
    if not any(g["collections"] for g in gc_report.values()):
        return "no collections reported (the server does not export ligretto_gc_pause_seconds?)"
    return "; ".join(
        f"gen {generation}: {g['collections']} in {g['total_ms']} ms"
        + (f", longest under {g['longest_under_ms']:g} ms" if g["longest_under_ms"] is not None else "")
        for generation, g in gc_report.items()
    )


class _Parser(argparse.ArgumentParser):
    """Bad arguments give one line, ``ligretto loadtest: error: ...``, and exit code 2."""

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(2)


def build_parser() -> argparse.ArgumentParser:
    """The command's options."""
    parser = _Parser(prog="ligretto loadtest", description=DESCRIPTION)
    parser.add_argument("--url", default="http://127.0.0.1:8000", help="the server (default http://127.0.0.1:8000)")
    parser.add_argument("--tables", type=int, default=10, help="tables to create (default 10)")
    parser.add_argument("--players", type=int, default=4, help="clients per table, 2-12 (default 4)")
    parser.add_argument("--duration", type=float, default=30.0, help="seconds measured once all play (default 30)")
    parser.add_argument("--level", default="casual", choices=list(LEVELS), help="reaction times (default casual)")
    parser.add_argument("--speed", type=float, default=1.0, help="divide reaction times by this (default 1)")
    parser.add_argument("--server-pid", type=int, help="the server's process id, to read its memory from /proc")
    parser.add_argument("--no-compression", action="store_true", help="do not offer permessage-deflate")
    parser.add_argument("--connect-rate", type=float, default=200.0, help="new connections a second (default 200)")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds to wait for a reply (default 10)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run a load test: exit code 0 if nothing failed, 1 if anything did (an error, a
    connection that failed), 2 for bad arguments."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--"]:  # ``ligretto loadtest -- --tables 5``
        argv = argv[1:]
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as stop:  # -h, or a bad argument already reported in one line
        return stop.code if isinstance(stop.code, int) else 2
    try:
        report = _run(
            run_loadtest(
                args.url,
                args.tables,
                args.players,
                args.duration,
                args.level,
                server_pid=args.server_pid,
                speed=args.speed,
                timeout=args.timeout,
                compression=not args.no_compression,
                connect_rate=args.connect_rate,
            )
        )
    except ValueError as error:
        print(f"ligretto loadtest: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("ligretto loadtest: interrupted", file=sys.stderr)
        return 130
    print(json.dumps(report, indent=2) if args.json else format_report(report))
    if report["server_memory"]["source"] is None and args.json:
        print("ligretto loadtest: server memory unknown: pass --server-pid PID (same machine)", file=sys.stderr)
    return 1 if report["errors"] else 0


def _run(coroutine: Any) -> dict[str, Any]:
    """Run on uvloop when it is installed (it comes with uvicorn[standard]): the clients
    then take less of the CPU they share with the server."""
    try:
        import uvloop  # noqa: PLC0415
    except ImportError:
        result: dict[str, Any] = asyncio.run(coroutine)
        return result
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        result = runner.run(coroutine)
        return result


if __name__ == "__main__":
    raise SystemExit(main())
