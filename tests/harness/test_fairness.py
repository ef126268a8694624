"""``ligretto bench --only fairness`` (``ligretto.harness.fairness``): its settings, and one
small run over a real server and real delaying proxies whose report must hold together.
No figure is a target here: the figures are docs/fairness.md's."""

from __future__ import annotations

from typing import Any

import pytest

from ligretto import cli
from ligretto.harness import fairness
from ligretto.harness.fairness import MODES, FairnessSettings, format_report, settings_from


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"window_ms": 251}, "window"),
        ({"races": 0}, "at least one race"),
        ({"far_ms": -1.0}, "not negative"),
        ({"level": "godlike"}, "unknown bot"),
        ({"modes": ("fair", "coin")}, "modes are"),
    ],
)
def test_bad_settings_are_refused_with_a_reason(change: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        FairnessSettings(**change)


def test_the_command_line_options_become_the_settings() -> None:
    assert settings_from({}) == FairnessSettings()
    given = settings_from({"races": 40, "window": 50, "far_ms": 120.0, "lie_ms": 250.0, "level": "expert"})
    assert (given.races, given.window_ms, given.far_ms, given.lie_s, given.level) == (40, 50, 120.0, 0.25, "expert")
    quick = settings_from({"quick": True, "tables": 3})
    assert (quick.races, quick.tables, quick.speed) == (20, 3, 4.0)


def test_bench_only_fairness_runs_the_fairness_bench_and_nothing_else(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ran: list[FairnessSettings] = []
    monkeypatch.setattr(fairness, "run", lambda settings: ran.append(settings) or {"settings": "..."})
    assert cli.main(["bench", "--only", "fairness", "--json", "--races", "7", "--near-ms", "5"]) == 0
    assert [(s.races, s.near_ms, s.far_ms) for s in ran] == [(7, 5.0, 100.0)]
    assert '"settings"' in capsys.readouterr().out
    assert cli.main(["bench", "--only", "fairness", "--window", "999"]) == 2
    assert len(ran) == 1  # a bad option runs nothing


def test_a_small_run_counts_races_by_both_ways_and_the_liar_gains_no_time() -> None:
    settings = FairnessSettings(races=16, tables=8, near_ms=5.0, far_ms=50.0, speed=6.0, max_s=240.0)
    report = fairness.run(settings)
    assert report["server_tracebacks"] == 0
    assert set(report["modes"]) == set(MODES)
    for name, mode in report["modes"].items():
        assert mode["errors"] == {}, (name, mode["error_samples"])
        assert mode["enough_races"], name
        assert report[f"{name}_races"] == mode["races"] >= settings.races
        # Every race told has its loser's ack with a margin, and the other way round; a
        # beaten play that came later than a race is no race told.
        assert mode["races_told_by_ack"] == mode["races_told"] <= mode["races"]
        low, high = mode["share_far_ci"]
        assert 0.0 <= low <= mode["share_far"] <= high <= 1.0
        assert mode["far_won"] == round(mode["share_far"] * mode["races"])
        assert mode["added_ack_ms"]["n"] > 0
        # Every lost race's winning play was found among the winner's plays, and none was
        # ranked earlier than its true send time minus the cap: under fair judging even
        # the liar's 500 ms early stamps are clamped (the check catches an unclamped liar).
        assert mode["ranked_checked"] >= mode["races_told"]
        assert mode["ranked_too_early"] == 0, name
    assert report["modes"]["liar"]["far_won"] >= 1  # the liar won races: the check had something to check
    assert report["modes"]["liar"]["lie_s"] == 0.5
    text = format_report(report)
    assert "arrival" in text and "liar" in text
