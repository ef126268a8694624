"""What a table keeps in the store, in the table's own record format.

The table makes its records (:meth:`~ligretto.server.table.table.Table.record`,
:meth:`~ligretto.server.table.table.Table.deal_record`) and is rebuilt from them
(:meth:`~ligretto.server.table.table.Table.restore`); the store (``ligretto.server.records.store``)
only writes and reads them.  A :class:`TableRecord` is a table's settings, seats (with
their tokens, and whether their person left for good), phase and score sheet, written as
JSON; a :class:`DealRecord` names a round and its seed, under which the store files the
round's actions.  The round itself is never
stored: it is dealt again from its seed and its actions replayed (the engine is
deterministic).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from ligretto.bots.spec import BotSpec
from ligretto.engine.match import Match
from ligretto.engine.races import DEFAULT_WINDOW_MS, Arbitration, Fairness
from ligretto.engine.rules import RuleSet
from ligretto.engine.scoring import ScoreSheet, round_seed
from ligretto.engine.serial import action_from_dict
from ligretto.engine.state import Round
from ligretto.server.table.replayaccess import Replays
from ligretto.server.table.seats import Abandoned, Phase, Seat


class Table(Protocol):
    """What a record is made of and put back into (``server.table.Table``; named here so
    this module imports nothing of the table it describes)."""

    code: str
    size: int
    rules: RuleSet
    public: bool
    rated: bool
    replays: Replays
    grace_s: float
    fairness: Fairness
    host: int | None
    phase: Phase
    seats: list[Seat | None]
    match: Match | None
    match_seed: int
    matches_played: int
    start_at: float | None
    dropped: bool
    dropped_because: Abandoned | None

    @property
    def round_number(self) -> int: ...


@dataclass(frozen=True, slots=True)
class SeatRecord:
    """A seat as stored: who sits there, their token, whether a stand-in plays, and whether
    the person left for good (their token then lets nobody back, after a restart too)."""

    name: str
    token: str
    bot: str | None
    stand_in: bool
    ready: bool
    left: bool = False
    profile: str | None = None
    """The seat's profile id (``Seat.profile``), kept so a restart keeps it."""

    @classmethod
    def of(cls, seat: Seat) -> SeatRecord:
        bot = None if seat.bot is None else str(seat.bot)
        return cls(seat.name, seat.token, bot, seat.stand_in, seat.ready, seat.left, seat.profile)

    def seat(self) -> Seat:
        """The seat again (nobody is connected to a restored table yet)."""
        bot = None if self.bot is None else BotSpec.parse(self.bot)
        return Seat(
            self.name,
            self.token,
            bot=bot,
            stand_in=self.stand_in,
            ready=self.ready,
            left=self.left,
            profile=self.profile,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "token": self.token,
            "bot": self.bot,
            "stand_in": self.stand_in,
            "ready": self.ready,
            "left": self.left,
            "profile": self.profile,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SeatRecord:
        """A stored seat; one written before ``left`` was recorded had not been left."""
        return cls(
            data["name"],
            data["token"],
            data["bot"],
            data["stand_in"],
            data["ready"],
            data.get("left", False),
            data.get("profile"),
        )


@dataclass(frozen=True, slots=True)
class TableRecord:
    """A table as stored (its code is the record's key, not part of its JSON)."""

    code: str
    size: int
    rules: dict[str, Any]
    public: bool
    grace_s: float
    host: int | None
    phase: str
    seats: tuple[SeatRecord | None, ...]
    match_seed: int
    matches_played: int
    start_at: float | None
    round: int
    """The number of the match's current round (0: none dealt yet)."""
    sheet: dict[str, Any] | None
    """The match's score sheet (``None``: no match yet)."""
    dropped: bool
    """Closed for good (abandoned): not restored."""
    dropped_because: str | None = None
    """Why (an ``Abandoned`` value: ``match_abandoned``, ``nobody_seated``, ``away``)."""
    arbitration: str = Arbitration.FAIR.value
    """How the table judges races (``engine.races.Arbitration``); older records: fair."""
    window_ms: int = DEFAULT_WINDOW_MS
    rated: bool = False
    """Matches at the table update its profiles' ratings (older records: rated if public)."""
    replays: str = Replays.LINK.value
    """Who may watch its replays (``replayaccess.Replays``; older records: anyone with the link)."""

    def to_json(self) -> str:
        return json.dumps(
            {
                "size": self.size,
                "rules": self.rules,
                "public": self.public,
                "grace_s": self.grace_s,
                "host": self.host,
                "phase": self.phase,
                "seats": [None if s is None else s.to_dict() for s in self.seats],
                "match_seed": self.match_seed,
                "matches_played": self.matches_played,
                "start_at": self.start_at,
                "round": self.round,
                "sheet": self.sheet,
                "dropped": self.dropped,
                "dropped_because": self.dropped_because,
                "arbitration": self.arbitration,
                "window_ms": self.window_ms,
                "rated": self.rated,
                "replays": self.replays,
            }
        )

    @classmethod
    def from_json(cls, code: str, text: str) -> TableRecord:
        data = json.loads(text)
        return cls(
            code=code,
            size=data["size"],
            rules=data["rules"],
            public=data["public"],
            grace_s=data["grace_s"],
            host=data["host"],
            phase=data["phase"],
            seats=tuple(None if s is None else SeatRecord.from_dict(s) for s in data["seats"]),
            match_seed=data["match_seed"],
            matches_played=data["matches_played"],
            start_at=data["start_at"],
            round=data["round"],
            sheet=data["sheet"],
            dropped=data.get("dropped", False),
            dropped_because=data.get("dropped_because"),
            arbitration=data.get("arbitration", Arbitration.FAIR.value),
            window_ms=data.get("window_ms", DEFAULT_WINDOW_MS),
            rated=data.get("rated", data["public"]),
            replays=data.get("replays", Replays.LINK.value),
        )


@dataclass(frozen=True, slots=True)
class DealRecord:
    """A round as the store files it: its table, match (1-based), number, its seed and its
    share token (``replayaccess``)."""

    code: str
    match: int
    number: int
    seed: int
    replay: str


def record_of(table: Table) -> TableRecord:
    """What the store keeps of ``table`` now."""
    match = table.match
    return TableRecord(
        code=table.code,
        size=table.size,
        rules=table.rules.to_dict(),
        public=table.public,
        grace_s=table.grace_s,
        host=table.host,
        phase=table.phase.value,
        seats=tuple(None if seat is None else SeatRecord.of(seat) for seat in table.seats),
        match_seed=table.match_seed,
        matches_played=table.matches_played,
        start_at=table.start_at,
        round=table.round_number,
        sheet=None if match is None else match.sheet.to_dict(),
        dropped=table.dropped,
        dropped_because=None if table.dropped_because is None else table.dropped_because.value,
        arbitration=table.fairness.arbitration.value,
        window_ms=table.fairness.window_ms,
        rated=table.rated,
        replays=table.replays.value,
    )


def restore_state(table: Table, record: TableRecord, actions: Iterable[dict[str, Any]]) -> None:
    """Put back into a fresh ``table`` (made with the record's settings) its seats, host,
    phase and match: the score sheet, and the current round dealt again from its seed
    with ``actions`` replayed."""
    table.seats = [None if seat is None else seat.seat() for seat in record.seats]
    table.host = record.host
    table.phase = Phase(record.phase)
    table.match_seed = record.match_seed
    table.matches_played = record.matches_played
    table.start_at = record.start_at
    table.fairness = Fairness.of(record.arbitration, record.window_ms)
    table.rated = record.rated
    table.replays = Replays(record.replays)
    if record.sheet is None:
        return
    rules: RuleSet = table.rules
    match = Match(rules, record.size, record.match_seed)
    match.sheet = ScoreSheet.from_dict(record.sheet)
    if record.round:
        game = Round.deal(rules, record.size, round_seed(record.match_seed, record.round))
        for action in actions:
            game.apply(action_from_dict(action))
        match.resume_round(game, recorded=len(match.sheet.rounds) >= record.round)
    table.match = match
