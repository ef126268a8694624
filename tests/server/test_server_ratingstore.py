"""Ratings applied after rated matches (bots with their fixed rating, people without a
profile left out), equal to openskill's own Plackett-Luce computation; the leaderboard
over HTTP from a real server on the same database, ordered by the conservative rating.
Each test runs on an SQLite file and on a PostgreSQL database (``store_db``)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from listeners import Quiet
from openskill.models import PlackettLuce

from ligretto.engine.rules import RuleSet
from ligretto.ratings import DEFAULT, bot_rating
from ligretto.server.clock import VirtualScheduler
from ligretto.server.ratingstore import LEADERBOARD_MIN_MATCHES, OVERALL, rating_of
from ligretto.server.store import Store
from ligretto.server.table import Phase, Table
from pgserver import StoreDatabase
from realserver import ServerProcess, running

BOT = "smart:skilled"


def seated_table(store: Store, *, rated: bool) -> tuple[Table, VirtualScheduler, list[str]]:
    """Ann and Bob with profiles, Carl without, and a bot; stand-ins play for the people."""
    ann, _ = store.profiles.create("Ann", "sun")
    bob, _ = store.profiles.create("Bob", "star")
    scheduler = VirtualScheduler()
    rules = RuleSet().replace(match_end="rounds:1")
    table = Table("RATE", seats=4, rules=rules, store=store, countdown_s=1.0, scheduler=scheduler, rated=rated)
    table.match_seeds = lambda n: 777 + n
    table.join(Quiet(), "Ann", ann.id)
    table.join(Quiet(), "Bob", bob.id)
    table.join(Quiet(), "Carl")
    table.add_bot(0, BOT)
    for seat in table.seats[:3]:
        assert seat is not None
        seat.stand_in = True
    return table, scheduler, [ann.id, bob.id]


def play_match(table: Table, scheduler: VirtualScheduler) -> list[int]:
    """One match of one round; its final places by seat."""
    table.start(0)
    scheduler.run_until(lambda: table.phase is Phase.OVER, limit_s=3600)
    assert table.match is not None
    places: list[int] = table.match.sheet.to_dict()["places"]
    return places


def relative(places: list[int]) -> list[int]:
    return [1 + sum(other < place for other in places) for place in places]


def test_ratings_after_seeded_matches_equal_openskills_own(store_db: StoreDatabase) -> None:
    store = Store(store_db.url)
    table, scheduler, (ann, bob) = seated_table(store, rated=True)
    model = PlackettLuce()
    bot = bot_rating(BOT)
    assert bot is not None, "the bot of this test has a calibrated rating"
    expected = {ann: model.rating(), bob: model.rating()}
    try:
        for number in (1, 2):
            places = play_match(table, scheduler)
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
        table.close()
        store.close()


def test_a_match_of_an_unrated_table_changes_no_rating(store_db: StoreDatabase) -> None:
    store = Store(store_db.url)
    table, scheduler, (ann, _) = seated_table(store, rated=False)
    try:
        play_match(table, scheduler)
        store.commit()
        assert store.db.execute("SELECT COUNT(*) FROM ratings").fetchone() == (0,)
        assert rating_of(store.db, ann) == (DEFAULT, 0)
    finally:
        table.close()
        store.close()


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
    store = Store(db)
    table, scheduler, ids = seated_table(store, rated=True)
    for number in range(1, LEADERBOARD_MIN_MATCHES + 1):
        play_match(table, scheduler)
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
    store.close()
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
        status, figures = get(server, f"/api/profiles/{ids[0]}/stats")
        assert figures["rating"]["matches"] == LEADERBOARD_MIN_MATCHES
        assert figures["rating"]["rating"] == ratings[ids[0]].conservative
