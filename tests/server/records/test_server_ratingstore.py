"""Ratings applied after rated matches (bots with their fixed rating, people without a
profile left out, a person who left last), equal to openskill's own Plackett-Luce
computation, of all time and by season (each started from the last, softly reset); the leaderboard
over HTTP from a real server on the same database, ordered by the conservative rating.
Each test runs on an SQLite file and on a PostgreSQL database (``store_db``)."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from openskill.models import PlackettLuce

from ligretto.engine.rules import RuleSet
from ligretto.protocol import Phase
from ligretto.ratings import DEFAULT, Rating, bot_rating, season_named, season_of, soft_reset
from ligretto.server.records.ratingstore import (
    LEADERBOARD_MIN_MATCHES,
    OVERALL,
    apply_match,
    leaderboard,
    rating_of,
    season_rating_of,
    seasons,
)
from ligretto.server.records.store import Store
from ligretto.server.table.table import Table
from pgserver import PgServer, StoreDatabase
from realserver import ServerProcess, running
from storedrounds import Person, StoredRounds

BOT = "smart:skilled"


def seated_table(stored: StoredRounds, *, rated: bool) -> tuple[Table, list[str]]:
    """Ann and Bob with profiles, Carl without, and a bot; stand-ins play for the people."""
    ann, _ = stored.profile("Ann", "sun")
    bob, _ = stored.profile("Bob", "star")
    rules = RuleSet().replace(match_end="rounds:1")
    people = [Person("Ann", ann), Person("Bob", bob), Person("Carl")]
    table = stored.table("RATE", people, [BOT], rules=rules, seed=777, countdown_s=1.0, rated=rated)
    return table, [ann, bob]


def play_match(stored: StoredRounds, table: Table) -> list[int]:
    """One match of one round; its final places by seat."""
    stored.play(table)
    assert table.match is not None
    places: list[int] = table.match.sheet.to_dict()["places"]
    return places


def relative(places: list[int]) -> list[int]:
    return [1 + sum(other < place for other in places) for place in places]


def test_ratings_after_seeded_matches_equal_openskills_own(store_db: StoreDatabase) -> None:
    stored = StoredRounds(store_db.url)
    store = stored.store
    table, (ann, bob) = seated_table(stored, rated=True)
    model = PlackettLuce()
    bot = bot_rating(BOT)
    assert bot is not None, "the bot of this test has a calibrated rating"
    expected = {ann: model.rating(), bob: model.rating()}
    try:
        for number in (1, 2):
            places = play_match(stored, table)
            store.commit()
            # Seats 0 (Ann), 1 (Bob) and 3 (the bot) take part; Carl (seat 2) has no profile.
            ranks = relative([places[0], places[1], places[3]])
            teams = [[expected[ann]], [expected[bob]], [model.rating(mu=bot.mu, sigma=bot.sigma)]]
            rated = model.rate(teams, ranks=[float(rank) for rank in ranks])
            expected = {ann: rated[0][0], bob: rated[1][0]}
            for profile in (ann, bob):
                for players in (OVERALL, 4):
                    rating, matches = rating_of(store.db, profile, players)
                    assert matches == number
                    assert rating.mu == expected[profile].mu and rating.sigma == expected[profile].sigma
        assert rating_of(store.db, ann, 3) == (DEFAULT, 0)
        (count,) = store.db.execute("SELECT COUNT(*) FROM ratings").fetchone()
        assert count == 4, "only the two profiles are rated (overall and at four players)"
    finally:
        stored.close()


def test_a_match_of_an_unrated_table_changes_no_rating(store_db: StoreDatabase) -> None:
    stored = StoredRounds(store_db.url)
    store = stored.store
    table, (ann, _) = seated_table(stored, rated=False)
    try:
        play_match(stored, table)
        store.commit()
        assert store.db.execute("SELECT COUNT(*) FROM ratings").fetchone() == (0,)
        assert rating_of(store.db, ann) == (DEFAULT, 0)
    finally:
        stored.close()


def get(server: Any, path: str) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(server.url + path, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_the_leaderboard_orders_by_the_conservative_rating_after_enough_matches(
    tmp_path: Path, store_db: StoreDatabase
) -> None:
    db = store_db.url
    stored = StoredRounds(db)
    store = stored.store
    table, ids = seated_table(stored, rated=True)
    for number in range(1, LEADERBOARD_MIN_MATCHES + 1):
        play_match(stored, table)
        store.commit()
        if number == LEADERBOARD_MIN_MATCHES - 1:
            early = [rating_of(store.db, profile)[1] for profile in ids]
    table.close()
    expected = sorted(ids, key=lambda p: -rating_of(store.db, p)[0].conservative)
    ratings = {p: rating_of(store.db, p)[0] for p in ids}
    # A better profile with one match too few is not on the leaderboard yet.
    newcomer, _ = store.profiles.create("Dora", "heart")
    store.db.execute(
        "INSERT INTO ratings VALUES (?, ?, 60.0, 1.0, ?)", (newcomer.id, OVERALL, LEADERBOARD_MIN_MATCHES - 1)
    )
    stored.close()
    assert early == [LEADERBOARD_MIN_MATCHES - 1] * 2
    with running(ServerProcess(db, tmp_path / "server.log")) as server:
        status, board = get(server, "/api/leaderboard")
        assert status == 200 and board["total"] == 2 and board["min_matches"] == LEADERBOARD_MIN_MATCHES
        assert [entry["id"] for entry in board["entries"]] == expected
        assert [entry["place"] for entry in board["entries"]] == [1, 2]
        for entry in board["entries"]:
            rating = ratings[entry["id"]]
            assert (entry["mu"], entry["sigma"], entry["rating"]) == (rating.mu, rating.sigma, rating.conservative)
            assert entry["matches"] == LEADERBOARD_MIN_MATCHES
            assert entry["name"] in ("Ann", "Bob")
        assert [e["id"] for e in get(server, "/api/leaderboard?players=4")[1]["entries"]] == expected
        assert get(server, "/api/leaderboard?players=3")[1]["entries"] == []
        assert get(server, "/api/leaderboard?players=1")[1]["error"] == "bad_query"
        # By default this season's; all of it was played this season, so of all time the same.
        this_season = season_of(time.time()).name
        assert (board["season"], board["seasons"][0]["name"]) == (this_season, this_season)
        everything = get(server, "/api/leaderboard?season=all")[1]
        assert everything["season"] == "all" and everything["entries"] == board["entries"]
        assert get(server, f"/api/leaderboard?season={this_season}")[1]["entries"] == board["entries"]
        assert get(server, "/api/leaderboard?season=1999-Q1")[1]["entries"] == []
        status, refused = get(server, "/api/leaderboard?season=2026-Q5")
        assert (status, refused["error"]) == (400, "bad_query") and "2026-Q4" in refused["message"]
        status, figures = get(server, f"/api/profiles/{ids[0]}/stats")
        assert figures["rating"]["matches"] == LEADERBOARD_MIN_MATCHES
        assert figures["rating"]["rating"] == ratings[ids[0]].conservative


def test_two_processes_rating_one_profile_at_once_lose_neither_match(postgres: PgServer) -> None:
    """Two processes (two stores on one PostgreSQL database) end a match of the same
    profile at the same moment: the second waits for the first's lock (``ratings``) and
    rates from its result, so the profile has both matches."""
    url = postgres.new_database()
    first, second = Store(url), Store(url)
    ann, _ = first.profiles.create("Ann", "sun")
    for code in ("ONE", "TWO"):
        first.db.execute(
            "INSERT INTO matches (code, match, rules, size, rated, started, ended, sheet, places) "
            "VALUES (?, 1, '{}', 2, 1, 0, 1, '{}', '[1, 2]')",
            (code,),
        )
        first.db.execute(
            "INSERT INTO match_players (code, match, seat, name, profile, bot) VALUES (?, 1, 0, 'Ann', ?, NULL)",
            (code, ann.id),
        )
        first.db.execute(
            "INSERT INTO match_players (code, match, seat, name, profile, bot) VALUES (?, 1, 1, 'Bot', NULL, ?)",
            (code, BOT),
        )
    (second_backend,) = second.db.execute("SELECT pg_backend_pid()").fetchone()
    failed: list[BaseException] = []

    def rate_the_second() -> None:
        try:
            with second.db.transaction():
                apply_match(second.db, "TWO", 1)
        except BaseException as error:
            failed.append(error)

    try:
        with first.db.transaction():
            assert apply_match(first.db, "ONE", 1) == 1
            waiting = threading.Thread(target=rate_the_second)
            waiting.start()
            # Proven waiting, not slept on: PostgreSQL shows its lock request not granted.
            deadline = time.monotonic() + 30
            while not first.db.execute(
                "SELECT 1 FROM pg_locks WHERE pid = ? AND NOT granted", (second_backend,)
            ).fetchone():
                assert time.monotonic() < deadline and waiting.is_alive(), "the second process did not wait"
                time.sleep(0.01)
        waiting.join(30)
        assert failed == []
        _rating, matches = rating_of(first.db, ann.id)
        assert matches == 2, "a rated match was lost to the other process"
    finally:
        first.close()
        second.close()


def test_a_person_who_leaves_a_rated_match_counts_as_last(tmp_path: Path) -> None:
    with StoredRounds(tmp_path / "ligretto.db") as stored:
        store = stored.store
        table, (ann, bob) = seated_table(stored, rated=True)
        table.start(0)
        table.leave(0)  # Ann gives her seat up; a stand-in plays it to the end
        stored.scheduler.run_until(lambda: table.phase is Phase.OVER, limit_s=600)
        assert table.match is not None
        places: list[int] = table.match.sheet.to_dict()["places"]
        store.commit()
        model = PlackettLuce()
        bot = bot_rating(BOT)
        assert bot is not None
        # Ann (last, whatever her stand-in scored), Bob and the bot take part.
        assert relative([places[0], places[1], places[3]])[0] < 3, "her stand-in did better than last"
        ranks = relative([len(places) + 1, places[1], places[3]])
        assert ranks[0] == 3
        rated = model.rate(
            [[model.rating()], [model.rating()], [model.rating(mu=bot.mu, sigma=bot.sigma)]],
            ranks=[float(rank) for rank in ranks],
        )
        for profile, expected in ((ann, rated[0][0]), (bob, rated[1][0])):
            rating, matches = rating_of(store.db, profile)
            assert (rating.mu, rating.sigma, matches) == (expected.mu, expected.sigma, 1)


def rated_match(store: Store, code: str, ended: float, places: list[int], profiles: list[str]) -> None:
    """A rated match of ``profiles`` that ended at ``ended`` with ``places``, filed as a
    table files one, then rated."""
    store.db.execute(
        "INSERT INTO matches (code, match, rules, size, rated, started, ended, sheet, places) "
        "VALUES (?, 1, '{}', ?, 1, ?, ?, '{}', ?)",
        (code, len(profiles), ended - 600, ended, json.dumps(places)),
    )
    for seat, profile in enumerate(profiles):
        store.db.execute(
            "INSERT INTO match_players (code, match, seat, name, profile, bot) VALUES (?, 1, ?, ?, ?, NULL)",
            (code, seat, f"P{seat}", profile),
        )
    apply_match(store.db, code, 1)


def test_each_season_starts_from_the_last_softly_reset_and_keeps_its_final_standings(tmp_path: Path) -> None:
    store = Store(tmp_path / "ligretto.db")
    try:
        ids = [store.profiles.create(name, "sun")[0].id for name in ("Ann", "Bob", "Cy")]
        summer, autumn = season_named("2026-Q3"), season_named("2026-Q4")
        model = PlackettLuce()
        expected = [model.rating() for _ in ids]
        for n in range(LEADERBOARD_MIN_MATCHES):  # Ann always first: summer's standings
            rated_match(store, f"S{n}", summer.starts + 3600 * (n + 1), [1, 2, 3], ids)
            expected = [team[0] for team in model.rate([[r] for r in expected], ranks=[1.0, 2.0, 3.0])]
        final = {p: season_rating_of(store.db, p, summer) for p in ids}
        for profile, rating in zip(ids, expected, strict=True):
            assert final[profile] == (Rating(rating.mu, rating.sigma), LEADERBOARD_MIN_MATCHES)
            assert rating_of(store.db, profile) == final[profile], "one season so far: the same as of all time"
        # Autumn: one match, Cy first.  Each starts from summer's rating, softly reset.
        start = [soft_reset(final[p][0]) for p in ids]
        assert season_rating_of(store.db, ids[0], autumn) == (start[0], 0)
        rated_match(store, "A0", autumn.starts + 60, [3, 2, 1], ids)
        now = model.rate([[model.rating(mu=r.mu, sigma=r.sigma)] for r in start], ranks=[3.0, 2.0, 1.0])
        of_all_time = model.rate(
            [[model.rating(mu=final[p][0].mu, sigma=final[p][0].sigma)] for p in ids], ranks=[3.0, 2.0, 1.0]
        )
        for i, profile in enumerate(ids):
            assert season_rating_of(store.db, profile, autumn) == (Rating(now[i][0].mu, now[i][0].sigma), 1)
            mu, sigma = of_all_time[i][0].mu, of_all_time[i][0].sigma
            assert rating_of(store.db, profile) == (Rating(mu, sigma), LEADERBOARD_MIN_MATCHES + 1)
            assert season_rating_of(store.db, profile, summer) == final[profile], "a past season never changes"
        # Summer's leaderboard is its final standings; autumn's has nobody with 5 matches yet.
        rows, total = leaderboard(store.db, season=summer)
        assert ([r.profile for r in rows], total) == (ids, 3)
        assert leaderboard(store.db, season=autumn) == ([], 0)
        assert [r.matches for r in leaderboard(store.db)[0]] == [LEADERBOARD_MIN_MATCHES + 1] * 3
        assert [s.name for s in seasons(store.db, autumn.starts + 60)] == ["2026-Q4", "2026-Q3"]
        assert [s.name for s in seasons(store.db, season_named("2027-Q2").starts)] == ["2027-Q2", "2026-Q4", "2026-Q3"]
        # Winter: a season skipped starts from the last one played, softly reset again.
        spring = season_named("2027-Q2")
        assert season_rating_of(store.db, ids[2], spring)[0] == soft_reset(
            season_rating_of(store.db, ids[2], autumn)[0]
        )
        # A deleted profile leaves every season's leaderboard.
        store.profiles.delete(store.profiles.create("Dee", "moon")[1])
        secret = store.profiles.create("Eve", "moon")
        rated_match(store, "E0", autumn.starts + 120, [1, 2], [secret[0].id, ids[0]])
        store.profiles.delete(secret[1])
        assert store.db.execute(
            "SELECT COUNT(*) FROM season_ratings WHERE profile = ?", (secret[0].id,)
        ).fetchone() == (0,)
    finally:
        store.close()


def test_a_match_with_a_seat_flagged_for_inhuman_speed_is_not_rated(tmp_path: Path) -> None:
    with StoredRounds(tmp_path / "ligretto.db") as stored:
        store = stored.store
        table, (_, bob) = seated_table(stored, rated=True)
        table.start(0)
        stored.scheduler.run_until(lambda: table.phase is Phase.PLAYING, limit_s=60)
        # what the table keeps when it flags a seat (server/table/table.py: _speed_flagged)
        flag = {"round": 1, "seat": 1, "why": "fast", "plays": 3, "fast": 3, "median_ms": 40, "cv": 0.2}
        table.rounds.speed_flags.append(flag)
        stored.scheduler.run_until(lambda: table.phase is Phase.OVER, limit_s=600)
        store.commit()
        assert store.db.execute("SELECT COUNT(*) FROM ratings").fetchone() == (0,)
        assert rating_of(store.db, bob) == (DEFAULT, 0)
        (text,) = store.db.execute("SELECT config FROM tables WHERE code = ?", (table.code,)).fetchone()
        assert json.loads(text)["speed_flags"] == [flag], "kept in the table's stored record"
        rated = store.db.execute("SELECT rated FROM matches WHERE code = ?", (table.code,)).fetchone()
        assert rated == (0,), "its history shows the match as not rated"
