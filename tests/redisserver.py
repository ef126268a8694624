"""A REAL ``redis-server`` for the cluster tests: ``ligretto.testkit.redisserver``'s, with
Debian's package installed with apt-get when missing (as ``tests/browser/browserkit.py``
installs Chromium).  A test that cannot start it fails; it never skips."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from debianpackages import ensure_installed
from ligretto.testkit import programs, redisserver


def ensure_redis() -> None:
    """Debian's ``redis-server``, installed with apt-get if missing."""
    ensure_installed("redis-server", lambda: programs.redis_server() is not None)


class RedisServer(redisserver.RedisServer):
    """The kit's ``redis-server``, installed first if need be."""

    def start(self) -> None:
        ensure_redis()
        super().start()


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
