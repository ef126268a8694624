"""The stress harness's measuring tables: ordinary players at tables of their own, in a
process of their own, whose ack latency is "the other tables' p99 ack" while a scenario
runs (``ligretto stress``, ``harness/stressrun.py``).

``python -m ligretto.harness.background --url URL --tables N --players P`` creates the
tables (from the loopback address ``--source``, 127.0.0.2 by default, so a scenario's
per-address quota counts only the attack), seats the load test's own clients
(``harness/client.py``: the greedy strategy at a human pace), and prints ``ready``.  Then
it reads commands on its standard input, one a line: ``mark`` notes the time and
``mark T`` the time ``T`` (``time.perf_counter()`` in another process, the same clock on
Linux: a window a scenario noted itself), each answered ``marked``; ``stop`` ends the
run and prints, as one JSON line, the ack latency of the actions sent between each pair
of marks (p50, p99, max in ms, and how many), with the errors the clients saw.  Being
its own process, its clients are not slowed by the harness's attack, which runs in the
harness's process.

:class:`Background` runs it from the harness.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections.abc import Sequence
from typing import Any

from ligretto.harness.client import ClientSettings, Pacer
from ligretto.harness.figures import Figures, percentiles, within
from ligretto.harness.run import create_tables, seat_table, server_urls

SOURCE = "127.0.0.2"
"""The loopback address the measuring tables are created from."""


async def measure(url: str, tables: int, players: int, level: str, source: str | None) -> dict[str, Any]:
    """Seat the tables, say ``ready``, follow the commands; the windows' figures."""
    base, ws_url = server_urls(url)
    figures = Figures()
    settings = ClientSettings(ws_url=ws_url, level=level, compression=False)
    runs = await create_tables(base, tables, players, figures, source=source)
    pacer = Pacer(settings.connect_rate, settings.connect_concurrency)
    started = await asyncio.gather(*(seat_table(t, players, settings, figures, pacer) for t in runs))
    print("ready" if any(started) else "failed", flush=True)
    loop = asyncio.get_running_loop()
    marks: list[float] = []
    while line := (await loop.run_in_executor(None, sys.stdin.readline)).strip():
        if line == "mark" or line.startswith("mark "):
            at = line.removeprefix("mark").strip()
            marks.append(float(at) if at else time.perf_counter())
            print("marked", flush=True)
        elif line == "stop":
            break
    clients = [c for t in runs for c in t.clients]
    for client in clients:
        client.stopping = True
        if client.player is not None:
            client.player.cancel()
    await asyncio.gather(*(c.close() for c in clients))
    windows = []
    for start, end in zip(marks[::2], marks[1::2], strict=False):
        acks = within(figures.ack_sent, figures.ack_latency, start, end)
        windows.append({"actions": len(acks), **percentiles(acks)})
    return {"tables_started": sum(started), "windows": windows, "errors": dict(sorted(figures.errors.items()))}


class Background:
    """The measuring tables' process, from the harness: :meth:`start`, then :meth:`mark`
    at a scenario's start and end, then :meth:`stop` for the windows' figures."""

    def __init__(self, url: str, tables: int, players: int = 4, level: str = "casual", source: str = SOURCE) -> None:
        self.command = [sys.executable, "-m", "ligretto.harness.background", "--url", url]
        self.command += ["--tables", str(tables), "--players", str(players), "--level", level, "--source", source]
        self.process: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        self.process = await asyncio.create_subprocess_exec(
            *self.command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
        )
        if await self._line() != "ready":
            raise RuntimeError("the measuring tables did not start")

    async def mark(self, at: float | None = None) -> None:
        """A mark now, or at ``at`` (``time.perf_counter()``); each two marks a window."""
        await self._say("mark" if at is None else f"mark {at!r}")
        if await self._line() != "marked":
            raise RuntimeError("the measuring tables did not answer")

    async def stop(self) -> dict[str, Any]:
        await self._say("stop")
        report: dict[str, Any] = json.loads(await self._line())
        assert self.process is not None
        await self.process.wait()
        return report

    async def _say(self, line: str) -> None:
        assert self.process is not None and self.process.stdin is not None
        self.process.stdin.write(line.encode() + b"\n")
        await self.process.stdin.drain()

    async def _line(self) -> str:
        assert self.process is not None and self.process.stdout is not None
        return (await self.process.stdout.readline()).decode().strip()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ligretto.harness.background", description=__doc__)
    parser.add_argument("--url", required=True)
    parser.add_argument("--tables", type=int, default=5)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--level", default="casual")
    parser.add_argument("--source", default=SOURCE, help="the local address the tables are created from ('' : any)")
    args = parser.parse_args(argv)
    report = asyncio.run(measure(args.url, args.tables, args.players, args.level, args.source or None))
    print(json.dumps(report), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
