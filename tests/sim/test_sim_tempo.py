"""Inhuman speed measured on simulated rounds (sim/tempo.py, ``ligretto bench --only tempo``)."""

from __future__ import annotations

import json

import pytest

from ligretto.bots.spec import BotSpec
from ligretto.engine.rules import RuleSet
from ligretto.engine.tempo import RULE, Why
from ligretto.sim import tempo
from ligretto.sim.table import simulate_round


def test_cheats_are_flagged_within_a_round_and_people_are_not() -> None:
    report = tempo.measure(12, seed=40)
    cases = report["cases"]
    assert cases["machine"]["share"] >= 11 / 12  # a round stuck turning its hand can end it first
    assert cases["fast cheater (80 ms)"]["flagged"] == 12
    assert cases["fast cheater (80 ms)"]["why"] == {"fast": 12}
    for level in tempo.HUMAN_LEVELS:
        assert cases[f"{level} x4"]["flagged"] == 0
    text = tempo.format_report(report)
    assert "fast cheater (80 ms)" in text and "expert x4" in text


def test_a_flag_names_the_seat_and_the_plays_it_took() -> None:
    bots = [BotSpec("smart", "expert"), BotSpec("smart", "machine"), BotSpec("smart", "expert")]
    result = simulate_round(RuleSet(), bots, 5, tempo=True)
    assert set(result.flags) == {1}
    assert result.flags[1].why is Why.FAST and result.flags[1].plays >= RULE.below
    assert result.flags[1].median_s < RULE.floor_s
    assert simulate_round(RuleSet(), bots, 5).flags == {}  # not watched: nothing


def test_tempo_is_watched_at_the_table_only() -> None:
    from ligretto.sim.network import Latency

    with pytest.raises(ValueError, match="no latency"):
        simulate_round(RuleSet(), [BotSpec("smart", "expert")] * 2, 1, tempo=True, latency=Latency((0.01, 0.01)))


def test_the_bench_command_prints_the_shares(capsys: pytest.CaptureFixture[str]) -> None:
    from ligretto.cli import main

    assert main(["bench", "--only", "tempo", "--sim-rounds", "3", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["rounds"] == 3 and report["rule"]["floor_ms"] == 150
    assert report["cases"]["fast cheater (80 ms)"]["flagged"] == 3
    assert report["cases"]["expert x4"]["flagged"] == 0
    assert main(["bench", "--only", "tempo", "--sim-rounds", "2"]) == 0
    assert "Inhuman speed caught: 2 rounds" in capsys.readouterr().out
