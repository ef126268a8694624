"""The store's connection to its database: an SQLite file or a PostgreSQL server, chosen by
URL (:func:`open_database`), behind one small interface (:class:`Database`).

Every module of the store writes its SQL once, in the part both databases speak: ``?``
placeholders (translated to psycopg's ``%s`` here), ``INSERT ... ON CONFLICT ... DO
NOTHING`` / ``DO UPDATE SET x = excluded.x`` (SQLite 3.24 and later, PostgreSQL), plain
joins, ``LIMIT ... OFFSET``.  What truly differs lives here, both forms side by side,
in each database's :class:`Dialect` and in the two classes' few methods: the column types
of the schema (PostgreSQL's ``REAL`` is 4 bytes, its ``INTEGER`` too: they become
``DOUBLE PRECISION`` and ``BIGINT``; text compares byte by byte on both, ``COLLATE "C"``),
random bytes in SQL, where the schema's version is kept (SQLite's ``PRAGMA
user_version``, PostgreSQL's one-row table ``ligretto_schema``), the write-ahead log and
its checkpoints (SQLite), and a lock several processes take before a read-modify-write
(PostgreSQL's advisory locks; SQLite has one writer anyway).

Both connections run in autocommit mode: a statement outside :meth:`Database.transaction`
is committed by itself.

Durability: an SQLite file in WAL mode with ``synchronous=NORMAL`` keeps every commit
through a crash of the server's process, not always through one of its machine.
PostgreSQL by default waits at each commit for its log to reach the disk (through a crash
of anything); ``postgresql://…?options=-c%20synchronous_commit%3Doff`` gives it SQLite's
bargain (a crash of the ``ligretto serve`` process loses nothing, one of PostgreSQL or its
machine the last fraction of a second), for a quarter of the wait (docs/benchmarks.md,
"PostgreSQL store").
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import sqlite3
import threading
import time
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ligretto.server.ops.logs import without_password

if TYPE_CHECKING:
    import psycopg

__all__ = [
    "CHECKPOINT_S",
    "Database",
    "DatabaseError",
    "Dialect",
    "PostgresDatabase",
    "Rows",
    "SqliteDatabase",
    "is_postgres",
    "open_database",
    "sqlite_file",
]

log = logging.getLogger("ligretto.store")

CHECKPOINT_S = 2.0
"""Seconds between two checkpoints of an SQLite file (the write-ahead log copied into it)."""

RESTART_FRAMES = 65_536
"""A write-ahead log of more pages than this (256 MiB of 4 KiB pages) is started again at
the next checkpoint (``SqliteDatabase.checkpoint``), which holds the writer for a few
milliseconds: under steady commits that is every 15 s or so at 1,000 tables, so few acks
wait on it."""

RESTART_WAIT_S = 0.05
"""How long a checkpoint waits, at most, for the writer's transaction (and readers) to end
before it starts the write-ahead log again; busy longer, it tries at the next one."""

POSTGRES_SCHEMES = ("postgresql", "postgres")
CONNECT_TIMEOUT_S = 5
"""Seconds to wait for a PostgreSQL server to accept a connection."""
RECONNECT_S = 1.0
"""Seconds between two attempts to connect again to a PostgreSQL server that was lost."""


class Rows(Protocol):
    """What a statement gives back (an ``sqlite3`` or a psycopg cursor)."""

    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


@dataclass(frozen=True, slots=True)
class Dialect:
    """How one database spells the few things the other spells differently."""

    name: str
    """``sqlite`` or ``postgresql``."""
    types: dict[str, str] = field(default_factory=dict)
    """A column type of the schema as written (SQLite's) → this database's."""
    words: dict[str, str] = field(default_factory=dict)
    """The schema's ``{name}`` fields: SQL expressions this database spells its own way."""
    for_share: str = ""
    """What a ``SELECT`` ends with to lock the rows it read against writers until the end
    of the transaction (PostgreSQL's ``FOR SHARE``; SQLite's writers take the whole file)."""
    slow_commits: bool = False
    """A commit waits for a server (PostgreSQL's, ~0.7 ms): the store commits on a thread
    of its own, with a connection of its own (:meth:`Database.another`; ``writer``)."""

    def schema(self, statement: str) -> str:
        """A schema statement (``migrations``) as this database reads it."""
        statement = statement.format_map(self.words) if "{" in statement else statement
        if not self.types:
            return statement
        pattern = r"\b(" + "|".join(self.types) + r")\b"
        return re.sub(pattern, lambda found: self.types[found.group(1)], statement)


SQLITE = Dialect("sqlite", words={"random_hex_16": "lower(hex(randomblob(16)))"})
POSTGRESQL = Dialect(
    "postgresql",
    types={"REAL": "DOUBLE PRECISION", "INTEGER": "BIGINT", "TEXT": 'TEXT COLLATE "C"', "BLOB": "BYTEA"},
    # 128 bits as 32 hex digits, as SQLite's: the MD5 of a random UUID (122 random bits).
    words={"random_hex_16": "md5(gen_random_uuid()::text)"},
    for_share=" FOR SHARE",
    slow_commits=True,
)


class DatabaseError(Exception):
    """The database could not be opened (a bad URL, no such server, no such directory, a
    file that is no database or may not be written)."""


class Database:
    """One connection to the store's database (used from one thread: the event loop's, or
    the store's writer's: :meth:`another`)."""

    dialect: Dialect
    errors: tuple[type[Exception], ...]
    """What a failing statement raises."""
    name: str
    """The database as a log line may name it (a PostgreSQL URL without its password)."""

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Rows:
        raise NotImplementedError

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        raise NotImplementedError

    def transaction(self, *, immediate: bool = False) -> contextlib.AbstractContextManager[None]:
        """``with db.transaction():`` the statements inside commit together, or not at all
        (rolled back on an exception, which goes on).  ``immediate``: take the write lock
        first (SQLite's ``BEGIN IMMEDIATE``; PostgreSQL locks rows as it writes)."""
        raise NotImplementedError

    def start(self) -> None:
        """Once the schema is migrated: start what runs beside the connection (SQLite's
        checkpoints)."""

    def lock(self, what: str) -> None:
        """Inside a transaction: wait until no other process holds ``what`` (till the end of
        the transaction), for a read-modify-write that several processes may do at once."""

    def version(self) -> int:
        """The schema's version (``migrations``): 0 for a database never migrated."""
        raise NotImplementedError

    def set_version(self, number: int) -> None:
        """Inside the transaction of migration step ``number``."""
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def another(self) -> Database:
        """A second connection to the same database, for another thread (the store's writer
        on a database of ``slow_commits``, the readiness probe)."""
        raise NotImplementedError

    def ping(self) -> None:
        """A query that needs the database to answer (the readiness probe: ``DatabaseError``
        or the driver's error if it does not)."""
        self.execute("SELECT 1").fetchone()

    @property
    def checkpoints(self) -> int:
        """Checkpoints done by the store's own thread (SQLite's write-ahead log)."""
        return 0


# --- SQLite ------------------------------------------------------------------------------


class SqliteDatabase(Database):
    """One SQLite file, in WAL mode, created on first use.

    A commit only appends to the write-ahead log; copying the log into the database file
    (a checkpoint, with an fsync) takes 10-20 ms, and SQLite would do it inside every
    thousandth commit, on the event loop.  A thread of its own does it instead, every
    ``checkpoint_s`` seconds, with its own connection (SQLite lets go of the GIL meanwhile):
    :meth:`checkpoint`."""

    dialect = SQLITE
    errors = (sqlite3.Error,)

    def __init__(self, path: str | Path, checkpoint_s: float = CHECKPOINT_S) -> None:
        self.path = Path(path)
        self.name = str(self.path)
        folder = self.path.parent
        if not folder.is_dir():
            raise DatabaseError(f"cannot open {self.name}: no such directory {str(folder)!r}")
        # A store writes at every commit (and its write-ahead log beside the file): a file or
        # a folder this process may not write to is refused now, not at the first commit.
        if not os.access(folder, os.W_OK) or (self.path.exists() and not os.access(self.path, os.R_OK | os.W_OK)):
            raise DatabaseError(f"cannot open {self.name}: not allowed to write to it")
        self.db = self._open()
        """The connection (autocommit: ``isolation_level=None``)."""
        self._checkpoint_s = checkpoint_s
        self._checkpoints = 0
        self._restarting = threading.Lock()
        """Held by :meth:`checkpoint` while it starts the log again with the writer held: this
        process's transactions wait on it rather than in SQLite's busy handler, whose sleeps
        (1, 2, 5, 10 ms, ...) outlast a restart's few milliseconds."""
        self._closing = threading.Event()
        self._checkpointer: threading.Thread | None = None

    def _open(self) -> sqlite3.Connection:
        """The connection in WAL mode; a file that is no database, or that this process may
        not read or write, is a :class:`DatabaseError` saying so in one line."""
        db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("PRAGMA wal_autocheckpoint=0")
        except sqlite3.Error as error:
            db.close()
            raise DatabaseError(f"cannot open {self.name}: {error}") from None
        return db

    def another(self) -> SqliteDatabase:
        return SqliteDatabase(self.path, self._checkpoint_s)  # its checkpoints stay the first's

    def start(self) -> None:
        """Start the checkpoints' thread (once the schema is migrated)."""
        self._checkpointer = threading.Thread(target=self._checkpoint_every, name="ligretto-checkpoint", daemon=True)
        self._checkpointer.start()

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Rows:
        return self.db.execute(sql, params)

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        self.db.executemany(sql, rows)

    @contextlib.contextmanager
    def transaction(self, *, immediate: bool = False) -> Iterator[None]:
        with self._restarting:
            self.db.execute("BEGIN IMMEDIATE" if immediate else "BEGIN")
        try:
            yield
        except BaseException:
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def version(self) -> int:
        (version,) = self.db.execute("PRAGMA user_version").fetchone()
        return int(version)

    def set_version(self, number: int) -> None:
        self.db.execute(f"PRAGMA user_version = {int(number):d}")

    @property
    def checkpoints(self) -> int:
        return self._checkpoints

    def checkpoints_connection(self, wait_s: float = RESTART_WAIT_S) -> sqlite3.Connection:
        """A connection of its own for :meth:`checkpoint` (waiting at most ``wait_s`` for
        the writer)."""
        return sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=wait_s)

    def checkpoint(self, connection: sqlite3.Connection, restart_frames: int = RESTART_FRAMES) -> bool:
        """Copy the write-ahead log into the file alongside the writer (``PASSIVE``); if it
        holds more than ``restart_frames`` pages, copy what the writer added meanwhile with
        the writer held, and start the log again from its beginning (``RESTART``).  A
        passive checkpoint alone never finds the whole log copied under steady commits (one
        every 5 ms), so the log was never started again and grew without end: 500 MB in 40 s
        at 1,000 tables (issue 31).  A restart holds the writer for its copy and its fsyncs,
        hence only past ``restart_frames``; and before it, without the writer held, the file
        is synced (a passive checkpoint that does not copy the whole log leaves what it
        copied unsynced: the restart's own fsync took all of it, up to 24 ms) and what came
        meanwhile is copied passively again, so a restart holds the writer 1-5 ms at 1,000
        tables.  ``False``: no restart was due, or the writer or a reader held on for longer
        than :data:`RESTART_WAIT_S` (tried again at the next checkpoint)."""
        (_busy, frames, _copied) = connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        if frames <= restart_frames:
            return False
        synced = os.open(self.path, os.O_RDONLY)
        try:
            os.fsync(synced)
        finally:
            os.close(synced)
        connection.execute("PRAGMA wal_checkpoint(PASSIVE)")  # what came meanwhile, still without the writer
        with self._restarting:
            (busy, _frames, _copied) = connection.execute("PRAGMA wal_checkpoint(RESTART)").fetchone()
        return not busy

    def _checkpoint_every(self) -> None:
        connection = self.checkpoints_connection()
        try:
            while not self._closing.wait(self._checkpoint_s):
                try:
                    self.checkpoint(connection)
                except sqlite3.Error:
                    log.exception("checkpoint of %s failed: tried again later", self.path)
                    continue
                self._checkpoints += 1
        finally:
            connection.close()

    def close(self) -> None:
        self._closing.set()
        if self._checkpointer is not None:
            self._checkpointer.join()
            self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self.db.close()


# --- PostgreSQL --------------------------------------------------------------------------


@lru_cache(maxsize=512)
def _pyformat(sql: str) -> str:
    """``?`` placeholders as psycopg's ``%s`` (a literal ``%`` doubled).  The store's SQL
    has no ``?`` inside a string literal."""
    return sql.replace("%", "%%").replace("?", "%s")


def _lock_key(what: str) -> int:
    """A lock's name as PostgreSQL's advisory lock key (a signed 64-bit number)."""
    return zlib.crc32(f"ligretto:{what}".encode()) - 2**31


class PostgresDatabase(Database):
    """A PostgreSQL database (psycopg 3, synchronous), by URL.  Its schema must be this
    ligretto's (``migrations``), which several processes may share: the version table is
    locked while one migrates.  A connection the server dropped (a restart of PostgreSQL)
    is opened again on the next statement; what failed is the caller's to retry (the store
    keeps a failed commit's writes for the next)."""

    dialect = POSTGRESQL

    def __init__(self, url: str, clock: Callable[[], float] = time.monotonic) -> None:
        # The driver is loaded by a PostgreSQL store only: an SQLite server starts without
        # its tenth of a second of imports.
        import psycopg  # noqa: PLC0415

        self.errors = (psycopg.Error, DatabaseError)
        self.url = url
        self.name = without_password(url)
        self.clock = clock
        self._retry_at = 0.0
        self.db = self._connect()

    def _connect(self) -> psycopg.Connection[tuple[Any, ...]]:
        # A server that does not answer must not hold the event loop for minutes.
        url = self.url
        if "connect_timeout" not in url:
            url += ("&" if "?" in url else "?") + f"connect_timeout={CONNECT_TIMEOUT_S}"
        import psycopg  # noqa: PLC0415

        try:
            return psycopg.connect(url, autocommit=True)
        except psycopg.Error as error:
            raise DatabaseError(f"could not connect to {self.name}: {error}") from None

    def _live(self) -> psycopg.Connection[tuple[Any, ...]]:
        """The connection, opened again if it was lost; while the server cannot be reached,
        tried at most every :data:`RECONNECT_S` seconds (in between, ``DatabaseError`` at once)."""
        if self.db.closed:
            if self.clock() < self._retry_at:
                raise DatabaseError(f"the connection to {self.name} is lost: tried again shortly")
            log.warning("the connection to %s was lost: connecting again", self.name)
            self._retry_at = self.clock() + RECONNECT_S
            self.db = self._connect()
        return self.db

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Rows:
        db = self._live()
        if not params:
            return db.execute(sql)
        return db.execute(_pyformat(sql), params)

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if len(rows) == 1:  # the usual commit of a quiet turn: psycopg's pipeline costs more than it saves
            self._live().execute(_pyformat(sql), rows[0])
            return
        with self._live().cursor() as cursor:
            cursor.executemany(_pyformat(sql), rows)

    @contextlib.contextmanager
    def transaction(self, *, immediate: bool = False) -> Iterator[None]:
        with self._live().transaction():
            yield

    def lock(self, what: str) -> None:
        self.db.execute("SELECT pg_advisory_xact_lock(%s)", (_lock_key(what),))

    def version(self) -> int:
        (table,) = self.execute("SELECT to_regclass('ligretto_schema')").fetchone()
        if table is None:
            return 0
        found = self.execute("SELECT version FROM ligretto_schema").fetchone()
        return 0 if found is None else int(found[0])

    def set_version(self, number: int) -> None:
        self.execute("CREATE TABLE IF NOT EXISTS ligretto_schema (version BIGINT NOT NULL)")
        self.execute("DELETE FROM ligretto_schema")
        self.execute("INSERT INTO ligretto_schema (version) VALUES (?)", (number,))

    def close(self) -> None:
        self.db.close()

    def another(self) -> PostgresDatabase:
        return PostgresDatabase(self.url, self.clock)


def is_postgres(url: str | Path) -> bool:
    return isinstance(url, str) and url.split(":", 1)[0].lower() in POSTGRES_SCHEMES and "://" in url


def open_database(url: str | Path, checkpoint_s: float = CHECKPOINT_S) -> Database:
    """The store's database: ``postgresql://…`` (or ``postgres://``) a PostgreSQL server, a
    path or ``sqlite:///path`` an SQLite file (created on first use)."""
    if is_postgres(url):
        return PostgresDatabase(str(url))
    return SqliteDatabase(sqlite_file(url), checkpoint_s)


def sqlite_file(url: str | Path) -> str:
    """The file of a path or an ``sqlite:///`` URL; :class:`DatabaseError` for a URL that
    names no database (``ligretto serve --db`` checks it before the server starts)."""
    text = str(url)
    if text.startswith("sqlite://"):
        text = text.removeprefix("sqlite://").removeprefix("/")
        if not text:
            raise DatabaseError("an sqlite:/// URL names a file: sqlite:///ligretto.db, sqlite:////abs/path.db")
    elif "://" in text:
        raise DatabaseError(f"a database is a file, sqlite:///FILE or postgresql://…, not {without_password(text)!r}")
    return text
