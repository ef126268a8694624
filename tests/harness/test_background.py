"""The stress harness's measuring tables (``harness/background.py``): in a process of
their own, they play, measure the ack latency between two marks (now, or at times a
scenario noted), and are created from another loopback address, so a per-address quota
counts only the harness's attack."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from ligretto.harness.background import Background
from realserver import ServerProcess, running


def test_the_measuring_tables_play_between_the_marks_and_do_not_use_the_attacks_quota(tmp_path: Path) -> None:
    async def measure(server: ServerProcess) -> dict:
        background = Background(server.url, 1, players=3, level="machine")
        await background.start()
        await background.mark()
        start = time.perf_counter()
        await asyncio.sleep(2.0)
        await background.mark()
        # windows noted by their times (another process's perf_counter): the first second, and one yet to come
        for at in (start, start + 1.0, start + 100.0, start + 101.0):
            await background.mark(at)
        return await background.stop()

    with running(ServerProcess.in_folder(tmp_path, tables_per_minute=1)) as server:
        measured = asyncio.run(measure(server))
        # the one table this minute from 127.0.0.1 is still there for the attack
        assert server.http("POST", "/api/tables", {"seats": 2})[0] == 201
        assert server.http("POST", "/api/tables", {"seats": 2})[0] == 429
    assert measured["tables_started"] == 1 and measured["errors"] == {}, measured
    window, first_second, to_come = measured["windows"]
    assert window["actions"] > 0 and window["p99"] is not None and window["p99"] >= window["p50"] > 0, measured
    assert 0 < first_second["actions"] < window["actions"] and to_come["actions"] == 0, measured
