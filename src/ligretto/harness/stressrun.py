"""``ligretto stress``: every scenario of the stress harness, each against a fresh server.

For each scenario (:data:`SCENARIOS`) the harness starts a real ``ligretto serve``
(``testkit/serverprocess.py``) with its own SQLite file in ``--folder`` and the
settings that scenario needs, seats the measuring tables in a process of their own
(``harness/background.py``: ordinary players whose ack latency while the scenario runs
is "the other tables' p99 ack"), runs the scenario, then checks what only the harness
can: whether the server is still alive (a crash), whether its log holds a traceback, and
-- once the server has stopped and its database is complete -- every frame the
scenario's clients received, scanned for hidden cards against the engine's replay of the
rounds in that database (``testkit/scans.py``).  It prints docs/reliability.md's table
(:func:`scenario.markdown_table`), writes every report as JSON (``--json``), and exits 1
if any figure whose only right answer is zero is not zero.

The scenarios of a service (:class:`ServiceScenario`: Redis down, PostgreSQL restarted, a
rolling restart) start a service of their own instead -- a private ``redis-server``,
PostgreSQL cluster and several processes (``harness/service.py``) -- and make those checks
on it themselves, the scan against its PostgreSQL database; they need ``redis-server`` and
PostgreSQL's programs on the machine (``ligretto: error:`` in one line if not).

A scenario ``compared`` (the lobby flood, idle lobby sockets) is measured before it too:
the other tables' p99 ack and the server's CPU side by side, and at full scale each held
to a bound on what the scenario adds (``over_bound``).

``--scale quick`` runs every scenario in seconds (the suite runs it); ``--scale full`` is
the issue's benchmark (a million malformed messages, 10,000 idle connections, 50 kills,
2,000 idle lobby sockets, three processes through Redis's and PostgreSQL's outages).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from ligretto.harness.background import Background
from ligretto.harness.floodedtables import run_table_floods
from ligretto.harness.idle import run_idle
from ligretto.harness.kills import run_kills
from ligretto.harness.lobbyflood import run_lobby_flood
from ligretto.harness.lobbyidle import run_lobby_idle
from ligretto.harness.pgrestart import run_postgres_restart
from ligretto.harness.probes import Cpu, rss_of
from ligretto.harness.queries import run_queries
from ligretto.harness.races import run_races
from ligretto.harness.redisdown import run_redis_down
from ligretto.harness.rollingrestart import run_rolling_restart
from ligretto.harness.run import raise_file_limit
from ligretto.harness.scenario import ScenarioReport, markdown_table
from ligretto.harness.stress import run_malformed
from ligretto.harness.tableflood import run_table_flood
from ligretto.testkit import programs
from ligretto.testkit.pgserver import THROWAWAY, PgServer
from ligretto.testkit.scans import hidden_cards_sent
from ligretto.testkit.serverprocess import NO_RATE_LIMIT, OPEN_LIMITS, ServerProcess


@dataclass(frozen=True, slots=True)
class Scale:
    """How big each scenario is."""

    malformed_tables: int
    """Attackers' tables in each phase (lobby, countdown, playing, scoring, over)."""
    malformed_count: int
    """Malformed messages per attacker."""
    utf8: int
    sockets: int
    half_open: int
    open_rate: float
    """Idle connections opened a second at most (0: as fast as the server takes them)."""
    deadline_s: float
    """The server's hello and HTTP request deadlines in the idle scenario."""
    creations: int
    quota: int
    """Tables one address may create a minute, in the table-creation flood."""
    flood_tables: int
    flood_s: float
    race_tables: int
    race_players: int
    race_s: float
    kill_tables: int
    kills: int
    restart_settings: dict[str, float]
    """The servers' countdown and catch-up after a restart in the scenarios that restart or
    move tables (kill -9, and those of a service; quick: shorter than the defaults, 3 s and
    15 s)."""
    lobby_flooders: int
    """``/ws/lobby`` connections flooding at once (each back as soon as it is closed)."""
    lobby_flood_s: float
    lobby_sockets: int
    """Silent ``/ws/lobby`` sockets held open."""
    lobby_hold_s: float
    lobby_tables: int
    """Public tables in the lobby list of the lobby scenarios."""
    query_rounds: int
    """Times every bad number goes to every numeric query parameter and the sheet round."""
    background: int
    """Measuring tables (4 players each) while a scenario runs."""
    baseline_s: float
    """The measuring tables' window before a scenario that compares before and during."""
    service_processes: int
    """Processes of the service in the scenarios of a service (``redis_down``, ...)."""
    service_tables: int
    """Tables (two people and a spectator each) playing through that service."""
    settle_s: float
    """Seconds of play before, between and after what those scenarios do to the service."""
    redis_down_s: float
    redis_hang_s: float
    """How long Redis is stopped, and hung (SIGSTOP), in ``redis_down``."""
    rebalance_s: float
    """How long the service has to spread its tables again after a rolling restart."""
    countdown_s: float | None = None
    """The servers' countdown before each round (``None``: the server's own, 3 s); quick:
    shorter, so the scenarios' tables reach play sooner."""
    added_p99_ms: float | None = None
    """How much a scenario compared with its before may raise the other tables' p99 ack
    (``None``: reported, not held to a bound, as at quick scale on a shared machine)."""
    added_cpu_percent: float | None = None
    """How much it may raise the server's CPU (percent of a core), likewise."""


SCALES = {
    "quick": Scale(
        malformed_tables=1,
        malformed_count=60,
        utf8=3,
        sockets=20,
        half_open=20,
        open_rate=0.0,
        deadline_s=1.0,
        creations=12,
        quota=5,
        flood_tables=2,
        flood_s=1.5,
        race_tables=2,
        race_players=3,
        race_s=3.0,  # 1.5 s saw 1 contested play in some loaded runs (and 0 once): the check needs > 0
        kill_tables=2,
        kills=2,
        restart_settings={"countdown_s": 0.5, "catch_up_s": 3.0},
        lobby_flooders=1,
        lobby_flood_s=1.5,
        lobby_sockets=50,
        lobby_hold_s=1.5,
        lobby_tables=3,
        query_rounds=1,
        background=2,  # one measuring table's casual players left a short window without an ack once
        baseline_s=1.5,
        service_processes=2,
        service_tables=4,
        settle_s=0.5,
        redis_down_s=1.0,
        redis_hang_s=1.6,  # past a lease (1.5 s): every lease has run out as Redis resumes
        rebalance_s=15.0,
        countdown_s=1.0,
    ),
    "full": Scale(
        malformed_tables=4,
        malformed_count=50_000,
        utf8=100,
        sockets=10_000,
        half_open=2_000,
        open_rate=0.0,
        deadline_s=10.0,
        creations=1_000,
        quota=30,
        flood_tables=20,
        flood_s=30.0,
        race_tables=20,
        race_players=4,
        race_s=60.0,
        kill_tables=5,
        kills=50,
        restart_settings={},
        lobby_flooders=1,
        lobby_flood_s=20.0,
        lobby_sockets=2_000,
        lobby_hold_s=20.0,
        lobby_tables=50,
        query_rounds=100,
        background=10,
        baseline_s=20.0,
        service_processes=3,
        service_tables=12,
        settle_s=10.0,
        redis_down_s=5.0,
        redis_hang_s=3.0,
        rebalance_s=60.0,
        added_p99_ms=5.0,
        added_cpu_percent=10.0,
    ),
}


Run = Callable[[ServerProcess, Scale, int], Awaitable[ScenarioReport]]


@dataclass(frozen=True, slots=True)
class Scenario:
    """One scenario: how it runs, the server settings it needs, whether other tables are
    measured meanwhile (not while the scenario kills the server)."""

    name: str
    run: Run
    settings: Callable[[Scale], dict[str, Any]] = field(default=lambda scale: {})
    measured: bool = True
    compared: bool = False
    """Whether the other tables and the server's CPU are measured before it too (for
    ``baseline_s``), and held to the scale's bounds on what it adds."""


async def _malformed(server: ServerProcess, scale: Scale, seed: int) -> ScenarioReport:
    return await run_malformed(
        server.url, scale.malformed_tables, scale.malformed_count, utf8=scale.utf8, server_pid=server.pid, seed=seed
    )


async def _idle(server: ServerProcess, scale: Scale, seed: int) -> ScenarioReport:
    return await run_idle(
        server.url,
        scale.sockets,
        scale.half_open,
        # truly idle (no pings): closed by whichever deadline comes first, hello or silence
        ping_s=0.0,
        hello_s=scale.deadline_s,
        request_timeout_s=scale.deadline_s,
        open_rate=scale.open_rate,
        server_pid=server.pid,
    )


async def _tables(server: ServerProcess, scale: Scale, seed: int) -> ScenarioReport:
    report = await run_table_flood(server.url, scale.creations, server_pid=server.pid)
    report.wrong_answers = max(0, report.details["made"] - scale.quota)  # made over the quota
    return report


async def _floods(server: ServerProcess, scale: Scale, seed: int) -> ScenarioReport:
    return await run_table_floods(server.url, scale.flood_tables, 3, scale.flood_s, server_pid=server.pid, seed=seed)


async def _races(server: ServerProcess, scale: Scale, seed: int) -> ScenarioReport:
    return await run_races(
        server.url, scale.race_tables, scale.race_players, scale.race_s, seed=seed, server_pid=server.pid
    )


async def _kills(server: ServerProcess, scale: Scale, seed: int) -> ScenarioReport:
    return await run_kills(server, scale.kill_tables, scale.kills, seed=seed)


async def _lobby_flood(server: ServerProcess, scale: Scale, seed: int) -> ScenarioReport:
    return await run_lobby_flood(
        server.url, scale.lobby_flooders, scale.lobby_flood_s, tables=scale.lobby_tables, server_pid=server.pid
    )


async def _lobby_idle(server: ServerProcess, scale: Scale, seed: int) -> ScenarioReport:
    return await run_lobby_idle(
        server.url, scale.lobby_sockets, scale.lobby_hold_s, tables=scale.lobby_tables, server_pid=server.pid
    )


async def _queries(server: ServerProcess, scale: Scale, seed: int) -> ScenarioReport:
    return await run_queries(server.url, scale.query_rounds, log=server.log, server_pid=server.pid)


OnService = Callable[[Path, Scale, int, "set[int] | None", PgServer], Awaitable[ScenarioReport]]


@dataclass(frozen=True, slots=True)
class ServiceScenario:
    """A scenario of a service: it starts its own (a private Redis, several processes, a
    database of the run's PostgreSQL cluster, ``harness/service.py``) in its folder and
    makes the harness's checks on it itself (crashes and tracebacks, the hidden-card scan);
    no measuring tables."""

    name: str
    run: OnService


def _service_settings(scale: Scale) -> dict[str, Any]:
    countdown = {} if scale.countdown_s is None else {"countdown_s": scale.countdown_s}
    return countdown | scale.restart_settings


async def _redis_down(folder: Path, scale: Scale, seed: int, cpus: set[int] | None, pg: PgServer) -> ScenarioReport:
    return await run_redis_down(
        folder,
        processes=scale.service_processes,
        tables=scale.service_tables,
        settle_s=scale.settle_s,
        down_s=scale.redis_down_s,
        hang_s=scale.redis_hang_s,
        seed=seed,
        cpus=cpus,
        pg=pg,
        **_service_settings(scale),
    )


async def _postgres_restart(
    folder: Path, scale: Scale, seed: int, cpus: set[int] | None, pg: PgServer
) -> ScenarioReport:
    return await run_postgres_restart(
        folder,
        processes=scale.service_processes,
        tables=scale.service_tables,
        settle_s=scale.settle_s,
        seed=seed,
        cpus=cpus,
        pg=pg,
        **_service_settings(scale),
    )


async def _rolling_restart(
    folder: Path, scale: Scale, seed: int, cpus: set[int] | None, pg: PgServer
) -> ScenarioReport:
    return await run_rolling_restart(
        folder,
        processes=scale.service_processes,
        tables=scale.service_tables,
        settle_s=scale.settle_s,
        rebalance_s=scale.rebalance_s,
        seed=seed,
        cpus=cpus,
        pg=pg,
        **_service_settings(scale),
    )


SCENARIOS: dict[str, Scenario | ServiceScenario] = {
    s.name: s
    for s in (
        # A raised rate limit, so that one connection may send a million messages unpaced.
        Scenario("malformed", _malformed, lambda scale: NO_RATE_LIMIT),
        Scenario(
            "idle",
            _idle,
            lambda scale: {"hello_s": scale.deadline_s, "request_timeout_s": scale.deadline_s},
        ),
        # The quota under test; the measuring tables are made from another address.
        Scenario("tables", _tables, lambda scale: {"tables_per_minute": scale.quota}),
        Scenario("floods", _floods),
        Scenario("races", _races),
        Scenario("kills", _kills, lambda scale: scale.restart_settings, measured=False),
        Scenario("lobby_flood", _lobby_flood, compared=True),
        Scenario("lobby_idle", _lobby_idle, compared=True),
        Scenario("queries", _queries),
        ServiceScenario("redis_down", _redis_down),
        ServiceScenario("postgres_restart", _postgres_restart),
        ServiceScenario("rolling_restart", _rolling_restart),
    )
}


async def run_scenario(
    scenario: Scenario, scale: Scale, folder: Path, *, seed: int = 0, cpus: set[int] | None = None
) -> ScenarioReport:
    """``scenario`` against a fresh server in ``folder``; its report, with the harness's
    own checks (alive, tracebacks, the hidden-card scan, the other tables' p99 ack)."""
    countdown = {} if scale.countdown_s is None else {"countdown_s": scale.countdown_s}
    settings = {**OPEN_LIMITS, **countdown, **scenario.settings(scale)}
    server = ServerProcess(folder / f"{scenario.name}.db", folder / f"{scenario.name}.log", **settings)
    server.cpus = cpus or set()
    server.start()
    background = Background(server.url, scale.background) if scenario.measured and scale.background else None
    cpu_before: float | None = None
    try:
        if background is not None:
            await background.start()
            if scenario.compared:  # window 0: before
                cpu_before = await _before(background, server, scale.baseline_s)
            await background.mark()
        report = await scenario.run(server, scale, seed)
        report.scenario = scenario.name
        if background is not None:
            await background.mark()
            if report.window is not None:  # the last window: the scenario's own "during"
                await background.mark(report.window[0])
                await background.mark(report.window[1])
            measured = await background.stop()
            windows = measured["windows"]
            report.other_p99_ms = windows[-1]["p99"] if windows else None
            report.details["other_tables"] = measured
            if scenario.compared and windows:
                _held_to_bounds(report, scale, windows[0]["p99"], cpu_before)
        if not server.alive or not server.healthy():
            report.crashes += 1
        if report.rss_after is None and server.pid is not None:
            report.rss_after = rss_of(server.pid)[0]
    finally:
        server.stop()
    tracebacks = server.log_text().count("Traceback")
    report.details["server_tracebacks"] = tracebacks
    report.crashes += tracebacks
    if report.frames:
        scan = hidden_cards_sent(Path(server.db), report.frames)
        report.hidden_cards, report.frames_scanned = scan.leaks, scan.frames_scanned
        report.details["hidden_scan"] = asdict(scan)
    return report


async def _before(background: Background, server: ServerProcess, seconds: float) -> float | None:
    """The measuring tables' window before the scenario (marked), and the server's CPU
    meanwhile (percent of a core)."""
    await background.mark()
    cpu = Cpu(server.pid or None)
    await asyncio.sleep(seconds)
    await background.mark()
    cpu.stop()
    return cpu.figures["server_percent"]


def _held_to_bounds(report: ScenarioReport, scale: Scale, p99_before: float | None, cpu_before: float | None) -> None:
    """Before and during side by side; at a scale with bounds, each figure that rose past
    its bound counted in ``over_bound``."""
    cpu = report.details.get("server_cpu_percent")
    report.details["before"] = {"other_p99_ms": p99_before, "server_cpu_percent": cpu_before}
    rises = {
        "other_p99_ms": (p99_before, report.other_p99_ms, scale.added_p99_ms),
        "server_cpu_percent": (cpu_before, cpu, scale.added_cpu_percent),
    }
    over = [
        name
        for name, (before, during, bound) in rises.items()
        if bound is not None and (before is None or during is None or during - before > bound)
    ]
    if scale.added_p99_ms is not None or scale.added_cpu_percent is not None:
        report.over_bound = (report.over_bound or 0) + len(over)
        report.details["over_bound"] = over


async def run_harness(
    names: Sequence[str], scale: Scale, folder: Path, *, seed: int = 0, cpus: set[int] | None = None
) -> list[ScenarioReport]:
    reports = []
    postgres: PgServer | None = None  # the scenarios of a service share one cluster, a database each
    try:
        for name in names:
            start = time.monotonic()
            scenario = SCENARIOS[name]
            if isinstance(scenario, ServiceScenario):
                if postgres is None:
                    postgres = await asyncio.to_thread(PgServer(*THROWAWAY).start)
                report = await scenario.run(folder / name, scale, seed, cpus, postgres)
                report.scenario = name
            else:
                report = await run_scenario(scenario, scale, folder, seed=seed, cpus=cpus)
            report.details["harness_seconds"] = round(time.monotonic() - start, 1)
            print(f"{name}: {report.tried:,} {report.what}, failures: {report.failures or 'none'}", file=sys.stderr)
            reports.append(report)
    finally:
        if postgres is not None:
            await asyncio.to_thread(postgres.stop)
    return reports


def _pinning(pin: bool) -> set[int] | None:
    """With ``--pin`` on a machine of two or more CPUs: the server on the first, the
    harness (and the processes it starts after this) on the others."""
    cpus = sorted(os.sched_getaffinity(0))
    if not pin or len(cpus) < 2:
        return None
    os.sched_setaffinity(0, set(cpus[1:]))
    return {cpus[0]}


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    parser = parser or argparse.ArgumentParser(prog="ligretto stress", description=__doc__)
    parser.add_argument(
        "--scenarios",
        default=",".join(SCENARIOS),
        help=f"comma-separated, in this order by default: {','.join(SCENARIOS)}",
    )
    parser.add_argument(
        "--scale", choices=tuple(SCALES), default="quick", help="quick (seconds) or full (the benchmark)"
    )
    parser.add_argument("--kills", type=int, help="kill -9 this many times (default: the scale's)")
    parser.add_argument("--count", type=int, help="malformed messages per attacker (default: the scale's)")
    parser.add_argument("--open-rate", type=float, help="idle connections opened a second at most (default: unpaced)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--folder", type=Path, help="where the servers' databases and logs go (default: a temporary one)"
    )
    parser.add_argument("--json", type=Path, help="write every report to this file")
    parser.add_argument("--pin", action="store_true", help="the server on the first CPU, the harness on the others")
    return parser


def main(argv: Sequence[str] | None = None, parser: argparse.ArgumentParser | None = None) -> int:
    parser = build_parser(parser)
    try:
        args = parser.parse_args(argv)
        names = [name.strip() for name in args.scenarios.split(",") if name.strip()]
        unknown = [name for name in names if name not in SCENARIOS]
        if unknown or not names:
            parser.error(f"unknown scenario {', '.join(unknown)!r}: expected {', '.join(SCENARIOS)}")
        if (args.kills is not None and args.kills < 0) or (args.count is not None and args.count < 1):
            parser.error("--kills must be 0 or more and --count at least 1")
        if args.open_rate is not None and not 0 < args.open_rate < math.inf:
            parser.error(f"--open-rate must be more than 0, not {args.open_rate:g}")
    except SystemExit as stop:  # -h, or a bad argument already reported (in one line on the command line's parser)
        return stop.code if isinstance(stop.code, int) else 2
    if any(isinstance(SCENARIOS[name], ServiceScenario) for name in names):
        try:
            programs.for_a_service()
        except programs.Missing as missing:
            print(f"ligretto stress: {missing}", file=sys.stderr)
            return 1
    scale = SCALES[args.scale]
    if args.kills is not None:
        scale = replace(scale, kills=args.kills)
    if args.count is not None:
        scale = replace(scale, malformed_count=args.count)
    if args.open_rate is not None:
        scale = replace(scale, open_rate=args.open_rate)
    cpus = _pinning(args.pin)
    raise_file_limit()  # the idle scenario holds 12,000 connections at full scale
    with tempfile.TemporaryDirectory(prefix="ligretto-stress-") as temporary:
        folder = args.folder or Path(temporary)
        folder.mkdir(parents=True, exist_ok=True)
        reports = asyncio.run(run_harness(names, scale, folder, seed=args.seed, cpus=cpus))
    print(markdown_table(reports), end="")
    if args.json is not None:
        args.json.write_text(json.dumps([r.to_dict() for r in reports], indent=2) + "\n")
    return 1 if any(r.failures for r in reports) else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
