"""The stress harness's ``kill -9`` scenario (issue 13, "Measured"): :func:`run_kills`.

``tables`` live tables, each with ``players`` real WebSocket clients
(:class:`~ligretto.harness.rejoiner.Rejoiner`: the client model ``Mirror`` and the greedy
strategy through ``MirrorObservation``, an action every 0.1-0.25 s), ``bots`` server bots
and a spectator, in a match of 1,000 rounds (between rounds everyone says ``ready``; were
it to end, its host starts a rematch).  ``kills`` times, at a moment drawn from a seeded
``random.Random`` (:data:`MOMENTS`, each in turn in a shuffled order), the server is
killed with SIGKILL and started again on the same port and database; every client comes
back with its seat token (retrying while the server is down) and plays on from its fresh
snapshot.

Checked after every restart, on the first snapshot each client gets back:

* **acks_lost**: every action the server acknowledged as applied to that client since its
  last snapshot is in the restored round: in the round's stored log (every kind), and a
  play's card in the restored view's center (``harness/acks.py`` says exactly what);
* **cards_lost**: ``scans.cards_lost`` of that snapshot (players' and spectators') is 0;
* **crashes**: a start that failed, or a server that exited or stopped answering
  ``/healthz`` (three times running) when nothing had killed it.

In ``details``: the moments drawn, the time from each kill to its table's first ``ack``
(an action accepted again) as p50 / p99 / max, kills after which a table accepted nothing
before the next (``interrupted``, the ``reconnecting`` moment), reconnections and those
that failed, clients not back at their seat at the end, events that did not fit the
view they were applied to (``mirror_problems``).  Every frame every client received is in
the report's ``frames`` (for the harness's hidden-card scan).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ligretto.harness.acks import Acked, acks_lost
from ligretto.harness.probes import http, rss_of
from ligretto.harness.rejoiner import Rejoiner, Watcher
from ligretto.harness.run import MATCH_END
from ligretto.harness.scenario import ScenarioReport
from ligretto.server.records.readonly import read_logs
from ligretto.sim.stats import percentile
from ligretto.testkit import scans
from ligretto.testkit.scans import Frame
from ligretto.testkit.serverprocess import ServerProcess

MOMENTS = ("after_ack", "mid_round", "countdown", "between_rounds", "reconnecting")
"""When a kill comes: right as an action is acknowledged, a while into a round, during a
countdown (a table whose people are all back), on a score sheet (``between_rounds``), and
within 0.2 s of the last restart, while the clients are still coming back or their tables
have not yet accepted an action again (``kills_while_clients_away`` in the details counts
the kills that found a client not yet back)."""
GRACE_S = 3600.0
"""The tables' grace period: no stand-in ever takes a seat while its person reconnects."""
JOIN_S = 30.0
"""Seconds a client keeps trying to (re)connect."""
FORCE_AFTER_S = 0.5
"""Waiting for a countdown or a score sheet this long, the scenario has one table's people
vote the round to its end (a table of people only)."""


class GaveUp(RuntimeError):
    """The server would not start again: the scenario ends there (its report says so)."""


class KillTable:
    """One table of the scenario: its people, its spectator, when it was last killed and
    when it accepted an action again."""

    def __init__(self, code: str, bots: int) -> None:
        self.code = code
        self.bots = bots
        self.players: list[Rejoiner] = []
        self.spectator: Rejoiner | None = None
        self.killed_at: float | None = None
        self.accepted_at: float | None = None

    @property
    def phase(self) -> str:
        """The table's phase as its first connected client last heard it."""
        clients = [*([self.spectator] if self.spectator is not None else []), *self.players]
        return next((c for c in clients if c.back), clients[0]).phase

    @property
    def all_back(self) -> bool:
        return all(p.back for p in self.players)

    @property
    def state(self) -> dict[str, Any]:
        """The table as its clients see it (for a report on a table that is stuck)."""
        return {"code": self.code, "phase": self.phase, "players": [p.state for p in self.players]}

    @property
    def recovered(self) -> bool:
        return self.killed_at is None or self.accepted_at is not None


class Kills(Watcher):
    """The scenario's run: its tables, the killer, the checks."""

    def __init__(self, server: ServerProcess, rng: random.Random, *, moment_s: float, recover_s: float) -> None:
        self.server, self.rng, self.moment_s, self.recover_s = server, rng, moment_s, recover_s
        self.tables: dict[str, KillTable] = {}
        self.frames: list[Frame] = []
        self.up = True
        self.crashes = self.acks_lost = self.acks_checked = self.cards_lost = self.snapshots = self.acks = 0
        self.lost: list[dict[str, Any]] = []
        self.back_ms: list[float] = []
        self.start_ms: list[float] = []
        """From each start to ``/healthz`` answering (the store's tables restored)."""
        self.interrupted = self.missed = self.not_recovered = self.while_away = 0
        self.stuck: list[dict[str, Any]] = []
        """What the first tables that did not recover in time looked like."""
        self.moments: dict[str, int] = {}
        self.armed: asyncio.Future[None] | None = None

    # --- what the clients report (Watcher) -----------------------------------------------

    def received(self, client: Rejoiner, text: str) -> None:
        self.frames.append(Frame(client.code, client.session.seat, text))

    def acked(self, client: Rejoiner, acked: Acked) -> None:
        self.acks += 1
        if self.armed is not None and not self.armed.done():
            self.armed.set_result(None)

    def accepted(self, client: Rejoiner) -> None:
        table = self.tables[client.code]
        if table.killed_at is not None and table.accepted_at is None and client.connected_at > table.killed_at:
            table.accepted_at = time.monotonic()

    def restored(self, client: Rejoiner, snapshot: dict[str, Any], pending: list[Acked]) -> None:
        view = snapshot["view"]
        self.snapshots += 1
        self.cards_lost += scans.cards_lost(view)
        if not pending:
            return
        logs = read_logs(Path(self.server.db), client.code, [(a.match, a.round) for a in pending])
        lost = acks_lost(pending, client.session.match, snapshot["round"], view, logs)
        self.acks_checked += len(pending)
        self.acks_lost += len(lost)
        self.lost += [{"code": client.code, "seat": a.seat, "round": a.round, "action": a.action} for a in lost][
            : 5 - len(self.lost)
        ]

    # --- setting up ------------------------------------------------------------------------

    async def seat(self, index: int, players: int, bots: int) -> KillTable:
        """A table with its people playing its first round and its spectator."""
        body = {
            "seats": players + bots,
            "bots": ["smart:skilled"] * bots,
            "grace_s": GRACE_S,
            "options": {"match_end": MATCH_END},
        }
        code = json.loads(await asyncio.to_thread(http, self.server.url + "/api/tables", body))["code"]
        table = self.tables[code] = KillTable(code, bots)
        for p in range(players):
            rng = random.Random(f"{self.rng.random()}:{index}:{p}")
            client = Rejoiner(code, f"kill {index} {p}", [self.server.ws_url], self, rng)
            if not await client.join(JOIN_S):
                raise RuntimeError(f"{client.name} could not join: {client.failed}")
            table.players.append(client)
        await table.players[0].send({"type": "start"})
        rng = random.Random(f"{self.rng.random()}:{index}:watch")  # the killer's own draws stay its own
        table.spectator = Rejoiner(code, f"watch {index}", [self.server.ws_url], self, rng, watch=True)
        if not await table.spectator.join(JOIN_S):
            raise RuntimeError(f"the spectator of {code} could not join")
        await until(lambda: all(p.playing.is_set() for p in table.players), JOIN_S)
        return table

    # --- killing ---------------------------------------------------------------------------

    def plan(self, kills: int) -> list[str]:
        """The moments of ``kills`` kills: each of :data:`MOMENTS` in turn, in a shuffled
        order (the first never ``reconnecting``: nothing to come back from yet)."""
        order = list(MOMENTS)
        self.rng.shuffle(order)
        if order[0] == "reconnecting":
            order.append(order.pop(0))
        return [order[i % len(order)] for i in range(kills)]

    async def kill_at(self, moment: str) -> None:
        """Wait for ``moment``, SIGKILL the server, start it again."""
        if moment not in ("reconnecting", "countdown"):
            await self.recovered()
        came = await self._moment(moment)
        self.up = False
        if not self.server.alive:
            self.crashes += 1  # it died, and nothing had killed it
        else:
            self.server.kill()
        now = time.monotonic()
        self.missed += not came
        self.moments[moment] = self.moments.get(moment, 0) + 1
        self._measure()
        for table in self.tables.values():
            table.killed_at, table.accepted_at = now, None
            for player in table.players:
                player.vote_now = False
        await self.start()

    async def _moment(self, moment: str) -> bool:
        """Wait for the moment (at most ``moment_s``); False: it did not come in time."""
        tables = list(self.tables.values())
        if moment == "after_ack":
            self.armed = asyncio.get_running_loop().create_future()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.armed, self.moment_s)
                return True
            return False
        if moment == "mid_round":
            await asyncio.sleep(self.rng.uniform(0.2, 2.0))
            return any(t.phase == "playing" for t in tables)
        if moment == "reconnecting":
            await asyncio.sleep(self.rng.uniform(0.0, 0.2))
            away = not all(t.all_back for t in tables)
            self.while_away += away
            return away or not all(t.recovered for t in tables)
        phase = "scoring" if moment == "between_rounds" else "countdown"
        found = await until(lambda: any(t.phase == phase and t.all_back for t in tables), FORCE_AFTER_S)
        if not found:
            self._force_round_end(tables)
            found = await until(lambda: any(t.phase == phase and t.all_back for t in tables), self.moment_s)
        if found:
            await asyncio.sleep(self.rng.uniform(0.0, 0.1))
        return found

    def _force_round_end(self, tables: list[KillTable]) -> None:
        """One table of people only, playing: its people vote the round to its end."""
        candidates = [t for t in tables if t.bots == 0 and t.phase == "playing"]
        if candidates:
            for player in self.rng.choice(candidates).players:
                player.vote_now = True

    async def start(self) -> None:
        """Start the killed server again (a start that fails is a crash; tried 3 times)."""
        for _ in range(3):
            began = time.monotonic()
            try:
                await asyncio.to_thread(self.server.start)
                self.start_ms.append(1000 * (time.monotonic() - began))
            except RuntimeError:
                self.crashes += 1
                continue
            self.up = True
            return
        raise GaveUp(f"the server would not start again:\n{self.server.log_text()[-2000:]}")

    async def recovered(self) -> None:
        """Every table accepted an action since the last kill (or ``recover_s`` passed)."""
        if not await until(lambda: all(t.recovered for t in self.tables.values()), self.recover_s):
            self.not_recovered += 1
            self.stuck += [t.state for t in self.tables.values() if not t.recovered][: 5 - len(self.stuck)]

    def _measure(self) -> None:
        """The time from the last kill to each table's first ack after it."""
        for table in self.tables.values():
            if table.killed_at is None:
                continue
            if table.accepted_at is None:
                self.interrupted += 1
            else:
                self.back_ms.append(1000 * (table.accepted_at - table.killed_at))
            table.killed_at = None

    async def watch(self) -> None:
        """A server that exits or stops answering ``/healthz`` while nobody killed it is a crash."""
        failures = 0
        while True:
            await asyncio.sleep(0.5)
            if not self.up:
                failures = 0
                continue
            if not self.server.alive:
                self.crashes += 1
                self.up = False
                with contextlib.suppress(RuntimeError):  # counted by ``start``
                    await self.start()
                continue
            try:
                await asyncio.to_thread(http, self.server.url + "/healthz", None, 2.0)
                failures = 0
            except OSError:
                failures += 1 if self.up else 0
                if failures == 3:
                    self.crashes += 1

    @property
    def clients(self) -> list[Rejoiner]:
        return [c for t in self.tables.values() for c in [*t.players, *([t.spectator] if t.spectator else [])]]


async def until(condition: Callable[[], bool], timeout: float) -> bool:
    """Poll ``condition`` every 20 ms for at most ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.02)
    return True


def _ms(values: list[float]) -> dict[str, Any]:
    """How many, p50, p99 and max."""
    quantiles = {"p50": 0.5, "p99": 0.99, "max": 1.0} if values else {}
    return {"n": len(values)} | {name: round(percentile(values, q), 1) for name, q in quantiles.items()}


async def run_kills(
    server: ServerProcess,
    tables: int,
    kills: int,
    *,
    players: int = 2,
    seed: int = 0,
    bots: int = 0,
    moment_s: float = 20.0,
    recover_s: float = 60.0,
) -> ScenarioReport:
    """``kills`` SIGKILLs of ``server`` (started, and left running) at ``tables`` live
    tables of ``players`` people and ``bots`` bots each (see the module's docstring)."""
    began = time.monotonic()
    run = Kills(server, random.Random(seed), moment_s=moment_s, recover_s=recover_s)
    assert server.pid is not None, "the server must be started"
    rss_before = rss_of(server.pid)[0]
    watcher = asyncio.create_task(run.watch())
    gave_up: str | None = None
    try:
        plan = run.plan(kills)
        for index in range(tables):
            await run.seat(index, players, bots)
        try:
            for moment in plan:
                await run.kill_at(moment)
            await run.recovered()
            run._measure()
            await asyncio.sleep(0.5)  # a little play after the last recovery
        except GaveUp as error:
            gave_up = str(error)
    finally:
        watcher.cancel()
        clients = run.clients
        not_back = sum(not c.back for c in clients)
        for client in clients:
            await client.close()
    rss_after = None if server.pid is None else rss_of(server.pid)[0]
    return ScenarioReport(
        scenario="kills",
        what="kill -9",
        tried=sum(run.moments.values()),
        seconds=round(time.monotonic() - began, 1),
        crashes=run.crashes,
        cards_lost=run.cards_lost,
        acks_lost=run.acks_lost,
        rss_before=rss_before,
        rss_after=rss_after,
        details={
            "tables": tables,
            "codes": list(run.tables),
            "players": players,
            "bots": bots,
            "moments": dict(sorted(run.moments.items())),
            "moments_missed": run.missed,
            "kills_while_clients_away": run.while_away,
            "acked": run.acks,
            "acks_checked": run.acks_checked,
            "acks_lost_first": run.lost,
            "snapshots_checked": run.snapshots,
            "kill_to_accepting_ms": _ms(run.back_ms),
            "start_ms": _ms(run.start_ms),
            "interrupted": run.interrupted,
            "not_recovered": run.not_recovered,
            "not_recovered_tables": run.stuck,
            "reconnections": sum(max(c.session.joins - 1, 0) for c in clients),
            "reconnections_failed": sum(len(c.failed) for c in clients),
            "failures": [f for c in clients for f in c.failed][:5],
            "client_errors": [e for c in clients for e in c.errors][:5],
            "clients_not_back": not_back,
            "mirror_problems": sum(c.problems for c in clients),
            "server_starts": server.starts,
            "gave_up": gave_up,
        },
        frames=run.frames,
    )
