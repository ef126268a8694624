"""The bare stack: what the same message pattern costs with no game (issue 31).

A Starlette app on uvicorn (uvloop, ``websockets-sansio``, no permessage-deflate: the
server stack of ``ligretto serve``) whose WebSocket endpoint does what a table does with
its messages and nothing else: a client joins table ``?table=N``; an ``act`` is answered
with an ``ack`` to its sender and an ``events`` message to every client of the table
(the sender included), each with the act's number; a ``ping`` gets a ``pong``.  No rules,
no storage, no limits.

Its load client plays the same pattern as ``ligretto loadtest``'s clients: ``players``
clients a table, each with one act in flight, waiting a person's reaction time drawn from
a bot level (``ligretto.bots``) between its act's events and its next act, a ``ping``
after 2 s of silence, on the same WebSocket client (``harness.wire``); it measures the
same figures the same way (``harness.figures``: ack from send to ``ack``, fan-out from
send to each other client's ``events``).

Not part of the product: ``benchmarks/serverspeed.py`` runs it beside ``ligretto serve``.

    python benchmarks/barestack.py serve --port 8891
    python benchmarks/barestack.py load --url ws://127.0.0.1:8891/ws --tables 1000 --duration 60
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import msgspec
from starlette.applications import Starlette
from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect
from websockets.exceptions import ConnectionClosed

from ligretto.bots.reaction import LEVELS, Move
from ligretto.harness.figures import percentiles
from ligretto.harness.probes import cpu_seconds_of, rss_of
from ligretto.harness.wire import Text, Wire

ACK_PAD = 0
"""Bytes of padding in an ``ack``: ligretto's applied ``ack`` is about 40 bytes (``{"type": "ack",
"id": 8, "applied": true}``), this one about 50 with its empty pad."""
EVENTS_PAD = 100
"""Bytes of padding in an ``events``: the whole message is then about 145 bytes, the mean of
ligretto's (146 bytes, median 117, 116-297: 62 messages of a 4-seat table, measured 2026-12-03)."""
PING_AFTER_S = 2.0
"""A client that sent nothing for this long pings (as ``ligretto loadtest``'s do)."""

_decode = msgspec.json.Decoder().decode
_encode = msgspec.json.Encoder().encode


def create_app() -> Starlette:
    tables: dict[str, list[WebSocket]] = defaultdict(list)

    async def play(websocket: WebSocket) -> None:
        table = websocket.query_params.get("table", "0")
        await websocket.accept()
        members = tables[table]
        members.append(websocket)
        seat = len(members) - 1
        try:
            while True:
                message = _decode(await websocket.receive_text())
                kind = message.get("type")
                if kind == "act":
                    number = message["id"]
                    await websocket.send_text(
                        _encode({"type": "ack", "id": number, "applied": True, "pad": "x" * ACK_PAD}).decode()
                    )
                    events = _encode({"type": "events", "by": seat, "id": number, "pad": "x" * EVENTS_PAD}).decode()
                    for member in list(members):
                        await member.send_text(events)
                elif kind == "ping":
                    await websocket.send_text('{"type":"pong"}')
        except WebSocketDisconnect:
            pass
        finally:
            members.remove(websocket)

    return Starlette(routes=[WebSocketRoute("/ws", play)])


def serve(host: str, port: int) -> None:
    import uvicorn  # noqa: PLC0415 -- only the server role needs it

    uvicorn.run(
        create_app(),
        host=host,
        port=port,
        loop="uvloop",
        ws="websockets-sansio",
        ws_per_message_deflate=False,
        ws_ping_interval=20,
        ws_ping_timeout=20,
        log_level="warning",
    )


@dataclass
class Load:
    """The load client's shared figures (one event loop: no locks)."""

    start: float = 0.0
    end: float = float("inf")
    acks: list[float] = field(default_factory=list)
    fanouts: list[float] = field(default_factory=list)
    sent: dict[tuple[str, int], float] = field(default_factory=dict)
    actions: int = 0
    errors: int = 0
    error_kinds: dict[str, int] = field(default_factory=dict)
    """The errors by the exception's name (the report says which)."""

    def counts(self, at: float) -> bool:
        return self.start <= at < self.end


async def _wait_pinging(wire: Wire, wait: float, last_sent: float) -> float:
    """Wait ``wait`` seconds, pinging after :data:`PING_AFTER_S` of silence; the last send's time."""
    while wait > 0:
        step = min(wait, PING_AFTER_S - (time.perf_counter() - last_sent))
        if step <= 0:
            wire.send(b'{"type":"ping"}')
            last_sent = time.perf_counter()
            continue
        await asyncio.sleep(step)
        wait -= step
    return last_sent


async def player(
    url: str,
    table: str,
    *,
    seat: int,
    load: Load,
    level: str,
    rng: random.Random,
    started: asyncio.Event,
    pace: float | None = None,
) -> None:
    """One client on the load test's own WebSocket (``harness.wire``: each message read as it
    arrives), so that both servers are measured with the same client costs."""
    delays = LEVELS[level].sampler(rng)
    # the level's draws, scaled to a mean of ``pace`` seconds between acts when given
    scale = 1.0 if pace is None else pace / LEVELS[level].mean(Move.PLAY, 2, 16)
    answered = asyncio.Event()
    mine: dict[int, float] = {}

    def read(raw: Text) -> None:
        now = time.perf_counter()
        message = _decode(raw)
        kind = message.get("type")
        if kind == "ack":
            sent = mine.get(message["id"])
            if sent is not None and load.counts(sent):
                load.acks.append(now - sent)
        elif kind == "events":
            key = (table, message["id"])
            if message["by"] == seat:
                mine.pop(message["id"], None)
                answered.set()
            else:
                sent = load.sent.get(key)
                if sent is not None and load.counts(sent):
                    load.fanouts.append(now - sent)

    def closed(_closed: ConnectionClosed) -> None:
        pass  # a send or the wait for the act's events fails, and counts it

    try:
        wire = await Wire.open(f"{url}?table={table}", read, closed, timeout=10, compression=False, max_size=1 << 20)
        try:
            await started.wait()
            last_sent = time.perf_counter()
            number = seat * 1_000_000_000
            while time.perf_counter() < load.end:
                # a play, as the load test's clients mostly make: 2 options, 4 piles a player
                last_sent = await _wait_pinging(wire, scale * delays.delay(Move.PLAY, 2, 16), last_sent)
                number += 1
                answered.clear()
                now = time.perf_counter()
                mine[number] = now
                load.sent[(table, number)] = now
                if load.counts(now):
                    load.actions += 1
                wire.send(
                    _encode(
                        {
                            "type": "act",
                            "id": number,
                            "action": {"kind": "play", "source": "row", "position": 1, "pile": 3},
                        }
                    )
                )
                last_sent = now
                await asyncio.wait_for(answered.wait(), 10)
        finally:
            await wire.close()
    except Exception as error:  # counted, as the harness counts its clients' failures
        load.errors += 1
        kind = f"{type(error).__name__} (seat {seat} of table {table})"
        load.error_kinds[kind] = load.error_kinds.get(kind, 0) + 1


async def run_load(
    url: str,
    *,
    tables: int,
    players: int,
    duration: float,
    level: str,
    server_pid: int | None,
    warm: float = 5.0,
    pace: float | None = None,
) -> dict[str, Any]:
    import gc  # noqa: PLC0415

    gc.set_threshold(50_000, 20, 20)  # as the harness's clients: few collections in the window
    load = Load()
    started = asyncio.Event()
    rng = random.Random(1)
    tasks = []
    for table in range(tables):
        for seat in range(players):
            tasks.append(
                asyncio.create_task(
                    player(
                        url,
                        str(table),
                        seat=seat,
                        load=load,
                        level=level,
                        rng=random.Random(rng.random()),
                        started=started,
                        pace=pace,
                    )
                )
            )
        if table % 50 == 49:
            await asyncio.sleep(0.25)  # connections opened at 200 a second, as the load test's
    await asyncio.sleep(min(2.0, warm))
    load.start = time.perf_counter() + warm
    load.end = load.start + duration
    started.set()
    await asyncio.sleep(warm)
    cpu0 = None if server_pid is None else cpu_seconds_of(server_pid)
    await asyncio.sleep(duration)
    cpu1 = None if server_pid is None else cpu_seconds_of(server_pid)
    rss = None if server_pid is None else rss_of(server_pid)[0]
    await asyncio.gather(*tasks, return_exceptions=True)
    return {
        "tables": tables,
        "players": players,
        "connections": tables * players,
        "duration_s": duration,
        "actions_per_s": round(load.actions / duration, 1),
        "ack_ms": percentiles(load.acks),
        "fanout_ms": percentiles(load.fanouts),
        "errors": load.errors,
        "error_kinds": load.error_kinds,
        "server_cpu_percent": None if cpu0 is None or cpu1 is None else round(100 * (cpu1 - cpu0) / duration, 1),
        "server_rss_bytes": rss,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python benchmarks/barestack.py", description=__doc__.split("\n\n")[0])
    roles = parser.add_subparsers(dest="role", required=True)
    server = roles.add_parser("serve", help="the bare server")
    server.add_argument("--host", default="127.0.0.1")
    server.add_argument("--port", type=int, default=8891)
    client = roles.add_parser("load", help="its load client; prints one JSON object")
    client.add_argument("--url", default="ws://127.0.0.1:8891/ws")
    client.add_argument("--tables", type=int, default=10)
    client.add_argument("--players", type=int, default=4)
    client.add_argument("--duration", type=float, default=30.0)
    client.add_argument("--level", default="casual", choices=sorted(LEVELS))
    client.add_argument("--server-pid", type=int, default=None)
    client.add_argument(
        "--pace", type=float, default=None, help="mean seconds between a client's acts (default: the level's play)"
    )
    client.add_argument("--warm", type=float, default=5.0, help="seconds of play before the window opens")
    args = parser.parse_args(argv)
    if args.role == "serve":
        serve(args.host, args.port)
        return 0
    if args.tables < 1 or args.players < 2 or args.duration <= 0 or (args.pace is not None and args.pace <= 0):
        parser.error("--tables must be at least 1, --players at least 2, --duration and --pace above 0")
    import uvloop  # noqa: PLC0415 -- as the harness's clients

    report = uvloop.run(
        run_load(
            args.url,
            tables=args.tables,
            players=args.players,
            duration=args.duration,
            level=args.level,
            server_pid=args.server_pid,
            warm=args.warm,
            pace=args.pace,
        )
    )
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
