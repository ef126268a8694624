"""The cluster tests' fixtures: a :class:`servicekit.Cluster` on the session's real
redis-server (emptied for each test), stopped at the end."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from servicekit import Cluster

from redisserver import redis_server, redis_url

__all__ = ["redis_server", "redis_url"]


@pytest.fixture
def cluster(tmp_path: Path, redis_url: str, server_class: type[Any]) -> Iterator[Cluster]:
    with contextlib.ExitStack() as stack:
        yield Cluster(tmp_path, redis_url, server_class, stack)
