"""Fixtures for every test package."""

from __future__ import annotations

import asyncio
import compileall
import os
import sys
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import pytest
from xdist.scheduler import LoadScopeScheduling

import pgserver
from ligretto.testkit.pgserver import THROWAWAY
from pgserver import PgServer, StoreDatabase


def pytest_configure(config: pytest.Config) -> None:
    """The controller (or the one process without pytest-xdist) makes the folder of the
    session's one PostgreSQL server before the workers start (``tests/pgserver.py``), and
    lets every process of the session keep the bytecode it compiles (:func:`keep_bytecode`)."""
    if not hasattr(config, "workerinput"):
        config.stash[_PG_FOLDER] = pgserver.session_folder()
        keep_bytecode()


def keep_bytecode() -> None:
    """Bytecode caches are written in this session, ``PYTHONDONTWRITEBYTECODE`` or not, and
    the package is compiled once before the workers start.

    Without them each of the four workers compiles the package and rewrites every test
    module again as it collects (10.7 s of CPU against 3.0 s), and each of the ~180
    ``ligretto`` processes the tests start compiles what it imports (0.09 s more a start;
    docs/benchmarks.md).  The caches are git-ignored; the workers and the processes they
    start inherit this environment."""
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.dont_write_bytecode = False
    compileall.compile_dir(Path(__file__).resolve().parents[1] / "src" / "ligretto", quiet=1)


def pytest_unconfigure(config: pytest.Config) -> None:
    """The controller stops the session's PostgreSQL server, every worker done."""
    folder = config.stash.get(_PG_FOLDER, None)
    if folder is not None:
        pgserver.stop_shared(folder)


_PG_FOLDER = pytest.StashKey[Path]()

WORKERS_PER_CPU = 2
"""``-n auto`` starts this many workers per usable CPU: most tests spend their time
waiting for a real server, a browser or a timer (the suite used about 40 % of two cores
with one worker per CPU), so a second worker per CPU fills the waits
(docs/benchmarks.md, "The test suite").  ``LIGRETTO_TEST_WORKERS`` sets the number."""


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """The number of workers of ``pytest -n auto``: two per usable CPU, or
    ``LIGRETTO_TEST_WORKERS``."""
    given = os.environ.get("LIGRETTO_TEST_WORKERS")
    if given:
        return max(1, int(given))
    return WORKERS_PER_CPU * len(os.sched_getaffinity(0))


SHARING = (
    "tests/browser/",
    "tests/server/",
    "tests/terminal/",
    "tests/harness/",
    "tests/deploy/",
    "tests/sim/test_onray.py",
    "tests/test_simulate_cli.py",  # its Ray head (``ray start``) once, not on each worker
    "tests/cli/test_errors.py",
)
"""Where a module's tests share what is dear to make (a real server, a browser, a Ray
cluster, a played match: module-scoped fixtures), so its tests run on one worker."""


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> LoadScopeScheduling:
    """``-n auto`` hands a module of :data:`SHARING` to one worker as a whole and every other
    test to whichever worker is free.  xdist's default (``load``) hands a module's tests to
    several workers in turn, and each makes the module's fixtures again: a server start is
    about 0.5 s of CPU, a browser launch 0.8 s, a played match for the replay pages 13 s.
    (``--dist loadgroup`` would say the same with marks, but pytest 9 ignores the group that
    pytest-xdist 3.8 appends to a test's id.)"""
    return SharingScheduling(config, log)


class SharingScheduling(LoadScopeScheduling):
    """xdist's scheduling by scope, a scope being a module of :data:`SHARING` or one test."""

    def _split_scope(self, nodeid: str) -> str:
        module = nodeid.split("::", 1)[0]
        return module if module.startswith(SHARING) else nodeid


LONGEST_FIRST = (
    "tests/browser/test_browser_layout.py",
    "tests/browser/test_accessibility.py",
    "tests/harness/test_stressrun.py",
    "tests/browser/test_tutorial.py",
    "tests/browser/test_browser_drag.py",
    "tests/rl/test_research_examples.py",
    "tests/browser/test_browser_play.py",
    "tests/server/cluster/test_cluster_failover.py",
    "tests/browser/test_keeper.py",
    "tests/server/test_server_speed.py",
    "tests/browser/test_fair_judging.py",
    "tests/browser/test_score_sheet.py",
    "tests/terminal/test_remote.py",
    "tests/browser/test_spectator.py",
    "tests/browser/test_feedback.py",
    "tests/engine/test_stateful.py",
    "tests/test_quality.py",
    "tests/client/test_conformance.py",
)
"""The modules whose tests take longest (a minute or more of a worker's time in a fresh
clone, docs/benchmarks.md), longest first: they are handed out before everything else, so
the session does not end with one worker on a long module while the others wait."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The modules of :data:`LONGEST_FIRST` first, in its order; the rest as collected
    (the same order on every worker, as xdist requires)."""
    rank = {module: index for index, module in enumerate(LONGEST_FIRST)}

    def first(item: pytest.Item) -> int:
        return rank.get(item.nodeid.split("::", 1)[0], len(LONGEST_FIRST))

    items.sort(key=first)  # stable: each module keeps its own order


@pytest.fixture
def arun() -> Callable[[Coroutine[Any, Any, Any]], Any]:
    """Run one scenario coroutine to the end, within a hard time limit (90 s unless given)."""

    def run(scenario: Coroutine[Any, Any, Any], timeout: float = 90.0) -> Any:
        async def bounded() -> Any:
            return await asyncio.wait_for(scenario, timeout)

        return asyncio.run(bounded())

    return run


@pytest.fixture(scope="session")
def postgres() -> PgServer:
    """The real PostgreSQL server of this test session, shared by every xdist worker
    (``tests/pgserver.py``), started on first use, stopped and removed at the end of the
    session (``pytest_unconfigure``); each test makes its own database on it."""
    return pgserver.shared_server(*THROWAWAY)


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
