"""Naming bots: ``strategy:level`` per seat, e.g. ``smart:expert,greedy:casual``."""

from __future__ import annotations

import random
from dataclasses import dataclass

from ligretto.bots.driver import BotDriver, bot_seeds
from ligretto.bots.reaction import LEVELS, Level
from ligretto.bots.strategies import STRATEGIES, Strategy
from ligretto.engine.observation import Observation
from ligretto.engine.rules import whole_number
from ligretto.engine.state import Round


class BotSpecError(ValueError):
    """A bot specification that names an unknown strategy or level, or the wrong number of seats."""


@dataclass(frozen=True, slots=True)
class BotSpec:
    """One bot: a strategy and a skill level."""

    strategy: str
    level: str

    def __str__(self) -> str:
        return f"{self.strategy}:{self.level}"

    @property
    def strategy_class(self) -> type[Strategy]:
        return STRATEGIES[self.strategy]

    @property
    def reaction(self) -> Level:
        return LEVELS[self.level]

    def driver(self, game: Round, seat: int, round_key: str, *, real_time: bool = False) -> BotDriver:
        """This bot playing ``seat`` of ``game``: its strategy and its reaction times, each
        with its own generator seeded by :func:`~ligretto.bots.driver.bot_seeds` from the
        round's key and the seat; ``real_time`` for a host on a real clock (the server)."""
        choices, delays = bot_seeds(round_key, seat)
        strategy = self.strategy_class(random.Random(choices))
        sampler = self.reaction.sampler(random.Random(delays))
        return BotDriver(strategy, sampler, Observation(game, seat), real_time=real_time)

    @classmethod
    def parse(cls, text: str) -> BotSpec:
        strategy, colon, level = text.strip().partition(":")
        if not colon:
            level = "skilled"
        if strategy not in STRATEGIES:
            raise BotSpecError(f"unknown strategy {strategy!r}: choose from {', '.join(STRATEGIES)}")
        if level not in LEVELS:
            raise BotSpecError(f"unknown level {level!r}: choose from {', '.join(LEVELS)}")
        return cls(strategy, level)


MAX_REPEAT = 9999
"""The largest ``N`` of ``spec*N`` (far beyond any table: the count of seats says the rest)."""


def parse_bots(text: str, players: int) -> list[BotSpec]:
    """One spec per seat.  A single spec fills every seat; ``spec*N`` repeats one N times;
    a strategy without a level plays at ``skilled``."""
    specs: list[BotSpec] = []
    for item in text.split(","):
        part, star, times = item.partition("*")
        count = whole_number(times.strip()) if star else 1
        if count is None or not 1 <= count <= MAX_REPEAT:
            raise BotSpecError(f"bad repeat {times!r} in {text!r}: expected spec*N with N >= 1")
        specs += [BotSpec.parse(part)] * count
    if len(specs) == 1:
        specs *= players
    if len(specs) != players:
        raise BotSpecError(f"{len(specs)} bots named for {players} players: name one per seat, or just one")
    return specs
