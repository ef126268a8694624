"""``benchmarks/barestack.py``, the bare stack issue 31's figures compare ligretto with: its
server answers an act with an ack to the sender and the events to the whole table, and
its load client measures both as ``ligretto loadtest`` does."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from ligretto.testkit.serverprocess import free_port

BARESTACK = Path(__file__).resolve().parents[2] / "benchmarks" / "barestack.py"


def test_two_tables_of_three_get_their_acks_and_every_other_seat_the_events() -> None:
    port = free_port()
    server = subprocess.Popen([sys.executable, str(BARESTACK), "serve", "--port", str(port)])
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=1)
            except urllib.error.HTTPError:
                break  # it answers: 404 for a page, as it has none
            except OSError:
                assert time.monotonic() < deadline, "the bare server never listened"
                time.sleep(0.1)
        out = subprocess.run(
            [
                sys.executable,
                str(BARESTACK),
                "load",
                "--url",
                f"ws://127.0.0.1:{port}/ws",
                "--tables",
                "2",
                "--players",
                "3",
                "--duration",
                "3",
                "--warm",
                "0.5",
                "--level",
                "expert",
                "--server-pid",
                str(server.pid),
            ],
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        ).stdout
    finally:
        server.terminate()
        server.wait(10)
    report = json.loads(out)
    assert report["errors"] == 0 and report["connections"] == 6, report["error_kinds"]
    acks, fanouts = report["ack_ms"]["n"], report["fanout_ms"]["n"]
    # six players at an expert's pace for 3 s: about an act a second each
    assert acks >= 6, report
    # each act's events reach the two other seats of its table (a few of the last acts'
    # events may come after the window's end)
    assert 2 * acks - 4 <= fanouts <= 2 * acks + 4, report
    assert report["ack_ms"]["p50"] > 0 and report["server_cpu_percent"] is not None
    assert report["server_rss_bytes"] > 10_000_000
