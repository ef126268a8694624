"""One simulated round: the same engine and bots as live play, in virtual time.

A discrete-event simulation.  Each bot looks at the table, decides its next
intended action and schedules it at ``now + delay`` (its reaction time); when
that moment comes the action is applied, whatever happened meanwhile -- a play
whose pile was taken is refused ("beaten to it"), exactly as for a human -- and
the bot decides again.  The bots are driven as on the server: one
:class:`~ligretto.bots.driver.BotDriver` per seat says what to do and after how long;
the heap below does the waiting.  Actions take effect in the order of their virtual times;
exact ties (``machine`` bots) are broken by a generator drawn from the seed.
No wall clock is read: the same (rules, bots, seed) always give the same round.
"""

from __future__ import annotations

import heapq
import random
from dataclasses import dataclass
from typing import Any

from ligretto.bots.driver import BotDriver
from ligretto.bots.spec import BotSpec
from ligretto.engine.actions import Action, Vote
from ligretto.engine.events import Ending, Outcome, Refused
from ligretto.engine.rules import RuleSet
from ligretto.engine.scoring import score_round
from ligretto.engine.state import Round

TIME_LIMIT = 1800.0
"""Virtual seconds after which the table agrees to stop a round that will not end."""
STEP_LIMIT = 50_000
"""Decisions after which the same happens (``machine`` bots do not move the clock);
either limit gives the outcome ``Ending.TIME_LIMIT``."""


@dataclass(slots=True)
class RoundResult:
    """What one simulated round produced; lists are indexed by seat."""

    seed: int
    bots: list[str]
    outcome: Outcome
    """How the round ended; ``Ending.TIME_LIMIT`` when the table stopped it at a limit."""
    scores: list[int]
    center: list[int]
    stack_left: list[int]
    actions: int
    """Applied actions."""
    refusals: int
    """Refused actions: almost always plays beaten to their pile."""
    duration_s: float
    """Virtual seconds from "Ligretto!" to the end."""
    rotation: int = 0
    """Duplicate mode: how far the bots were rotated through the seats for this deal."""

    @property
    def ended_by(self) -> str:
        """The ending as its string: ``stop``, ``stalemate_vote``, ``stalemate_proven``, ``time_limit``."""
        return self.outcome.ending.value

    @property
    def stopped_by(self) -> int | None:
        return self.outcome.stopped_by

    def to_dict(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "rotation": self.rotation,
            "bots": self.bots,
            "ended_by": self.ended_by,
            "stopped_by": self.stopped_by,
            "scores": self.scores,
            "center": self.center,
            "stack_left": self.stack_left,
            "actions": self.actions,
            "refusals": self.refusals,
            "duration_s": round(self.duration_s, 3),
        }


def simulate_round(
    rules: RuleSet, bots: list[BotSpec], seed: int, *, rotation: int = 0, game: Round | None = None
) -> RoundResult:
    """Play one round between ``bots`` (one per seat) dealt from ``seed``.

    ``game`` may be given to play on an existing deal (tests); otherwise it is dealt here.
    """
    players = len(bots)
    if game is None:
        game = Round.deal(rules, players, seed)
    elif game.players != players or game.rules != rules:
        raise ValueError(f"the game has {game.players} players and its own rules; the bots or rules given differ")
    key = f"ligretto:{seed}:{rotation}"
    drivers: list[BotDriver] = [spec.driver(game, seat, key) for seat, spec in enumerate(bots)]
    tie = random.Random(f"{key}:ties").random
    apply = game.apply
    # (virtual time it takes effect, seeded tie-break, seat, intended action or None: a look)
    heap: list[tuple[float, float, int, Action | None]] = [(0.0, tie(), seat, None) for seat in range(players)]
    heapq.heapify(heap)
    pop, push = heapq.heappop, heapq.heappush
    applied = refused = 0
    now = 0.0
    for _ in range(STEP_LIMIT):
        now, _tie, seat, action = pop(heap)
        if now > TIME_LIMIT:
            break
        if action is not None:
            if type(apply(action)) is Refused:
                refused += 1
            else:
                applied += 1
                if game.ending is not None:
                    break
        delay, action = drivers[seat].plan()
        push(heap, (now + delay, tie(), seat, action))
    outcome = _finish(game)
    scores = score_round(game)
    return RoundResult(
        seed=seed,
        bots=[str(spec) for spec in bots],
        outcome=outcome,
        scores=[line.score for line in scores],
        center=[line.center for line in scores],
        stack_left=[line.stack for line in scores],
        actions=applied,
        refusals=refused,
        duration_s=min(now, TIME_LIMIT),
        rotation=rotation,
    )


def _finish(game: Round) -> Outcome:
    """The round's outcome; a round that hit a limit is ended by everyone voting."""
    outcome = game.outcome
    if outcome is not None:
        return outcome
    for seat, area in enumerate(game.areas):
        if not area.voted:
            game.apply(Vote(seat))
    return Outcome(Ending.TIME_LIMIT, None)
