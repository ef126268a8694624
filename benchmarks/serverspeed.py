"""Players per core: ``ligretto serve`` beside the bare stack, the same load, one run each.

Each server runs on core 0 and its load client on core 1 (``taskset``, when there are two
cores); ligretto is measured with ``ligretto loadtest --json`` (a fresh database each run),
the bare stack (``benchmarks/barestack.py``: Starlette on uvicorn, the same message pattern
with no game) with its own client playing the same pattern, each client acting as often as ligretto's did.  Printed:
each run's actions a second, p99 ack and fan-out, the server's CPU per action and memory
per connection, and the ratios ligretto / bare.  docs/benchmarks.md has the figures.

    python benchmarks/serverspeed.py --tables 1000 --duration 60
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
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
        "server_cpu_percent": cpu_percent,
        "memory_per_connection_kib": round(bytes_per_connection / 1024, 1),
    }


def per_action_us(run: dict[str, Any]) -> float:
    return round(float(run["server_cpu_percent"]) / 100 / float(run["actions_per_s"]) * 1e6, 1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python benchmarks/serverspeed.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--duration", type=float, default=60.0)
    parser.add_argument("--port", type=int, default=8890)
    args = parser.parse_args(argv)
    if args.tables < 1 or args.players < 2 or args.duration <= 0:
        parser.error("--tables must be at least 1, --players at least 2 and --duration above 0")
    ligretto = ligretto_run(args.tables, args.players, args.duration, args.port)
    # the bare stack's clients act as often as ligretto's did: the same load
    pace = args.tables * args.players / ligretto["actions_per_s"]
    runs: dict[str, Any] = {
        "ligretto": ligretto,
        "bare": bare_run(args.tables, args.players, args.duration, args.port + 1, pace),
    }
    for run in runs.values():
        run["server_cpu_per_action_us"] = per_action_us(run)
    ligretto, bare = runs["ligretto"], runs["bare"]
    runs["ratio"] = {
        "cpu_per_action_bare_over_ligretto": round(
            bare["server_cpu_per_action_us"] / ligretto["server_cpu_per_action_us"], 2
        ),
        "memory_per_connection_ligretto_over_bare": round(
            ligretto["memory_per_connection_kib"] / bare["memory_per_connection_kib"], 2
        ),
    }
    runs["load_average"] = os.getloadavg()
    runs["tables"] = args.tables
    print(json.dumps(runs, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
