"""Ratings (ligretto.ratings): openskill's Plackett-Luce, the conservative value, the order; seasons."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest
from openskill.models import PlackettLuce

from ligretto import ratings
from ligretto.ratings import (
    DEFAULT,
    Rating,
    RatingError,
    bot_rating,
    leaderboard_order,
    nearest_bot,
    places_among,
    rate,
)


def openskill_rate(before: list[Rating], places: list[int]) -> list[float]:
    """The same match computed by openskill directly, with a model of its own: mu, sigma, mu, ..."""
    model = PlackettLuce()
    teams = [[model.rating(mu=r.mu, sigma=r.sigma)] for r in before]
    return [value for team in model.rate(teams, ranks=places) for value in (team[0].mu, team[0].sigma)]


def flat(ratings: list[Rating]) -> list[float]:
    return [value for r in ratings for value in (r.mu, r.sigma)]


def some_ratings(count: int, seed: int) -> list[Rating]:
    rng = random.Random(seed)
    return [Rating(rng.uniform(15, 35), rng.uniform(1, 25 / 3)) for _ in range(count)]


MATCHES = [
    ([DEFAULT, DEFAULT], [1, 2]),
    ([DEFAULT, DEFAULT], [2, 1]),
    ([DEFAULT, DEFAULT], [1, 1]),
    (some_ratings(4, 1), [3, 1, 4, 2]),
    (some_ratings(4, 2), [1, 2, 2, 4]),  # a tie for second
    (some_ratings(12, 3), [7, 1, 12, 3, 2, 9, 5, 11, 4, 10, 6, 8]),
    (some_ratings(12, 4), [1, 1, 3, 4, 4, 4, 7, 8, 9, 10, 11, 11]),
    ([DEFAULT] * 12, list(range(1, 13))),
]


@pytest.mark.parametrize(("before", "places"), MATCHES)
def test_rate_equals_openskills_own_computation(before: list[Rating], places: list[int]) -> None:
    after = rate(before, places)
    assert flat(after) == pytest.approx(openskill_rate(before, places), rel=1e-12)
    assert all(isinstance(r, Rating) for r in after)


def test_a_series_of_matches_equals_openskill_step_by_step() -> None:
    rng = random.Random(15)
    ours = [DEFAULT] * 6
    model = PlackettLuce()
    theirs = [[model.rating()] for _ in range(6)]
    for _ in range(30):
        players = rng.sample(range(6), rng.randint(2, 6))
        places = [rng.randint(1, len(players)) for _ in players]
        places = [1 + sum(other < place for other in places) for place in places]  # competition places
        new = rate([ours[p] for p in players], places)
        rated = model.rate([theirs[p] for p in players], ranks=places)
        for p, rating, team in zip(players, new, rated, strict=True):
            ours[p] = rating
            theirs[p] = team
    assert flat(ours) == pytest.approx([value for t in theirs for value in (t[0].mu, t[0].sigma)], rel=1e-9)


def test_the_winner_goes_up_and_the_last_goes_down() -> None:
    before = [DEFAULT] * 4
    after = rate(before, [2, 1, 4, 3])
    assert after[1].mu > DEFAULT.mu
    assert after[2].mu < DEFAULT.mu
    assert after[1].conservative > after[0].conservative > after[3].conservative > after[2].conservative
    assert all(r.sigma < DEFAULT.sigma for r in after)  # everyone is better known


def test_equal_players_who_tie_stay_equal() -> None:
    after = rate([DEFAULT] * 3, [1, 1, 1])
    assert after[0] == after[1] == after[2]
    assert after[0].mu == pytest.approx(DEFAULT.mu)


def test_beating_a_stronger_player_gains_more() -> None:
    weak, strong = Rating(20.0, 5.0), Rating(30.0, 5.0)
    upset = rate([weak, strong], [1, 2])[0].mu - weak.mu
    expected = rate([weak, Rating(20.0, 5.0)], [1, 2])[0].mu - weak.mu
    assert upset > expected > 0


def test_the_input_is_left_as_it_was() -> None:
    before = [Rating(30.0, 4.0), Rating(20.0, 6.0)]
    copy = list(before)
    rate(before, [2, 1])
    assert before == copy


def test_conservative_is_mu_less_three_sigma() -> None:
    assert Rating(30.0, 2.5).conservative == pytest.approx(22.5)
    assert DEFAULT.conservative == pytest.approx(0.0)
    assert Rating(25.0, 25.0 / 3) == DEFAULT


@pytest.mark.parametrize(
    ("count", "places", "message"),
    [
        (1, [1], "2-12 players, not 1"),
        (13, list(range(1, 14)), "2-12 players, not 13"),
        (3, [1, 2], "3 ratings but 2 places"),
        (2, [1, 2, 3], "2 ratings but 3 places"),
        (3, [0, 1, 2], "1-based"),
        (3, [1, 2, 4], "1-based"),
        (3, [2, 2, 3], "someone must be first"),
        (2, [1, 1.5], "1-based"),
        (2, [True, 2], "1-based"),
    ],
)
def test_bad_matches_are_refused_clearly(count: int, places: list[int], message: str) -> None:
    with pytest.raises(RatingError, match=message):
        rate([DEFAULT] * count, places)


@pytest.mark.parametrize(("mu", "sigma"), [(float("nan"), 1.0), (25.0, 0.0), (25.0, -1.0), (25.0, float("inf"))])
def test_bad_ratings_are_refused(mu: float, sigma: float) -> None:
    with pytest.raises(RatingError, match="finite"):
        Rating(mu, sigma)


def test_a_rating_error_is_a_value_error() -> None:
    assert issubclass(RatingError, ValueError)


def test_leaderboard_orders_by_conservative_value_then_mu_then_as_given() -> None:
    rows = [
        ("ann", Rating(30.0, 5.0)),  # 15
        ("bob", Rating(25.0, 1.0)),  # 22
        ("cid", Rating(40.0, 8.0)),  # 16
        ("dee", Rating(19.0, 1.0)),  # 16, lower mu than cid
        ("eve", Rating(25.0, 1.0)),  # 22, equal to bob: stays after him
    ]
    ordered = leaderboard_order(rows, key=lambda row: row[1])
    assert [name for name, _ in ordered] == ["bob", "eve", "cid", "dee", "ann"]
    assert [name for name, _ in leaderboard_order(reversed(rows), key=lambda row: row[1])] == [
        "eve",
        "bob",
        "cid",
        "dee",
        "ann",
    ]


def test_leaderboard_of_nothing_is_empty() -> None:
    assert leaderboard_order([], key=lambda row: row) == []


def test_bot_rating_of_an_unknown_spec_is_none() -> None:
    assert bot_rating("smart:grandmaster") is None
    assert bot_rating("") is None


def test_nearest_bot_is_the_bot_with_the_nearest_conservative_value(monkeypatch: pytest.MonkeyPatch) -> None:
    table = {"smart:expert": Rating(35.0, 1.0), "smart:skilled": Rating(27.0, 1.0), "smart:casual": Rating(20.0, 1.0)}
    monkeypatch.setattr(ratings, "BOT_RATINGS", table)
    assert nearest_bot(Rating(30.0, 2.0)) == "smart:skilled"  # 24: skilled 24, expert 32
    assert nearest_bot(Rating(40.0, 1.0)) == "smart:expert"
    assert nearest_bot(DEFAULT) == "smart:casual"  # 0, below every bot
    assert bot_rating("smart:skilled") == Rating(27.0, 1.0)


def test_nearest_bot_without_calibrated_bots_is_none(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ratings, "BOT_RATINGS", {})
    assert nearest_bot(DEFAULT) is None


def test_each_calibrated_bot_is_nearest_to_itself() -> None:
    assert ratings.BOT_RATINGS
    for spec, rating in ratings.BOT_RATINGS.items():
        assert nearest_bot(rating) == spec
        assert bot_rating(spec) == rating


def test_places_among_some_players_are_1_based_again() -> None:
    assert places_among([2, 4, 4, 5]) == [1, 2, 2, 4]
    assert places_among([3, 1]) == [2, 1]
    assert places_among([2, 2]) == [1, 1]
    assert places_among([1, 2, 3]) == [1, 2, 3]
    # the winner had no profile: the others are rated among themselves
    full = [1, 3, 2, 3]
    rated = places_among(full[1:])
    assert rated == [2, 1, 2]
    with pytest.raises(RatingError, match="someone must be first"):
        rate([DEFAULT] * 3, full[1:])


def _utc(*when: int) -> float:
    return datetime(*when, tzinfo=UTC).timestamp()  # type: ignore[misc]


@pytest.mark.parametrize(
    ("when", "name"),
    [
        ((2026, 1, 1), "2026-Q1"),
        ((2026, 3, 31, 23, 59, 59), "2026-Q1"),
        ((2026, 4, 1), "2026-Q2"),
        ((2026, 9, 30, 23, 59, 59), "2026-Q3"),
        ((2026, 12, 31, 23, 59, 59), "2026-Q4"),
        ((2027, 1, 1), "2027-Q1"),
    ],
)
def test_a_season_is_a_calendar_quarter_in_utc(when: tuple[int, ...], name: str) -> None:
    season = ratings.season_of(_utc(*when))
    assert season.name == name
    assert season.starts <= _utc(*when) < season.ends
    assert ratings.season_named(name) == season
    assert season.previous.ends == season.starts
    assert ratings.season_of(season.ends).starts == season.ends


def test_a_season_of_the_last_quarter_ends_at_the_new_year() -> None:
    season = ratings.season_named("2026-Q4")
    assert (season.starts, season.ends) == (_utc(2026, 10, 1), _utc(2027, 1, 1))
    assert ratings.season_named("2026-Q1").previous.name == "2025-Q4"


@pytest.mark.parametrize(
    "name", ["2026-Q5", "2026-Q0", "2026Q4", "26-Q4", "２０２６-Q1", "0000-Q1", "2026-q4", " 2026-Q4", "all"]
)
def test_a_season_not_named_as_a_quarter_is_refused_clearly(name: str) -> None:
    with pytest.raises(RatingError, match="a season is a year and a quarter such as 2026-Q4"):
        ratings.season_named(name)


def test_a_soft_reset_pulls_halfway_back_to_a_new_players_rating() -> None:
    assert ratings.soft_reset(DEFAULT) == DEFAULT
    strong = ratings.soft_reset(Rating(45.0, 2.0))
    assert strong == Rating(DEFAULT.mu + 10.0, 2.0 + (DEFAULT.sigma - 2.0) / 2)
    assert DEFAULT.conservative < strong.conservative < Rating(45.0, 2.0).conservative
    weak = ratings.soft_reset(Rating(5.0, 3.0))
    assert weak.mu == 15.0 and weak.sigma < DEFAULT.sigma
