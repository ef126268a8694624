"""kill -9 of a table's owner with its people playing through nginx → the table accepting
actions again (issue 27 point 2; docs/benchmarks.md, "Several processes").

Three ``ligretto serve --redis`` processes (``tests/server/cluster/servicekit.py``'s
:class:`Cluster`) on a PostgreSQL database of their own (``tests/pgserver.py``), one real
redis-server, and Debian's nginx in front with ``deploy/nginx.conf`` (its upstreams the
three processes, ``tests/nginxproxy.py``).  The clients know only nginx's address.  Each
kill: a table made through nginx (placed by load: most land on the process started again
last; ``--rotate``: made on each process in turn), two people seated at it over
WebSockets through nginx who play as fast as a person could (a ``turn``, always allowed
while playing, every 0.1 s, one act in flight; a ping every second, as the browser); after
1-2 s of play the process holding the table's lease (Redis's ``ligretto:table:CODE`` against
each process's ``/healthz`` ``process``) is sent SIGKILL.  Each person reconnects through
nginx as the browser does (``static/js/connection.js``): after a close, or 2.5 s without a
word, a new socket after 250 ms, 500 ms, 1 s, 2 s, 3 s, 5 s, the count starting again at
every socket that opens (a ``hello`` closed 1013 while the table is taken over is one of
those); the ``hello`` carries the seat's token.  A ``hello`` refused (``no_table``, or
any other error) is an ejection: counted, not retried.  Figures per kill, from the kill:
both people welcomed back, the first action applied (after the restored round's fresh
countdown, ``--countdown``) and both people's first action applied.

Nothing acknowledged lost: the actions of a round are logged in order and an ``events``
message's ``seq`` is the action's index in the round's log (docs/protocol.md); every act
answered by an ``ack`` (applied or refused: both are logged) before the kill must be in the
restored log, so the first ``seq`` seen after the kill (the restored log's length) must be
at least the number of acks received on the connections of before; the shortfall is the
count of acknowledged actions lost.  The victim is started again (same port) before the
next kill.

    python tests/server/cluster/bench_kills_proxy.py [--kills 20] [--countdown 3] [--rotate]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import websockets
from servicekit import Cluster

from ligretto.client.session import Session
from ligretto.protocol import Ack, Error, Events, Phase, Welcome
from ligretto.testkit.pgserver import THROWAWAY
from nginxproxy import nginx_config, start_nginx, stop_proxy
from pgserver import PgServer
from realserver import ServerProcess, free_port
from redisserver import RedisServer

BACKOFF_S = (0.25, 0.5, 1.0, 2.0, 3.0, 5.0)
"""The browser's pauses before each new socket (``BACKOFF_MS``), reset by every open."""
LOST_S = 2.5
"""An open socket silent this long is given up (the browser's ``lostMs``)."""
OPEN_S = 5.0
"""A socket not open within this is given up (the browser's ``openMs``)."""
PACE_S = 0.1
PING_S = 1.0
WAIT_S = 60.0
ROTATE_HELP = (
    "make each table on the processes in turn (the placement header), not through nginx: placed by load, "
    "most land on the process restarted last, which is then killed again"
)


class Player:
    """One person at ``code`` through nginx, reconnecting as the browser does."""

    def __init__(self, port: int, code: str, name: str) -> None:
        self.url = f"ws://127.0.0.1:{port}/ws"
        self.session = Session(code=code, name=name)
        self.killed_at: float | None = None
        """When the table's owner was killed (``None``: not yet)."""
        self.acks_before = 0
        """Acks received on the connections opened before the kill."""
        self.applied = 0
        self.welcome_s: float | None = None
        self.acted_s: float | None = None
        self.first_after: tuple[int, int] | None = None
        """(round, seq) of the first ``events`` on a connection opened after the kill."""
        self.round_before = 0
        self.ejected: str | None = None
        """The error code that refused a ``hello`` (``None``: none did)."""
        self.connections_after = 0
        self.host = False
        """Start the match once both seats are taken (again after a reconnection, each second
        while the table is still in its lobby: a table in its lobby may be handed over to
        another process, its sockets closed 1012, docs/deploy.md)."""
        self.stopped = False

    async def run(self) -> None:
        attempt = 0
        while self.ejected is None and not self.stopped:
            try:
                async with websockets.connect(self.url, ping_interval=None, open_timeout=OPEN_S) as ws:
                    attempt = 0
                    await self.connection(ws, after=self.killed_at is not None)
            except (OSError, TimeoutError, websockets.WebSocketException):
                pass
            if self.ejected is not None or self.stopped:
                return
            await asyncio.sleep(BACKOFF_S[min(attempt, len(BACKOFF_S) - 1)])
            attempt += 1

    async def connection(self, ws: Any, after: bool) -> None:
        if after:
            self.connections_after += 1
        await ws.send(json.dumps(self.session.connect()))
        actor = asyncio.create_task(self.act(ws))
        try:
            while not self.stopped:
                message = self.session.receive(await asyncio.wait_for(ws.recv(), LOST_S))
                self.read(message, after)
                if self.ejected is not None:
                    return
        finally:
            actor.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await actor

    def read(self, message: Any, after: bool) -> None:
        since = None if self.killed_at is None else time.monotonic() - self.killed_at
        if isinstance(message, Welcome) and after and self.welcome_s is None:
            self.welcome_s = since
        elif isinstance(message, Error) and message.id is None and self.session.refused is not None:
            self.ejected = message.code
        elif isinstance(message, Ack):
            if not after:
                self.acks_before += 1
            if message.applied:
                self.applied += 1
                if after and self.acted_s is None:
                    self.acted_s = since
        elif isinstance(message, Events):
            if after and self.first_after is None:
                self.first_after = (message.round, message.seq)
            elif not after:
                self.round_before = message.round

    async def act(self, ws: Any) -> None:
        """A ``turn`` each ``PACE_S`` while playing (one in flight), a ping each second; the
        host's ``start`` in the lobby once both seats are taken, each second."""
        pinged = started = 0.0
        while True:
            await asyncio.sleep(PACE_S)
            session, now = self.session, time.monotonic()
            if session.welcomed and session.phase is Phase.PLAYING and not session.pending:
                await ws.send(json.dumps(session.act({"kind": "turn"})))
            table = session.table
            full = table is not None and table.phase is Phase.LOBBY and all(table.seats)
            if self.host and session.welcomed and full and now - started >= PING_S:
                started = now
                await ws.send(json.dumps({"type": "start"}))
            if now - pinged >= PING_S:
                pinged = now
                await ws.send(json.dumps({"type": "ping", "t": time.time()}))


def create_through(port: int) -> str:
    """A table made through nginx (placed by load on one of the processes)."""
    body = json.dumps({"seats": 2, "preset": "classic", "options": {}, "public": False, "grace_s": 60.0}).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{port}/api/tables", data=body, method="POST")
    request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=10) as answer:
        code: str = json.loads(answer.read())["code"]
    return code


class SetUp(Exception):
    """A kill did not go through: its table could not be set up (a person refused, or not
    seated in time), or its people were not acting again within ``WAIT_S``."""


async def until(condition: Any, what: str, timeout: float = WAIT_S) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise SetUp(f"not within {timeout} s: {what}")
        await asyncio.sleep(0.02)


async def one_kill(cluster: Cluster, port: int, on: ServerProcess | None) -> tuple[dict[str, Any], ServerProcess]:
    """One table (made through nginx, or on ``on``) played through nginx, its owner killed;
    the kill's figures and its victim."""
    code = create_through(port) if on is None else cluster.create_on(on)
    ann, bob = Player(port, code, "Ann"), Player(port, code, "Bob")
    ann.host = True
    tasks = [asyncio.create_task(ann.run())]
    try:
        for player in ann, bob:
            if player is bob:
                tasks.append(asyncio.create_task(bob.run()))
            await until(lambda p=player: p.session.welcomed or p.ejected is not None, f"{player.session.name} seated")
            if player.ejected is not None:
                raise SetUp(f"{player.session.name} refused at {code} before the kill: {player.session.refused}")
        await until(lambda: ann.applied > 0 and bob.applied > 0, "both playing")
        await asyncio.sleep(random.uniform(1.0, 2.0))
        victim = cluster.owner(code)
        assert victim is not None, f"nobody holds {code}'s lease"
        victim.kill()
        killed_at = time.monotonic()
        for player in (ann, bob):
            player.killed_at = killed_at
        await until(
            lambda: all(p.ejected is not None or p.acted_s is not None for p in (ann, bob)), "both acting again"
        )
    finally:
        for player in (ann, bob):
            player.stopped = True  # (a cancellation may be lost in 3.11's wait_for)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    players = (ann, bob)
    back = [p for p in players if p.ejected is None]
    acks = sum(p.acks_before for p in players)
    firsts = [p.first_after for p in back if p.first_after is not None]
    assert all(f[0] == ann.round_before for f in firsts), (firsts, ann.round_before)
    first_seq = min(f[1] for f in firsts) if firsts else 0
    figures = {
        "code": code,
        "ejected": [p.ejected for p in players if p.ejected is not None],
        "acks_before": acks,
        "first_seq_after": first_seq,
        "lost": max(0, acks - first_seq),
        "welcome_s": round(max(p.welcome_s or WAIT_S for p in back), 2) if back else None,
        "acted_s": round(min(p.acted_s or WAIT_S for p in back), 2) if back else None,
        "both_acting_s": round(max(p.acted_s or WAIT_S for p in back), 2) if back else None,
        "reconnections": sum(p.connections_after for p in players),
    }
    return figures, victim


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--countdown", type=float, default=3.0, help="the servers' countdown (default 3: theirs)")
    parser.add_argument("--rotate", action="store_true", help=ROTATE_HELP)
    args = parser.parse_args()
    kills: list[dict[str, Any]] = []
    failures: list[str] = []
    with tempfile.TemporaryDirectory() as folder, contextlib.ExitStack() as stack:
        root = Path(folder)
        redis = RedisServer(root)
        redis.start()
        stack.callback(redis.stop)
        postgres = PgServer(*THROWAWAY).start()
        stack.callback(postgres.stop)
        cluster = Cluster(root, postgres.new_database(), redis.url, ServerProcess, stack)
        processes = cluster.start(3, countdown_s=args.countdown)
        port = free_port()
        nginx = start_nginx(nginx_config({}, port, root, [p.port for p in processes]), port, root)
        stack.callback(stop_proxy, nginx)
        for kill in range(args.kills):
            on = processes[kill % len(processes)] if args.rotate else None
            try:
                figures, victim = asyncio.run(one_kill(cluster, port, on))
            except SetUp as failure:
                failures.append(str(failure))
                print(f"kill {kill + 1}: failed: {failure}", flush=True)
                for process in processes:
                    if not process.alive:
                        process.start()
                continue
            kills.append(figures)
            print(f"kill {kill + 1} (process {processes.index(victim)}): {json.dumps(figures)}", flush=True)
            victim.start()
        # (printed before the processes' logs are checked for tracebacks)
        print(json.dumps(summary(kills) | {"failures": failures}, indent=2), flush=True)


def summary(kills: list[dict[str, Any]]) -> dict[str, Any]:
    def spread(name: str) -> dict[str, float]:
        values = [k[name] for k in kills if k[name] is not None]
        return {"median": round(statistics.median(values), 2), "max": round(max(values), 2)}

    return {
        "kills": len(kills),
        "ejections": sum(len(k["ejected"]) for k in kills),
        "lost_acknowledged_actions": sum(k["lost"] for k in kills),
        "acknowledged_before_kills": sum(k["acks_before"] for k in kills),
        "back_at_the_seat_s": spread("welcome_s"),
        "accepting_actions_s": spread("acted_s"),
        "both_acting_s": spread("both_acting_s"),
    }


if __name__ == "__main__":
    main()
