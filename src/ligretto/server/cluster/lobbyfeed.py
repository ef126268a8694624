"""The lobby shared by every process: each publishes its public tables (and the tournaments
its stage tables play) on a Redis pub/sub channel (``keys.LOBBY``) whenever they change,
and at least every ``RENEW_S``; each keeps the others' last word and merges it into the
list it serves (``GET /api/tables``, ``/ws/lobby``).  A process silent for a lease is
dropped from the list."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from typing import Any

import msgspec

from ligretto import protocol
from ligretto.protocol import Phase
from ligretto.server.cluster.keys import HEARD_S, LOBBY, RENEW_S
from ligretto.server.ops import logs

log = logging.getLogger("ligretto.cluster")


class Entry(msgspec.Struct, array_like=True):
    """One public table: when it was made (wall clock: the order of the lobby) and its summary."""

    born: float
    summary: protocol.TableSummary


class Word(msgspec.Struct):
    """What one process publishes: its id and its public tables; ``leaving``: it has just
    released its leases (SIGTERM), the others take its tables now, not at their next renewal."""

    process: str
    tables: list[Entry]
    leaving: bool = False
    people: protocol.Now | None = None
    """Who is playing on that process now (``directory.own_people``)."""
    tournaments: list[protocol.LobbyTournament] = []
    """The tournaments its stage tables play (``Lobby.tournaments_played``)."""


_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder(Word).decode


def waiting(summary: protocol.TableSummary) -> bool:
    """Still waiting for players: in its lobby with a free seat (listed first)."""
    return summary.phase == Phase.LOBBY.value and summary.taken < summary.seats


class LobbyFeed:
    """This process's side of the shared lobby."""

    def __init__(
        self,
        redis: Any,
        process: str,
        clock: Callable[[], float] = time.monotonic,
        on_leaving: Callable[[], None] | None = None,
    ) -> None:
        self.redis = redis
        self.process = process
        self.clock = clock
        self.on_leaving = on_leaving
        """Called when another process says it is leaving."""
        self.heard: dict[str, tuple[float, list[Entry]]] = {}
        """Each other process's last word and when it came."""
        self.people: dict[str, protocol.Now] = {}
        """Each other process's people, from its last word."""
        self.tournaments: dict[str, list[protocol.LobbyTournament]] = {}
        """Each other process's tournaments, from its last word."""
        self._said: tuple[list[Entry], protocol.Now | None, list[protocol.LobbyTournament]] | None = None
        self._said_at = 0.0

    def hear(self, data: bytes | str) -> None:
        """One message of the channel."""
        try:
            word = _decode(data)
        except msgspec.DecodeError:
            log.warning("not a lobby message on %s: ignored", LOBBY)
            return
        if word.process == self.process:
            return
        if word.leaving:
            self.heard.pop(word.process, None)
            self.people.pop(word.process, None)
            self.tournaments.pop(word.process, None)
            if self.on_leaving is not None:
                self.on_leaving()
            return
        self.heard[word.process] = (self.clock(), word.tables)
        if word.people is not None:
            self.people[word.process] = word.people
        self.tournaments[word.process] = word.tournaments

    async def leave(self) -> None:
        """Say this process is leaving (its leases are released)."""
        await self.redis.publish(LOBBY, _encode(Word(self.process, [], leaving=True)))

    def others(self, own: set[str]) -> list[Entry]:
        """The other processes' public tables (not those this one owns now), the silent ones left out."""
        self._forget_silent()
        latest: dict[str, Entry] = {}  # a table taken over from a process not yet silent: its new owner's word
        for _, entries in sorted(self.heard.values(), key=lambda heard: heard[0]):
            latest.update((e.summary.code, e) for e in entries if e.summary.code not in own)
        return list(latest.values())

    def others_people(self) -> list[protocol.Now]:
        """The other processes' people now (the silent ones left out)."""
        self._forget_silent()
        return [self.people[p] for p in self.heard if p in self.people]

    def others_tournaments(self) -> list[list[protocol.LobbyTournament]]:
        """The other processes' tournaments (the silent ones left out)."""
        self._forget_silent()
        return [self.tournaments[p] for p in self.heard if p in self.tournaments]

    def _forget_silent(self) -> None:
        now = self.clock()
        for process in [p for p, (at, _) in self.heard.items() if now - at > HEARD_S]:
            del self.heard[process]
            self.people.pop(process, None)
            self.tournaments.pop(process, None)

    async def say(
        self,
        entries: list[Entry],
        people: protocol.Now | None = None,
        tournaments: list[protocol.LobbyTournament] | None = None,
    ) -> None:
        """Publish this process's public tables, people and tournaments if they changed (or
        ``RENEW_S`` passed)."""
        now = self.clock()
        said = (entries, people, tournaments or [])
        if said == self._said and now - self._said_at < RENEW_S:
            return
        await self.redis.publish(LOBBY, _encode(Word(self.process, entries, people=people, tournaments=said[2])))
        self._said, self._said_at = said, now

    async def listen(self) -> None:
        """Hear the channel until cancelled (subscribed again after a lost connection)."""
        await listen_forever(self.redis, LOBBY, self.hear)


ENDING_S = 0.1
ENDING_TRIES = 20
"""A stop waits ``ENDING_S`` for its cancelled tasks to end, cancelling those that go on
again, at most ``ENDING_TRIES`` times (2 s in all)."""


async def ended(tasks: list[asyncio.Task[None]]) -> None:
    """Cancel ``tasks`` and wait for their end, cancelling again those that go on
    (redis-py's pub/sub can swallow a cancel: a ``listen_forever`` would outlive the
    client's close, subscribing again for ever, and hold up the event loop's end)."""
    for _ in range(ENDING_TRIES):
        going = [task for task in tasks if not task.done()]
        if not going:
            return
        for task in going:
            task.cancel()
        await asyncio.wait(going, timeout=ENDING_S)


async def listen_forever(
    redis: Any, channel: str, hear: Callable[[bytes | str], None], subscribed: Callable[[], None] | None = None
) -> None:
    """Hear a pub/sub channel until cancelled, subscribed again after a lost connection
    (``subscribed``: called each time Redis confirms the subscription, from when on
    nothing published is missed)."""
    while True:
        pubsub = redis.pubsub()
        try:
            await pubsub.subscribe(channel)
            async for message in pubsub.listen():
                if message.get("type") == "message":
                    hear(message["data"])
                elif message.get("type") == "subscribe" and subscribed is not None:
                    subscribed()
        except asyncio.CancelledError:
            raise
        except Exception as error:  # Redis gone for a moment: tried again after a pause
            logs.BACKENDS.log(
                log, "redis", logging.WARNING, "lost the channel %s (%s): subscribing again", channel, error
            )
            await asyncio.sleep(RENEW_S)
        finally:
            with contextlib.suppress(Exception):
                await pubsub.aclose()


def joined(lists: list[list[protocol.LobbyTournament]]) -> list[protocol.LobbyTournament]:
    """Several processes' tournaments as one list (the first list's order first): each once,
    at the latest stage any process has tables of, with the tables of that stage added up
    (a tournament's tables may be held by several processes after a take-over)."""
    found: dict[str, protocol.LobbyTournament] = {}
    for line in (line for lines in lists for line in lines):
        seen = found.get(line.id)
        if seen is None or seen.stage < line.stage:
            found[line.id] = line
        elif seen.stage == line.stage:
            found[line.id] = msgspec.structs.replace(seen, tables=seen.tables + line.tables)
    return list(found.values())


def merged(own: list[Entry], others: list[Entry], cap: int) -> protocol.TableList:
    """Every process's public tables in one order (the same on every process): waiting
    ones first, the newest first in each group; at most ``cap`` (0: all), and the total."""
    entries = sorted(own + others, key=lambda e: (not waiting(e.summary), -e.born, e.summary.code))
    shown = entries[:cap] if cap else entries
    return protocol.TableList([e.summary for e in shown], len(entries))
