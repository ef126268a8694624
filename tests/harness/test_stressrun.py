"""``ligretto stress`` (``harness/stressrun.py``): every scenario of the stress harness
against a fresh real server (or, for Redis down, PostgreSQL restarted and a rolling restart,
a service of its own: a real redis-server, PostgreSQL cluster and two processes), quick, in
one run (``--scale quick``); and the harness's own checks, which a scenario cannot fake: a
server that died or logged a traceback is a crash, a frame naming a hidden card is found by
the scan, any must-be-zero figure makes it exit 1; a machine without ``redis-server`` is
told so in one line.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from ligretto.cli import main as cli_main
from ligretto.harness import stressrun as harness
from ligretto.harness.scenario import ScenarioReport
from ligretto.harness.stressrun import SCALES, SCENARIOS, Scenario, run_scenario
from ligretto.testkit import programs
from ligretto.testkit.scans import Frame
from ligretto.testkit.serverprocess import ServerProcess
from pgserver import ensure_postgres
from redisserver import ensure_redis


def test_every_scenario_quick_against_fresh_servers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ensure_redis()  # the scenarios of a service start their own (Debian's packages)
    ensure_postgres()
    out = tmp_path / "reports.json"
    code = cli_main(["stress", "--scale", "quick", "--folder", str(tmp_path / "servers"), "--json", str(out)])
    table = capsys.readouterr().out
    reports = {r["scenario"]: r for r in json.loads(out.read_text())}
    assert code == 0, table
    assert list(reports) == list(SCENARIOS)
    for name, report in reports.items():
        assert report["tried"] > 0 and report["failures"] == [], report
        assert report["details"]["server_tracebacks"] == 0, name
        assert f"| {name} |" in table
    for name in ("malformed", "idle"):
        assert reports[name]["wrong_answers"] == 0 and reports[name]["other_p99_ms"] is not None
    assert reports["malformed"]["state_changes"] == 0
    for name in ("floods", "races", "kills"):
        # the frames the scenario's clients received, scanned against the replay
        assert reports[name]["hidden_cards"] == 0 and reports[name]["frames_scanned"] > 0, name
        assert reports[name]["cards_lost"] == 0, name
    assert reports["races"]["acks_lost"] == 0 and reports["kills"]["acks_lost"] == 0
    assert reports["kills"]["tried"] == SCALES["quick"].kills and reports["kills"]["other_p99_ms"] is None
    _lobby_and_query_checks(reports)
    _service_checks(reports)


def _lobby_and_query_checks(reports: dict[str, Any]) -> None:
    """What the lobby scenarios and the bad numbers found, beyond their zeros."""
    flood = reports["lobby_flood"]["details"]
    flooders = flood["flooders"]
    # every flooding connection closed by the server: 1008 after its rate_limited error (or, rarely,
    # reset before the client read them: at quick scale the cool-down lets one connection in, which
    # a loaded run once saw reset); a newcomer still listed
    codes = flooders["close_codes"]
    assert flooders["connections"] > 0 and codes.get("1008", 0) + codes.get("1006", 0) == flooders["connections"], codes
    assert flooders["warned"] == codes.get("1008", 0) and flood["newcomer_list"]["tables_shown"] > 0
    idle = reports["lobby_idle"]["details"]
    assert reports["lobby_idle"]["over_bound"] == 0 and idle["listings_while_held"] <= idle["listings_at_most"]
    assert idle["opened"] == SCALES["quick"].lobby_sockets and idle["bytes_per_socket"] is not None
    for name in ("lobby_flood", "lobby_idle"):  # before and during, side by side
        report = reports[name]
        assert report["window"] is not None and len(report["details"]["other_tables"]["windows"]) == 3, name
        assert set(report["details"]["before"]) == {"other_p99_ms", "server_cpu_percent"}, name
        assert report["details"]["server_cpu_percent"] is not None, name
    queries = reports["queries"]["details"]
    assert queries["answers_by_status"] == {
        "400": 5 * queries["bad_numbers"],
        "404": queries["bad_numbers"] + queries["bad_seats"],
    }
    assert queries["refusals_counted_by_the_server"]["bad_query"] == 5 * queries["bad_numbers"]


def _service_checks(reports: dict[str, Any]) -> None:
    """What the scenarios of a service found, beyond their zeros: every acknowledged action
    checked against the database, every frame scanned; Redis away answered 503 and 1013,
    none of its tables taken over, each process ready again; PostgreSQL restarted twice, the
    killed process's tables taken over and played again; each process restarted, the tables
    spread again; nobody ejected."""
    for name in ("redis_down", "postgres_restart", "rolling_restart"):
        report, details = reports[name], reports[name]["details"]
        assert report["acks_lost"] == 0 and details["acked"] > 0 and details["ejected_count"] == 0, name
        assert report["hidden_cards"] == 0 and report["frames_scanned"] > 0 and report["cards_lost"] == 0, name
        assert details["mirror_problems"] == 0 and details["clients_not_back"] == 0, name
    down = reports["redis_down"]["details"]
    for outage in ("stopped", "hung"):
        assert set(down["creations"][outage]["while_away"]) == {"503 unavailable"}, down["creations"]
        assert None not in down["ready_after_s"][outage].values()
    assert down["spurious_take_overs"] == 0 and down["closes"].get("1013", 0) > 0, down  # told to try again, and did
    assert down["back_before_redis"]["stopped"] == down["dropped_each_time"], "back through the owner meanwhile"
    restart = reports["postgres_restart"]["details"]
    assert [r["mode"] for r in restart["restarts"]] == ["fast", "immediate"]
    assert all(None not in r["ready_after_s"].values() for r in restart["restarts"])
    assert restart["take_overs"] >= restart["kill"]["tables"] > 0 and restart["restores_given_up"] == 0
    assert restart["kill"]["committed_again"] and restart["interrupted_s"]["n"] > 0, restart["kill"]
    rolling = reports["rolling_restart"]["details"]
    assert len(rolling["restarts"]) == SCALES["quick"].service_processes and rolling["tables_lost"] == 0
    assert rolling["spread_after_s"] is not None and rolling["interrupted_s"]["n"] > 0, rolling


def _scenario(run: harness.Run) -> Scenario:
    return Scenario("probe", run, measured=False)


def test_a_server_that_dies_under_a_scenario_is_a_crash_and_a_leak_is_found(tmp_path: Path) -> None:
    async def kill_it(server: ServerProcess, scale: harness.Scale, seed: int) -> ScenarioReport:
        code = server.create_table(2)
        server.kill()
        # a frame naming a card of a round the database does not hold: counted by the scan
        frame = Frame(code, 0, json.dumps({"type": "events", "round": 1, "seq": 0, "by": 0, "events": []}))
        leak = Frame(
            code,
            0,
            json.dumps(
                {"type": "snapshot", "round": 1, "view": {"viewer": 0, "areas": [{"seat": 0, "row": [["r5"]]}]}}
            ),
        )
        return ScenarioReport("probe", "probes", 1, 0.0, frames=[frame, leak])

    report = asyncio.run(run_scenario(_scenario(kill_it), SCALES["quick"], tmp_path))
    assert report.crashes == 1 and "crashes" in report.failures
    assert report.hidden_cards and report.frames_scanned == 2 and "hidden_cards" in report.failures


def test_any_must_be_zero_figure_makes_the_command_exit_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    async def loses_a_card(server: ServerProcess, scale: harness.Scale, seed: int) -> ScenarioReport:
        return ScenarioReport("probe", "probes", 1, 0.0, cards_lost=1)

    monkeypatch.setitem(SCENARIOS, "probe", _scenario(loses_a_card))
    assert harness.main(["--scenarios", "probe", "--folder", str(tmp_path)]) == 1
    assert "| probe | 1 probes | 0 | - | - | 1 |" in capsys.readouterr().out
    assert harness.main(["--scenarios", "nope"]) == 2
    capsys.readouterr()
    monkeypatch.setattr(programs, "redis_server", lambda: None)  # a machine without it
    assert harness.main(["--scenarios", "races,redis_down"]) == 1  # what the command needs is missing: 1
    error = capsys.readouterr().err
    assert (
        error
        == "ligretto stress: redis-server is not on this machine: install it (Debian: apt-get install redis-server)\n"
    )
