"""Reaction times: each skill level's timing laws and ex-Gaussian draws (``ligretto.bots.reaction``)."""

from __future__ import annotations

import math
import random
import statistics

import pytest

from ligretto.bots import LEVELS, DelaySampler, Level, Move
from ligretto.bots.reaction import SCAN_CAP, TAP_BITS

HUMAN = ["beginner", "casual", "skilled", "expert"]
"""The human-like levels, slowest first."""
DRAWS = 20_000


def draws(level: Level, kind: Move, *, seed: int = 0, n: int = DRAWS, options: int = 1, piles: int = 0) -> list[float]:
    sampler = level.sampler(random.Random(seed))
    return [sampler.delay(kind, options, piles) for _ in range(n)]


def skewness(sample: list[float]) -> float:
    mean, sd = statistics.fmean(sample), statistics.pstdev(sample)
    return statistics.fmean(((x - mean) / sd) ** 3 for x in sample)


def test_the_levels_slowest_first() -> None:
    assert list(LEVELS) == [*HUMAN, "machine"]
    for name, level in LEVELS.items():
        assert level.name == name


@pytest.mark.parametrize("name", list(LEVELS))
def test_the_mean_of_each_kind_is_perceive_search_choose_move(name: str) -> None:
    """The documented laws: simple reaction, serial search over the piles (twice as long
    when nothing fits), Hick-Hyman over the options, Fitts for the tap."""
    level = LEVELS[name]
    tap = level.reach + level.aim * TAP_BITS
    for options, piles in [(1, 0), (3, 7), (12, 40)]:
        scanned = min(piles, SCAN_CAP)
        play = level.react + level.scan * scanned + level.bits * math.log2(options + 1) + tap
        assert level.mean(Move.PLAY, options, piles) == pytest.approx(play)
        assert level.mean(Move.PLACE, options, piles) == pytest.approx(play)
        turn = level.react + 2 * level.scan * scanned + level.reach
        assert level.mean(Move.TURN, options, piles) == pytest.approx(turn)
        assert level.mean(Move.VOTE, options, piles) == pytest.approx(level.react + level.bits + tap)
        assert level.mean(Move.LOOK, options, piles) == pytest.approx(level.react)


@pytest.mark.parametrize("name", HUMAN)
def test_the_documented_ranges(name: str) -> None:
    """Simple visual reaction 180-280 ms; Hick-Hyman about 150 ms a bit (less with practice)."""
    level = LEVELS[name]
    assert 0.18 <= level.react <= 0.28
    assert 0.08 <= level.bits <= 0.20
    assert 0.01 <= level.scan <= 0.05


@pytest.mark.parametrize("name", HUMAN)
@pytest.mark.parametrize(("kind", "options", "piles"), [(Move.PLAY, 2, 10), (Move.TURN, 1, 16), (Move.LOOK, 1, 0)])
def test_sampled_delays_are_ex_gaussian_around_the_mean(name: str, kind: Move, options: int, piles: int) -> None:
    level = LEVELS[name]
    mean = level.mean(kind, options, piles)
    sample = draws(level, kind, options=options, piles=piles)
    assert statistics.fmean(sample) == pytest.approx(mean, rel=0.02)
    assert min(sample) > 0
    # An ex-Gaussian: variance sigma^2 + tau^2 (in fractions of the mean), a right tail
    # (skewness 2 tau^3 / (sigma^2 + tau^2)^1.5 > 0, the median below the mean).
    sd = math.hypot(level.sigma, level.tau) * mean
    assert statistics.pstdev(sample) == pytest.approx(sd, rel=0.06)
    expected_skew = 2 * level.tau**3 / (level.sigma**2 + level.tau**2) ** 1.5
    assert skewness(sample) == pytest.approx(expected_skew, abs=0.25)
    assert skewness(sample) > 0.5
    assert statistics.median(sample) < statistics.fmean(sample)
    # The tail: the slowest percent is far slower than the fastest is fast.
    ranked = sorted(sample)
    p1, p50, p99 = ranked[len(ranked) // 100], ranked[len(ranked) // 2], ranked[-len(ranked) // 100]
    assert p99 - p50 > 1.5 * (p50 - p1)


@pytest.mark.parametrize("name", HUMAN)
def test_hick_hyman_more_options_take_longer(name: str) -> None:
    level = LEVELS[name]
    means = [level.mean(Move.PLAY, options, 8) for options in range(1, 13)]
    assert means == sorted(means) and len(set(means)) == len(means)
    # log2(n + 1): doubling the options plus one adds one bit
    assert level.mean(Move.PLAY, 3, 8) - level.mean(Move.PLAY, 1, 8) == pytest.approx(level.bits)
    sampled = [statistics.fmean(draws(level, Move.PLAY, seed=7, n=4000, options=n, piles=8)) for n in (1, 3, 7, 15)]
    assert sampled == sorted(sampled), sampled


@pytest.mark.parametrize("name", HUMAN)
def test_big_tables_are_slower_up_to_the_cap(name: str) -> None:
    level = LEVELS[name]
    for kind in (Move.PLAY, Move.TURN):
        means = [level.mean(kind, 2, piles) for piles in range(SCAN_CAP + 1)]
        assert means == sorted(means) and len(set(means)) == len(means)
        assert level.mean(kind, 2, SCAN_CAP + 30) == level.mean(kind, 2, SCAN_CAP)
    # two players' piles (8) against eight players' (capped): the draws show it too
    small, big = (statistics.fmean(draws(level, Move.PLAY, seed=3, n=4000, options=2, piles=p)) for p in (8, 32))
    assert big > small + 0.5 * (level.mean(Move.PLAY, 2, 32) - level.mean(Move.PLAY, 2, 8))


@pytest.mark.parametrize("kind", list(Move))
def test_machine_takes_no_time(kind: Move) -> None:
    level = LEVELS["machine"]
    assert level.mean(kind, 5, 30) == 0
    assert set(draws(level, kind, n=500, options=5, piles=30)) == {0.0}


@pytest.mark.parametrize("name", list(LEVELS))
def test_the_same_seed_gives_the_same_delays(name: str) -> None:
    asks = [(Move(i % len(Move)), i % 6, i % 25) for i in range(300)]
    one = LEVELS[name].sampler(random.Random(42))
    two = LEVELS[name].sampler(random.Random(42))
    first = [one.delay(*ask) for ask in asks]
    assert first == [two.delay(*ask) for ask in asks]
    if name != "machine":
        other = LEVELS[name].sampler(random.Random(43))
        assert first != [other.delay(*ask) for ask in asks]


def test_a_sampler_draws_from_its_own_generator_only() -> None:
    random.seed(5)
    before = random.getstate()
    sampler = DelaySampler(LEVELS["casual"], random.Random(1))
    for kind in Move:
        sampler.delay(kind, 2, 9)
    assert random.getstate() == before, "the global generator must not be used"
    rng = random.Random(9)
    state = rng.getstate()
    LEVELS["casual"].sampler(rng).delay(Move.PLAY)
    assert rng.getstate() != state, "the bot's generator is the one drawn from"


@pytest.mark.parametrize("kind", list(Move))
def test_slower_levels_are_slower(kind: Move) -> None:
    for options, piles in [(1, 0), (2, 10), (6, 30)]:
        means = [LEVELS[name].mean(kind, options, piles) for name in HUMAN]
        assert means == sorted(means, reverse=True) and len(set(means)) == len(means), means
        assert all(m > 0 for m in means)
    sampled = [statistics.fmean(draws(LEVELS[name], kind, n=4000, options=2, piles=10)) for name in HUMAN]
    assert sampled == sorted(sampled, reverse=True), sampled


@pytest.mark.parametrize("name", HUMAN)
def test_playing_takes_longer_than_turning_voting_or_looking(name: str) -> None:
    """A play needs perception, search, a choice and a move to a card; a turn is a search
    that found nothing and a tap where the pointer is."""
    level = LEVELS[name]
    for piles in (0, 8, 16):
        assert level.mean(Move.PLAY, 1, piles) > level.mean(Move.TURN, 1, piles)
    assert level.mean(Move.PLAY) >= level.mean(Move.VOTE) > level.mean(Move.LOOK)
    play, turn = (statistics.fmean(draws(level, kind, n=4000, piles=8)) for kind in (Move.PLAY, Move.TURN))
    assert play > turn
