"""One server process on PostgreSQL against the same on SQLite (issue 16, "Measured";
docs/benchmarks.md, "PostgreSQL store").

A real PostgreSQL (``tests/pgserver.py``: Debian's, a cluster of its own in a temporary
directory, its durable defaults: ``fsync`` and ``synchronous_commit`` on) and, per run, a
fresh ``ligretto serve`` on a fresh database (an SQLite file, or a new PostgreSQL
database: ``postgresql`` with PostgreSQL's durable default, each commit waiting for its
WAL's fsync, and ``postgresql-async`` with ``synchronous_commit=off`` in the URL, which
like SQLite's ``synchronous=NORMAL`` in WAL mode survives the crash of ``ligretto serve``
but may lose the last fraction of a second to a crash of the database's machine), the
server and PostgreSQL pinned to core 0, ``ligretto loadtest`` on core 1;
the stores alternate, so the neighbours' load falls on both alike.  Each run's
figures (``ligretto loadtest --json``) are printed as one JSON line.

    python tests/server/bench_store.py [--tables 100 250] [--duration 30] [--repeats 2]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pgserver import PgServer
from realserver import ServerProcess

SERVER_CORE = {0}
CLIENT_CORE = "1"


def postgres_pids(server: PgServer) -> list[int]:
    """Every process of the PostgreSQL server (the postmaster and its children)."""
    (first,) = (server.data / "postmaster.pid").read_text().split()[:1]
    children = subprocess.run(["pgrep", "-P", first], capture_output=True, text=True, check=False).stdout.split()
    return [int(first), *map(int, children)]


def cpu_seconds(pids: list[int]) -> float:
    """User and system CPU of these processes so far (seconds; a process gone counts 0)."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15)
    return total / os.sysconf("SC_CLK_TCK")


def run(kind: str, tables: int, duration: float, pg: PgServer, folder: Path) -> dict[str, object]:
    db = str(folder / "bench.db") if kind == "sqlite" else pg.new_database()
    if kind == "postgresql-async":
        db += "?options=-c%20synchronous_commit%3Doff"
    server = ServerProcess(db, folder / f"{kind}-{tables}.log", log_level="warning")
    server.cpus = SERVER_CORE
    server.start()
    try:
        for pid in postgres_pids(pg):  # new backends inherit the postmaster's core
            os.sched_setaffinity(pid, SERVER_CORE)
        command = [
            *("taskset", "-c", CLIENT_CORE, sys.executable, "-m", "ligretto", "loadtest"),
            *("--url", server.url, "--tables", str(tables), "--players", "4"),
            *("--duration", str(duration), "--server-pid", str(server.pid), "--json"),
        ]
        load = os.getloadavg()[0]
        pids = postgres_pids(pg)
        before, started = cpu_seconds(pids), time.monotonic()
        done = subprocess.run(command, capture_output=True, text=True, check=True)
        # PostgreSQL's CPU over the whole load test (set-up too), as a share of one core.
        postgres_percent = 100 * (cpu_seconds(pids) - before) / (time.monotonic() - started)
        report: dict[str, object] = json.loads(done.stdout)
        return {"store": kind, "tables": tables, "load_at_start": load, "postgres_percent": postgres_percent, **report}
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, nargs="+", default=[100, 250])
    parser.add_argument("--duration", type=float, default=30.0)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    pg = PgServer().start()
    try:
        for pid in postgres_pids(pg):
            os.sched_setaffinity(pid, SERVER_CORE)
        for repeat in range(args.repeats):
            for tables in args.tables:
                kinds = ("sqlite", "postgresql", "postgresql-async")
                for kind in kinds if repeat % 2 == 0 else kinds[::-1]:
                    with tempfile.TemporaryDirectory() as folder:
                        print(json.dumps(run(kind, tables, args.duration, pg, Path(folder))), flush=True)
                    time.sleep(2)
    finally:
        pg.stop()


if __name__ == "__main__":
    main()
