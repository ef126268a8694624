"""The bots' fixed ratings, calibrated by simulation (docs/ratings.md).

Every bot a player can seat at a table (each strategy the browser offers, at each level
but ``machine``) plays many seeded matches against the others in the simulator: match
``n`` of a run with seed ``S`` is dealt from ``round_seed(S, n)``, which also draws its
table (2-6 seats, distinct bots).  The matches are played first (in worker processes: each is a
pure function of its seed), then rated one after the other, in order, with
:func:`ligretto.ratings.rate` from :data:`~ligretto.ratings.DEFAULT`, exactly as the
server rates people's matches.  The ratings settle: τ keeps σ from shrinking to nothing,
so each μ keeps moving by about σ around the bot's skill; the calibrated rating is the
mean of each bot's (μ, σ) over the second half of the run (the *settled* half), and the
report says how far μ still drifted between its last two quarters.

``python -m ligretto.sim.calibrate --matches 20000`` prints the table and the
``BOT_RATINGS`` literal for ``ligretto/ratings.py``.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from multiprocessing import get_context

from ligretto.bots.reaction import LEVELS
from ligretto.bots.spec import BotSpec
from ligretto.engine.match import Match
from ligretto.engine.rules import RuleSet
from ligretto.engine.scoring import places, round_seed
from ligretto.ratings import DEFAULT, Rating, rate
from ligretto.sim.table import simulate_round
from ligretto.sim.tasks import MATCH_ROUND_LIMIT

UNRATED_LEVELS = frozenset({"machine"})
"""Levels left out: a ``machine`` bot (no delay at all, faster than any person) wins nearly
every match, so the model's estimate of it only grows and never settles."""
CALIBRATED_STRATEGIES = ("sharp", "smart", "greedy")
"""The strategies a table's host can add, best first (``random`` is for tests and baselines)."""
CALIBRATED_BOTS: tuple[str, ...] = tuple(
    f"{strategy}:{level}" for strategy in CALIBRATED_STRATEGIES for level in LEVELS if level not in UNRATED_LEVELS
)
"""The bots a player meets: the strategies a table's host can add, at every level a person can match."""
TABLE_SIZES: tuple[int, ...] = (2, 3, 4, 5, 6)
"""The seats of a calibration match, drawn evenly: the tables people play at."""
DEFAULT_MATCHES = 20000


@dataclass(frozen=True, slots=True)
class CalibrationMatch:
    """One simulated match: the bot in each seat and its final place (1 = best, ties share)."""

    bots: tuple[str, ...]
    places: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class BotCalibration:
    """One bot's calibrated rating and how settled it is."""

    spec: str
    rating: Rating
    """The mean μ and σ over the settled half of the run."""
    final: Rating
    """Its rating after the last match."""
    matches: int
    """Matches it played."""
    drift: float
    """Its mean μ over the last quarter less that over the third quarter."""
    low: float
    high: float
    """The lowest and highest μ it had over the settled half."""


@dataclass(frozen=True, slots=True)
class Calibration:
    """A whole run: every bot, best first by conservative value."""

    bots: tuple[BotCalibration, ...]
    matches: int
    seed: int
    wall_s: float = 0.0

    def order(self) -> list[str]:
        return [bot.spec for bot in self.bots]


def draw_table(seed: int, number: int, pool: Sequence[str] = CALIBRATED_BOTS) -> tuple[int, tuple[str, ...]]:
    """Match ``number``'s seed and its bots, seat by seat: a pure function of the run's seed."""
    match_seed = round_seed(seed, number)
    rng = random.Random(match_seed)
    size = rng.choice([size for size in TABLE_SIZES if size <= len(pool)])
    return match_seed, tuple(rng.sample(list(pool), size))


def play_match(rules: RuleSet, bots: Sequence[str], seed: int) -> CalibrationMatch:
    """One whole match in virtual time (as ``ligretto simulate --matches`` plays it): the places by totals."""
    specs = [BotSpec.parse(bot) for bot in bots]
    match = Match(rules, len(specs), seed)
    played = 0
    while not match.over and played < MATCH_ROUND_LIMIT:
        game = match.new_round()
        simulate_round(rules, specs, game.seed, game=game)
        match.finish_round()
        played += 1
    return CalibrationMatch(tuple(bots), places(match.sheet.totals()))


def _play_number(job: tuple[RuleSet, int, int, tuple[str, ...]]) -> CalibrationMatch:
    rules, seed, number, pool = job
    match_seed, bots = draw_table(seed, number, pool)
    return play_match(rules, bots, match_seed)


def play_all(
    rules: RuleSet, matches: int, seed: int, pool: Sequence[str] = CALIBRATED_BOTS, workers: int = 1
) -> list[CalibrationMatch]:
    """Matches 1 to ``matches`` of the run, in order; the same for any number of workers."""
    jobs = [(rules, seed, number, tuple(pool)) for number in range(1, matches + 1)]
    if workers <= 1:
        return [_play_number(job) for job in jobs]
    with ProcessPoolExecutor(workers, mp_context=get_context("fork")) as pool_of_workers:
        return list(pool_of_workers.map(_play_number, jobs, chunksize=max(1, min(64, matches // (workers * 8)))))


def rate_all(played: Sequence[CalibrationMatch], pool: Sequence[str] = CALIBRATED_BOTS) -> dict[str, list[Rating]]:
    """Every bot's rating after each match it played, from the default rating, in order."""
    history: dict[str, list[Rating]] = {spec: [DEFAULT] for spec in pool}
    for match in played:
        after = rate([history[bot][-1] for bot in match.bots], match.places)
        for bot, rating in zip(match.bots, after, strict=True):
            history[bot].append(rating)
    return history


def summarise(history: dict[str, list[Rating]], matches: int, seed: int, wall_s: float = 0.0) -> Calibration:
    """Each bot's settled rating (the mean over the second half of its matches) and drift."""
    bots = []
    for spec, ratings in history.items():
        played = ratings[1:]
        if len(played) < 4:
            raise ValueError(f"{spec} played {len(played)} matches: too few to calibrate (at least 4)")
        half, quarter = len(played) // 2, len(played) * 3 // 4
        settled = played[half:]
        mus = [rating.mu for rating in settled]
        drift = statistics.fmean(r.mu for r in played[quarter:]) - statistics.fmean(r.mu for r in played[half:quarter])
        mean = Rating(statistics.fmean(mus), statistics.fmean(rating.sigma for rating in settled))
        bots.append(BotCalibration(spec, mean, played[-1], len(played), drift, min(mus), max(mus)))
    bots.sort(key=lambda bot: (-bot.rating.conservative, -bot.rating.mu))
    return Calibration(tuple(bots), matches, seed, wall_s)


def calibrate(
    rules: RuleSet, matches: int, seed: int = 1, pool: Sequence[str] = CALIBRATED_BOTS, workers: int = 1
) -> Calibration:
    """Play, rate and summarise one calibration run."""
    if matches < 1:
        raise ValueError(f"matches must be at least 1, not {matches}")
    start = time.perf_counter()
    played = play_all(rules, matches, seed, pool, workers)
    return summarise(rate_all(played, pool), matches, seed, time.perf_counter() - start)


def report(calibration: Calibration) -> str:
    """The run as a table, and the ``BOT_RATINGS`` literal for ``ratings.py``."""
    lines = [
        f"{calibration.matches} matches, seed {calibration.seed}, {calibration.wall_s:.0f} s",
        f"{'bot':16} {'mu':>7} {'sigma':>6} {'mu-3s':>7} {'matches':>7} {'mu low':>7} {'mu high':>7} {'drift':>6}",
    ]
    for bot in calibration.bots:
        r = bot.rating
        lines.append(
            f"{bot.spec:16} {r.mu:7.2f} {r.sigma:6.2f} {r.conservative:7.2f} {bot.matches:7} "
            f"{bot.low:7.2f} {bot.high:7.2f} {bot.drift:+6.2f}"
        )
    lines += ["", "BOT_RATINGS: dict[str, Rating] = {"]
    lines += [f'    "{bot.spec}": Rating({bot.rating.mu:.2f}, {bot.rating.sigma:.2f}),' for bot in calibration.bots]
    lines.append("}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ligretto.sim.calibrate",
        description="Calibrate the bots' fixed ratings: seeded matches between them, rated in order (docs/ratings.md).",
    )
    parser.add_argument("--matches", type=int, default=DEFAULT_MATCHES, help=f"default {DEFAULT_MATCHES}")
    parser.add_argument("--seed", type=int, default=1, help="master seed (default 1)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="worker processes (default: all)")
    args = parser.parse_args(argv)
    if args.matches < 1 or args.workers < 1:
        parser.error("--matches and --workers must be at least 1")
    print(report(calibrate(RuleSet(), args.matches, args.seed, workers=args.workers)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
