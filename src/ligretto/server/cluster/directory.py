"""The directory of tables: which process of the service owns which table.

:class:`Directory` is one process on its own, today's behaviour: every table it knows is
its own, restored from its store on start, listed from its own tables, nothing to route.
``redisdirectory.RedisDirectory`` is the same interface for several processes sharing a
Redis (``ligretto serve --redis``).  The lobby, the HTTP API and the WebSocket endpoint
talk to a table's owner only through this interface, so the single-process path has no
cluster checks of its own."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from starlette.requests import Request
from starlette.responses import Response

from ligretto import protocol
from ligretto.server.cluster.queue import Queue
from ligretto.server.ops import metrics

if TYPE_CHECKING:
    from ligretto.server.table.table import Table


class Lobby(Protocol):
    """What a directory reads of the lobby (``server/web/lobby.py``, which holds the directory:
    named here without importing it)."""

    tables: dict[str, Table]
    store: Any
    settings: Any
    connections: Any
    scheduler: Any
    """The tables' scheduler (``None``: the running loop's)."""
    taken_over: Callable[[Table], None]
    """Told of each table this process takes over from another (the director's)."""

    def tournaments_played(self) -> list[protocol.LobbyTournament]:
        """The tournaments this process's stage tables play, once each."""
        ...


class SheetWatchers(Protocol):
    """The live streams of the score keeper's sheets in this process (``server/web/sheets.py``'s ``LiveSheets``),
    as the changes other processes make reach them."""

    def hear(self, code: str, version: int, body: bytes) -> None:
        """Another process wrote the sheet ``code``: ``body`` is it at ``version``."""

    def resync(self) -> None:
        """Changes may have been missed (the channel was lost): each watched sheet as stored."""


class Unavailable(Exception):
    """The table is the service's but its owner cannot be reached right now (it died and
    its lease has not expired yet): the client is to try again in a moment."""


class Directory:
    """One process, all its tables its own (no ``--redis``)."""

    process: str | None = None
    """This process's id in the service (``None``: a single process)."""
    address: str | None = None
    """The address other processes reach this one at (``None``: a single process)."""

    async def start(self, lobby: Lobby) -> None:
        """Restore every unfinished table of the store (they are all this process's)."""
        if lobby.store is not None:
            for table in lobby.store.load_tables(countdown_s=lobby.settings.countdown_s, scheduler=lobby.scheduler):
                lobby.tables[table.code] = table
                table.resume(lobby.settings.catch_up_s)
            metrics.OPEN_TABLES.set(len(lobby.tables))

    async def ready(self) -> str | None:
        """What the readiness probe says of the directory's backend: ``None``, none (one
        process); ``"ok"``; or what is wrong."""
        return None

    def drain(self) -> None:
        """The process was told to stop and finishes its connections: it takes no more
        tables (its own are handed over once it stops, :meth:`stop`)."""

    def leave(self) -> None:
        """The process is shutting down: take no more tables."""

    async def stop(self) -> None:
        """After the store is closed: nothing to hand over."""

    async def reserve(self, code: str, stored: bool) -> bool:
        """Take a new table's code for this process; ``False``: another process has it.
        (``stored``: the table is restored after a failure; a tutorial is not.)"""
        return True

    async def lead(self, tournament: str) -> bool:
        """Whether this process directs ``tournament`` (pairs its stages): one process
        directs them all."""
        return True

    async def route(self, raw: str, relayed: bool) -> str | None:
        """Where a message of a connection that has not joined a table goes: ``None`` here,
        else the WebSocket URL of the process that owns the table its ``hello`` names."""
        return None

    async def forward(self, request: Request, code: str) -> Response | None:
        """The owner's answer to a request about table ``code`` that is not here (``None``:
        no other process has it either); ``Unavailable`` while it is being taken over."""
        return None

    async def place(self, request: Request) -> Response | None:
        """A new table made by the least-loaded process: its answer, or ``None``: here
        (:class:`Unavailable`: the service cannot place one now; the client tries again)."""
        return None

    queue: Queue | None = None
    """The matchmaking queue this directory made (:meth:`make_queue`)."""

    def make_queue(self) -> Queue:
        """The matchmaking queue: this process's own, in memory."""
        self.queue = Queue()
        return self.queue

    def people(self, lobby: Lobby) -> protocol.Now:
        """Who is playing now: this process's people (one process)."""
        return own_people(lobby, self.queue)

    def tournaments(self, own: list[protocol.LobbyTournament]) -> list[protocol.LobbyTournament]:
        """The tournaments the lobby lists: this process's (``own``: one process)."""
        return own

    def keep_sheets(self, sheets: SheetWatchers) -> None:
        """Where the other processes' changes of sheets go: nowhere here (one process; its
        sheets' watchers are told by the process itself)."""

    def sheet_changed(self, code: str, version: int, body: bytes) -> None:
        """This process wrote a change of the sheet ``code`` (``body``: the sheet at
        ``version``, told to its own watchers already): nobody else to tell here."""

    def listing(self, tables: list[Table], cap: int) -> protocol.TableList:
        """The lobby list from this process's public tables, in the order shown
        (``cap``: at most so many; 0: all)."""
        shown = tables[:cap] if cap else tables
        return protocol.TableList([t.summary() for t in shown], len(tables))


def own_people(lobby: Lobby, queue: Queue | None) -> protocol.Now:
    """This process's people now: its open WebSockets, the tickets its queue sockets hold,
    the seated and the watching connections of its tables."""
    playing = watching = 0
    for table in lobby.tables.values():
        for listener in table.listeners:
            if listener.seat is None:
                watching += 1
            else:
                playing += 1
    queued = 0 if queue is None else queue.held()
    return protocol.Now(lobby.connections.count, queued, playing, watching)


def added(counts: list[protocol.Now]) -> protocol.Now:
    """Several processes' people, added up."""
    return protocol.Now(
        sum(c.online for c in counts),
        sum(c.queued for c in counts),
        sum(c.playing for c in counts),
        sum(c.watching for c in counts),
    )
