"""The load test tool (``ligretto.server.loadtest`` and ``loadclient``): the clients' card
mirror against the engine, and small real runs against a real server process."""

from __future__ import annotations

import json
import random
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import msgspec
import pytest

from ligretto import protocol
from ligretto.engine import RuleSet
from ligretto.engine.events import Applied
from ligretto.engine.serial import event_to_dict
from ligretto.engine.state import Round
from ligretto.engine.views import view
from ligretto.server.loadclient import Mirror
from ligretto.server.loadtest import _server_gc, main, parse_metrics, percentiles

MIRRORED = ("seat", "row", "stack_top", "stack_size", "discard_top", "discard_size", "hand_size", "voted", "piles")


def fields(mirror: Mirror) -> dict[str, object]:
    return {name: getattr(mirror, name) for name in MIRRORED}


@pytest.mark.parametrize(("preset", "players", "seed"), [("classic", 4, 1), ("classic", 2, 7), ("seed-es", 3, 5)])
def test_the_mirror_follows_the_engine_and_chooses_only_applicable_actions(
    preset: str, players: int, seed: int
) -> None:
    game = Round.deal(RuleSet.preset(preset), players, seed)
    mirrors = [Mirror.from_view(view(game, seat).to_dict()) for seat in range(players)]
    rng = random.Random(seed)
    decoder = msgspec.json.Decoder(protocol.ActionMsg)
    steps = 0
    while not game.over and steps < 5000:
        steps += 1
        seat = rng.randrange(players)
        choice = mirrors[seat].choose()
        if choice is None:
            continue
        _, message = choice
        action = protocol.to_action(seat, decoder.decode(msgspec.json.encode(message)))
        result = game.apply(action)
        assert isinstance(result, Applied), (message, result)  # one at a time: no races, no stale mirror
        events = [event_to_dict(event) for event in result.events]
        for mirror in mirrors:
            mirror.apply(events)
        for other in range(players):
            assert fields(mirrors[other]) == fields(Mirror.from_view(view(game, other).to_dict()))
    assert game.over


def test_percentiles_and_metrics_parsing() -> None:
    figures = percentiles([i / 1000 for i in range(1, 101)])
    assert (figures["p50"], figures["p95"], figures["p99"], figures["max"], figures["n"]) == (50, 95, 99, 100, 100)
    assert percentiles([])["p99"] is None
    text = '# HELP x\nligretto_actions_total 12.0\nligretto_action_latency_seconds_bucket{le="0.001"} 3.0\n'
    assert parse_metrics(text) == {
        "ligretto_actions_total": 12.0,
        'ligretto_action_latency_seconds_bucket{le="0.001"}': 3.0,
    }


def test_the_servers_gc_pauses_are_read_from_its_histogram() -> None:
    name = "ligretto_gc_pause_seconds"
    before = parse_metrics(
        f'{name}_bucket{{generation="2",le="0.01"}} 1.0\n{name}_bucket{{generation="2",le="0.025"}} 2.0\n'
        f'{name}_bucket{{generation="2",le="+Inf"}} 2.0\n{name}_count{{generation="2"}} 2.0\n'
        f'{name}_sum{{generation="2"}} 0.03\n'
    )
    after = parse_metrics(
        f'{name}_bucket{{generation="2",le="0.01"}} 1.0\n{name}_bucket{{generation="2",le="0.025"}} 4.0\n'
        f'{name}_bucket{{generation="2",le="+Inf"}} 4.0\n{name}_count{{generation="2"}} 4.0\n'
        f'{name}_sum{{generation="2"}} 0.07\n'
    )
    report = _server_gc(before, after)
    assert report["2"] == {"collections": 2, "total_ms": 40.0, "longest_under_ms": 25.0}
    assert report["0"] == {"collections": 0, "total_ms": 0.0, "longest_under_ms": None}


# --- a real run ----------------------------------------------------------------------------


@dataclass
class Served:
    url: str
    pid: int
    log: Path


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture
def load_server(tmp_path: Path) -> Iterator[Served]:
    """``ligretto.server.serve.run`` in its own process on a free port, with a fresh database."""
    port = _free_port()
    log = tmp_path / "server.log"
    code = (
        "from ligretto.server.serve import run; from ligretto.server.app import Settings; "
        f"run(Settings(port={port}, db={str(tmp_path / 'load.db')!r}, countdown_s=0.5), 'warning')"
    )
    with log.open("wb") as out:
        process = subprocess.Popen([sys.executable, "-c", code], stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 20
        while True:
            assert process.poll() is None, log.read_text()
            try:
                with urllib.request.urlopen(f"{url}/healthz", timeout=1) as reply:
                    if reply.status == 200:
                        break
            except OSError:  # a real process is starting: ask again until it listens
                assert time.monotonic() < deadline, "the server did not start:\n" + log.read_text()
                time.sleep(0.05)
        yield Served(url, process.pid, log)
    finally:
        process.terminate()
        process.wait(10)
    assert "Traceback" not in log.read_text(), log.read_text()


def test_a_small_load_test_reports_sane_figures(load_server: Served, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--url", load_server.url, "--tables", "3", "--players", "4", "--duration", "5"]
    argv += ["--level", "expert", "--speed", "5", "--server-pid", str(load_server.pid), "--json"]
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
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


def test_rounds_go_on_after_round_over(load_server: Served, capsys: pytest.CaptureFixture[str]) -> None:
    """Fast clients get through rounds: everyone sends ready and the next round is played."""
    argv = ["--url", load_server.url, "--tables", "1", "--players", "2", "--duration", "12"]
    argv += ["--level", "expert", "--speed", "8", "--json"]
    assert main(argv) == 0
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    assert report["rounds_completed"] >= 1
    assert report["errors"] == 0, report["error_samples"]
    # our server exports no process metrics: without --server-pid the memory is unknown
    assert report["server_memory"]["source"] is None
    assert report["targets"]["memory_under_100KiB_per_connection"] is None
    assert "pass --server-pid" in captured.err


def test_an_unreachable_server_is_counted_not_raised(capsys: pytest.CaptureFixture[str]) -> None:
    url = f"http://127.0.0.1:{_free_port()}"
    assert main(["--url", url, "--tables", "2", "--duration", "0.2", "--timeout", "2"]) == 1
    out = capsys.readouterr().out
    assert "tables started 0/2" in out
    assert "errors        2 {'create_table': 2}" in out
    assert "server memory unknown" in out
