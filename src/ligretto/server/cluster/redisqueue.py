"""The matchmaking queue of a service of several processes (``queue.Queue``'s interface):
every ticket in one Redis hash (``keys.QUEUE``), so any process groups them all.

Taking a group is one Lua script (:data:`TAKE`): all its tickets leave the hash, or none
does when one is gone already, so two processes never seat one ticket twice.  What a
process has for a ticket another process holds (its seats) goes out on the pub/sub channel
``keys.SEATED``; every process hears it and the holder hands it on.  A ticket whose holder
died (its heartbeat ``keys.process(id)`` expired) is dropped by whoever reads the queue
next (:meth:`RedisQueue.waiting`)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

import msgspec

from ligretto.server.cluster import keys
from ligretto.server.cluster.lobbyfeed import listen_forever
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

    async def start(self) -> None:
        """Hear the texts for tickets held here (from when Redis confirms the subscription,
        waited for up to ``keys.ANSWER_S``)."""
        subscribed = asyncio.Event()
        self._listening = asyncio.create_task(listen_forever(self.redis, keys.SEATED, self._hear, subscribed.set))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(subscribed.wait(), keys.ANSWER_S)

    async def stop(self) -> None:
        """Take this process's tickets out (their sockets are closing) and stop listening."""
        if self._listening is not None:
            self._listening.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._listening
        with contextlib.suppress(Exception):
            if self.holders:
                await self.redis.hdel(keys.QUEUE, *self.holders)
        self.holders.clear()

    def _hear(self, data: bytes | str) -> None:
        try:
            handed = _handed(data)
        except msgspec.DecodeError:
            log.warning("not a queue message on %s: ignored", keys.SEATED)
            return
        self.hand(handed.id, handed.text, handed.last)

    async def join(self, ticket: Ticket, deliver: Any) -> None:
        self.hold(ticket.id, deliver)
        await self.redis.hset(keys.QUEUE, ticket.id, _encode(ticket))

    async def leave(self, id: str) -> None:
        self.release(id)
        await self.redis.hdel(keys.QUEUE, id)

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
