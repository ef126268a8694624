"""Players at p99 ack < 50 ms for one process of a service against two (issue 16,
"Measured"; docs/benchmarks.md, "`ligretto loadtest` against 1 and 2 processes").

A real PostgreSQL (``tests/pgserver.py``) and redis-server (``tests/redisserver.py``),
and per run a fresh database and fresh ``ligretto serve --redis … --db postgresql://…``
processes: one, or two (the second started after the first).  ``ligretto loadtest`` plays
``--tables`` tables of 4: against the one process, or split in two load tests run at once,
one against each process (each table is placed by load, so about half of each load test's
players reach their table through the relay, as behind a load balancer with no
stickiness).  Nothing is pinned: the servers, PostgreSQL, Redis and the load tests share
the machine's cores, and each run's line says what the load tests cost.  The loads climb
until p99 ack passes the target twice in a row; the threshold is the most players whose
run kept p99 under it (with two load tests, the worse of their two p99s).

    python tests/server/cluster/bench_processes.py [--tables 150 250 350 450] [--duration 20]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))  # tests/
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests/server/

from bench_store import cpu_seconds, postgres_pids

from pgserver import PgServer
from realserver import ServerProcess
from redisserver import RedisServer

TARGET_MS = 50.0


def loadtest(url: str, tables: int, duration: float, pid: int | None) -> subprocess.Popen[str]:
    command = [
        *(sys.executable, "-m", "ligretto", "loadtest", "--url", url, "--tables", str(tables), "--players", "4"),
        *("--duration", str(duration), "--json"),
        *(("--server-pid", str(pid)) if pid is not None else ()),
    ]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def run(processes: int, tables: int, duration: float, pg: PgServer, folder: Path) -> dict[str, Any]:
    redis = RedisServer(folder)
    redis.start()
    db = pg.new_database()
    servers = [
        ServerProcess(db, folder / f"server{n}.log", log_level="warning", redis=redis.url) for n in range(processes)
    ]
    try:
        for server in servers:
            server.settings["advertise"] = server.url
            server.start()
        shares = [tables // processes + (1 if n < tables % processes else 0) for n in range(processes)]
        load = os.getloadavg()[0]
        server_pids = [s.pid for s in servers if s.pid is not None]
        others = postgres_pids(pg) + ([redis.process.pid] if redis.process is not None else [])
        before = cpu_seconds(server_pids), cpu_seconds(others)
        running = [loadtest(s.url, share, duration, s.pid) for s, share in zip(servers, shares, strict=True)]
        reports = []
        for test in running:
            out, err = test.communicate()
            assert test.returncode == 0, err
            reports.append(json.loads(out))
        servers_s, others_s = cpu_seconds(server_pids) - before[0], cpu_seconds(others) - before[1]
        actions = sum(r["actions"] for r in reports)
        return {
            "processes": processes,
            "tables": tables,
            "players": 4 * tables,
            "load_at_start": round(load, 2),
            "connections": sum(r["connections"] for r in reports),
            "connections_failed": sum(r["connections_failed"] for r in reports),
            "errors": sum(r["errors"] for r in reports),
            "actions_per_s": round(sum(r["actions_per_s"] for r in reports), 1),
            "ack_p50_ms": [r["ack_ms"]["p50"] for r in reports],
            "ack_p99_ms": [r["ack_ms"]["p99"] for r in reports],
            "worst_p99_ms": max(r["ack_ms"]["p99"] for r in reports),
            "loadtest_cpu_percent": [r["cpu"]["loadtest_percent"] for r in reports],
            "server_cpu_percent": [r["cpu"]["server_percent"] for r in reports],
            "servers_cpu_us_per_action": round(1e6 * servers_s / max(1, actions)),
            "postgres_redis_cpu_us_per_action": round(1e6 * others_s / max(1, actions)),
        }
    finally:
        for server in servers:
            server.stop()
        redis.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, nargs="+", default=[150, 250, 350, 450])
    parser.add_argument("--duration", type=float, default=20.0)
    parser.add_argument("--processes", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args()
    pg = PgServer().start()
    try:
        for processes in args.processes:
            over, best = 0, 0
            for tables in args.tables:
                with tempfile.TemporaryDirectory() as folder:
                    figures = run(processes, tables, args.duration, pg, Path(folder))
                print(json.dumps(figures), flush=True)
                if figures["worst_p99_ms"] < TARGET_MS and not figures["connections_failed"]:
                    best = max(best, figures["players"])
                    over = 0
                else:
                    over += 1
                    if over == 2:
                        break
            print(json.dumps({"processes": processes, "players_at_p99_under_50ms": best}), flush=True)
    finally:
        pg.stop()


if __name__ == "__main__":
    main()
