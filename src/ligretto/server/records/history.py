"""Every match as the store's history keeps it (docs/protocol.md, "Profiles, history and
ratings").

When a match's first round is dealt the store files the match: its table, number,
rules, whether it is rated, when it started, and its players (seat, display name,
profile id or ``NULL``, bot spec or ``NULL``, the SHA-256 of the seat's token: who sat
there when it started) and the table's ``replays`` setting then, which is who may watch
the match's rounds (:func:`watchers_of`).  At every
commit that holds the table's record the match's score sheet is written again (so it
holds every round scored so far); the commit that first sees the match ``over`` writes
its end and final places (ties share a place: ``engine.scoring.places``) and says so
(:func:`record`), which is when the ratings are applied.  The history is read by profile,
newest first, filtered by rules preset and number of players (:func:`matches_of`).
A match played with real cards and scored with the score keeper is filed once it is over
(:func:`file_table`, ``kind = 'table'``, never rated), again after a correction or a
seat's profile linked or unlinked, and taken out if a change makes it not over
(:func:`unfile_table`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ligretto.engine.rules import PRESETS, RuleSet
from ligretto.protocol import Phase
from ligretto.server.db.database import Database
from ligretto.server.records.profiles import DELETED_NAME, secret_hash
from ligretto.server.table.record import TableRecord
from ligretto.server.table.replayaccess import Replays

__all__ = [
    "PAGE_SIZE",
    "MatchFilter",
    "StoredMatch",
    "StoredPlayer",
    "Watchers",
    "count_of",
    "file_table",
    "match_started",
    "matches_of",
    "preset_of",
    "record",
    "replays_of",
    "unfile_table",
    "watchers_of",
]

PAGE_SIZE = 20
"""Matches per page of a profile's history."""


def preset_of(rules: RuleSet) -> str | None:
    """The name of the preset these rules are, whatever the match's length (``match_end``
    is how long to play, not a variant of the rules; the first preset, if several are
    equal), ``None`` for rules of no preset."""
    return next((name for name in PRESETS if RuleSet.preset(name).replace(match_end=rules.match_end) == rules), None)


MatchRow = tuple[str, int, str, str | None, int, int, float, str]
PlayerRow = tuple[str, int, int, str, str | None, str | None, str | None]
"""A seat of a filed match: code, match, seat, name, profile, bot spec, the seat token's SHA-256
(``None`` for a match played at a real table: no seats, no tokens)."""


def match_started(table: TableRecord, now: float) -> tuple[MatchRow, list[PlayerRow]]:
    """The rows the history files for the match the table of this record just started (at ``now``)."""
    code, match = table.code, table.matches_played
    rules = json.dumps(table.rules)
    preset = preset_of(RuleSet.from_dict(table.rules))
    row = (code, match, rules, preset, table.size, int(table.rated), now, table.replays)
    players: list[PlayerRow] = [
        (code, match, seat, s.name, s.profile, s.bot, secret_hash(s.token))
        for seat, s in enumerate(table.seats)
        if s is not None
    ]
    return row, players


def file_started(db: Database, started: list[tuple[MatchRow, list[PlayerRow]]]) -> None:
    """Write the rows of :func:`match_started` (inside the store's transaction)."""
    for row, players in started:
        db.execute(
            "INSERT INTO matches (code, match, rules, preset, size, rated, started, replays, sheet) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, '{}') ON CONFLICT (code, match) DO NOTHING",
            row,
        )
        db.executemany(
            "INSERT INTO match_players (code, match, seat, name, profile, bot, token) "
            "VALUES (?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (code, match, seat) DO UPDATE SET name = excluded.name, profile = excluded.profile",
            [_live(db, p) for p in players],
        )


def _live(db: Database, player: PlayerRow) -> PlayerRow:
    """A player whose profile was deleted while seated is filed anonymised, as its older matches are."""
    code, match, seat, _name, profile, bot, token = player
    if profile is None or db.execute("SELECT 1 FROM profiles WHERE id = ? AND deleted IS NULL", (profile,)).fetchone():
        return player
    return code, match, seat, DELETED_NAME, None, bot, token


def record(db: Database, table: TableRecord, now: float) -> bool:
    """Write the score sheet of the table's current match; ``True`` if this is the first
    write to see the match over (its end and places are written with it)."""
    if table.sheet is None or table.matches_played < 1:
        return False
    key = (table.code, table.matches_played)
    db.execute("UPDATE matches SET sheet = ? WHERE code = ? AND match = ?", (json.dumps(table.sheet), *key))
    if table.phase != Phase.OVER:
        return False
    places = json.dumps(table.sheet["places"])
    cursor = db.execute(
        "UPDATE matches SET ended = ?, places = ? WHERE code = ? AND match = ? AND ended IS NULL", (now, places, *key)
    )
    return cursor.rowcount == 1


TablePlayer = tuple[int, str, str | None]
"""A seat of a match played at a real table: seat, name, profile id (or ``None``)."""


def file_table(
    db: Database,
    code: str,
    rules: RuleSet,
    players: list[TablePlayer],
    *,
    times: tuple[float, float],
    sheet: dict[str, Any],
) -> None:
    """File (or file again, after a correction or a seat's profile linked or unlinked) the
    match of a score keeper's sheet that is over: ``kind = 'table'``, never rated, its
    score sheet and places, each seat's profile as ``players`` has it now; ``times`` is when
    it started and ended (an ended time already filed stays)."""
    started, ended = times
    db.execute(
        "INSERT INTO matches (code, match, rules, preset, size, rated, started, ended, sheet, places, kind) "
        "VALUES (?, 1, ?, ?, ?, 0, ?, ?, ?, ?, 'table') "
        "ON CONFLICT (code, match) DO UPDATE SET sheet = excluded.sheet, places = excluded.places",
        (
            code,
            json.dumps(rules.to_dict()),
            preset_of(rules),
            len(players),
            started,
            ended,
            json.dumps(sheet),
            json.dumps(sheet["places"]),
        ),
    )
    rows = [(code, 1, seat, name, profile, None, None) for seat, name, profile in players]
    db.executemany(
        "INSERT INTO match_players (code, match, seat, name, profile, bot, token) "
        "VALUES (?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (code, match, seat) DO UPDATE SET name = excluded.name, profile = excluded.profile",
        [_live(db, row) for row in rows],
    )


def unfile_table(db: Database, code: str) -> None:
    """The match of a sheet no longer over (a round undone): out of the history again."""
    db.execute("DELETE FROM match_players WHERE code = ? AND match = 1", (code,))
    db.execute("DELETE FROM matches WHERE code = ? AND match = 1 AND kind = 'table'", (code,))


@dataclass(frozen=True, slots=True)
class StoredPlayer:
    seat: int
    name: str
    profile: str | None
    bot: str | None


@dataclass(frozen=True, slots=True)
class StoredMatch:
    """One match of the history: ``sheet`` is the engine's ``ScoreSheet.to_dict`` (``{}``
    before its first round was scored), ``places`` ``None`` until it is over."""

    code: str
    match: int
    rules: dict[str, Any]
    preset: str | None
    size: int
    rated: bool
    started: float
    ended: float | None
    sheet: dict[str, Any]
    places: list[int] | None
    players: tuple[StoredPlayer, ...]
    kind: str = "online"
    """``online`` (played on this server) or ``table`` (with real cards, the score keeper's)."""
    tournament: str | None = None
    """The id of the tournament whose stage table played it (``None``: none)."""


@dataclass(frozen=True, slots=True)
class MatchFilter:
    """Which matches of a profile: by rules preset and number of players (``None``: any)."""

    profile: str
    preset: str | None = None
    players: int | None = None

    def where(self) -> tuple[str, tuple[Any, ...]]:
        sql = "m.code = p.code AND m.match = p.match AND p.profile = ?"
        args: list[Any] = [self.profile]
        if self.preset is not None:
            sql += " AND m.preset = ?"
            args.append(self.preset)
        if self.players is not None:
            sql += " AND m.size = ?"
            args.append(self.players)
        return sql, tuple(args)


def count_of(db: Database, which: MatchFilter) -> int:
    where, args = which.where()
    (count,) = db.execute(f"SELECT COUNT(*) FROM matches m, match_players p WHERE {where}", args).fetchone()
    return int(count)


def matches_of(db: Database, which: MatchFilter, page: int = 1, size: int = PAGE_SIZE) -> list[StoredMatch]:
    """Page ``page`` (1-based) of the profile's matches, newest first."""
    where, args = which.where()
    rows = db.execute(
        "SELECT m.code, m.match, m.rules, m.preset, m.size, m.rated, m.started, m.ended, m.sheet, m.places, m.kind "
        f"FROM matches m, match_players p WHERE {where} ORDER BY m.started DESC, m.code, m.match LIMIT ? OFFSET ?",
        (*args, size, (page - 1) * size),
    ).fetchall()
    return [_match(db, row) for row in rows]


def _match(db: Database, row: tuple[Any, ...]) -> StoredMatch:
    code, match, rules, preset, size, rated, started, ended, sheet, places, kind = row
    players = db.execute(
        "SELECT seat, name, profile, bot FROM match_players WHERE code = ? AND match = ? ORDER BY seat", (code, match)
    )
    return StoredMatch(
        code,
        match,
        json.loads(rules),
        preset,
        size,
        bool(rated),
        started,
        ended,
        json.loads(sheet),
        None if places is None else json.loads(places),
        tuple(StoredPlayer(*player) for player in players),
        kind,
        _tournament_of(db, code, match),
    )


def _tournament_of(db: Database, code: str, match: int) -> str | None:
    """A stage table's first match is its tournament's (``records.tournaments``)."""
    if match != 1:
        return None
    found = db.execute("SELECT tournament FROM tournament_tables WHERE code = ?", (code,)).fetchone()
    return None if found is None else str(found[0])


@dataclass(frozen=True, slots=True)
class Watchers:
    """Who may watch a match's replays, as the history filed it when the match started:
    the table's setting (``None``: filed before it was kept), the live profiles that sat
    in it, and the SHA-256 of each seat's token (empty: filed before they were kept)."""

    replays: Replays | None
    profiles: frozenset[str]
    seat_tokens: frozenset[str]


def watchers_of(db: Database, code: str, match: int) -> Watchers:
    found = db.execute("SELECT replays FROM matches WHERE code = ? AND match = ?", (code, match)).fetchone()
    setting = None if found is None or found[0] is None else Replays(found[0])
    rows = db.execute("SELECT profile, token FROM match_players WHERE code = ? AND match = ?", (code, match)).fetchall()
    profiles = frozenset(profile for profile, _ in rows if profile is not None)
    return Watchers(setting, profiles, frozenset(token for _, token in rows if token is not None))


def replays_of(db: Database, code: str, match: int, scored: int) -> list[str]:
    """The share tokens of the match's first ``scored`` rounds (those on its score
    sheet), in order: a round still being played is not told."""
    rows = db.execute(
        "SELECT share FROM rounds WHERE code = ? AND match = ? AND number <= ? ORDER BY number", (code, match, scored)
    )
    return [share for (share,) in rows]
