"""The ``ligretto`` command: demo, bench, rules, serve's options (its errors: tests/cli/test_errors.py)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from ligretto.cli import main, rules_from_args
from ligretto.engine import OPTIONS, PRESETS, RuleError, RuleSet, ShortTurn


def test_demo_prints_a_score_sheet(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--seed", "7", "--players", "3"]) == 0
    out = capsys.readouterr().out
    assert "Round 1" in out
    assert out.count("Bot ") >= 3
    for column in ("Center", "Stack", "Score", "Total"):
        assert column in out
    assert out.splitlines()[0] == "Ligretto: 3 players, seed 7, rules classic"
    # The heading writes the rules as a command line does, never as Python prints them.
    assert main(["demo", "--rules", "seed-es", "--set", "expert=true"]) == 0
    heading = capsys.readouterr().out.splitlines()[0]
    assert heading.endswith("rules short_turn=recycle, recycle_shuffle=false, floor_at_zero=true, expert=true")


def test_demo_is_deterministic(capsys: pytest.CaptureFixture[str]) -> None:
    main(["demo", "--seed", "11"])
    first = capsys.readouterr().out
    main(["demo", "--seed", "11"])
    assert capsys.readouterr().out == first
    main(["demo", "--seed", "12"])
    assert capsys.readouterr().out != first


def test_rules_from_args_applies_preset_then_settings() -> None:
    rules = rules_from_args("seed-es", ["stack_penalty=3", "expert=true"])
    assert rules.short_turn is ShortTurn.RECYCLE
    assert rules.stack_penalty == 3
    assert rules.expert is True
    assert rules_from_args("classic", []) == RuleSet()


def test_rules_json_lists_every_option_and_preset(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data["options"]) == set(RuleSet().to_dict())
    assert {"classic", "seed-es", "seed-pt", "seed-it", "seed-fr", "seed-fi", "expert"} <= set(data["presets"])


def test_rules_prints_values_as_written_on_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    """``true``, not Python's ``True``: every value shown can be typed back as ``--set``."""
    assert main(["rules"]) == 0
    out = capsys.readouterr().out
    assert "True" not in out and "False" not in out and "ShortTurn" not in out and "MatchEnd" not in out
    options, presets = out.split("\n\n")
    defaults = {line.split()[0]: line.rsplit("(classic: ", 1)[1].removesuffix(")") for line in options.splitlines()}
    assert set(defaults) == set(OPTIONS)
    assert defaults["recycle_shuffle"] == "true" and defaults["expert"] == "false"
    assert defaults["match_end"] == "rounds:5" and defaults["scoring"] == "cards"
    assert rules_from_args("seed-es", [f"{name}={text}" for name, text in defaults.items()]) == RuleSet()
    shown = dict(line.split(maxsplit=1) for line in presets.splitlines())
    assert set(shown) == set(PRESETS)
    assert shown["expert"] == "expert=true"
    assert shown["seed-es"] == "short_turn=recycle, recycle_shuffle=false, floor_at_zero=true"
    for name, settings in shown.items():
        typed = [] if settings == "every default" else settings.split(", ")
        assert rules_from_args("classic", typed) == RuleSet.preset(name), name


def test_bench_json_reports_engine_actions_per_second() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "ligretto", "bench", "--json", "--actions", "3000", "--repeats", "2"],
        capture_output=True,
        text=True,
        check=True,
    )
    report = json.loads(result.stdout)
    assert isinstance(report["engine_actions_per_s"], int)
    assert report["engine_actions_per_s"] > 0
    assert len(report["engine_actions_per_s_repeats"]) == 2
    assert report["engine_rounds"] >= 2
    # the build in use is named, so a figure is never read without knowing it
    from ligretto.engine import state

    assert report["compiled"] is (not (state.__file__ or "").endswith(".py"))


def test_unknown_rules_error_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="allowed values"):
        RuleSet.from_dict({"scoring": "goals"})
    assert issubclass(RuleError, ValueError)


def test_a_reader_that_goes_away_is_not_an_error() -> None:
    # as `ligretto rules --json | head -1` when head has its line: the pipe is closed before the write
    process = subprocess.Popen(
        [sys.executable, "-m", "ligretto", "rules", "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()
    errors = process.stderr.read().decode()
    assert process.wait(timeout=60) == 1
    assert errors == ""


def test_serve_takes_every_admission_limit_as_an_option(monkeypatch: pytest.MonkeyPatch) -> None:
    from ligretto.server.web import serve
    from ligretto.server.web.settings import Settings

    started: list[Settings] = []
    monkeypatch.setattr(serve, "run", lambda settings, log_level, log_format: started.append(settings))
    argv = ["serve", "--port", "8123", "--hello-timeout", "2.5", "--max-connections", "7"]
    argv += ["--connections-per-address", "0", "--tables-per-minute", "3", "--lobby-tables", "9"]
    argv += ["--request-timeout", "4"]
    assert main(argv) == 0
    (settings,) = started
    assert (settings.port, settings.hello_s, settings.max_connections) == (8123, 2.5, 7)
    assert (settings.connections_per_address, settings.tables_per_minute, settings.lobby_tables) == (0, 3, 9)
    assert settings.request_timeout_s == 4.0
    assert main(["serve"]) == 0
    assert started[1] == Settings(), "the options' defaults are the settings' own"
