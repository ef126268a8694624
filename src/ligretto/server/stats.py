"""A profile's statistics, computed from what the store holds, never from numbers a
client sent (docs/protocol.md, "Profiles, history and ratings").

From each match's score sheet: rounds played and won (a round's best score, ties
included), Stops called, cards played to the center and cards left on the Ligretto
stack.  From each scored round dealt again from its seed with its stored actions replayed
by the engine: races won and lost (a play refused ``does_not_fit`` or ``pile_complete``
because another seat's card took its place first: ``engine.races.race_lost``; the seat
whose card took it won the race), and reaction times: for every action of the player that
the engine applied, the time since the action before it in the round (anyone's, applied
or refused), by the table's clock when each took effect; the first action of a round has
none.  The median of those by kind of move (``play``, ``turn``, ``place``, ``vote``,
``withdraw``).  A finished round never changes, so each round's figures are kept once
computed (:data:`_ROUNDS`).
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from ligretto.engine.races import race_lost
from ligretto.engine.rules import RuleSet
from ligretto.engine.serial import action_from_dict
from ligretto.engine.state import Round
from ligretto.server.history import StoredMatch
from ligretto.server.store import RoundLog

__all__ = ["MatchFigures", "ProfileFigures", "RoundFigures", "figures_of", "round_figures"]


@dataclass(slots=True)
class RoundFigures:
    """One seat's figures of one round's replay."""

    races_won: int = 0
    races_lost: int = 0
    reactions: dict[str, list[float]] = field(default_factory=dict)
    """Seconds from the action before to each applied action of the seat, by kind."""


def round_figures(log: RoundLog) -> list[RoundFigures]:
    """Each seat's figures of a stored round, replayed by the engine."""
    players = len(log.players)
    figures = [RoundFigures() for _ in range(players)]
    game = Round.deal(RuleSet.from_dict(log.rules), players, log.seed)
    before: float | None = None
    for logged in log.actions:
        action = action_from_dict(logged.action)
        result = game.apply(action)
        lost = race_lost(game, action, result)
        if lost is not None:
            figures[action.player].races_lost += 1
            figures[lost[2]].races_won += 1
        if result.ok and before is not None and logged.at is not None:
            kind = str(logged.action["type"])
            figures[action.player].reactions.setdefault(kind, []).append(logged.at - before)
        if logged.at is not None:
            before = logged.at
    return figures


_ROUNDS: dict[tuple[str, int, int], list[RoundFigures]] = {}
"""The figures of every round computed so far (a scored round never changes)."""
_ROUNDS_KEPT = 20_000


@dataclass(frozen=True, slots=True)
class MatchFigures:
    """The player's figures in one match (the statistics over time)."""

    code: str
    match: int
    started: float
    rounds: int
    rounds_won: int
    stops: int
    center: int
    stack: int
    races_won: int
    races_lost: int


@dataclass(frozen=True, slots=True)
class ProfileFigures:
    matches: list[MatchFigures]
    reactions: dict[str, list[float]]

    @property
    def medians(self) -> dict[str, float]:
        return {kind: statistics.median(times) for kind, times in sorted(self.reactions.items()) if times}


RoundSource = Callable[[str, int, int], RoundLog | None]
"""Reads one stored round (``SqliteStore.round_log``)."""


def figures_of(profile: str, matches: list[StoredMatch], read: RoundSource) -> ProfileFigures:
    """The figures of ``profile`` over ``matches`` (oldest first in the answer)."""
    per_match = []
    reactions: dict[str, list[float]] = defaultdict(list)
    for match in sorted(matches, key=lambda m: (m.started, m.code, m.match)):
        seat = next((p.seat for p in match.players if p.profile == profile), None)
        rounds = match.sheet.get("rounds", []) if match.sheet else []
        if seat is None or not rounds:
            continue
        won = sum(seat in row["winners"] for row in rounds)
        stops = sum(row["stopped_by"] == seat for row in rounds)
        center = sum(row["lines"][seat]["center"] for row in rounds)
        stack = sum(row["lines"][seat]["stack"] for row in rounds)
        races_won = races_lost = 0
        for number in range(1, len(rounds) + 1):
            key = (match.code, match.match, number)
            seats = _ROUNDS.get(key)
            if seats is None:
                log = read(match.code, match.match, number)
                if log is None:
                    continue
                seats = round_figures(log)
                if len(_ROUNDS) >= _ROUNDS_KEPT:
                    _ROUNDS.clear()
                _ROUNDS[key] = seats
            mine = seats[seat]
            races_won += mine.races_won
            races_lost += mine.races_lost
            for kind, times in mine.reactions.items():
                reactions[kind].extend(times)
        per_match.append(
            MatchFigures(
                match.code, match.match, match.started, len(rounds), won, stops, center, stack, races_won, races_lost
            )
        )
    return ProfileFigures(per_match, dict(reactions))
