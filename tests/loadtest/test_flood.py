"""The flooding clients of ``ligretto loadtest --flood`` (``loadtest/flood.py``) against a
real server: cut off by its rate limit, they come back with their seat token and flood
again, and the table they flood stays playable for its own people."""

from __future__ import annotations

import asyncio
from pathlib import Path

from ligretto.loadtest.flood import run_flood
from ligretto.loadtest.run import server_urls
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
    # Straight back after a close, the seat is cooling down (2 s): refused, then let in.
    assert report["cooling"] > 0 and closed >= 2, report
    assert 'ligretto_bad_messages_total{code="rate_limited"}' in text
