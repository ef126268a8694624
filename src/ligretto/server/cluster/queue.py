"""The matchmaking queue's tickets and where they wait: :class:`Queue`, one process on its
own (in memory); ``redisqueue.RedisQueue`` is the same interface for a service of several
processes sharing a Redis (``ligretto serve --redis``), as ``directory.py`` and
``redisdirectory.py`` are for tables.

A ticket is one entry of the queue: one person, or a party seated together, waiting for a
table of ``seats`` seats and the rule preset ``preset``.  The process whose socket holds it
is its *holder*: it alone tells its client how the wait goes.  Any process may seat a
group (``web/matchmaker.py``): it takes the group's tickets with :meth:`Queue.take`, all or
none, so two processes never seat one ticket twice, makes the table and hands each ticket
its seats through :meth:`Queue.deliver`, which reaches the holder wherever it is."""

from __future__ import annotations

from collections.abc import Callable

import msgspec


class Person(msgspec.Struct, array_like=True):
    """One person of a ticket: the display name, the profile's public id (if any) and the
    holder id of the person's own socket (where their seat goes; ``None``: the ticket's)."""

    name: str
    profile: str | None = None
    holder: str | None = None


class Member(msgspec.Struct, array_like=True):
    """One person of a party before it queues: their socket's holder id, their name,
    profile and conservative rating."""

    holder: str
    name: str
    profile: str | None
    rating: float
    at: float
    """When they joined (the maker first)."""


class Ticket(msgspec.Struct):
    """One entry of the queue (a person or a party), as it waits."""

    id: str
    process: str
    """The holder: the process whose socket waits for it."""
    seats: int
    preset: str
    since: float
    """When it joined (wall clock, the same on every process of the service)."""
    rating: float
    """Its people's conservative rating (``mu - 3 sigma``; a party's mean)."""
    people: list[Person]
    party: str | None = None
    """The code of the party it seats (``None``: one person)."""

    @property
    def pool(self) -> tuple[int, str]:
        """The kind of table it waits for: tickets of one pool are grouped together."""
        return self.seats, self.preset


Deliver = Callable[[str, bool], None]
"""Hands a text to a ticket's client (its socket's send); ``True``: the last, its seats."""


class Queue:
    """The queue of one process (no ``--redis``): every ticket is its own."""

    process = "local"

    def __init__(self) -> None:
        self.tickets: dict[str, Ticket] = {}
        self.holders: dict[str, Deliver] = {}
        """The sockets on this process that wait (a ticket's, a party member's) by holder
        id, and how to reach each."""
        self.parties: dict[str, dict[str, Member]] = {}

    def hold(self, id: str, deliver: Deliver) -> None:
        """Texts for the holder ``id`` (a ticket's or a party member's socket) go to ``deliver``."""
        self.holders[id] = deliver

    def release(self, id: str) -> None:
        self.holders.pop(id, None)

    async def join(self, ticket: Ticket, deliver: Deliver) -> None:
        """The ticket waits from now; texts for it go to ``deliver``."""
        self.hold(ticket.id, deliver)
        self.tickets[ticket.id] = ticket

    async def leave(self, id: str) -> None:
        """The ticket stops waiting (its client left, or was seated)."""
        self.release(id)
        self.tickets.pop(id, None)

    # --- parties: friends seated together (the maker's ticket queues them all) --------

    async def party_join(self, code: str, member: Member, make: bool = False) -> list[Member] | None:
        """Add ``member`` to the party ``code`` (``make``: a new one); its members, or
        ``None``: no such party."""
        if make:
            self.parties[code] = {}
        party = self.parties.get(code)
        if party is None:
            return None
        party[member.holder] = member
        return list(party.values())

    async def party_members(self, code: str) -> list[Member]:
        return list(self.parties.get(code, {}).values())

    async def party_leave(self, code: str, holder: str) -> list[Member]:
        """``holder`` leaves the party; the members left."""
        party = self.parties.get(code, {})
        party.pop(holder, None)
        if not party:
            self.parties.pop(code, None)
        return list(party.values())

    async def party_queued(self, code: str) -> bool:
        """Whether the party's ticket waits in the queue (it takes no one more then)."""
        return any(t.party == code for t in await self.waiting())

    async def party_end(self, code: str) -> None:
        """The party was seated (or its maker left): it is no more."""
        self.parties.pop(code, None)

    async def waiting(self) -> list[Ticket]:
        """Every ticket that waits, in the whole service."""
        return list(self.tickets.values())

    async def take(self, ids: list[str]) -> bool:
        """Take these tickets out of the queue to seat them: all of them, or (one is gone
        already, seated by another process or left) none."""
        if not all(id in self.tickets for id in ids):
            return False
        for id in ids:
            del self.tickets[id]
        return True

    async def put_back(self, tickets: list[Ticket]) -> None:
        """Tickets taken to be seated whose table could not be made: they wait again, as they were."""
        for ticket in tickets:
            self.tickets[ticket.id] = ticket

    async def deliver(self, id: str, text: str, last: bool = False) -> None:
        """Hand ``text`` to the ticket's client, on whichever process holds it (``last``:
        its seats; the ticket is done, its holder lets it go)."""
        self.hand(id, text, last)

    def hand(self, id: str, text: str, last: bool = False) -> None:
        """Hand ``text`` to a ticket held here (nothing if it is not)."""
        deliver = self.holders.pop(id, None) if last else self.holders.get(id)
        if deliver is not None:
            deliver(text, last)

    def held(self) -> int:
        """How many tickets this process's sockets hold."""
        return len(self.holders)

    async def start(self) -> None:
        """Nothing to listen to: one process."""

    async def stop(self) -> None:
        """Nothing to release."""
