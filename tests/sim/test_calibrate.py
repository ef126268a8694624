"""The bots' calibrated ratings (ligretto.sim.calibrate): seeded matches, rated in order."""

from __future__ import annotations

import pytest

from ligretto.bots.spec import BotSpec
from ligretto.engine.rules import RuleSet
from ligretto.ratings import BOT_RATINGS, DEFAULT, bot_rating, rate
from ligretto.sim.calibrate import (
    CALIBRATED_BOTS,
    TABLE_SIZES,
    CalibrationMatch,
    calibrate,
    draw_table,
    main,
    play_all,
    rate_all,
    summarise,
)

SMART = ("smart:beginner", "smart:casual", "smart:skilled", "smart:expert")


def test_the_calibrated_bots_are_the_ones_a_host_can_seat_except_machine() -> None:
    for spec in CALIBRATED_BOTS:
        BotSpec.parse(spec)  # a real spec
    assert set(SMART) <= set(CALIBRATED_BOTS)
    assert "greedy:skilled" in CALIBRATED_BOTS
    assert not any(spec.endswith(":machine") for spec in CALIBRATED_BOTS)


def test_every_calibrated_bot_has_a_fixed_rating_and_no_other_does() -> None:
    assert set(BOT_RATINGS) == set(CALIBRATED_BOTS)
    assert bot_rating("smart:machine") is None
    assert bot_rating("smart:skilled") == BOT_RATINGS["smart:skilled"]
    table = list(BOT_RATINGS.values())
    assert [r.conservative for r in table] == sorted((r.conservative for r in table), reverse=True)  # best first


def test_the_table_orders_the_levels() -> None:
    for strategy in ("smart", "greedy"):
        values = [
            BOT_RATINGS[f"{strategy}:{level}"].conservative for level in ("beginner", "casual", "skilled", "expert")
        ]
        assert values == sorted(values)
        assert len(set(values)) == len(values)


def test_a_table_is_drawn_from_the_seed_alone() -> None:
    drawn = [draw_table(7, number) for number in range(1, 41)]
    assert drawn == [draw_table(7, number) for number in range(1, 41)]
    assert drawn != [draw_table(8, number) for number in range(1, 41)]
    for _, bots in drawn:
        assert len(bots) in TABLE_SIZES
        assert len(set(bots)) == len(bots)
        assert set(bots) <= set(CALIBRATED_BOTS)
    assert len({seed for seed, _ in drawn}) == len(drawn)
    assert {len(bots) for _, bots in drawn} == set(TABLE_SIZES)


def test_a_small_pool_fits_its_tables_to_the_pool() -> None:
    for number in range(1, 20):
        _, bots = draw_table(1, number, ("smart:casual", "smart:expert"))
        assert sorted(bots) == ["smart:casual", "smart:expert"]


def test_matches_are_the_same_for_any_number_of_workers() -> None:
    alone = play_all(RuleSet(), 6, seed=3, workers=1)
    assert play_all(RuleSet(), 6, seed=3, workers=2) == alone
    for match in alone:
        assert len(match.places) == len(match.bots)
        assert 1 in match.places


def test_matches_are_rated_in_order_from_the_default_rating() -> None:
    played = [
        CalibrationMatch(("smart:casual", "smart:expert"), (2, 1)),
        CalibrationMatch(("smart:expert", "smart:casual", "smart:skilled"), (1, 3, 2)),
    ]
    history = rate_all(played, SMART)
    casual, expert = rate([DEFAULT, DEFAULT], [2, 1])
    expert2, casual2, skilled = rate([expert, casual, DEFAULT], [1, 3, 2])
    assert history["smart:casual"] == [DEFAULT, casual, casual2]
    assert history["smart:expert"] == [DEFAULT, expert, expert2]
    assert history["smart:skilled"] == [DEFAULT, skilled]
    assert history["smart:beginner"] == [DEFAULT]


def test_a_bot_with_too_few_matches_is_refused() -> None:
    played = [CalibrationMatch(("smart:casual", "smart:expert"), (2, 1))] * 3
    with pytest.raises(ValueError, match="too few"):
        summarise(rate_all(played, ("smart:casual", "smart:expert")), 3, 1)


def test_a_small_run_reproduces_the_tables_order() -> None:
    """The command, run small on the smart levels, orders them as the stored table does."""
    calibration = calibrate(RuleSet(), 80, seed=2, pool=SMART)
    assert calibration.order() == [spec for spec in BOT_RATINGS if spec in SMART]
    assert calibration.order() == list(reversed(SMART))
    for bot in calibration.bots:
        assert bot.low <= bot.rating.mu <= bot.high
        assert bot.rating.sigma < DEFAULT.sigma
        assert bot.matches > 10


def test_the_command_prints_the_table_and_its_literal(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--matches", "40", "--seed", "5", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("40 matches, seed 5")
    assert "BOT_RATINGS: dict[str, Rating] = {" in out
    for spec in CALIBRATED_BOTS:
        assert f'"{spec}": Rating(' in out


def test_the_command_refuses_bad_numbers() -> None:
    with pytest.raises(SystemExit):
        main(["--matches", "0"])
