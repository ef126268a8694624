"""The SQLite file every table is written to as things happen, and restored from.

Written: each table's settings, seats (with their tokens), phase and score sheet
whenever they change; each round's seed when it is dealt; every action given to
the engine, in order, the moment it is applied or refused.  The database runs in
WAL mode and every write is its own committed transaction, so a server killed
with SIGKILL loses nothing it had acknowledged.  Restoring deals each
unfinished round again from its seed and replays its actions: the engine is
deterministic, so the state is exactly the one that was lost.
"""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any

from ligretto.bots.spec import BotSpec
from ligretto.engine.rules import RuleSet
from ligretto.engine.scoring import Match, ScoreSheet, round_seed
from ligretto.engine.serial import action_from_dict
from ligretto.engine.state import Round
from ligretto.server.table import Phase, Seat, Table

SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    code TEXT PRIMARY KEY,
    config TEXT NOT NULL,
    updated REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS rounds (
    code TEXT NOT NULL,
    match INTEGER NOT NULL,
    number INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    started REAL NOT NULL,
    PRIMARY KEY (code, match, number)
);
CREATE TABLE IF NOT EXISTS actions (
    code TEXT NOT NULL,
    match INTEGER NOT NULL,
    round INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    action TEXT NOT NULL,
    PRIMARY KEY (code, match, round, idx)
);
"""


class SqliteStore:
    """A table store in one SQLite file (created on first use)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(SCHEMA)

    def close(self) -> None:
        self.db.close()

    # --- writing ----------------------------------------------------------------------

    def save_table(self, table: Table) -> None:
        self.db.execute(
            "INSERT INTO tables (code, config, updated) VALUES (?, ?, ?) "
            "ON CONFLICT(code) DO UPDATE SET config = excluded.config, updated = excluded.updated",
            (table.code, json.dumps(_config(table)), time.time()),
        )

    def start_round(self, table: Table) -> None:
        assert table.match is not None and table.game is not None
        self.db.execute(
            "INSERT OR REPLACE INTO rounds (code, match, number, seed, started) VALUES (?, ?, ?, ?, ?)",
            (table.code, table.matches_played, table.match.round_number, table.game.seed, time.time()),
        )

    def record_action(self, table: Table, index: int, action: dict[str, Any]) -> None:
        assert table.match is not None
        self.db.execute(
            "INSERT OR REPLACE INTO actions (code, match, round, idx, action) VALUES (?, ?, ?, ?, ?)",
            (table.code, table.matches_played, table.match.round_number, index, json.dumps(action)),
        )

    # --- restoring --------------------------------------------------------------------

    def load_tables(self, countdown_s: float = 3.0) -> list[Table]:
        """Every table in the file, rebuilt: seats, rules, phase, score sheet and the current
        round replayed from its seed and actions."""
        tables = []
        for code, config in self.db.execute("SELECT code, config FROM tables ORDER BY updated"):
            tables.append(self._load(code, json.loads(config), countdown_s))
        return tables

    def _load(self, code: str, config: dict[str, Any], countdown_s: float) -> Table:
        table = Table(
            code,
            seats=config["size"],
            rules=RuleSet.from_dict(config["rules"]),
            public=config["public"],
            grace_s=config["grace_s"],
            store=self,
            countdown_s=countdown_s,
        )
        table.seats = [None if s is None else _seat(s) for s in config["seats"]]
        table.host = config["host"]
        table.phase = Phase(config["phase"])
        table.match_seed = config["match_seed"]
        table.matches_played = config["matches_played"]
        table.start_at = config["start_at"]
        if config["sheet"] is not None:
            match = Match(table.rules, table.size, table.match_seed)
            match.sheet = ScoreSheet.from_dict(config["sheet"])
            number = config["round"]
            if number:
                game = Round.deal(table.rules, table.size, round_seed(table.match_seed, number))
                rows = self.db.execute(
                    "SELECT action FROM actions WHERE code = ? AND match = ? AND round = ? ORDER BY idx",
                    (code, table.matches_played, number),
                )
                for (action,) in rows:
                    game.apply(action_from_dict(json.loads(action)))
                match.resume_round(game, recorded=len(match.sheet.rounds) >= number)
            table.match = match
        return table


def _config(table: Table) -> dict[str, Any]:
    return {
        "size": table.size,
        "rules": table.rules.to_dict(),
        "public": table.public,
        "grace_s": table.grace_s,
        "host": table.host,
        "phase": table.phase.value,
        "seats": [None if s is None else _seat_dict(s) for s in table.seats],
        "match_seed": table.match_seed,
        "matches_played": table.matches_played,
        "start_at": table.start_at,
        "round": 0 if table.match is None else table.match.round_number,
        "sheet": None if table.match is None else table.match.sheet.to_dict(),
    }


def _seat_dict(seat: Seat) -> dict[str, Any]:
    return {
        "name": seat.name,
        "token": seat.token,
        "bot": None if seat.bot is None else str(seat.bot),
        "stand_in": seat.stand_in,
        "ready": seat.ready,
    }


def _seat(data: dict[str, Any]) -> Seat:
    bot = None if data["bot"] is None else BotSpec.parse(data["bot"])
    return Seat(data["name"], data["token"], bot=bot, stand_in=data["stand_in"], ready=data["ready"])
