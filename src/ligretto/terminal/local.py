"""Local play: a server ``Table`` in this process, with the person as an in-process listener.

The bots are the server's bots, run by the same table code at their levels in real
time, and the person's messages take the same path as over a WebSocket (validated by
``ligretto.protocol``, carried out by the server's own ``server.dispatch``, so every
command works as it does on a server); only the socket is missing.  Nothing is stored
(``NoStore``).
"""

from __future__ import annotations

from typing import Any

from ligretto import protocol
from ligretto.bots.spec import BotSpec
from ligretto.engine.rules import RuleSet
from ligretto.protocol import ProtocolError
from ligretto.server import dispatch
from ligretto.server.latency import Latency
from ligretto.server.table import NoStore, Table, TableError
from ligretto.server.timing import COUNTDOWN_S
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
    ) -> None:
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
        )
        self.start_match = start_match
        """``False``: seat everyone but leave the start to the caller (tests seat more people first)."""
        self.person: Person | None = None
        self.description = "local match"

    def start(self, deliver: Deliver) -> None:
        """Seat the person and the bots, and start the match (needs the running loop)."""
        self.person = Person(deliver)
        self.table.join(self.person, self.name)
        self.person.table = self.table
        for spec in self.bots:
            self.table.add_bot(self.person.seat, str(spec))
        if self.start_match:
            self.table.start(self.person.seat)

    def send(self, message: dict[str, Any]) -> None:
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
        self.table.close()
