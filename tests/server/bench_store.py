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

``--commits N``: instead, what one commit of one action costs each store, in process
(the store's ``record_action`` outside an event loop commits at once, as a lightly loaded
server commits each action in a turn of its own): wall time, the process's own CPU, and
PostgreSQL's backend's CPU (``/proc``), per commit, medians of the repeats.

    python tests/server/bench_store.py [--tables 100 250] [--duration 30] [--repeats 2]
    python tests/server/bench_store.py --commits 3000 [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from listeners import Quiet

from ligretto.server.records.store import Store
from ligretto.server.table.clock import VirtualScheduler
from ligretto.server.table.table import Table
from pgserver import PgServer
from realserver import ServerProcess
from redisserver import RedisServer

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


KINDS = ("sqlite", "postgresql", "postgresql-async", "redis-postgresql")
"""The stores: an SQLite file; PostgreSQL durable, or with ``synchronous_commit=off``; and
the path of a service (``--redis``, a process of a service of one, on durable PostgreSQL)."""


def run(kind: str, tables: int, duration: float, pg: PgServer, folder: Path) -> dict[str, object]:
    db = str(folder / "bench.db") if kind == "sqlite" else pg.new_database()
    if kind == "postgresql-async":
        db += "?options=-c%20synchronous_commit%3Doff"
    redis = None
    settings: dict[str, object] = {}
    if kind == "redis-postgresql":
        redis = RedisServer(folder)
        redis.start()
        assert redis.process is not None
        os.sched_setaffinity(redis.process.pid, SERVER_CORE)
        settings = {"redis": redis.url}
    server = ServerProcess(db, folder / f"{kind}-{tables}.log", log_level="warning", **settings)
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
        assert server.pid is not None
        pids = postgres_pids(pg) if kind != "sqlite" else []
        if redis is not None and redis.process is not None:
            pids.append(redis.process.pid)
        before, server_before = cpu_seconds(pids), cpu_seconds([server.pid])
        commits_before = pg_commits(db) if kind != "sqlite" else 0
        done = subprocess.run(command, capture_output=True, text=True, check=True)
        commits = pg_commits(db) - commits_before if kind != "sqlite" else None
        # Over the whole load test (set-up too): PostgreSQL's and Redis's CPU against the server's own.
        postgres_s, server_s = cpu_seconds(pids) - before, cpu_seconds([server.pid]) - server_before
        report: dict[str, object] = json.loads(done.stdout)
        return {
            "store": kind,
            "tables": tables,
            "load_at_start": load,
            "run_cpu_s": {"server": server_s, "postgres": postgres_s},  # "postgres": with Redis, where it runs
            "pg_commits": commits,  # transactions PostgreSQL committed in the database over the run
            **report,
        }
    finally:
        server.stop()
        if redis is not None:
            redis.stop()


def pg_commits(url: str) -> int:
    """Transactions committed in the database so far (``pg_stat_database``, as of now)."""
    import psycopg

    with psycopg.connect(url.split("?", maxsplit=1)[0], autocommit=True) as db:
        db.execute("SELECT pg_stat_clear_snapshot()")
        row = db.execute("SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()").fetchone()
    return int(row[0]) if row else 0


def commits(url: str, count: int) -> dict[str, float]:
    """Per commit of one action: wall and CPU microseconds (this process, PostgreSQL's backend)."""
    store = Store(url)
    scheduler = VirtualScheduler()
    table = Table("BENCH", seats=4, store=store, countdown_s=1.0, scheduler=scheduler)
    for name in ("Ann", "Bob", "Cy", "Di"):
        table.join(Quiet(), name)
    table.start(0)
    scheduler.advance(1.0)
    backend = [int(store.db.execute("SELECT pg_backend_pid()").fetchone()[0])] if "://" in url else []
    action = {"type": "turn", "player": 0}
    wall, cpu, pg = time.perf_counter(), time.process_time(), cpu_seconds(backend)
    for index in range(count):
        store.record_action(table.deal_record(), index, action, 1000.0 + index)  # no event loop: committed at once
    wall, cpu, pg = time.perf_counter() - wall, time.process_time() - cpu, cpu_seconds(backend) - pg
    table.close()
    store.close()
    return {"wall_us": 1e6 * wall / count, "cpu_us": 1e6 * cpu / count, "postgres_cpu_us": 1e6 * pg / count}


def main_commits(count: int, repeats: int, pg: PgServer) -> None:
    figures: dict[str, list[dict[str, float]]] = {"sqlite": [], "postgresql": [], "postgresql-async": []}
    for _ in range(repeats):
        for kind, runs in figures.items():
            with tempfile.TemporaryDirectory() as folder:
                url = str(Path(folder) / "bench.db") if kind == "sqlite" else pg.new_database()
                if kind == "postgresql-async":
                    url += "?options=-c%20synchronous_commit%3Doff"
                runs.append(commits(url, count))
    for kind, runs in figures.items():
        medians = {name: round(statistics.median(run[name] for run in runs), 1) for name in runs[0]}
        print(json.dumps({"store": kind, "commits": count, "repeats": repeats, "load": os.getloadavg()[0], **medians}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, nargs="+", default=[100, 250])
    parser.add_argument("--duration", type=float, default=30.0)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--commits", type=int, default=0)
    parser.add_argument("--stores", nargs="+", choices=KINDS, default=list(KINDS[:3]))
    args = parser.parse_args()
    pg = PgServer().start()
    try:
        if args.commits:
            main_commits(args.commits, args.repeats, pg)
            return
        for pid in postgres_pids(pg):
            os.sched_setaffinity(pid, SERVER_CORE)
        for repeat in range(args.repeats):
            for tables in args.tables:
                kinds = tuple(args.stores)
                for kind in kinds if repeat % 2 == 0 else kinds[::-1]:
                    with tempfile.TemporaryDirectory() as folder:
                        print(json.dumps(run(kind, tables, args.duration, pg, Path(folder))), flush=True)
                    time.sleep(2)
    finally:
        pg.stop()


if __name__ == "__main__":
    main()
