"""``python -m ligretto.sim.duel``: one bot's lead over a field, and its command line's
one-line errors (the figures of docs/bots.md come from it)."""

from __future__ import annotations

import pytest

from ligretto.sim.duel import Lead, main


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["sharp", "smart", "--players", "1"], "players must be 2-12, not 1"),
        (["sharp", "smart", "--players", "13"], "players must be 2-12, not 13"),
        (["sharp", "smart", "--deals", "1"], "--deals must be at least 2"),
        (["sharp", "smart", "--workers", "0"], "--workers at least 1"),
        (["sharp", "smarty"], "unknown strategy 'smarty'"),
        (["sharp", "smart", "--level", "pro"], "unknown level 'pro'"),
        (["sharp", "smart", "--rules", "house"], "invalid choice: 'house'"),
    ],
)
def test_bad_arguments_are_one_line_and_exit_2(argv: list[str], said: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert said in err and "Traceback" not in err


def test_a_duel_prints_the_lead_and_its_99_percent_interval(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["greedy", "random", "--players", "2", "--deals", "6"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("greedy:expert against 1 × random:expert, classic, 6 deals × 2 seats: lead +")
    assert "(99 %: " in out
    assert str(Lead(1.0, 0.5)) == "+1.00 ± 0.50 (99 %: +0.50 … +1.50)"
