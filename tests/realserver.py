"""A REAL ``ligretto serve`` process for the end-to-end tests of the server, the browser
client and the terminal client: ``ligretto.testkit.serverprocess.ServerProcess`` (on a free
port of 127.0.0.1 with its own SQLite file; SIGKILL and start again on the same port and
database) with the tests' short countdown, and :func:`running`, which fails a test whose
server logged a traceback."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ligretto.testkit import serverprocess
from ligretto.testkit.serverprocess import NO_RATE_LIMIT, OPEN_LIMITS, free_port

COUNTDOWN_S = 0.5
TEST_RATE = NO_RATE_LIMIT
"""The tests' setting of the per-connection rate limit: off, so that a test's players act
as fast as the test drives them with no pacing; the tests of the limit itself start a
server with the production limit (``server_with()``, the stress harness)."""

__all__ = ["COUNTDOWN_S", "OPEN_LIMITS", "TEST_RATE", "ServerProcess", "free_port", "running"]


class ServerProcess(serverprocess.ServerProcess):
    """The server with the tests' countdown of half a second unless a test gives another."""

    def __init__(self, db: Path | str, log: Path, countdown_s: float | None = COUNTDOWN_S, **options: Any) -> None:
        super().__init__(db, log, countdown_s, **options)


@contextlib.contextmanager
def running(process: ServerProcess) -> Iterator[ServerProcess]:
    """Start ``process``, stop it at the end, and fail if its log holds a traceback."""
    process.start()
    try:
        yield process
    finally:
        process.stop()
    log = process.log_text()
    assert "Traceback" not in log, f"the server logged an error:\n{log}"
