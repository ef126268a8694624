"""History and statistics over HTTP: two matches of three rounds are played in process
(bots play for the two profiles' seats, on a virtual clock) into a real database (an SQLite
file, and a PostgreSQL database: ``store_db``); a real server started on it answers each
profile's matches and statistics, which must equal the score sheets the table showed, the
races it announced and the times its actions took effect.  No answer names a card."""

from __future__ import annotations

import itertools
import json
import statistics
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from listeners import Recorder

from ligretto.engine.rules import RuleSet
from ligretto.server.db.database import open_database
from ligretto.server.records.history import MatchFilter, matches_of
from ligretto.server.records.store import Store
from ligretto.server.table.clock import VirtualScheduler
from ligretto.server.table.table import Table
from ligretto.testkit.scans import CARD
from pgserver import StoreDatabase
from realserver import ServerProcess, running
from storedrounds import Person, StoredRounds

ROUNDS = 3


def play_two_matches(path: Path | str) -> dict[str, Any]:
    """Ann and Bob (with profiles; stand-in bots play for them) and a bot play two matches;
    what the table showed: each match's sheet, the races announced, the applied actions."""
    rules = RuleSet().replace(match_end=f"rounds:{ROUNDS}")
    with StoredRounds(path) as stored:
        ann, ann_secret = stored.profile("Ann", "sun")
        bob, _ = stored.profile("Bob", "moon")
        people = [Person("Ann", ann, Recorder()), Person("Bob", bob, Recorder())]
        table = stored.table("HIST", people, ["smart:skilled"], rules=rules, seed=4000, countdown_s=1.0, rated=True)
        watcher = Recorder()
        table.watch(watcher)
        sheets = []
        for _ in range(2):
            stored.play(table, ROUNDS)
            assert table.match is not None
            sheets.append(table.match.sheet.to_dict())
    return {"ids": (ann, bob), "secret": ann_secret, "sheets": sheets, "seen": watcher.messages}


def get(server: Any, path: str, secret: str | None = None) -> tuple[int, Any]:
    request = urllib.request.Request(server.url + path)
    if secret is not None:
        request.add_header("Authorization", f"Bearer {secret}")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def no_cards(value: Any, path: str = "") -> list[str]:
    """Every card-like string and hidden-looking key in an answer."""
    found = []
    if isinstance(value, str) and CARD.match(value):
        found.append(f"{path}={value}")
    elif isinstance(value, dict):
        for key, item in value.items():
            if key in ("hand", "deck", "log", "seed", "hands", "row", "discard", "view"):
                found.append(f"{path}.{key}")
            found += no_cards(item, f"{path}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found += no_cards(item, f"{path}[{i}]")
    return found


def applied_of(seen: list[dict[str, Any]]) -> set[tuple[int, int, int]]:
    """(match, round, seq) of every applied action the spectator was sent events of (the
    round number starts again at 1 in the next match)."""
    applied = set()
    match, last_round = 1, 0
    for message in seen:
        if message["type"] == "events":
            if message["round"] < last_round:
                match += 1
            last_round = message["round"]
            applied.add((match, message["round"], message["seq"]))
    return applied


def expected_reactions(path: Path | str, seen: list[dict[str, Any]], seat: int) -> dict[str, float]:
    """The median, by kind, of the time from the action before (anyone's) to each of the
    seat's applied actions, read straight from the database's action times."""
    applied = applied_of(seen)
    db = open_database(path)
    times: dict[str, list[float]] = {}
    try:
        for match in (1, 2):
            for number in range(1, ROUNDS + 1):
                rows = db.execute(
                    "SELECT idx, at, action FROM actions WHERE code = 'HIST' AND match = ? AND round = ? ORDER BY idx",
                    (match, number),
                ).fetchall()
                for (_, before, _), (idx, at, text) in itertools.pairwise(rows):
                    action = json.loads(text)
                    if action["player"] == seat and (match, number, idx) in applied:
                        times.setdefault(action["type"], []).append(at - before)
    finally:
        db.close()
    return {kind: statistics.median(values) for kind, values in sorted(times.items())}


def test_history_and_statistics_match_what_the_table_showed(tmp_path: Path, store_db: StoreDatabase) -> None:
    db = store_db.url
    played = play_two_matches(db)
    ann, bob = played["ids"]
    races = [m for m in played["seen"] if m["type"] == "race"]
    with running(ServerProcess(db, tmp_path / "server.log")) as server:
        status, seen_by_others = get(server, f"/api/profiles/{ann}/matches")
        assert status == 200 and [m["code"] for m in seen_by_others["matches"]] == [None, None], "a private table"
        status, stats_by_others = get(server, f"/api/profiles/{ann}/stats")
        assert status == 200 and [m["code"] for m in stats_by_others["by_match"]] == [None, None]
        status, page = get(server, f"/api/profiles/{ann}/matches", played["secret"])  # Ann's own history
        assert status == 200 and page["total"] == 2 and page["pages"] == 1
        assert get(server, f"/api/profiles/{ann}/matches", "not-a-secret")[1] == seen_by_others
        newest, oldest = page["matches"]
        assert (newest["match"], oldest["match"]) == (2, 1)
        for entry, sheet in zip((oldest, newest), played["sheets"], strict=True):
            assert entry["code"] == "HIST" and entry["rated"] and entry["preset"] == "classic"
            assert entry["rules"] == RuleSet().replace(match_end="rounds:3").to_dict()
            assert entry["sheet"] == sheet, "the history's sheet is not the one the table showed"
            assert entry["places"] == sheet["places"] and entry["ended"] is not None
            players = [(p["seat"], p["name"], p["profile"], p["bot"]) for p in entry["players"]]
            assert players[:2] == [(0, "Ann", ann, None), (1, "Bob", bob, None)]
            assert (players[2][0], players[2][2], players[2][3]) == (2, None, "smart:skilled")
        told = [m["replay"] for m in played["seen"] if m["type"] == "round_over"]
        assert len(set(told)) == 2 * ROUNDS, "one share token per round"
        assert oldest["replays"] + newest["replays"] == told, "the owner's history links each round's replay"
        assert [m["replays"] for m in seen_by_others["matches"]] == [None, None], "only the owner gets them"
        for token in told:
            assert get(server, f"/api/replays/{token}")[0] == 200
        assert get(server, f"/api/profiles/{ann}/matches?players=3")[1]["total"] == 2
        assert get(server, f"/api/profiles/{ann}/matches?players=4")[1]["total"] == 0
        assert get(server, f"/api/profiles/{ann}/matches?preset=expert")[1]["total"] == 0
        assert get(server, f"/api/profiles/{ann}/matches?page=2")[1]["matches"] == []
        assert get(server, f"/api/profiles/{ann}/matches?players=13")[1]["error"] == "bad_query"
        assert get(server, f"/api/profiles/{ann}/matches?preset=nope")[0] == 400
        assert get(server, "/api/profiles/nobody/matches")[0] == 404

        for seat, profile in enumerate((ann, bob)):
            status, figures = get(server, f"/api/profiles/{profile}/stats")
            assert status == 200
            rows = [row for sheet in played["sheets"] for row in sheet["rounds"]]
            assert figures["matches"] == 2 and figures["rounds"] == 2 * ROUNDS
            assert figures["rounds_won"] == sum(seat in row["winners"] for row in rows)
            assert figures["stops"] == sum(row["stopped_by"] == seat for row in rows)
            assert figures["center_per_round"] == sum(row["lines"][seat]["center"] for row in rows) / len(rows)
            assert figures["stack_per_round"] == sum(row["lines"][seat]["stack"] for row in rows) / len(rows)
            assert figures["races_won"] == sum(race["winner"] == seat for race in races)
            assert figures["races_lost"] == sum(race["loser"] == seat for race in races)
            assert figures["reaction_s"] == expected_reactions(db, played["seen"], seat)
            assert [(m["match"], m["rounds"]) for m in figures["by_match"]] == [(1, ROUNDS), (2, ROUNDS)]
            assert get(server, f"/api/profiles/{profile}/stats?players=5")[1]["rounds"] == 0
            assert no_cards(figures) == []
            assert get(server, f"/api/profiles/{profile}/stats")[1] == figures  # from the kept figures
        assert no_cards(page) == []
    assert races, "no race in six rounds of three bots: the race figures were not put to the test"
    kept = open_database(db)
    try:
        assert kept.execute("SELECT COUNT(*) FROM round_figures").fetchone() == (2 * ROUNDS * 3,)
    finally:
        kept.close()


def test_the_table_message_links_the_round_just_scored_and_no_round_in_play(tmp_path: Path) -> None:
    seen = play_two_matches(tmp_path / "ligretto.db")["seen"]
    last = None
    checked = set()
    for message in seen:
        if message["type"] == "round_over":
            last = message["replay"]
        elif message["type"] == "table":
            if message["phase"] in ("scoring", "over"):
                assert message["replay"] == last is not None, "a page loaded on the score sheet gets its link"
            else:
                assert message["replay"] is None, "no round's token before it is over"
            checked.add(message["phase"])
    assert {"scoring", "over", "countdown"} <= checked


def test_matches_of_pages_newest_first(store_db: StoreDatabase) -> None:
    db = store_db.url
    played = play_two_matches(db)
    store = Store(db)
    try:
        ann = played["ids"][0]
        first = matches_of(store.db, MatchFilter(ann), page=1, size=1)
        second = matches_of(store.db, MatchFilter(ann), page=2, size=1)
        assert [m.match for m in first + second] == [2, 1]
    finally:
        store.close()


def test_a_profile_deleted_while_seated_is_filed_anonymised(store_db: StoreDatabase) -> None:
    store = Store(store_db.url)
    ann, secret = store.profiles.create("Ann", "sun")
    scheduler = VirtualScheduler()
    table = Table("DEL", seats=2, rules=RuleSet().replace(match_end="rounds:1"), store=store, scheduler=scheduler)
    table.join(Recorder(), "Ann", ann.id)
    table.add_bot(0, "smart:skilled")
    store.profiles.delete(secret)
    table.start(0)
    store.commit()
    try:
        assert store.db.execute("SELECT seat, name, profile FROM match_players ORDER BY seat").fetchall()[0] == (
            0,
            "Deleted player",
            None,
        )
    finally:
        table.close()
        store.close()


def test_a_match_played_over_websockets_with_a_profile_is_in_its_history_and_rated(server: Any, arun: Any) -> None:
    """Play now against a bot, with a profile: the history's sheet is the one the player was
    shown at the match's end; play now is rated, but the machine bot has no calibrated
    rating and a match of one rated seat changes nothing."""
    status, made = server.http("POST", "/api/profiles", {"name": "Ann", "symbol": "star"})
    assert status == 201
    body = {"bots": ["smart:machine"], "seats": 2, "start": True, "options": {"match_end": "rounds:1"}}
    status, table = server.http("POST", "/api/tables", body)
    assert status == 201

    async def scenario() -> dict[str, Any]:
        ann = server.client("Ann")
        await ann.connect()
        welcome = await ann.hello(table["code"], profile=made["secret"])
        assert welcome["type"] == "welcome" and welcome["seat"] == 1  # the bot sits first
        await ann.wait_for("go", timeout=5)
        await ann.play_to_end(pace=(0.25, 0.5))  # a person's pace: not flagged, so rated
        over: dict[str, Any] = await ann.wait_for(lambda m: m["type"] == "table" and m["phase"] == "over", timeout=20)
        await ann.close()
        return over

    over = arun(scenario())
    assert over["rated"] is True
    status, page = get(server, f"/api/profiles/{made['id']}/matches", made["secret"])
    assert status == 200 and page["total"] == 1
    (entry,) = page["matches"]
    assert entry["code"] == table["code"] and entry["sheet"] == over["sheet"] and entry["rated"]
    status, seen_by_others = get(server, f"/api/profiles/{made['id']}/matches")
    assert seen_by_others["matches"][0]["code"] is None, "a play-now table is private: its code is Ann's alone"
    assert entry["players"][1] == {"seat": 1, "name": "Ann", "profile": made["id"], "bot": None}
    assert (entry["players"][0]["bot"], entry["players"][0]["profile"]) == ("smart:machine", None)
    status, figures = server.http("GET", f"/api/profiles/{made['id']}/stats")
    assert status == 200 and figures["rounds"] == 1 and figures["rating"]["matches"] == 0
    assert no_cards(page) == [] and no_cards(figures) == []
