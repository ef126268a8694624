"""What the stress harness's scenarios of a service share (issue 27: ``redis_down``,
``postgres_restart``, ``rolling_restart``): :class:`ServiceRun`.

Each scenario starts a small service of its own: a private ``redis-server``
(``testkit/redisserver.py``), a database of its own in a private PostgreSQL cluster
(``testkit/pgserver.py``, ``initdb`` in a temporary folder: the run's, which the scenarios
of one ``ligretto stress`` share, or one of its own), and ``processes`` ``ligretto serve
--redis --advertise`` on them (``testkit/service.py``).  Tables are made through the processes in turn (each placed by
load), each with ``players`` people and a spectator, in a match of 1,000 rounds: the
``kill -9`` scenario's clients (``harness/rejoiner.py``), each connection going to the
next process, as a load balancer without stickiness sends it (a process that does not own
the table relays it; a ``hello`` closed 1013 or a connection closed 1012 comes back).

What every one of them measures (:meth:`ServiceRun.finish`):

* **acks_lost**: every action the service acknowledged as applied is in its round's stored
  log in the database once the processes have stopped (``harness/acks.py``, ``in_log``),
  and, on the first snapshot after each reconnection, a play of that round lies where it
  went (``in_center``);
* **cards_lost**: ``scans.cards_lost`` of each snapshot after a reconnection;
* **ejected** (a wrong answer): a client refused at its ``hello`` (``no_table``, ...), one
  that could not come back within ``JOIN_S``, or closed 4001 -- what a real client stops on;
* **crashes**: a process that exited when nothing stopped it, and every traceback in the
  processes' logs (sampled warnings are expected, counted in ``log_lines``; a traceback
  never is);
* **hidden cards**: every frame every client received, scanned against the replay of the
  rounds in the PostgreSQL database (``scans.hidden_cards_sent``);
* the ack latency (p50 / p99 / max) in each window between the scenario's marks (:meth:`mark`)
  (before, during, after), the time from each table's first dropped connection to its
  next action accepted from a new one (``interrupted_s``), the connections' close codes,
  and the processes' resident memory (the report's: the largest process's).
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from array import array
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ligretto.harness.acks import Acked, in_center, in_log
from ligretto.harness.figures import percentiles, within
from ligretto.harness.kills import GRACE_S, JOIN_S, until
from ligretto.harness.probes import http, rss_of
from ligretto.harness.rejoiner import Rejoiner, Watcher
from ligretto.harness.run import MATCH_END
from ligretto.harness.scenario import ScenarioReport
from ligretto.server.records.readonly import read_logs
from ligretto.testkit import scans
from ligretto.testkit.pgserver import THROWAWAY, PgServer
from ligretto.testkit.redisserver import RedisServer
from ligretto.testkit.scans import Frame
from ligretto.testkit.serverprocess import ServerProcess
from ligretto.testkit.service import Service

READY_S = 30.0
"""How long the harness waits for a process's ``/readyz`` to say ``ready``."""
POLL_S = 0.05
BACK_S = 10.0
"""How long the clients have at the end to be back at their seats (``clients_not_back``)."""


@dataclass(slots=True)
class ServiceTable:
    """One table of the service: its people, its spectator, and how long it could take no
    action after its connections dropped."""

    code: str
    players: list[Rejoiner] = field(default_factory=list)
    spectator: Rejoiner | None = None
    dropped_at: float | None = None
    """The first connection of this table dropped since its last accepted action."""
    interruptions: list[float] = field(default_factory=list)
    """Seconds from a dropped connection to the next action accepted from a new one."""

    @property
    def clients(self) -> list[Rejoiner]:
        return [*self.players, *([self.spectator] if self.spectator is not None else [])]


@dataclass(frozen=True, slots=True)
class Opening:
    """A service's tables as a scenario begins (:meth:`ServiceRun.opening`)."""

    placed: dict[str, int]
    """The tables each process has."""
    take_overs: float
    handed: float
    """``ligretto_take_overs_total`` and ``ligretto_handed_over_total`` over the processes."""


class ServiceRun(Watcher):
    """A private service, its tables of rejoining clients, and what they saw."""

    def __init__(
        self,
        folder: Path,
        processes: int,
        seed: int,
        cpus: set[int] | None = None,
        pg: PgServer | None = None,
        **settings: Any,
    ) -> None:
        """``pg``: a PostgreSQL cluster already running that the service gets a database of
        (the scenarios of one ``ligretto stress`` run share one); ``None``: one of its own."""
        self.folder = folder
        self.count = processes
        self.settings = settings
        """The processes' ``Settings`` (their countdown, limits)."""
        self.cpus = cpus or set()
        self.rng = random.Random(seed)
        self.redis = RedisServer(folder)
        self.pg = pg
        self.own_pg = pg is None
        self.service: Service | None = None
        self.tables: dict[str, ServiceTable] = {}
        self.frames: list[Frame] = []
        self.acks: list[Acked] = []
        self.ack_codes: list[str] = []
        self.ack_where: list[tuple[float, str]] = []
        """When each was acknowledged (seconds into the run) and on which connection's process."""
        self.lost: set[int] = set()
        """The acknowledged actions found lost (their index in :attr:`acks`)."""
        self.ack_sent = array("d")
        self.ack_latency = array("d")
        self.marks: list[tuple[str, float]] = []
        self.cards_lost = self.snapshots = 0
        self.stopped: set[int] = set()
        """The processes the scenario stopped or killed on purpose (their index)."""
        self.began = time.monotonic()
        self.rss_before: dict[str, int | None] = {}

    # --- the service ------------------------------------------------------------------------

    async def start(self) -> None:
        """Redis, PostgreSQL with a fresh database, and the processes started together."""
        self.folder.mkdir(parents=True, exist_ok=True)
        await asyncio.to_thread(self.redis.start)
        if self.pg is None:
            self.pg = await asyncio.to_thread(PgServer(*THROWAWAY).start)
        db = await asyncio.to_thread(self.pg.new_database, self.folder.name)
        self.service = Service(self.folder, db, self.redis.url)
        self.service.cpus = self.cpus
        await asyncio.to_thread(self.service.start_together, self.count, **self.settings)
        self.rss_before = {p.url: rss_of(p.pid)[0] if p.pid else None for p in self.processes}

    @property
    def processes(self) -> list[ServerProcess]:
        assert self.service is not None, "start() first"
        return self.service.processes

    @property
    def db(self) -> str:
        assert self.service is not None, "start() first"
        return str(self.service.db)

    def mark(self, name: str) -> float:
        """The start of the window ``name`` (the last one ends at :meth:`finish`)."""
        now = time.monotonic()
        self.marks.append((name, now))
        return now

    # --- tables --------------------------------------------------------------------------

    async def seat(self, tables: int, players: int) -> None:
        """``tables`` tables, each made through the next process (placed by load there), with
        ``players`` people playing their first round and a spectator (the tables seated at once)."""
        body = {"seats": players, "grace_s": GRACE_S, "options": {"match_end": MATCH_END}}
        for index in range(tables):
            entrance = self.processes[index % len(self.processes)]
            code = json.loads(await asyncio.to_thread(http, entrance.url + "/api/tables", body))["code"]
            self.tables[code] = ServiceTable(code)
        seeds = [self.rng.random() for _ in self.tables]  # drawn in order: the tables are seated at once
        await asyncio.gather(*(self._seated(i, t, players, seeds[i]) for i, t in enumerate(self.tables.values())))
        if not await until(lambda: all(p.playing.is_set() for t in self.tables.values() for p in t.players), JOIN_S):
            raise RuntimeError("the service's tables did not all reach play")

    async def _seated(self, index: int, table: ServiceTable, players: int, seed: float) -> None:
        ws_urls = [p.ws_url for p in self.processes]
        for seat in range(players):
            rng = random.Random(f"{seed}:{index}:{seat}")
            table.players.append(await self._joined(Rejoiner(table.code, f"svc {index} {seat}", ws_urls, self, rng)))
        await table.players[0].send({"type": "start"})
        rng = random.Random(f"{seed}:{index}:watch")
        table.spectator = await self._joined(Rejoiner(table.code, f"watch {index}", ws_urls, self, rng, watch=True))

    @staticmethod
    async def _joined(client: Rejoiner) -> Rejoiner:
        if not await client.join(JOIN_S):
            raise RuntimeError(f"{client.name} could not join {client.code}: {client.failed}")
        return client

    @property
    def clients(self) -> list[Rejoiner]:
        return [c for t in self.tables.values() for c in t.clients]

    async def drop_some(self) -> list[Rejoiner]:
        """Every spectator and each table's first person drop their connection and come
        back, each through the next process (where the table's owner must be found)."""
        dropped = [c for t in self.tables.values() for c in (t.spectator, t.players[0]) if c is not None]
        await asyncio.gather(*(c.drop() for c in dropped))
        return dropped

    def force_round_ends(self) -> None:
        """Every table playing has its people vote its round to an end (a table moves to
        another process only between rounds)."""
        for table in self.tables.values():
            for player in table.players:
                player.vote_now = True

    # --- what the clients report (Watcher) ---------------------------------------------------

    def received(self, client: Rejoiner, text: str) -> None:
        self.frames.append(Frame(client.code, client.session.seat, text))

    def acked(self, client: Rejoiner, acked: Acked) -> None:
        self.acks.append(acked)
        self.ack_codes.append(client.code)
        self.ack_where.append((round(time.monotonic() - self.began, 2), client.ws_urls[client.entrance]))

    def accepted(self, client: Rejoiner) -> None:
        now = time.monotonic()
        self.ack_sent.append(client.sent_at)
        self.ack_latency.append(now - client.sent_at)
        table = self.tables[client.code]
        if table.dropped_at is not None and client.connected_at > table.dropped_at:
            table.interruptions.append(now - table.dropped_at)
            table.dropped_at = None

    def dropped(self, client: Rejoiner) -> None:
        table = self.tables.get(client.code)
        if table is not None and table.dropped_at is None and not client.watch and not client.stopping:
            table.dropped_at = time.monotonic()

    def restored(self, client: Rejoiner, snapshot: dict[str, Any], pending: list[Acked]) -> None:
        """The snapshot after a reconnection: every card somewhere, and each play of its round
        acknowledged since the last one where it went.  (The stored log is checked at the end,
        :meth:`_check_every_ack`: the table may not have moved -- only the process that relayed
        its client -- and its owner's commit of an acknowledged action may be still to come,
        as while PostgreSQL restarts: acknowledged, written at the next commit that succeeds.)"""
        view = snapshot["view"]
        self.snapshots += 1
        self.cards_lost += scans.cards_lost(view)
        shown = (client.session.match, snapshot["round"])
        lost = {
            id(a)
            for a in pending
            if a.action["kind"] == "play" and (a.match, a.round) == shown and not in_center(a, view)
        }
        self.lost |= {i for i, a in enumerate(self.acks) if id(a) in lost}

    # --- probes ----------------------------------------------------------------------------

    async def ready_after(self, since: float) -> dict[str, float | None]:
        """Seconds from ``since`` until each live process's ``/readyz`` says ``ready``
        (``None``: not within :data:`READY_S`), polled every :data:`POLL_S`."""
        live = [p for i, p in enumerate(self.processes) if i not in self.stopped]

        async def one(process: ServerProcess) -> float | None:
            deadline = time.monotonic() + READY_S
            while time.monotonic() < deadline:
                status, _ = await asyncio.to_thread(answer, process, "GET", "/readyz")
                if status == 200:
                    return round(time.monotonic() - since, 2)
                await asyncio.sleep(POLL_S)
            return None

        return dict(zip([p.url for p in live], await asyncio.gather(*(one(p) for p in live)), strict=True))

    async def metric(self, sample: str, **labels: str) -> float:
        """A counter summed over the live processes (``ligretto_take_overs_total``)."""
        live = [p for i, p in enumerate(self.processes) if i not in self.stopped and p.alive]
        values = await asyncio.gather(*(asyncio.to_thread(p.metric, sample, **labels) for p in live))
        return sum(values)

    async def owned(self) -> dict[str, int]:
        """The tables each live process has (``/healthz``)."""
        live = [p for i, p in enumerate(self.processes) if i not in self.stopped and p.alive]
        answers = await asyncio.gather(*(asyncio.to_thread(answer, p, "GET", "/healthz") for p in live))
        return {
            p.url: int(body.get("tables", -1)) if isinstance(body, dict) else -1
            for p, (_, body) in zip(live, answers, strict=True)
        }

    async def opening(self, tables: int, players: int, settle_s: float) -> Opening:
        """``tables`` tables seated and playing (:meth:`seat`), where they are and the
        take-overs and hand-overs so far; then the window ``before``, ``settle_s`` long."""
        await self.seat(tables, players)
        opened = Opening(
            await self.owned(),
            await self.metric("ligretto_take_overs_total"),
            await self.metric("ligretto_handed_over_total"),
        )
        self.mark("before")
        await asyncio.sleep(settle_s)
        return opened

    # --- the end ---------------------------------------------------------------------------

    def windows(self) -> dict[str, dict[str, float | None]]:
        """The ack latency of the actions sent in each window between two marks."""
        ends = [*[at for _, at in self.marks[1:]], time.monotonic()]
        return {
            name: percentiles(within(self.ack_sent, self.ack_latency, start, end))
            for (name, start), end in zip(self.marks, ends, strict=True)
        }

    async def finish(self, report: ScenarioReport) -> ScenarioReport:
        """Once every client is back at its seat (or :data:`BACK_S` passed), stop the clients
        and the processes (SIGTERM: everything committed), check every
        acknowledged action against the database and scan the frames, stop PostgreSQL and
        Redis; the shared figures added to ``report``."""
        windows = self.windows()
        finishing = time.monotonic()
        clients = self.clients
        # (a table moved a moment ago: its people are coming back)
        await until(lambda: all(c.back for c in clients), BACK_S)
        not_back = sum(not c.back for c in clients)
        for client in clients:
            await client.close()
        assert self.service is not None
        crashed = [p.url for i, p in enumerate(self.processes) if i not in self.stopped and not p.alive]
        rss_after = {p.url: rss_of(p.pid)[0] if p.pid and p.alive else None for p in self.processes}
        await asyncio.to_thread(self._stop_processes)
        try:
            self._check_every_ack()
            scan = scans.hidden_cards_sent(self.db, self.frames)
        finally:
            await asyncio.to_thread(self._stop_backends)
        logs = self.service.log_text()
        tracebacks = logs.count("Traceback")
        ejected = [c.name for c in clients if c.failed or c.closes[4001]]
        report.crashes += len(crashed) + tracebacks
        report.wrong_answers = (report.wrong_answers or 0) + len(ejected)
        report.acks_lost = len(self.lost)
        report.cards_lost = self.cards_lost
        report.hidden_cards, report.frames_scanned = scan.leaks, scan.frames_scanned
        report.rss_before = max((v for v in self.rss_before.values() if v is not None), default=None)
        report.rss_after = max((v for v in rss_after.values() if v is not None), default=None)
        report.seconds = round(time.monotonic() - self.began, 1)
        interruptions = [s for t in self.tables.values() for s in t.interruptions]
        report.details |= {
            "processes": len(self.processes),
            "tables": len(self.tables),
            "players": sum(len(t.players) for t in self.tables.values()),
            "ack_ms": windows,
            "marks_s": {name: round(at - self.began, 2) for name, at in self.marks},
            "acked": len(self.acks),
            "acks_lost_first": [self._described(i) for i in sorted(self.lost)[:5]],
            "snapshots_checked": self.snapshots,
            "ejected": ejected[:5],
            "ejected_count": len(ejected),
            "failures": [f for c in clients for f in c.failed][:5],
            "client_errors": [e for c in clients for e in c.errors][:5],
            "clients_not_back": not_back,
            "reconnections": sum(max(c.session.joins - 1, 0) for c in clients),
            "closes": dict(sorted(sum((c.closes for c in clients), Counter()).items())),
            "mirror_problems": sum(c.problems for c in clients),
            "interrupted_s": {"n": len(interruptions)} | _seconds(interruptions),
            "crashed": crashed,
            "server_tracebacks": tracebacks,
            "log_lines": {level: logs.count(f" {level.upper()} ") for level in ("warning", "error")},
            "rss_before": self.rss_before,
            "rss_after": rss_after,
            "hidden_scan": {"leaks": scan.leaks, "frames": scan.frames_scanned},
            "finish_s": round(time.monotonic() - finishing, 2),
        }
        report.frames = []
        return report

    def _check_every_ack(self) -> None:
        """Every acknowledged action in its round's stored log, once nothing more is written."""
        by_code: dict[str, list[int]] = {}
        for index, code in enumerate(self.ack_codes):
            by_code.setdefault(code, []).append(index)
        for code, indices in by_code.items():
            logs = read_logs(self.db, code, [(self.acks[i].match, self.acks[i].round) for i in indices])
            for i in indices:
                acked = self.acks[i]
                if not in_log(acked, logs.get((acked.match, acked.round), {})):
                    self.lost.add(i)

    def _described(self, index: int) -> dict[str, Any]:
        acked, (at, entrance) = self.acks[index], self.ack_where[index]
        return {
            "code": self.ack_codes[index],
            "seat": acked.seat,
            "round": acked.round,
            "seq": acked.seq,
            "action": acked.action,
            "at_s": at,
            "through": entrance,
        }

    def _stop_processes(self) -> None:
        for process in self.processes:
            process.stop()

    def _stop_backends(self) -> None:
        if self.pg is not None and self.own_pg:
            self.pg.stop()
        self.redis.stop()

    async def abort(self) -> None:
        """Stop everything after a failure (the scenario's error goes on)."""
        for client in self.clients:
            await client.close()
        if self.service is not None:
            await asyncio.to_thread(self._stop_processes)
        await asyncio.to_thread(self._stop_backends)


def answer(process: ServerProcess, method: str, path: str, body: Any = None, timeout: float = 5.0) -> tuple[int, Any]:
    """The process's answer (status, body), or (0, the error) if none came."""
    try:
        return process.http(method, path, body, timeout)
    except OSError as error:
        return 0, f"{type(error).__name__}: {error}"


def _seconds(values: list[float]) -> dict[str, float]:
    """Median and max, in seconds."""
    if not values:
        return {}
    ordered = sorted(values)
    return {"median": round(ordered[len(ordered) // 2], 2), "max": round(ordered[-1], 2)}
