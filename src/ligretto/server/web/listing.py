"""The live list of public tables that ``/ws/lobby`` streams, made once for every socket.

:class:`LiveListing` lists the tables and who is playing (``Lobby.lobby_message``) every :data:`PERIOD_S`
while anyone watches; only when the list changed does it encode the ``lobby`` message,
once, and hand the same text to every :class:`Viewer`.  A socket that opens is given the
list as it is then, alone: the others hear of the change it made (one more online) at the
next tick, so a thousand sockets opening cost a thousand first lists and a broadcast a
tick, not a broadcast each.  An idle lobby sends nothing, and a thousand open lobby
sockets cost one listing a tick, not a thousand.  Time is its scheduler's
(``server/table/clock.py``), so tests run it in virtual time.

A :class:`Viewer` writes at once (as ``/ws``'s ``Connection`` does, ``start_eagerly``).
If its client is slow to read, only the newest list waits behind the send (each list
replaces the last: one text at most, never a queue), and a send still stuck after
``stall_s`` closes the socket (``on_stall``)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Protocol

from ligretto import protocol
from ligretto.server.table.clock import Scheduler, Timer
from ligretto.server.web.outbox import start_eagerly

PERIOD_S = 0.5
"""How often the tables are listed while a lobby socket is open."""


class Sink(Protocol):
    """Where a viewer's texts go: a Starlette ``WebSocket``."""

    async def send_text(self, data: str) -> None: ...


class Viewer:
    """One ``/ws/lobby`` socket's way out: the newest list, written at once or after the
    one its client is still taking."""

    def __init__(self, sink: Sink, scheduler: Scheduler, stall_s: float, on_stall: Callable[[], object]) -> None:
        self.sink = sink
        self.scheduler = scheduler
        self.stall_s = stall_s
        self.on_stall = on_stall
        """Called once if a send is stuck for ``stall_s`` (the socket is to be closed)."""
        self.pending: str | None = None
        """The newest text, waiting behind a send the client is slow to take."""
        self.sender: asyncio.Task[None] | None = None
        """The send the client is slow to take, while there is one."""
        self.stall: Timer | None = None
        """The stall deadline of ``sender`` (set with it, dropped with it)."""
        self.closed = False
        self.shown: protocol.LobbyTables | None = None
        """The list it was last given (``LiveListing``'s, compared by identity)."""

    def write(self, text: str) -> None:
        """Send ``text`` now, or (a send is under way) keep it as the next one, in place
        of any text that was waiting."""
        if self.closed:
            return
        if self.sender is not None:
            self.pending = text
            return
        try:
            rest = start_eagerly(self.sink.send_text(text))
        except Exception:  # the client is gone: its reading loop ends the socket
            self.closed = True
            return
        if rest is not None:  # stuck from now if it is not done in stall_s
            self.stall = self.scheduler.call_later(self.stall_s, self._stalled)
            self.sender = rest
            rest.add_done_callback(self._sent)

    def _sent(self, send: asyncio.Task[None]) -> None:
        """A send the client was slow to take is done: the newest text waiting goes next."""
        if send is not self.sender:
            return
        self._forget_send()
        if send.cancelled() or send.exception() is not None:
            self.closed = True  # as in write
            return
        text, self.pending = self.pending, None
        if text is not None:
            self.write(text)

    def _forget_send(self) -> asyncio.Task[None] | None:
        """Drop the send under way (returned) with its stall deadline."""
        sender, stall = self.sender, self.stall
        self.sender = self.stall = None
        if stall is not None:
            stall.cancel()
        return sender

    def _stalled(self) -> None:
        self.stall = None
        if self.closed:
            return
        self.close()
        self.on_stall()

    def close(self) -> None:
        """Send nothing more (the socket is closing)."""
        self.closed = True
        self.pending = None
        sender = self._forget_send()
        if sender is not None:
            sender.cancel()


class LiveListing:
    """The lobby list for every open ``/ws/lobby`` socket."""

    def __init__(
        self, listing: Callable[[], protocol.LobbyTables], scheduler: Scheduler, period_s: float = PERIOD_S
    ) -> None:
        """``listing``: the ``lobby`` message as it is now (``Lobby.lobby_message``: the list and who is playing)."""
        self.listing = listing
        self.scheduler = scheduler
        self.period_s = period_s
        self.viewers: dict[Viewer, None] = {}
        """The open sockets, in the order they opened."""
        self.last: protocol.LobbyTables | None = None
        self.text = ""
        """``last`` as the ``lobby`` message, encoded once for every viewer."""
        self.behind = False
        """The list changed as a socket opened: the others are given it at the next tick."""
        self.looks = 0
        """How many times the tables were listed (what the tests and docs/reliability.md count)."""
        self.ticking: Timer | None = None

    def add(self, viewer: Viewer) -> None:
        """A socket opened: it gets the list as it is now (the others, at the next tick)."""
        self.viewers[viewer] = None
        self.looks += 1
        self._listed(self.listing())
        self._give(viewer)
        if self.ticking is None:
            self.ticking = self.scheduler.call_later(self.period_s, self._tick)

    def remove(self, viewer: Viewer) -> None:
        """A socket closed; with none left, nothing is listed until one opens."""
        self.viewers.pop(viewer, None)
        viewer.close()
        if not self.viewers and self.ticking is not None:
            self.ticking.cancel()
            self.ticking = None
            self.last = None

    def _tick(self) -> None:
        self.ticking = None
        if not self.viewers:
            return
        self._look()
        self.ticking = self.scheduler.call_later(self.period_s, self._tick)

    def _look(self) -> bool:
        """List the tables; if the list changed (here, or as a socket opened), give it to
        every viewer that has an older one.  Whether any was given it."""
        self.looks += 1
        if not self._listed(self.listing()) and not self.behind:
            return False
        self.behind = False
        for viewer in list(self.viewers):
            self._give(viewer)
        return True

    def _listed(self, listing: protocol.LobbyTables) -> bool:
        """The list as it is now kept (and encoded once) if it changed; whether it did."""
        if listing == self.last:
            return False
        self.last = listing
        self.text = protocol.wire(listing)
        self.behind = True  # some viewers have an older one
        return True

    def _give(self, viewer: Viewer) -> None:
        if viewer.shown is not self.last:
            viewer.shown = self.last
            viewer.write(self.text)
