"""The score keeper live (issue 17: "entries by one appear on the others within a
second"; docs/benchmarks.md, "Score keeper").

A real ``ligretto serve`` on a fresh SQLite file; one sheet of three players; three phones'
live streams (``GET /api/sheets/{code}/events``, Server-Sent Events, each read by its own
thread); one phone enters rounds one after another (``PUT /api/sheets/{code}/rounds/{n}``).
For every round, the time from just before the PUT is sent to the moment each stream has
the sheet of that version: the whole path an entry takes to the other phones (HTTP, the
engine's scoring, the commit, the event), on 127.0.0.1, all on this machine.

``--processes 2``: two processes of one service (``--redis``: a real redis-server, and a
real PostgreSQL, ``tests/pgserver.py``, as their shared database; docs/deploy.md), the
entries PUT through the first, the three streams open on the second: the path then
includes the commit on PostgreSQL under the sheet's lock and the hop over Redis pub/sub.

    python tests/server/bench_keeper.py [--rounds 200] [--processes 2]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent.parent), str(Path(__file__).resolve().parent)]

from keeperclient import SheetStream, entry, new_sheet, put  # noqa: E402

from pgserver import PgServer  # noqa: E402
from realserver import ServerProcess, running  # noqa: E402
from redisserver import RedisServer  # noqa: E402


@contextlib.contextmanager
def service(folder: Path, processes: int) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    """The process the entries go to and the one the streams are open on (the same one
    without ``--redis``)."""
    if processes == 1:
        with running(ServerProcess(folder / "ligretto.db", folder / "server.log")) as server:
            yield server, server
        return
    pg, redis = PgServer().start(), RedisServer(folder)
    try:
        redis.start()
        with contextlib.ExitStack() as stack:
            db, started = pg.new_database(), []
            for index in range(processes):
                server = ServerProcess(db, folder / f"server{index}.log")
                server.settings["redis"] = redis.url
                server.settings["advertise"] = server.url
                started.append(stack.enter_context(running(server)))
            yield started[0], started[1]
    finally:
        redis.stop()
        pg.stop()


def measure(rounds: int, processes: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as folder, service(Path(folder), processes) as (server, watched):
        code = new_sheet(server, options={"match_end": f"rounds:{rounds}"})["code"]
        phones = [SheetStream(watched, code) for _ in range(3)]
        for phone in phones:
            phone.next()  # the sheet as it is, sent at once
        seen_ms: list[float] = []
        answer_ms: list[float] = []
        for n in range(1, rounds + 1):
            sent = time.monotonic()
            status, body = put(server, code, n, entry([n % 20, 5, 7], [0, 3, n % 11], 0), base=None, client_id=f"b{n}")
            answered = time.monotonic()
            assert status == 200, body
            answer_ms.append((answered - sent) * 1000)
            for phone in phones:
                at, _ = phone.until(body["version"])
                seen_ms.append((at - sent) * 1000)
    seen_ms.sort()
    return {
        "processes": processes,
        "rounds": rounds,
        "put_answer_ms_p50": round(statistics.median(answer_ms), 2),
        "seen_by_3_phones_ms_p50": round(statistics.median(seen_ms), 2),
        "seen_by_3_phones_ms_p99": round(seen_ms[int(0.99 * (len(seen_ms) - 1))], 2),
        "seen_by_3_phones_ms_max": round(seen_ms[-1], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--processes", type=int, choices=(1, 2), default=1)
    args = parser.parse_args()
    print(json.dumps(measure(args.rounds, args.processes)))


if __name__ == "__main__":
    main()
