"""The tables of one server: :class:`Settings` (``ligretto serve``'s options) and
:class:`Lobby` (every table by invite code, the store they write to, the sweep of
abandoned tables)."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any

from ligretto import protocol
from ligretto.engine.races import Fairness
from ligretto.engine.rules import RuleSet
from ligretto.protocol import HELLO_S, LOBBY_TABLES, SILENCE_S
from ligretto.server import limits, metrics
from ligretto.server.admission import ConnectionCount, TableQuota
from ligretto.server.clock import Scheduler
from ligretto.server.cluster.directory import Directory
from ligretto.server.heap import COLLECTOR
from ligretto.server.outbox import Outbox
from ligretto.server.profiles import ProfileError
from ligretto.server.replayaccess import Replays
from ligretto.server.table import Phase, Table, new_code
from ligretto.server.timing import ABANDONED_S, CATCH_UP_S, COUNTDOWN_S, DESERTED_S
from ligretto.server.tutorial import TutorialTable

log = logging.getLogger("ligretto.server")


@dataclass(slots=True)
class Settings:
    """Server settings (``ligretto serve`` options)."""

    host: str = "127.0.0.1"
    port: int = 8000
    db: str = "ligretto.db"
    countdown_s: float = COUNTDOWN_S
    rate_per_s: float = 20.0
    """Sustained messages per second a connection may send."""
    burst: int = 40
    """Messages a connection may send at once before the rate applies."""
    cool_down_s: float = 2.0
    """Seconds a ``hello`` with a seat's token is held after the rate limit closed a
    connection of that seat: the time the burst takes to come back at ``rate_per_s``."""
    abandoned_s: float = ABANDONED_S
    """Seconds after which a table in its lobby or with its match over, whose seated people
    are all away, is closed and dropped (spectators do not count)."""
    deserted_s: float = DESERTED_S
    """Seconds after which a table with a match on, or with no person in any seat, that no
    seated person is connected to is closed and dropped (its match abandoned)."""
    catch_up_s: float = CATCH_UP_S
    """After a restart, the longest a restored round waits for its people before its fresh
    countdown (``Table.resume``)."""
    silence_s: float = SILENCE_S
    """Seconds without any message from a client after which its connection counts as gone
    (within a quarter of it more, at most 1 s): it is closed (code 4002) and its seat is
    away, as for a closed socket (clients ping)."""
    # --- admission control (docs/protocol.md, Limits; server/limits.py); 0: no limit ---
    hello_s: float = HELLO_S
    """Seconds after it opens by which a ``/ws`` connection must have joined a table
    (``hello``), else it is closed (code 4003)."""
    max_connections: int = limits.MAX_CONNECTIONS
    """Open WebSockets (``/ws`` and ``/ws/lobby``) in all; one more is refused (503)."""
    connections_per_address: int = limits.CONNECTIONS_PER_ADDRESS
    """Open WebSockets from one client address; one more is refused (429)."""
    tables_per_minute: int = limits.TABLES_PER_MINUTE
    """Tables (and tutorials) one client address may create in any 60 seconds (429)."""
    lobby_tables: int = LOBBY_TABLES
    """Tables in a lobby list at most (``GET /api/tables``, ``/ws/lobby``)."""
    request_timeout_s: float = limits.REQUEST_TIMEOUT_S
    """Seconds an HTTP request may take to arrive whole (line, headers, body), counted from
    the connection's opening or the previous response (``server/httpdeadline.py``)."""
    max_header_bytes: int = limits.MAX_HEADER_BYTES
    """Bytes of an HTTP request line and headers at most (400 beyond)."""
    keep_alive_s: int = limits.KEEP_ALIVE_S
    """Seconds an idle HTTP keep-alive connection stays open (uvicorn's ``timeout_keep_alive``)."""
    # --- several processes as one service (docs/deploy.md) ---
    redis: str | None = None
    """``redis://HOST:PORT/N``: this process is one of a service sharing that Redis
    (``server/cluster/``); ``None``: one process on its own, today's server."""
    advertise: str | None = None
    """The address the service's other processes reach this one at (default
    ``http://HOST:PORT`` of ``host`` and ``port``)."""
    forwarded_allow_ips: str = "127.0.0.1"
    """The peers (a reverse proxy, the service's other processes) whose ``X-Forwarded-For``
    names the client (uvicorn's ``forwarded_allow_ips``): the address limits count it."""


class Lobby:
    """Every table of this server, by invite code, and the store they write to."""

    def __init__(
        self,
        settings: Settings,
        store: Any | None = None,
        scheduler: Scheduler | None = None,
        directory: Directory | None = None,
    ) -> None:
        """``scheduler`` runs the timers of every table (default: each its own on the event
        loop); ``directory`` says which process of the service owns which table (default:
        this one owns them all)."""
        self.settings = settings
        self.store = store
        self.scheduler = scheduler
        self.directory = directory or Directory()
        self.tables: dict[str, Table] = {}
        self.outbox = Outbox(None if store is None else store.after_commit)
        self.connections = ConnectionCount(settings.connections_per_address, settings.max_connections)
        self.quota = TableQuota(settings.tables_per_minute)
        self.profile_quota = TableQuota(settings.tables_per_minute, what="profiles")
        """New profiles from one address: as many a minute as tables."""

    def find_profile(self, secret: str) -> tuple[str, str] | None:
        """The id and name of the profile of ``secret`` (``hello.profile``); ``None``: no
        such profile, or no store to keep profiles in."""
        profiles = getattr(self.store, "profiles", None)
        if profiles is None:
            return None
        try:
            profile = profiles.by_secret(secret)
        except ProfileError:
            return None
        return profile.id, profile.name

    def _free_code(self) -> str:
        """An invite code no table of this lobby has."""
        code = new_code()
        while code in self.tables:
            code = new_code()
        return code

    async def reserve_code(self, stored: bool = True) -> str:
        """A new table's invite code, taken for this process in the directory (no other
        process of the service has it); ``stored``: not a tutorial."""
        code = self._free_code()
        while not await self.directory.reserve(code, stored):
            code = self._free_code()
        return code

    def create(
        self,
        seats: int,
        rules: RuleSet,
        public: bool,
        grace_s: float,
        fairness: Fairness | None = None,
        *,
        rated: bool | None = None,
        replays: Replays = Replays.LINK,
        code: str | None = None,
    ) -> Table:
        """A new table (``code``: the one :meth:`reserve_code` gave; default a free one)."""
        code = code or self._free_code()
        table = Table(
            code,
            seats=seats,
            rules=rules,
            public=public,
            grace_s=grace_s,
            fairness=fairness,
            rated=rated,
            replays=replays,
            store=self.store,
            countdown_s=self.settings.countdown_s,
            scheduler=self.scheduler,
        )
        self.tables[code] = table
        if self.store is not None:
            self.store.save_table(table)
            self.store.commit()  # its code is about to be handed out
        metrics.OPEN_TABLES.set(len(self.tables))
        return table

    def create_tutorial(self, name: str, code: str | None = None) -> TutorialTable:
        """A private tutorial table (docs/protocol.md ``POST /api/tutorial``): not stored."""
        code = code or self._free_code()
        table = TutorialTable(code, name, countdown_s=self.settings.countdown_s, scheduler=self.scheduler)
        self.tables[code] = table
        metrics.OPEN_TABLES.set(len(self.tables))
        return table

    def public_tables(self) -> list[protocol.TableSummary]:
        """The lobby list's tables (:meth:`public_listing`)."""
        return self.public_listing().tables

    def public_listing(self) -> protocol.TableList:
        """The public tables that are open, at most ``Settings.lobby_tables`` of them:
        those still waiting for players (in their lobby, with a free seat) first, the
        newest first in each group; and how many there are in all."""
        public = [t for t in self.tables.values() if t.public and not t.closed]
        newest_first = public[::-1]  # tables are kept in the order they were made
        newest_first.sort(key=lambda t: not (t.phase is Phase.LOBBY and t.free_seat() is not None))
        return self.directory.listing(newest_first, self.settings.lobby_tables)  # with the other processes'

    def sweep(self) -> list[str]:
        """Close and drop the abandoned tables (``Table.abandoned``, in any phase: a match
        with no person connected is abandoned); the store keeps them as dropped, and why,
        so a restart does not bring them back.  Returns their codes."""
        gone = []
        for table in list(self.tables.values()):
            because = table.abandoned(self.settings.abandoned_s, self.settings.deserted_s)
            if because is None:
                continue
            table.drop(because)
            gone.append(table)
            del self.tables[table.code]
            if self.store is not None and table.store is self.store:
                self.store.save_table(table)
        if gone:
            COLLECTOR.release(len(gone))
            metrics.OPEN_TABLES.set(len(self.tables))
            log.info("closed %d abandoned tables", len(gone))
        return [table.code for table in gone]

    async def sweep_forever(self) -> None:
        period = min(60.0, self.settings.abandoned_s / 4, self.settings.deserted_s / 4)
        while True:
            await asyncio.sleep(period)
            self.sweep()


def count_players(lobby: Lobby) -> None:
    """Set the connected-players gauge (walks every seat: counted when /metrics is read)."""
    metrics.CONNECTED_PLAYERS.set(
        sum(1 for t in lobby.tables.values() for s in t.seats if s is not None and s.human and s.connected)
    )
