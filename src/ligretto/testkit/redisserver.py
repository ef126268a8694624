"""A throwaway ``redis-server`` of its own: on a free port of 127.0.0.1, in a folder, with
no persistence (a restart is an empty Redis); stopped and started again on the same port,
or hung (SIGSTOP) and resumed.  The cluster tests' Redis (``tests/redisserver.py``, which
installs Debian's package when it is missing) and the stress harness's services
(``harness/service.py``); a machine without ``redis-server`` is ``programs.Missing``."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from pathlib import Path

from ligretto.testkit import programs
from ligretto.testkit.serverprocess import free_port

STARTUP_S = 10.0


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

    @property
    def log(self) -> Path:
        return self.folder / "redis.log"

    def _say(self, sock: socket.socket, command: bytes) -> bytes:
        """One command (after ``AUTH`` if the server has a password) and the start of its answer."""
        if self.password is not None:
            sock.sendall(f"AUTH {self.password}\r\n".encode())
            if not sock.recv(64).startswith(b"+OK"):
                raise RuntimeError("redis-server refused its own password")
        sock.sendall(command)
        return sock.recv(64)

    def start(self) -> None:
        """Start it (again, after :meth:`stop`: the same port, empty) and wait until it answers."""
        command = [
            str(programs.needed(programs.redis_server(), "redis-server", "redis-server")),
            "--port", str(self.port),
            "--bind", "127.0.0.1",
            "--dir", str(self.folder),
            "--save", "",
            "--appendonly", "no",
            "--daemonize", "no",
        ] + ([] if self.password is None else ["--requirepass", self.password])  # fmt: skip
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + STARTUP_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"redis-server exited:\n{self.log.read_text(errors='replace')}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1.0) as sock:
                    if self._say(sock, b"PING\r\n").startswith(b"+PONG"):
                        return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"redis-server did not answer within {STARTUP_S} s")

    def flush(self) -> None:
        """Forget every key (between tests)."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=2.0) as sock:
            if not self._say(sock, b"FLUSHALL\r\n").startswith(b"+OK"):
                raise RuntimeError("redis-server did not FLUSHALL")

    def hang(self) -> None:
        """SIGSTOP: it holds every connection and answers nothing until :meth:`resume`."""
        if self.process is not None:
            os.kill(self.process.pid, signal.SIGSTOP)

    def resume(self) -> None:
        if self.process is not None:
            os.kill(self.process.pid, signal.SIGCONT)

    def stop(self) -> None:
        """SIGTERM (nothing saved: it comes back empty) and wait for its end."""
        if self.process is not None and self.process.poll() is None:
            self.resume()  # a hung one hears nothing else
            self.process.terminate()
            self.process.wait(10)
