"""A throwaway PostgreSQL server of its own: a cluster ``initdb``'d in a temporary folder
and started on 127.0.0.1 on a free port with Debian's programs; stopped (at once, or
``fast``) and started again on the same port and data, removed at the end.  PostgreSQL
refuses to run as root, so as root its programs run as the ``postgres`` user
(``runuser``), which owns the folder.  The tests' server (``tests/pgserver.py``, which
installs Debian's ``postgresql`` when it is missing and shares one server between the
workers of a session) and the stress harness's services (``harness/service.py``); a
machine without ``initdb`` is ``programs.Missing``."""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import psycopg

from ligretto.testkit import programs
from ligretto.testkit.serverprocess import free_port

USER = "postgres"
STARTUP_S = 60.0
THROWAWAY = ("-c", "fsync=off", "-c", "full_page_writes=off")
"""Settings for a cluster that is thrown away: nothing needs to survive a crash of the
machine (a killed ``ligretto serve``, or PostgreSQL itself stopped at once, still finds
every commit: the operating system keeps what was written)."""


class PgServer:
    """One PostgreSQL server of its own, in a temporary folder (:meth:`start`, :meth:`stop`),
    or in ``folder`` on ``port`` (one that another process started: the tests' shared one)."""

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
        self._names = itertools.count(1)

    @property
    def bin(self) -> Path:
        """The folder of PostgreSQL's programs (``programs.Missing`` if there are none)."""
        return programs.needed(programs.postgres_bin(), "initdb", "postgresql")

    def _run(self, program: str, *args: str) -> subprocess.CompletedProcess[str]:
        program_path = str(self.bin / program)
        # As root (CI, these machines) as the ``postgres`` user; anyone else runs it as themselves.
        command = ["runuser", "-u", USER, "--", program_path, *args] if os.geteuid() == 0 else [program_path, *args]
        return subprocess.run(command, capture_output=True, text=True, check=False, cwd=self.folder)

    def start(self) -> PgServer:
        """``initdb`` the cluster and start it."""
        bin_dir = self.bin
        if os.geteuid() == 0:
            shutil.chown(self.folder, USER, USER)
        made = self._run("initdb", "-D", str(self.data), "-U", USER, "--auth=trust", "--no-locale", "-E", "UTF8", "-N")
        if made.returncode != 0:
            raise RuntimeError(f"initdb ({bin_dir}) failed:\n{made.stdout}\n{made.stderr}")
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
        if started.returncode != 0:
            raise RuntimeError(f"PostgreSQL did not start:\n{started.stdout}\n{started.stderr}\n{self.log_text()}")
        deadline = time.monotonic() + STARTUP_S
        while True:
            try:
                psycopg.connect(self.url("postgres"), connect_timeout=2).close()
                return self
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"PostgreSQL does not answer on port {self.port}:\n{self.log_text()}") from None
                time.sleep(0.1)

    def halt(self, mode: str = "immediate") -> None:
        """Stop the server, keeping its data: ``immediate`` at once (its clients' connections
        dropped, as a crash; it recovers from its log at the next start), ``fast`` after
        rolling back what is under way and a checkpoint (``pg_ctl stop -m``)."""
        stopped = self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")
        if stopped.returncode != 0:
            raise RuntimeError(f"PostgreSQL did not stop:\n{stopped.stdout}\n{stopped.stderr}")

    def url(self, database: str) -> str:
        return f"postgresql://{USER}@127.0.0.1:{self.port}/{database}"

    def new_database(self, name: str | None = None) -> str:
        """A fresh, empty database of its own (``name``, or one made up): its URL."""
        name = name or f"test_{os.getpid()}_{next(self._names)}"
        with psycopg.connect(self.url("postgres"), autocommit=True) as admin:
            admin.execute(f'CREATE DATABASE "{name}" TEMPLATE template0')
        return self.url(name)

    def log_text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def stop(self) -> None:
        """Stop the server at once and remove its folder."""
        if self.data.exists():
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.folder, ignore_errors=True)
