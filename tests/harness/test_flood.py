"""The flooding clients of ``ligretto loadtest --flood`` (``harness/flood.py``) against a
real server: cut off by its rate limit, they come back with their seat token and flood
again, and the table they flood stays playable for its own people; one flooder at each
of several live tables (``harness/floodedtables.py``) among players who play on, no card
lost."""

from __future__ import annotations

import asyncio
from pathlib import Path

from ligretto.harness.flood import run_flood
from ligretto.harness.floodedtables import run_table_floods
from ligretto.harness.run import server_urls
from realserver import ServerProcess, running


def test_a_flooder_is_cut_off_by_the_rate_limit_and_comes_back(tmp_path: Path) -> None:
    with running(ServerProcess.in_folder(tmp_path)) as server:
        base, ws_url = server_urls(server.url)
        report = asyncio.run(run_flood(base, ws_url, clients=1, duration=3.0))
        assert server.healthy()
        _status, text = server.http("GET", "/metrics")
    assert report["clients"] == 1 and report["errors"] == {}, report
    # The burst is 40 messages: a flooder offers many more and is cut off (it never reads
    # the server's close frame, so it sees the connection drop: 1006), and comes back.
    closed = sum(report["close_codes"].values())
    assert report["offered"] > 40 * closed > 0, report
    assert report["connections"] >= 1 + closed, report
    # Straight back after a close, the seat is cooling down (2 s): its hello is held that
    # long, so the flooder gets one connection (and one burst) per cool-down: besides its
    # set-up connection, one per close and the last one, held at the end.
    assert 2 <= closed <= 3 and report["connections"] <= closed + 2, report
    assert 'ligretto_bad_messages_total{code="rate_limited"}' in text


def test_one_flooder_at_each_live_table_is_cut_off_and_comes_back_while_its_players_play_on(tmp_path: Path) -> None:
    with running(ServerProcess.in_folder(tmp_path)) as server:
        assert server.process is not None
        report = asyncio.run(
            run_table_floods(server.url, tables=2, players=2, seconds=2.0, speed=5.0, server_pid=server.pid)
        )
        assert server.healthy()
    details = report.details
    assert (report.scenario, report.failures, report.cards_lost) == ("table_floods", [], 0), report
    assert details["flooders"]["clients"] == 2 and details["flooders"]["errors"] == {}, report
    # Each flooder offered far more than its burst and was cut off, again and again.
    assert report.tried > 40 * details["closed_by_rate_limit"] > 0, report
    assert details["tables_with_a_round"] == 2, report
    # The flooded tables' own players played, unhindered by errors.
    assert details["players_actions"] > 0 and details["players_errors"] == {}, report
    assert details["players_ack_ms"]["p99"] is not None, report
    # The spectators' frames, for the hidden-card scan: every table's events among them.
    assert {frame.code for frame in report.frames if '"events"' in frame.text} == set(details["codes"]), report
    assert all(frame.seat is None for frame in report.frames)
    assert report.rss_before is not None and report.rss_after is not None
