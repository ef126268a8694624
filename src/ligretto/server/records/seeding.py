"""Profiles of given ratings written into a server's database from outside while it runs:
the queue load test's arrivals (``harness/queueload.py``, ``ligretto loadtest --queue
--ratings DB``), so that the matchmaking queue meets a spread of ratings without each
profile first playing its way there.  The profiles and ratings are the server's own
(``profiles.Profiles``, ``ratingstore.put_rating``); the server reads both from the
database when a ``queue`` message names the profile."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ligretto.ratings import Rating
from ligretto.server.db.database import is_postgres, open_database, sqlite_file
from ligretto.server.records.profiles import Profiles
from ligretto.server.records.ratingstore import put_rating

SEEDED_MATCHES = 20
"""The rated matches each seeded profile is said to have played."""


def seed_profiles(db: str | Path, name: str, ratings: Sequence[Rating]) -> list[str]:
    """One new profile per rating in the database ``db`` (a path or ``postgresql://…``),
    named ``name`` and its number; their secrets, in the order of ``ratings``.  A file
    that is not there is :class:`FileNotFoundError` (not a new, empty database)."""
    if not is_postgres(db) and not Path(sqlite_file(db)).is_file():
        raise FileNotFoundError(f"no database at {db} (the --db of the server's ligretto serve)")
    database = open_database(db)
    try:
        profiles = Profiles(database)
        found = []
        for index, rating in enumerate(ratings):
            profile, secret = profiles.create(f"{name} {index}", "sun")
            with database.transaction(immediate=True):
                put_rating(database, profile.id, rating, SEEDED_MATCHES)
            found.append(secret)
        return found
    finally:
        database.close()
