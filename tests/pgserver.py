"""The tests' PostgreSQL (and the store's benchmark's): ``ligretto.testkit.pgserver``'s
throwaway server, with Debian's ``postgresql`` installed with apt-get when ``initdb`` is
missing (as Chromium is for the browser tests).

Each test gets a fresh database of its own (:meth:`PgServer.new_database`); the fixture
``postgres`` (``tests/conftest.py``) uses ONE server per test session, shared by every
pytest-xdist worker (:func:`shared_server`): the session's folder is made by the
controller (:func:`session_folder`, its path handed to the workers in the environment),
the first worker that needs the server takes the folder's lock, initdb's and starts it
and writes its port there, the others find the port and connect; the controller stops it
at the very end (:func:`stop_shared`), after every worker has finished.  A server that
cannot be installed or started fails the test that needed it, with its log.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import psycopg

from debianpackages import ensure_installed
from ligretto.testkit import pgserver, programs


@dataclass(frozen=True, slots=True)
class StoreDatabase:
    """Where one test's store keeps its data: ``url`` for ``Store(url)`` / ``--db``."""

    kind: str
    """``sqlite`` or ``postgresql``."""
    url: str
    raw: Callable[[], bytes]
    """Every byte the database keeps on disk (the SQLite file and its log; PostgreSQL's files)."""


def ensure_postgres() -> Path:
    """The directory of Debian's PostgreSQL programs, installed first if missing."""
    ensure_installed("postgresql", lambda: programs.postgres_bin() is not None)
    return programs.needed(programs.postgres_bin(), "initdb", "postgresql")


SHARED = "LIGRETTO_TEST_POSTGRES"
"""The environment variable naming the folder of the session's shared server."""


class PgServer(pgserver.PgServer):
    """The kit's server, installed first if need be; and every byte it keeps on disk."""

    def start(self) -> PgServer:
        ensure_postgres()
        super().start()
        return self

    def raw_bytes(self) -> bytes:
        """Every byte the server keeps on disk (tables and write-ahead log), after a
        checkpoint: what a reader of its files would find."""
        with psycopg.connect(self.url("postgres"), autocommit=True) as admin:
            admin.execute("CHECKPOINT")
        return b"".join(_read(path) for path in sorted(self.data.rglob("*")) if path.is_file())


def _read(path: Path) -> bytes:
    """The bytes of one of the server's files (none: it went meanwhile, another worker's
    temporary file)."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return b""


def session_folder() -> Path:
    """The controller's part (``pytest_configure``): the folder of this session's shared
    server, named to the workers by the environment (they inherit it)."""
    folder = Path(tempfile.mkdtemp(prefix="ligretto-pg-session-"))
    folder.chmod(0o755)  # the ``postgres`` user reaches its cluster inside
    os.environ[SHARED] = str(folder)
    return folder


def shared_server(*settings: str) -> PgServer:
    """The session's one server: started by the first process that asks (under the
    folder's lock), found by the others through its port file."""
    folder = Path(os.environ[SHARED])
    with (folder / "lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        port_file = folder / "port"
        if port_file.exists():
            return PgServer(*settings, folder=folder / "server", port=int(port_file.read_text()))
        shutil.rmtree(folder / "server", ignore_errors=True)  # a start that failed before
        (folder / "server").mkdir()
        server = PgServer(*settings, folder=folder / "server").start()
        port_file.write_text(str(server.port))
        return server


def stop_shared(folder: Path) -> None:
    """The controller's part (``pytest_unconfigure``): stop the session's server if a
    worker started it, and remove the folder."""
    port_file = folder / "port"
    if port_file.exists():
        PgServer(folder=folder / "server", port=int(port_file.read_text())).stop()
    shutil.rmtree(folder, ignore_errors=True)
