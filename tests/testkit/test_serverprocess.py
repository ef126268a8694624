"""The tests' real server process (``ligretto.testkit.serverprocess``): a server whose port
was taken before it could bind it starts again on another one, and is never mistaken for
the process that holds the port."""

from __future__ import annotations

from pathlib import Path

import pytest

from ligretto.testkit.serverprocess import FIRST_PORT, PORTS_PER_PROCESS, ServerProcess, free_port


def test_a_server_whose_port_was_taken_starts_on_another_and_answers_itself(tmp_path: Path) -> None:
    first = ServerProcess.in_folder(tmp_path / "first")
    second = ServerProcess.in_folder(tmp_path / "second")
    (tmp_path / "first").mkdir()
    (tmp_path / "second").mkdir()
    first.start()
    try:
        second.port = first.port  # what a race between two workers' free ports gives
        second.start()
        try:
            assert second.port != first.port and second.alive and first.alive
            assert "cannot listen on" in second.log_text()
            code = second.create_table(2)
            assert first.http("GET", f"/api/tables/{code}")[0] == 404, "the table is the second server's"
            assert second.http("GET", f"/api/tables/{code}")[0] == 200
            assert second.starts == 1, "still its first start"
        finally:
            second.stop()
    finally:
        first.stop()


def test_the_workers_of_two_runs_at_once_take_their_ports_from_different_blocks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def block(worker: str, run: str) -> int:
        monkeypatch.setenv("PYTEST_XDIST_WORKER", worker)
        monkeypatch.setenv("PYTEST_XDIST_TESTRUNUID", run)
        return (free_port() - FIRST_PORT) // PORTS_PER_PROCESS

    one, other = "0" * 31 + "3", "0" * 31 + "9"  # two runs' ids (uuid4 hex)
    assert block("gw1", one) == block("gw0", one) + 1, "a run's workers: consecutive blocks"
    assert {block("gw0", one), block("gw1", one)}.isdisjoint({block("gw0", other), block("gw1", other)})
