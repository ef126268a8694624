"""The stress harness's floods at live tables (issue 13, "Measured"): one flooding client
seated at each of ``tables`` live tables, among ``players`` ordinary players.

Each table is made with ``players + 1`` seats.  The flooders (``harness/flood.py``, in a
process of their own at the lowest priority, so they take no CPU the players here want)
take a seat at each in its lobby and let their connection go; the load test's players
(``harness/client.py``: the client model and the greedy strategy at a human pace) join,
the first of them host, who starts the match.  A spectator at each table keeps every
frame it receives (for the hidden-card scan), a client session of its own
(:class:`ligretto.client.Session`).  Then the flooders flood for ``seconds``
(each sends game actions as fast as its socket takes them and comes back with its seat
token whenever the rate limit closes it) while the players play.  The report: messages
the flooders offered (tried), connections the rate limit closed and reconnections a
second, the flooded tables' own players' acks (p50/p99), cards lost in each table's view
as a newcomer spectator sees it at the end (``scans.cards_lost``), the spectators'
frames, crashes and the server's memory.  Other tables' p99 ack meanwhile is the
harness's to measure (``ligretto stress``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import time
from typing import Any

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from ligretto.client.session import Session
from ligretto.harness.client import Client, ClientSettings, Pacer, TableRun
from ligretto.harness.figures import Figures, percentiles
from ligretto.harness.probes import alive, cpu_seconds_of, http, rss_of
from ligretto.harness.run import server_urls
from ligretto.harness.scenario import ScenarioReport
from ligretto.protocol import Pong
from ligretto.testkit.scans import Frame, cards_lost

MATCH_END = "rounds:1000"


async def _flooders(base: str, codes: list[str], seconds: float) -> asyncio.subprocess.Process:
    """The flooders in a process of their own, seated (one at each table), waiting for a line."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        *("-m", "ligretto.harness.flood", "--url", base, "--duration", str(seconds)),
        *("--tables=" + ",".join(codes), "--wait"),  # one "=": a code may begin with "-"
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )
    assert process.stdout is not None
    line = await asyncio.wait_for(process.stdout.readline(), 60.0)
    if line.strip() != b"ready":
        process.kill()
        raise RuntimeError(f"the flooding clients did not take their seats: {line!r}")
    return process


async def _players(code: str, players: int, settings: ClientSettings, figures: Figures, pacer: Pacer) -> TableRun:
    """The table's players seated (the first the host), the match started, playing."""
    table = TableRun(code)
    table.clients = [Client(table, i, settings, figures) for i in range(players)]
    if not await table.clients[0].open(pacer) or not all(
        await asyncio.gather(*(c.open(pacer) for c in table.clients[1:]))
    ):
        raise RuntimeError(f"the players of {code} could not all join")
    deadline = time.monotonic() + settings.timeout
    while (host := next((c for c in table.clients if c.session.seat == table.host_seat), None)) is None:
        if time.monotonic() > deadline:
            raise RuntimeError(f"no host at {code}")
        await asyncio.sleep(0.01)  # the host's table message is on its way
    await host.send({"type": "set_rules", "options": {"match_end": MATCH_END}})
    await host.send({"type": "start"})
    await asyncio.wait_for(host.playing.wait(), settings.timeout + 5)
    for client in table.clients:
        client.start_playing()
    return table


async def _spectator(ws_url: str, code: str, frames: list[Frame], stop: asyncio.Event) -> None:
    """Watch table ``code`` until ``stop``, keeping every frame (and pinging: the silence
    deadline closes a connection that sends nothing)."""
    session = Session(code, watch=True)
    async with connect(ws_url, compression=None, ping_interval=None, max_size=1 << 20, proxy=None) as ws:
        await ws.send(json.dumps(session.connect()))
        with contextlib.suppress(ConnectionClosed):
            while not stop.is_set():
                try:
                    text = await asyncio.wait_for(ws.recv(), 1.0)
                except TimeoutError:
                    await ws.send(json.dumps({"type": "ping", "t": 0.0}))
                    continue
                if not isinstance(session.receive(text), Pong):
                    frames.append(Frame(code, None, str(text)))


async def final_view(ws_url: str, code: str) -> Any:
    """The round of table ``code`` as a newcomer spectator sees it (``None``: no round)."""
    session = Session(code, watch=True)
    async with connect(ws_url, compression=None, ping_interval=None, max_size=1 << 20, proxy=None) as ws:
        await ws.send(json.dumps(session.connect()))
        await ws.send(json.dumps({"type": "ping", "t": 0.0}))
        while not isinstance(session.receive(await asyncio.wait_for(ws.recv(), 15.0)), Pong):
            pass
        return None if session.mirror is None else session.mirror.to_dict()


async def run_table_floods(
    url: str,
    tables: int,
    players: int,
    seconds: float,
    *,
    level: str = "casual",
    speed: float = 1.0,
    server_pid: int | None = None,
    seed: int = 0,
) -> ScenarioReport:
    """One flooder at each of ``tables`` live tables of ``players`` players, ``seconds`` of
    flooding; the report."""
    base, ws_url = server_urls(url)
    rss_before = rss_of(server_pid)[0] if server_pid else None
    # 1. The tables, a flooder seated at each, then its players, the match started.
    codes = []
    for _ in range(tables):
        reply = await asyncio.to_thread(http, f"{base}/api/tables", {"seats": players + 1})
        codes.append(json.loads(reply)["code"])
    flood = await _flooders(base, codes, seconds)
    figures = Figures()
    settings = ClientSettings(ws_url=ws_url, level=level, speed=speed, compression=False, seed=seed)
    pacer = Pacer(settings.connect_rate, settings.connect_concurrency)
    try:
        runs = await asyncio.gather(*(_players(code, players, settings, figures, pacer) for code in codes))
    except BaseException:
        flood.kill()
        raise
    frames: list[Frame] = []
    stop = asyncio.Event()
    spectators = [asyncio.create_task(_spectator(ws_url, code, frames, stop)) for code in codes]
    # 2. The flood, the players playing meanwhile.
    assert flood.stdin is not None and flood.stdout is not None
    flood.stdin.write(b"go\n")
    await flood.stdin.drain()
    start = time.monotonic()
    cpu_before = cpu_seconds_of(server_pid) if server_pid else None
    out = await flood.stdout.read()
    await flood.wait()
    elapsed = time.monotonic() - start
    cpu_after = cpu_seconds_of(server_pid) if server_pid else None
    server_cpu = None if cpu_before is None or cpu_after is None else round(100 * (cpu_after - cpu_before) / elapsed, 1)
    # 3. The players stop, the spectators too; each table's round looked at afresh.
    clients = [c for run in runs for c in run.clients]
    for client in clients:
        client.stopping = True
    await asyncio.sleep(0.5)  # the last acks and events on their way
    stop.set()
    await asyncio.gather(*spectators, return_exceptions=True)
    views = [await final_view(ws_url, code) for code in codes]
    await asyncio.gather(*(c.close() for c in clients))
    try:
        offered: dict[str, Any] = json.loads(out.decode().strip().splitlines()[-1])
    except (ValueError, IndexError):
        offered = {"offered": 0, "error": f"the flooders exited with {flood.returncode}"}
    up = await alive(base)
    closed = sum(offered.get("close_codes", {}).values())
    return ScenarioReport(
        scenario="table_floods",
        what="messages offered by flooders",
        tried=int(offered.get("offered", 0)),
        seconds=round(elapsed, 1),
        crashes=0 if up else 1,
        cards_lost=sum(cards_lost(view) for view in views if view is not None),
        rss_before=rss_before,
        rss_after=rss_of(server_pid)[0] if server_pid else None,
        details={
            "tables": tables,
            "codes": codes,
            "players_per_table": players,
            "flooders": offered,
            "closed_by_rate_limit": closed,
            "reconnects_per_s": round(closed / elapsed, 1) if elapsed else None,
            "tables_with_a_round": sum(view is not None for view in views),
            "players_ack_ms": percentiles(list(figures.ack_latency)),
            "players_actions": len(figures.ack_latency),
            "players_errors": dict(sorted(figures.errors.items())),
            "spectator_frames": len(frames),
            "server_cpu_percent": server_cpu,
        },
        frames=frames,
    )
