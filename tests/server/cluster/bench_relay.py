"""What the relay's hop costs (issue 16, "Measured"; docs/benchmarks.md, "Several processes").

A real redis-server and two real ``ligretto serve --redis`` processes; a table on the
first.  One spectator connects to the owner itself, one to the other process (carried
by the relay); each sends ``--pings`` pings one after the other and times each pong on
the client (127.0.0.1, the same machine), in turns of a tenth each.  The relay's cost per message is the
difference of the two round trips (a ping and its pong: one message each way).

    python tests/server/cluster/bench_relay.py [--pings 2000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import websockets
from bench_failover import create_on, until

from realserver import TEST_RATE, ServerProcess
from redisserver import RedisServer


async def round_trips(port: int, code: str, pings: int) -> list[float]:
    """Seconds from each ping to its pong, as a spectator of ``code`` through ``port``."""
    async with websockets.connect(f"ws://127.0.0.1:{port}/ws", ping_interval=None) as ws:
        await ws.send(json.dumps({"type": "hello", "v": 1, "code": code, "watch": True}))
        await until(ws, "welcome")
        await until(ws, "table")
        times = []
        for i in range(pings):
            start = time.perf_counter()
            await ws.send(json.dumps({"type": "ping", "t": float(i)}))
            while json.loads(await ws.recv())["type"] != "pong":
                pass
            times.append(time.perf_counter() - start)
        return times


CHUNKS = 10
"""The pings are sent in turns, a tenth direct, a tenth relayed, and so on."""


def quantiles(times: list[float]) -> tuple[float, float]:
    """p50 and p99, in milliseconds."""
    cuts = statistics.quantiles(times, n=100)
    return cuts[49] * 1000, cuts[98] * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pings", type=int, default=2000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        redis = RedisServer(root)
        redis.start()
        processes = [ServerProcess(root / "ligretto.db", root / f"server{i}.log") for i in range(2)]
        for process in processes:
            # pings one after the other, faster than a person's rate limit allows
            process.settings.update(redis=redis.url, advertise=process.url, **TEST_RATE)
            process.start()
        try:
            code = create_on(processes[0])
            direct: list[float] = []
            relayed: list[float] = []
            for _ in range(CHUNKS):  # in turns: the machine's other load falls on both alike
                direct += asyncio.run(round_trips(processes[0].port, code, args.pings // CHUNKS))
                relayed += asyncio.run(round_trips(processes[1].port, code, args.pings // CHUNKS))
        finally:
            for process in processes:
                process.stop()
            redis.stop()
    (d50, d99), (r50, r99) = quantiles(direct), quantiles(relayed)
    print(f"direct to the owner:  p50 {d50:.3f} ms, p99 {d99:.3f} ms ({args.pings} round trips)")
    print(f"through the relay:    p50 {r50:.3f} ms, p99 {r99:.3f} ms")
    print(f"the hop, per message: p50 +{(r50 - d50) / 2:.3f} ms, p99 +{(r99 - d99) / 2:.3f} ms")


if __name__ == "__main__":
    main()
