"""How fast a bot is: human timing laws, drawn ex-Gaussian from the bot's seeded generator.

A play is *perceive + search + choose + move*, each part a published law of human
performance (docs/bots.md has every level's parameters and their sources):

- **perceive**: a simple visual reaction, ``react`` (about 0.18-0.28 s; Luce 1986, Woods
  et al. 2015).  It is also the intercept of the choice law below.
- **search**: the center's pile tops are scanned one by one for the pile a card fits, a
  serial visual search: ``scan`` seconds per pile when a target is there, twice that when
  none is and every pile must be looked at (Treisman & Gelade 1980; Wolfe 1998), over at
  most :data:`SCAN_CAP` piles (past that, search goes by colour first).  Big tables have more
  piles: bots slow down on them as people do.
- **choose**: Hick-Hyman, ``bits * log2(n + 1)`` with ``n`` the playable (card, pile) options
  the bot sees (Hick 1952, Hyman 1953; the slope shrinks with practice).
- **move**: Fitts's law for the tap or click on the card, ``reach + aim * ID`` with the
  index of difficulty :data:`TAP_BITS` = log2(D/W + 1) of the layouts (MacKenzie 1992).

The mean so computed is the mean of an **ex-Gaussian** draw (a normal plus an exponential
tail, the classic shape of human response times, Ratcliff 1979): ``mean * f`` where the
factor ``f = 1 - tau + sigma * z + tau * e`` (``z`` normal, ``e`` exponential, both standard)
has mean 1, so its spread grows with the mean as people's does (Wagenmakers & Brown 2007).
Drawing one is a lookup in a table of 4,096 factors.  ``machine`` has no delay.
"""

from __future__ import annotations

import enum
import functools
import math
import random
import statistics
from dataclasses import dataclass
from typing import Final

from ligretto.engine.actions import Place, Play, Turn, Vote, Withdraw


class Move(enum.IntEnum):
    """Kinds of intended action, each with its own timing."""

    PLAY = 0
    """Spot a card that fits the center and play it."""
    PLACE = 1
    """Expert variant: spot a column that takes a card and put it there."""
    TURN = 2
    """Turn the hand: nothing fitted (a search that found nothing), then a tap where the pointer is."""
    VOTE = 3
    """Decide (one bit) to call a stalemate and tap the button."""
    LOOK = 4
    """Nothing to do: look at the table again."""


SCAN_CAP: Final = 20
"""The most center piles a search goes through one by one (five players' worth): past it a
person looks at the piles of the card's colour first (colour guides search, Wolfe 1994)."""
TAP_BITS: Final = 2.6
"""Fitts's index of difficulty of a play, log2(D/W + 1) bits: a tap on a card about 40 px wide
some 200 px from the center on a 360x640 phone, or a click on one about 64 px wide some
320 px away on a 1280x800 desktop, both about log2(6) = 2.6 bits (a click or tap on a card
plays it to the first pile it fits, docs/clients.md)."""
MAX_OPTIONS: Final = 63
"""Hick-Hyman's table goes this far; more options count as this many."""


@dataclass(frozen=True, slots=True)
class Level:
    """One skill level: the timing laws' parameters, seconds (``sigma``, ``tau``: fractions)."""

    name: str
    react: float
    """Simple visual reaction time: perceiving a change (Hick-Hyman's intercept)."""
    scan: float
    """Visual search, seconds per center pile when a fitting pile is there (none: twice)."""
    bits: float
    """Hick-Hyman slope, seconds per bit of choice."""
    reach: float
    """Fitts's intercept: a tap or click where the pointer already is."""
    aim: float
    """Fitts's slope, seconds per bit of the movement's difficulty."""
    sigma: float
    """The ex-Gaussian's normal spread, as a fraction of the mean."""
    tau: float
    """The ex-Gaussian's exponential tail (its mean), as a fraction of the mean."""

    def mean(self, kind: Move, options: int = 1, piles: int = 0) -> float:
        """Mean seconds for one action of this kind, with ``options`` playable (card, pile)
        pairs in view and ``piles`` center piles to search."""
        scanned = min(max(piles, 0), SCAN_CAP)
        if kind is Move.PLAY or kind is Move.PLACE:
            choice = self.bits * math.log2(min(max(options, 1), MAX_OPTIONS) + 1)
            return self.react + self.scan * scanned + choice + self.reach + self.aim * TAP_BITS
        if kind is Move.TURN:
            return self.react + 2 * self.scan * scanned + self.reach
        if kind is Move.VOTE:
            return self.react + self.bits + self.reach + self.aim * TAP_BITS
        return self.react

    def sampler(self, rng: random.Random) -> DelaySampler:
        return DelaySampler(self, rng)


_FACTORS = 4096
_LATTICE = 2531
"""The rank-1 lattice's generator (4096 / golden ratio, odd): pairs each normal quantile with an
exponential quantile spread evenly over the other axis."""


@functools.cache
def _factors(sigma: float, tau: float) -> tuple[float, ...]:
    """4096 ex-Gaussian factors ``1 - tau + sigma*z + tau*e`` with mean exactly 1.

    ``z`` runs over the normal's quantiles ``(i + 0.5) / 4096`` and ``e`` over the
    exponential's, paired by a rank-1 lattice so that the pairs cover the unit square evenly
    (a sample of the sum's distribution without a random generator).  Drawing one is a table
    lookup, several times cheaper than ``random.gauss`` plus ``random.expovariate``.
    """
    normal = statistics.NormalDist()
    n = _FACTORS
    raw = [
        max(
            1 - tau + sigma * normal.inv_cdf((i + 0.5) / n) - tau * math.log1p(-((i * _LATTICE) % n + 0.5) / n),
            0.05,
        )
        for i in range(n)
    ]
    mean = math.fsum(raw) / n
    return tuple(f / mean for f in raw)


@functools.cache
def _parts(level: Level) -> tuple[list[float], list[list[float]], list[float]]:
    """The level's delay table (shared by its samplers, read only): each kind's fixed
    seconds, each kind's search seconds by pile count, and the choice seconds by options."""
    base = [level.mean(kind) for kind in Move]
    scans = [[level.mean(kind, 1, piles) - base[kind] for piles in range(SCAN_CAP + 1)] for kind in Move]
    plays = level.mean(Move.PLAY, 1, 0)
    choice = [level.mean(Move.PLAY, options, 0) - plays for options in range(MAX_OPTIONS + 1)]
    return base, scans, choice


_CHOOSES: Final = (True, True, False, False, False)
"""Which kinds, by :class:`Move`, choose among the playable options (Hick-Hyman)."""


class DelaySampler:
    """Draws the delays of one bot: ``delay(kind, options, piles)`` in seconds, from the
    bot's own generator."""

    __slots__ = ("_base", "_choice", "_factors", "_random", "_scans")

    def __init__(self, level: Level, rng: random.Random) -> None:
        self._base, self._scans, self._choice = _parts(level)
        self._factors = _factors(level.sigma, level.tau)
        self._random = rng.random

    def delay(self, kind: int, options: int = 1, piles: int = 0) -> float:
        """One draw for a move of this kind with ``options`` playable (card, pile) pairs in view
        and ``piles`` center piles."""
        mean = self._base[kind] + self._scans[kind][piles if piles < SCAN_CAP else SCAN_CAP]
        if _CHOOSES[kind]:
            mean += self._choice[options if options < MAX_OPTIONS else MAX_OPTIONS]
        return mean * self._factors[int(self._random() * _FACTORS)]


MOVE_OF: dict[type, Move] = {Play: Move.PLAY, Place: Move.PLACE, Turn: Move.TURN, Vote: Move.VOTE, Withdraw: Move.VOTE}
"""The kind of move each action type is, which sets its timing."""


LEVELS: dict[str, Level] = {
    level.name: level
    for level in (
        Level("beginner", react=0.28, scan=0.040, bits=0.19, reach=0.10, aim=0.25, sigma=0.12, tau=0.35),
        Level("casual", react=0.24, scan=0.030, bits=0.15, reach=0.08, aim=0.20, sigma=0.11, tau=0.30),
        Level("skilled", react=0.21, scan=0.022, bits=0.12, reach=0.06, aim=0.15, sigma=0.10, tau=0.25),
        Level("expert", react=0.18, scan=0.015, bits=0.09, reach=0.05, aim=0.12, sigma=0.09, tau=0.20),
        Level("machine", react=0.0, scan=0.0, bits=0.0, reach=0.0, aim=0.0, sigma=0.0, tau=0.0),
    )
}
"""The skill levels, slowest first."""
