"""The score keeper's sheets (docs/protocol.md, "Score keeper"): a match played with real
cards, its rounds as the table counted them, every change kept.

A :class:`Sheet` is its rules, players and history of changes; its rounds are what the
changes say, in order (an entry appends a round, a correction replaces one, an undo puts
back what the latest change not yet undone replaced), so a sheet read back from the
store is its changes applied again.  Each round has a version: the number of the last
change that wrote it, which a phone sends back as the ``base`` of its correction; a
``base`` that is not the round's version is a :class:`Conflict` (someone else wrote it
meanwhile) and nothing changes.  A change carries the client's id: the same id again is
applied once.  A player's profile is linked to its seat, or unlinked, by a change too
(``link``, ``unlink``: the sheet's version moves, every watcher sees it), which its
profile's owner makes (:meth:`Sheet.link`, :meth:`Sheet.unlink`); the sheet's creator may
also unlink a seat until the match is over.  Those are not scoring changes: an undo passes
them by.  Scores, the match's end and places are the engine's (``engine.tally``);
the :class:`Keeper` holds the sheets, writes each change to the store before it tells the
sheet's watchers (the live events).

With a store, the store's database is the authority, shared by every process of a service
(docs/deploy.md): a change is decided in the database's transaction that locks the sheet,
on the sheet as the database has it then (:meth:`Keeper.change`), so no stale copy can
accept a change; a copy kept here for reads is brought up to date by the changes it lacks
before it is read (:meth:`Keeper.get`).  Every body told carries the sheet's version: a
watcher never goes back to an older one (bodies from other processes may come in any order).
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Literal, Protocol, TypeVar

from ligretto.engine.rules import MATCH_END_MAX, MatchEndKind, RuleSet
from ligretto.engine.scoring import ScoreSheet
from ligretto.engine.tally import BadEntry, Standing, Tally, check_entry, standing, tally_sheet

__all__ = [
    "MAX_ROUNDS",
    "Answer",
    "Change",
    "Conflict",
    "Keeper",
    "KeptPlayer",
    "NoRound",
    "SeatRefusal",
    "Sheet",
    "SheetFile",
    "Watcher",
    "new_sheet_code",
]

MAX_ROUNDS = MATCH_END_MAX[MatchEndKind.ROUNDS]
"""Rounds a sheet holds at most (a target never reached does not make it grow for ever)."""

IN_MEMORY = 256
"""Sheets kept in memory while nobody watches them (the store has them all)."""

Kind = Literal["entry", "correction", "undo", "link", "unlink"]
SCORING: frozenset[Kind] = frozenset({"entry", "correction", "undo"})
"""The changes of the rounds; the others link or unlink a seat's profile (round 0)."""
Answer = TypeVar("Answer")


def new_sheet_code() -> str:
    """An unguessable code (96 bits; 16 characters, never a table's 11)."""
    return secrets.token_urlsafe(12)


@dataclass(frozen=True, slots=True)
class KeptPlayer:
    """A player of a sheet: display name, deck back (box colour, symbol), profile id."""

    name: str
    colour: str
    symbol: str
    profile: str | None


@dataclass(frozen=True, slots=True)
class Change:
    """One change of a sheet: its number (1-based), the round, who and when, the round
    before and after (``None``: no such round), the change an undo undid, the client's id;
    a ``link`` or ``unlink`` has round 0, its ``seat`` and the ``profile`` linked or unlinked."""

    n: int
    round: int
    by: str
    at: float
    kind: Kind
    before: Tally | None
    after: Tally | None
    id: str
    undoes: int | None = None
    seat: int | None = None
    profile: str | None = None


@dataclass(frozen=True, slots=True)
class Conflict:
    """The round was written since the phone's ``base``: its entry now (``None``: gone) and version."""

    theirs: Tally | None
    version: int | None


@dataclass(frozen=True, slots=True)
class NoRound:
    """A round number that is neither a round of the sheet nor the next one."""

    message: str


@dataclass(frozen=True, slots=True)
class SeatRefusal:
    """A link or unlink refused, nothing changed: ``no_seat`` (no such seat),
    ``seat_taken`` (another profile is on it), ``already_seated`` (this profile is on
    another seat), ``not_your_profile`` (an unlink of another's profile)."""

    code: Literal["no_seat", "seat_taken", "already_seated", "not_your_profile"]
    message: str


@dataclass(slots=True)
class Sheet:
    """One sheet: rules, players (as its links make them), creation time, and its changes
    applied in order."""

    code: str
    rules: RuleSet
    players: tuple[KeptPlayer, ...]
    created: float
    made: tuple[KeptPlayer, ...] = ()
    """The players as the sheet was made (its links are changes applied to them)."""
    changes: list[Change] = field(default_factory=list)
    rounds: list[Tally] = field(default_factory=list)
    versions: list[int] = field(default_factory=list)
    ids: set[str] = field(default_factory=set)
    undone: set[int] = field(default_factory=set)

    def __post_init__(self) -> None:
        if not self.made:
            self.made = self.players

    @property
    def creator(self) -> str | None:
        """The profile that made the sheet (``None``: made without one): the one profile its
        players had when it was made, since a new sheet names no profile but its creator's
        own (``server.web.sheets``); ``None`` too for an older sheet that named several."""
        made = {player.profile for player in self.made} - {None}
        return made.pop() if len(made) == 1 else None

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.players)

    @property
    def version(self) -> int:
        return len(self.changes)

    def score_sheet(self) -> ScoreSheet:
        return tally_sheet(self.rules, len(self.players), self.rounds)

    def standing(self) -> Standing:
        return standing(self.rules, self.score_sheet())

    def apply(self, change: Change) -> None:
        """Take a change into the sheet (a new one, or one read back from the store)."""
        self.changes.append(change)
        self.ids.add(change.id)
        if change.kind not in SCORING:
            self._seat(change)
            return
        index = change.round - 1
        if change.after is None:
            del self.rounds[index], self.versions[index]
        elif index == len(self.rounds):
            self.rounds.append(change.after)
            self.versions.append(change.n)
        else:
            self.rounds[index] = change.after
            self.versions[index] = change.n
        if change.undoes is not None:
            self.undone.add(change.undoes)

    def _seat(self, change: Change) -> None:
        """A link or unlink: the seat's player with the profile, or with none."""
        assert change.seat is not None
        player = replace(self.players[change.seat], profile=change.profile if change.kind == "link" else None)
        self.players = (*self.players[: change.seat], player, *self.players[change.seat + 1 :])

    def rebuild(self, changes: list[Change]) -> None:
        """The sheet as ``changes`` make it (after a write that failed, or on restore)."""
        self.changes, self.rounds, self.versions, self.ids, self.undone = [], [], [], set(), set()
        self.players = self.made
        for change in changes:
            self.apply(change)

    def entry(
        self, number: int, tally: Tally, base: int | None, *, by: str, client_id: str, now: float
    ) -> Change | Conflict | BadEntry | NoRound:
        """The change that writes round ``number`` (1-based) if nothing refuses it."""
        if not 1 <= number <= len(self.rounds) + 1:
            return NoRound(f"round {number} is not a round of this sheet: it has {len(self.rounds)}")
        if number > MAX_ROUNDS:
            return BadEntry(f"a sheet holds at most {MAX_ROUNDS} rounds")
        refused = check_entry(self.rules, self.names, tally, number, self.score_sheet())
        if refused is not None:
            return refused
        if number == len(self.rounds) + 1:
            if base is not None:
                return Conflict(None, None)
            return Change(self.version + 1, number, by, now, "entry", None, tally, client_id)
        if base != self.versions[number - 1]:
            return Conflict(self.rounds[number - 1], self.versions[number - 1])
        before = self.rounds[number - 1]
        return Change(self.version + 1, number, by, now, "correction", before, tally, client_id)

    def last_undoable(self) -> Change | None:
        """The latest entry or correction that was not undone (links are not undone)."""
        return next(
            (c for c in reversed(self.changes) if c.kind in ("entry", "correction") and c.n not in self.undone),
            None,
        )

    def undo(self, by: str, client_id: str, now: float) -> Change | None:
        """The change that undoes :meth:`last_undoable` (``None``: nothing to undo)."""
        target = self.last_undoable()
        if target is None:
            return None
        return Change(self.version + 1, target.round, by, now, "undo", target.after, target.before, client_id, target.n)

    def link(self, seat: int, profile: str, *, by: str, now: float) -> Change | SeatRefusal | None:
        """The change that links ``profile`` (its owner's, proven by the caller) to
        ``seat``; ``None``: it is there already.  No two seats share a profile."""
        if not 0 <= seat < len(self.players):
            return _no_seat(seat, len(self.players))
        name, here = self.players[seat].name, self.players[seat].profile
        if here == profile:
            return None
        if here is not None:
            return SeatRefusal("seat_taken", f"{name} is linked to another profile: its owner unlinks it first")
        other = next((p.name for p in self.players if p.profile == profile), None)
        if other is not None:
            return SeatRefusal("already_seated", f"your profile is linked to {other}: unlink it there first")
        return self._seat_change("link", seat, profile, by, now)

    def unlink(self, seat: int, profile: str, *, by: str, now: float) -> Change | SeatRefusal | None:
        """The change that unlinks the profile of ``seat``, asked by the owner of
        ``profile``: the seat's own, or the sheet's creator while the match is not over
        (once it is, the match is in that profile's history: only its owner takes it out).
        ``None``: no profile is linked there."""
        if not 0 <= seat < len(self.players):
            return _no_seat(seat, len(self.players))
        name, here = self.players[seat].name, self.players[seat].profile
        if here is None:
            return None
        if here != profile:
            if profile != self.creator:
                mine = f"{name} is linked to another profile: only its owner unlinks it"
                return SeatRefusal("not_your_profile", mine)
            if self.standing().over:
                return SeatRefusal(
                    "not_your_profile",
                    f"the match is over and in the history of {name}'s profile: only its owner unlinks it now",
                )
        return self._seat_change("unlink", seat, here, by, now)

    def _seat_change(self, kind: Kind, seat: int, profile: str, by: str, now: float) -> Change:
        change_id = f"{kind}:{secrets.token_hex(8)}"  # made here: no phone's retry to recognise
        return Change(self.version + 1, 0, by, now, kind, None, None, change_id, seat=seat, profile=profile)


def _no_seat(seat: int, count: int) -> SeatRefusal:
    return SeatRefusal("no_seat", f"seat {seat} is not a seat of this sheet: its seats are 0-{count - 1}")


class SheetFile(Protocol):
    """Where sheets are kept (``server.sheetstore.SheetStore``): a sheet made, a change
    written (with the history of a match that is over), a change decided and written on the
    sheet as stored, under its lock (``update``), a sheet read back, the changes after a
    version (``since``); ``errors``: what a failed write raises."""

    errors: tuple[type[Exception], ...]

    def create(self, sheet: Sheet) -> None: ...
    def write(self, sheet: Sheet, change: Change) -> None: ...
    def update(
        self, code: str, decide: Callable[[Sheet], Change | Answer], kept: Sheet | None = None
    ) -> tuple[Sheet, Change | Answer] | None: ...
    def load(self, code: str) -> Sheet | None: ...
    def since(self, code: str, version: int) -> list[Change]: ...


class Watcher:
    """One live stream of a sheet: the latest body not sent yet (only the latest counts:
    each is the whole sheet) and the version of the newest told (an older one is not told)."""

    def __init__(self) -> None:
        self.latest: bytes | None = None
        self.version = -1
        self.ready = asyncio.Event()

    def tell(self, version: int, body: bytes) -> None:
        if version <= self.version:
            return  # this one or a newer one was told already
        self.version = version
        self.latest = body
        self.ready.set()

    def take(self) -> bytes | None:
        body, self.latest = self.latest, None
        self.ready.clear()
        return body


class Keeper:
    """Every sheet of the server, its store (``None``: kept in memory only) and its watchers."""

    def __init__(self, file: SheetFile | None = None, clock: Callable[[], float] = time.time) -> None:
        self.file = file
        self.clock = clock
        self.errors: tuple[type[Exception], ...] = () if file is None else file.errors
        """What a failed write raises (the store's database errors)."""
        self.sheets: OrderedDict[str, Sheet] = OrderedDict()
        self.watchers: dict[str, set[Watcher]] = {}

    def create(self, rules: RuleSet, players: tuple[KeptPlayer, ...]) -> Sheet:
        sheet = Sheet(new_sheet_code(), rules, players, self.clock())
        if self.file is not None:
            self.file.create(sheet)
        self._keep(sheet)
        return sheet

    def get(self, code: str) -> Sheet | None:
        """The sheet as the store has it now (another process may have changed it): a copy
        kept here takes the changes it lacks first."""
        sheet = self.sheets.get(code)
        if sheet is not None and self.file is not None:
            try:
                missed = self.file.since(code, sheet.version)
            except self.errors:  # the database is away: nobody can change the sheet meanwhile
                missed = []
            for change in missed:
                sheet.apply(change)
        elif self.file is not None:
            sheet = self.file.load(code)
            if sheet is not None:
                self._keep(sheet)
        if sheet is not None:
            self.sheets.move_to_end(code)
        return sheet

    def change(self, code: str, decide: Callable[[Sheet], Change | Answer]) -> tuple[Sheet, Change | Answer] | None:
        """Decide a change on the sheet ``code`` as it is now and make it: ``decide`` gives
        the change, or another answer (a refusal, a retry's sheet) and nothing changes.
        With a store, all in one transaction of its database that locks the sheet, on the
        sheet as stored (so two processes never both accept a change on one version); a
        failed write changes nothing (and raises).  ``None``: there is no such sheet."""
        if self.file is None:
            sheet = self.sheets.get(code)
            if sheet is None:
                return None
            answer = decide(sheet)
            if isinstance(answer, Change):
                sheet.apply(answer)
            return sheet, answer
        kept = self.sheets.get(code)
        try:
            done = self.file.update(code, decide, kept)
        except BaseException:
            self.sheets.pop(code, None)  # it may hold what was not written: read again when asked
            raise
        if done is not None and kept is None:
            self._keep(done[0])
        return done

    def _keep(self, sheet: Sheet) -> None:
        self.sheets[sheet.code] = sheet
        if self.file is None:
            return
        for code in list(self.sheets):
            if len(self.sheets) <= IN_MEMORY:
                break
            if not self.watchers.get(code):
                del self.sheets[code]

    def commit(self, sheet: Sheet, change: Change) -> None:
        """Apply a change and write it; a failed write leaves the sheet as it was (and raises)."""
        before = list(sheet.changes)
        sheet.apply(change)
        if self.file is None:
            return
        try:
            self.file.write(sheet, change)
        except BaseException:
            sheet.rebuild(before)
            raise

    def watch(self, code: str) -> Watcher:
        watcher = Watcher()
        self.watchers.setdefault(code, set()).add(watcher)
        return watcher

    def unwatch(self, code: str, watcher: Watcher) -> None:
        watching = self.watchers.get(code, set())
        watching.discard(watcher)
        if not watching:
            self.watchers.pop(code, None)

    def tell(self, code: str, version: int, body: bytes) -> None:
        """Every watcher of the sheet ``code`` gets ``body`` (the sheet at ``version``,
        encoded once) unless it has that version or a newer one already."""
        for watcher in self.watchers.get(code, ()):
            watcher.tell(version, body)
