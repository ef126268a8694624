"""``/healthz``, ``/readyz`` and ``/metrics``: what an operator's probes and scrapers read.

``/healthz`` is liveness: the process's event loop answers.  ``/readyz`` is readiness:
whether to give this process players now, and what is missing if not (docs/deploy.md):
the database answers a query on a connection of the probe's own (in a thread, so a
database that hangs holds the probe, never the tables), Redis answers a ``PING`` (a
process of a service), and the process is not stopping."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from ligretto import protocol
from ligretto.server.db.database import Database
from ligretto.server.ops import metrics
from ligretto.server.web import http
from ligretto.server.web.lobby import Lobby, count_players

DATABASE_PROBE_S = 1.0
"""How long the readiness probe waits for the database's answer."""


async def healthz(request: Request) -> Response:
    lobby: Lobby = request.app.state.lobby
    directory = lobby.directory
    return http.answer(protocol.Health("ok", len(lobby.tables), directory.process, directory.address))


async def readyz(request: Request) -> Response:
    lobby: Lobby = request.app.state.lobby
    probe: DatabaseProbe | None = request.app.state.database_probe
    checks = {"loop": "stopping" if request.app.state.stopping() else "ok"}
    if probe is not None:
        checks["database"] = await probe.ask()
    redis = await lobby.directory.ready()
    if redis is not None:
        checks["redis"] = redis
    ready = all(finding == "ok" for finding in checks.values())
    answer = protocol.Readiness("ready" if ready else "not_ready", checks)
    return http.answer(answer, 200 if ready else 503)


class DatabaseProbe:
    """Asks the store's database ``SELECT 1`` on a connection of its own, opened (again)
    when needed, from a thread; one question at a time (a probe that comes while the last
    question hangs is answered at once that the database does not answer)."""

    def __init__(self, db: Database, timeout_s: float = DATABASE_PROBE_S) -> None:
        self.db = db
        self.timeout_s = timeout_s
        self._own: Database | None = None
        self._asking = threading.Lock()

    async def ask(self) -> str:
        if self._asking.locked():
            return f"no answer within {self.timeout_s:g} s"
        try:
            await asyncio.wait_for(asyncio.to_thread(self._ping), self.timeout_s)
        except TimeoutError:
            return f"no answer within {self.timeout_s:g} s"
        except Exception as error:  # the driver's errors: what an operator is to read
            return f"{type(error).__name__}: {error}"
        return "ok"

    def _ping(self) -> None:
        with self._asking:
            try:
                if self._own is None:
                    self._own = self.db.another()
                self._own.ping()
            except Exception:
                self._forget()
                raise

    def _forget(self) -> None:
        own, self._own = self._own, None
        if own is not None:
            with contextlib.suppress(Exception):  # a connection already broken: nothing to close
                own.close()

    def close(self) -> None:
        with self._asking:
            self._forget()


def database_probe(store: Any | None) -> DatabaseProbe | None:
    """The probe of ``store``'s database (``None``: a server without a store)."""
    return None if store is None else DatabaseProbe(store.db)


async def metrics_endpoint(request: Request) -> Response:
    # Counted when scraped, not after every message: it walks every seat of every table.
    lobby = request.app.state.lobby
    metrics.OPEN_TABLES.set(len(lobby.tables))
    count_players(lobby)
    return Response(metrics.render(), media_type="text/plain; version=0.0.4")
