"""The one report shape of the stress harness's scenarios: which figures are failures, and
the table of docs/reliability.md (a figure not measured is "-", never a zero)."""

from __future__ import annotations

from ligretto.harness.scenario import MUST_BE_ZERO, ScenarioReport, markdown_table
from ligretto.testkit.scans import Frame


def test_only_a_must_be_zero_figure_that_is_not_zero_is_a_failure() -> None:
    clean = ScenarioReport("races", "contested plays", 1200, 3.5, state_changes=None, cards_lost=0, acks_lost=0)
    assert clean.failures == []
    for name in MUST_BE_ZERO:
        report = ScenarioReport("races", "contested plays", 1200, 3.5)
        setattr(report, name, 2)
        assert report.failures == [name]


def test_the_table_shows_what_was_measured_and_a_dash_for_what_was_not() -> None:
    kills = ScenarioReport(
        "kills", "kill -9", 50, 120.25, cards_lost=0, acks_lost=0, hidden_cards=0, frames_scanned=12_345,
        rss_before=44_100_000, rss_after=52_250_000, frames=[Frame("AB", 0, "{}")],
    )  # fmt: skip
    idle = ScenarioReport("idle", "connections", 12_000, 53.9, wrong_answers=0, other_p99_ms=3.25)
    lines = markdown_table([kills, idle]).splitlines()
    assert len(lines) == 4 and lines[0].count("|") == lines[2].count("|") == lines[3].count("|") == 12
    assert lines[2] == "| kills | 50 kill -9 | 0 | - | - | 0 | 0 | 0 (12,345) | 44.1 / 52.2 | - | 120.2 |"
    assert lines[3] == "| idle | 12,000 connections | 0 | 0 | - | - | - | - | - / - | 3.2 | 53.9 |"
    assert "frames" not in kills.to_dict() and kills.to_dict()["failures"] == []
