"""How fast a bot is: human-like reaction times drawn from a seeded distribution.

Every intended action takes the time to *perceive* a change, *decide* and *move*
the card.  Spotting a play on the center needs all three; turning the hand is
mostly movement; voting is a decision.  Each part has a mean per level, and the
sum is scaled by a log-normal factor (mean 1, spread ``sigma``): people are
sometimes much slower than usual, rarely much faster.  ``machine`` has no delay.
"""

from __future__ import annotations

import enum
import functools
import math
import random
import statistics
from dataclasses import dataclass

from ligretto.engine.actions import Place, Play, Turn, Vote, Withdraw


class Move(enum.IntEnum):
    """Kinds of intended action, each with its own timing."""

    PLAY = 0
    """Spot a card that fits the center and play it."""
    PLACE = 1
    """Expert variant: spot a column that takes a card and put it there."""
    TURN = 2
    """Turn the hand (a practised hand movement)."""
    VOTE = 3
    """Decide to call a stalemate."""
    LOOK = 4
    """Nothing to do: look at the table again."""


@dataclass(frozen=True, slots=True)
class Level:
    """Mean times in seconds of one skill level."""

    name: str
    perceive: float
    decide: float
    move: float
    turn: float
    sigma: float

    def mean(self, kind: Move) -> float:
        """Mean seconds for one action of this kind."""
        if kind is Move.PLAY or kind is Move.PLACE:
            return self.perceive + self.decide + self.move
        if kind is Move.TURN:
            return self.turn
        if kind is Move.VOTE:
            return self.perceive + self.decide
        return self.perceive

    def sampler(self, rng: random.Random) -> DelaySampler:
        return DelaySampler(self, rng)


_FACTORS = 4096


@functools.cache
def _factors(sigma: float) -> tuple[float, ...]:
    """4096 log-normal factors with mean 1 and spread ``sigma``, at evenly spaced quantiles.

    Drawing one is a table lookup, several times cheaper than ``random.gauss``.
    """
    normal = statistics.NormalDist()
    shift = -sigma * sigma / 2
    return tuple(math.exp(sigma * normal.inv_cdf((i + 0.5) / _FACTORS) + shift) for i in range(_FACTORS))


@functools.cache
def _means(level: Level) -> list[float]:
    """The level's mean seconds, indexed by :class:`Move` (shared by its samplers, read only)."""
    return [level.mean(kind) for kind in Move]


class DelaySampler:
    """Draws the delays of one bot: ``delay(kind)`` in seconds, from the bot's own generator."""

    __slots__ = ("_factors", "_means", "_random")

    def __init__(self, level: Level, rng: random.Random) -> None:
        self._means = _means(level)
        self._factors = _factors(level.sigma)
        self._random = rng.random

    def delay(self, kind: int) -> float:
        return self._means[kind] * self._factors[int(self._random() * _FACTORS)]


MOVE_OF: dict[type, Move] = {Play: Move.PLAY, Place: Move.PLACE, Turn: Move.TURN, Vote: Move.VOTE, Withdraw: Move.VOTE}
"""The kind of move each action type is, which sets its timing."""


LEVELS: dict[str, Level] = {
    level.name: level
    for level in (
        Level("beginner", perceive=0.90, decide=0.70, move=0.60, turn=1.00, sigma=0.45),
        Level("casual", perceive=0.60, decide=0.45, move=0.45, turn=0.75, sigma=0.40),
        Level("skilled", perceive=0.40, decide=0.30, move=0.35, turn=0.55, sigma=0.35),
        Level("expert", perceive=0.25, decide=0.15, move=0.25, turn=0.40, sigma=0.30),
        Level("machine", perceive=0.0, decide=0.0, move=0.0, turn=0.0, sigma=0.0),
    )
}
"""The skill levels, slowest first."""
