"""The stress harness's lobby flood (issue 27, ``ligretto stress --scenarios lobby_flood``):
``clients`` ``/ws/lobby`` connections sending frames as fast as their sockets take them
for ``seconds``, each back as soon as the server closes it, while the measuring tables play.

The server reads a lobby socket within ``/ws``'s rate limit: past the burst it sends the
``rate_limited`` error and closes the socket (1008), and refuses the flooder's address a
new lobby socket for ``cool_down_s`` (429 ``cooling_down``: counted in the flooders'
``errors`` as ``InvalidStatus``; they try again at once, as an attacker would).  The flooders run in a process of
their own at the lowest priority (``python -m ligretto.harness.lobbyflood``, as
``harness/flood.py``), so they take no CPU the measuring tables want: it prints ``ready``,
floods once a line comes on its standard input, and prints its figures as one JSON line.
Once the flood's time is up, each flooder keeps flooding its last connection until the
server closes it (or ``close_wait_s``), so every connection it opened is judged: closed
with 1008 after the ``rate_limited`` error, or reset (:data:`RESET`).

:func:`run_lobby_flood` reports, besides the flood's figures: connections not closed with
1008 after the ``rate_limited`` error within ``close_wait_s`` (wrong answers), the time
from a connection's opening to its close, the server's CPU during the flood, whether a new
lobby socket still gets the list, and whether the server still answers ``/healthz``."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus, WebSocketException

from ligretto.harness.figures import percentiles
from ligretto.harness.flood import FloodFigures
from ligretto.harness.probes import Cpu, alive, rss_of
from ligretto.harness.run import server_urls
from ligretto.harness.scenario import ScenarioReport
from ligretto.harness.tableflood import list_tables, lobby_sizes

FRAME = '{"type": "ping", "t": 0}'
"""What a lobby flooder sends: a small text frame (the lobby reads and ignores it)."""
YIELD_EVERY = 64
"""Frames sent between two turns of the flooder's reader (which sees the close)."""
CLOSE_WAIT_S = 10.0
COOLING_WAIT_S = 10.0
"""How long the newcomer after the flood waits out its address's cool-down (the server's
``cool_down_s``, 2 s, after the last flooded socket)."""
RESET = "1006"
"""A connection reset: the server closed its socket with the flooder's frames unread, so its
kernel answered them with a reset, which can overtake the error and the close frame on
their way (1 connection in 1,743 at full scale): closed by the server all the same."""


@dataclass(slots=True)
class LobbyFloodFigures(FloodFigures):
    """What the lobby flooders did (``offered``: frames) and how each connection ended."""

    warned: int = 0
    """Connections that got the ``rate_limited`` error before their close."""
    lists: int = 0
    """``lobby`` messages the flooders received (one on each connection)."""
    open_s: list[float] = field(default_factory=list)
    """Each connection's time from its opening to the server's close."""

    def report(self) -> dict[str, Any]:
        report = FloodFigures.report(self)  # (a slotted dataclass has no zero-argument super())
        del report["open_s"]
        report["closed_after_ms"] = percentiles(self.open_s)
        return report


async def _read(ws: ClientConnection, figures: LobbyFloodFigures) -> None:
    """What the server sends a flooding connection: lists, then the error before the close."""
    try:
        async for text in ws:
            message = json.loads(text)
            figures.lists += message.get("type") == "lobby"
            figures.warned += message.get("type") == "error" and message.get("code") == "rate_limited"
    except ConnectionClosed:
        pass


async def _flood_one(ws: ClientConnection, figures: LobbyFloodFigures, close_wait_s: float) -> None:
    """Frames as fast as the socket takes them until the server closes it (or ``close_wait_s``)."""
    opened = time.monotonic()
    reader = asyncio.create_task(_read(ws, figures))
    try:
        while time.monotonic() - opened < close_wait_s:
            for _ in range(YIELD_EVERY):
                await ws.send(FRAME)
                figures.offered += 1
            await asyncio.sleep(0)
        figures.close_codes["open"] = figures.close_codes.get("open", 0) + 1
    except ConnectionClosed:
        figures.open_s.append(time.monotonic() - opened)
        code = str(ws.close_code)
        figures.close_codes[code] = figures.close_codes.get(code, 0) + 1
    finally:
        await ws.close()
        await asyncio.wait_for(reader, 5.0)


async def flood_lobby(lobby_url: str, until: float, figures: LobbyFloodFigures, close_wait_s: float) -> None:
    """One flooder: connect, flood until closed, come straight back, until ``until``."""
    while time.monotonic() < until:
        try:
            ws = await connect(lobby_url, compression=None, ping_interval=None, proxy=None, close_timeout=0.5)
        except (OSError, WebSocketException) as error:
            figures.errors[type(error).__name__] = figures.errors.get(type(error).__name__, 0) + 1
            await asyncio.sleep(0.01)
            continue
        figures.connections += 1
        await _flood_one(ws, figures, close_wait_s)


async def run_flooders(url: str, clients: int, duration: float, close_wait_s: float = CLOSE_WAIT_S) -> dict[str, Any]:
    """Say ``ready``, and once a line comes on standard input flood for ``duration``; the figures."""
    _, ws_url = server_urls(url)
    figures = LobbyFloodFigures(clients=clients)
    print("ready", flush=True)
    await asyncio.to_thread(sys.stdin.readline)
    start = time.monotonic()
    await asyncio.gather(
        *(flood_lobby(f"{ws_url}/lobby", start + duration, figures, close_wait_s) for _ in range(clients))
    )
    figures.seconds = time.monotonic() - start
    return figures.report()


async def _flooders(base: str, clients: int, seconds: float) -> asyncio.subprocess.Process:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        *("-m", "ligretto.harness.lobbyflood", "--url", base, "--clients", str(clients), "--duration", str(seconds)),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )
    assert process.stdout is not None
    if (line := await asyncio.wait_for(process.stdout.readline(), 60.0)).strip() != b"ready":
        process.kill()
        raise RuntimeError(f"the lobby flooders did not start: {line!r}")
    return process


async def _newcomer(base: str, ws_url: str, cooling_s: float = COOLING_WAIT_S) -> dict[str, int] | None:
    """The list a new lobby socket gets after the flood (``None``: none).  It comes from the
    flooders' address, which the server keeps out while it cools down (429
    ``cooling_down``): it tries again until then."""
    deadline = time.monotonic() + cooling_s
    while True:
        try:
            return await lobby_sizes(base, ws_url)
        except InvalidStatus as refused:
            if refused.response.status_code != 429 or time.monotonic() > deadline:
                return None
            await asyncio.sleep(0.1)
        except (OSError, TimeoutError, WebSocketException):
            return None


async def run_lobby_flood(
    url: str, clients: int, seconds: float, *, tables: int = 0, server_pid: int | None = None
) -> ScenarioReport:
    """``clients`` lobby flooders for ``seconds`` with ``tables`` public tables listed; the
    report (tried: the frames offered; its window: the flood)."""
    base, ws_url = server_urls(url)
    listed = await list_tables(base, tables)
    rss_before = rss_of(server_pid)[0] if server_pid else None
    flood = await _flooders(base, clients, seconds)
    assert flood.stdin is not None and flood.stdout is not None
    flood.stdin.write(b"go\n")
    await flood.stdin.drain()
    start, cpu = time.perf_counter(), Cpu(server_pid or None)
    out = await flood.stdout.read()
    await flood.wait()
    end = time.perf_counter()
    cpu.stop()
    try:
        figures: dict[str, Any] = json.loads(out.decode().strip().splitlines()[-1])
    except (ValueError, IndexError):
        figures = {"offered": 0, "connections": 0, "error": f"the flooders exited with {flood.returncode}"}
    newcomer = await _newcomer(base, ws_url)
    codes = figures.get("close_codes", {})
    closed = codes.get("1008", 0)
    reset = codes.get(RESET, 0)
    # a connection left open or closed otherwise, a close without its error, no list for a newcomer
    wrong = figures["connections"] - closed - reset + max(0, closed - figures.get("warned", 0)) + (newcomer is None)
    return ScenarioReport(
        scenario="lobby_flood",
        what="frames offered by lobby flooders",
        tried=int(figures["offered"]),
        seconds=round(end - start, 1),
        crashes=0 if await alive(base) else 1,
        wrong_answers=wrong,
        rss_before=rss_before,
        rss_after=rss_of(server_pid)[0] if server_pid else None,
        window=(start, end),
        details={
            "flooders": figures,
            "public_tables": listed,
            "newcomer_list": newcomer,
            "server_cpu_percent": cpu.figures["server_percent"],
        },
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ligretto.harness.lobbyflood", description=__doc__)
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--clients", type=int, default=1)
    parser.add_argument("--duration", type=float, default=10.0)
    parser.add_argument("--close-wait", type=float, default=CLOSE_WAIT_S, help="seconds a connection may flood")
    parser.add_argument("--nice", type=int, default=19, help="lower this process's priority (default 19)")
    args = parser.parse_args(argv)
    os.nice(args.nice)  # the measuring tables come first: the flooders take what is left
    report = asyncio.run(run_flooders(args.url, args.clients, args.duration, args.close_wait))
    print(json.dumps(report), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
