"""Players per core: ``ligretto serve`` beside the bare stack, the same load, in pairs of runs.

Each server runs on core 0 and its load client on core 1 (``taskset``, when there are two
cores), one after the other, ``--runs`` times; ligretto is measured with ``ligretto loadtest
--json`` (a fresh database each run), the bare stack (``benchmarks/barestack.py``: Starlette
on uvicorn, the same message pattern with no game) with its own client playing the same
pattern, each client acting as often as ligretto's did.  Printed: each run's actions a
second, p99 ack and fan-out, the server's CPU per action and memory per connection, the
ratios ligretto / bare, and the median of the CPU ratios.  docs/benchmarks.md has the figures.

    python benchmarks/serverspeed.py --tables 1000 --duration 30 --runs 3
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from ligretto.harness.probes import rss_of

HERE = Path(__file__).resolve().parent


def pinned(core: int, command: list[str]) -> list[str]:
    if shutil.which("taskset") and (os.cpu_count() or 1) >= 2:
        return ["taskset", "-c", str(core), *command]
    return command


def wait_until_listening(url: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=1):
                return
        except OSError as error:  # refused while starting; an HTTP error means it listens
            if getattr(error, "code", None):
                return
            time.sleep(0.2)
    raise SystemExit(f"nothing answered at {url}")


def ligretto_run(tables: int, players: int, duration: float, port: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        serve = ["serve", "--port", str(port), "--db", f"{folder}/bench.db", "--log-level", "warning"]
        serve += ["--connections-per-address", "0", "--tables-per-minute", "0"]  # one address: no limits
        server = subprocess.Popen(pinned(0, [sys.executable, "-m", "ligretto", *serve]), stdout=subprocess.DEVNULL)
        wait_until_listening(f"http://127.0.0.1:{port}/healthz")
        load = ["-m", "ligretto", "loadtest", "--url", f"http://127.0.0.1:{port}", "--json"]
        report = measured(server, [*load, *load_arguments(tables, players, duration, server.pid)])
    return figures(report, report["cpu"]["server_percent"], report["server_memory"]["per_connection_bytes"])


def bare_run(tables: int, players: int, duration: float, port: int, pace: float) -> dict[str, Any]:
    server = subprocess.Popen(pinned(0, [sys.executable, str(HERE / "barestack.py"), "serve", "--port", str(port)]))
    wait_until_listening(f"http://127.0.0.1:{port}/")
    time.sleep(0.5)
    rss_before = rss_of(server.pid)[0]
    if rss_before is None:
        raise SystemExit("the bare server is not running")
    load = [str(HERE / "barestack.py"), "load", "--url", f"ws://127.0.0.1:{port}/ws", "--pace", str(pace)]
    report = measured(server, [*load, *load_arguments(tables, players, duration, server.pid)])
    per_connection = (report["server_rss_bytes"] - rss_before) / report["connections"]
    return figures(report, report["server_cpu_percent"], per_connection)


def measured(server: subprocess.Popen[bytes], load: list[str]) -> dict[str, Any]:
    """The load client's JSON report (it runs on core 1), the server stopped after it."""
    try:
        out = subprocess.run(pinned(1, [sys.executable, *load]), capture_output=True, text=True, check=True).stdout
    finally:
        server.terminate()
        server.wait(30)
    report: dict[str, Any] = json.loads(out)
    return report


def load_arguments(tables: int, players: int, duration: float, server_pid: int) -> list[str]:
    """What both load clients are told: the same tables, players, window and server."""
    return [
        "--tables",
        str(tables),
        "--players",
        str(players),
        "--duration",
        str(duration),
        "--server-pid",
        str(server_pid),
    ]


def figures(report: dict[str, Any], cpu_percent: float, bytes_per_connection: float) -> dict[str, Any]:
    """The figures compared, from either load client's report (the same names in both)."""
    return {
        "actions_per_s": report["actions_per_s"],
        "ack_p99_ms": report["ack_ms"]["p99"],
        "fanout_p99_ms": report["fanout_ms"]["p99"],
        "errors": report["errors"],
        "error_kinds": report.get("error_kinds", {}),
        "server_cpu_percent": cpu_percent,
        "memory_per_connection_kib": round(bytes_per_connection / 1024, 1),
    }


def per_action_us(run: dict[str, Any]) -> float:
    return round(float(run["server_cpu_percent"]) / 100 / float(run["actions_per_s"]) * 1e6, 1)


def pair(tables: int, players: int, duration: float, port: int) -> dict[str, Any]:
    """One run of each server, ligretto first, and their ratios."""
    ligretto = ligretto_run(tables, players, duration, port)
    # the bare stack's clients act as often as ligretto's did: the same load
    pace = tables * players / ligretto["actions_per_s"]
    bare = bare_run(tables, players, duration, port + 1, pace)
    for run in (ligretto, bare):
        run["server_cpu_per_action_us"] = per_action_us(run)
    return {
        "ligretto": ligretto,
        "bare": bare,
        "ratio": {
            # (None: a run too short for the CPU clock's ticks to count it)
            "cpu_per_action_bare_over_ligretto": round(
                bare["server_cpu_per_action_us"] / ligretto["server_cpu_per_action_us"], 2
            )
            if bare["server_cpu_per_action_us"] and ligretto["server_cpu_per_action_us"]
            else None,
            "memory_per_connection_ligretto_over_bare": round(
                ligretto["memory_per_connection_kib"] / bare["memory_per_connection_kib"], 2
            ),
        },
        "load_average": os.getloadavg(),
    }


def summary(pairs: list[dict[str, Any]], tables: int) -> dict[str, Any]:
    """Every pair, and the median of their ratios (one pair's moves by a few hundredths
    from run to run on a 2-core machine: docs/benchmarks.md, issue 31)."""
    ratios = [p["ratio"]["cpu_per_action_bare_over_ligretto"] for p in pairs]
    measured = [ratio for ratio in ratios if ratio is not None]
    median = statistics.median(measured) if measured else None
    return {"runs": pairs, "cpu_ratio_median": median, "cpu_ratios": ratios, "tables": tables}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python benchmarks/serverspeed.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--duration", type=float, default=60.0)
    parser.add_argument("--runs", type=int, default=1, help="pairs of runs, alternated; the median ratio is printed")
    parser.add_argument("--port", type=int, default=8890)
    args = parser.parse_args(argv)
    if args.tables < 1 or args.players < 2 or args.duration <= 0 or args.runs < 1:
        parser.error("--tables and --runs must be at least 1, --players at least 2 and --duration above 0")
    pairs = [pair(args.tables, args.players, args.duration, args.port) for _ in range(args.runs)]
    print(json.dumps(summary(pairs, args.tables), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
