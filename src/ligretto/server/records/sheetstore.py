"""The score keeper's sheets in the store's file (``sheets``, ``sheet_changes``; schema
steps 9 and 11 of ``migrations``): the one place of their SQL.

A sheet is written when it is made (rules, players, creation time) and
each change as it is made (a link or unlink of a seat's profile too), in a transaction of
its own that also files the sheet's match in the history when it is over
(``history.file_table``: ``kind = 'table'``, never rated, with each seat's profile as the
sheet has it now, so a profile linked after the end gets the match then and one unlinked
loses it) or takes it out again when a change made it not over.  A sheet is read back as its changes applied in
order (``Sheet.rebuild``), so a restarted server finds every sheet as it was.

Several processes share the database (docs/deploy.md): a change is decided and written in
one transaction that takes the sheet's lock (``Database.lock``: PostgreSQL's advisory lock;
SQLite's ``BEGIN IMMEDIATE`` has one writer anyway) and reads the sheet as stored inside
it (:meth:`SheetStore.update`); the primary key ``(code, n)`` refuses a second change of
one number whatever writes it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TypeVar

import msgspec

from ligretto import protocol
from ligretto.engine.rules import RuleSet
from ligretto.engine.tally import Tally
from ligretto.server.db.database import Database
from ligretto.server.records import history
from ligretto.server.records.keeper import Change, KeptPlayer, Sheet

__all__ = ["SheetStore"]

Answer = TypeVar("Answer")

_encode = msgspec.json.Encoder().encode
CHANGE_COLUMNS = "n, round, author, at, kind, entry_before, entry_after, client_id, undoes, seat, profile"


def _changes(rows: Any) -> list[Change]:
    """Changes from rows of :data:`CHANGE_COLUMNS`."""
    return [
        Change(n, number, by, at, kind, _entry(before), _entry(after), client_id, undoes, seat, profile)
        for n, number, by, at, kind, before, after, client_id, undoes, seat, profile in rows
    ]


def _lock(code: str) -> str:
    return f"sheet:{code}"


def _entry_text(tally: Tally | None) -> str | None:
    return None if tally is None else _encode(protocol.entry_of(tally)).decode()


def _entry(text: str | None) -> Tally | None:
    return None if text is None else protocol.tally_of(msgspec.json.decode(text, type=protocol.SheetEntry))


def _players_text(players: tuple[KeptPlayer, ...]) -> str:
    return json.dumps([{"name": p.name, "colour": p.colour, "symbol": p.symbol, "profile": p.profile} for p in players])


def _players(text: str) -> tuple[KeptPlayer, ...]:
    rows: list[dict[str, Any]] = json.loads(text)
    return tuple(KeptPlayer(p["name"], p["colour"], p["symbol"], p["profile"]) for p in rows)


class SheetStore:
    """The sheets of the store's database (SQLite or PostgreSQL, its schema migrated)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.errors: tuple[type[Exception], ...] = db.errors
        """What a failed write raises."""

    def create(self, sheet: Sheet) -> None:
        self.db.execute(
            "INSERT INTO sheets (code, rules, players, created) VALUES (?, ?, ?, ?)",
            (sheet.code, json.dumps(sheet.rules.to_dict()), _players_text(sheet.made), sheet.created),
        )

    def write(self, sheet: Sheet, change: Change) -> None:
        """The change (already applied to ``sheet``) and the history of its match, at once
        (refused by the primary key if the stored sheet has a change ``change.n`` already)."""
        with self.db.transaction(immediate=True):
            self.db.lock(_lock(sheet.code))
            self._write(sheet, change)

    def update(
        self, code: str, decide: Callable[[Sheet], Change | Answer], kept: Sheet | None = None
    ) -> tuple[Sheet, Change | Answer] | None:
        """In one transaction holding the sheet's lock: the sheet as stored, ``decide``'s
        answer on it, and, if that is a change, the change applied and written; the sheet
        and the answer (``None``: no such sheet).  ``kept``: a copy of the sheet held in
        memory, brought up to date by the changes it lacks instead of read whole (after an
        exception it may hold a change that was not written: the caller's to drop)."""
        with self.db.transaction(immediate=True):
            self.db.lock(_lock(code))
            sheet = self.load(code) if kept is None else kept
            if sheet is None:
                return None
            if kept is not None:
                for change in self.since(code, kept.version):
                    kept.apply(change)
            answer = decide(sheet)
            if isinstance(answer, Change):
                sheet.apply(answer)
                self._write(sheet, answer)
            return sheet, answer

    def _write(self, sheet: Sheet, change: Change) -> None:
        """Inside a transaction: the change's row and the history of the sheet's match."""
        self.db.execute(
            "INSERT INTO sheet_changes "
            "(code, n, round, kind, author, at, entry_before, entry_after, undoes, client_id, seat, profile) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                sheet.code,
                change.n,
                change.round,
                change.kind,
                change.by,
                change.at,
                _entry_text(change.before),
                _entry_text(change.after),
                change.undoes,
                change.id,
                change.seat,
                change.profile,
            ),
        )
        if sheet.standing().over:
            players = [(seat, p.name, p.profile) for seat, p in enumerate(sheet.players)]
            times = (sheet.created, change.at)
            history.file_table(
                self.db, sheet.code, sheet.rules, players, times=times, sheet=sheet.score_sheet().to_dict()
            )
        else:
            history.unfile_table(self.db, sheet.code)

    def load(self, code: str) -> Sheet | None:
        found = self.db.execute("SELECT rules, players, created FROM sheets WHERE code = ?", (code,)).fetchone()
        if found is None:
            return None
        rules, players, created = found
        sheet = Sheet(code, RuleSet.from_dict(json.loads(rules)), _players(players), created)
        sheet.rebuild(self.since(code, 0))
        return sheet

    def since(self, code: str, version: int) -> list[Change]:
        """The changes of the sheet ``code`` after ``version``, in order."""
        rows = self.db.execute(
            f"SELECT {CHANGE_COLUMNS} FROM sheet_changes WHERE code = ? AND n > ? ORDER BY n", (code, version)
        )
        return _changes(rows)
