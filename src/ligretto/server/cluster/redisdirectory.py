"""The directory of several processes sharing a Redis (``ligretto serve --redis``).

Each table is owned by exactly one process: the key ``keys.table(code)`` holds the
owner's id with a lease (``SET NX PX``, ``keys.LEASE_S``) that the owner renews every
``keys.RENEW_S``.  Each process beats a heartbeat (``keys.process(id)``: its id, address,
tables and connections, with the same lease) that the others read to place new tables on
the least-loaded one and to find a table's owner; its public tables reach every other
lobby on the pub/sub channel ``keys.LOBBY`` (``lobbyfeed.py``).  Every renewal also looks
for stored tables nobody holds (their owner died, or the service starts from nothing) and
takes its fair share of them over (``failover.py``), after a grace of one renewal at its
own start, so that processes started together see each other first.
The score keeper's sheets need no owner (the database is their authority): each change
one process writes reaches the others' live streams on ``keys.SHEETS`` (``sheetfeed.py``).
SIGTERM hands the tables over: the store commits, the leases are released, and the
others take them at once."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import logging
import time
import uuid
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import redis
import redis.asyncio
import redis.exceptions
from starlette.requests import Request
from starlette.responses import Response

from ligretto import protocol
from ligretto.protocol import Phase
from ligretto.server.cluster import failover, keys, relay
from ligretto.server.cluster.directory import Directory, Lobby, SheetWatchers, Unavailable, added, own_people
from ligretto.server.cluster.lobbyfeed import Entry, LobbyFeed, ended, joined, merged
from ligretto.server.cluster.queue import Queue
from ligretto.server.cluster.redisqueue import RedisQueue
from ligretto.server.cluster.renewer import Renewer
from ligretto.server.cluster.sheetfeed import SheetFeed
from ligretto.server.ops import logs, metrics

if TYPE_CHECKING:
    from ligretto.server.table.table import Table

log = logging.getLogger("ligretto.cluster")

BETWEEN_ROUNDS = frozenset({Phase.LOBBY, Phase.SCORING, Phase.OVER})
"""The phases in which a table may be handed over to rebalance the service: no round is on."""

# Delete the leases that are still ours (a handover).
RELEASE = """
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then redis.call('DEL', key) end
end
return 1
"""

# Take the lease of a tournament if nobody holds it, or renew it if it is ours: 1, else 0.
LEAD = """
local owner = redis.call('GET', KEYS[1])
if owner == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
if owner then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
"""

REACH_S = 5.0
"""Seconds a starting process waits for its service's Redis to answer (:func:`reach`)."""


class NoRedis(Exception):
    """The service's Redis does not answer (or refuses this process): it cannot join."""


def reach(url: str, timeout_s: float = REACH_S) -> None:
    """Ping the Redis at ``url`` once before the process joins its service, so that a Redis
    that is not there, or refuses the password, ends the start in one line (:class:`NoRedis`)
    instead of a failed application start-up."""
    client = redis.Redis.from_url(url, socket_connect_timeout=timeout_s, socket_timeout=timeout_s)
    try:
        client.ping()
    except redis.exceptions.RedisError as error:
        raise NoRedis(f"no Redis answers at {logs.without_password(url)}: {error}") from None
    finally:
        client.close()


class RedisDirectory(Directory):
    """One process of a service whose directory is in Redis at ``url``."""

    def __init__(
        self,
        url: str,
        address: str,
        *,
        lease_s: float = keys.LEASE_S,
        process: str | None = None,
        start_grace_s: float | None = None,
    ) -> None:
        """``start_grace_s``: how long after its start the process first takes tables (one
        renewal unless given: processes started together have beaten their heartbeats by
        then; a loaded test machine starts them further apart)."""
        self.redis: Any = redis.asyncio.from_url(url, decode_responses=True)
        self.address = address.rstrip("/")
        self.me: str = process or uuid.uuid4().hex[:12]
        self.process = self.me
        self.lease_ms = int(lease_s * 1000)
        self.renew_s = lease_s / 3
        self.start_grace_s = self.renew_s if start_grace_s is None else start_grace_s
        self.owned: set[str] = set()
        """The codes whose lease this process holds (its tables, tutorials included)."""
        self.stored: set[str] = set()
        """Those of them that are stored (offered again at each renewal: a Redis that
        restarted empty knows them again)."""
        self.born: dict[str, float] = {}
        """When each owned table was made or taken over (the lobby's order)."""
        self.taken: dict[str, float] = {}
        """When each lease was taken (``time.monotonic``): a code reserved for a table
        being made is not in the lobby yet, and is not given back for a lease."""
        self.handed: dict[str, float] = {}
        """When this process handed each table over to rebalance the service (``_shed_excess``)."""
        self.unoffered: dict[str, float] = {}
        """When this process first found each stored table that nobody offered (Redis
        restarted empty; its owner offers it again at its next renewal)."""
        self.taking: collections.Counter[str] = collections.Counter()
        """The codes whose lease this process is taking, for a new table or a take-over:
        their lease may be its own already, their table not here yet (a ``hello`` for one
        is to try again, not ``no_table``).  Counted: two hellos may take the same
        table over at once, and the one that lost the lease must not unmark it while the
        other restores it (:meth:`_taking`)."""
        self.feed = LobbyFeed(self.redis, self.me, on_leaving=self._someone_left)
        self.sheet_feed = SheetFeed(self.redis, self.me)
        self.lobby: Lobby | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._chores: set[asyncio.Task[None]] = set()
        self.leaving = False
        self._release = self.redis.register_script(RELEASE)
        self._lead = self.redis.register_script(LEAD)
        self.led: set[str] = set()
        """The tournaments this process directs (their leases: released at its stop)."""
        self.renewer = Renewer(
            url,
            self.me,
            self.lease_ms,
            held=lambda: list(self.owned),
            stored=lambda: set(self.stored),
            beat=self._beat_text,
            lost=self._lost,
        )
        """Renews the leases and the heartbeat from a thread (``renewer.py``)."""

    # --- the process's life -----------------------------------------------------------

    async def start(self, lobby: Lobby) -> None:
        """Register, offer the store's tables to the service and start the renewals and
        the lobby feed.  The first sweep for tables to take comes one renewal later (the
        grace of a start, ``keys.RENEW_S``): processes started together have all beaten
        their heartbeat by then, so each takes only its fair share of the stored tables."""
        self.lobby = lobby
        metrics.PROCESS.labels(self.me, self.address).set(1)
        if lobby.store is not None:
            lobby.store.fence_with(self._fenced)
            codes = lobby.store.table_codes()
            if codes:
                await self.redis.sadd(keys.TABLES, *codes)
        await self._beat()  # seen by the others before any of them takes a table
        self.renewer.start()
        self._tasks = [asyncio.create_task(self._renew_forever()), asyncio.create_task(self.feed.listen())]
        self._tasks.append(asyncio.create_task(self._feed_forever()))
        self._tasks.append(asyncio.create_task(self.sheet_feed.listen()))
        log.info("process %s at %s joined the service", self.me, self.address)

    def _someone_left(self) -> None:
        """Another process handed its tables over: take them now."""
        if self.lobby is None or self.leaving:
            return  # not started, or leaving too
        task = asyncio.create_task(self._take_orphans_now())
        self._chores.add(task)
        task.add_done_callback(self._chores.discard)

    async def _take_orphans_now(self) -> None:
        try:
            await self._take_orphans()
        except Exception as error:  # the next renewal tries again
            logs.BACKENDS.log(log, "redis", logging.WARNING, "could not take over tables (%s)", error)

    async def ready(self) -> str | None:
        """Redis answers a ``PING`` within :data:`keys.ANSWER_S`, or what went wrong (the
        error's kind and text: a URL's password is in neither)."""
        try:
            await asyncio.wait_for(self.redis.ping(), keys.ANSWER_S)
        except TimeoutError:
            return f"no answer within {keys.ANSWER_S:g} s"
        except Exception as error:
            return f"{type(error).__name__}: {error}"
        return "ok"

    def drain(self) -> None:
        """Told to stop (SIGTERM), before uvicorn's graceful shutdown: no more tables taken
        over or placed here (its heartbeat says ``leaving``, so the others neither count it
        for their fair shares nor place new tables on it), its own leases still renewed."""
        self.leaving = True

    def leave(self) -> None:
        """Stop renewing and taking tables (the process is shutting down; a take-over under
        way restores nothing more: :meth:`_adopt`)."""
        self.leaving = True
        self.renewer.halt()
        for task in [*self._tasks, *self._chores]:
            task.cancel()

    async def stop(self) -> None:
        """After the store committed and closed: release every lease, so the others take
        the tables at once, and say goodbye."""
        self.leave()
        await ended(self._tasks)
        await asyncio.to_thread(self.renewer.stop)  # no renewal after the release
        with contextlib.suppress(Exception):
            if self.owned:
                await self._release(keys=[keys.table(c) for c in self.owned], args=[self.me])
            if self.led:
                await self._release(keys=[keys.tournament(t) for t in self.led], args=[self.me])
            await self.redis.delete(keys.process(self.me))
            await self.redis.srem(keys.PROCESSES, self.me)
            await self.feed.leave()
        self.owned.clear()
        await self.redis.aclose()

    def make_queue(self) -> Queue:
        """The matchmaking queue of the whole service, in its Redis (``redisqueue.py``)."""
        self.queue = RedisQueue(self.redis, self.me)
        return self.queue

    def people(self, lobby: Lobby) -> protocol.Now:
        """Who is playing now in the whole service: this process's and the others' last words."""
        return added([own_people(lobby, self.queue), *self.feed.others_people()])

    def tournaments(self, own: list[protocol.LobbyTournament]) -> list[protocol.LobbyTournament]:
        """The tournaments played in the whole service: this process's and the others' last words."""
        return joined([own, *self.feed.others_tournaments()])

    # --- sheets -----------------------------------------------------------------------

    def keep_sheets(self, sheets: SheetWatchers) -> None:
        self.sheet_feed.sheets = sheets

    def sheet_changed(self, code: str, version: int, body: bytes) -> None:
        """Publish the change for the other processes' watchers (the answer does not wait)."""
        task = asyncio.create_task(self._say_sheet(code, version, body))
        self._chores.add(task)
        task.add_done_callback(self._chores.discard)

    async def _say_sheet(self, code: str, version: int, body: bytes) -> None:
        try:
            await self.sheet_feed.say(code, version, body)
        except (
            Exception
        ) as error:  # Redis away: the others' streams get the sheet with its next change, or on reconnecting
            log.warning("could not publish a change of sheet %s (%s)", code, error)

    # --- tables -----------------------------------------------------------------------

    async def reserve(self, code: str, stored: bool) -> bool:
        """(Redis away, or no answer within :data:`keys.ANSWER_S`: :class:`Unavailable`, the
        client to try again: without the lease no process may make the table its own.  A
        lease taken all the same, with no table made, is released by the next renewal.)"""
        with self._taking(code):  # the table is made as soon as this returns
            try:
                async with asyncio.timeout(keys.ANSWER_S):
                    return await self._reserve(code, stored)
            except (redis.exceptions.RedisError, TimeoutError) as error:
                metrics.BACKEND_ERRORS.labels("redis").inc()
                raise Unavailable(code) from error

    @contextlib.contextmanager
    def _taking(self, code: str) -> Iterator[None]:
        """``code`` is being taken here while inside (:attr:`taking`, counted)."""
        self.taking[code] += 1
        try:
            yield
        finally:
            self.taking[code] -= 1
            if not self.taking[code]:
                del self.taking[code]

    async def _reserve(self, code: str, stored: bool) -> bool:
        if not await failover.take(self.redis, code, self.me, self.lease_ms):
            return False
        self._own(code)
        if stored:
            self.stored.add(code)
            await self.redis.sadd(keys.TABLES, code)
        await self._beat()  # the next placement sees this table already
        return True

    def _own(self, code: str) -> None:
        self.owned.add(code)
        self.born.setdefault(code, time.time())
        self.taken[code] = time.monotonic()

    async def lead(self, tournament: str) -> bool:
        """Take the lease of ``tournament`` (nobody holds it: its director died, stopped,
        or it was just started) or renew it (this process directs it); ``False``: another
        process directs it, or this one is stopping, or Redis does not answer (the next
        look tries again).  The lease is renewed at each look (the director's, every
        ``keys.RENEW_S``) from the event loop: a loop stalled past it loses the tournament
        to another process, and ``Tournaments.add_stage`` keeps the two from pairing a
        stage twice."""
        if self.leaving:  # (its leases released at its stop: another process leads at once)
            return False
        try:
            async with asyncio.timeout(keys.ANSWER_S):
                ours = bool(await self._lead(keys=[keys.tournament(tournament)], args=[self.me, self.lease_ms]))
        except (redis.exceptions.RedisError, TimeoutError) as error:
            metrics.BACKEND_ERRORS.labels("redis").inc()
            logs.BACKENDS.log(log, "redis", logging.WARNING, "could not lead tournament %s (%s)", tournament, error)
            return False
        if ours and tournament not in self.led:
            log.info("directs tournament %s", tournament)
        (self.led.add if ours else self.led.discard)(tournament)
        return ours

    async def route(self, raw: str, relayed: bool) -> str | None:
        try:
            message = protocol.decode(raw)
        except protocol.ProtocolError:
            return None  # answered here
        if not isinstance(message, protocol.Hello):
            return None
        address = await self.locate(message.code)
        if address is None:
            return None
        if relayed:  # carried here by a process that took this one for the owner: no further hops
            raise Unavailable(message.code)
        return "ws" + address.removeprefix("http") + "/ws"

    async def locate(self, code: str) -> str | None:
        """The address of the process that owns ``code`` (``None``: this one, the table here
        as this returns, for the caller answers at once; or nobody: it is unknown, or closed
        for good).  A stored table nobody holds is taken over here and now; one
        whose owner holds the lease but does not beat any more, or that this process is
        taking over right now, is :class:`Unavailable` (try again: never ``no_table``), as is
        any while Redis cannot be asked or does not answer within :data:`keys.ANSWER_S`, and
        any while this process is stopping (its own tables too: they are closed, then
        handed over)."""
        try:
            async with asyncio.timeout(keys.ANSWER_S):
                return await self._locate(code)
        except (redis.exceptions.RedisError, TimeoutError) as error:
            metrics.BACKEND_ERRORS.labels("redis").inc()
            raise Unavailable(code) from error

    async def _locate(self, code: str) -> str | None:
        assert self.lobby is not None
        if self.leaving:  # shutting down: its tables about to be another's (closed first), it takes none
            raise Unavailable(code)
        if code in self.lobby.tables:
            return None
        for _ in range(3):
            owner = await self.redis.get(keys.table(code))
            if owner is None:
                if not await self.redis.sismember(keys.TABLES, code):
                    if not self._unoffered(code):
                        return None
                    await self.redis.sadd(keys.TABLES, code)  # nobody offered it: an orphan now
                    continue
                if self._handed_lately(code):  # another process is to take it
                    raise Unavailable(code)
                if await self._adopt(code) and code in self.lobby.tables:
                    return None  # restored here, and still here as the hello is answered
                # Another process was quicker; or the table was dropped meanwhile (no_table); or
                # it was no sooner restored than let go again: this process's rebalancing, while
                # the take-over beat its heartbeat, handed it over (one with nobody at it goes
                # first) -- it is moving.  Ask again who.
                continue
            self.unoffered.pop(code, None)
            if owner == self.me:
                if code in self.taking:  # its lease is ours, its table not restored (or made) yet
                    raise Unavailable(code)
                if code in self.owned:
                    return None  # here, or closed here for good (its lease not released yet)
                # A lease of ours with no table (a restore that failed, a former life of this
                # id): given up, and taken again as the orphan it is.
                await self._release(keys=[keys.table(code)], args=[self.me])
                continue
            beat = await self.redis.get(keys.process(owner))
            if beat is None:
                raise Unavailable(code)
            address: str = json.loads(beat)["address"]
            return address
        raise Unavailable(code)

    def _unoffered(self, code: str) -> bool:
        """``code`` is nobody's and not among the service's stored tables: ``False`` if no
        table has it (never made, or closed for good: ``no_table``); a table the database
        holds is one whose owner has not offered it again since Redis restarted empty (it
        does so at its next renewal): :class:`Unavailable`, try again -- and ``True`` once it
        stays unoffered for a lease (its owner is gone too), to be offered, and taken, here."""
        assert self.lobby is not None
        store = self.lobby.store
        if store is None:
            return False
        try:
            record = store.table_record(code)
        except store.db.errors as error:
            raise Unavailable(code) from error
        if record is None or record.dropped:
            return False
        now = time.monotonic()
        if now - self.unoffered.setdefault(code, now) < self.lease_ms / 1000:
            raise Unavailable(code)
        del self.unoffered[code]
        return True

    async def forward(self, request: Request, code: str) -> Response | None:
        address = await self.locate(code)
        if address is None:
            return None
        if request.headers.get(keys.RELAYED):  # carried here by a process that took this one for the owner
            raise Unavailable(code)
        return await relay.forward(request, address)

    async def place(self, request: Request) -> Response | None:
        if request.headers.get(keys.RELAYED):
            return None  # placed here by another process
        try:
            async with asyncio.timeout(keys.ANSWER_S):
                least = await self._least_loaded()
        except (redis.exceptions.RedisError, TimeoutError) as error:  # no new table's lease could be had either
            metrics.BACKEND_ERRORS.labels("redis").inc()
            raise Unavailable("a new table") from error
        if least is None or least[0] == self.me:
            return None
        try:
            return await relay.forward(request, least[1])
        except Unavailable:
            return None  # it just died: made here

    async def _least_loaded(self) -> tuple[str, str] | None:
        """(id, address) of the live process with the fewest connections, then tables."""
        live = await self._live()
        if not live:
            return None
        best = min(live, key=lambda b: (b["connections"], b["tables"], b["id"]))
        return best["id"], best["address"]

    async def _live(self) -> list[dict[str, Any]]:
        """The heartbeats of the live processes that are not leaving."""
        ids = sorted(await self.redis.smembers(keys.PROCESSES))
        if not ids:
            return []
        beats = await self.redis.mget([keys.process(i) for i in ids])
        live = [json.loads(b) for b in beats if b is not None]
        return [beat for beat in live if not beat.get("leaving")]

    def listing(self, tables: list[Table], cap: int) -> protocol.TableList:
        own = [Entry(self.born.get(t.code, 0.0), t.summary()) for t in tables]
        return merged(own, self.feed.others(self.owned), cap)

    # --- renewals ---------------------------------------------------------------------

    async def _renew_forever(self) -> None:
        """The event loop's side of the renewals (the leases, and the stored tables offered
        again with them, are the thread's; that the loop is alive, the renewer's own task):
        the tables closed for good released; the tables of dead processes taken over; one
        handed over if the tables are not spread (``_shed_excess``)."""
        await asyncio.sleep(max(0.0, self.start_grace_s - self.renew_s))  # the grace of a start
        while True:
            await asyncio.sleep(self.renew_s)
            try:
                await self._sweep()
            except asyncio.CancelledError:
                raise
            except Exception as error:  # Redis away for a moment: tried again at the next renewal
                metrics.BACKEND_ERRORS.labels("redis").inc()
                logs.BACKENDS.log(log, "redis", logging.WARNING, "could not renew with Redis (%s): trying again", error)

    async def _sweep(self) -> None:
        """The loop's part of a renewal (see :meth:`_renew_forever`).  (The stored tables
        are offered again by the renewals' thread, each with its lease, in one script: were
        the loop to offer them, another process could take one for an orphan before its
        owner's thread had its lease back, after Redis restarted empty.)"""
        await self._release_gone()
        await self._take_orphans()
        await self._shed_excess()

    async def renew(self) -> None:
        """One renewal at once, the thread's part included (tests, and a start)."""
        await self._release_gone()
        self._lost(await asyncio.to_thread(self.renewer.renew_once))

    async def _release_gone(self) -> None:
        """Release the leases of tables closed for good (dropped) since (not those of codes
        just reserved for a table being made)."""
        assert self.lobby is not None
        here = set(self.lobby.tables)
        now = time.monotonic()
        gone = {c for c in self.owned - here if now - self.taken.get(c, 0.0) > self.lease_ms / 1000}
        if not gone:
            return
        for code in gone:  # first: the renewals' thread no longer renews them, nor offers them again
            self._disown(code)
        await self._release(keys=[keys.table(c) for c in gone], args=[self.me])
        await self.redis.srem(keys.TABLES, *gone)

    def _lost(self, codes: list[str]) -> None:
        """Another process holds these leases now: let their tables go (on the loop)."""
        assert self.lobby is not None
        for code in codes:
            if code in self.owned:
                self._disown(code)
                failover.let_go(self.lobby, code)

    def _fenced(self, codes: set[str]) -> None:
        """A commit found these tables taken over (this process stalled past its leases):
        let them go before anything more of them is sent."""
        self._lost(sorted(codes))

    def _disown(self, code: str) -> None:
        self.owned.discard(code)
        self.stored.discard(code)
        self.born.pop(code, None)
        self.taken.pop(code, None)

    def _beat_text(self) -> str:
        """The heartbeat: id, address, tables (reserved ones too: the next placement counts
        them) and connections (read from the renewals' thread too: plain numbers)."""
        assert self.lobby is not None
        beat = {
            "id": self.me,
            "address": self.address,
            "tables": len(self.owned),
            "connections": self.lobby.connections.count,
            "leaving": self.leaving,
        }
        return json.dumps(beat)

    async def _beat(self) -> None:
        await self.redis.set(keys.process(self.me), self._beat_text(), px=self.lease_ms)
        await self.redis.sadd(keys.PROCESSES, self.me)

    async def _take_orphans(self) -> None:
        """Take over the stored tables whose owner is gone: this process's fair share of
        every stored table (``Census.share``: the live processes each take theirs at their
        sweep, so the tables of a dead process, or of a service started from nothing, end
        spread by load; a lone process takes them all).  A ``hello`` for one takes it at
        once wherever it arrives (:meth:`locate`)."""
        if self.leaving:
            return  # stopping: the others take the orphans (and this one's tables, at its stop)
        census = await failover.census(self.redis, self.owned)
        if not census.orphans:
            return
        share = census.share(len(await self._live()))
        for code in census.orphans:
            if share <= 0:
                return
            if self._handed_lately(code):
                continue
            try:
                if await self._adopt(code):
                    share -= 1
            except Unavailable:
                return  # the database cannot be read: the next sweep tries again

    async def _shed_excess(self) -> None:
        """Rebalance (a process came back after failovers piled the tables on the others):
        while some live process holds more than one table above the fair share (the service's
        tables over its live processes, rounded up) or more than one below it (rounded down),
        the most loaded of them (the first by id) hands one over at each renewal, one with no
        round to cut (in its lobby, between rounds, or over): committed, closed here (its
        clients reconnect), its lease released; a process under its fair share takes it at
        its next sweep (``_take_orphans``), or where one of its clients says ``hello``, never
        this one for a lease (:meth:`_handed_lately`).  Within one of the fair share nothing
        moves: a table's people are not moved for so little."""
        assert self.lobby is not None
        if self.leaving:
            return
        live = {beat["id"]: int(beat["tables"]) for beat in await self._live()}
        if len(live) < 2 or self.me not in live:
            return
        live[self.me] = len(self.owned)
        total = sum(live.values())
        low, high = total // len(live), -(-total // len(live))
        if max(live.values()) <= high + 1 and min(live.values()) >= low - 1:
            return
        if min(live, key=lambda process: (-live[process], process)) != self.me:
            return  # the most loaded hands one over, one at a time
        quiet = [
            table
            for code, table in self.lobby.tables.items()
            if code in self.stored and table.rounds.phase in BETWEEN_ROUNDS and not table.closed
        ]
        if not quiet:
            return
        table = min(quiet, key=lambda t: (len(t.listeners), t.code))  # the fewest clients to move
        failover.let_go(self.lobby, table.code, handed_over=True)
        if self.lobby.store is not None:
            self.lobby.store.commit()  # all of it written before the lease goes
        self._disown(table.code)  # first: the renewals' thread no longer renews it
        self.handed[table.code] = time.monotonic()
        await self._release(keys=[keys.table(table.code)], args=[self.me])
        metrics.HANDED_OVER.inc()

    def _handed_lately(self, code: str) -> bool:
        """This process handed ``code`` over within a lease: another process is to take it
        (taken back here, it would be handed over again at the next renewal)."""
        at = self.handed.get(code)
        if at is not None and time.monotonic() - at > self.lease_ms / 1000:
            del self.handed[code]
            return False
        return at is not None

    async def _adopt(self, code: str) -> bool:
        """Take the lease of ``code`` and restore it here; ``False``: another process holds it
        (``True`` also for a table dropped meanwhile; and the table may be let go again before
        this returns: :meth:`_locate` looks again).
        Until the table is here, a ``hello`` for it is to try again (``taking``); if it cannot
        be restored (the database is away), the lease is given up, so that another process,
        or a later try, takes it, and :class:`Unavailable` is raised."""
        assert self.lobby is not None
        with self._taking(code):
            if not await failover.take(self.redis, code, self.me, self.lease_ms):
                return False
            if self.leaving:  # told to stop meanwhile: its store is closing
                await self._release(keys=[keys.table(code)], args=[self.me])
                return False
            try:
                table = failover.adopt(self.lobby, code)
            except Unavailable:
                await self._release(keys=[keys.table(code)], args=[self.me])
                raise
            if table is None:  # dropped meanwhile: not the service's any more
                await self.redis.srem(keys.TABLES, code)
                await self.redis.delete(keys.table(code))
                return True
            self._own(code)
            self.stored.add(code)
            await self._beat()  # the others' rebalancing sees it here already
            return True

    async def _feed_forever(self) -> None:
        while True:
            await asyncio.sleep(keys.FEED_S)
            assert self.lobby is not None
            public = [t for t in self.lobby.tables.values() if t.listed]
            try:
                people = own_people(self.lobby, self.queue)
                entries = [Entry(self.born.get(t.code, 0.0), t.summary()) for t in public]
                await self.feed.say(entries, people, self.lobby.tournaments_played())
            except asyncio.CancelledError:
                raise
            except Exception as error:
                logs.BACKENDS.log(
                    log, "redis", logging.WARNING, "could not publish the lobby (%s): trying again", error
                )
