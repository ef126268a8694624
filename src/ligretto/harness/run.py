"""``ligretto loadtest``: many real WebSocket clients playing at a human pace against a server.

It creates ``tables`` tables over the HTTP API and seats ``players`` clients at each
(real ``websockets`` connections, all from this one process; ``client.py``): the
first to join is the host, who sets ``match_end`` to ``rounds:1000`` (the match never
ends during a test) and starts the match.  Each client then plays the greedy bot's own
strategy (``bots.strategies``) on its copy of the round (``ligretto.client``) at
a human pace (the chosen level's reaction times), one action in flight at a time, and
sends ``ready`` after every round.

Measured, for the actions sent during the measuring window (which opens once every table
has started its first round, and the clients have played on for :data:`SETTLE_S` since the
collection that freezes them):

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
import resource
import sys
import time
import urllib.error
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from websockets.exceptions import ConnectionClosed

from ligretto.bots.reaction import LEVELS
from ligretto.harness.client import Client, ClientSettings, Pacer, TableRun
from ligretto.harness.figures import Figures, build_report, format_report
from ligretto.harness.probes import Cpu, GcPauses, Memory, http, metrics, server_gc, server_latency, server_loop_lag
from ligretto.harness.queueload import format_queue_report, run_queue_load

MATCH_END = "rounds:1000"
"""So that no match ends during a test."""
DRAIN_S = 0.5
"""Seconds between the last acknowledged action and closing the connections."""
SETTLE_S = 1.0
"""Seconds the clients play, unmeasured, between the collection that freezes them and the
window.  That collection pauses every client (about 0.15 s at 1,000 tables); back, they act
at once, 1,800 actions in 0.1 s, and the server takes 0.4 s to catch up: measured from
there, those acks were the whole of the p99 over 50 ms at 1,000 tables (issue 31)."""
DESCRIPTION = "Many real WebSocket clients playing at a human pace against a ligretto server."


_HTTP_OF = {"ws": "http", "wss": "https", "http": "http", "https": "https"}


def server_urls(url: str) -> tuple[str, str]:
    """The server's HTTP base and its WebSocket endpoint, from either kind of URL:
    ``http://h:8000`` or ``ws://h:8000`` (``https``/``wss`` alike); a ``/ws`` path is the
    endpoint itself."""
    parts = urlsplit(url.strip())
    scheme = _HTTP_OF.get(parts.scheme.lower())
    if scheme is None or not parts.netloc:
        raise ValueError(f"bad server URL {url!r}: expected http://, https://, ws:// or wss:// and a host")
    path = parts.path.rstrip("/")
    path = path.removesuffix("/ws")
    base = urlunsplit((scheme, parts.netloc, path, "", ""))
    socket = urlunsplit(("wss" if scheme == "https" else "ws", parts.netloc, f"{path}/ws", "", ""))
    return base, socket


# --- setting up a table ------------------------------------------------------------------


async def seat_table(table: TableRun, players: int, settings: ClientSettings, figures: Figures, pacer: Pacer) -> bool:
    """Connect a table's clients (the host first), set the rules, start, wait for "go"."""
    clients = [Client(table, i, settings, figures) for i in range(players)]
    table.clients = clients
    first = await clients[0].open(pacer)
    rest = await asyncio.gather(*(c.open(pacer) for c in clients[1:]))
    joined = [c for c, ok in zip(clients, [first, *rest], strict=True) if ok]
    host = next((c for c in joined if c.session.seat == table.host_seat), None)
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


async def create_tables(
    base: str, count: int, players: int, figures: Figures, *, source: str | None = None
) -> list[TableRun]:
    """``count`` tables of ``players`` seats over the HTTP API (from the address ``source``
    if given: the stress harness's measuring tables come from another loopback address than
    its attack, so the per-address quota of tables counts only the attack)."""
    slots = asyncio.Semaphore(8)

    async def create() -> TableRun | None:
        async with slots:
            try:
                reply = await asyncio.to_thread(http, f"{base}/api/tables", {"seats": players}, source=source)
                code = json.loads(reply)["code"]
            except Exception as error:
                figures.tables_failed += 1
                figures.error("create_table", f"{type(error).__name__}: {error}")
                return None
        figures.tables_created += 1
        return TableRun(code)

    made = await asyncio.gather(*(create() for _ in range(count)))
    return [table for table in made if table is not None]


# --- the run -----------------------------------------------------------------------------


class NoServer(Exception):
    """No server answers at the URL, or it makes no table: nothing to measure (exit code 1)."""


def check_sizes(tables: int, players: int, flood: int, **positive: float) -> None:
    """``ValueError`` naming the first option out of its range (``positive``: each by the
    name of its option, ``connect_rate`` for ``--connect-rate``, more than 0 and finite)."""
    if not 2 <= players <= 12:
        raise ValueError(f"--players must be 2-12, not {players}")
    if tables < 1 or flood < 0:
        raise ValueError(f"--tables must be at least 1 and --flood 0 or more, not {tables} and {flood}")
    for name, value in positive.items():
        if not 0 < value < math.inf:
            raise ValueError(f"--{name.replace('_', '-')} must be more than 0, not {value:g}")


async def reach(base: str, timeout: float) -> None:
    """:class:`NoServer` if nothing answers at ``base`` (its ``/healthz``) within ``timeout``."""
    try:
        await asyncio.to_thread(http, f"{base}/healthz", timeout=timeout)
    except urllib.error.HTTPError:
        return  # it answers: what it answers is the run's to count
    except (OSError, ValueError) as error:
        reason = getattr(error, "reason", error)
        raise NoServer(f"cannot reach {base}: {getattr(reason, 'strerror', None) or reason}") from None


def raise_file_limit() -> int:
    """Raise the soft limit on open files to the hard limit; return the new soft limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


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
    flood: int = 0,
) -> dict[str, Any]:
    """Run one load test against the server at ``url`` and return its report (see module doc)."""
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}: expected one of {', '.join(LEVELS)}")
    check_sizes(tables, players, flood, duration=duration, speed=speed, timeout=timeout, connect_rate=connect_rate)
    base, ws_url = server_urls(url)
    await reach(base, timeout)
    settings = ClientSettings(
        ws_url=ws_url,
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
    memory = Memory(base, server_pid)
    await memory.read("before")

    # 1. Tables, connections, every match started.
    setup_start = time.perf_counter()
    runs = await create_tables(base, tables, players, figures)
    if not runs:  # nothing to measure: a report of nothing would only look like one
        raise NoServer(f"{base} made no table: {figures.error_samples[0].removeprefix('create_table: ')}")
    pacer = Pacer(connect_rate, connect_concurrency)
    started = await asyncio.gather(*(seat_table(t, players, settings, figures, pacer) for t in runs))
    figures.tables_started = sum(started)
    setup_s = time.perf_counter() - setup_start

    # 2. The measuring window (with ``flood`` flooding clients at tables of their own).
    flooders = await _start_flood(base, flood, duration) if flood else None
    gc.collect()
    gc.freeze()  # the clients and tables live all along: no collection needs to scan them
    # No collection during the window: the clients' round models and strategies make garbage
    # at every event, and this process's collections paused every client for up to 96 ms at
    # 1,000 tables, inside the latencies measured (docs/benchmarks.md, issue 31).  What is
    # cyclic of that garbage (about 1 MB a second at 1,000 tables) is collected after.
    gc.disable()
    await asyncio.sleep(SETTLE_S)  # the clients catch up on the collection's pause, unmeasured
    metrics_before = await metrics(base)
    cpu = Cpu(server_pid)
    window_start = time.perf_counter()
    lag = asyncio.create_task(_loop_lag(window_start + duration))
    with GcPauses() as gc_pauses:
        await asyncio.sleep(duration)
        window_end = time.perf_counter()
        lags = await lag
    cpu.stop()
    await memory.read("after")
    metrics_after = await metrics(base)
    flood_report = None if flooders is None else await _flood_report(flooders, figures)

    gc.enable()
    gc.unfreeze()
    gc.collect()

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
    return build_report(
        figures=figures,
        request={"url": url, "tables": tables, "players": players, "duration_s": duration, "level": level},
        window=(window_start, window_end),
        setup_s=setup_s,
        memory=memory,
        cpu=cpu,
        server_latency=server_latency(metrics_before, metrics_after),
        server_gc=server_gc(metrics_before, metrics_after),
        server_loop_lag=server_loop_lag(metrics_before, metrics_after),
        extra={
            "speed": speed,
            "compression": compression,
            "file_limit": file_limit,
            "flood": flood_report,
            "settle_s": SETTLE_S,
        },
        lags=lags,
        gc_pauses=gc_pauses.pauses,
    )


async def _start_flood(base: str, clients: int, duration: float) -> asyncio.subprocess.Process:
    """The flooding clients in a process of their own (``harness/flood.py``), once ready."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "ligretto.harness.flood",
        "--url",
        base,
        "--clients",
        str(clients),
        "--duration",
        str(duration),
        stdout=asyncio.subprocess.PIPE,
    )
    assert process.stdout is not None
    line = await process.stdout.readline()
    if line.strip() != b"ready":
        raise RuntimeError(f"the flooding clients did not start: {line!r}")
    return process


async def _flood_report(process: asyncio.subprocess.Process, figures: Figures) -> dict[str, Any] | None:
    assert process.stdout is not None
    out = await process.stdout.read()
    await process.wait()
    try:
        report: dict[str, Any] = json.loads(out.decode().strip().splitlines()[-1])
    except (ValueError, IndexError):
        figures.error("flood", f"the flooding clients exited with {process.returncode}")
        return None
    return report


LAG_TICK_S = 0.05


async def _loop_lag(until: float) -> list[float]:
    """How late this process's own event loop wakes up (every 50 ms): when the clients
    themselves are slow, the latencies they measure are inflated by this much."""
    lags = []
    while (now := time.perf_counter()) < until:
        await asyncio.sleep(LAG_TICK_S)
        lags.append(max(0.0, time.perf_counter() - now - LAG_TICK_S))
    return lags


# --- the command -------------------------------------------------------------------------


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """The command's options (on ``parser``: the command line gives its own, whose errors
    are one line, ``ligretto loadtest: error: ...``)."""
    parser = parser or argparse.ArgumentParser(prog="ligretto loadtest", description=DESCRIPTION)
    parser.add_argument(
        "--url",
        default="http://127.0.0.1:8000",
        help="the server, http(s):// or ws(s):// (default http://127.0.0.1:8000)",
    )
    parser.add_argument("--tables", type=int, default=10, help="tables to create (default 10)")
    parser.add_argument("--players", type=int, default=4, help="clients per table, 2-12 (default 4)")
    parser.add_argument("--duration", type=float, default=30.0, help="seconds measured once all play (default 30)")
    parser.add_argument("--level", default="casual", choices=list(LEVELS), help="reaction times (default casual)")
    parser.add_argument("--speed", type=float, default=1.0, help="divide reaction times by this (default 1)")
    parser.add_argument("--server-pid", type=int, help="the server's process id, to read its memory from /proc")
    parser.add_argument("--no-compression", action="store_true", help="do not offer permessage-deflate")
    parser.add_argument("--connect-rate", type=float, default=200.0, help="new connections a second (default 200)")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds to wait for a reply (default 10)")
    parser.add_argument(
        "--flood", type=int, default=0, help="also run this many flooding clients, each at a table of its own"
    )
    parser.add_argument(
        "--queue",
        action="store_true",
        help="instead: people arriving at the matchmaking queue (tables of --players; queueload.py)",
    )
    parser.add_argument("--arrivals", type=int, default=100, help="with --queue: people a minute (default 100)")
    parser.add_argument(
        "--queue-countdown", type=float, default=30.0, help="with --queue: the server's queue countdown (default 30)"
    )
    parser.add_argument(
        "--ratings",
        metavar="DB",
        help="with --queue: each arrival with a profile of a drawn rating, made in the server's database DB"
        " (its --db: a file on this machine, or postgresql://...)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    return parser


def main(argv: Sequence[str] | None = None, parser: argparse.ArgumentParser | None = None) -> int:
    """Run a load test: exit code 0 if nothing failed, 1 if anything did (an error, a
    connection that failed, no server), 2 for bad arguments (one line each)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--"]:  # ``ligretto loadtest -- --tables 5``
        argv = argv[1:]
    parser = build_parser(parser)
    try:
        args = parser.parse_args(argv)
        if args.queue:
            return _queue_load(args)
        if args.ratings is not None:
            raise ValueError("--ratings: only with --queue (the arrivals' profiles)")
        report = on_uvloop(
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
                flood=args.flood,
            )
        )
    except SystemExit as stop:  # -h, or a bad argument already reported in one line
        return stop.code if isinstance(stop.code, int) else 2
    except NoServer as error:
        print(f"{parser.prog}: {error}", file=sys.stderr)
        return 1
    except ValueError as error:
        print(f"{parser.prog}: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{parser.prog}: interrupted", file=sys.stderr)
        return 130
    print(json.dumps(report, indent=2) if args.json else format_report(report))
    if report["server_memory"]["source"] is None and args.json:
        print(f"{parser.prog}: server memory unknown: pass --server-pid PID (same machine)", file=sys.stderr)
    return 1 if report["errors"] else 0


def _queue_load(args: argparse.Namespace) -> int:
    """``--queue``: the arrivals' run (``queueload.py``); exit code 1 if anything failed."""
    check_sizes(1, args.players, 0, duration=args.duration, arrivals=args.arrivals, timeout=args.timeout)
    base, socket = server_urls(args.url)
    on_uvloop(reach(base, args.timeout))
    try:
        report = _arrivals(args, socket)
    except FileNotFoundError as error:  # --ratings: no database there
        raise ValueError(f"--ratings: {error}") from None
    print(json.dumps(report, indent=2) if args.json else format_queue_report(report))
    return 1 if report["errors"] else 0


def _arrivals(args: argparse.Namespace, socket: str) -> dict[str, Any]:
    return on_uvloop(
        run_queue_load(
            socket,
            args.arrivals,
            args.duration,
            args.players,
            countdown_s=args.queue_countdown,
            timeout=args.timeout,
            ratings=args.ratings,
        )
    )


def on_uvloop(coroutine: Any) -> dict[str, Any]:
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
