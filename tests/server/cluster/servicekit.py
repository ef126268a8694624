"""Several REAL ``ligretto serve --redis`` processes on 127.0.0.1 sharing one database and
one REAL redis-server (``tests/redisserver.py``), with the real WebSocket test clients of
``tests/server/conftest.py``: :class:`Cluster` (the kit's ``Service``) starts them (a
traceback in any log fails the test), :func:`rejoin` brings a client back to its seat as
the real clients do."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import redis
import websockets

from ligretto.server.cluster import keys
from ligretto.testkit.service import Service

ON_POSTGRESQL = pytest.mark.parametrize("cluster", ["postgresql"], indirect=True)
"""A cluster test whose subject is not the database: run on the service's own set-up,
PostgreSQL, only (the ``cluster`` fixture otherwise runs each test on both databases)."""

REJOIN_S = 20.0
"""How long a client keeps trying to come back to its seat (as the real clients do)."""


class Cluster(Service):
    """Processes of one service (``--redis``) on one database (``testkit/service.py``), each
    stopped at the end of the test and its log checked for a traceback."""

    def __init__(
        self, folder: Path, db: Path | str, url: str, server_class: type[Any], stack: contextlib.ExitStack
    ) -> None:
        super().__init__(folder, db, url, server_class)
        self.stack = stack
        self.redis = redis.Redis.from_url(url, decode_responses=True)

    def add(self, **settings: Any) -> Any:
        process = super().add(**settings)
        self.stack.callback(_stopped, process)
        return process

    def start(self, count: int, **settings: Any) -> list[Any]:
        """Start ``count`` more processes, one after the other (each answers /healthz first)."""
        started = []
        for _ in range(count):
            process = self.add(**settings)
            process.start()
            started.append(process)
        return started

    def owner(self, code: str) -> Any:
        """The process whose id holds the lease of ``code`` (``None``: nobody's)."""
        owner = self.redis.get(keys.table(code))
        ids = {self.health(p)["process"]: p for p in self.processes if p.alive}
        return ids.get(owner)

    def create_on(self, process: Any, seats: int = 2, public: bool = False) -> str:
        """A table made by ``process`` itself (the header of a request another process
        placed there: no placement by load)."""
        body = json.dumps({"seats": seats, "preset": "classic", "options": {}, "public": public, "grace_s": 60.0})
        request = urllib.request.Request(process.url + "/api/tables", data=body.encode(), method="POST")
        request.add_header("Content-Type", "application/json")
        request.add_header(keys.RELAYED, "1")
        with urllib.request.urlopen(request, timeout=5) as answer:
            assert answer.status == 201
            code: str = json.loads(answer.read())["code"]
        return code

    def wait_until(self, condition: Callable[[], bool], timeout: float = 10.0, what: str = "") -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            assert time.monotonic() < deadline, f"not within {timeout} s: {what}"
            time.sleep(0.05)


async def rejoin(processes: list[Any], code: str, token: str, label: str, timeout: float = REJOIN_S) -> Any:
    """Come back to one's seat with its token through any live process, trying again (the
    next process, after a pause) while the table is being taken over, as the browser and
    terminal clients do after a drop; the client, once it has the table (and a round's snapshot)."""
    deadline = time.monotonic() + timeout
    attempt = 0
    while True:
        live = [p for p in processes if p.alive]
        client = live[attempt % len(live)].client(label)
        attempt += 1
        try:
            await client.connect()
            welcome = await client.hello(code, token=token)
            assert welcome["type"] == "welcome", welcome
            await client.wait_for("table")
            return client
        except (AssertionError, OSError, TimeoutError, websockets.WebSocketException) as error:
            if isinstance(error, AssertionError) and "'type': 'error'" in str(error):
                raise  # refused: a real client would give up
            with contextlib.suppress(Exception):
                await client.close()
            assert time.monotonic() < deadline, f"{label} not back at its seat within {timeout} s: {error}"
            await asyncio.sleep(0.1)


def _stopped(process: Any) -> None:
    """Stop ``process`` and fail if its log holds a traceback (as ``running`` does)."""
    process.stop()
    log = process.log_text()
    assert "Traceback" not in log, f"the server logged an error:\n{log}"
