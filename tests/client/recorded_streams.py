"""Event streams recorded from engine-played rounds, for the client model's tests and the
conformance test with ``mirror.js``.

Bots choose on the engine's own :class:`Observation`; as in a real table, a seat acts on a
choice it made a moment earlier, so some plays lost a race and are refused (no events).
Each step is what one seat's client receives for one action, with the engine's view after
it; some steps are reconnections (a fresh snapshot mid-round).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from ligretto.bots.strategies import STRATEGIES
from ligretto.engine import RuleSet
from ligretto.engine.actions import Action
from ligretto.engine.events import Applied
from ligretto.engine.observation import Observation
from ligretto.engine.serial import event_to_dict
from ligretto.engine.state import Round
from ligretto.engine.views import view

PRESETS = ("classic", "seed-es", "seed-pt", "seed-it", "seed-fr", "seed-fi", "expert")


@dataclass(slots=True)
class Stream:
    """One round as one seat's client (and a spectator) receives it."""

    name: str
    seat: int
    snapshot: dict[str, Any]
    """The spectator's view at the start (the seat's differs only in ``viewer``)."""
    steps: list[dict[str, Any]] = field(default_factory=list)
    """``{"events": [...], "view": {...}, "by": seat}`` (a refusal: no events), or
    ``{"snapshot": {...}}``: the client reconnected and got a fresh view."""
    refusals: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "seat": self.seat, "snapshot": self.snapshot, "steps": self.steps}


def record(preset: str, players: int, seed: int, *, max_steps: int = 400, reconnect_every: int = 97) -> Stream:
    """Play one round between bots and record what seat ``seed % players`` is sent."""
    rules = RuleSet.preset(preset)
    game = Round.deal(rules, players, seed)
    rng = random.Random(seed)
    names = ("greedy", "smart", "random")
    bots = [STRATEGIES[names[(seed + s) % len(names)]](random.Random(f"{seed}:{s}")) for s in range(players)]
    seen = [Observation(game, s) for s in range(players)]
    intended: list[Action | None] = [bots[s].choose(seen[s]) for s in range(players)]
    seat = seed % players
    stream = Stream(f"{preset}/{players}/{seed}", seat, view(game).to_dict())
    while not game.over and len(stream.steps) < max_steps:
        actor = rng.randrange(players)
        action = intended[actor]
        if action is not None:
            result = game.apply(action)
            if isinstance(result, Applied):
                events = [event_to_dict(event) for event in result.events]
            else:
                events = []
                stream.refusals += 1
            seen_by_all = view(game).to_dict()
            assert view(game, seat).to_dict() == as_seen_by(seen_by_all, seat)
            stream.steps.append({"events": events, "view": seen_by_all, "by": actor})
            if len(stream.steps) % reconnect_every == 0:
                stream.steps.append({"snapshot": seen_by_all})
        # Only the actor looks again now; the others act on what they chose before.
        intended[actor] = bots[actor].choose(seen[actor])
        if rng.random() < 0.3:
            other = rng.randrange(players)
            intended[other] = bots[other].choose(seen[other])
    return stream


def streams() -> list[Stream]:
    """Every preset, 2-12 seats, the expert variant with its placements, refusals and
    reconnections."""
    chosen = [record(preset, 2 + i % 3, 11 + i) for i, preset in enumerate(PRESETS)]
    chosen += [record("classic", players, 100 + players, max_steps=150) for players in range(2, 13)]
    chosen += [record("expert", players, 200 + players, max_steps=250) for players in (2, 5, 12)]
    return chosen


def as_seen_by(data: dict[str, Any], seat: int | None) -> dict[str, Any]:
    """A spectator's view as ``seat`` gets it (views differ only in ``viewer``)."""
    return {**data, "viewer": seat}


def as_sent(stream: Stream, seat: int | None) -> tuple[dict[str, Any], list[dict[str, Any] | None]]:
    """The stream as the server sends it to ``seat`` (``None``: a spectator): its first
    ``snapshot`` message, then each step's message: a reconnection's ``snapshot``, an
    applied action's ``events`` (its ``seq`` the step's index: refused actions use theirs
    up too), ``None`` for a refusal (nothing is sent to this client)."""
    first = {"type": "snapshot", "view": as_seen_by(stream.snapshot, seat), "round": 1}
    sent: list[dict[str, Any] | None] = []
    for seq, step in enumerate(stream.steps):
        if "snapshot" in step:
            sent.append({"type": "snapshot", "view": as_seen_by(step["snapshot"], seat), "round": 1})
        elif step["events"]:
            sent.append({"type": "events", "round": 1, "seq": seq, "by": step["by"], "events": step["events"]})
        else:
            sent.append(None)
    return first, sent
