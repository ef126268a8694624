"""Profiles in the store (``server.profiles``): secrets kept hashed, renamed, deleted
(anonymised), moved to another device by a one-time code that expires (an injected clock)
and works once."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ligretto.server.db.database import Database
from ligretto.server.records.profiles import DELETED_NAME, PROFILE_LINK_S, ProfileError, Profiles
from ligretto.server.records.store import Store
from pgserver import StoreDatabase


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


Book = tuple[Profiles, Clock, Store]


@pytest.fixture
def profiles(store_db: StoreDatabase) -> Iterator[Book]:
    """The profiles of a fresh store, on SQLite and on PostgreSQL."""
    store = Store(store_db.url)
    clock = Clock()
    store.profiles.clock = clock
    yield store.profiles, clock, store
    store.close()


def test_a_profile_is_made_and_found_by_its_secret_which_is_kept_only_hashed(
    profiles: Book, store_db: StoreDatabase
) -> None:
    book, _, store = profiles
    profile, secret = book.create("  Ann ", "moon")
    assert (profile.name, profile.symbol) == ("Ann", "moon")
    assert book.by_secret(secret) == profile
    store.commit()
    raw = store_db.raw()
    assert secret.encode() not in raw, "the secret itself reached the file"
    with pytest.raises(ProfileError) as refused:
        book.by_secret(secret + "x")
    assert refused.value.code == "bad_profile" and refused.value.status == 401


@pytest.mark.parametrize(("name", "symbol", "code"), [("", "sun", "bad_name"), ("Ann", "skull", "bad_symbol")])
def test_bad_names_and_symbols_are_refused(profiles: Book, name: str, symbol: str, code: str) -> None:
    book, _, store = profiles
    with pytest.raises(ProfileError) as refused:
        book.create(name, symbol)
    assert refused.value.code == code
    assert store.db.execute("SELECT COUNT(*) FROM profiles").fetchone() == (0,)


def test_rename_and_a_bad_rename_that_changes_nothing(profiles: Book) -> None:
    book, _, _ = profiles
    _profile, secret = book.create("Ann", "sun")
    assert book.update(secret, "Annie", None).name == "Annie"
    assert book.update(secret, None, "star").symbol == "star"
    with pytest.raises(ProfileError):
        book.update(secret, "Bob", "nope")
    assert (book.by_secret(secret).name, book.by_secret(secret).symbol) == ("Annie", "star")


def test_a_one_time_code_moves_the_profile_once_and_expires(profiles: Book) -> None:
    book, clock, _ = profiles
    profile, secret = book.create("Ann", "heart")
    code, expires_s = book.link(secret)
    assert expires_s == PROFILE_LINK_S
    clock.now += PROFILE_LINK_S - 1
    claimed, other = book.claim(code)
    assert claimed == profile and other != secret
    assert book.by_secret(other) == profile and book.by_secret(secret) == profile  # both devices
    with pytest.raises(ProfileError) as again:
        book.claim(code)
    assert again.value.code == "used_code"
    late, _ = book.link(secret)
    clock.now += PROFILE_LINK_S
    with pytest.raises(ProfileError) as expired:
        book.claim(late)
    assert expired.value.code == "expired_code"
    with pytest.raises(ProfileError) as unknown:
        book.claim("nonsense")
    assert unknown.value.code == "bad_code"


def test_deleting_anonymises_past_matches_and_voids_secrets_and_codes(profiles: Book) -> None:
    book, _, store = profiles
    profile, secret = book.create("Ann", "sun")
    code, _ = book.link(secret)
    db: Database = store.db
    db.execute(
        "INSERT INTO match_players (code, match, seat, name, profile) VALUES ('T', 1, 0, 'Ann', ?)", (profile.id,)
    )
    db.execute("INSERT INTO ratings VALUES (?, 0, 25.0, 8.3, 3)", (profile.id,))
    book.delete(secret)
    assert db.execute("SELECT name, profile FROM match_players").fetchall() == [(DELETED_NAME, None)]
    assert db.execute("SELECT COUNT(*) FROM ratings").fetchone() == (0,)
    assert book.by_id(profile.id) is None
    with pytest.raises(ProfileError):
        book.by_secret(secret)
    with pytest.raises(ProfileError):
        book.claim(code)
