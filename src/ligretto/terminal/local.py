"""Local play: a server ``Table`` in this process, with the person as an in-process listener.

The bots are the server's bots, run by the same table code at their levels in real
time, and the person's messages take the same path as over a WebSocket (validated by
``ligretto.protocol``, carried out by the server's own ``server.dispatch``, so every
command works as it does on a server); only the socket is missing.  The person's client
pings and stamps its actions like a remote one (``clocksync``: the same clock sync, its
pings on the table's scheduler), so its plays are judged like anyone's, with next to no
delay.  Nothing is stored (``NoStore``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from ligretto import protocol
from ligretto.bots.spec import BotSpec
from ligretto.client.clocksync import ClockSync, ping_gap
from ligretto.client.session import Session
from ligretto.engine.races import Fairness
from ligretto.engine.rules import RuleSet
from ligretto.protocol import ProtocolError
from ligretto.server.table import dispatch
from ligretto.server.table.latency import Latency
from ligretto.server.table.table import NoStore, Table, TableError
from ligretto.server.table.timing import COUNTDOWN_S
from ligretto.terminal.transport import Deliver

LOCAL_CODE = "local"


class Person:
    """The person at the keyboard, as the table's listener (a ``dispatch.Client``)."""

    def __init__(self, deliver: Deliver) -> None:
        self.seat: int | None = None
        self.table: Table | None = None
        self.reactions = protocol.ReactionLimit()
        self.latency = Latency()
        """At the table itself: the clock sync measures no delay worth the name."""
        self.deliver = deliver

    def send(self, message: protocol.Outgoing) -> None:
        """A table's message, as the client would read it from the wire."""
        self.deliver(protocol.as_dict(message))

    def detach(self) -> None:
        pass


class LocalGame:
    """A local match: the person at seat 0 (the host), bots at the other seats."""

    def __init__(
        self,
        rules: RuleSet,
        bots: list[BotSpec],
        *,
        name: str = "You",
        seed: int | None = None,
        countdown_s: float = COUNTDOWN_S,
        table: Table | None = None,
        start_match: bool = True,
        fairness: Fairness | None = None,
        now: Callable[[], float] = time.time,
    ) -> None:
        """``fairness``: how the new table judges races (``ligretto play --arbitration``);
        ``now``: the person's local clock (the clock sync's, which tests give)."""
        self.rules = rules
        self.bots = bots
        self.name = name
        self.table = table or Table(
            LOCAL_CODE,
            seats=len(bots) + 1,
            rules=rules,
            store=NoStore(),
            countdown_s=countdown_s,
            match_seeds=None if seed is None else lambda number: seed + number - 1,
            fairness=fairness,
        )
        self.start_match = start_match
        """``False``: seat everyone but leave the start to the caller (tests seat more people first)."""
        self.person: Person | None = None
        self.description = "local match"
        self.site: str | None = None
        """No server, no pages to link (nor replays: nothing is stored)."""
        self.session = Session(LOCAL_CODE, name=name)
        """The person's session (the app's model feeds it); the table seats the person
        itself, without a ``hello``."""
        self.now = now
        self.clock = ClockSync()
        self.pings = 0
        """Pings sent so far."""
        self._cancel_ping: Callable[[], None] | None = None

    def start(self, deliver: Deliver, clock: ClockSync | None = None) -> None:
        """Seat the person and the bots, start pinging and the match (needs the running
        loop, or the table's virtual scheduler)."""
        if clock is not None:
            self.clock = clock
        self.person = Person(deliver)
        self.table.join(self.person, self.name)
        self.person.table = self.table
        for spec in self.bots:
            self.table.add_bot(self.person.seat, str(spec))
        self._ping_in(0.0)
        if self.start_match:
            self.table.start(self.person.seat)

    def _ping(self) -> None:
        """A ping, as the clock sync makes it now, and the next one on the table's scheduler."""
        if self.table.closed:
            return
        self._dispatch(self.clock.ping(self.now()))
        self.pings += 1
        self._ping_in(ping_gap(self.pings))

    def _ping_in(self, seconds: float) -> None:
        timer = self.table.scheduler.call_later(seconds, self._ping)
        self._cancel_ping = None if timer is None else timer.cancel

    def send(self, message: dict[str, Any]) -> None:
        """One message from the app, stamped as it leaves (an act's ``t``)."""
        self._dispatch(self.clock.stamped(message, self.now()))

    def _dispatch(self, message: dict[str, Any]) -> None:
        """Handle one client message as the server would, answering errors to the person."""
        person = self.person
        if person is None:
            return
        ident = message.get("id")
        try:
            dispatch.dispatch(person, protocol.decode(protocol.encode(message)))
        except (ProtocolError, TableError) as error:
            person.send(protocol.error_message(error.code, error.message, ident))

    async def close(self) -> None:
        if self._cancel_ping is not None:
            self._cancel_ping()
        self.table.close()
