"""A real ``ligretto serve`` process on a free port of 127.0.0.1 with its own SQLite file (or
a database by URL, ``postgresql://…``),
ready once ``/healthz`` answers; it can be killed with SIGKILL and started again on the
same port and database, and it keeps its log.  The stress harness (``ligretto stress``)
starts its servers with it, and so do the end-to-end tests (``tests/realserver.py``)."""

from __future__ import annotations

import itertools
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Protocol, Self

from ligretto.testkit.metricspage import sample_key, samples

STARTUP_S = 20.0
POLL_S = 0.01
"""Seconds between two probes of a starting server's port (a refused connect on 127.0.0.1
costs microseconds)."""
HEALTH_POLL_S = 0.05
"""Seconds between two ``/healthz`` of a server that listens but is not ready yet."""
OPEN_LIMITS = {"connections_per_address": 0, "tables_per_minute": 0}
"""The per-address limits, off unless a test sets them: every harness and test client
comes from 127.0.0.1, and a session of tests makes far more tables than a person (docs/protocol.md,
Limits; the tests of those limits set them)."""
NO_RATE_LIMIT = {"rate_per_s": 1e6, "burst": 10**6}
"""The per-connection rate limit, off: a client may send unpaced (the tests' servers, the
malformed-message scenario's flood of refusals)."""


SERVING = "ligretto: serving on"
"""The line a server writes once it has bound its port: until it is in this start's log,
what answers on the port may be another process (``wait_ready``)."""
CANNOT_LISTEN = "cannot listen on"
"""The line of a server whose port was taken."""


FIRST_PORT = 20_000
"""The tests' servers listen on ports from here up to the kernel's ephemeral range (32,768
and up on Linux), where no outgoing connection and no ``bind`` to port 0 takes a port: a
server stopped to be started again finds its port still free (thousands of test clients
connect meanwhile, each from an ephemeral port)."""
PORTS_PER_PROCESS = 500
"""Each test process (an xdist worker, else by its process id) takes its ports from a block
of its own, in turn (a run's workers from an offset drawn from its run id)."""
_ports = itertools.count()


def free_port() -> int:
    """A port of 127.0.0.1 that nothing listens on now, from this process's block."""
    blocks = (32_768 - FIRST_PORT) // PORTS_PER_PROCESS
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    # The workers of one run take consecutive blocks from an offset of the run's own (two
    # suites run at once on one machine would otherwise both start at block 0).
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID", "")
    offset = int(run, 16) if run and all(c in "0123456789abcdef" for c in run) else 0
    block = ((int(worker[2:]) + offset) if worker[2:].isdigit() else os.getpid()) % blocks
    for _ in range(PORTS_PER_PROCESS):
        port = FIRST_PORT + block * PORTS_PER_PROCESS + next(_ports) % PORTS_PER_PROCESS
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    first = FIRST_PORT + block * PORTS_PER_PROCESS
    raise RuntimeError(f"no free port of 127.0.0.1 from {first} to {first + PORTS_PER_PROCESS - 1}")


class TableMaker(Protocol):
    """Tables made over the HTTP API of whatever answers ``http`` (a real process, or the
    app in process: ``tests/server/inprocess.py``)."""

    def http(self, method: str, path: str, body: Any = None, timeout: float = 5.0) -> tuple[int, Any]: ...

    def create_table(
        self,
        seats: int = 2,
        *,
        public: bool = False,
        grace_s: float = 60.0,
        preset: str = "classic",
        options: dict[str, Any] | None = None,
    ) -> str:
        body = {"seats": seats, "preset": preset, "options": options or {}, "public": public, "grace_s": grace_s}
        status, answer = self.http("POST", "/api/tables", body)
        assert status == 201, (status, answer)
        code: str = answer["code"]
        return code


class ServerProcess(TableMaker):
    """``ligretto serve`` in a subprocess (``countdown_s`` ``None``: the server's own).
    With extra ``app.Settings`` fields that the command line does not offer
    (``abandoned_s=1.0``), ``ligretto.server.web.serve.run`` -- what the command calls -- is
    started with them instead."""

    def __init__(
        self,
        db: Path | str,
        log: Path,
        countdown_s: float | None = None,
        *,
        log_level: str = "warning",
        log_format: str = "text",
        **settings: Any,
    ) -> None:
        self.db = db
        self.log = log
        self.countdown_s = countdown_s
        self.log_level = log_level
        self.log_format = log_format
        """``ligretto serve``'s ``--log-level`` and ``--log-format``."""
        self.settings = settings
        """More ``app.Settings`` fields (``abandoned_s=1.0``)."""
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0
        self.cpus: set[int] = set()
        """The CPUs the server runs on (each time it starts; empty: any)."""

    @classmethod
    def in_folder(cls, folder: Path, **options: Any) -> Self:
        """A server whose database and log are ``ligretto.db`` and ``server.log`` in ``folder``."""
        return cls(folder / "ligretto.db", folder / "server.log", **options)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def start(self) -> None:
        """Start the server and wait until it answers ``/healthz``."""
        self.launch()
        self.wait_ready()

    def launch(self) -> None:
        """Start the server without waiting for it (several started at once: each
        :meth:`wait_ready` after)."""
        self.starts += 1
        self._spawn(f"--- start {self.starts} ---")

    def _command(self) -> list[str]:
        if self.settings:
            settings = {**OPEN_LIMITS, **self.settings}
            code = (
                "from ligretto.server.web.serve import run; from ligretto.server.web.settings import Settings; "
                f"run(Settings(port={self.port}, db={str(self.db)!r}"
                + ("" if self.countdown_s is None else f", countdown_s={self.countdown_s}")
                + "".join(f", {name}={value!r}" for name, value in settings.items())
                + f"), {self.log_level!r}, {self.log_format!r})"
            )
            return [sys.executable, "-c", code]
        command = [sys.executable, "-m", "ligretto", "serve", "--port", str(self.port), "--db", str(self.db)]
        if self.countdown_s is not None:
            command += ["--countdown", str(self.countdown_s)]
        command += ["--log-level", self.log_level]
        command += ["--log-format", self.log_format]
        command += ["--connections-per-address", "0", "--tables-per-minute", "0"]
        return command

    def _spawn(self, marker: str) -> None:
        with self.log.open("ab") as out:
            out.write(f"{marker}\n".encode())
            out.flush()
            self.process = subprocess.Popen(self._command(), stdout=out, stderr=subprocess.STDOUT)
        if self.cpus:
            os.sched_setaffinity(self.process.pid, self.cpus)

    def wait_ready(self) -> None:
        """Wait until the launched server answers ``/healthz`` (``RuntimeError``: it exited,
        or did not answer within ``STARTUP_S``).  Until its port accepts a connection (uvicorn
        listens once the app has started) it is probed every ``POLL_S`` with a bare connect,
        which costs next to nothing; then asked ``/healthz``."""
        assert self.process is not None, "launch() first"
        deadline = time.monotonic() + STARTUP_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                if self.starts == 1 and CANNOT_LISTEN in self._this_start():
                    self._move_to_a_free_port()
                    continue
                raise RuntimeError(f"the server exited with {self.process.returncode}:\n{self.log_text()}")
            if SERVING not in self._this_start() or not self.listening():
                time.sleep(POLL_S)
                continue
            try:
                status, body = self.http("GET", "/healthz", timeout=1.0)
            except OSError:
                time.sleep(POLL_S)
                continue
            if status == 200 and body.get("status") == "ok":
                return
            time.sleep(HEALTH_POLL_S)
        raise RuntimeError(f"the server did not answer /healthz within {STARTUP_S} s:\n{self.log_text()}")

    def _this_start(self) -> str:
        """The log since the last start (a server's first line says whether it listens)."""
        return self.log_text().rpartition("--- start ")[2]

    def _move_to_a_free_port(self) -> None:
        """Another process took the port between :func:`free_port` and the server's bind (a
        server of another test worker, or a client's outgoing connection): start again on
        another one.  Only before a first start has answered: a restart keeps its port."""
        self.port = free_port()
        self._spawn("--- start 1, on another port ---")

    def listening(self) -> bool:
        """Whether the server's port accepts a connection."""
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.settimeout(1.0)
            return sock.connect_ex(("127.0.0.1", self.port)) == 0

    @property
    def pid(self) -> int | None:
        """The running server's process id (a new one after each start)."""
        return None if self.process is None else self.process.pid

    def kill(self) -> None:
        """SIGKILL: no shutdown handlers, no flushing -- what a crash looks like."""
        if self.process is None:
            raise RuntimeError("the server was never started")
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(10)

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def log_text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    # --- HTTP ---------------------------------------------------------------------------

    def http(
        self, method: str, path: str, body: Any = None, timeout: float = 5.0, headers: dict[str, str] | None = None
    ) -> tuple[int, Any]:
        """A request (``body`` as JSON, more ``headers``: ``Authorization``): its status and
        body (parsed if JSON)."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method, headers=headers or {})
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                raw = response.read()
                status = response.status
                kind = response.headers.get("Content-Type", "")
        except urllib.error.HTTPError as error:
            raw, status, kind = error.read(), error.code, error.headers.get("Content-Type", "")
        return status, json.loads(raw) if "json" in kind else raw.decode()

    def metric(self, sample: str, **labels: str) -> float:
        """One sample of the process's ``/metrics`` (``ligretto_take_overs_total``), 0 if absent."""
        return samples(self.http("GET", "/metrics")[1]).get(sample_key(sample, labels), 0.0)

    def healthy(self) -> bool:
        status, body = self.http("GET", "/healthz")
        return status == 200 and body.get("status") == "ok"
