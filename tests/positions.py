"""Positions for tests: a dealt round after some random actions, the same for the same
arguments (the engine's and the bots' tests walk many of them)."""

from __future__ import annotations

import random

from ligretto.engine import Place, Play, Round, RuleSet, Vote, Withdraw


def play_some(
    rules: RuleSet, players: int, seed: int, steps: int, *, key: str = "play-some", plays_share: float = 0.6
) -> Round:
    """A dealt round after ``steps`` random actions (plays favoured: chosen first with
    probability ``plays_share``; no votes): discard piles, center piles and, in the expert
    variant, columns of several cards.  ``key`` names the generator (``{key}:{seed}``)."""
    game = Round.deal(rules, players, seed)
    rng = random.Random(f"{key}:{seed}")
    for _ in range(steps):
        if game.over:
            break
        seat = rng.randrange(players)
        actions = [a for a in game.legal_actions(seat) if not isinstance(a, (Vote, Withdraw))]
        plays = [a for a in actions if isinstance(a, (Play, Place))]
        if plays and rng.random() < plays_share:
            game.apply(rng.choice(plays))
        elif actions:
            game.apply(rng.choice(actions))
    return game
