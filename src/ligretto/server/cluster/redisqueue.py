"""The matchmaking queue of a service of several processes (``queue.Queue``'s interface):
every ticket in one Redis hash (``keys.QUEUE``), so any process groups them all.

Taking a group is one Lua script (:data:`TAKE`): all its tickets leave the hash, or none
does when one is gone already, so two processes never seat one ticket twice.  What a
process has for a ticket another process holds (its seats) goes out on the pub/sub channel
``keys.SEATED``; every process hears it and the holder hands it on.  A ticket whose holder
died (its heartbeat ``keys.process(id)`` expired) is dropped by whoever reads the queue
next (:meth:`RedisQueue.waiting`).  A Redis that restarted empty lost every ticket: each
process keeps the tickets its sockets hold and, at its first look after the restart (its
key ``keys.queue_kept`` gone), puts them back."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

import msgspec

from ligretto.server.cluster import keys
from ligretto.server.cluster.lobbyfeed import ended, listen_forever
from ligretto.server.cluster.queue import Member, Queue, Ticket

log = logging.getLogger("ligretto.cluster")

TAKE = """
for i, id in ipairs(ARGV) do
  if redis.call('HEXISTS', KEYS[1], id) == 0 then return 0 end
end
redis.call('HDEL', KEYS[1], unpack(ARGV))
return 1
"""
"""Take the tickets ``ARGV`` out of the hash ``KEYS[1]``: all (1) or none (0)."""


PARTY_S = 3600
"""A party not seated within an hour is forgotten (its members' sockets are long closed)."""
KEPT_S = 86400
"""How long ``keys.queue_kept`` lives unless Redis restarts first (at its end the process
puts its tickets back once more, which changes nothing)."""


class Handed(msgspec.Struct, array_like=True):
    """A text for the holder of ticket ``id`` (on ``keys.SEATED``)."""

    id: str
    text: str
    last: bool = False


_encode = msgspec.json.Encoder().encode
_ticket = msgspec.json.Decoder(Ticket).decode
_member = msgspec.json.Decoder(Member).decode
_handed = msgspec.json.Decoder(Handed).decode


class RedisQueue(Queue):
    """The queue in the service's Redis; this process holds its own sockets' tickets."""

    def __init__(self, redis: Any, process: str) -> None:
        super().__init__()
        self.redis = redis
        self.process = process
        self._take = redis.register_script(TAKE)
        self._listening: asyncio.Task[None] | None = None
        self.mine: dict[str, Ticket] = {}
        """The tickets this process's sockets hold, to put back after Redis restarted empty."""

    async def start(self) -> None:
        """Hear the texts for tickets held here (from when Redis confirms the subscription,
        waited for up to ``keys.ANSWER_S``); ``keys.queue_kept`` set, so that only its loss
        (Redis restarted empty) puts this process's tickets back."""
        subscribed = asyncio.Event()
        self._listening = asyncio.create_task(listen_forever(self.redis, keys.SEATED, self._hear, subscribed.set))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(subscribed.wait(), keys.ANSWER_S)
        with contextlib.suppress(Exception):  # Redis away: the first look sets it (no ticket held yet)
            await self.redis.set(keys.queue_kept(self.process), "1", ex=KEPT_S)

    async def stop(self) -> None:
        """Take this process's tickets out (their sockets are closing) and stop listening."""
        if self._listening is not None:
            await ended([self._listening])  # a cancel redis-py swallowed would hang the stop
        with contextlib.suppress(Exception):
            if self.holders:
                await self.redis.hdel(keys.QUEUE, *self.holders)
        self.holders.clear()
        self.mine.clear()

    def _hear(self, data: bytes | str) -> None:
        try:
            handed = _handed(data)
        except msgspec.DecodeError:
            log.warning("not a queue message on %s: ignored", keys.SEATED)
            return
        self.hand(handed.id, handed.text, handed.last)

    async def join(self, ticket: Ticket, deliver: Any) -> None:
        self.hold(ticket.id, deliver)
        self.mine[ticket.id] = ticket
        await self.redis.hset(keys.QUEUE, ticket.id, _encode(ticket))

    async def leave(self, id: str) -> None:
        self.release(id)
        self.mine.pop(id, None)
        await self.redis.hdel(keys.QUEUE, id)

    def hand(self, id: str, text: str, last: bool = False) -> None:
        if last:
            self.mine.pop(id, None)
        super().hand(id, text, last)

    async def _keep_mine(self) -> None:
        """After Redis restarted empty (this process's ``keys.queue_kept`` gone): the tickets
        its sockets hold back in the queue, as they were."""
        if await self.redis.set(keys.queue_kept(self.process), "1", nx=True, ex=KEPT_S) and self.mine:
            await self.redis.hset(keys.QUEUE, mapping={id: _encode(t) for id, t in self.mine.items()})

    async def party_join(self, code: str, member: Member, make: bool = False) -> list[Member] | None:
        key = keys.party(code)
        if not make and not await self.redis.exists(key):
            return None
        await self.redis.hset(key, member.holder, _encode(member))
        await self.redis.expire(key, PARTY_S)
        return await self.party_members(code)

    async def party_members(self, code: str) -> list[Member]:
        members = [_member(text) for text in (await self.redis.hgetall(keys.party(code))).values()]
        return sorted(members, key=lambda m: (m.at, m.holder))  # in the order they came

    async def party_leave(self, code: str, holder: str) -> list[Member]:
        await self.redis.hdel(keys.party(code), holder)
        return await self.party_members(code)

    async def party_end(self, code: str) -> None:
        await self.redis.delete(keys.party(code))

    async def waiting(self) -> list[Ticket]:
        """Every ticket of the service whose holder is alive (the others are dropped)."""
        await self._keep_mine()
        raw = await self.redis.hgetall(keys.QUEUE)
        tickets = []
        for id, text in raw.items():
            try:
                tickets.append(_ticket(text))
            except msgspec.DecodeError:
                log.warning("not a queue ticket in %s: %s dropped", keys.QUEUE, id)
                await self.redis.hdel(keys.QUEUE, id)
        holders = sorted({t.process for t in tickets} - {self.process})
        beats = await self.redis.mget([keys.process(p) for p in holders]) if holders else []
        dead = {p for p, beat in zip(holders, beats, strict=True) if beat is None}
        gone = [t.id for t in tickets if t.process in dead]
        if gone:
            await self.redis.hdel(keys.QUEUE, *gone)
        return [t for t in tickets if t.process not in dead]

    async def put_back(self, tickets: list[Ticket]) -> None:
        await self.redis.hset(keys.QUEUE, mapping={t.id: _encode(t) for t in tickets})

    async def take(self, ids: list[str]) -> bool:
        return bool(await self._take(keys=[keys.QUEUE], args=ids))

    async def deliver(self, id: str, text: str, last: bool = False) -> None:
        if id in self.holders:
            self.hand(id, text, last)
        else:
            await self.redis.publish(keys.SEATED, _encode(Handed(id, text, last)))
