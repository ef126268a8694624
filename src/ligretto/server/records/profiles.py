"""Profiles without a password, kept in the store's database (docs/protocol.md,
"Profiles, history and ratings").

A profile is a public id, a display name and a back symbol, and a random secret per
device that only that device holds: the file keeps each secret's SHA-256, never the secret
(secrets are 256 random bits, not passwords, so a plain hash is enough).  The owner can
put the profile on another device with a one-time code (:data:`PROFILE_LINK_S` seconds,
single use): claiming it gives that device a secret of its own for the same profile.
Deleting a profile removes it from the leaderboards and anonymises its past matches (its
name there becomes :data:`DELETED_NAME`, its id unlinked).
"""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass

from ligretto.engine.cards import Symbol
from ligretto.protocol import ProtocolError, check_name
from ligretto.server.db.database import Database

__all__ = [
    "DELETED_NAME",
    "PROFILE_LINK_S",
    "SYMBOLS",
    "Profile",
    "ProfileError",
    "Profiles",
    "check_profile",
    "check_symbol",
]

PROFILE_LINK_S = 600.0
"""How long a one-time code to move a profile to another device is valid (seconds)."""

DELETED_NAME = "Deleted player"
"""The name a deleted profile's past matches show."""

SYMBOLS = tuple(symbol.name.lower() for symbol in Symbol)
"""The back symbols a profile may choose (the engine's deck backs): sun, moon, star, heart."""

LINK_CODE_BYTES = 6
"""A one-time code: 6 random bytes (48 bits, 8 characters), valid minutes, single use."""


USED_CODE = "this code was used already: make a new one on the first device"


class ProfileError(Exception):
    """A profile request refused: an error code (docs/protocol.md) and a message."""

    def __init__(self, code: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status


@dataclass(frozen=True, slots=True)
class Profile:
    """A profile as its owner sees it (the secret only right after it was made or claimed)."""

    id: str
    name: str
    symbol: str
    created: float


def check_symbol(symbol: str) -> str:
    if symbol not in SYMBOLS:
        raise ProfileError("bad_symbol", f"a back symbol is one of {', '.join(SYMBOLS)}, not {symbol!r}")
    return symbol


def check_profile(name: str, symbol: str) -> tuple[str, str]:
    """A new profile's name (trimmed) and symbol, else :class:`ProfileError`."""
    return _name(name), check_symbol(symbol)


def _name(name: str) -> str:
    try:
        return check_name(name)
    except ProtocolError as error:
        raise ProfileError(error.code, error.message) from None


def secret_hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


class Profiles:
    """The profiles of one database (its schema migrated); ``clock`` (wall clock seconds)
    dates them and times the one-time codes."""

    def __init__(self, db: Database, clock: Callable[[], float] = time.time) -> None:
        self.db = db
        self.clock = clock

    def create(self, name: str, symbol: str) -> tuple[Profile, str]:
        """A new profile and its secret (given once: the file keeps only its hash)."""
        profile = Profile(secrets.token_urlsafe(12), _name(name), check_symbol(symbol), self.clock())
        secret = secrets.token_urlsafe(32)
        with self.db.transaction(immediate=True):
            self.db.execute(
                "INSERT INTO profiles (id, name, symbol, created) VALUES (?, ?, ?, ?)",
                (profile.id, profile.name, profile.symbol, profile.created),
            )
            self._add_secret(profile.id, secret)
        return profile, secret

    def _add_secret(self, profile_id: str, secret: str) -> None:
        self.db.execute(
            "INSERT INTO profile_secrets (hash, profile, created) VALUES (?, ?, ?)",
            (secret_hash(secret), profile_id, self.clock()),
        )

    def by_secret(self, secret: str | None) -> Profile:
        """The live profile of ``secret``, else ``ProfileError`` ``bad_profile`` (401)."""
        if secret:
            row = self.db.execute(
                "SELECT id, name, symbol, profiles.created FROM profile_secrets JOIN profiles ON profiles.id = profile "
                "WHERE hash = ? AND deleted IS NULL",
                (secret_hash(secret),),
            ).fetchone()
            if row is not None:
                return Profile(*row)
        raise ProfileError("bad_profile", "no profile has this secret (deleted, or never made here)", 401)

    def by_id(self, profile_id: str) -> Profile | None:
        row = self.db.execute(
            "SELECT id, name, symbol, created FROM profiles WHERE id = ? AND deleted IS NULL", (profile_id,)
        ).fetchone()
        return None if row is None else Profile(*row)

    def update(self, secret: str | None, name: str | None, symbol: str | None) -> Profile:
        """Rename the profile of ``secret`` and/or change its back symbol; checked first,
        so a bad value changes nothing."""
        profile = self.by_secret(secret)
        name = profile.name if name is None else _name(name)
        symbol = profile.symbol if symbol is None else check_symbol(symbol)
        self.db.execute("UPDATE profiles SET name = ?, symbol = ? WHERE id = ?", (name, symbol, profile.id))
        return Profile(profile.id, name, symbol, profile.created)

    def delete(self, secret: str | None) -> None:
        """Delete the profile of ``secret``: off the leaderboards, its past matches
        anonymised, its codes void; its row stays (marked deleted) so its id is never reused."""
        profile = self.by_secret(secret)
        with self.db.transaction(immediate=True):
            self.db.execute(
                "UPDATE profiles SET deleted = ?, name = ? WHERE id = ?", (self.clock(), DELETED_NAME, profile.id)
            )
            self.db.execute("DELETE FROM profile_secrets WHERE profile = ?", (profile.id,))
            self.db.execute(
                "UPDATE match_players SET name = ?, profile = NULL WHERE profile = ?", (DELETED_NAME, profile.id)
            )
            self.db.execute("DELETE FROM ratings WHERE profile = ?", (profile.id,))
            self.db.execute("DELETE FROM season_ratings WHERE profile = ?", (profile.id,))
            self.db.execute("DELETE FROM profile_links WHERE profile = ?", (profile.id,))

    def link(self, secret: str | None) -> tuple[str, float]:
        """A one-time code for the profile of ``secret`` and how long it is valid (seconds)."""
        profile = self.by_secret(secret)
        code = secrets.token_urlsafe(LINK_CODE_BYTES)
        self.db.execute(
            "INSERT INTO profile_links (code, profile, expires) VALUES (?, ?, ?)",
            (code, profile.id, self.clock() + PROFILE_LINK_S),
        )
        return code, PROFILE_LINK_S

    def claim(self, code: str) -> tuple[Profile, str]:
        """The profile of a one-time code, with a new secret for the claiming device (the
        first device keeps its own).  Refused: ``bad_code`` (404), ``used_code`` and
        ``expired_code`` (410); a refusal changes nothing."""
        row = self.db.execute("SELECT profile, expires, used FROM profile_links WHERE code = ?", (code,)).fetchone()
        if row is None:
            raise ProfileError("bad_code", "no profile has this code", 404)
        profile_id, expires, used = row
        if used:
            raise ProfileError("used_code", USED_CODE, 410)
        if self.clock() >= expires:
            raise ProfileError("expired_code", "this code has expired: make a new one on the first device", 410)
        profile = self.by_id(profile_id)
        if profile is None:
            raise ProfileError("bad_code", "no profile has this code", 404)
        secret = secrets.token_urlsafe(32)
        with self.db.transaction(immediate=True):
            # ``used = 0``: of two devices claiming at once (two processes), one gets it.
            taken = self.db.execute("UPDATE profile_links SET used = 1 WHERE code = ? AND used = 0", (code,))
            if taken.rowcount != 1:
                raise ProfileError("used_code", USED_CODE, 410)
            self._add_secret(profile.id, secret)
        return profile, secret
