"""The server's database read from outside while the server runs or after it stopped:
its SQLite file (read-only, WAL: it writes on meanwhile), or a service's PostgreSQL
database by URL (in read-only transactions).  The one reader of the store for the stress
harness's checks -- the rounds to replay for the hidden-card scan (:func:`stored_rounds`)
and the action logs the acknowledged actions are looked for in (:func:`read_logs`).  The
schema is the server's (``server/records/store.py``, which the harness may not import: it only
talks to a server from outside); the tests run both readers on files real servers wrote,
and the stress harness's service scenarios on PostgreSQL databases.
"""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ligretto.engine.events import Result
from ligretto.engine.rules import RuleSet
from ligretto.engine.serial import action_from_dict
from ligretto.engine.state import Round
from ligretto.server.db.database import PostgresDatabase, Rows, is_postgres


class _Reader(Protocol):
    """A connection to read from (``?`` placeholders on both databases)."""

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Rows: ...

    def close(self) -> None: ...


def _read_only(db: Path | str) -> _Reader:
    """The SQLite file opened read-only, or a connection to the PostgreSQL database."""
    if is_postgres(db):
        return PostgresDatabase(str(db))
    return sqlite3.connect(f"{Path(db).resolve().as_uri()}?mode=ro", uri=True, timeout=10.0)


def _begin(db: Path | str) -> str:
    """One snapshot for every read of a transaction (SQLite's is taken at its first read)."""
    return "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY" if is_postgres(db) else "BEGIN"


@dataclass(frozen=True, slots=True)
class StoredRound:
    """A round as the server's SQLite file holds it: its match (1-based), rules, players,
    seed and every action the engine was given, in order."""

    match: int
    rules: RuleSet
    players: int
    seed: int
    actions: list[dict[str, Any]]

    def replay(self) -> Iterator[tuple[int, Round, Result | None]]:
        """(index of the action just given, the round after it, the engine's answer),
        starting with (-1, the round as dealt, ``None``); the same round each time, moved on."""
        game = Round.deal(self.rules, self.players, self.seed)
        yield -1, game, None
        for index, action in enumerate(self.actions):
            yield index, game, game.apply(action_from_dict(action))


def stored_rounds(db: Path | str, codes: Collection[str] | None = None) -> dict[tuple[str, int], list[StoredRound]]:
    """Every round in the database (of the tables ``codes`` only, if given) by (table, round
    number), one per match that had it, read in one read-only transaction (a running server
    writes on meanwhile)."""
    connection = _read_only(db)
    try:
        connection.execute(_begin(db))
        tables = {code: json.loads(config) for code, config in connection.execute("SELECT code, config FROM tables")}
        actions: dict[tuple[str, int, int], list[dict[str, Any]]] = defaultdict(list)
        for code, match, number, action in connection.execute(
            "SELECT code, match, round, action FROM actions ORDER BY code, match, round, idx"
        ):
            if codes is None or code in codes:
                actions[(code, match, number)].append(json.loads(action))
        rounds: dict[tuple[str, int], list[StoredRound]] = defaultdict(list)
        for code, match, number, seed in connection.execute("SELECT code, match, number, seed FROM rounds"):
            config = tables.get(code)
            if config is not None and (codes is None or code in codes):
                rules = RuleSet.from_dict(config["rules"])
                stored = StoredRound(match, rules, config["size"], seed, actions[(code, match, number)])
                rounds[(code, number)].append(stored)
        connection.execute("COMMIT")
    finally:
        connection.close()
    return rounds


def read_logs(db: Path | str, code: str, rounds: Sequence[tuple[int, int]]) -> dict[tuple[int, int], dict[int, Any]]:
    """The stored actions of a table's rounds (``(match, round)``), read-only from the
    server's database (which the running server keeps writing)."""
    connection = _read_only(db)
    try:
        logs: dict[tuple[int, int], dict[int, Any]] = {}
        for match, round_number in set(rounds):
            rows = connection.execute(
                "SELECT idx, action FROM actions WHERE code = ? AND match = ? AND round = ?",
                (code, match, round_number),
            ).fetchall()
            logs[(match, round_number)] = {int(idx): json.loads(action) for idx, action in rows}
        return logs
    finally:
        connection.close()
