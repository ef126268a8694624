"""The score keeper's sheets in the store's file (``sheets``, ``sheet_changes``; schema
step 9 of ``migrations``): the one place of their SQL.

A sheet is written when it is made (rules, players, creation time) and each change as it
is made, in a transaction of its own that also files the sheet's match in the history
when it is over (``history.file_table``: ``kind = 'table'``, never rated) or takes it out
again when a change made it not over.  A sheet is read back as its changes applied in
order (``Sheet.rebuild``), so a restarted server finds every sheet as it was.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec

from ligretto import protocol
from ligretto.engine.rules import RuleSet
from ligretto.engine.tally import Tally
from ligretto.server import history
from ligretto.server.database import Database
from ligretto.server.keeper import Change, KeptPlayer, Sheet

__all__ = ["SheetStore"]

_encode = msgspec.json.Encoder().encode


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
            (sheet.code, json.dumps(sheet.rules.to_dict()), _players_text(sheet.players), sheet.created),
        )

    def write(self, sheet: Sheet, change: Change) -> None:
        """The change (already applied to ``sheet``) and the history of its match, at once."""
        with self.db.transaction(immediate=True):
            self.db.execute(
                "INSERT INTO sheet_changes "
                "(code, n, round, kind, author, at, entry_before, entry_after, undoes, client_id) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
        rows = self.db.execute(
            "SELECT n, round, author, at, kind, entry_before, entry_after, client_id, undoes FROM sheet_changes "
            "WHERE code = ? ORDER BY n",
            (code,),
        )
        sheet.rebuild(
            [
                Change(n, number, by, at, kind, _entry(before), _entry(after), client_id, undoes)
                for n, number, by, at, kind, before, after, client_id, undoes in rows
            ]
        )
        return sheet
