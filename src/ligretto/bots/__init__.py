"""Bots: strategies that see only what a human in their seat sees, at human-like speeds."""

from ligretto.bots.driver import BotDriver, bot_seeds
from ligretto.bots.reaction import LEVELS, DelaySampler, Level, Move
from ligretto.bots.spec import BotSpec, BotSpecError, parse_bots
from ligretto.bots.strategies import (
    STRATEGIES,
    GreedyStrategy,
    RandomStrategy,
    SharpStrategy,
    SmartStrategy,
    Strategy,
    register,
)
from ligretto.engine.observation import Observation

__all__ = [
    "LEVELS",
    "STRATEGIES",
    "BotDriver",
    "BotSpec",
    "BotSpecError",
    "DelaySampler",
    "GreedyStrategy",
    "Level",
    "Move",
    "Observation",
    "RandomStrategy",
    "SharpStrategy",
    "SmartStrategy",
    "Strategy",
    "bot_seeds",
    "parse_bots",
    "register",
]
