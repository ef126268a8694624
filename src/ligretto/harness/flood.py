"""Flooding clients for ``ligretto loadtest --flood N``: each one seated person at a live
table of its own (with a bot) who sends game actions as fast as its socket takes them.

The server lets a connection send a burst, then a steady rate, and closes it past that
(``rate_limited``, code 1008); the flooder reads only while its socket is full, so it
notices when its connection drops, and comes straight back with its seat token and floods
again (the server holds its ``hello`` while the seat cools down after a flood): the server
sees a client offering as many messages as it can write, all the time.  The
flooders run in a process of their own (``python -m ligretto.harness.flood``) at the
lowest priority (``--nice``), so they take no CPU the measuring clients want; that process
prints ``ready`` once every flooder is at its table, floods for ``--duration`` seconds and
prints its figures as one JSON line.  Who a flooder is at its table (its hello, the
seat's token it comes back with) is its client session's (:class:`ligretto.client.Session`);
the flood itself is raw frames, as fast as they go.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from ligretto.client.session import Session
from ligretto.harness.probes import drain, http
from ligretto.harness.run import server_urls
from ligretto.protocol import Error, Go, Welcome

MATCH_END = "rounds:1000"
ACT = '{"type": "act", "id": %d, "action": {"kind": "turn"}}'
"""What a flooder sends: a valid game action, the most a message can ask of a table."""
READY = '{"type": "ready"}'
"""What a flooder sends first on each connection."""


@dataclass(slots=True)
class FloodFigures:
    """What the flooders did."""

    clients: int = 0
    offered: int = 0
    """Messages handed to the socket."""
    connections: int = 0
    close_codes: dict[str, int] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0

    def report(self) -> dict[str, Any]:
        report = asdict(self)
        report["offered_per_s"] = round(self.offered / self.seconds) if self.seconds else 0
        report["connections_per_s"] = round(self.connections / self.seconds, 1) if self.seconds else 0
        return report


class Flooder:
    """One seated person flooding their own table."""

    def __init__(self, base: str, ws_url: str, figures: FloodFigures) -> None:
        self.base = base
        self.ws_url = ws_url
        self.figures = figures
        self.session = Session(name="flood")
        self.ids = 0

    async def seat(self) -> None:
        """A table of its own with a bot, the match started and playing."""
        reply = await asyncio.to_thread(http, f"{self.base}/api/tables", {"seats": 2})
        self.session.code = json.loads(reply)["code"]
        ws = await self._join()
        try:
            await ws.send(json.dumps({"type": "add_bot", "strategy": "greedy", "level": "casual"}))
            await ws.send(json.dumps({"type": "set_rules", "options": {"match_end": MATCH_END}}))
            await ws.send(json.dumps({"type": "start"}))
            while not isinstance(self.session.receive(await ws.recv()), Go):
                pass
        finally:
            await ws.close()

    async def take_seat(self, code: str) -> None:
        """A seat at table ``code`` (in its lobby), someone else's to start; the connection
        let go at once (the seat stays, away), so the first player to join is the host."""
        self.session.code = code
        ws = await self._join()
        await ws.close()

    async def _join(self) -> ClientConnection:
        """A new connection, welcomed: the first takes a seat by name, the others come
        back with its token."""
        ws = await connect(
            self.ws_url, compression=None, ping_interval=None, max_size=1 << 20, proxy=None, close_timeout=0.5
        )
        self.figures.connections += 1
        await ws.send(json.dumps(self.session.connect()))
        while True:
            message = self.session.receive(await ws.recv())
            if isinstance(message, Welcome):
                return ws
            if isinstance(message, Error):
                await ws.close()
                raise RuntimeError(f"flooder could not join {self.session.code}: {message.code}")

    async def flood(self, until: float) -> None:
        """Send as fast as the socket takes, come back when closed, until ``until``."""
        figures = self.figures
        while time.monotonic() < until:
            try:
                ws = await self._join()
            except (OSError, ConnectionClosed, RuntimeError) as error:
                figures.errors[type(error).__name__] = figures.errors.get(type(error).__name__, 0) + 1
                await asyncio.sleep(0.01)
                continue
            reader = asyncio.create_task(drain(ws))
            try:
                # Ready for the next round first (else a table waits at its score sheet for
                # a person whose connection never stays long enough to say so).
                await ws.send(READY)
                figures.offered += 1
                while time.monotonic() < until:
                    self.ids += 1
                    await ws.send(ACT % self.ids)
                    figures.offered += 1
            except ConnectionClosed:
                code = str(ws.close_code)
                figures.close_codes[code] = figures.close_codes.get(code, 0) + 1
            finally:
                reader.cancel()
                await ws.close()


async def run_flood(
    base: str, ws_url: str, clients: int, duration: float, *, codes: Sequence[str] = (), wait: bool = False
) -> dict[str, Any]:
    """Seat ``clients`` flooders (at tables of their own with a bot, or one at each table
    of ``codes``, in its lobby), say ``ready``, (``wait``: once a line comes on standard
    input) flood for ``duration`` seconds; the figures."""
    figures = FloodFigures(clients=len(codes) if codes else clients)
    flooders = [Flooder(base, ws_url, figures) for _ in range(figures.clients)]
    if codes:
        await asyncio.gather(*(f.take_seat(code) for f, code in zip(flooders, codes, strict=True)))
    else:
        await asyncio.gather(*(f.seat() for f in flooders))
    print("ready", flush=True)
    if wait:
        await asyncio.to_thread(sys.stdin.readline)
    start = time.monotonic()
    await asyncio.gather(*(f.flood(start + duration) for f in flooders))
    figures.seconds = time.monotonic() - start
    return figures.report()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ligretto.harness.flood", description=__doc__)
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--clients", type=int, default=1)
    parser.add_argument("--duration", type=float, default=10.0)
    parser.add_argument("--tables", default="", help="invite codes, comma-separated: one flooder seated at each")
    parser.add_argument("--wait", action="store_true", help="after ready, flood once a line comes on stdin")
    parser.add_argument("--nice", type=int, default=19, help="lower this process's priority (default 19)")
    args = parser.parse_args(argv)
    # On a shared machine the measuring clients come first: the flooders take what is left.
    os.nice(args.nice)
    base, ws_url = server_urls(args.url)
    codes = [code for code in args.tables.split(",") if code]
    report = asyncio.run(run_flood(base, ws_url, args.clients, args.duration, codes=codes, wait=args.wait))
    print(json.dumps(report), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
