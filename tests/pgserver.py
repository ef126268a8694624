"""A throwaway PostgreSQL server for the tests (and the store's benchmark): Debian's
``postgresql`` (installed with apt-get when ``initdb`` is missing, as Chromium is for the
browser tests), a cluster ``initdb``'d in a temporary directory and started on 127.0.0.1
on a free port, stopped and removed at the end.  PostgreSQL refuses to run as root, so
its programs run as the ``postgres`` user (``runuser``), which owns the directory.

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
import glob
import itertools
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import psycopg

from debianpackages import ensure_installed
from ligretto.testkit.serverprocess import free_port

USER = "postgres"
STARTUP_S = 60.0
TEST_SETTINGS = ("-c", "fsync=off", "-c", "full_page_writes=off")
"""A test's database is thrown away: nothing needs to survive a crash of the machine
(a killed ``ligretto serve`` still finds every commit: PostgreSQL itself keeps running)."""


@dataclass(frozen=True, slots=True)
class StoreDatabase:
    """Where one test's store keeps its data: ``url`` for ``Store(url)`` / ``--db``."""

    kind: str
    """``sqlite`` or ``postgresql``."""
    url: str
    raw: Callable[[], bytes]
    """Every byte the database keeps on disk (the SQLite file and its log; PostgreSQL's files)."""


def _bin_dir() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return None if initdb is None else Path(os.path.realpath(initdb)).parent


def ensure_postgres() -> Path:
    """The directory of Debian's PostgreSQL programs, installed first if missing."""
    ensure_installed("postgresql", lambda: _bin_dir() is not None)
    found = _bin_dir()
    assert found is not None, "apt-get did not install PostgreSQL (no initdb in /usr/lib/postgresql/*/bin)"
    return found


SHARED = "LIGRETTO_TEST_POSTGRES"
"""The environment variable naming the folder of the session's shared server."""


class PgServer:
    """One PostgreSQL server of its own, in a temporary directory (:meth:`start`, :meth:`stop`),
    or in ``folder`` on ``port`` (the session's shared one: :func:`shared_server`)."""

    def __init__(
        self, *settings: str, folder: Path | None = None, port: int | None = None, passwords: Sequence[str] = ()
    ) -> None:
        self.settings = settings
        """More ``postgres`` options (``-c name=value``)."""
        self.passwords = tuple(passwords)
        """The roles that must give their password (``scram-sha-256``) to connect over
        127.0.0.1; every other role is trusted (the tests' ``postgres``, who makes them)."""
        self.port = free_port() if port is None else port
        self.folder = Path(tempfile.mkdtemp(prefix="ligretto-pg-")) if folder is None else folder
        self.data = self.folder / "data"
        self.log = self.folder / "server.log"
        self.bin = Path()
        self._names = itertools.count(1)

    def _run(self, program: str, *args: str) -> subprocess.CompletedProcess[str]:
        program_path = str(self.bin / program)
        # As root (CI, these machines) as the ``postgres`` user; anyone else runs it as themselves.
        command = ["runuser", "-u", USER, "--", program_path, *args] if os.geteuid() == 0 else [program_path, *args]
        return subprocess.run(command, capture_output=True, text=True, check=False, cwd=self.folder)

    def start(self) -> PgServer:
        """Install if need be, ``initdb`` the cluster, start it."""
        self.bin = ensure_postgres()
        if os.geteuid() == 0:
            shutil.chown(self.folder, USER, USER)
        made = self._run("initdb", "-D", str(self.data), "-U", USER, "--auth=trust", "--no-locale", "-E", "UTF8", "-N")
        assert made.returncode == 0, f"initdb failed:\n{made.stdout}\n{made.stderr}"
        if self.passwords:  # the first line that matches a connection decides
            hba = self.data / "pg_hba.conf"
            lines = [f"host all {role} 127.0.0.1/32 scram-sha-256\n" for role in self.passwords]
            hba.write_text("".join(lines) + hba.read_text())
        return self.run()

    def run(self) -> PgServer:
        """Start the cluster (again, after :meth:`halt`: same port, same data) and wait until it answers."""
        options = ["-c", "listen_addresses=127.0.0.1", "-p", str(self.port), "-k", str(self.folder), *self.settings]
        started = self._run(
            "pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w", "-t", str(int(STARTUP_S)),
            "-o", " ".join(options), "start",
        )  # fmt: skip
        assert started.returncode == 0, (
            f"PostgreSQL did not start:\n{started.stdout}\n{started.stderr}\n{self.log_text()}"
        )
        deadline = time.monotonic() + STARTUP_S
        while True:
            try:
                psycopg.connect(self.url("postgres"), connect_timeout=2).close()
                return self
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise AssertionError(
                        f"PostgreSQL does not answer on port {self.port}:\n{self.log_text()}"
                    ) from None
                time.sleep(0.1)

    def halt(self) -> None:
        """Stop the server at once (its clients' connections dropped), keeping its data."""
        stopped = self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        assert stopped.returncode == 0, f"PostgreSQL did not stop:\n{stopped.stdout}\n{stopped.stderr}"

    def url(self, database: str) -> str:
        return f"postgresql://{USER}@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """A fresh, empty database of its own: its URL."""
        name = f"test_{os.getpid()}_{next(self._names)}"
        with psycopg.connect(self.url("postgres"), autocommit=True) as admin:
            admin.execute(f'CREATE DATABASE "{name}" TEMPLATE template0')
        return self.url(name)

    def raw_bytes(self) -> bytes:
        """Every byte the server keeps on disk (tables and write-ahead log), after a
        checkpoint: what a reader of its files would find."""
        with psycopg.connect(self.url("postgres"), autocommit=True) as admin:
            admin.execute("CHECKPOINT")
        return b"".join(_read(path) for path in sorted(self.data.rglob("*")) if path.is_file())

    def log_text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def stop(self) -> None:
        if self.bin != Path():
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.folder, ignore_errors=True)


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
            server = PgServer(*settings, folder=folder / "server", port=int(port_file.read_text()))
            server.bin = ensure_postgres()
            return server
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
        server = PgServer(folder=folder / "server", port=int(port_file.read_text()))
        server.bin = ensure_postgres()
        server.stop()
    shutil.rmtree(folder, ignore_errors=True)
