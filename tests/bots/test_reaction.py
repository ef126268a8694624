"""Reaction times: each skill level's delays per kind of move (``ligretto.bots.reaction``)."""

from __future__ import annotations

import math
import random
import statistics

import pytest

from ligretto.bots import LEVELS, DelaySampler, Level, Move

HUMAN = ["beginner", "casual", "skilled", "expert"]
"""The human-like levels, slowest first."""
DRAWS = 20_000


def draws(level: Level, kind: Move, seed: int = 0, n: int = DRAWS) -> list[float]:
    sampler = level.sampler(random.Random(seed))
    return [sampler.delay(kind) for _ in range(n)]


def test_the_levels_slowest_first() -> None:
    assert list(LEVELS) == [*HUMAN, "machine"]
    for name, level in LEVELS.items():
        assert level.name == name


@pytest.mark.parametrize("name", list(LEVELS))
def test_the_mean_of_each_kind_follows_the_levels_parameters(name: str) -> None:
    level = LEVELS[name]
    spot_and_play = level.perceive + level.decide + level.move
    assert level.mean(Move.PLAY) == pytest.approx(spot_and_play)
    assert level.mean(Move.PLACE) == pytest.approx(spot_and_play)
    assert level.mean(Move.TURN) == pytest.approx(level.turn)
    assert level.mean(Move.VOTE) == pytest.approx(level.perceive + level.decide)
    assert level.mean(Move.LOOK) == pytest.approx(level.perceive)


@pytest.mark.parametrize("name", HUMAN)
@pytest.mark.parametrize("kind", list(Move))
def test_sampled_delays_average_the_mean_and_lean_right(name: str, kind: Move) -> None:
    level = LEVELS[name]
    sample = draws(level, kind)
    mean = statistics.fmean(sample)
    assert mean == pytest.approx(level.mean(kind), rel=0.03)
    assert min(sample) > 0
    # Log-normal: sometimes much slower than usual, rarely much faster.
    assert statistics.median(sample) < mean
    assert max(sample) - mean > mean - min(sample)
    # ... with the spread its sigma gives: the coefficient of variation of a log-normal.
    cv = statistics.pstdev(sample) / mean
    assert cv == pytest.approx(math.sqrt(math.exp(level.sigma**2) - 1), rel=0.1)


@pytest.mark.parametrize("kind", list(Move))
def test_machine_takes_no_time(kind: Move) -> None:
    level = LEVELS["machine"]
    assert level.mean(kind) == 0
    assert set(draws(level, kind, n=500)) == {0.0}


@pytest.mark.parametrize("name", list(LEVELS))
def test_the_same_seed_gives_the_same_delays(name: str) -> None:
    kinds = [Move(i % len(Move)) for i in range(300)]
    one = LEVELS[name].sampler(random.Random(42))
    two = LEVELS[name].sampler(random.Random(42))
    first = [one.delay(k) for k in kinds]
    assert first == [two.delay(k) for k in kinds]
    if name != "machine":
        other = LEVELS[name].sampler(random.Random(43))
        assert first != [other.delay(k) for k in kinds]


def test_a_sampler_draws_from_its_own_generator_only() -> None:
    random.seed(5)
    before = random.getstate()
    sampler = DelaySampler(LEVELS["casual"], random.Random(1))
    for kind in Move:
        sampler.delay(kind)
    assert random.getstate() == before, "the global generator must not be used"
    rng = random.Random(9)
    state = rng.getstate()
    LEVELS["casual"].sampler(rng).delay(Move.PLAY)
    assert rng.getstate() != state, "the bot's generator is the one drawn from"


@pytest.mark.parametrize("kind", list(Move))
def test_slower_levels_are_slower(kind: Move) -> None:
    means = [LEVELS[name].mean(kind) for name in HUMAN]
    assert means == sorted(means, reverse=True) and len(set(means)) == len(means), means
    sampled = [statistics.fmean(draws(LEVELS[name], kind, n=4000)) for name in HUMAN]
    assert sampled == sorted(sampled, reverse=True), sampled
    assert all(m > 0 for m in means)


@pytest.mark.parametrize("name", HUMAN)
def test_playing_takes_longer_than_turning(name: str) -> None:
    """Spotting a play needs perception, a decision and a move; turning is a practised move."""
    level = LEVELS[name]
    assert level.mean(Move.PLAY) > level.mean(Move.TURN)
    assert level.mean(Move.PLAY) > level.mean(Move.VOTE) > level.mean(Move.LOOK)
    assert statistics.fmean(draws(level, Move.PLAY, n=4000)) > statistics.fmean(draws(level, Move.TURN, n=4000))
