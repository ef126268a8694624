"""The tests' real server process (``ligretto.testkit.serverprocess``): a server whose port
was taken before it could bind it starts again on another one, and is never mistaken for
the process that holds the port."""

from __future__ import annotations

from pathlib import Path

from ligretto.testkit.serverprocess import ServerProcess


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
