"""A REAL ``redis-server`` for the cluster tests (Debian's package, apt-get installed when
missing, as ``tests/browser/browserkit.py`` installs Chromium): on a free port of
127.0.0.1 in a temporary directory, no persistence, stopped at the end.  A test that
cannot start it fails; it never skips."""

from __future__ import annotations

import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from debianpackages import ensure_installed
from ligretto.testkit.serverprocess import free_port

REDIS_SERVER = "/usr/bin/redis-server"
STARTUP_S = 10.0


def redis_program() -> str:
    """The path of ``redis-server``, installed with apt-get if missing."""
    ensure_installed("redis-server", Path(REDIS_SERVER).exists)
    return REDIS_SERVER


class RedisServer:
    """One ``redis-server`` process on 127.0.0.1 (``url``: ``redis://127.0.0.1:PORT/0``);
    with a ``password``, its clients must give it (``redis://:PASSWORD@127.0.0.1:PORT/0``)."""

    def __init__(self, folder: Path, password: str | None = None) -> None:
        self.folder = folder
        self.password = password
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        login = "" if self.password is None else f":{self.password}@"
        return f"redis://{login}127.0.0.1:{self.port}/0"

    def _say(self, sock: socket.socket, command: bytes) -> bytes:
        """One command (after ``AUTH`` if the server has a password) and the start of its answer."""
        if self.password is not None:
            sock.sendall(f"AUTH {self.password}\r\n".encode())
            assert sock.recv(64).startswith(b"+OK")
        sock.sendall(command)
        return sock.recv(64)

    def start(self) -> None:
        command = [
            redis_program(),
            "--port", str(self.port),
            "--bind", "127.0.0.1",
            "--dir", str(self.folder),
            "--save", "",
            "--appendonly", "no",
            "--daemonize", "no",
        ] + ([] if self.password is None else ["--requirepass", self.password])  # fmt: skip
        with (self.folder / "redis.log").open("ab") as out:
            self.process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + STARTUP_S
        while time.monotonic() < deadline:
            assert self.process.poll() is None, (self.folder / "redis.log").read_text()
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1.0) as sock:
                    if self._say(sock, b"PING\r\n").startswith(b"+PONG"):
                        return
            except OSError:
                time.sleep(0.05)
        raise AssertionError(f"redis-server did not answer within {STARTUP_S} s")

    def flush(self) -> None:
        """Forget every key (between tests)."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=2.0) as sock:
            assert self._say(sock, b"FLUSHALL\r\n").startswith(b"+OK")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(10)


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    """A real redis-server for the whole session."""
    with tempfile.TemporaryDirectory(prefix="ligretto-redis-") as folder:
        server = RedisServer(Path(folder))
        server.start()
        try:
            yield server
        finally:
            server.stop()


@pytest.fixture
def redis_url(redis_server: RedisServer) -> str:
    """The URL of the session's redis-server, emptied for this test."""
    redis_server.flush()
    return redis_server.url
