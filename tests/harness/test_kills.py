"""The stress harness's ``kill -9`` scenario (``harness/kills.py``) against a real
server: SIGKILL at seeded moments (right after an ack, mid-round, in a countdown, on a
score sheet), started again on the same port and database; every client back at its
seat with its token, every acknowledged action still in the round, every card still
somewhere, nothing crashed."""

from __future__ import annotations

import asyncio
from pathlib import Path

from ligretto.harness.kills import MOMENTS, run_kills
from realserver import ServerProcess, running


def test_kill_9_at_live_tables_loses_no_acknowledged_action_and_no_card(tmp_path: Path) -> None:
    # A short catch-up after a restart (the tests' countdown is half a second).
    with running(ServerProcess.in_folder(tmp_path, catch_up_s=3.0)) as server:
        report = asyncio.run(run_kills(server, tables=2, kills=4, seed=3, moment_s=10.0, recover_s=20.0))
        assert server.alive and server.healthy(), "the scenario leaves the server running"
        assert server.starts == 1 + 4
    details = report.details
    assert report.tried == 4 and sum(details["moments"].values()) == 4, details
    # Seed 3 draws these four of the five moments, in this order.
    assert details["moments"] == dict.fromkeys(("after_ack", "between_rounds", "countdown", "reconnecting"), 1), details
    assert set(details["moments"]) <= set(MOMENTS) and details["moments_missed"] == 0, details
    assert (report.acks_lost, report.cards_lost, report.crashes) == (0, 0, 0), details
    # The checks ran: acknowledged actions were checked against restored rounds, every
    # client's first snapshot after each restart was scanned.
    assert details["acks_checked"] > 0 and details["snapshots_checked"] >= 4 * 2, details
    # Not every client comes back between two kills (the countdown and reconnecting moments
    # do not wait for everyone), but the scenario waits for every table to accept actions
    # again before the third kill (its 4 people back) and at the end (all 6 clients back).
    assert details["reconnections"] >= 4 + 6 and details["reconnections_failed"] == 0, details
    assert details["clients_not_back"] == 0 and details["client_errors"] == [], details
    assert details["mirror_problems"] == 0 and details["not_recovered"] == 0, details
    assert details["kill_to_accepting_ms"]["n"] > 0, details
    assert report.frames and {f.code for f in report.frames} == {*details["codes"]}, details
    assert any(f.seat is None for f in report.frames) and any(f.seat == 1 for f in report.frames)
    assert report.rss_before and report.rss_after


class _StartFailsOnce(ServerProcess):
    """A server whose second start fails (as a restore that raised would)."""

    def start(self) -> None:
        if self.starts == 1 and not getattr(self, "failed", False):
            self.failed = True
            raise RuntimeError("the server exited with 1")
        super().start()


def test_a_start_that_fails_is_a_crash_and_the_scenario_carries_on(tmp_path: Path) -> None:
    with running(_StartFailsOnce.in_folder(tmp_path, catch_up_s=3.0)) as server:
        report = asyncio.run(run_kills(server, tables=1, kills=1, seed=3, moment_s=10.0, recover_s=20.0))
        assert server.alive
    assert report.crashes == 1 and report.failures == ["crashes"], report.details
    assert report.tried == 1 and report.acks_lost == 0 and report.details["clients_not_back"] == 0, report.details
