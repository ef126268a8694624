"""Ratings kept in the store's file and applied after each rated match; the leaderboards
(docs/protocol.md, "Profiles, history and ratings"; the math is ``ligretto.ratings``).

Each profile has a rating overall (``players`` 0) and one per number of players, of all
time (``ratings``) and of each season (``season_ratings``: a season is a calendar
quarter, ``ratings.season_of`` of when the match ended).  A profile's first match of a
season starts from the rating it ended its last season with (or, before it had seasons,
its rating of all time), softly reset toward a new player's (``ratings.soft_reset``); a
past season's rows never change again: they are its final standings.

When a match of a rated table ends, every seat with a live profile is rated with
``ratings.rate`` from the match's final places; bots take part with their fixed rating
(``ratings.bot_rating``) and are never updated; a person's seat without a profile and a
bot without a calibrated rating are left out, and the places are counted among those who
take part (``ratings.places_among``: ties still share).  A person who left the match
(gave the seat up: ``leave``; a stand-in played on) counts as last, below everyone who
stayed (several such share the last place); one only disconnected keeps the seat's place.  A match with fewer than
two taking part changes nothing.  A leaderboard lists the profiles with at least
:data:`LEADERBOARD_MIN_MATCHES` rated matches (of all time, or in the season), by
``ratings.leaderboard_order``.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass

from ligretto.ratings import (
    DEFAULT,
    Rating,
    Season,
    bot_rating,
    leaderboard_order,
    places_among,
    rate,
    season_named,
    season_of,
    soft_reset,
)
from ligretto.server.db.database import Database

__all__ = [
    "LEADERBOARD_MIN_MATCHES",
    "OVERALL",
    "PAGE_SIZE",
    "Ranked",
    "apply_match",
    "leaderboard",
    "put_rating",
    "rating_of",
    "season_rating_of",
    "seasons",
]

LEADERBOARD_MIN_MATCHES = 5
"""Rated matches a profile plays (of all time, or in the season) before it appears on a leaderboard."""
OVERALL = 0
"""The ``players`` of the overall rating (every number of players)."""
PAGE_SIZE = 50
"""Profiles per page of the leaderboard."""


def rating_of(db: Database, profile: str, players: int = OVERALL) -> tuple[Rating, int]:
    """A profile's rating of all time and its rated matches (a new player's if it has none)."""
    row = db.execute(
        "SELECT mu, sigma, matches FROM ratings WHERE profile = ? AND players = ?", (profile, players)
    ).fetchone()
    return (DEFAULT, 0) if row is None else (Rating(row[0], row[1]), row[2])


def put_rating(db: Database, profile: str, rating: Rating, matches: int) -> None:
    """Set a profile's rating of all time from outside the matches (the queue load test's
    profiles, ``records/seeding.py``)."""
    _store(db, profile, OVERALL, (rating, matches), None)


def season_rating_of(db: Database, profile: str, season: Season, players: int = OVERALL) -> tuple[Rating, int]:
    """A profile's rating in ``season`` and its rated matches there; before its first
    match of the season, the rating it would start from (its last season's, or its rating
    of all time, softly reset) and 0."""
    row = db.execute(
        "SELECT mu, sigma, matches FROM season_ratings WHERE season = ? AND profile = ? AND players = ?",
        (season.name, profile, players),
    ).fetchone()
    if row is not None:
        return Rating(row[0], row[1]), row[2]
    last = db.execute(
        "SELECT mu, sigma FROM season_ratings WHERE profile = ? AND players = ? AND season < ? "
        "ORDER BY season DESC LIMIT 1",
        (profile, players, season.name),
    ).fetchone()
    ended = rating_of(db, profile, players)[0] if last is None else Rating(last[0], last[1])
    return soft_reset(ended), 0


def apply_match(db: Database, code: str, match: int, left: Collection[int] = ()) -> int:
    """Rate the ended match (inside the store's transaction), of all time and in the
    season it ended in; ``left``: the seats whose person left it (they count as last).
    Returns how many profiles were updated.  Two processes ending matches of one profile
    at once rate them one after the other (the lock ``ratings``), so neither update is lost."""
    db.lock("ratings")
    found = db.execute("SELECT places, size, ended FROM matches WHERE code = ? AND match = ?", (code, match)).fetchone()
    if found is None or found[0] is None:
        return 0
    places, size, ended = json.loads(found[0]), found[1], found[2]
    last = len(places) + 1
    places = [last if seat in left else place for seat, place in enumerate(places)]
    seats = db.execute(
        "SELECT p.seat, p.bot, pr.id FROM match_players p LEFT JOIN profiles pr "
        "ON pr.id = p.profile AND pr.deleted IS NULL WHERE p.code = ? AND p.match = ? ORDER BY p.seat",
        (code, match),
    ).fetchall()
    fixed = {seat: bot_rating(bot) for seat, bot, _ in seats if bot is not None}
    taking_part = [(seat, profile) for seat, _, profile in seats if profile is not None or fixed.get(seat)]
    if len(taking_part) < 2 or not any(profile for _, profile in taking_part):
        return 0
    relative = places_among([places[seat] for seat, _ in taking_part])
    season = season_of(ended)
    updates: list[tuple[str, int, tuple[Rating, int], Season | None]] = []
    for players in (OVERALL, size):
        for scope in (None, season):  # all read before any is written: a season starts from before
            before = [
                (rating_of(db, profile, players) if scope is None else season_rating_of(db, profile, scope, players))
                if profile is not None
                else (fixed[seat] or DEFAULT, 0)
                for seat, profile in taking_part
            ]
            after = rate([rating for rating, _ in before], relative)
            updates.extend(
                (profile, players, (new, matches + 1), scope)
                for (_, profile), (_, matches), new in zip(taking_part, before, after, strict=True)
                if profile is not None
            )
    for update in updates:
        _store(db, *update)
    return sum(profile is not None for _, profile in taking_part)


def _store(db: Database, profile: str, players: int, rated: tuple[Rating, int], season: Season | None) -> None:
    rating, matches = rated
    if season is None:
        db.execute(
            "INSERT INTO ratings (profile, players, mu, sigma, matches) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT (profile, players) DO UPDATE SET "
            "mu = excluded.mu, sigma = excluded.sigma, matches = excluded.matches",
            (profile, players, rating.mu, rating.sigma, matches),
        )
    else:
        db.execute(
            "INSERT INTO season_ratings (season, profile, players, mu, sigma, matches) VALUES (?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (season, profile, players) DO UPDATE SET "
            "mu = excluded.mu, sigma = excluded.sigma, matches = excluded.matches",
            (season.name, profile, players, rating.mu, rating.sigma, matches),
        )


def seasons(db: Database, now: float) -> list[Season]:
    """The season of ``now`` and every earlier one with a rated match, newest first."""
    current = season_of(now)
    names = {row[0] for row in db.execute("SELECT DISTINCT season FROM season_ratings").fetchall()}
    past = sorted((season_named(name) for name in names if name < current.name), key=lambda s: s.name, reverse=True)
    return [current, *past]


@dataclass(frozen=True, slots=True)
class Ranked:
    """A row of the leaderboard."""

    place: int
    profile: str
    name: str
    symbol: str
    rating: Rating
    matches: int


def leaderboard(
    db: Database, players: int = OVERALL, page: int = 1, size: int = PAGE_SIZE, season: Season | None = None
) -> tuple[list[Ranked], int]:
    """One page of a leaderboard (overall, or of ``players``; of all time, or of
    ``season``) and how many are on it."""
    if season is None:
        rows = db.execute(
            "SELECT r.profile, p.name, p.symbol, r.mu, r.sigma, r.matches FROM ratings r JOIN profiles p "
            "ON p.id = r.profile AND p.deleted IS NULL WHERE r.players = ? AND r.matches >= ? ORDER BY r.profile",
            (players, LEADERBOARD_MIN_MATCHES),
        ).fetchall()
    else:
        rows = db.execute(
            "SELECT r.profile, p.name, p.symbol, r.mu, r.sigma, r.matches FROM season_ratings r JOIN profiles p "
            "ON p.id = r.profile AND p.deleted IS NULL WHERE r.season = ? AND r.players = ? AND r.matches >= ? "
            "ORDER BY r.profile",
            (season.name, players, LEADERBOARD_MIN_MATCHES),
        ).fetchall()
    ordered = leaderboard_order(rows, key=lambda row: Rating(row[3], row[4]))
    start = (page - 1) * size
    shown = [
        Ranked(start + i + 1, profile, name, symbol, Rating(mu, sigma), matches)
        for i, (profile, name, symbol, mu, sigma, matches) in enumerate(ordered[start : start + size])
    ]
    return shown, len(ordered)
