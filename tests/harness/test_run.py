"""``ligretto loadtest`` (``ligretto.harness.run``): small real runs against a real
server process, with ``http://`` and ``ws://`` URLs."""

from __future__ import annotations

import gc
import json
import time
from collections.abc import Iterator

import pytest

from ligretto.harness import run
from ligretto.harness.probes import Cpu
from ligretto.harness.run import main, server_urls
from realserver import ServerProcess, running


def test_the_server_is_named_by_its_http_or_its_websocket_url() -> None:
    assert server_urls("http://127.0.0.1:8000") == ("http://127.0.0.1:8000", "ws://127.0.0.1:8000/ws")
    assert server_urls("ws://127.0.0.1:8000/") == ("http://127.0.0.1:8000", "ws://127.0.0.1:8000/ws")
    assert server_urls("ws://h:1/ws") == ("http://h:1", "ws://h:1/ws")
    assert server_urls("wss://example.org/ligretto") == (
        "https://example.org/ligretto",
        "wss://example.org/ligretto/ws",
    )
    assert server_urls("https://example.org") == ("https://example.org", "wss://example.org/ws")
    for bad in ("ftp://h", "127.0.0.1:8000", "ws://"):
        with pytest.raises(ValueError, match="bad server URL"):
            server_urls(bad)


def test_a_bad_url_is_a_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--url", "ftp://127.0.0.1", "--duration", "1"]) == 2
    assert "ligretto loadtest: error: bad server URL" in capsys.readouterr().err


# --- a real run ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def load_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """``ligretto serve`` in its own process with a fresh database and the production rate
    limit: one for the module (each test makes tables of its own; a restart is no test's
    subject), its log checked for a traceback once every test that used it has run."""
    with running(ServerProcess.in_folder(tmp_path_factory.mktemp("load_server"))) as process:
        yield process


def test_a_small_load_test_reports_sane_figures(
    load_server: ServerProcess, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    argv = ["--url", load_server.url, "--tables", "3", "--players", "4", "--duration", "3"]
    argv += ["--level", "expert", "--speed", "5", "--server-pid", str(load_server.pid), "--json"]
    moments: dict[str, float] = {}
    monkeypatch.setattr(gc, "freeze", lambda: moments.setdefault("frozen", time.perf_counter()))
    measuring = Cpu.__init__

    def cpu_from(self: Cpu, pid: int | None) -> None:
        moments["window"] = time.perf_counter()
        measuring(self, pid)

    monkeypatch.setattr(Cpu, "__init__", cpu_from)
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    # The window opens once the clients have caught up on the collection that froze them.
    assert report["settle_s"] == run.SETTLE_S > 0
    assert moments["window"] - moments["frozen"] >= run.SETTLE_S
    assert (report["tables_created"], report["tables_started"]) == (3, 3)
    assert (report["connections"], report["connections_failed"]) == (12, 0)
    assert report["errors"] == 0, report["error_samples"]
    assert report["error_kinds"] == {} and report["error_samples"] == []
    assert report["actions"] > 0 and report["actions_per_s"] > 0
    assert report["actions"] + report["late_actions"] <= report["actions_sent"]
    # Alone at a table nobody loses a race; with four the only refusals are lost races.
    assert set(report["refusal_reasons"]) <= {"does_not_fit", "pile_complete"}
    assert report["refusals"] == sum(report["refusal_reasons"].values())
    for name in ("ack_ms", "fanout_ms"):
        figures = report[name]
        assert figures["n"] > 0
        assert 0 < figures["p50"] <= figures["p95"] <= figures["p99"] <= figures["max"]
    # every applied action reaches the three other players of its table
    # Every applied action reaches the 3 other clients.  At the window's end an action whose
    # events arrived in time may see its ack after the window: each of the 12 clients has at
    # most one action in flight, so at most 12 such actions.
    applied = report["actions"] - report["refusals"]
    assert 3 * applied <= report["fanout_ms"]["n"] <= 3 * (applied + 12)
    assert report["server_action_ms"]["actions"] >= report["actions"]
    assert set(report["server_gc"]) == {"0", "1", "2"}
    lag = report["server_loop_lag_ms"]
    assert lag["looks"] > 0 and lag["p99_bucket_ms"] > 0, "the server's loop looked at 20 times a second"
    assert report["loadtest_gc_ms"]["collections"] == 0, "no collection of the load test's pauses its clients"
    assert gc.isenabled(), "collecting again after the window"
    memory = report["server_memory"]
    assert memory["source"] == f"/proc/{load_server.pid}/status"
    assert memory["rss_before_bytes"] > 10 * 2**20 and memory["rss_after_bytes"] > 10 * 2**20
    assert isinstance(memory["per_connection_bytes"], int)
    assert set(report["targets"]) == {
        "ack_p99_under_50ms",
        "fanout_p99_under_100ms",
        "zero_errors",
        "memory_under_100KiB_per_connection",
    }
    assert report["targets"]["zero_errors"] is True
    assert report["cpu"]["server_percent"] > 0 and report["cpu"]["loadtest_percent"] > 0


def test_rounds_go_on_after_round_over_and_a_websocket_url_names_the_server_too(
    load_server: ServerProcess, capsys: pytest.CaptureFixture[str]
) -> None:
    """Fast clients get through rounds: everyone sends ready and the next round is played.
    The run is given the server's ``ws://`` URL, which used to make every table fail with
    ``unknown url type``."""
    ws_url = "ws" + load_server.url.removeprefix("http") + "/ws"
    argv = ["--url", ws_url, "--tables", "1", "--players", "2", "--duration", "12"]
    argv += ["--level", "expert", "--speed", "8", "--json"]
    assert main(argv) == 0
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    assert (report["tables_created"], report["tables_started"], report["connections"]) == (1, 1, 2)
    assert report["actions"] > 0
    assert report["rounds_completed"] >= 1
    assert report["errors"] == 0, report["error_samples"]
    # our server exports no process metrics: without --server-pid the memory is unknown
    assert report["server_memory"]["source"] is None
    assert report["targets"]["memory_under_100KiB_per_connection"] is None
    assert "pass --server-pid" in captured.err


def test_a_flooding_client_runs_beside_the_measured_tables(
    load_server: ServerProcess, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--flood 1``: one flooding client at a table of its own, in its own process; the
    measured tables still play without an error, and the report says what it offered."""
    argv = ["--url", load_server.url, "--tables", "1", "--players", "2", "--duration", "2"]
    argv += ["--speed", "5", "--flood", "1", "--json"]
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["errors"] == 0, report["error_samples"]
    assert report["actions"] > 0
    flood = report["flood"]
    assert flood["clients"] == 1 and flood["errors"] == {}, flood
    assert flood["offered"] > 40 and sum(flood["close_codes"].values()) >= 1, flood
