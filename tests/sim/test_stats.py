"""Statistics of a simulation, checked against values computed by hand."""

from __future__ import annotations

import math

import pytest

from ligretto.bots import parse_bots
from ligretto.engine import Ending, Outcome, RuleSet
from ligretto.sim.runner import PlayedMatch, PlayedRound, SimConfig, SimReport
from ligretto.sim.stats import (
    mean_ci,
    percentile,
    share_over_rounds,
    spread,
    summarise,
    t_quantile,
    wilson,
    z_quantile,
)
from ligretto.sim.table import RoundResult


def approx(value: float) -> object:
    return pytest.approx(value, abs=5e-6)


# --- distributions and intervals ----------------------------------------------------------


@pytest.mark.parametrize(
    ("df", "t95", "t99"),
    [  # two-sided critical values from the standard table of Student's t
        (1, 12.7062, 63.6567),
        (2, 4.3027, 9.9248),
        (3, 3.1824, 5.8409),
        (5, 2.5706, 4.0321),
        (7, 2.3646, 3.4995),
        (10, 2.2281, 3.1693),
        (29, 2.0452, 2.7564),
        (30, 2.0423, 2.7500),
        (100, 1.9840, 2.6259),
    ],
)
def test_t_quantile_matches_the_table(df: int, t95: float, t99: float) -> None:
    assert t_quantile(0.95, df) == pytest.approx(t95, abs=1e-4)
    assert t_quantile(0.99, df) == pytest.approx(t99, abs=1e-4)


def test_t_quantile_tends_to_the_normal_one() -> None:
    assert z_quantile(0.95) == pytest.approx(1.959964, abs=1e-6)
    assert t_quantile(0.95, 10_000) == pytest.approx(1.960201, abs=1e-5)
    assert t_quantile(0.95, 50_000) == pytest.approx(z_quantile(0.95), abs=1e-4)
    assert t_quantile(0.95, 1000) > t_quantile(0.95, 10_000) > z_quantile(0.95)


def test_mean_ci_by_hand() -> None:
    # mean 5; squared deviations 9+1+1+1+0+0+4+16 = 32, s² = 32/7, s = 2.138090;
    # t(0.975, 7) = 2.364624; half width = 2.364624 · 2.138090 / √8 = 1.787488
    ci = mean_ci([2, 4, 4, 4, 5, 5, 7, 9])
    assert ci.mean == 5
    assert ci.n == 8
    assert ci.sd == approx(math.sqrt(32 / 7))
    assert ci.low == approx(3.212512)
    assert ci.high == approx(6.787488)
    assert ci.half_width == approx(1.787488)


def test_mean_ci_of_two_values_uses_t_with_one_degree_of_freedom() -> None:
    # mean 1, s = √2, half width = 12.706205 · √2 / √2 = 12.706205
    ci = mean_ci([0, 2])
    assert (ci.low, ci.high) == (approx(1 - 12.706205), approx(1 + 12.706205))


def test_mean_ci_of_one_value_has_no_interval() -> None:
    ci = mean_ci([3.5])
    assert (ci.mean, ci.low, ci.high, ci.sd, ci.half_width) == (3.5, None, None, None, None)
    with pytest.raises(ValueError, match="no values"):
        mean_ci([])


def test_mean_ci_of_equal_values_is_a_point() -> None:
    ci = mean_ci([4, 4, 4])
    assert (ci.low, ci.high) == (4, 4)


@pytest.mark.parametrize(
    ("wins", "n", "low", "high"),
    [
        # centre (p + z²/2n)/(1 + z²/n), half z/(1 + z²/n)·√(p(1-p)/n + z²/4n²), z = 1.959964
        (3, 10, 0.107794, 0.603222),  # centre 0.355508, half 0.247714
        (50, 100, 0.403832, 0.596168),  # centre 0.5, half 0.096168
        (0, 10, 0.0, 0.277533),  # upper = z²/n / (1 + z²/n) = 0.384146 / 1.384146
        (10, 10, 0.722467, 1.0),
        (1, 1, 0.206549, 1.0),  # lower = 1 / (1 + z²) = 1 / 4.841459
    ],
)
def test_wilson_interval_by_hand(wins: int, n: int, low: float, high: float) -> None:
    rate = wilson(wins, n)
    assert rate.rate == wins / n
    assert (rate.low, rate.high) == (approx(low), approx(high))
    assert 0 <= rate.low <= rate.rate <= rate.high <= 1


def test_wilson_refuses_impossible_counts() -> None:
    for wins, n in ((3, 2), (-1, 5), (0, 0)):
        with pytest.raises(ValueError, match="successes"):
            wilson(wins, n)


def test_percentiles_interpolate_between_order_statistics() -> None:
    values = [4, 1, 3, 2]
    assert percentile(values, 0.5) == 2.5  # halfway between 2 and 3
    assert percentile(values, 0.9) == approx(3.7)  # rank 2.7 of 0..3
    assert (percentile(values, 0), percentile(values, 1)) == (1, 4)
    assert percentile([7], 0.9) == 7
    s = spread([10, 0, 20, 30, 40])
    assert (s.mean, s.p50, s.p90, s.min, s.max) == (20, 20, approx(36), 0, 40)


# --- summarising a run ---------------------------------------------------------------


def result(seed: int, scores: list[int], *, rotation: int = 0, ended_by: str = "stop", **more: object) -> RoundResult:
    players = len(scores)
    fields: dict[str, object] = {
        "bots": ["?"] * players,
        "stopped_by": 0,
        "center": [max(s, 0) for s in scores],
        "stack_left": [max(-s, 0) for s in scores],
        "actions": 100,
        "refusals": 5,
        "duration_s": 30.0,
    } | more
    outcome = Outcome(Ending(ended_by), fields.pop("stopped_by"))  # type: ignore[arg-type]
    return RoundResult(seed=seed, outcome=outcome, scores=scores, rotation=rotation, **fields)  # type: ignore[arg-type]


def test_round_winners_are_every_seat_with_the_top_score() -> None:
    config = SimConfig(RuleSet(), tuple(parse_bots("smart:expert,greedy:casual,random:beginner", 3)), rounds=4)
    seating = (0, 1, 2)
    report = SimReport(
        config,
        rounds=[
            PlayedRound(result(1, [5, 5, 1]), 1, seating),  # a tie: bots 0 and 1 both win
            PlayedRound(result(2, [0, 3, 3]), 2, seating),  # bots 1 and 2
            PlayedRound(result(3, [-2, -4, -2]), 3, seating),  # bots 0 and 2
            PlayedRound(result(4, [9, 1, 2]), 4, seating),  # bot 0
        ],
    )
    bots = summarise(report).bots
    assert [b.win_rate.successes for b in bots] == [3, 2, 2]
    assert [b.win_rate.n for b in bots] == [4, 4, 4]
    assert [b.score.mean for b in bots] == [3, approx(5 / 4), approx(4 / 4)]
    assert [b.label for b in bots] == ["1 smart:expert", "2 greedy:casual", "3 random:beginner"]
    assert bots[0].center.mean == approx((5 + 0 + 0 + 9) / 4)
    assert bots[0].stack_left.mean == approx(2 / 4)
    assert bots[0].score.n == 4  # not duplicate: one sample per round
    assert bots[0].match_win_rate is None


def test_figures_follow_the_bot_not_the_seat() -> None:
    """Duplicate mode: bot 0 sits in seat 0, then seat 1; its scores are found in both."""
    config = SimConfig(RuleSet(), tuple(parse_bots("smart:expert,random:expert", 2)), rounds=2, duplicate=True)
    report = SimReport(
        config,
        rounds=[
            PlayedRound(result(11, [10, 2], rotation=0), 1, (0, 1)),
            PlayedRound(result(11, [4, 8], rotation=1), 1, (1, 0)),  # bot 0 in seat 1 scored 8
            PlayedRound(result(22, [6, 0], rotation=0), 2, (0, 1)),
            PlayedRound(result(22, [1, 5], rotation=1), 2, (1, 0)),  # bot 0 in seat 1 scored 5
        ],
    )
    smart, rand = summarise(report).bots
    assert smart.rounds == rand.rounds == 4
    assert smart.score.mean == approx((10 + 8 + 6 + 5) / 4)
    assert rand.score.mean == approx((2 + 4 + 0 + 1) / 4)
    assert smart.win_rate.successes == 4
    assert rand.win_rate.successes == 0
    # the interval is over the per-deal means 9 and 5.5: s = 2.474874, n = 2,
    # half width = 12.706205 · 2.474874 / √2 = 22.235858, around the mean 7.25
    assert smart.score.n == 2
    assert smart.score.sd == approx(2.474874)
    assert smart.score.low == approx(7.25 - 22.235858)
    assert smart.score.high == approx(7.25 + 22.235858)


def test_match_wins_and_round_summary() -> None:
    config = SimConfig(RuleSet(), tuple(parse_bots("smart:expert,greedy:expert", 2)), matches=3)
    r = result
    rounds = [
        PlayedRound(r(1, [3, 1], duration_s=10.0, actions=50, refusals=0), 1, (0, 1), 1, 1),
        PlayedRound(r(2, [2, 2], duration_s=20.0, actions=60, refusals=2, ended_by="stalemate_vote"), 2, (0, 1), 2, 1),
        PlayedRound(r(3, [0, 4], duration_s=30.0, actions=70, refusals=4), 3, (0, 1), 3, 1),
        PlayedRound(r(4, [1, 0], duration_s=40.0, actions=80, refusals=6), 3, (0, 1), 3, 2),
    ]
    matches = [
        PlayedMatch(1, 1, 1, 0, (0, 1), 1, (3, 1), (0,)),
        PlayedMatch(2, 2, 2, 0, (0, 1), 1, (2, 2), (0, 1)),  # a tied match: both win
        PlayedMatch(3, 3, 3, 0, (0, 1), 2, (1, 4), (1,)),
    ]
    summary = summarise(SimReport(config, rounds, matches))
    smart, greedy = summary.bots
    assert smart.match_win_rate is not None and greedy.match_win_rate is not None
    assert (smart.match_win_rate.successes, smart.match_win_rate.n) == (2, 3)
    assert (greedy.match_win_rate.successes, greedy.match_win_rate.n) == (2, 3)
    s = summary.rounds
    assert s.rounds == 4
    assert (s.duration_s.mean, s.duration_s.p50, s.duration_s.p90) == (25, 25, approx(37))
    assert (s.actions.min, s.actions.max) == (50, 80)
    assert s.refusals.mean == 3
    assert s.ended_by == {"stop": 3, "stalemate_vote": 1}
    assert s.match_rounds is not None and s.match_rounds.mean == approx(4 / 3)
    data = summary.to_dict()
    assert data["bots"][0]["match_win_rate"]["successes"] == 2
    assert data["rounds"]["ended_by"] == {"stop": 3, "stalemate_vote": 1}


# --- races: a share over rounds -------------------------------------------------------


def test_a_share_of_races_is_the_ratio_with_the_round_as_the_unit() -> None:
    even = share_over_rounds([1, 2, 3], [2, 4, 6])
    assert (even.successes, even.n, even.rate) == (6, 12, 0.5)
    assert even.low == even.high == 0.5, "every round won exactly half: no spread between rounds"
    # by hand: R = 0.5, residuals (0 - 1)² + (3 - 1.5)² + (1 - 2)² + (1 - 0.5)² = 4.5 per 4 rounds
    share = share_over_rounds([0, 3, 1, 1] * 5, [2, 3, 4, 1] * 5)
    se = math.sqrt(4.5 * 5 / (20 * 19)) / 2.5
    assert share.rate == pytest.approx(0.5)
    assert share.high - share.rate == pytest.approx(t_quantile(0.95, 19) * se)
    assert share.rate - share.low == pytest.approx(share.high - share.rate)


def test_races_won_together_give_a_wider_interval_than_independent_races() -> None:
    """Ten races a round, each round all won or all lost: 20 rounds are worth 20 samples,
    not 200; Wilson's interval over the races would claim far too much."""
    won = [10, 0] * 10
    share = share_over_rounds(won, [10] * 20)
    independent = wilson(100, 200)
    assert share.rate == independent.rate == 0.5
    assert share.high - share.low > 2.5 * (independent.high - independent.low)


def test_a_share_stays_in_zero_to_one_and_refuses_impossible_counts() -> None:
    assert share_over_rounds([5, 0], [5, 1]).low >= 0.0
    assert share_over_rounds([5, 1], [5, 1]).high == 1.0
    none = share_over_rounds([0, 0], [0, 0])
    assert (none.rate, none.low, none.high, none.n) == (0.0, 0.0, 1.0, 0)
    one = share_over_rounds([2], [3])
    assert (one.rate, one.low, one.high) == (pytest.approx(2 / 3), 0.0, 1.0)
    for won, races in (([3], [2]), ([1, 1], [2]), ([], []), ([-1], [2])):
        with pytest.raises(ValueError, match="0 <= won <= races"):
            share_over_rounds(won, races)


def test_the_summary_counts_each_seats_races_and_score() -> None:
    config = SimConfig(RuleSet(), tuple(parse_bots("smart:expert,greedy:casual", 2)), rounds=3)
    report = SimReport(
        config,
        [
            PlayedRound(result(1, [10, -2], races_won=[3, 1], races_lost=[1, 3]), 1, (0, 1)),
            PlayedRound(result(2, [4, 6], races_won=[0, 2], races_lost=[2, 0]), 2, (0, 1)),
            PlayedRound(result(3, [8, 0], races_won=[0, 0], races_lost=[0, 0]), 3, (0, 1)),
        ],
    )
    seats = summarise(report).seats
    assert seats is not None
    assert [(s.seat, s.delay_ms, s.races_won, s.races_lost) for s in seats] == [(0, 0.0, 3, 3), (1, 0.0, 3, 3)]
    assert seats[0].share_won.rate == 0.5 and seats[0].share_won.n == 6
    assert seats[0].score.mean == pytest.approx(22 / 3) and seats[1].score.mean == pytest.approx(4 / 3)
