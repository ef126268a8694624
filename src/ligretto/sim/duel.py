"""One bot against a field of another: how much stronger is it, luck cancelled?

The measure of a strategy in docs/bots.md.  Every deal is played once per seat, the
``hero`` in that seat and ``rival`` bots of the same level in all the others; the deal's
lead is the mean, over those rotations, of the hero's round score minus the mean of the
rivals' scores in the same round.  The duel's figure is the mean lead over the deals with
its 99 % confidence interval (``sim.stats.mean_ci``: the deals are independent).

Re-run the figures of docs/bots.md with, e.g.::

    python -m ligretto.sim.duel sharp smart --players 4 --deals 4000 --level expert --rules classic
"""

from __future__ import annotations

import argparse
import statistics
import sys
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from typing import NamedTuple

from ligretto.bots.spec import parse_bots
from ligretto.engine.rules import PRESETS, RuleSet
from ligretto.sim.stats import mean_ci
from ligretto.sim.table import simulate_round


class Lead(NamedTuple):
    """The hero's mean lead per round over the rivals, and its 99 % interval's half-width."""

    mean: float
    half: float

    def __str__(self) -> str:
        return f"{self.mean:+.2f} ± {self.half:.2f} (99 %: {self.mean - self.half:+.2f} … {self.mean + self.half:+.2f})"


def deal_lead(seed: int, *, hero: str, rival: str, players: int, level: str, rules: RuleSet) -> float:
    """Deal ``seed`` played ``players`` times, the hero rotated through every seat: its mean
    lead over the rivals' mean score."""
    leads = []
    for seat in range(players):
        names = [rival] * players
        names[seat] = hero
        bots = parse_bots(",".join(f"{name}:{level}" for name in names), players)
        scores = simulate_round(rules, bots, seed, rotation=seat).scores
        leads.append(scores[seat] - statistics.fmean(scores[:seat] + scores[seat + 1 :]))
    return statistics.fmean(leads)


def duel(
    hero: str,
    rival: str,
    deals: int,
    *,
    players: int = 4,
    level: str = "expert",
    rules: RuleSet | None = None,
    workers: int = 1,
) -> Lead:
    """One ``hero`` against ``players - 1`` ``rival`` bots on deals 0 to ``deals - 1``."""
    if deals < 2:
        raise ValueError("a duel needs at least 2 deals for an interval")
    one = partial(deal_lead, hero=hero, rival=rival, players=players, level=level, rules=rules or RuleSet())
    if workers > 1:
        with ProcessPoolExecutor(workers) as pool:
            leads = list(pool.map(one, range(deals), chunksize=16))
    else:
        leads = [one(seed) for seed in range(deals)]
    interval = mean_ci(leads, 0.99)
    assert interval.half_width is not None  # two deals or more
    return Lead(interval.mean, interval.half_width)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ligretto.sim.duel", description=__doc__.split("\n\n")[0])
    parser.add_argument("hero", help="the strategy measured (one seat)")
    parser.add_argument("rival", help="the strategy of every other seat")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--level", default="expert", help="every bot's level (default expert)")
    parser.add_argument("--rules", default="classic", choices=sorted(PRESETS), help="a rules preset (default classic)")
    parser.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    args = parser.parse_args(argv)
    if args.deals < 2 or args.workers < 1:
        parser.error("--deals must be at least 2 (an interval needs two) and --workers at least 1")
    try:
        RuleSet.preset(args.rules).row_length(args.players)  # refuses a count outside 2-12
        parse_bots(f"{args.hero}:{args.level},{args.rival}:{args.level}", 2)
    except ValueError as error:
        parser.error(str(error))
    lead = duel(
        args.hero,
        args.rival,
        args.deals,
        players=args.players,
        level=args.level,
        rules=RuleSet.preset(args.rules),
        workers=args.workers,
    )
    print(
        f"{args.hero}:{args.level} against {args.players - 1} × {args.rival}:{args.level}, {args.rules},"
        f" {args.deals} deals × {args.players} seats: lead {lead}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
