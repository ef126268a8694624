"""The score keeper live, against a real server process: three phones on one sheet's
stream (Server-Sent Events) see every change, a correction and its undo; two phones
entering the same round at once lose nothing (one 200, one 409 with both entries, the
later one sent again); the streams end when the server stops.

The real clock only ever bounds a wait generously (a loaded machine is slow): the
streams are told on every change, never polled.  The tests on one server's sheets share the
module's server (each makes its own sheet); the one that stops its server has its own."""

from __future__ import annotations

import signal
import threading
import time
from pathlib import Path
from typing import Any

import msgspec
import pytest
from keeperclient import SheetStream, call, entry, new_sheet, put
from keepersheets import ONE
from keepersheets import PLAYERS as SHEET_PLAYERS

from ligretto.engine.rules import RuleSet
from ligretto.server.records.keeper import Keeper
from ligretto.server.web.sheets import LiveSheets
from realserver import ServerProcess

SEEDS = (18, 11, 9), (0, 3, 4)
GENEROUS_S = 5.0
"""The bound on "every phone sees it within a second", generous for a loaded machine."""

pytestmark = pytest.mark.shared_server


def test_three_streams_see_an_entry_a_correction_and_its_undo(server: Any) -> None:
    code = new_sheet(server)["code"]
    phones = [SheetStream(server, code) for _ in range(3)]
    for phone in phones:
        _, first = phone.next()
        assert (phone.status, phone.kind.split(";")[0]) == (200, "text/event-stream")
        assert first["version"] == 0 and first["code"] == code

    sent = time.monotonic()
    status, body = put(server, code, 1, entry(*SEEDS, 0), base=None, client_id="p1-1")
    assert status == 200
    for phone in phones:
        at, seen = phone.until(1, timeout=GENEROUS_S)
        assert seen == body  # the whole sheet, as the PUT answered it
        assert at - sent < GENEROUS_S

    status, fixed = put(server, code, 1, entry([18, 12, 9], [0, 3, 4], 0), base=1, client_id="p2-1", by="Bob")
    assert status == 200
    for phone in phones:
        assert phone.until(2)[1] == fixed
    status, undone = call(server, "POST", f"/api/sheets/{code}/undo", {"by": "Cleo", "id": "p3-1"})
    assert status == 200
    for phone in phones:
        _, seen = phone.until(3)
        assert seen == undone
        assert seen["rounds"][0]["entry"] == entry(*SEEDS, 0)
        assert [c["kind"] for c in seen["changes"]] == ["entry", "correction", "undo"]


def test_two_phones_entering_one_round_at_once_lose_nothing(server: Any) -> None:
    code = new_sheet(server)["code"]
    watcher = SheetStream(server, code)
    watcher.next()
    mine, theirs = entry(*SEEDS, 0), entry([18, 11, 10], [0, 3, 4], 0)
    answers: dict[str, tuple[int, Any]] = {}
    start = threading.Barrier(2)

    def enter(name: str, what: dict[str, Any]) -> None:
        start.wait()
        answers[name] = put(server, code, 1, what, base=None, client_id=name, by=name)

    threads = [threading.Thread(target=enter, args=args) for args in (("Alice", mine), ("Bob", theirs))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    statuses = sorted(status for status, _ in answers.values())
    assert statuses == [200, 409]
    winner = next(name for name, (status, _) in answers.items() if status == 200)
    loser = "Bob" if winner == "Alice" else "Alice"
    won, lost = (mine, theirs) if winner == "Alice" else (theirs, mine)
    conflict = answers[loser][1]
    assert conflict["error"] == "conflict" and conflict["message"]
    assert (conflict["theirs"], conflict["yours"], conflict["version"]) == (won, lost, 1)
    status, sheet = call(server, "GET", f"/api/sheets/{code}")
    assert sheet["rounds"][0]["entry"] == won and sheet["version"] == 1

    # the loser keeps theirs: sent again on the version the conflict gave
    status, resolved = put(server, code, 1, lost, base=conflict["version"], client_id=f"{loser}-2", by=loser)
    assert status == 200
    assert [c["after"] for c in resolved["changes"]] == [won, lost]  # both kept in the history
    assert watcher.until(2)[1] == resolved


def test_a_stale_correction_is_a_conflict_and_changes_nothing(server: Any) -> None:
    code = new_sheet(server)["code"]
    put(server, code, 1, entry(*SEEDS, 0), base=None, client_id="a")
    put(server, code, 1, entry([18, 12, 9], [0, 3, 4], 0), base=1, client_id="b")
    status, conflict = put(server, code, 1, entry([17, 11, 9], [0, 3, 4], 0), base=1, client_id="c")
    assert status == 409
    assert conflict["theirs"] == entry([18, 12, 9], [0, 3, 4], 0) and conflict["version"] == 2
    assert call(server, "GET", f"/api/sheets/{code}")[1]["version"] == 2
    # the same id once the conflict is resolved: it was never applied, so it is applied now
    status, body = put(server, code, 1, entry([17, 11, 9], [0, 3, 4], 0), base=2, client_id="c")
    assert status == 200 and body["version"] == 3


def test_a_stream_of_no_sheet_is_refused(server: Any) -> None:
    status, body = call(server, "GET", "/api/sheets/nosuchsheetcode0/events")
    assert (status, body["error"]) == (404, "no_sheet")


def test_the_streams_end_when_the_server_stops(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path / "ligretto.db", tmp_path / "server.log")
    server.start()
    try:
        code = new_sheet(server)["code"]
        phones = [SheetStream(server, code) for _ in range(2)]
        for phone in phones:
            phone.next()
    finally:
        server.stop()
    assert server.process is not None
    # a graceful stop (uvicorn ends by its SIGTERM again), not a SIGKILL after waiting for the streams
    assert server.process.returncode == -signal.SIGTERM
    for phone in phones:
        phone.join(GENEROUS_S)
        assert not phone.is_alive()
    assert "Traceback" not in server.log_text()


def test_live_sheets_tell_what_another_process_wrote_and_each_watched_sheet_again() -> None:
    """``LiveSheets``: the other processes' changes to the watchers; after a lost channel,
    every watched sheet as it is now, to the watchers that lack it only."""
    keeper = Keeper(clock=lambda: 5.0)
    kept = keeper.create(RuleSet(), SHEET_PLAYERS)
    watcher = keeper.watch(kept.code)
    live = LiveSheets(keeper)
    live.hear(kept.code, 1, b"one")
    assert watcher.take() == b"one"
    keeper.change(kept.code, lambda now: now.entry(1, ONE, None, by="A", client_id="a", now=5.0))
    keeper.change(kept.code, lambda now: now.entry(2, ONE, None, by="A", client_id="b", now=6.0))
    live.resync()  # version 2 was never told here
    told = watcher.take()
    assert told is not None and msgspec.json.decode(told)["version"] == 2
    live.resync()
    assert watcher.take() is None
