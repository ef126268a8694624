"""Tournaments of duplicate deals in the store (``tournaments``, ``tournament_entrants``,
``tournament_tables``; schema step 14 of ``migrations``): the one place of their SQL.

What is stored: the settings and seed, the entrants in the order they joined, and each
stage's tables (their codes, the entrant in each seat as paired, and each table's rounds'
scores per seat once its match is over).  The standings follow from those
(``ligretto.tournament.restore``, :meth:`StoredTournament.model`: no pairing again, which
at 256 entrants would cost the event loop most of a second), so a restarted server finds
a tournament as it was.  Each stage table is a real table whose first match is
filed in the history as any other: a person's history shows it, and
:meth:`Tournaments.of_code` names the tournament it belonged to.

Writes happen at once, each in a transaction of its own (they come from HTTP requests
and from the end of a stage table's match, not from play).
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ligretto.server.db.database import Database
from ligretto.server.records.profiles import secret_hash
from ligretto.tournament import MAX_ENTRANTS, Pairing, Stage, Tournament, restore

__all__ = ["StoredEntrant", "StoredTable", "StoredTournament", "TournamentRefusal", "Tournaments"]


class TournamentRefusal(Exception):
    """A tournament request refused: an error code (docs/protocol.md), a message, a status."""

    def __init__(self, code: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status


NO_TOURNAMENT = ("no_tournament", "there is no tournament with that id", 404)


@dataclass(frozen=True, slots=True)
class StoredEntrant:
    """An entrant: its number (the order of joining), display name, profile id or ``None``,
    bot spec or ``None`` (a person)."""

    entrant: int
    name: str
    profile: str | None
    bot: str | None


@dataclass(frozen=True, slots=True)
class StoredTable:
    """A stage's table: its code, the entrant in each seat (``None``: a bye's bot) and,
    once its match is over, each round's scores per seat."""

    stage: int
    number: int
    code: str
    seats: tuple[int | None, ...]
    rounds: tuple[tuple[int, ...], ...] | None


@dataclass(frozen=True, slots=True)
class StoredTournament:
    id: str
    name: str
    rules: dict[str, Any]
    table_size: int
    stages: int
    pairing: Pairing
    seed: int
    created: float
    started: float | None
    ended: float | None
    entrants: tuple[StoredEntrant, ...]
    tables: tuple[StoredTable, ...]

    def model(self) -> Tournament:
        """The tournament's stages as paired and its results so far: its standings."""
        stages = sorted({table.stage for table in self.tables})
        played = [[t.seats for t in self.tables if t.stage == stage] for stage in stages]
        results = {(t.stage, t.number): t.rounds for t in self.tables if t.rounds is not None}
        return restore(
            len(self.entrants),
            self.table_size,
            self.stages,
            self.seed,
            played=played,
            results=results,
            pairing=self.pairing,
        )


class Tournaments:
    """The tournaments of one database (its schema migrated); ``clock``: wall clock seconds."""

    def __init__(self, db: Database, clock: Callable[[], float] = time.time) -> None:
        self.db = db
        self.clock = clock

    # --- writing ----------------------------------------------------------------------

    def create(
        self,
        name: str,
        rules: dict[str, Any],
        table_size: int,
        stages: int,
        *,
        seed: int,
        pairing: Pairing = Pairing.SWISS,
    ) -> tuple[str, str]:
        """A new tournament (checked by ``Tournament`` once it has entrants): its id and
        the host's secret (given once: only its hash is kept)."""
        Tournament(MAX_ENTRANTS, table_size, stages, seed)  # table size and stages checked now
        ident, secret = secrets.token_urlsafe(9), secrets.token_urlsafe(32)
        with self.db.transaction(immediate=True):
            self.db.execute(
                "INSERT INTO tournaments (id, name, host, rules, table_size, stages, pairing, seed, created) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    ident,
                    name,
                    secret_hash(secret),
                    json.dumps(rules),
                    table_size,
                    stages,
                    str(pairing),
                    seed,
                    self.clock(),
                ),
            )
        return ident, secret

    def join(self, ident: str, name: str, profile: str | None = None, bot: str | None = None) -> tuple[int, str | None]:
        """A new entrant (before the start): its number and, for a person, its secret
        (which asks for the person's seat at each stage)."""
        secret = None if bot is not None else secrets.token_urlsafe(24)
        with self.db.transaction(immediate=True):
            self.db.lock(f"tournament:{ident}")
            row = self.db.execute("SELECT started FROM tournaments WHERE id = ?", (ident,)).fetchone()
            if row is None:
                raise TournamentRefusal(*NO_TOURNAMENT)
            if row[0] is not None:
                raise TournamentRefusal("started", "the tournament has started: you can watch its tables", 409)
            count, known = self.db.execute(
                "SELECT COUNT(*), SUM(CASE WHEN profile = ? THEN 1 ELSE 0 END) FROM tournament_entrants "
                "WHERE tournament = ?",
                (profile, ident),
            ).fetchone()
            if count >= MAX_ENTRANTS:
                raise TournamentRefusal("full", f"a tournament has at most {MAX_ENTRANTS} entrants", 409)
            if profile is not None and known:
                raise TournamentRefusal("profile_entered", "this profile has entered this tournament already", 409)
            self.db.execute(
                "INSERT INTO tournament_entrants (tournament, entrant, name, profile, bot, secret) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (ident, count, name, profile, bot, None if secret is None else secret_hash(secret)),
            )
        return count, secret

    def start(self, ident: str, host_secret: str) -> None:
        """The host starts the tournament (no one joins after): at least two entrants."""
        with self.db.transaction(immediate=True):
            self.db.lock(f"tournament:{ident}")
            row = self.db.execute("SELECT host, started FROM tournaments WHERE id = ?", (ident,)).fetchone()
            if row is None:
                raise TournamentRefusal(*NO_TOURNAMENT)
            if not secrets.compare_digest(row[0], secret_hash(host_secret)):
                raise TournamentRefusal("not_host", "only the host may start the tournament", 403)
            if row[1] is not None:
                raise TournamentRefusal("started", "the tournament has started already", 409)
            (count,) = self.db.execute(
                "SELECT COUNT(*) FROM tournament_entrants WHERE tournament = ?", (ident,)
            ).fetchone()
            if count < 2:
                raise TournamentRefusal("too_few", "a tournament needs at least 2 entrants", 409)
            self.db.execute("UPDATE tournaments SET started = ? WHERE id = ?", (self.clock(), ident))

    def add_stage(self, ident: str, stage: Stage, codes: Sequence[str]) -> bool:
        """The tables of ``stage`` as paired, in order (table ``n`` is ``codes[n - 1]``).
        ``False``: that stage was paired already (by another process of the service):
        nothing changes."""
        with self.db.transaction(immediate=True):
            self.db.lock(f"tournament:{ident}")
            found = self.db.execute(
                "SELECT 1 FROM tournament_tables WHERE tournament = ? AND stage = ?", (ident, stage.number)
            ).fetchone()
            if found is not None:
                return False
            self.db.executemany(
                "INSERT INTO tournament_tables (tournament, stage, number, code, seats) VALUES (?, ?, ?, ?, ?)",
                [
                    (ident, stage.number, table.number, code, json.dumps(list(table.seats)))
                    for table, code in zip(stage.tables, codes, strict=True)
                ],
            )
        return True

    def record(self, ident: str, stage: int, number: int, rounds: Sequence[Sequence[int]]) -> bool:
        """A stage table's match is over: its rounds' scores per seat.  ``False``: recorded
        already (nothing changes)."""
        with self.db.transaction(immediate=True):
            cursor = self.db.execute(
                "UPDATE tournament_tables SET rounds = ? WHERE tournament = ? AND stage = ? AND number = ? "
                "AND rounds IS NULL",
                (json.dumps([list(line) for line in rounds]), ident, stage, number),
            )
        return cursor.rowcount == 1

    def end(self, ident: str) -> None:
        """The last stage is over: so is the tournament."""
        with self.db.transaction(immediate=True):
            self.db.execute("UPDATE tournaments SET ended = ? WHERE id = ? AND ended IS NULL", (self.clock(), ident))

    # --- reading ----------------------------------------------------------------------

    def get(self, ident: str) -> StoredTournament:
        """The tournament ``ident`` as stored (``TournamentRefusal`` ``no_tournament`` else)."""
        row = self.db.execute(
            "SELECT id, name, rules, table_size, stages, pairing, seed, created, started, ended FROM tournaments "
            "WHERE id = ?",
            (ident,),
        ).fetchone()
        if row is None:
            raise TournamentRefusal(*NO_TOURNAMENT)
        entrants = tuple(
            StoredEntrant(*line)
            for line in self.db.execute(
                "SELECT entrant, name, profile, bot FROM tournament_entrants WHERE tournament = ? ORDER BY entrant",
                (ident,),
            )
        )
        tables = tuple(
            StoredTable(
                stage,
                number,
                code,
                tuple(json.loads(seats)),
                None if rounds is None else tuple(map(tuple, json.loads(rounds))),
            )
            for stage, number, code, seats, rounds in self.db.execute(
                "SELECT stage, number, code, seats, rounds FROM tournament_tables WHERE tournament = ? "
                "ORDER BY stage, number",
                (ident,),
            )
        )
        ident, name, rules, size, stages, pairing, seed, created, started, ended = row
        return StoredTournament(
            ident,
            name,
            json.loads(rules),
            size,
            stages,
            Pairing(pairing),
            seed,
            created,
            started,
            ended,
            entrants,
            tables,
        )

    def entrant_of(self, ident: str, secret: str) -> int | None:
        """The entrant whose secret this is (``None``: none of this tournament's)."""
        row = self.db.execute(
            "SELECT entrant FROM tournament_entrants WHERE tournament = ? AND secret = ?", (ident, secret_hash(secret))
        ).fetchone()
        return None if row is None else int(row[0])

    def of_code(self, code: str) -> tuple[str, int, int] | None:
        """The tournament, stage and table number of the table ``code`` (``None``: not a stage table)."""
        row = self.db.execute(
            "SELECT tournament, stage, number FROM tournament_tables WHERE code = ?", (code,)
        ).fetchone()
        return None if row is None else (row[0], int(row[1]), int(row[2]))

    def unpaired(self) -> list[str]:
        """The tournaments started and not over with no table still playing: the stage
        being played is all in (or none is paired yet), the next is to be paired, or the
        tournament ended (one query: a director looks at every renewal, ``Director.oversee``)."""
        return [
            row[0]
            for row in self.db.execute(
                "SELECT id FROM tournaments WHERE started IS NOT NULL AND ended IS NULL AND NOT EXISTS "
                "(SELECT 1 FROM tournament_tables WHERE tournament = tournaments.id AND rounds IS NULL)"
            )
        ]

    def running(self) -> list[str]:
        """The tournaments started and not over (carried on after a restart)."""
        return [
            row[0] for row in self.db.execute("SELECT id FROM tournaments WHERE started IS NOT NULL AND ended IS NULL")
        ]
