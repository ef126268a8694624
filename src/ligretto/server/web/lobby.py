"""The tables of one server: :class:`Lobby` (every table by invite code, the store they
write to, the sweep of abandoned tables, the live list ``/ws/lobby`` streams); its
settings are ``settings.py``'s."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

import msgspec

from ligretto import protocol
from ligretto.engine.races import Fairness
from ligretto.engine.rules import RuleSet
from ligretto.protocol import Phase
from ligretto.server.cluster.directory import Directory
from ligretto.server.ops import metrics
from ligretto.server.ops.heap import COLLECTOR
from ligretto.server.records.profiles import ProfileError
from ligretto.server.table.clock import LoopScheduler, Scheduler
from ligretto.server.table.replayaccess import Replays
from ligretto.server.table.table import Table, new_code
from ligretto.server.table.timing import READY_S
from ligretto.server.web.admission import ConnectionCount, Cooling, TableQuota
from ligretto.server.web.listing import LiveListing
from ligretto.server.web.outbox import Outbox
from ligretto.server.web.settings import Settings
from ligretto.server.web.silence import Watch

log = logging.getLogger("ligretto.server")


class Lobby:
    """Every table of this server, by invite code, and the store they write to."""

    def __init__(
        self,
        settings: Settings,
        store: Any | None = None,
        scheduler: Scheduler | None = None,
        directory: Directory | None = None,
    ) -> None:
        """``scheduler`` runs the timers of every table and of the live list (default: the
        event loop's); ``directory`` says which process of the service owns which table (default:
        this one owns them all)."""
        self.settings = settings
        self.store = store
        self.scheduler = scheduler
        self.directory = directory or Directory()
        self.tables: dict[str, Table] = {}
        self.outbox = Outbox() if store is None else Outbox(store.after_commit, store.commit_every_s)
        self.silences = Watch(settings)
        """The silence and hello deadlines of every ``/ws`` connection (``silence.py``)."""
        self.connections = ConnectionCount(settings.connections_per_address, settings.max_connections)
        self.lobby_cooling = Cooling(settings.cool_down_s)
        """The addresses of ``/ws/lobby`` flooders, kept out for ``cool_down_s``."""
        self.quota = TableQuota(settings.tables_per_minute)
        self.profile_quota = TableQuota(settings.tables_per_minute, what="profiles")
        """New profiles from one address: as many a minute as tables."""
        self.kept: set[str] = set()
        """Codes of tables the sweep leaves alone: a tournament's, while their match is on
        (bots alone may play it)."""
        self.taken_over: Callable[[Table], None] = lambda table: None
        """Told of each table this process takes over from another (``failover.adopt``):
        the director names a stage table's tournament again and carries its stage on."""
        self.live_list = LiveListing(self.lobby_message, scheduler or LoopScheduler())
        """The list of public tables every ``/ws/lobby`` socket is sent (``listing.py``)."""

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
        ready_s: float = READY_S,
        code: str | None = None,
        match_seeds: Callable[[int], int] | None = None,
    ) -> Table:
        """A new table (``code``: the one :meth:`reserve_code` gave; default a free one;
        ``match_seeds``: its matches' seeds, by default random)."""
        code = code or self._free_code()
        table = Table(
            code,
            seats=seats,
            rules=rules,
            public=public,
            grace_s=grace_s,
            ready_s=ready_s,
            fairness=fairness,
            rated=rated,
            replays=replays,
            store=self.store,
            countdown_s=self.settings.countdown_s,
            scheduler=self.scheduler,
            match_seeds=match_seeds,
        )
        self.tables[code] = table
        if self.store is not None:
            self.store.save_table(table.record())
            self.store.commit()  # its code is about to be handed out
        metrics.OPEN_TABLES.set(len(self.tables))
        return table

    def create_tutorial(self, name: str, code: str | None = None) -> Table:
        """A private tutorial table (docs/protocol.md ``POST /api/tutorial``, ``Table.tutorial``):
        not stored."""
        code = code or self._free_code()
        table = Table.tutorial(code, name, countdown_s=self.settings.countdown_s, scheduler=self.scheduler)
        self.tables[code] = table
        metrics.OPEN_TABLES.set(len(self.tables))
        return table

    def public_tables(self) -> list[protocol.TableSummary]:
        """The lobby list's tables (:meth:`public_listing`)."""
        return self.public_listing().tables

    def public_listing(self) -> protocol.TableList:
        """The public tables that are open, at most ``Settings.lobby_tables`` of them:
        those still waiting for players (in their lobby, with a free seat) first, the
        newest first in each group; and how many there are in all.  A tournament's stage
        tables are not among them: the tournaments being played are listed once each."""
        metrics.LOBBY_LISTINGS.inc()
        public = [t for t in self.tables.values() if t.listed]
        newest_first = public[::-1]  # tables are kept in the order they were made
        newest_first.sort(key=lambda t: not (t.phase is Phase.LOBBY and t.free_seat() is not None))
        listing = self.directory.listing(newest_first, self.settings.lobby_tables)  # with the other processes'
        return msgspec.structs.replace(listing, tournaments=self.directory.tournaments(self.tournaments_played()))

    def tournaments_played(self) -> list[protocol.LobbyTournament]:
        """The tournaments this process's stage tables play (newest first), once each, at
        the latest stage it has tables of; one whose last stage is over is not listed."""
        stages: dict[str, tuple[protocol.TableTournament, list[Table]]] = {}
        for table in self.tables.values():
            tag = table.tournament
            if tag is None or table.closed:
                continue
            latest = stages.get(tag.id)
            if latest is None or latest[0].stage < tag.stage:
                stages[tag.id] = (tag, [table])
            elif latest[0].stage == tag.stage:
                latest[1].append(table)
        return [
            protocol.LobbyTournament(tag.id, tag.name, tag.stage, tag.stages, len(tables))
            for tag, tables in reversed(stages.values())
            if tag.stage < tag.stages or any(table.phase is not Phase.OVER for table in tables)
        ]

    def people(self) -> protocol.Now:
        """Who is playing now, in the whole service (``GET /api/now``)."""
        return self.directory.people(self)

    def lobby_message(self) -> protocol.LobbyTables:
        """What every ``/ws/lobby`` socket is sent: the public tables and who is playing now."""
        return protocol.lobby_message(self.public_listing(), self.people())

    def sweep(self) -> list[str]:
        """Close and drop the abandoned tables (``Table.abandoned``, in any phase: a match
        with no person connected is abandoned); the store keeps them as dropped, and why,
        so a restart does not bring them back.  Returns their codes."""
        gone = []
        for table in list(self.tables.values()):
            because = table.abandoned(self.settings.abandoned_s, self.settings.deserted_s)
            if because is None or table.code in self.kept:
                continue
            table.drop(because)
            gone.append(table)
            del self.tables[table.code]
            if self.store is not None and table.store is self.store:
                self.store.save_table(table.record())
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
