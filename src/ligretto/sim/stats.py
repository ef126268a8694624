"""The statistics of a simulation: means with confidence intervals, win rates, spreads.

- A mean comes with a 95 % confidence interval from Student's t distribution for every
  sample size (the quantile is exact: A&S 26.7.3-4 inverted by bisection), so small
  samples get honest, wider intervals; for large ``n`` it is the normal interval.
- A win rate comes with a Wilson score interval, which stays inside [0, 1] and behaves
  at rates near 0 or 1 and at small ``n``, where the normal approximation does not.
- A round's winners are every seat with the top score, so ties give several winners and
  the win rates of a table may add up to more than 1.
- Every round counts as one independent sample, except for the mean score in duplicate
  mode: the rounds a bot plays on one deal share the cards, so there the interval is taken
  over the bot's mean score per deal (one sample per deal).
- A seat's share of races won is a ratio over rounds (races won / races it took part in):
  the races of one round are not independent, so the round is the unit and the interval
  is the ratio estimator's, from its linearised (cluster) variance over rounds
  (:func:`share_over_rounds`).
"""

from __future__ import annotations

import functools
import math
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ligretto.engine.scoring import winners
from ligretto.sim.runner import SimReport

CONFIDENCE = 0.95


# --- distributions ----------------------------------------------------------------------


def _t_central(t: float, df: int) -> float:
    """P(|T| < t) for Student's t with ``df`` (integer) degrees of freedom (A&S 26.7.3-4)."""
    theta = math.atan(t / math.sqrt(df))
    sin, cos2 = math.sin(theta), math.cos(theta) ** 2
    if df % 2 == 0:
        term = total = 1.0
        for k in range(2, df - 1, 2):  # 1 + 1/2 c^2 + 1*3/(2*4) c^4 + ...
            term *= cos2 * (k - 1) / k
            total += term
        return sin * total
    if df == 1:
        return 2 * theta / math.pi
    term = total = math.cos(theta)
    for k in range(3, df - 1, 2):  # c + 2/3 c^3 + 2*4/(3*5) c^5 + ...
        term *= cos2 * (k - 1) / k
        total += term
    return 2 / math.pi * (theta + sin * total)


@functools.cache
def t_quantile(confidence: float, df: int) -> float:
    """The two-sided critical value: P(|T| < t) = ``confidence``, e.g. 12.706 for df 1 at 95 %."""
    if not 0 < confidence < 1 or df < 1:
        raise ValueError(f"need 0 < confidence < 1 and df >= 1, not {confidence}, {df}")
    if df > 10_000:  # the series would be long and t is the normal quantile to 5 digits
        return statistics.NormalDist().inv_cdf((1 + confidence) / 2)
    low, high = 0.0, 1.0
    while _t_central(high, df) < confidence:
        high *= 2
    for _ in range(200):
        mid = (low + high) / 2
        if _t_central(mid, df) < confidence:
            low = mid
        else:
            high = mid
        if high - low < 1e-12:
            break
    return (low + high) / 2


def z_quantile(confidence: float) -> float:
    """The two-sided normal critical value, e.g. 1.95996 at 95 %."""
    return statistics.NormalDist().inv_cdf((1 + confidence) / 2)


# --- estimates ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MeanCI:
    """A sample mean and its confidence interval (``low``/``high`` are ``None`` when n < 2)."""

    mean: float
    low: float | None
    high: float | None
    n: int
    sd: float | None
    """Sample standard deviation (n - 1 in the denominator)."""

    @property
    def half_width(self) -> float | None:
        return None if self.high is None else self.high - self.mean

    def to_dict(self) -> dict[str, Any]:
        return {"mean": self.mean, "low": self.low, "high": self.high, "n": self.n, "sd": self.sd}


def mean_ci(values: Sequence[float], confidence: float = CONFIDENCE) -> MeanCI:
    """Mean ± t(confidence, n - 1) · sd / √n."""
    n = len(values)
    if n == 0:
        raise ValueError("the mean of no values")
    mean = statistics.fmean(values)
    if n < 2:
        return MeanCI(mean, None, None, n, None)
    sd = statistics.stdev(values, mean)
    half = t_quantile(confidence, n - 1) * sd / math.sqrt(n)
    return MeanCI(mean, mean - half, mean + half, n, sd)


@dataclass(frozen=True, slots=True)
class Rate:
    """A proportion (e.g. rounds won) and its Wilson score interval."""

    successes: int
    n: int
    rate: float
    low: float
    high: float

    def to_dict(self) -> dict[str, Any]:
        return {"rate": self.rate, "low": self.low, "high": self.high, "successes": self.successes, "n": self.n}


def wilson(successes: int, n: int, confidence: float = CONFIDENCE) -> Rate:
    """The Wilson score interval: (p + z²/2n ± z·√(p(1-p)/n + z²/4n²)) / (1 + z²/n)."""
    if not 0 <= successes <= n or n < 1:
        raise ValueError(f"need 0 <= successes <= n and n >= 1, not {successes} of {n}")
    z = z_quantile(confidence)
    p = successes / n
    z2n = z * z / n
    centre = (p + z2n / 2) / (1 + z2n)
    half = z / (1 + z2n) * math.sqrt(p * (1 - p) / n + z2n / (4 * n))
    # exact at the ends (rounding would otherwise leave 1e-17 outside [0, 1])
    return Rate(successes, n, p, 0.0 if successes == 0 else centre - half, 1.0 if successes == n else centre + half)


def share_over_rounds(won: Sequence[int], races: Sequence[int], confidence: float = CONFIDENCE) -> Rate:
    """``sum(won) / sum(races)`` with a confidence interval taking the round as the unit.

    ``won[i]`` of ``races[i]`` in round ``i``.  The ratio estimator's variance is linearised
    (the delta method, as for cluster samples): ``sum((w - R r)²) / (n (n - 1) r̄²)``, with
    Student's t at ``n - 1`` degrees of freedom; clipped to [0, 1].  Rounds without races
    count (they carry no weight in the ratio but are rounds played).  With no races at
    all the rate is 0 and the interval [0, 1]."""
    n = len(won)
    if n != len(races) or n < 1 or any(not 0 <= w <= r for w, r in zip(won, races, strict=True)):
        raise ValueError(f"need as many rounds of races as of wins, each 0 <= won <= races: {n}, {len(races)}")
    total, successes = sum(races), sum(won)
    if total == 0:
        return Rate(0, 0, 0.0, 0.0, 1.0)
    ratio = successes / total
    if n < 2:
        return Rate(successes, total, ratio, 0.0, 1.0)
    mean_races = total / n
    residuals = sum((w - ratio * r) ** 2 for w, r in zip(won, races, strict=True))
    half = t_quantile(confidence, n - 1) * math.sqrt(residuals / (n * (n - 1))) / mean_races
    return Rate(successes, total, ratio, max(0.0, ratio - half), min(1.0, ratio + half))


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-quantile (0-1) with linear interpolation between order statistics."""
    if not values:
        raise ValueError("the percentile of no values")
    ordered = sorted(values)
    h = (len(ordered) - 1) * q
    below = math.floor(h)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (h - below) * (ordered[above] - ordered[below])


@dataclass(frozen=True, slots=True)
class Spread:
    """Mean, median, 90th percentile and range of a per-round figure."""

    mean: float
    p50: float
    p90: float
    min: float
    max: float

    def to_dict(self) -> dict[str, Any]:
        return {"mean": self.mean, "p50": self.p50, "p90": self.p90, "min": self.min, "max": self.max}


def spread(values: Sequence[float]) -> Spread:
    return Spread(statistics.fmean(values), percentile(values, 0.5), percentile(values, 0.9), min(values), max(values))


# --- the summary of a run -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BotSummary:
    """One bot's figures over every round (and match) it played, in whatever seat."""

    bot: int
    """Index in the configuration's bot list."""
    label: str
    spec: str
    rounds: int
    score: MeanCI
    """Round score; in duplicate mode the interval is over per-deal means."""
    win_rate: Rate
    """Rounds in which the bot had the top score (shared on ties)."""
    center: MeanCI
    """Cards played to the center per round."""
    stack_left: MeanCI
    """Cards left in the Ligretto stack at the end of a round."""
    match_win_rate: Rate | None = None
    """Matches mode: matches in which the bot had the top total (shared on ties)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "bot": self.bot,
            "label": self.label,
            "spec": self.spec,
            "rounds": self.rounds,
            "score": self.score.to_dict(),
            "win_rate": self.win_rate.to_dict(),
            "center": self.center.to_dict(),
            "stack_left": self.stack_left.to_dict(),
            "match_win_rate": None if self.match_win_rate is None else self.match_win_rate.to_dict(),
        }


@dataclass(frozen=True, slots=True)
class SeatSummary:
    """One seat's figures, whichever bot sat there: its races for a pile and its score.

    With a latency the delays belong to the seats (the bots rotate through them in
    duplicate mode), so this is where the cost of a seat's distance shows."""

    seat: int
    delay_ms: float
    """The seat's one-way delay (0 without a latency)."""
    races_won: int
    races_lost: int
    share_won: Rate
    """Races won of those it took part in; the interval over rounds (:func:`share_over_rounds`)."""
    score: MeanCI
    """Round score of whoever sat there."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "delay_ms": self.delay_ms,
            "races_won": self.races_won,
            "races_lost": self.races_lost,
            "share_won": self.share_won.to_dict(),
            "score": self.score.to_dict(),
        }


@dataclass(frozen=True, slots=True)
class RoundSummary:
    """How rounds went, whoever played them."""

    rounds: int
    duration_s: Spread
    """Simulated seconds from "Ligretto!" to the end."""
    actions: Spread
    """Applied actions."""
    refusals: Spread
    """Refused actions ("beaten to it")."""
    ended_by: dict[str, int]
    """How many rounds ended by ``stop``, ``stalemate_vote``, ``stalemate_proven``, ``time_limit``."""
    match_rounds: Spread | None = None
    """Matches mode: rounds per match."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "rounds": self.rounds,
            "duration_s": self.duration_s.to_dict(),
            "actions": self.actions.to_dict(),
            "refusals": self.refusals.to_dict(),
            "ended_by": self.ended_by,
            "match_rounds": None if self.match_rounds is None else self.match_rounds.to_dict(),
        }


@dataclass(frozen=True, slots=True)
class Summary:
    bots: list[BotSummary]
    rounds: RoundSummary
    confidence: float = CONFIDENCE
    seats: list[SeatSummary] | None = None
    """Per seat: races won and lost, the share won, the score."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "confidence": self.confidence,
            "bots": [bot.to_dict() for bot in self.bots],
            "rounds": self.rounds.to_dict(),
            "seats": None if self.seats is None else [seat.to_dict() for seat in self.seats],
        }


def seat_summaries(report: SimReport, confidence: float = CONFIDENCE) -> list[SeatSummary]:
    """Each seat's races and score over every round of the run."""
    config = report.config
    results = [played.result for played in report.rounds]
    latency = config.latency
    seats = []
    for seat in range(config.players):
        won = [r.races_won[seat] if r.races_won else 0 for r in results]
        races = [won[i] + (r.races_lost[seat] if r.races_lost else 0) for i, r in enumerate(results)]
        seats.append(
            SeatSummary(
                seat=seat,
                delay_ms=0.0 if latency is None else round(latency.delay_s[seat] * 1000, 6),
                races_won=sum(won),
                races_lost=sum(races) - sum(won),
                share_won=share_over_rounds(won, races, confidence),
                score=mean_ci([r.scores[seat] for r in results], confidence),
            )
        )
    return seats


def summarise(report: SimReport, confidence: float = CONFIDENCE) -> Summary:
    """Per-bot and per-round figures of a finished run."""
    config = report.config
    if not report.rounds:
        raise ValueError("no rounds to summarise")
    bots = len(config.bots)
    scores: list[list[int]] = [[] for _ in range(bots)]
    centers: list[list[int]] = [[] for _ in range(bots)]
    stacks: list[list[int]] = [[] for _ in range(bots)]
    per_deal: list[dict[int, list[int]]] = [{} for _ in range(bots)]
    wins = [0] * bots
    # 1. every round: each seat's figures go to the bot sitting there
    for played in report.rounds:
        result = played.result
        top = winners(result.scores)
        for seat, bot in enumerate(played.seating):
            scores[bot].append(result.scores[seat])
            centers[bot].append(result.center[seat])
            stacks[bot].append(result.stack_left[seat])
            per_deal[bot].setdefault(played.deal, []).append(result.scores[seat])
            wins[bot] += seat in top
    # 2. matches: the bots in the winning seats
    match_wins = [0] * bots
    for match in report.matches:
        for bot in set(match.winning_bots()):
            match_wins[bot] += 1
    # 3. per bot
    labels = config.labels()
    summaries = []
    for bot in range(bots):
        if config.duplicate:
            # the deal is the independent sample: interval from the per-deal means, centred on the mean
            deals = mean_ci([statistics.fmean(s) for s in per_deal[bot].values()], confidence)
            mean, half = statistics.fmean(scores[bot]), deals.half_width
            low, high = (None, None) if half is None else (mean - half, mean + half)
            score = MeanCI(mean, low, high, deals.n, deals.sd)
        else:
            score = mean_ci(scores[bot], confidence)
        summaries.append(
            BotSummary(
                bot=bot,
                label=labels[bot],
                spec=str(config.bots[bot]),
                rounds=len(scores[bot]),
                score=score,
                win_rate=wilson(wins[bot], len(scores[bot]), confidence),
                center=mean_ci(centers[bot], confidence),
                stack_left=mean_ci(stacks[bot], confidence),
                match_win_rate=wilson(match_wins[bot], len(report.matches), confidence) if report.matches else None,
            )
        )
    # 4. per round
    results = [played.result for played in report.rounds]
    rounds = RoundSummary(
        rounds=len(results),
        duration_s=spread([r.duration_s for r in results]),
        actions=spread([r.actions for r in results]),
        refusals=spread([r.refusals for r in results]),
        ended_by=dict(Counter(r.ended_by for r in results).most_common()),
        match_rounds=spread([m.rounds for m in report.matches]) if report.matches else None,
    )
    return Summary(summaries, rounds, confidence, seat_summaries(report, confidence))
