"""kill -9 of a table's owner → the table accepting actions again, on another process
(issue 16, "Measured"; docs/benchmarks.md, "Several processes").

A real redis-server and two real ``ligretto serve --redis`` processes on one database
(an SQLite file, or with ``--postgres`` a database of a real PostgreSQL server started
for the run, ``tests/pgserver.py``).  Each kill: a table on the victim with two people
connected to it, a match on and one action acknowledged; SIGKILL; both come back with
their seat tokens through the other process (trying again, as the real clients do, while
the lease runs out and the table is taken over), wait for *go* (the restored round counts
down afresh once its people are back: ``--countdown``) and act; the figure is from the
kill to the first applied action's ack, and to the welcome back.  The victim is started
again and the other process is killed next.

    python tests/server/cluster/bench_failover.py [--kills 20] [--countdown 3] [--postgres]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))

import websockets

from ligretto.server.cluster import keys
from ligretto.testkit.pgserver import THROWAWAY
from pgserver import PgServer
from realserver import ServerProcess
from redisserver import RedisServer

WAIT_S = 30.0


def create_on(process: ServerProcess) -> str:
    """A table made by ``process`` itself (the header of a request placed there)."""
    body = json.dumps({"seats": 2, "preset": "classic", "options": {}, "public": False, "grace_s": 60.0}).encode()
    request = urllib.request.Request(process.url + "/api/tables", data=body, method="POST")
    request.add_header("Content-Type", "application/json")
    request.add_header(keys.RELAYED, "1")
    with urllib.request.urlopen(request, timeout=5) as answer:
        code: str = json.loads(answer.read())["code"]
    return code


async def until(ws: Any, kind: str) -> dict[str, Any]:
    while True:
        message: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), WAIT_S))
        if message["type"] == kind or message["type"] == "error":
            assert message["type"] == kind, message
            return message


async def act(ws: Any, ident: str) -> None:
    await ws.send(json.dumps({"type": "act", "id": ident, "action": {"kind": "turn"}}))
    while True:
        message = json.loads(await asyncio.wait_for(ws.recv(), WAIT_S))
        if message.get("id") == ident:
            assert message["type"] == "ack" and message["applied"], message
            return


async def seated(port: int, code: str, name: str) -> tuple[Any, str]:
    ws = await websockets.connect(f"ws://127.0.0.1:{port}/ws", ping_interval=None)
    await ws.send(json.dumps({"type": "hello", "v": 1, "code": code, "name": name}))
    token: str = (await until(ws, "welcome"))["token"]
    return ws, token


async def back(port: int, code: str, token: str, t0: float) -> tuple[float, float]:
    """Rejoin through ``port`` until welcomed; (welcome, first ack) seconds after ``t0``."""
    while True:
        try:
            ws = await websockets.connect(f"ws://127.0.0.1:{port}/ws", ping_interval=None, open_timeout=5)
            await ws.send(json.dumps({"type": "hello", "v": 1, "code": code, "token": token}))
            await until(ws, "welcome")
            welcomed = time.monotonic() - t0
            await until(ws, "go")
            await act(ws, "after")
            acted = time.monotonic() - t0
            await ws.close()
            return welcomed, acted
        except (OSError, websockets.ConnectionClosed, AssertionError, TimeoutError):
            await asyncio.sleep(0.1)  # the browser's and the terminal's back-off starts about there


async def one_kill(victim: ServerProcess, survivor: ServerProcess) -> tuple[float, float]:
    code = create_on(victim)
    (ann, ann_token), (bob, bob_token) = [await seated(victim.port, code, n) for n in ("Ann", "Bob")]
    await ann.send(json.dumps({"type": "start"}))
    for ws in (ann, bob):
        await until(ws, "go")
    await act(ann, "before")
    victim.kill()
    t0 = time.monotonic()
    figures = await asyncio.gather(*(back(survivor.port, code, t, t0) for t in (ann_token, bob_token)))
    for ws in (ann, bob):
        await ws.close()
    return max(f[0] for f in figures), min(f[1] for f in figures)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--countdown", type=float, default=3.0, help="the servers' countdown (default 3: theirs)")
    parser.add_argument("--postgres", action="store_true", help="share a PostgreSQL database (default: an SQLite file)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        redis = RedisServer(root)
        redis.start()
        postgres = PgServer(*THROWAWAY).start() if args.postgres else None
        db = root / "ligretto.db" if postgres is None else postgres.new_database()
        processes = [ServerProcess(db, root / f"server{i}.log", args.countdown) for i in range(2)]
        for process in processes:
            process.settings.update(redis=redis.url, advertise=process.url)
            process.start()
        welcomed, acted = [], []
        try:
            for kill in range(args.kills):
                victim, survivor = processes[kill % 2], processes[1 - kill % 2]
                welcome_s, act_s = asyncio.run(one_kill(victim, survivor))
                welcomed.append(welcome_s)
                acted.append(act_s)
                print(
                    f"kill {kill + 1}: back at the seat {welcome_s:.2f} s, accepting actions {act_s:.2f} s", flush=True
                )
                victim.start()
        finally:
            for process in processes:
                process.stop()
            redis.stop()
            if postgres is not None:
                postgres.stop()
    for name, values in (("back at the seat", welcomed), ("accepting actions", acted)):
        print(f"{name}: median {statistics.median(values):.2f} s, max {max(values):.2f} s ({len(values)} kills)")


if __name__ == "__main__":
    main()
