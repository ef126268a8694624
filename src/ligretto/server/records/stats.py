"""A profile's statistics, computed from what the store holds, never from numbers a
client sent (docs/protocol.md, "Profiles, history and ratings").

From each match's score sheet: rounds played and won (a round's best score, ties
included), Stops called, cards played to the center and cards left on the Ligretto
stack.  From each scored round dealt again from its seed with its stored actions replayed
by the engine: races won and lost (a play refused ``does_not_fit`` or ``pile_complete``
because another seat's card took its place, the two ranked at most
``engine.races.RACE_MS`` apart by the stored ranks: the races the table told,
``engine.races.Landings``; the seat whose card took it won the race; a round stored without
times has none), and reaction times: for every action of the player that
the engine applied, the time since the action before it in the round (anyone's, applied
or refused), by the table's clock when each took effect; the first action of a round has
none.  The median of those by kind of move (``play``, ``turn``, ``place``, ``vote``,
``withdraw``).  A scored round never changes, so each round is replayed once: its
figures are kept in the file (``round_figures``) once computed.
"""

from __future__ import annotations

import json
import statistics
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from ligretto import protocol
from ligretto.engine.races import Landings
from ligretto.engine.rules import RuleSet
from ligretto.engine.serial import action_from_dict
from ligretto.engine.state import Round
from ligretto.server.db.database import Database
from ligretto.server.records.history import StoredMatch
from ligretto.server.records.store import RoundLog

__all__ = ["ProfileFigures", "RoundFigures", "figures_of", "round_figures"]


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
    landings = Landings()
    for logged in log.actions:
        action = action_from_dict(logged.action)
        piles = len(game.pile_seats)
        result = game.apply(action)
        lost = landings.decided(game, action, result, piles, logged.rank)
        if lost is not None:
            figures[action.player].races_lost += 1
            figures[lost[2]].races_won += 1
        if result.ok and before is not None and logged.at is not None:
            kind = str(logged.action["type"])
            figures[action.player].reactions.setdefault(kind, []).append(logged.at - before)
        if logged.at is not None:
            before = logged.at
    return figures


RoundSource = Callable[[str, int, int], RoundLog | None]
"""Reads one stored round (``Store.round_log``)."""


def _kept(db: Database, code: str, match: int, number: int) -> list[RoundFigures] | None:
    rows = db.execute(
        "SELECT races_won, races_lost, reactions FROM round_figures WHERE code = ? AND match = ? AND round = ? "
        "ORDER BY seat",
        (code, match, number),
    ).fetchall()
    return [RoundFigures(won, lost, json.loads(times)) for won, lost, times in rows] or None


def _keep(db: Database, code: str, match: int, number: int, seats: list[RoundFigures]) -> None:
    db.executemany(
        "INSERT INTO round_figures (code, match, round, seat, races_won, races_lost, reactions) "
        "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (code, match, round, seat) DO UPDATE SET "
        "races_won = excluded.races_won, races_lost = excluded.races_lost, reactions = excluded.reactions",
        [
            (code, match, number, seat, f.races_won, f.races_lost, json.dumps(f.reactions))
            for seat, f in enumerate(seats)
        ],
    )


def figures_of_round(db: Database, read: RoundSource, code: str, match: int, number: int) -> list[RoundFigures] | None:
    """Each seat's figures of a scored round: kept ones, else replayed (and kept)."""
    seats = _kept(db, code, match, number)
    if seats is None:
        log = read(code, match, number)
        if log is None:
            return None
        seats = round_figures(log)
        _keep(db, code, match, number, seats)
    return seats


@dataclass(frozen=True, slots=True)
class ProfileFigures:
    matches: list[protocol.MatchStats]
    """The player's figures in each match (the statistics over time), as the API sends them."""
    reactions: dict[str, list[float]]

    @property
    def medians(self) -> dict[str, float]:
        return {kind: statistics.median(times) for kind, times in sorted(self.reactions.items()) if times}


def figures_of(db: Database, profile: str, matches: list[StoredMatch], read: RoundSource) -> ProfileFigures:
    """The figures of ``profile`` over ``matches`` (oldest first in the answer), from the
    store's file ``db`` (``read``: its ``round_log``)."""
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
            seats = figures_of_round(db, read, match.code, match.match, number)
            if seats is None:
                continue
            mine = seats[seat]
            races_won += mine.races_won
            races_lost += mine.races_lost
            for kind, times in mine.reactions.items():
                reactions[kind].extend(times)
        per_match.append(
            protocol.MatchStats(
                match.code, match.match, match.started, len(rounds), won, stops, center, stack, races_won, races_lost
            )
        )
    return ProfileFigures(per_match, dict(reactions))
