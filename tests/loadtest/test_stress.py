"""The start of the stress harness (``loadtest/stress.py``) against a real server: every
kind of malformed message at live tables is refused once, changes no round, crashes
nothing; invalid UTF-8 closes its connection with 1007."""

from __future__ import annotations

import asyncio
from pathlib import Path

from ligretto.loadtest.stress import KINDS, run_stress
from realserver import ServerProcess, running


def test_malformed_messages_at_live_tables_are_each_refused_and_change_nothing(tmp_path: Path) -> None:
    # A raised rate limit, so the harness need not pace itself in a test.
    with running(ServerProcess.in_folder(tmp_path, rate_per_s=10_000.0, burst=10_000)) as server:
        report = asyncio.run(run_stress(server.url, tables=2, count=10 * len(KINDS), utf8=3))
        assert server.healthy()
    assert report["tried"] == dict.fromkeys(KINDS, 20) | {"invalid_utf8": 3}, report
    assert report["tried_total"] == 20 * len(KINDS) + 3
    assert report["not_refused_once"] == {}, report
    assert (report["crashes"], report["state_changes"]) == (0, 0), report
