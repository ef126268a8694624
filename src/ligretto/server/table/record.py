"""What a table keeps in the store, in the table's own record format, and where it hands it.

The table makes its records (:meth:`~ligretto.server.table.table.Table.record`,
:meth:`~ligretto.server.table.table.Table.deal_record`) and hands them, as they happen, to
the :class:`Store` it was given (``ligretto.server.records.store``, or :class:`NoStore`),
which only receives values: it never reads the table.  A table is rebuilt from them
(:meth:`~ligretto.server.table.table.Table.restore`).  The :class:`Keeper` is the part of
the table that makes them from its other parts, hands them over and puts them back.  A
:class:`TableRecord` is a table's settings, seats (with their tokens, and whether their
person left for good), phase and score sheet, written as JSON; a :class:`DealRecord` names
a round and its seed, under which the store files the round's actions.  The round itself
is never stored: it is dealt again from its seed and its actions replayed (the engine is
deterministic).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import KW_ONLY, dataclass
from typing import Any, Protocol

from ligretto.bots.spec import BotSpec
from ligretto.engine.match import Match
from ligretto.engine.races import DEFAULT_WINDOW_MS, Arbitration, Fairness
from ligretto.engine.rules import RuleSet
from ligretto.engine.scoring import ScoreSheet, round_seed
from ligretto.engine.serial import action_from_dict
from ligretto.engine.state import Round
from ligretto.protocol import Phase
from ligretto.server.table.host import Settings
from ligretto.server.table.judging import Judge
from ligretto.server.table.replayaccess import Replays, new_replay_token
from ligretto.server.table.rounds import Rounds
from ligretto.server.table.seats import Abandoned, Seat, Seating
from ligretto.server.table.timing import READY_S


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
    ready_s: float = READY_S
    """On the score sheet, how long the others may take once the first is ready (older records: the default)."""
    ready_by: float | None = None
    """On the score sheet: when the wait for *Ready* was to end (``None``: nobody waited)."""
    speed_flags: tuple[dict[str, Any], ...] = ()
    """The seats flagged for inhuman speed in the current match, with the round (older
    records: none); a rated match with any is not rated."""

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
                "ready_s": self.ready_s,
                "ready_by": self.ready_by,
                "speed_flags": list(self.speed_flags),
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
            ready_s=data.get("ready_s", READY_S),
            ready_by=data.get("ready_by"),
            speed_flags=tuple(data.get("speed_flags", ())),
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


class Store(Protocol):
    """Where a table hands what it keeps, as it happens (``ligretto.server.records.store``)."""

    def save_table(self, record: TableRecord) -> None:
        """The table as it is now (its settings, seats, phase or score sheet changed)."""

    def start_round(self, deal: DealRecord, table: TableRecord) -> None:
        """A round was dealt (``deal``), at the table as it is now (``table``: the players
        of a match whose first round this is)."""

    def record_action(
        self, deal: DealRecord, index: int, action: dict[str, Any], at: float, ranked: float | None = None
    ) -> None:
        """The ``index``-th action of the round ``deal`` (JSON), taken effect at ``at`` and
        ranked at ``ranked`` (its compensated time: ``judging``), both on the table's clock."""


class NoStore:
    """A store that keeps nothing (tests, local play, the tutorial, throw-away tables)."""

    def save_table(self, record: TableRecord) -> None:
        pass

    def start_round(self, deal: DealRecord, table: TableRecord) -> None:
        pass

    def record_action(
        self, deal: DealRecord, index: int, action: dict[str, Any], at: float, ranked: float | None = None
    ) -> None:
        pass


@dataclass(eq=False, slots=True)
class Keeper:
    """A table's records, handed to its ``store`` as things happen, made from its parts (its
    seats, settings, rounds and judge); and put back into fresh parts (:meth:`restore`).
    ``dropped`` (and why) is the table's last state it keeps."""

    store: Store
    _: KW_ONLY
    seating: Seating
    settings: Settings
    rounds: Rounds
    judge: Judge
    dropped: bool = False
    """Closed for good (abandoned): the store does not restore it."""
    dropped_because: Abandoned | None = None
    """Why it was dropped (its record keeps it)."""
    _deal: DealRecord | None = None
    """The round being played's record, made at its first use (every action is filed
    under it) and kept while the round is the one played (``_deal_of``)."""
    _deal_of: object = None
    """The round (``Rounds.game``) ``_deal`` is the record of."""

    def record(self) -> TableRecord:
        """The table as the store keeps it now."""
        seating, settings, rounds, fairness = self.seating, self.settings, self.rounds, self.judge.fairness
        match = rounds.match
        return TableRecord(
            code=seating.code,
            size=seating.size,
            rules=settings.rules.to_dict(),
            public=settings.public,
            grace_s=settings.grace_s,
            host=seating.host,
            phase=rounds.phase.value,
            seats=tuple(None if seat is None else SeatRecord.of(seat) for seat in seating.seats),
            match_seed=rounds.match_seed,
            matches_played=rounds.matches_played,
            start_at=rounds.start_at,
            round=rounds.round_number,
            sheet=None if match is None else match.sheet.to_dict(),
            dropped=self.dropped,
            dropped_because=None if self.dropped_because is None else self.dropped_because.value,
            arbitration=fairness.arbitration.value,
            window_ms=fairness.window_ms,
            rated=settings.rated,
            replays=settings.replays.value,
            ready_s=settings.ready_s,
            ready_by=rounds.ready_by,
            speed_flags=tuple(rounds.speed_flags),
        )

    def deal_record(self) -> DealRecord:
        """The round being dealt or played, as the store files it and its actions."""
        rounds = self.rounds
        game, token = rounds.game, rounds.replay_token
        assert game is not None and token is not None
        deal = self._deal
        if deal is None or self._deal_of is not game or deal.replay != token:
            deal = DealRecord(self.seating.code, rounds.matches_played, rounds.round_number, game.seed, token)
            self._deal, self._deal_of = deal, game
        return deal

    def saved(self) -> None:
        """The table changed: its record to the store."""
        self.store.save_table(self.record())

    def dealt(self) -> None:
        """A round was dealt: it, and the table's record, to the store."""
        self.store.start_round(self.deal_record(), self.record())

    def logged(self, index: int, action: dict[str, Any], at: float, ranked: float) -> None:
        """The ``index``-th action of the round took effect at ``at``, ranked at ``ranked``:
        to the store."""
        self.store.record_action(self.deal_record(), index, action, at, ranked)

    def restore(self, record: TableRecord, actions: Iterable[dict[str, Any]], replay_token: str | None) -> None:
        """Put back into the fresh parts (of a table of the record's size) the record's
        settings, seats, host, phase and match: the score sheet, and the current round dealt
        again from its seed with ``actions`` replayed, with its share token ``replay_token``
        (``None``: none stored, a new one)."""
        settings = self.settings
        settings.rules = RuleSet.from_dict(record.rules)
        settings.public = record.public
        settings.grace_s = record.grace_s
        settings.ready_s = record.ready_s
        settings.rated = record.rated
        settings.replays = Replays(record.replays)
        self.judge.fairness = Fairness.of(record.arbitration, record.window_ms)
        self.seating.seats = [None if seat is None else seat.seat() for seat in record.seats]
        self.seating.host = record.host
        rounds = self.rounds
        rounds.phase = Phase(record.phase)
        rounds.match_seed = record.match_seed
        rounds.matches_played = record.matches_played
        rounds.start_at = record.start_at
        rounds.ready_by = record.ready_by
        rounds.speed_flags = list(record.speed_flags)
        rounds.match = _restored_match(record, settings.rules, actions)
        if rounds.match is not None and record.round:
            rounds.replay_token = replay_token or new_replay_token()


def _restored_match(record: TableRecord, rules: RuleSet, actions: Iterable[dict[str, Any]]) -> Match | None:
    """The match of ``record`` (``None``: none yet) played by ``rules`` (the record's): its
    score sheet, and its current round dealt again from its seed with ``actions`` (its
    own, in order) replayed."""
    if record.sheet is None:
        return None
    match = Match(rules, record.size, record.match_seed)
    match.sheet = ScoreSheet.from_dict(record.sheet)
    if record.round:
        game = Round.deal(rules, record.size, round_seed(record.match_seed, record.round))
        for action in actions:
            game.apply(action_from_dict(action))
        match.resume_round(game, recorded=len(match.sheet.rounds) >= record.round)
    return match
