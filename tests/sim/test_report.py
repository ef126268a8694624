"""What a simulation shows and writes: tables, progress bar, JSON, CSV and the PNG plot."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from ligretto.bots import parse_bots
from ligretto.engine import RuleSet
from ligretto.sim import report as sim_report
from ligretto.sim.runner import SimConfig, SimReport, run
from ligretto.sim.stats import summarise

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
CONFIG_KEYS = {"rules", "players", "bots", "rounds", "matches", "seed", "duplicate", "workers", "latency"}
ROUND_KEYS = {
    "round",
    "deal",
    "seed",
    "rotation",
    "bots",
    "bot_index",
    "ended_by",
    "stopped_by",
    "scores",
    "center",
    "stack_left",
    "actions",
    "refusals",
    "duration_s",
    "races_won",
    "races_lost",
}
MATCH_ROUND_KEYS = ROUND_KEYS | {"match", "match_round"}
MATCH_KEYS = {
    "match",
    "deal",
    "seed",
    "rotation",
    "bots",
    "bot_index",
    "rounds",
    "totals",
    "winners",
    "winning_bots",
    "complete",
}
BOT_KEYS = {"bot", "label", "spec", "rounds", "score", "win_rate", "center", "stack_left", "match_win_rate"}
MEAN_KEYS = {"mean", "low", "high", "n", "sd"}
RATE_KEYS = {"rate", "low", "high", "successes", "n"}
SPREAD_KEYS = {"mean", "p50", "p90", "min", "max"}
SEAT_KEYS = {"seat", "delay_ms", "races_won", "races_lost", "share_won", "score"}
BOTS = "smart:expert,greedy:machine,random:expert"


@pytest.fixture(scope="module")
def rounds_report() -> SimReport:
    return run(SimConfig(RuleSet(), tuple(parse_bots(BOTS, 3)), rounds=4, seed=3, duplicate=True, workers=1))


@pytest.fixture(scope="module")
def matches_report() -> SimReport:
    rules = RuleSet().replace(match_end="rounds:2")
    return run(SimConfig(rules, tuple(parse_bots(BOTS, 3)), matches=3, seed=4, workers=1))


def check_summary(summary: dict[str, Any], bots: int, matches: bool) -> None:
    assert set(summary) == {"confidence", "bots", "rounds", "seats"}
    assert summary["confidence"] == 0.95
    assert len(summary["bots"]) == bots
    for bot in summary["bots"]:
        assert set(bot) == BOT_KEYS
        for key in ("score", "center", "stack_left"):
            assert set(bot[key]) == MEAN_KEYS
        assert set(bot["win_rate"]) == RATE_KEYS
        assert (bot["match_win_rate"] is not None) == matches
        if matches:
            assert set(bot["match_win_rate"]) == RATE_KEYS
    rounds = summary["rounds"]
    assert set(rounds) == {"rounds", "duration_s", "actions", "refusals", "ended_by", "match_rounds"}
    for key in ("duration_s", "actions", "refusals"):
        assert set(rounds[key]) == SPREAD_KEYS
    assert (rounds["match_rounds"] is not None) == matches
    assert sum(rounds["ended_by"].values()) == rounds["rounds"]
    assert [seat["seat"] for seat in summary["seats"]] == list(range(bots))
    for seat in summary["seats"]:
        assert set(seat) == SEAT_KEYS
        assert set(seat["share_won"]) == RATE_KEYS
        assert set(seat["score"]) == MEAN_KEYS
        assert seat["share_won"]["successes"] == seat["races_won"]
        assert seat["share_won"]["n"] == seat["races_won"] + seat["races_lost"]


def test_json_of_a_rounds_run_is_exactly_the_documented_schema(rounds_report: SimReport, tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    sim_report.write_json(path, rounds_report, summarise(rounds_report))
    data = json.loads(path.read_text())
    assert set(data) == {"config", "rounds", "summary"}
    assert set(data["config"]) == CONFIG_KEYS
    assert data["config"]["rules"] == RuleSet().to_dict()
    assert data["config"]["bots"] == BOTS.split(",")
    assert (data["config"]["rounds"], data["config"]["matches"], data["config"]["duplicate"]) == (4, None, True)
    assert len(data["rounds"]) == 4 * 3
    for number, item in enumerate(data["rounds"], start=1):
        assert set(item) == ROUND_KEYS
        assert item["round"] == number
        assert item["deal"] == (number - 1) // 3 + 1
        assert item["rotation"] == (number - 1) % 3
        for key in ("bots", "bot_index", "scores", "center", "stack_left", "races_won", "races_lost"):
            assert len(item[key]) == 3
        labels = ["1 smart:expert", "2 greedy:machine", "3 random:expert"]
        assert item["bots"] == [labels[b] for b in item["bot_index"]]
    check_summary(data["summary"], 3, matches=False)


def test_json_of_a_matches_run_adds_match_indexes_and_matches(matches_report: SimReport, tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    sim_report.write_json(path, matches_report, summarise(matches_report))
    data = json.loads(path.read_text())
    assert set(data) == {"config", "rounds", "matches", "summary"}
    assert [item["match"] for item in data["rounds"]] == [1, 1, 2, 2, 3, 3]
    assert [item["match_round"] for item in data["rounds"]] == [1, 2] * 3
    assert all(set(item) == MATCH_ROUND_KEYS for item in data["rounds"])
    assert len(data["matches"]) == 3
    for match in data["matches"]:
        assert set(match) == MATCH_KEYS
        rounds = [item for item in data["rounds"] if item["match"] == match["match"]]
        assert match["totals"] == [sum(item["scores"][s] for item in rounds) for s in range(3)]
        assert match["winners"] == [s for s in range(3) if match["totals"][s] == max(match["totals"])]
    check_summary(data["summary"], 3, matches=True)


def test_csv_has_one_row_per_round_per_seat(rounds_report: SimReport, tmp_path: Path) -> None:
    path = tmp_path / "run.csv"
    sim_report.write_csv(path, rounds_report)
    rows = list(csv.reader(path.open(newline="")))
    assert rows[0] == [
        "round",
        "seed",
        "rotation",
        "seat",
        "bot",
        "score",
        "center",
        "stack_left",
        "ended_by",
        "actions",
        "refusals",
        "duration_s",
        "races_won",
        "races_lost",
    ]
    body = [dict(zip(rows[0], row, strict=True)) for row in rows[1:]]
    assert len(body) == len(rounds_report.rounds) * 3 == 36
    first = rounds_report.rounds[0].result
    assert [int(row["score"]) for row in body[:3]] == first.scores
    assert [row["seat"] for row in body[:3]] == ["0", "1", "2"]
    assert {row["round"] for row in body} == {str(n) for n in range(1, 13)}
    assert body[0]["seed"] == str(first.seed)


def test_csv_of_a_matches_run_has_a_match_column(matches_report: SimReport, tmp_path: Path) -> None:
    path = tmp_path / "run.csv"
    sim_report.write_csv(path, matches_report)
    rows = list(csv.reader(path.open(newline="")))
    assert rows[0][-1] == "match"
    assert len(rows) == 1 + 6 * 3
    assert [row[-1] for row in rows[1:]] == [str(m) for m in (1, 2, 3) for _ in range(6)]


def test_plot_is_a_png(rounds_report: SimReport, tmp_path: Path) -> None:
    path = tmp_path / "run.png"
    sim_report.write_plot(path, rounds_report)
    data = path.read_bytes()
    assert data.startswith(PNG_SIGNATURE)
    assert len(data) > 10_000  # two panels, not an empty canvas


def test_tables_show_every_bot_and_the_rounds(matches_report: SimReport) -> None:
    out = io.StringIO()
    sim_report.print_tables(matches_report, summarise(matches_report), Console(file=out, width=200))
    text = out.getvalue()
    for label in ("1 smart:expert", "2 greedy:machine", "3 random:expert"):
        assert label in text
    for heading in ("Per bot", "score ± 95 % CI", "round wins", "match wins", "stack left", "Rounds (6)"):
        assert heading in text
    assert "simulated seconds" in text and "beaten to it" in text and "ended by:" in text
    assert text.startswith("3 players, rules match_end=rounds:2, 3 matches, seed 4: 6 rounds")


def test_simulate_runs_prints_and_writes_every_file(tmp_path: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    config = SimConfig(RuleSet(), tuple(parse_bots("smart:expert", 2)), rounds=3, workers=1)
    with sim_report.progress_bar("test", 3, Console(file=err, force_terminal=True)) as on_progress:
        on_progress(0, 3)
        on_progress(3, 3)
    assert "3/3" in err.getvalue()  # the bar was drawn
    report = sim_report.simulate(
        config,
        json_path=tmp_path / "a.json",
        csv_path=tmp_path / "a.csv",
        plot_path=tmp_path / "a.png",
        quiet=True,
        console=Console(file=out, width=200),
    )
    assert len(report.rounds) == 3
    assert "Per bot" in out.getvalue()
    assert json.loads((tmp_path / "a.json").read_text())["config"]["rounds"] == 3
    assert len((tmp_path / "a.csv").read_text().splitlines()) == 1 + 3 * 2
    assert (tmp_path / "a.png").read_bytes().startswith(PNG_SIGNATURE)
