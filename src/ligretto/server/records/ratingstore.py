"""Ratings kept in the store's file and applied after each rated match; the leaderboard
(docs/protocol.md, "Profiles, history and ratings"; the math is ``ligretto.ratings``).

Each profile has a rating overall (``players`` 0) and one per number of players.  When a
match of a rated table ends, every seat with a live profile is rated with
``ratings.rate`` from the match's final places; bots take part with their fixed rating
(``ratings.bot_rating``) and are never updated; a person's seat without a profile and a
bot without a calibrated rating are left out, and the places are counted among those who
take part (``ratings.places_among``: ties still share).  A match
with fewer than two taking part changes nothing.  The leaderboard lists the profiles with
at least :data:`LEADERBOARD_MIN_MATCHES` rated matches, by ``ratings.leaderboard_order``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from ligretto.ratings import DEFAULT, Rating, bot_rating, leaderboard_order, places_among, rate
from ligretto.server.db.database import Database

__all__ = ["LEADERBOARD_MIN_MATCHES", "OVERALL", "PAGE_SIZE", "Ranked", "apply_match", "leaderboard", "rating_of"]

LEADERBOARD_MIN_MATCHES = 5
"""Rated matches a profile plays before it appears on a leaderboard."""
OVERALL = 0
"""The ``players`` of the overall rating (every number of players)."""
PAGE_SIZE = 50
"""Profiles per page of the leaderboard."""


def rating_of(db: Database, profile: str, players: int = OVERALL) -> tuple[Rating, int]:
    """A profile's rating and rated matches (a new player's if it has none)."""
    row = db.execute(
        "SELECT mu, sigma, matches FROM ratings WHERE profile = ? AND players = ?", (profile, players)
    ).fetchone()
    return (DEFAULT, 0) if row is None else (Rating(row[0], row[1]), row[2])


def apply_match(db: Database, code: str, match: int) -> int:
    """Rate the ended match (inside the store's transaction); returns how many profiles
    were updated.  Two processes ending matches of one profile at once rate them one
    after the other (the lock ``ratings``), so neither update is lost."""
    db.lock("ratings")
    found = db.execute("SELECT places, size FROM matches WHERE code = ? AND match = ?", (code, match)).fetchone()
    if found is None or found[0] is None:
        return 0
    places, size = json.loads(found[0]), found[1]
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
    for players in (OVERALL, size):
        before = [
            rating_of(db, profile, players) if profile is not None else (fixed[seat] or DEFAULT, 0)
            for seat, profile in taking_part
        ]
        after = rate([rating for rating, _ in before], relative)
        for (_, profile), (_, matches), new in zip(taking_part, before, after, strict=True):
            if profile is not None:
                db.execute(
                    "INSERT INTO ratings (profile, players, mu, sigma, matches) VALUES (?, ?, ?, ?, ?) "
                    "ON CONFLICT (profile, players) DO UPDATE SET "
                    "mu = excluded.mu, sigma = excluded.sigma, matches = excluded.matches",
                    (profile, players, new.mu, new.sigma, matches + 1),
                )
    return sum(profile is not None for _, profile in taking_part)


@dataclass(frozen=True, slots=True)
class Ranked:
    """A row of the leaderboard."""

    place: int
    profile: str
    name: str
    symbol: str
    rating: Rating
    matches: int


def leaderboard(db: Database, players: int = OVERALL, page: int = 1, size: int = PAGE_SIZE) -> tuple[list[Ranked], int]:
    """One page of the leaderboard (overall, or of ``players``) and how many are on it."""
    rows = db.execute(
        "SELECT r.profile, p.name, p.symbol, r.mu, r.sigma, r.matches FROM ratings r JOIN profiles p "
        "ON p.id = r.profile AND p.deleted IS NULL WHERE r.players = ? AND r.matches >= ? ORDER BY r.profile",
        (players, LEADERBOARD_MIN_MATCHES),
    ).fetchall()
    ordered = leaderboard_order(rows, key=lambda row: Rating(row[3], row[4]))
    start = (page - 1) * size
    shown = [
        Ranked(start + i + 1, profile, name, symbol, Rating(mu, sigma), matches)
        for i, (profile, name, symbol, mu, sigma, matches) in enumerate(ordered[start : start + size])
    ]
    return shown, len(ordered)
