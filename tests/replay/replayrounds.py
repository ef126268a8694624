"""Real rounds for the replay tests: played by bots in the simulator, each action given a
time from the round's start."""

from __future__ import annotations

from ligretto.bots import parse_bots
from ligretto.engine import Action, Round, RuleSet
from ligretto.engine.rules import PRESETS
from ligretto.replay import ReplayDoc, write_round
from ligretto.sim import simulate_round

NAMES = ["Ann", "Bo", "Cy"]


def played_log(rules: RuleSet, players: int, seed: int) -> list[tuple[Action, float | None]]:
    """The action log of a round played by skilled bots, a quarter second apart."""
    game = Round.deal(rules, players, seed)
    simulate_round(rules, parse_bots("smart:skilled", players), seed, game=game)
    return [(action, 0.25 * index) for index, action in enumerate(game.log)]


def played_doc(seed: int = 7, names: list[str] | None = None, preset: str = "classic") -> ReplayDoc:
    names = names or NAMES
    rules = RuleSet.from_dict(PRESETS[preset])
    return write_round(rules, names, seed, played_log(rules, len(names), seed))
