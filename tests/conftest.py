"""Fixtures for every test package."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any

import pytest

from pgserver import TEST_SETTINGS, PgServer, StoreDatabase


@pytest.fixture
def arun() -> Callable[[Coroutine[Any, Any, Any]], Any]:
    """Run one scenario coroutine to the end, within a hard time limit (90 s unless given)."""

    def run(scenario: Coroutine[Any, Any, Any], timeout: float = 90.0) -> Any:
        async def bounded() -> Any:
            return await asyncio.wait_for(scenario, timeout)

        return asyncio.run(bounded())

    return run


@pytest.fixture(scope="session")
def postgres() -> Iterator[PgServer]:
    """A real PostgreSQL server of this test session (``tests/pgserver.py``), started on
    first use, stopped and removed at the end."""
    server = PgServer(*TEST_SETTINGS)
    try:
        server.start()
        yield server
    finally:
        server.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def store_db(request: pytest.FixtureRequest, tmp_path: Path) -> StoreDatabase:
    """A fresh database for a store test, once an SQLite file and once a PostgreSQL
    database: the same assertions run on both."""
    if request.param == "sqlite":
        path = tmp_path / "store.db"
        wal = tmp_path / "store.db-wal"
        return StoreDatabase(
            "sqlite", str(path), lambda: path.read_bytes() + (wal.read_bytes() if wal.exists() else b"")
        )
    server: PgServer = request.getfixturevalue("postgres")
    return StoreDatabase("postgresql", server.new_database(), server.raw_bytes)
