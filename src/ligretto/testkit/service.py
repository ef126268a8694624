"""Several real ``ligretto serve`` processes as one service (docs/deploy.md): each with
``--redis`` (one Redis) and ``--advertise`` (its own address), all on one database.  The
cluster tests' processes (``tests/server/cluster/servicekit.py``, which adds what only
tests ask of them) and the stress harness's services (``harness/service.py``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ligretto.testkit.serverprocess import ServerProcess


class Service:
    """The processes of one service on the database ``db`` (an SQLite file, or a
    PostgreSQL database's URL) and the Redis at ``redis_url``, each logging to
    ``serverN.log`` in ``folder``."""

    def __init__(
        self, folder: Path, db: Path | str, redis_url: str, server_class: type[ServerProcess] = ServerProcess
    ) -> None:
        self.folder = folder
        self.db = db
        self.redis_url = redis_url
        self.server_class = server_class
        self.processes: list[ServerProcess] = []
        self.cpus: set[int] = set()
        """The CPUs its processes run on (empty: any)."""

    def add(self, **settings: Any) -> ServerProcess:
        """One more process of the service (not started)."""
        process = self.server_class(self.db, self.folder / f"server{len(self.processes)}.log", **settings)
        process.settings["redis"] = self.redis_url
        process.settings["advertise"] = process.url
        process.cpus = self.cpus
        self.processes.append(process)
        return process

    def start_together(self, count: int, **settings: Any) -> list[ServerProcess]:
        """Start ``count`` more processes at once (a service started from nothing), then
        wait for each to answer ``/healthz``."""
        started = [self.add(**settings) for _ in range(count)]
        for process in started:
            process.launch()
        for process in started:
            process.wait_ready()
        return started

    @property
    def live(self) -> list[ServerProcess]:
        return [p for p in self.processes if p.alive]

    def health(self, process: ServerProcess) -> dict[str, Any]:
        """The process's ``/healthz``: its id (``process``), its tables, its address."""
        status, body = process.http("GET", "/healthz")
        if status != 200:
            raise RuntimeError(f"{process.url}/healthz answered {status}: {json.dumps(body)}")
        return dict(body)

    def log_text(self) -> str:
        """Every process's log, one after the other."""
        return "".join(p.log_text() for p in self.processes)
