"""The cluster tests' fixtures: a :class:`servicekit.Cluster` on the session's real
redis-server (emptied for each test), on SQLite and on PostgreSQL, stopped at the end."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from servicekit import Cluster

from redisserver import redis_server, redis_url

__all__ = ["redis_server", "redis_url"]


@pytest.fixture(params=["sqlite", "postgresql"])
def cluster(
    request: pytest.FixtureRequest, tmp_path: Path, redis_url: str, server_class: type[Any]
) -> Iterator[Cluster]:
    """Processes sharing one SQLite file, or one PostgreSQL database (the session's real
    server of ``tests/pgserver.py``)."""
    db = tmp_path / "ligretto.db" if request.param == "sqlite" else request.getfixturevalue("postgres").new_database()
    with contextlib.ExitStack() as stack:
        yield Cluster(tmp_path, db, redis_url, server_class, stack)
