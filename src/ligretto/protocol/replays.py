"""The bodies of the replay answers of the HTTP API (docs/protocol.md, "Replays"): a
finished round as a spectator saw it, built on the server by replaying its stored
actions through the engine.  None holds a hidden card: the first ``snapshot`` is a
spectator's view and every step is what a spectator was sent for that action."""

from __future__ import annotations

from typing import Any

import msgspec

from ligretto.protocol.server import Events, Race, Snapshot


class _Body(msgspec.Struct, forbid_unknown_fields=True):
    pass


class ReplayPlayer(_Body):
    """A seat of the round: the name it played under and its bot spec (``None``: a person)."""

    seat: int
    name: str
    bot: str | None


class ReplayStep(_Body, omit_defaults=True):
    """One stored action: its time in seconds from "go" (``None``: not stored), its seat
    and what a spectator was sent for it: the ``events`` of an applied action, the
    ``race`` of a refused play that lost a race, nothing for any other refusal."""

    t: float | None
    seat: int
    events: Events | None = None
    race: Race | None = None


class ReplayEnd(_Body):
    """How the round ended (``ending`` ``None``: it never did) and each seat's score."""

    ending: str | None
    stopped_by: int | None
    scores: list[int]


class ReplayRound(_Body):
    """``GET /api/replays/{token}``: what the browser's viewer needs (the match and round
    numbers, not the table's invite code: a shared replay does not hand out the table)."""

    match: int
    round: int
    rules: dict[str, Any]
    players: list[ReplayPlayer]
    snapshot: Snapshot
    steps: list[ReplayStep]
    end: ReplayEnd


REPLAY_BODIES: tuple[type[msgspec.Struct], ...] = (ReplayRound,)
"""The answers docs/protocol.md shows in examples (their parts are shown inside them)."""
