"""The web app of ``ligretto serve`` in the test's own process, through Starlette's
``TestClient`` (an ASGI transport: no socket, no server process to start), for the tests
of the HTTP API where no real socket is the subject.  It answers ``http`` and
``create_table`` as :class:`realserver.ServerProcess` does, so a test reads the same
either way; a server-side exception fails the test (the client re-raises it), as a
traceback in a real server's log does."""

from __future__ import annotations

from pathlib import Path
from types import TracebackType
from typing import Any, Self

from starlette.testclient import TestClient

from ligretto.server.records.store import Store
from ligretto.server.web.app import create_app
from ligretto.server.web.settings import Settings
from ligretto.testkit.serverprocess import OPEN_LIMITS, TableMaker

BASE_URL = "http://127.0.0.1:8000"
"""The address the app believes it is served at (invite and claim links name it)."""


class AppServer(TableMaker):
    """``create_app`` with a store on an SQLite file in ``folder``, its lifespan run (tables
    restored, chores started) from ``with`` to its end."""

    def __init__(self, folder: Path, **settings: Any) -> None:
        self.store = Store(str(folder / "ligretto.db"))
        self.app = create_app(Settings(**{**OPEN_LIMITS, **settings}), self.store)
        self.client = TestClient(self.app, base_url=BASE_URL, client=("127.0.0.1", 50000))
        self.url = BASE_URL

    def __enter__(self) -> Self:
        self.client.__enter__()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.client.__exit__(kind, error, trace)

    def http(self, method: str, path: str, body: Any = None, timeout: float = 5.0) -> tuple[int, Any]:
        """The status and the body (JSON read, or text) of one request, as ``ServerProcess.http``."""
        del timeout  # in process: nothing to wait for
        answer = self.client.request(method, path, json=body)
        kind = answer.headers.get("content-type", "")
        return answer.status_code, answer.json() if "json" in kind else answer.text
