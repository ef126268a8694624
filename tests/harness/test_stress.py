"""The stress harness (``harness/stress.py``, ``idle.py``, ``tableflood.py``) against a
real server: every kind of malformed message at tables in every phase is refused once,
changes no table, crashes nothing; a frame past the largest the server reads closes its
connection with 1009 and the seat comes back by its token; invalid UTF-8 closes its
connection with 1007; idle WebSockets and half-sent HTTP headers are closed by the
server's deadlines (or refused at the door over the per-address cap); a table-creation
flood is held to its quota and the lobby list to its cap."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ligretto.harness.idle import run_idle
from ligretto.harness.kinds import KINDS, PHASES
from ligretto.harness.stress import main, run_malformed
from ligretto.harness.tableflood import run_table_flood
from realserver import ServerProcess, running


def test_malformed_messages_in_every_phase_are_each_refused_and_change_nothing(tmp_path: Path) -> None:
    # A raised rate limit, so the harness need not pace itself in a test; batches of 8.
    with running(ServerProcess.in_folder(tmp_path, rate_per_s=10_000.0, burst=10_000)) as server:
        report = asyncio.run(run_malformed(server.url, tables=2, count=10 * len(KINDS), utf8=3, batch=8))
        assert server.healthy()
    tables = 2 * len(PHASES)
    for phase in PHASES:
        assert report.details["by_phase"][phase] == dict.fromkeys(KINDS, 20) | {"frame_too_big": 2}, report
    assert report.details["tried"] == dict.fromkeys(KINDS, 20 * len(PHASES)) | {
        "frame_too_big": tables,
        "invalid_utf8": 3,
    }, report
    assert report.tried == 10 * len(KINDS) * tables + tables + 3
    assert report.details["not_refused_once"] == {}, report
    assert (report.crashes, report.state_changes, report.failures) == (0, 0, []), report
    # Every table's views were compared (a countdown's only while it lasted), and the
    # refusals came for the reasons of each phase.
    assert report.details["views_compared"] >= tables - 2, report
    codes = report.details["refusals_by_code"]
    for code in ("not_playing", "countdown", "started", "not_scoring", "already_joined", "too_large", "malformed"):
        assert codes.get(code, 0) > 0, codes


@pytest.fixture(scope="module")
def deadlines(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server with short deadlines (1 s for a hello and for an HTTP request), so the idle
    tests take seconds: one for the module (their connections are all closed by the end of
    each), its log checked for a traceback at the end."""
    with running(
        ServerProcess.in_folder(tmp_path_factory.mktemp("deadlines"), hello_s=1.0, request_timeout_s=1.0)
    ) as server:
        yield server


def test_idle_and_half_open_connections_are_each_closed_by_the_server_within_its_deadline(
    deadlines: ServerProcess,
) -> None:
    # The idle sockets ping (a ping is no hello), so only the hello deadline (4003) can
    # close them, not the silence deadline (4002).
    report = asyncio.run(run_idle(deadlines.url, 6, 6, ping_s=0.2, hello_s=1.0, request_timeout_s=1.0, margin_s=1.5))
    assert deadlines.healthy()
    sockets, half = report.details["websockets_without_hello"], report.details["half_open_http"]
    assert (sockets["tried"], sockets["closed_by_server"], sockets["closed_in_time"]) == (6, 6, 6), report
    assert sockets["close_codes"] == {"4003": 6}, report
    # Closed by the deadline, not at once (the harness sees a socket open a little after
    # the server starts its deadline).
    assert sockets["shortest_open_s"] >= 0.8, report
    assert (half["tried"], half["closed_by_server"], half["closed_in_time"]) == (6, 6, 6), report
    assert half["shortest_open_s"] >= 0.8, report
    assert report.details["healthz_during"]["probes"] > 0 and report.crashes == 0, report
    assert (report.scenario, report.tried, report.failures) == ("idle", 12, []), report


def test_idle_sockets_over_the_per_address_cap_are_refused_at_the_door(tmp_path: Path) -> None:
    with running(ServerProcess.in_folder(tmp_path, hello_s=1.0, connections_per_address=4)) as server:
        report = asyncio.run(run_idle(server.url, 7, 0, ping_s=0.2, hello_s=1.0, margin_s=1.5))
    sockets = report.details["websockets_without_hello"]
    assert sockets["refused"] == {"429": 3} and sockets["closed_in_time"] == 4, report


def test_a_table_creation_flood_from_one_address_is_held_to_its_quota_and_the_lobby_stays_capped(
    tmp_path: Path,
) -> None:
    with running(ServerProcess.in_folder(tmp_path, tables_per_minute=5, lobby_tables=3)) as server:
        report = asyncio.run(run_table_flood(server.url, 9))
        assert server.healthy()
    details = report.details
    assert (report.tried, details["made"], details["refused"]) == (9, 5, {"too_many_tables": 4}), report
    assert details["lobby_before"]["tables_public"] == 0, report
    after = details["lobby_after"]
    assert (after["tables_public"], after["tables_shown"]) == (5, 3), report
    assert after["ws_lobby_bytes"] > details["lobby_before"]["ws_lobby_bytes"], report
    assert report.crashes == 0


def test_the_command_runs_a_scenario_and_exits_0_when_nothing_is_wrong(tmp_path: Path, capsys: Any) -> None:
    with running(ServerProcess.in_folder(tmp_path, tables_per_minute=2)) as server:
        code = main(["--scenario", "tables", "--url", server.url, "--creations", "3"])
    report = json.loads(capsys.readouterr().out)
    details = report["details"]
    assert code == 0 and (details["made"], details["refused"]) == (2, {"too_many_tables": 1}), report
    assert (report["scenario"], report["tried"], report["failures"]) == ("tables", 3, []), report


def test_an_attacker_cut_off_by_the_rate_limit_is_reported_and_the_command_exits_1(tmp_path: Path, capsys: Any) -> None:
    # The default limit (a burst of 40) closes an unpaced attacker: not a server fault, but
    # not a clean run either, and the report must say so rather than end in a traceback.
    with running(ServerProcess.in_folder(tmp_path)) as server:
        code = main(["--url", server.url, "--tables", "1", "--count", "200", "--rate", "0", "--utf8", "1"])
        assert server.healthy()
    report = json.loads(capsys.readouterr().out)
    assert code == 1 and report["crashes"] == 0, report
    assert report["details"]["not_refused_once"] == {"attacker_lost": 5}, report
    assert all("1008" in lost for lost in report["details"]["attackers_lost"]), report


def test_idle_connections_are_opened_at_the_rate_asked_for(deadlines: ServerProcess) -> None:
    """``--open-rate``: the idle scenario paces its connections (8 a second here)."""
    report = asyncio.run(run_idle(deadlines.url, 8, 0, ping_s=0.0, hello_s=1.0, margin_s=1.5, open_rate=8.0))
    assert report.wrong_answers == 0 and report.details["websockets_without_hello"]["closed_in_time"] == 8, report
    assert report.details["opened_per_s"] <= 10.0, report  # 8 openings take 7/8 s at least (unpaced: hundreds a second)
