"""The matchmaking queue's driver: "Play with people" (docs/protocol.md "The queue").

:class:`Matchmaker` turns a ``queue`` message into a ticket (the person's name, profile and
conservative rating; a guest has the default rating) in the directory's queue
(``server/cluster/queue.py``: this process's, or the service's in Redis), and looks at the
queue every :data:`TICK_S` while this process holds tickets: it groups each pool
(``grouping.py``), tells each ticket held here how its wait goes (``queued``, when it
changes), and seats every ready group: it takes the group's tickets (all or none: no
other process seats them too), makes a public rated table by the ordinary path
(``Lobby.create``), takes a seat for each person (away until they come with its token),
fills the empty seats with the calibrated bot nearest to the group's rating, deals, and
hands each ticket its seat (``seated``).  Redis may fail between taking the tickets and
handing the seats: what it did not take (the tickets back, if no table was made; the
seats, for sockets of other processes) is kept and finished at the next look that reaches
it, so no ticket is lost and none seated twice.  Time is ``clock``'s (the wall clock: tickets
of several processes compare their ``since``), and a test calls :meth:`tick` itself."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable

from ligretto import protocol
from ligretto.bots.spec import BotSpec
from ligretto.engine.rules import PRESETS, RuleSet
from ligretto.ratings import DEFAULT, bot_near
from ligretto.server.cluster.grouping import Group, Waiting, groups
from ligretto.server.cluster.queue import Deliver, Member, Person, Queue, Ticket
from ligretto.server.ops import logs, metrics
from ligretto.server.records import ratingstore
from ligretto.server.table.timing import DEFAULT_GRACE_S
from ligretto.server.web.lobby import Lobby

log = logging.getLogger("ligretto.server")

TICK_S = 0.25
"""How often a process holding tickets looks at the queue."""
FALLBACK_BOT = "smart:casual"
"""The bot of the empty seats if no calibrated one is known (never, with ``BOT_RATINGS``)."""


class Matchmaker:
    """This process's side of the matchmaking queue (see the module's docstring)."""

    def __init__(self, lobby: Lobby, queue: Queue, clock: Callable[[], float] = time.time) -> None:
        self.lobby = lobby
        self.queue = queue
        self.clock = clock
        self.told: dict[str, protocol.Queued] = {}
        """What each ticket held here was last told of its wait."""
        self.seated = 0
        """Tables this process made from the queue (also ``ligretto_queue_tables_total``)."""
        self.returning: list[Ticket] = []
        """Tickets this process took whose table could not be made and which Redis, gone
        too, did not take back: put back at the next look that reaches it."""
        self.undelivered: list[tuple[str, str]] = []
        """Seats made (ticket id, ``seated`` text) whose message Redis, gone, did not carry
        to another process's socket: sent again at the next look that reaches it."""
        self.unended: set[str] = set()
        """Parties seated whose end Redis did not record (else one could still be joined)."""

    def member(self, holder: str, v: int, name: str | None, secret: str | None) -> Member:
        """One person as the queue knows them (their name, profile and conservative rating:
        a guest has the default); :class:`~ligretto.protocol.ProtocolError` for a bad
        version, name or profile."""
        if v != protocol.VERSION:
            raise protocol.ProtocolError("bad_version", f"this server speaks protocol version {protocol.VERSION}")
        rating = DEFAULT.conservative
        profile = None
        if secret is not None:
            found = self.lobby.find_profile(secret)
            if found is None:
                raise protocol.ProtocolError("bad_profile", "no profile has this secret (deleted, or never made here)")
            profile, profile_name = found
            name = name or profile_name
            store = self.lobby.store
            assert store is not None  # profiles are found in a store only
            rating = ratingstore.rating_of(store.db, profile)[0].conservative
        return Member(holder, protocol.check_name(name), profile, rating, self.clock())

    def ticket(self, message: protocol.Queue, holder: str, party: tuple[str, list[Member]] | None = None) -> Ticket:
        """The ticket a ``queue`` message of the socket ``holder`` asks for (``party``: the
        code and members of the party it queues); :class:`~ligretto.protocol.ProtocolError`
        if it cannot wait (a bad version, preset, name or profile; a party too big)."""
        if message.preset not in PRESETS:
            raise protocol.ProtocolError("bad_rules", f"unknown preset {message.preset!r}: one of {', '.join(PRESETS)}")
        members = [self.member(holder, message.v, message.name, message.profile)] if party is None else party[1]
        if len(members) > message.seats:
            raise protocol.ProtocolError("party_too_big", f"a party of {len(members)} needs a table of as many seats")
        people = [Person(m.name, m.profile, m.holder) for m in members]
        rating = sum(m.rating for m in members) / len(members)
        code = None if party is None else party[0]
        return Ticket(holder, self.queue.process, message.seats, message.preset, self.clock(), rating, people, code)

    async def join(self, ticket: Ticket, deliver: Deliver) -> None:
        """The ticket waits from now (its first ``queued`` comes at the next look)."""
        await self.queue.join(ticket, deliver)

    async def leave(self, id: str) -> None:
        """The ticket stops waiting (``unqueue``, or its socket closed)."""
        self.told.pop(id, None)
        await self.queue.leave(id)

    async def tell_party(self, code: str, members: list[Member]) -> None:
        """Every member of the party: who is in it now."""
        text = protocol.wire(protocol.Party(code, [m.name for m in members]))
        for member in members:
            await self.queue.deliver(member.holder, text)

    async def run(self, tick_s: float = TICK_S) -> None:
        """Look at the queue every ``tick_s`` while this process holds tickets, until cancelled."""
        while True:
            await asyncio.sleep(tick_s)
            if self.queue.held() or self.owes:
                try:
                    await self.tick()
                except Exception as error:  # Redis gone for a moment: the next look tries again
                    logs.BACKENDS.log(log, "queue", logging.WARNING, "the matchmaking queue failed: %s", error)

    @property
    def owes(self) -> bool:
        """Whether a seating left work for Redis to finish (``returning``, ``undelivered``, ``unended``)."""
        return bool(self.returning or self.undelivered or self.unended)

    async def tick(self) -> None:
        """One look: what a seating left owing first (while Redis is gone this raises, and
        nothing else is done), then every pool grouped, ready groups seated, waits told."""
        await self._settle()
        metrics.QUEUE_WAITING.set(self.queue.held())
        tickets = await self.queue.waiting()
        now = self.clock()
        pools: dict[tuple[int, str], list[Ticket]] = {}
        for ticket in tickets:
            pools.setdefault(ticket.pool, []).append(ticket)
        by_id = {t.id: t for t in tickets}
        countdown_s = self.lobby.settings.queue_countdown_s
        for (seats, _), pool in pools.items():
            waiting = sum(len(t.people) for t in pool)
            for group in groups([_waiting(t) for t in pool], seats, now, countdown_s):
                if group.ready(now):
                    await self._seat(group, by_id)
                else:
                    self._tell(group, by_id, waiting, now)

    def _tell(self, group: Group, by_id: dict[str, Ticket], waiting: int, now: float) -> None:
        """Each person of the group whose socket is here: the wait, if it changed."""
        for member in group.tickets:
            ticket = by_id[member.id]
            message = protocol.queued_message(*ticket.pool, group.people, waiting, group.starts_at - now)
            for person in ticket.people:
                holder = person.holder or ticket.id
                last = self.told.get(holder)
                told = last is not None and (last.people, last.waiting) == (message.people, message.waiting)
                if holder not in self.queue.holders or told:
                    continue  # elsewhere; or told, and the client counts the countdown down itself
                self.told[holder] = message
                self.queue.hand(holder, protocol.wire(message))

    async def _seat(self, group: Group, by_id: dict[str, Ticket]) -> None:
        """Take the group's tickets and seat them at a new table (another process took
        them first: nothing)."""
        ids = [w.id for w in group.tickets]
        if not await self.queue.take(ids):
            return
        tickets = [by_id[id] for id in ids]
        try:
            handed = await self._table_for(tickets, group)
        except Exception as error:  # Redis gone (a code not reserved): they wait for the next look
            text = "no table for the queue (%s): its tickets wait again"
            logs.BACKENDS.log(log, "queue", logging.WARNING, text, error)
            self.returning.extend(tickets)
            await self._settle()  # Redis gone still: they stay in ``returning``, and the look ends
            return
        self.seated += 1
        metrics.QUEUE_TABLES.inc()
        self.undelivered.extend((id, protocol.wire(message)) for id, message in handed)
        self.unended.update(t.party for t in tickets if t.party is not None)
        for id, _ in handed:
            self.told.pop(id, None)
        await self._settle()

    async def _settle(self) -> None:
        """Finish what seatings left owing, oldest first: tickets back in the queue (but
        not those of sockets here that left meanwhile), seats handed, parties ended.  Each
        is forgotten only once Redis took it: an error here (Redis gone) leaves the rest for
        the next look, and no ticket is lost or seated twice (a ticket goes back only if no
        table was made for it)."""
        here = [(id, text) for id, text in self.undelivered if id in self.queue.holders]
        for id, text in here:  # sockets of this process: no Redis needed
            self.queue.hand(id, text, last=True)
        self.undelivered = [handing for handing in self.undelivered if handing not in here]
        if self.returning:
            mine = self.queue.process
            back = [t for t in self.returning if t.process != mine or t.id in self.queue.holders]
            if back:
                await self.queue.put_back(back)
            self.returning.clear()
        while self.undelivered:
            id, text = self.undelivered[0]
            await self.queue.deliver(id, text, last=True)
            self.undelivered.pop(0)
        for code in sorted(self.unended):
            await self.queue.party_end(code)
            self.unended.discard(code)

    async def _table_for(self, tickets: list[Ticket], group: Group) -> list[tuple[str, protocol.Seated]]:
        """A dealt table for the tickets: each person's seat, as the message for their ticket."""
        seats, preset = tickets[0].pool
        lobby = self.lobby
        code = await lobby.reserve_code()
        table = lobby.create(seats, RuleSet.preset(preset), True, DEFAULT_GRACE_S, rated=True, code=code)
        handed = []
        profiles: set[str] = set()
        for ticket in tickets:
            for person in ticket.people:
                # one profile queued from two devices: the second seat is not linked to it
                profile = None if person.profile in profiles else person.profile
                profiles.add(profile or "")
                index, token = table.seat_away(person.name, profile)
                handed.append((person.holder or ticket.id, protocol.seated_message(code, index, token)))
        people = [t.rating for t in tickets for _ in t.people]
        bot = BotSpec.parse(bot_near(sum(people) / len(people)) or FALLBACK_BOT)
        while table.free_seat() is not None:
            table.seat_bot(bot)
        table.start(table.host)
        if lobby.store is not None:
            lobby.store.commit()  # the seats' tokens are about to be handed out
        log.info("queue: table %s for %d people and %d bots", code, len(people), seats - len(people))
        return handed

    async def stop(self) -> None:
        with contextlib.suppress(Exception):
            await self.queue.stop()


def _waiting(ticket: Ticket) -> Waiting:
    return Waiting(ticket.id, len(ticket.people), ticket.rating, ticket.since)
