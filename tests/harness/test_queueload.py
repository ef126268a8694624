"""``ligretto loadtest --queue`` against a real server (its queue countdown 1 s): every
arrival is seated and sees its dealt round, and the figures add up (the people the tables
seated are the arrivals; their share of the seats is people over the tables' seats)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ligretto.harness.run import main
from ligretto.server.cluster.grouping import BAND, WIDEN_PER_S
from realserver import TEST_RATE, ServerProcess, running


def test_arrivals_at_the_queue_are_dealt_and_counted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    server = ServerProcess.in_folder(tmp_path, queue_countdown_s=1.0, **TEST_RATE)
    with running(server):
        argv = ["--queue", "--url", server.url, "--arrivals", "300", "--duration", "3", "--players", "3"]
        code = main([*argv, "--queue-countdown", "1", "--ratings", str(server.db), "--json"])
        report = json.loads(capsys.readouterr().out)
        assert main([*argv, "--ratings", str(tmp_path / "none.db")]) == 2
        assert (
            capsys.readouterr()
            .err.strip()
            .endswith(f"--ratings: no database at {tmp_path / 'none.db'} (the --db of the server's ligretto serve)")
        )
    assert code == 0 and report["errors"] == []
    assert report["arrived"] >= 5 and report["dealt"] == report["arrived"]
    assert report["tables"] >= report["arrived"] / 3
    assert round(report["people_share_of_seats"] * report["tables"] * 3) == report["dealt"]
    assert 0 < report["median_to_dealt_s"] <= report["p90_to_dealt_s"] <= report["max_to_dealt_s"] < 1.0 + 10.0
    # each arrival queued with its profile's drawn rating, and the server grouped by it:
    # a group's people are within its anchor's reach (5 points, 2 more a second of a wait
    # of at most the 1 s countdown and a look or two), far less than the drawn ratings' spread
    rated = report["ratings"]
    assert sum(band["people"] for band in rated["bands"]) == report["dealt"] and len(rated["bands"]) >= 3
    assert rated["tables_of_two_or_more"] >= 1
    assert 0 <= rated["median_spread"] <= rated["p90_spread"] <= rated["max_spread"] <= 2 * (BAND + WIDEN_PER_S * 2)
    assert not (tmp_path / "none.db").exists()


def test_bad_arrivals_are_a_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--queue", "--arrivals", "0"]) == 2
    assert capsys.readouterr().err.strip().endswith("--arrivals must be more than 0, not 0")
