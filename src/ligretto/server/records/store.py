"""The database every table is written to as things happen, and restored from: an
SQLite file (the default) or a PostgreSQL database that several server processes share,
chosen by URL (``database.open_database``; the SQL is written once, for both).

Written: each table's settings, seats (with their tokens), phase and score sheet
whenever they change; each round's seed when it is dealt; every action given to
the engine, in order, as it is applied or refused, with the table's clock when it took
effect.  The schema is versioned (``migrations``: a database is brought up to date when
opened, one of a newer version refused).  Writes are collected and
committed together, in one transaction, once per turn of the event loop
(:meth:`Store.commit`, scheduled by the first write of the turn); the
server holds back every message of that turn until the commit is done
(``outbox.Outbox``), so a server killed with SIGKILL loses nothing it had
acknowledged or shown anyone.  An SQLite file runs in WAL mode.  Restoring deals
each unfinished round again from its seed and replays its actions: the engine
is deterministic, so the state is exactly the one that was lost.  The table makes
its records and hands them over as things happen (``server/table/record.py``: a
``TableRecord`` when it changes, a ``DealRecord`` with each deal and action), and is
rebuilt from them (``Table.restore``): the store only receives, writes and reads those
values, and never reads or calls a table.  A store writes only the tables whose records
it was given (``save_table``): with several processes on one database, each writes its
own tables and restores one table by code when it takes it over (:meth:`Store.load_table`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from ligretto.engine.rules import RuleError
from ligretto.server.db.database import CHECKPOINT_S, Database, DatabaseError, open_database
from ligretto.server.db.migrations import migrate
from ligretto.server.db.writer import COMMIT_EVERY_S, Pace, Writer
from ligretto.server.ops import logs, metrics
from ligretto.server.records import history, storewrite
from ligretto.server.records.profiles import Profiles
from ligretto.server.records.sheetstore import SheetStore
from ligretto.server.records.storewrite import Batch
from ligretto.server.records.tournaments import Tournaments
from ligretto.server.table.clock import Scheduler
from ligretto.server.table.record import DealRecord, TableRecord
from ligretto.server.table.table import Table
from ligretto.server.table.timing import COUNTDOWN_S

log = logging.getLogger("ligretto.store")

_encode = msgspec.json.Encoder().encode
"""JSON of an action as the store keeps it (``json.loads`` reads it back)."""


@dataclass(frozen=True, slots=True)
class RoundPlayer:
    """A seat of a stored round: its number, its display name, its bot spec (``None``: a person)."""

    seat: int
    name: str
    bot: str | None


@dataclass(frozen=True, slots=True)
class LoggedAction:
    """One stored action: its place in the round's log, when it took effect (the table's
    clock, seconds; ``None``: stored before times were), whose it was, the action's JSON,
    and when it was ranked (its compensated time, the same clock; ``None``: stored before
    ranks were)."""

    index: int
    at: float | None
    seat: int
    action: dict[str, Any]
    ranked: float | None = None

    @property
    def rank(self) -> float | None:
        """The time races are told by (``engine.races.Landings``): when it was ranked, or
        for an action stored before ranks were, when it took effect."""
        return self.at if self.ranked is None else self.ranked


@dataclass(frozen=True, slots=True)
class RoundLog:
    """One stored round, all a replay needs: the rules (``RuleSet.to_dict``), the players,
    the round's seed (``Round.deal(rules, len(players), seed)`` deals it again) and its
    actions in order, applied or refused, each with its time."""

    code: str
    match: int
    number: int
    rules: dict[str, Any]
    players: tuple[RoundPlayer, ...]
    seed: int
    started: float
    actions: tuple[LoggedAction, ...]


class Store:
    """A table store in one database (``db``: an SQLite file's path, ``sqlite:///…``,
    ``postgresql://…``, or an open :class:`~ligretto.server.db.database.Database`), its
    schema migrated when opened.

    ``save_table``, ``start_round`` and ``record_action`` only collect; :meth:`commit`
    writes what was collected in one transaction.  Inside a running event loop the first
    write schedules the commit for the loop's next turn (on SQLite, at most one every
    ``writer.COMMIT_EVERY_S``); without one (scripts, tests) every write commits at once.
    (An SQLite file's checkpoints are done by a thread of its own: ``database.SqliteDatabase``.)"""

    def __init__(
        self, db: str | Path | Database, checkpoint_s: float = CHECKPOINT_S, commit_every_s: float | None = None
    ) -> None:
        self.db = db if isinstance(db, Database) else open_database(db, checkpoint_s)
        try:
            migrate(self.db)
        except BaseException as error:
            self.db.close()
            if isinstance(error, self.db.errors) and not isinstance(error, DatabaseError):
                raise DatabaseError(f"cannot use {self.db.name}: {error}") from None  # e.g. a read-only file
            raise
        self.db.start()
        self.profiles = Profiles(self.db)
        """The database's profiles (written at once: they come from HTTP requests, not play)."""
        self.sheets = SheetStore(self.db)
        """The score keeper's sheets (written at once, as profiles)."""
        self.tournaments = Tournaments(self.db)
        """The tournaments (written at once, as profiles)."""
        self._records: dict[str, TableRecord] = {}
        """The last record each table handed over since the last commit (its settings,
        seats or phase changed), by code."""
        self._rounds: list[tuple[str, int, int, int, float, str]] = []
        self._matches: list[tuple[history.MatchRow, list[history.PlayerRow]]] = []
        """Matches whose first round was dealt: filed in the history."""
        self._actions: list[tuple[str, int, int, int, str, float, float | None]] = []
        self._commit_due = False
        threaded = self.db.dialect.slow_commits
        self.writer_db = self.db.another() if threaded else self.db
        """The connection commits go through: on PostgreSQL a second one, the writer thread's."""
        self.writer = Writer(self._take, self._commit_batch, self._put_back, threaded=threaded, landed=self._landed)
        self.commit_every_s = (0.0 if threaded else COMMIT_EVERY_S) if commit_every_s is None else commit_every_s
        """Commits at most this often on the loop (``writer.Pace``; a writer's thread batches
        by itself: what comes while it commits goes in its next commit)."""
        self._pace = Pace(self.commit_every_s)
        self.failed_commits = 0
        """Commits failed in a row (the database away): said once it is back."""
        self._on_fenced: Callable[[set[str]], None] | None = None
        self._epochs: dict[str, int] = {}
        """The fencing token held for each table this process took over (``take_over``)."""

    @property
    def checkpoints(self) -> int:
        """Checkpoints of an SQLite file's write-ahead log so far (0 on PostgreSQL)."""
        return self.db.checkpoints

    @property
    def commits(self) -> int:
        """Batches committed so far."""
        return self.writer.commits

    def close(self) -> None:
        self.writer.close()
        if self.writer_db is not self.db:
            self.writer_db.close()
        self.db.close()

    # --- writing ----------------------------------------------------------------------

    def save_table(self, record: TableRecord) -> None:
        """A table as it is now (a later record of it replaces this one until the commit)."""
        self._records[record.code] = record
        self._written()

    def start_round(self, deal: DealRecord, table: TableRecord) -> None:
        """A round was dealt at ``table`` (as it is now: a match's first round files the match)."""
        now = time.time()
        self._rounds.append((deal.code, deal.match, deal.number, deal.seed, now, deal.replay))
        if deal.number == 1:
            self._matches.append(history.match_started(table, now))
        self._written()

    def record_action(
        self, deal: DealRecord, index: int, action: dict[str, Any], at: float, ranked: float | None = None
    ) -> None:
        """The ``index``-th action of the round ``deal``, taken effect at ``at`` and ranked at
        ``ranked`` (its compensated time), on the table's clock."""
        self._actions.append((deal.code, deal.match, deal.number, index, _encode(action).decode(), at, ranked))
        self._written()

    @property
    def pending(self) -> bool:
        """Writes collected and not committed yet."""
        return bool(self._records or self._rounds or self._actions or self._matches)

    def _written(self) -> None:
        if self._commit_due:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.commit()
            return
        self._commit_due = True
        self._pace.call(loop, self._due)

    def _due(self) -> None:
        self._commit_due = False
        self._pace.ran()
        self.writer.written()

    def commit(self) -> None:
        """Write everything collected since the last commit, in one transaction, and return
        once it is written (after a commit in flight on the writer's thread, if any)."""
        self._commit_due = False
        self.writer.commit_now()

    def after_commit(self, waiting: Callable[[], None]) -> None:
        """Run ``waiting`` (on the loop) once everything collected so far is committed: the
        outbox's messages of a turn (``writer.Writer``)."""
        self._commit_due = False
        self._pace.ran()
        self.writer.after_commit(waiting)

    def _take(self) -> Batch | None:
        """What was collected, as one batch for the writer (on the loop); ``None``: nothing."""
        if not self.pending:
            return None
        batch = Batch(list(self._records.values()), self._rounds, self._matches, self._actions, time.time())
        if self._on_fenced is not None:
            batch.epochs = {code: self._epochs.get(code, 0) for code in batch.codes()}
        self._records = {}
        self._rounds, self._matches, self._actions = [], [], []
        return batch

    def _put_back(self, batch: Batch) -> None:
        """A batch that failed goes in front of what was collected since (a table's record
        handed over since replaces the one of the batch)."""
        self._records = {record.code: record for record in batch.records} | self._records
        self._rounds = batch.rounds + self._rounds
        self._matches = batch.matches + self._matches
        self._actions = batch.actions + self._actions

    def _commit_batch(self, batch: Batch) -> bool:
        """Write ``batch`` in one transaction (on the writer's connection and thread);
        ``False``: it failed, and is the writer's to put back."""
        db = self.writer_db
        # On PostgreSQL, one action and nothing else (a quiet turn): one statement, its own
        # transaction, which spares the round trips of BEGIN and COMMIT.  Otherwise the write
        # lock is taken first: several processes may share an SQLite file (and a checkpoint
        # starting its log again is waited for: ``SqliteDatabase.checkpoint``).
        quiet = len(batch.actions) == 1 and not (batch.records or batch.rounds or batch.matches or batch.epochs)
        alone = quiet and db.dialect.slow_commits
        try:
            with contextlib.nullcontext() if alone else db.transaction(immediate=True):
                if batch.epochs:
                    batch.fenced = storewrite.fenced(db, batch.epochs)
                storewrite.write(db, batch.without(batch.fenced) if batch.fenced else batch)
        except db.errors as error:
            # Kept for the next commit (every write is idempotent); the game goes on in memory.
            # A lost database fails every commit: a line now and then, not a traceback each.
            self.failed_commits += 1
            metrics.UNWRITTEN.set(self.failed_commits)  # (before the count: a scrape that sees one sees the other)
            metrics.BACKEND_ERRORS.labels("database").inc()
            text = "could not write to %s (%s): kept for the next commit"
            logs.BACKENDS.log(log, "database", logging.ERROR, text, db.name, error)
            return False
        if self.failed_commits:
            log.warning("writing to %s again: %d commits had failed meanwhile", db.name, self.failed_commits)
            self.failed_commits = 0
            metrics.UNWRITTEN.set(0)
        metrics.COMMITS.inc()  # (after the 0: a scrape that sees this commit sees it)
        return True

    def _landed(self, batch: Batch) -> None:
        """A batch is committed (on the loop, before its messages go): tables it found taken
        over are the directory's to let go, their messages not sent."""
        if batch.fenced:
            metrics.FENCED.inc(len(batch.fenced))
            log.warning("tables taken over by another process, not written: %s", ", ".join(sorted(batch.fenced)))
            for code in batch.fenced:
                self._epochs.pop(code, None)
            if self._on_fenced is not None:
                self._on_fenced(batch.fenced)

    # --- fencing (several processes) --------------------------------------------------

    def fence_with(self, on_fenced: Callable[[set[str]], None]) -> None:
        """Write a table only while this process holds its fencing token (a process of a
        service: ``cluster/``); ``on_fenced`` gets the tables found taken over, on the loop."""
        self._on_fenced = on_fenced

    def take_over(self, code: str) -> int:
        """Bump the fencing token of ``code`` (taking it over from another process, before
        :meth:`load_table`): from now on that process's writes of it are refused.  Waits for
        a commit of it in flight elsewhere, so the restore sees everything it wrote."""
        with self.db.transaction(immediate=True):
            found = self.db.execute("UPDATE tables SET epoch = epoch + 1 WHERE code = ? RETURNING epoch", (code,))
            row = found.fetchone()
        epoch = 0 if row is None else int(row[0])
        self._epochs[code] = epoch
        return epoch

    # --- restoring --------------------------------------------------------------------

    def load_tables(self, countdown_s: float = COUNTDOWN_S, scheduler: Scheduler | None = None) -> list[Table]:
        """Every table in the database that was not dropped, rebuilt by ``Table.restore`` from
        its record and the actions of its current round (the one process of a server that
        owns every table: with several, each takes its tables by :meth:`load_table`), on
        ``scheduler`` (default: the running loop's)."""
        rows = self.db.execute("SELECT code, config FROM tables ORDER BY updated").fetchall()
        restored = (self._restore(TableRecord.from_json(code, config), countdown_s, scheduler) for code, config in rows)
        return [table for table in restored if table is not None]

    def load_table(self, code: str, countdown_s: float = COUNTDOWN_S) -> Table | None:
        """The table ``code`` rebuilt from the database as :meth:`load_tables` does (its
        record and its round's actions as last committed, by whichever process wrote
        them); ``None``: no such table, or it was dropped."""
        record = self.table_record(code)
        return None if record is None else self._restore(record, countdown_s)

    def _restore(self, record: TableRecord, countdown_s: float, scheduler: Scheduler | None = None) -> Table | None:
        if record.dropped:
            return None
        code = record.code
        actions = self._actions_of(code, record.matches_played, record.round)
        token = self._share_of(code, record.matches_played, record.round)
        try:
            return Table.restore(
                record, actions, store=self, countdown_s=countdown_s, scheduler=scheduler, replay_token=token
            )
        except RuleError as error:  # stored before a rule got its bounds (rounds:10^20)
            log.warning("table %s not restored: its rules are no longer allowed (%s)", code, error)
            return None

    def table_codes(self) -> list[str]:
        """The codes of every table in the database that was not dropped (the ones to restore)."""
        rows = self.db.execute("SELECT code, config FROM tables").fetchall()
        return [code for code, config in rows if not TableRecord.from_json(code, config).dropped]

    def round_log(self, code: str, match: int, number: int) -> RoundLog | None:
        """One stored round (``None``: no such round): its rules, players, seed and every
        action with the time it took effect (the table's clock, ``None`` if stored before
        times were).  The rules and players are the match's (``matches``), or for a match
        recorded before history was, the table's now."""
        found = self.db.execute(
            "SELECT seed, started FROM rounds WHERE code = ? AND match = ? AND number = ?", (code, match, number)
        ).fetchone()
        if found is None:
            return None
        seed, started = found
        rules, players = self._match_setting(code, match)
        rows = self.db.execute(
            "SELECT idx, at, ranked, action FROM actions WHERE code = ? AND match = ? AND round = ? ORDER BY idx",
            (code, match, number),
        )
        actions = tuple(
            LoggedAction(index, at, action["player"], action, ranked)
            for index, at, ranked, action in ((i, at, ranked, json.loads(text)) for i, at, ranked, text in rows)
        )
        return RoundLog(code, match, number, rules, players, seed, started, actions)

    def round_of_token(self, token: str) -> tuple[str, int, int] | None:
        """The round (table code, match, number) whose share token is ``token``, if any."""
        found = self.db.execute("SELECT code, match, number FROM rounds WHERE share = ?", (token,)).fetchone()
        return None if found is None else (found[0], found[1], found[2])

    def table_record(self, code: str) -> TableRecord | None:
        """The stored record of the table ``code`` (``None``: none)."""
        found = self.db.execute("SELECT config FROM tables WHERE code = ?", (code,)).fetchone()
        return None if found is None else TableRecord.from_json(code, found[0])

    def _share_of(self, code: str, match: int, number: int) -> str | None:
        found = self.db.execute(
            "SELECT share FROM rounds WHERE code = ? AND match = ? AND number = ?", (code, match, number)
        ).fetchone()
        return None if found is None else found[0]

    def _match_setting(self, code: str, match: int) -> tuple[dict[str, Any], tuple[RoundPlayer, ...]]:
        found = self.db.execute("SELECT rules FROM matches WHERE code = ? AND match = ?", (code, match)).fetchone()
        if found is not None:
            rows = self.db.execute(
                "SELECT seat, name, bot FROM match_players WHERE code = ? AND match = ? ORDER BY seat", (code, match)
            )
            return json.loads(found[0]), tuple(RoundPlayer(seat, name, bot) for seat, name, bot in rows)
        (config,) = self.db.execute("SELECT config FROM tables WHERE code = ?", (code,)).fetchone()
        record = TableRecord.from_json(code, config)
        seats = [(i, s) for i, s in enumerate(record.seats) if s is not None]
        return record.rules, tuple(RoundPlayer(i, s.name, s.bot) for i, s in seats)

    def _actions_of(self, code: str, match: int, number: int) -> list[dict[str, Any]]:
        """The actions of one round, in order."""
        rows = self.db.execute(
            "SELECT action FROM actions WHERE code = ? AND match = ? AND round = ? ORDER BY idx",
            (code, match, number),
        )
        return [json.loads(action) for (action,) in rows]


SqliteStore = Store
"""The store's name before PostgreSQL (``SqliteStore(path)`` opens an SQLite file, as ever)."""
