"""What one commit of the store writes (``store.Store`` collects it during a turn of the
event loop, ``writer.Writer`` commits it): a :class:`Batch`, and the SQL that writes it,
on whichever connection the writer uses (the loop's on SQLite, the writer thread's own on
PostgreSQL).  With several processes on one database, a commit first checks each table's
fencing token (:func:`fenced`) and leaves out the tables another process took over.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from ligretto.ratings import RatingError
from ligretto.server.db.database import Database
from ligretto.server.records import history, ratingstore
from ligretto.server.table.record import TableRecord

log = logging.getLogger("ligretto.store")


@dataclass(slots=True)
class Batch:
    """What the store collected between two commits, written in one transaction."""

    records: list[TableRecord]
    """The last record of each table that changed (put back if the commit fails)."""
    rounds: list[tuple[str, int, int, int, float, str]]
    matches: list[tuple[history.MatchRow, list[history.PlayerRow]]]
    actions: list[tuple[str, int, int, int, str, float, float | None]]
    now: float
    epochs: dict[str, int] | None = None
    """With fencing (``Store.fence_with``): the fencing token this process holds for each
    table the batch writes (0: a table it made)."""
    fenced: set[str] = field(default_factory=set)
    """Tables the commit found taken over by another process (their writes left out)."""

    def codes(self) -> set[str]:
        """Every table the batch writes."""
        found = {r.code for r in self.records} | {row[0] for row in self.rounds} | {row[0] for row in self.actions}
        return found | {row[0] for row, _players in self.matches}

    def without(self, codes: set[str]) -> Batch:
        """The batch less what it writes of ``codes``."""
        return Batch(
            [r for r in self.records if r.code not in codes],
            [row for row in self.rounds if row[0] not in codes],
            [(row, players) for row, players in self.matches if row[0] not in codes],
            [row for row in self.actions if row[0] not in codes],
            self.now,
        )


def write(db: Database, batch: Batch) -> None:
    """Write ``batch`` (inside the commit's transaction, if it has more than one statement)."""
    history.file_started(db, batch.matches)
    if batch.records:
        db.executemany(
            "INSERT INTO tables (code, config, updated) VALUES (?, ?, ?) "
            "ON CONFLICT (code) DO UPDATE SET config = excluded.config, updated = excluded.updated",
            [(record.code, record.to_json(), batch.now) for record in batch.records],
        )
    if batch.rounds:
        db.executemany(
            "INSERT INTO rounds (code, match, number, seed, started, share) VALUES (?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (code, match, number) DO UPDATE SET "
            "seed = excluded.seed, started = excluded.started, share = excluded.share",
            batch.rounds,
        )
    if batch.actions:
        db.executemany(
            "INSERT INTO actions (code, match, round, idx, action, at, ranked) VALUES (?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (code, match, round, idx) DO UPDATE SET "
            "action = excluded.action, at = excluded.at, ranked = excluded.ranked",
            batch.actions,
        )
    for record in batch.records:
        if history.record(db, record, batch.now):
            match_over(db, record)


def match_over(db: Database, record: TableRecord) -> None:
    """The table's current match just ended (inside the commit's transaction, on ``db``):
    its ratings are applied if the table is rated and no seat was flagged for inhuman
    speed in it (``engine.tempo``: ``TableRecord.speed_flags``; such a match is then filed
    as not rated, as its history shows it), a person who left it
    (gave the seat up: ``leave``) counting as last."""
    if record.speed_flags:
        # not rated, and its history says so
        db.execute("UPDATE matches SET rated = 0 WHERE code = ? AND match = ?", (record.code, record.matches_played))
        log.info("match %s/%d not rated: a seat was flagged for inhuman speed", record.code, record.matches_played)
    elif record.rated:
        left = [i for i, seat in enumerate(record.seats) if seat is not None and seat.left]
        try:
            ratingstore.apply_match(db, record.code, record.matches_played, left)
        except RatingError:  # cannot happen with a table's places; the match stays unrated
            log.exception("match %s/%d not rated", record.code, record.matches_played)


def fenced(db: Database, epochs: dict[str, int]) -> set[str]:
    """Inside the commit's transaction: the tables whose stored fencing token is not the
    one held here (another process took them over).  The rows read stay locked until the
    commit, so a take-over waits for it (and then restores what it wrote)."""
    codes = sorted(epochs)
    marks = ", ".join("?" * len(codes))
    sql = f"SELECT code, epoch FROM tables WHERE code IN ({marks}){db.dialect.for_share}"
    stored = dict(db.execute(sql, codes).fetchall())
    return {code for code in codes if stored.get(code, 0) != epochs[code]}
