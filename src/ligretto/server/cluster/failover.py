"""Tables whose owner is gone, taken over (docs/deploy.md, "When a process dies").

Every table the service stores is in the set ``keys.TABLES``; its owner holds its lease
``keys.table(code)``.  A process that dies stops renewing: a lease later the key is gone,
and the first live process to take it (``SET NX``) restores the table from the shared
store by replay (``store.load_table``, the engine deals the round again from its seed and
applies its stored actions) and lets it carry on (``Table.resume``).  Each live process
takes at most its fair share at a sweep (:meth:`Census.share`), so the tables of a dead
process, or of a whole service started from nothing, end spread by load.  Everything the old
owner acknowledged was committed first (the outbox), so it is all in the store.  Until the
table is restored, a ``hello`` for it is told to try again (``RedisDirectory.taking``); a
restore the database cannot serve (it restarted: tried once more on a new connection) gives
the lease up, so that no process holds a table it does not have."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ligretto import protocol
from ligretto.server.cluster import keys
from ligretto.server.cluster.directory import Lobby, Unavailable
from ligretto.server.ops import metrics

if TYPE_CHECKING:
    from ligretto.server.table.table import Table

log = logging.getLogger("ligretto.cluster")
_CLOSING: set[asyncio.Future[None]] = set()
"""The closes under way of the sockets of tables let go (kept until done)."""


async def orphans(redis: Any, owned: set[str]) -> list[str]:
    """The stored tables of the service that no process holds a lease of, in random order
    (the live processes do not all reach for the same one first)."""
    return (await census(redis, owned)).orphans


@dataclass(frozen=True, slots=True)
class Census:
    """The service's stored tables as one process sees them: the ``orphans`` (nobody holds
    their lease, in random order), how many the others hold (``held``), how many are its
    own (``mine``)."""

    orphans: list[str]
    held: int
    mine: int

    def share(self, live: int) -> int:
        """How many orphans this process takes at a sweep: up to its fair share of every
        stored table over the ``live`` processes (rounded up), less what it has; a lone
        process takes them all."""
        total = len(self.orphans) + self.held + self.mine
        fair = -(-total // max(1, live))
        return max(0, min(len(self.orphans), fair - self.mine))


async def census(redis: Any, owned: set[str]) -> Census:
    """Count the stored tables: whose lease is held, by whom (this process, ``owned``, or
    another), and which are orphans."""
    stored = await redis.smembers(keys.TABLES)
    codes = [code for code in stored if code not in owned]
    mine = len(stored) - len(codes)
    if not codes:
        return Census([], 0, mine)
    async with redis.pipeline(transaction=False) as pipe:
        for code in codes:
            pipe.exists(keys.table(code))
        held = await pipe.execute()
    found = [code for code, exists in zip(codes, held, strict=True) if not exists]
    random.shuffle(found)
    return Census(found, len(codes) - len(found), mine)


async def take(redis: Any, code: str, process: str, lease_ms: int) -> bool:
    """Take the lease of ``code`` if nobody holds it."""
    return bool(await redis.set(keys.table(code), process, nx=True, px=lease_ms))


def adopt(lobby: Lobby, code: str) -> Table | None:
    """Restore the table ``code`` from the store into this process's lobby; ``None``: it is
    not there any more (dropped, or never stored).  A database error is tried once more:
    the first statement after PostgreSQL restarted fails on the connection it dropped, and
    the next opens a new one.  If that fails too, :class:`Unavailable` (try again later:
    the caller gives the lease up)."""
    if lobby.store is None:
        return None
    errors = lobby.store.db.errors
    try:
        table = _restored(lobby, code)
    except errors as error:
        log.warning("could not restore table %s (%s): trying again on a new connection", code, error)
        try:
            table = _restored(lobby, code)
        except errors as again:
            log.warning("could not restore table %s (%s): given up for now", code, again)
            raise Unavailable(code) from None
    if table is None:
        return None
    lobby.tables[code] = table
    table.resume(lobby.settings.catch_up_s)
    lobby.taken_over(table)  # a tournament's stage table: tagged again, its stage carried on
    metrics.OPEN_TABLES.set(len(lobby.tables))
    metrics.TAKE_OVERS.inc()
    log.info("took over table %s", code)
    return table


def _restored(lobby: Lobby, code: str) -> Table | None:
    lobby.store.take_over(code)  # its fencing token: the old owner can no longer write it
    table: Table | None = lobby.store.load_table(code, countdown_s=lobby.settings.countdown_s)
    return table


def let_go(lobby: Lobby, code: str, handed_over: bool = False) -> None:
    """The lease of ``code`` was lost (Redis unreachable for a lease, or this process
    stalled), or a commit found it taken over (its fencing token), or it is
    ``handed_over`` to rebalance the service: the table is closed here and its clients'
    sockets too, with nothing more sent to them, so they reconnect to whichever process
    has it now."""
    table = lobby.tables.pop(code, None)
    if table is None:
        return
    table.close()
    for listener in list(table.listeners):
        websocket = getattr(listener, "websocket", None)
        if websocket is not None:  # a client's connection (not a test's listener)
            listener.closed = True  # type: ignore[attr-defined]  # a Connection: nothing more of this table goes out
            _CLOSING.add(task := asyncio.ensure_future(_close(websocket)))
            task.add_done_callback(_CLOSING.discard)
    metrics.OPEN_TABLES.set(len(lobby.tables))
    if handed_over:  # rebalancing the service: what it is for
        log.info("handed table %s over to rebalance the service", code)
    else:
        log.warning("lost the lease of table %s: let go", code)


async def _close(websocket: Any) -> None:
    with contextlib.suppress(Exception):
        await websocket.close(code=protocol.MOVED, reason="table moved")
