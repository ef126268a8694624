"""``ligretto simulate`` as a user runs it: a real process, real files (its one-line errors:
tests/cli/test_errors.py)."""

from __future__ import annotations

import csv
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ligretto import bench

BOTS = "smart:expert,greedy:machine,random:expert"


def ligretto(*args: str | Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ligretto", *map(str, args)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        env=env,
    )


def test_simulate_prints_tables_and_writes_json_csv_and_png(tmp_path: Path) -> None:
    files = {name: tmp_path / f"run.{name}" for name in ("json", "csv", "png")}
    done = ligretto(
        "simulate",
        "--players", "3", "--rounds", "6", "--bots", BOTS, "--seed", "5", "--workers", "2",
        "--rules", "seed-es", "--set", "stack_penalty=3",
        "--json", files["json"], "--csv", files["csv"], "--plot", files["png"],
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""  # no progress bar when stderr is not a terminal, no warnings
    for text in ("1 smart:expert", "2 greedy:machine", "3 random:expert", "Per bot", "Rounds (6)", "ended by:"):
        assert text in done.stdout
    # the rules as `--set` writes them (never Python's True/False)
    changed = "short_turn=recycle, recycle_shuffle=false, stack_penalty=3, floor_at_zero=true"
    assert done.stdout.startswith(f"3 players, rules {changed}, 6 deals"), done.stdout.splitlines()[0]
    data = json.loads(files["json"].read_text())
    assert set(data) == {"config", "rounds", "summary"}
    assert data["config"]["rules"]["short_turn"] == "recycle"  # seed-es
    assert data["config"]["rules"]["stack_penalty"] == 3
    assert (data["config"]["players"], data["config"]["seed"], data["config"]["workers"]) == (3, 5, 2)
    assert len(data["rounds"]) == 6
    rows = list(csv.reader(files["csv"].open(newline="")))
    assert rows[0][:4] == ["round", "seed", "rotation", "seat"]
    assert len(rows) == 1 + 6 * 3
    assert files["png"].read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


def test_the_same_seed_gives_the_same_rounds_on_any_number_of_workers(tmp_path: Path) -> None:
    outputs = []
    for workers in ("1", "2"):
        path = tmp_path / f"w{workers}.json"
        args = ("--players", "4", "--rounds", "5", "--duplicate", "--seed", "8", "--bots", "smart:expert")
        done = ligretto("simulate", *args, "--workers", workers, "--quiet", "--json", path)
        assert done.returncode == 0, done.stderr
        outputs.append(json.loads(path.read_text()))
    assert outputs[0]["rounds"] == outputs[1]["rounds"]
    assert outputs[0]["summary"] == outputs[1]["summary"]
    assert len(outputs[0]["rounds"]) == 5 * 4


def test_latency_and_fair_judging_from_the_command_line(tmp_path: Path) -> None:
    path, table = tmp_path / "run.json", tmp_path / "run.csv"
    args = ("--players", "2", "--rounds", "20", "--bots", "smart:expert", "--seed", "3", "--quiet", "--workers", "1")
    done = ligretto(
        "simulate", *args, "--latency", "10,100", "--jitter", "0,5", "--arbitration", "fair", "--window", "100",
        "--json", path, "--csv", table,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "latency 10,100 ms + jitter 0,5 ms, fair judging (window 100 ms, cap 150 ms)" in done.stdout
    for text in ("Per seat: races for a pile", "races won", "share won"):
        assert text in done.stdout
    data = json.loads(path.read_text())
    assert data["config"]["latency"] == {
        "delay_ms": [10.0, 100.0],
        "jitter_ms": [0.0, 5.0],
        "arbitration": "fair",
        "window_ms": 100.0,
        "cap_ms": 150.0,
    }
    seats = data["summary"]["seats"]
    assert [seat["delay_ms"] for seat in seats] == [10.0, 100.0]
    for seat in (0, 1):
        assert seats[seat]["races_won"] == sum(item["races_won"][seat] for item in data["rounds"])
        assert seats[seat]["races_lost"] == sum(item["races_lost"][seat] for item in data["rounds"])
    assert sum(seat["races_won"] for seat in seats) > 0
    rows = list(csv.DictReader(table.open(newline="")))
    assert sum(int(row["races_won"]) for row in rows) == sum(seat["races_won"] for seat in seats)
    # without --latency: the same deals at the table, another round
    plain = ligretto("simulate", *args, "--json", tmp_path / "plain.json")
    assert plain.returncode == 0, plain.stderr
    assert json.loads((tmp_path / "plain.json").read_text())["rounds"] != data["rounds"]


def test_in_duplicate_mode_the_heading_says_the_delays_stay_with_the_seats() -> None:
    done = ligretto(
        "simulate", "--players", "2", "--rounds", "2", "--bots", "smart:expert,greedy:expert", "--duplicate",
        "--latency", "10,100", "--quiet", "--workers", "1",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "(the delays stay with the seats)" in done.stdout


def test_matches_mode_plays_until_match_end(tmp_path: Path) -> None:
    path = tmp_path / "matches.json"
    done = ligretto(
        "simulate", "--players", "2", "--matches", "3", "--bots", "smart:expert",
        "--set", "match_end=rounds:2", "--quiet", "--json", path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "match wins" in done.stdout
    data = json.loads(path.read_text())
    assert [m["rounds"] for m in data["matches"]] == [2, 2, 2]
    assert [r["match"] for r in data["rounds"]] == [1, 1, 2, 2, 3, 3]


def test_bench_reports_the_simulator_with_one_and_two_workers() -> None:
    done = ligretto("bench", "--json", "--only", "sim", "--sim-rounds", "30")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert "engine_actions_per_s" not in report
    assert report["sim_rounds_per_repeat"] == 30
    assert len(report["sim_rounds_per_s_repeats"]) == len(report["sim_rounds_per_s_2_workers_repeats"]) == 5
    assert report["sim_rounds_per_s_best"] == max(report["sim_rounds_per_s_repeats"])
    assert report["sim_rounds_per_s_2_workers_best"] == max(report["sim_rounds_per_s_2_workers_repeats"])

    # The speed-ups are ratios of the unrounded rates; the rates are reported rounded to
    # whole rounds a second, which moves their ratio by up to half a round each.
    def ratio(two: int, one: int) -> tuple[float, float]:
        return two / one, 0.01 + two / one * (0.5 / one + 0.5 / two)

    best, slack = ratio(report["sim_rounds_per_s_2_workers_best"], report["sim_rounds_per_s_best"])
    assert report["sim_speedup_2_workers_best"] == pytest.approx(best, abs=slack)
    assert report["sim_rounds_per_s"] > 0 and report["sim_rounds_per_s_2_workers"] > 0
    expected, slack = ratio(report["sim_rounds_per_s_2_workers"], report["sim_rounds_per_s"])
    assert report["sim_speedup_2_workers"] == pytest.approx(expected, abs=slack)
    both = json.loads(ligretto("bench", "--json", "--actions", "3000", "--repeats", "2").stdout)
    assert {"engine_actions_per_s", "sim_rounds_per_s", "sim_rounds_per_s_2_workers", "sim_speedup_2_workers"} <= set(
        both
    )
    assert both["sim_rounds_per_repeat"] == 3000 // bench.ACTIONS_PER_SIM_ROUND
    assert len(both["sim_rounds_per_s_repeats"]) == len(both["engine_actions_per_s_repeats"]) == 2


def test_help_still_works() -> None:
    done = ligretto("simulate", "-h")
    assert done.returncode == 0
    for option in ("--players", "--rounds", "--matches", "--bots", "--duplicate", "--workers", "--plot"):
        assert option in done.stdout


def test_import_registers_a_users_strategy(tmp_path: Path) -> None:
    (tmp_path / "my_bots.py").write_text(
        "from ligretto.bots import Strategy, register\n"
        "from ligretto.engine import Turn\n\n"
        "@register('turner')\n"
        "class Turner(Strategy):\n"
        "    def choose(self, seen):\n"
        "        return next((a for a in seen.legal_actions() if isinstance(a, Turn)), None)\n"
    )
    out = tmp_path / "out.json"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "ligretto",
            "simulate",
            "--import",
            "my_bots",
            "--bots",
            "turner:machine,smart:machine",
            "--players",
            "2",
            "--rounds",
            "3",
            "--workers",
            "1",
            "--quiet",
            "--json",
            str(out),
        ],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
    )
    assert result.returncode == 0, result.stderr
    data = json.loads(out.read_text())
    assert data["rounds"][0]["bots"] == ["1 turner:machine", "2 smart:machine"]
    # the turner never plays a card: nothing of its own reaches the center
    assert all(r["center"][0] == 0 for r in data["rounds"])


# --- on Ray ---------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[tuple[str, dict[str, str]]]:
    """A real one-node Ray cluster (``ray start --head``: 2 CPUs, no dashboard, a small object
    store, its own token), stopped by its process id; yields its address and the environment
    a driver needs to join it (Ray's token authentication)."""
    port = free_port()
    env = {**os.environ, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32)}
    env["RAY_USAGE_STATS_ENABLED"] = "0"
    temp = tempfile.mkdtemp(prefix="ray", dir="/tmp")  # short: Ray's sockets live under it
    ray = str(Path(sys.executable).with_name("ray"))
    log = Path(temp) / "head.log"
    command = [ray, "start", "--head", "--block", "--port", str(port), "--num-cpus", "2", "--temp-dir", temp]
    command += ["--include-dashboard", "false", "--object-store-memory", str(80 * 2**20)]
    with log.open("w") as out:
        head = subprocess.Popen(
            command,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
        )
    try:
        deadline = time.monotonic() + 90
        while "Ray runtime started" not in log.read_text():
            assert head.poll() is None, log.read_text()
            assert time.monotonic() < deadline, f"the Ray head did not start in 90 s: {log.read_text()}"
            time.sleep(0.2)
        yield f"127.0.0.1:{port}", env
    finally:
        head.terminate()  # `ray start --block` stops its own processes on SIGTERM
        head.wait(timeout=60)
        shutil.rmtree(temp, ignore_errors=True)


def simulate_to_files(tmp_path: Path, name: str, *args: str, env: dict[str, str] | None = None) -> list[str]:
    """Run ``ligretto simulate`` writing JSON and CSV; give back its stdout and the two files' text."""
    json_path, csv_path = tmp_path / f"{name}.json", tmp_path / f"{name}.csv"
    done = ligretto("simulate", *args, "--quiet", "--json", json_path, "--csv", csv_path, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stderr == "", done.stderr  # no Ray chatter
    return [done.stdout, json_path.read_text(), csv_path.read_text()]


def test_simulate_on_a_ray_cluster_writes_the_files_of_two_workers(
    tmp_path: Path, ray_cluster: tuple[str, dict[str, str]]
) -> None:
    address, env = ray_cluster
    fast = "smart:expert"  # rounds of a millisecond: mixed tables can take a second a round to get stuck
    args = ("--players", "3", "--rounds", "40", "--duplicate", "--bots", fast, "--seed", "5", "--workers", "2")
    out, on_ray, on_ray_csv = simulate_to_files(tmp_path, "ray", *args, "--ray", address, env=env)
    _, on_processes, on_processes_csv = simulate_to_files(tmp_path, "processes", *args)
    assert "120 rounds in" in out and f"on Ray ({address}, 2 tasks in flight)" in out
    assert on_ray == on_processes  # every round, the summary, the configuration: the same file
    assert on_ray_csv == on_processes_csv
    assert len(json.loads(on_ray)["rounds"]) == 40 * 3


def test_matches_on_a_ray_cluster_equal_two_workers_with_the_clusters_cpus_in_flight(
    tmp_path: Path, ray_cluster: tuple[str, dict[str, str]]
) -> None:
    address, env = ray_cluster
    args = ("--players", "2", "--matches", "4", "--bots", "smart:expert", "--seed", "9")
    out, on_ray, on_ray_csv = simulate_to_files(tmp_path, "ray", *args, "--ray", address, env=env)
    _, on_processes, on_processes_csv = simulate_to_files(tmp_path, "processes", *args, "--workers", "2")
    assert "2 tasks in flight" in out  # the cluster's two CPUs
    assert on_ray == on_processes
    assert on_ray_csv == on_processes_csv
    assert len(json.loads(on_ray)["matches"]) == 4


def test_simulate_ray_without_an_address_starts_a_local_ray_and_gives_the_same_rounds(tmp_path: Path) -> None:
    args = ("--players", "4", "--rounds", "30", "--bots", "smart:expert", "--seed", "2")
    out, on_ray, _ = simulate_to_files(tmp_path, "ray", *args, "--ray")
    _, on_processes, _ = simulate_to_files(tmp_path, "processes", *args, "--workers", "2")
    assert "on Ray (a local Ray," in out
    ray_data, processes_data = json.loads(on_ray), json.loads(on_processes)
    assert ray_data["rounds"] == processes_data["rounds"]
    assert ray_data["summary"] == processes_data["summary"]


def test_a_ray_address_where_nothing_answers_is_one_line_and_exit_code_1() -> None:
    address = f"127.0.0.1:{free_port()}"
    done = ligretto("simulate", "--rounds", "5", "--ray", address)
    assert done.returncode == 1  # the address may be right: the cluster is not there (now)
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        f"ligretto simulate: --ray {address}: no Ray cluster answers there (Connection refused)"
    ]
