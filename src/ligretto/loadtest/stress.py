"""``python -m ligretto.loadtest.stress``: the stress harness (issue 13, "Measured")
against a real server.  ``--scenario malformed`` (the default, this module): malformed
messages at live tables; ``idle``: idle and half-open connections (``loadtest/idle.py``);
``tables``: a table-creation flood from one address (``loadtest/tableflood.py``).

Each attacker is one seated person at a table of its own whose round is being played (the
other seat a person who only keeps their connection alive, so nothing else changes the
round).  It sends ``count`` messages of every kind the audit used (:data:`KINDS`: random
bytes, random text, wrong shapes and types, huge numbers, deep nesting, oversize messages,
actions for seats, piles, positions and columns that do not exist, host commands in the
wrong phase; invalid UTF-8 on fresh connections, which the server closes with 1007), and
checks that each got exactly one answer, an ``error`` or a refused ``ack``.  It reports,
per kind, what was tried and what was answered otherwise, and for the run: whether the
server still answered (crashes), tables whose round a spectator saw change (state
changes by refused messages), and the server's memory before and after (``--server-pid``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from ligretto.loadtest.idle import run_idle
from ligretto.loadtest.probes import drain, http, rss_of
from ligretto.loadtest.run import server_urls
from ligretto.loadtest.tableflood import run_table_flood

Message = str | bytes


def _random_bytes(rng: random.Random) -> Message:
    return rng.randbytes(rng.randrange(1, 200))


def _random_text(rng: random.Random) -> Message:
    return "".join(chr(rng.randrange(32, 0x3000)) for _ in range(rng.randrange(1, 100)))


def _wrong_shape(rng: random.Random) -> Message:
    return rng.choice(["[1, 2]", "42", '"act"', "null", '{"type": 5}', '{"type": "act"}', '{"type": "hello"}', "{}"])


def _wrong_types(rng: random.Random) -> Message:
    action = {"kind": "play", "source": rng.choice([7, None, [], "hand"]), "pile": rng.choice(["x", 1.5, {}])}
    return json.dumps({"type": "act", "id": rng.choice([[1], {}, 1.5, None]), "action": action})


def _huge_numbers(rng: random.Random) -> Message:
    n = rng.choice([10**30, -(10**30), 2**63, 1e308])
    return json.dumps({"type": "act", "id": 1, "action": {"kind": "play", "source": "row", "position": n, "pile": n}})


def _deep_nesting(rng: random.Random) -> Message:
    depth = rng.randrange(100, 2000)
    return '{"type": "act", "id": 1, "action": ' + "[" * depth + "]" * depth + "}"


def _oversize(rng: random.Random) -> Message:
    return json.dumps({"type": "ping", "t": 1, "pad": "x" * rng.randrange(4100, 60000)})


def _no_such_place(rng: random.Random) -> Message:
    action = rng.choice(
        [
            {"kind": "play", "source": "row", "position": rng.randrange(5, 1000), "pile": None},
            {"kind": "play", "source": "stack", "pile": rng.randrange(40, 10**6)},
            {"kind": "play", "source": "row", "position": -rng.randrange(1, 100), "pile": -rng.randrange(2, 100)},
            {"kind": "place", "source": "stack", "column": rng.randrange(5, 1000)},
            {"kind": "withdraw"},
        ]
    )
    return json.dumps({"type": "act", "id": rng.randrange(10**6), "action": action})


def _wrong_phase(rng: random.Random) -> Message:
    return json.dumps(
        rng.choice(
            [
                {"type": "start"},
                {"type": "add_bot", "strategy": "smart", "level": "machine"},
                {"type": "set_rules", "preset": "classic", "options": {}},
                {"type": "remove_seat", "seat": rng.randrange(0, 12)},
                {"type": "hello", "v": 1, "code": "ABCDEF", "name": "again"},
            ]
        )
    )


KINDS: dict[str, Callable[[random.Random], Message]] = {
    "random_bytes": _random_bytes,
    "random_text": _random_text,
    "wrong_shape": _wrong_shape,
    "wrong_types": _wrong_types,
    "huge_numbers": _huge_numbers,
    "deep_nesting": _deep_nesting,
    "oversize": _oversize,
    "no_such_place": _no_such_place,
    "wrong_phase": _wrong_phase,
}
"""Every kind of malformed message sent on a seated connection, each answered by one
``error`` or one refused ``ack``."""


class Attacker:
    """One table: the attacker at seat 0, a quiet person at seat 1, the round playing."""

    def __init__(self, base: str, ws_url: str, rng: random.Random) -> None:
        self.base, self.ws_url, self.rng = base, ws_url, rng
        self.code = ""
        self.ws: ClientConnection | None = None
        self.quiet: ClientConnection | None = None
        self.keeper: asyncio.Task[None] | None = None

    async def seat(self) -> None:
        reply = await asyncio.to_thread(http, f"{self.base}/api/tables", {"seats": 2})
        self.code = json.loads(reply)["code"]
        self.ws = await self._join("attacker")
        self.quiet = await self._join("quiet")
        self.keeper = asyncio.create_task(drain(self.quiet))
        await self.ws.send(json.dumps({"type": "start"}))
        await _until(self.ws, lambda m: m["type"] == "go")

    async def _join(self, name: str) -> ClientConnection:
        ws = await connect(self.ws_url, compression=None, ping_interval=None, max_size=1 << 20, proxy=None)
        await ws.send(json.dumps({"type": "hello", "v": 1, "code": self.code, "name": name}))
        await _until(ws, lambda m: m["type"] == "table")
        return ws

    async def view(self) -> Any:
        """The round as a newcomer spectator sees it."""
        ws = await connect(self.ws_url, compression=None, ping_interval=None, max_size=1 << 20, proxy=None)
        try:
            await ws.send(json.dumps({"type": "hello", "v": 1, "code": self.code, "watch": True}))
            return (await _until(ws, lambda m: m["type"] == "snapshot"))["view"]
        finally:
            await ws.close()

    async def attack(self, count: int, rate: float, tried: dict[str, int], odd: dict[str, int]) -> None:
        """Send ``count`` messages (``rate`` a second at most, 0: no pause), each checked
        for its one answer before the next (a ping after it proves nothing else came)."""
        assert self.ws is not None
        kinds = list(KINDS)
        for i in range(count):
            start = time.monotonic()
            kind = kinds[i % len(kinds)]
            await self.ws.send(KINDS[kind](self.rng))
            await self.ws.send(json.dumps({"type": "ping", "t": float(i)}))
            answers = []
            while (message := json.loads(await self.ws.recv()))["type"] != "pong":
                answers.append(message)
            tried[kind] = tried.get(kind, 0) + 1
            if len(answers) != 1 or not _refusal(answers[0]):
                odd[kind] = odd.get(kind, 0) + 1
            if rate > 0:
                await asyncio.sleep(max(0.0, 2 / rate - (time.monotonic() - start)))

    async def invalid_utf8(self) -> int | None:
        """A text frame that is not UTF-8, on a fresh connection: the close code."""
        ws = await connect(self.ws_url, compression=None, ping_interval=None, proxy=None)
        await ws.send(b'{"type": "ping", "t": 1, "x": "\xff\xfe"}', text=True)
        try:
            while True:
                await asyncio.wait_for(ws.recv(), 5.0)
        except (ConnectionClosed, TimeoutError):
            pass
        await ws.close()
        return ws.close_code

    async def close(self) -> None:
        if self.keeper is not None:
            self.keeper.cancel()
        for ws in (self.ws, self.quiet):
            if ws is not None:
                await ws.close()


def _refusal(message: dict[str, Any]) -> bool:
    return message["type"] == "error" or (message["type"] == "ack" and message["applied"] is False)


async def _until(ws: ClientConnection, match: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    while True:
        message = json.loads(await asyncio.wait_for(ws.recv(), 10.0))
        if match(message):
            return message  # type: ignore[no-any-return]


async def _pinging(ws: ClientConnection) -> None:
    """The quiet person's keep-alive (the server closes a connection silent for 6 s)."""
    while True:
        await asyncio.sleep(1.0)
        await ws.send(json.dumps({"type": "ping", "t": -1.0}))


async def run_stress(
    url: str,
    tables: int,
    count: int,
    *,
    rate: float = 0.0,
    utf8: int = 10,
    server_pid: int | None = None,
    seed: int = 0,
) -> dict[str, Any]:
    """Malformed messages at ``tables`` live tables, ``count`` at each; the report."""
    base, ws_url = server_urls(url)
    rss_before = rss_of(server_pid)[0] if server_pid else None
    attackers = [Attacker(base, ws_url, random.Random(f"{seed}:{i}")) for i in range(tables)]
    await asyncio.gather(*(a.seat() for a in attackers))
    pingers = [asyncio.create_task(_pinging(a.quiet)) for a in attackers if a.quiet is not None]
    before = await asyncio.gather(*(a.view() for a in attackers))
    tried: dict[str, int] = {}
    odd: dict[str, int] = {}
    start = time.monotonic()
    await asyncio.gather(*(a.attack(count, rate, tried, odd) for a in attackers))
    codes = [await attackers[i % tables].invalid_utf8() for i in range(utf8)]
    seconds = time.monotonic() - start
    after = await asyncio.gather(*(a.view() for a in attackers))
    for pinger in pingers:
        pinger.cancel()
    await asyncio.gather(*(a.close() for a in attackers))
    try:
        alive = json.loads(await asyncio.to_thread(http, f"{base}/healthz")).get("status") == "ok"
    except Exception:
        alive = False
    tried["invalid_utf8"] = len(codes)
    odd_utf8 = sum(code != 1007 for code in codes)
    if odd_utf8:
        odd["invalid_utf8"] = odd_utf8
    return {
        "tables": tables,
        "tried": dict(sorted(tried.items())),
        "tried_total": sum(tried.values()),
        "not_refused_once": dict(sorted(odd.items())),
        "crashes": 0 if alive else 1,
        "state_changes": sum(b != a for b, a in zip(before, after, strict=True)),
        "seconds": round(seconds, 1),
        "server_rss_before_bytes": rss_before,
        "server_rss_after_bytes": rss_of(server_pid)[0] if server_pid else None,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ligretto.loadtest.stress", description=__doc__)
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument(
        "--scenario",
        choices=("malformed", "idle", "tables"),
        default="malformed",
        help="malformed messages at live tables (default); idle and half-open connections "
        "(loadtest/idle.py); a table-creation flood from one address (loadtest/tableflood.py)",
    )
    parser.add_argument("--tables", type=int, default=10, help="live tables, one attacker each (default 10)")
    parser.add_argument("--count", type=int, default=1000, help="malformed messages per table (default 1000)")
    parser.add_argument("--rate", type=float, default=9.0, help="messages a second per table, 0: unpaced (default 9)")
    parser.add_argument("--utf8", type=int, default=10, help="connections sending invalid UTF-8 (default 10)")
    parser.add_argument("--sockets", type=int, default=1000, help="idle: WebSockets that never say hello")
    parser.add_argument("--half-open", type=int, default=1000, help="idle: HTTP connections with half a header")
    parser.add_argument("--ping", type=float, default=3.0, help="idle: seconds between an idle socket's pings")
    parser.add_argument("--hello-timeout", type=float, default=10.0, help="idle: the server's hello deadline")
    parser.add_argument("--request-timeout", type=float, default=10.0, help="idle: the server's HTTP deadline")
    parser.add_argument("--creations", type=int, default=1000, help="tables: tables asked for (default 1000)")
    parser.add_argument("--server-pid", type=int, help="the server's process id, for its memory")
    args = parser.parse_args(argv)
    report: dict[str, Any]
    if args.scenario == "idle":
        report = asyncio.run(
            run_idle(
                args.url,
                args.sockets,
                args.half_open,
                ping_s=args.ping,
                hello_s=args.hello_timeout,
                request_timeout_s=args.request_timeout,
                server_pid=args.server_pid,
            )
        )
        print(json.dumps(report, indent=2))
        kinds = (report["websockets_without_hello"], report["half_open_http"])
        return (
            1
            if report["crashes"] or any(k["closed_in_time"] + sum(k["refused"].values()) < k["tried"] for k in kinds)
            else 0
        )
    if args.scenario == "tables":
        report = asyncio.run(run_table_flood(args.url, args.creations, server_pid=args.server_pid))
        print(json.dumps(report, indent=2))
        return 1 if report["crashes"] else 0
    report = asyncio.run(
        run_stress(args.url, args.tables, args.count, rate=args.rate, utf8=args.utf8, server_pid=args.server_pid)
    )
    print(json.dumps(report, indent=2))
    bad = report["crashes"] or report["state_changes"] or report["not_refused_once"]
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
