"""``ligretto bench --only fairness``: who wins the races for a pile over real WebSockets,
one player 10 ms and one 100 ms from the server, under ``arrival`` and ``fair`` judging
(issue 14, "Measured"; the figures are in docs/fairness.md).

A real ``ligretto serve`` (``ServerProcess``, its own SQLite file, a 1 s countdown) and
two delaying proxies in a process of their own (``delayproxy.py``: ``near_ms`` and
``far_ms`` one way, each direction).  For each *mode* ``tables`` two-seat tables (classic
rules, ``POST /api/tables`` with the mode's ``arbitration`` and ``window_ms``), each with
one near and one far :class:`~ligretto.harness.fairclient.FairClient` of the same bot
(``smart:skilled`` by default: the simulator's figures are for it), which of them joins
first (and sits in seat 0, the host) alternating from table to table.  The modes:

- ``arrival``: plays take effect as they arrive;
- ``fair``: fair judging, both clients honest;
- ``liar``: fair judging, the far client stamping every act ``lie_s`` (0.5 s) early.

All modes play at once on the one server (the same load for each) until each has ``races``
races in rounds that ended; a mode that has them stops.  A race is a play refused because
the other seat's card took its place (the simulator's, whatever the gap): counted from the
loser's ``ack`` (``by``); the races the server tells (the two cards at most
``engine.races.RACE_MS`` apart) are counted from the ``race`` messages one client of each
table gets, and again from the acks with a margin (``by_ms``) as a check.  Reported per mode:
the far seat's share of the races with its 95 % interval over rounds
(``sim.stats.share_over_rounds``, the simulator's), the races and rounds, each ack's
latency beyond the connection's measured round trip (``added_ack_ms``: what holding a
contested play costs), and the lost races whose winning play was provably ranked earlier
than its true send time minus twice the cap (``ranked_too_early``: fair judging's clamp
says 0).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from ligretto.bots.reaction import LEVELS
from ligretto.bots.strategies import STRATEGIES
from ligretto.engine.races import DEFAULT_WINDOW_MS, MAX_WINDOW_MS
from ligretto.harness.client import ClientSettings, Pacer, TableRun
from ligretto.harness.fairclient import FairClient, RaceTally
from ligretto.harness.fairreport import FairTable, Mode, build_report, format_report
from ligretto.harness.probes import Cpu, cpu_seconds_of, metrics
from ligretto.harness.run import on_uvloop
from ligretto.testkit.serverprocess import ServerProcess

MODES = ("arrival", "fair", "liar")
MATCH_END = "rounds:1000"
"""So that no match ends during a run."""
CLIENT_GC_THRESHOLDS = (20_000, 10, 10)
"""``gc.set_threshold`` of this process during its runs (Python's default: 700, 10, 10): its
collections' pauses are inside the latencies it measures (the load test's window runs with
no collection at all, ``harness/run.py``)."""
LAG_TICK_S = 0.05


@dataclass(frozen=True, slots=True)
class FairnessSettings:
    """What one run measures (``ligretto bench --only fairness``'s options)."""

    races: int = 1200
    """Races per mode, in rounds that ended (about ±0.03 for the share's 95 % interval)."""
    tables: int = 80
    """Tables per mode, all playing at once (about 5 minutes for 1,200 races on a quiet machine)."""
    window_ms: int = DEFAULT_WINDOW_MS
    near_ms: float = 10.0
    far_ms: float = 100.0
    jitter_ms: float = 0.0
    level: str = "skilled"
    strategy: str = "smart"
    lie_s: float = 0.5
    modes: tuple[str, ...] = MODES
    speed: float = 1.0
    """Reaction times divided by this (tests: > 1 to get through rounds quickly)."""
    countdown_s: float = 1.0
    max_s: float = 900.0
    """A mode that has not got its races by then stops anyway (its report says so)."""
    seed: int = 0

    def __post_init__(self) -> None:
        if self.races < 1 or self.tables < 1:
            raise ValueError("need at least one race and one table")
        if not 0 <= self.window_ms <= MAX_WINDOW_MS:
            raise ValueError(f"the window is 0-{MAX_WINDOW_MS} ms, not {self.window_ms}")
        if min(self.near_ms, self.far_ms, self.jitter_ms) < 0:
            raise ValueError("delays and jitter are not negative")
        if self.level not in LEVELS or self.strategy not in STRATEGIES:
            raise ValueError(f"unknown bot {self.strategy}:{self.level}")
        unknown = set(self.modes) - set(MODES)
        if unknown or not self.modes:
            raise ValueError(f"modes are {', '.join(MODES)}, not {', '.join(sorted(unknown)) or 'none'}")
        if self.speed <= 0 or self.max_s <= 0:
            raise ValueError("speed and max_s are positive")


QUICK = {"races": 20, "tables": 4, "speed": 4.0}
"""``--quick``: a smoke run, the bots four times faster (its figures say nothing)."""
OPTIONS = {
    "races": "races",
    "tables": "tables",
    "window": "window_ms",
    "near_ms": "near_ms",
    "far_ms": "far_ms",
    "jitter_ms": "jitter_ms",
    "level": "level",
}
"""``ligretto bench``'s options (argparse's names) and the settings they set."""


def settings_from(options: dict[str, Any]) -> FairnessSettings:
    """The settings of ``ligretto bench --only fairness``'s options (``None``: the
    default); ``ValueError`` says what is wrong."""
    given = {name: options[option] for option, name in OPTIONS.items() if options.get(option) is not None}
    if options.get("lie_ms") is not None:
        given["lie_s"] = options["lie_ms"] / 1000
    return FairnessSettings(**((QUICK if options.get("quick") else {}) | given))


# --- the run -----------------------------------------------------------------------------


def run(settings: FairnessSettings) -> dict[str, Any]:
    """Start the server and the proxies, measure every mode, stop them; the report."""
    with tempfile.TemporaryDirectory(prefix="ligretto-fairness-") as folder:
        server = ServerProcess.in_folder(Path(folder), countdown_s=settings.countdown_s)
        server.start()
        proxies = None
        try:
            proxies, ports = _start_proxies(server.port, settings)
            report = on_uvloop(_measure(server, ports, settings, proxies.pid))
        finally:
            if proxies is not None:
                proxies.terminate()
                proxies.wait(10)
            server.stop()
        log = server.log_text()
    report["server_tracebacks"] = log.count("Traceback")
    return report


def _start_proxies(port: int, settings: FairnessSettings) -> tuple[subprocess.Popen[bytes], list[int]]:
    """The near and the far proxy in a process of their own; their ports."""
    command = [sys.executable, "-m", "ligretto.harness.delayproxy", "--to", f"127.0.0.1:{port}"]
    for delay in (settings.near_ms, settings.far_ms):
        command += ["--delay-ms", str(delay), "--jitter-ms", str(settings.jitter_ms)]
    process = subprocess.Popen([*command, "--seed", str(settings.seed)], stdout=subprocess.PIPE)
    assert process.stdout is not None
    line = process.stdout.readline()
    try:
        ports: list[int] = json.loads(line)["ports"]
    except (ValueError, KeyError):
        process.kill()
        raise RuntimeError(f"the delaying proxies did not start: {line!r}") from None
    return process, ports


async def _measure(
    server: ServerProcess, ports: list[int], settings: FairnessSettings, proxy_pid: int
) -> dict[str, Any]:
    near_url, far_url = (f"ws://127.0.0.1:{port}/ws" for port in ports)
    base = ClientSettings(
        ws_url=near_url,
        level=settings.level,
        strategy=settings.strategy,
        speed=settings.speed,
        seed=settings.seed,
    )
    load_before = os.getloadavg()[0]
    modes = [Mode(name) for name in settings.modes]
    pacer = Pacer(rate=100.0, concurrency=16)
    setup_start = time.perf_counter()
    for mode in modes:
        codes = await asyncio.gather(*(_create_table(server, mode, settings) for _ in range(settings.tables)))
        for code in codes:
            run_ = TableRun(code)
            tally = RaceTally()
            near = FairClient(run_, 0, base, mode.figures, tally, counts=True)
            lie = settings.lie_s if mode.name == "liar" else 0.0
            far = FairClient(run_, 1, replace(base, ws_url=far_url), mode.figures, tally, far=True, lie_s=lie)
            mode.tables.append(FairTable(run_, tally, near, far))
    seated = await asyncio.gather(
        *(_seat(table, index, pacer) for mode in modes for index, table in enumerate(mode.tables))
    )
    setup_s = time.perf_counter() - setup_start
    # As the load test does (harness/run.py): the clients live all along, and this
    # process's collections would be inside the latencies and the proxies' timing.
    gc.collect()
    gc.freeze()
    thresholds = gc.get_threshold()
    gc.set_threshold(*CLIENT_GC_THRESHOLDS)
    lag = asyncio.create_task(_loop_lag())
    cpu, proxy_cpu, start = Cpu(server.pid), cpu_seconds_of(proxy_pid), time.perf_counter()
    for mode in modes:
        mode.started = time.perf_counter()
    running = list(modes)
    while running:
        await asyncio.sleep(0.5)
        for mode in list(running):
            if mode.races() >= settings.races or time.perf_counter() - mode.started > settings.max_s:
                running.remove(mode)
                await _stop(mode)
    lag.cancel()
    lags = await lag
    cpu.stop()
    proxy_used = cpu_seconds_of(proxy_pid)
    if proxy_cpu is not None and proxy_used is not None:
        cpu.figures["proxies_percent"] = round(100 * (proxy_used - proxy_cpu) / (time.perf_counter() - start), 1)
    gc.set_threshold(*thresholds)
    gc.unfreeze()
    server_metrics = await metrics(server.url)
    given = asdict(settings) | {"modes": list(settings.modes)}
    report = build_report(modes, given, setup_s=setup_s, tables_seated=sum(seated), lags=lags, server=server_metrics)
    report["load_average"] = [round(load_before, 2), round(os.getloadavg()[0], 2)]
    report["cpu_percent"] = cpu.figures
    return report


async def _create_table(server: ServerProcess, mode: Mode, settings: FairnessSettings) -> str:
    body = {
        "seats": 2,
        "preset": "classic",
        "options": {"match_end": MATCH_END},
        "arbitration": mode.arbitration,
        "window_ms": settings.window_ms,
    }
    status, answer = await asyncio.to_thread(server.http, "POST", "/api/tables", body)
    if status != 201:
        raise RuntimeError(f"the server did not make a table: {status} {answer}")
    code: str = answer["code"]
    return code


async def _seat(table: FairTable, index: int, pacer: Pacer) -> bool:
    """Join both clients (the near one first at even tables: it is then the host), start."""
    first, second = (table.near, table.far) if index % 2 == 0 else (table.far, table.near)
    if not await first.open(pacer) or not await second.open(pacer):
        first.figures.error("table_not_started", table.run.code)
        return False
    host = first if first.session.seat == table.run.host_seat else second
    await host.send({"type": "start"})
    try:
        await asyncio.wait_for(host.playing.wait(), host.settings.timeout)
    except TimeoutError:
        host.figures.error("table_not_started", f"{table.run.code}: no go")
        return False
    first.start_playing()
    second.start_playing()
    return True


async def _stop(mode: Mode) -> None:
    mode.stopped = time.perf_counter()
    await asyncio.gather(*(client.close() for table in mode.tables for client in (table.near, table.far)))


async def _loop_lag() -> list[float]:
    """How late this process's event loop wakes up: the clients' own delays."""
    lags: list[float] = []
    with contextlib.suppress(asyncio.CancelledError):
        while True:
            now = time.perf_counter()
            await asyncio.sleep(LAG_TICK_S)
            lags.append(max(0.0, time.perf_counter() - now - LAG_TICK_S))
    return lags


__all__ = ["MODES", "FairnessSettings", "format_report", "run", "settings_from"]
