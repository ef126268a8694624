"""The score keeper's HTTP API against a real server process: a sheet made, its rounds
entered, corrected and undone, retries applied once, bad input refused with nothing
changed, its scores the engine's for every scoring option, its CSV read back, the sheet
found again after the server was killed, and its match filed, unrated, in the history of
the players whose own profile is on their seat (each links theirs with its secret).  A
killed server finds its sheets again on an SQLite file and on PostgreSQL."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from keeperclient import PLAYERS, SheetStream, call, entry, new_sheet, put

from ligretto.bots.spec import BotSpec
from ligretto.engine import PRESETS, Round, RuleSet, score_round
from ligretto.engine.events import Ending
from ligretto.protocol import SheetEntry, tally_of
from ligretto.server.records.keepercsv import read_csv
from ligretto.sim.table import simulate_round
from pgserver import StoreDatabase
from realserver import ServerProcess, running

SEEDS = (18, 11, 9), (0, 3, 4)


def test_a_sheet_is_made_and_read(module_server: Any) -> None:
    made = new_sheet(module_server, options={"match_end": "target:50", "stack_penalty": 3})
    assert len(made["code"]) == 16
    assert made["rules"]["match_end"] == "target:50" and made["rules"]["stack_penalty"] == 3
    assert made["players"][2] == {"name": "Cleo", "back": {"colour": "blue", "symbol": "star"}, "profile": None}
    assert (made["rounds"], made["changes"], made["version"], made["over"], made["winners"]) == ([], [], 0, False, [])
    assert made["sheet"] == {"players": 3, "rounds": [], "totals": [0, 0, 0], "places": [1, 1, 1]}
    assert call(module_server, "GET", f"/api/sheets/{made['code']}") == (200, made)
    status, body = call(module_server, "GET", "/api/sheets/nosuchsheetcode0")
    assert (status, body["error"]) == (404, "no_sheet")
    status, svg = call(module_server, "GET", f"/api/sheets/{made['code']}/qr.svg")
    assert status == 200 and svg.startswith("<svg") and "Ligretto score sheet" in svg


def test_rounds_are_entered_corrected_undone_and_retried_once(module_server: Any) -> None:
    code = new_sheet(module_server)["code"]
    status, one = put(module_server, code, 1, entry(*SEEDS, 0), base=None, client_id="p1-1")
    assert status == 200
    assert one["sheet"]["rounds"][0]["lines"] == [
        {"center": 18, "stack": 0, "score": 18},
        {"center": 11, "stack": 3, "score": 5},
        {"center": 9, "stack": 4, "score": 1},
    ]
    assert one["rounds"] == [{"n": 1, "entry": entry(*SEEDS, 0), "version": 1}]
    # the same id again (an offline retry): applied once
    assert put(module_server, code, 1, entry(*SEEDS, 0), base=None, client_id="p1-1") == (200, one)
    assert put(module_server, code, 2, entry(*SEEDS, 0), base=None, client_id="p1-1") == (200, one)
    fixed = entry([18, 12, 9], [0, 3, 4], 0)
    status, corrected = put(module_server, code, 1, fixed, base=1, client_id="p2-1", by="Bob")
    assert status == 200
    assert corrected["rounds"] == [{"n": 1, "entry": fixed, "version": 2}]
    assert corrected["sheet"]["totals"] == [18, 6, 1]
    change = corrected["changes"][1]
    assert (change["kind"], change["by"], change["before"], change["after"]) == (
        "correction",
        "Bob",
        entry(*SEEDS, 0),
        fixed,
    )
    status, undone = call(module_server, "POST", f"/api/sheets/{code}/undo", {"by": "Cleo", "id": "p3-1", "change": 2})
    assert status == 200
    assert undone["rounds"] == [{"n": 1, "entry": entry(*SEEDS, 0), "version": 3}]
    assert undone["changes"][2] | {"at": 0} == {
        "n": 3,
        "round": 1,
        "by": "Cleo",
        "at": 0,
        "kind": "undo",
        "before": fixed,
        "after": entry(*SEEDS, 0),
        "undoes": 2,
        "seat": None,
        "profile": None,
    }
    assert call(module_server, "POST", f"/api/sheets/{code}/undo", {"by": "Cleo", "id": "p3-1"}) == (200, undone)
    status, stale = call(module_server, "POST", f"/api/sheets/{code}/undo", {"by": "Cleo", "id": "p3-2", "change": 2})
    assert (status, stale["error"]) == (409, "stale_undo")
    status, empty = call(module_server, "POST", f"/api/sheets/{code}/undo", {"by": "Cleo", "id": "p3-3"})
    assert status == 200 and empty["rounds"] == []
    status, nothing = call(module_server, "POST", f"/api/sheets/{code}/undo", {"by": "Cleo", "id": "p3-4"})
    assert (status, nothing["error"]) == (400, "nothing_to_undo")


BAD_SHEETS = [
    (b'{"players": [', "malformed"),
    (b'{"players": [], "colour": 1}', "invalid"),
    (b'{"players": "Alice"}', "invalid"),
    (b'{"players": [{"name": "A", "back": {"colour": "red", "symbol": "sun"}}]}', "bad_players"),
    (
        b'{"players": [{"name": "A", "back": {"colour": "red", "symbol": "sun"}}, '
        b'{"name": "a", "back": {"colour": "red", "symbol": "moon"}}]}',
        "bad_players",
    ),
    (
        b'{"players": [{"name": "A", "back": {"colour": "red", "symbol": "sun"}}, '
        b'{"name": "B", "back": {"colour": "red", "symbol": "sun"}}]}',
        "bad_players",
    ),
    (
        b'{"players": [{"name": "A", "back": {"colour": "pink", "symbol": "sun"}}, '
        b'{"name": "B", "back": {"colour": "red", "symbol": "moon"}}]}',
        "bad_back",
    ),
    (
        b'{"players": [{"name": "", "back": {"colour": "red", "symbol": "sun"}}, '
        b'{"name": "B", "back": {"colour": "red", "symbol": "moon"}}]}',
        "bad_name",
    ),
    (b'{"preset": "nope", "players": []}', "bad_rules"),
    (b'{"options": {"stack_penalty": 11}, "players": []}', "bad_rules"),
    (
        b'{"players": [{"name": "A", "back": {"colour": "red", "symbol": "sun"}, "profile": "nobody"}, '
        b'{"name": "B", "back": {"colour": "red", "symbol": "moon"}}]}',
        "bad_profile",
    ),
    (
        b'{"me": 0, "players": [{"name": "A", "back": {"colour": "red", "symbol": "sun"}}, '
        b'{"name": "B", "back": {"colour": "red", "symbol": "moon"}}]}',
        "bad_profile",
    ),
]


@pytest.mark.parametrize(("body", "code"), BAD_SHEETS)
def test_a_bad_new_sheet_is_refused_with_a_clear_message(module_server: Any, body: bytes, code: str) -> None:
    status, answer = call(module_server, "POST", "/api/sheets", raw=body)
    assert status in (400, 401) and answer["error"] == code and answer["message"]


BAD_ROUNDS = [
    (b'{"entry": ', "malformed"),
    (b'{"entry": {"ending": "stop", "stopped_by": 0}, "base": null, "by": "A", "id": "x", "extra": 1}', "invalid"),
    (
        b'{"entry": {"center": "18", "stack": [0, 3, 4], "ending": "stop", "stopped_by": 0}, "base": null, '
        b'"by": "A", "id": "x"}',
        "invalid",
    ),
    (
        b'{"entry": {"center": [18, 11, 9], "stack": [0, 3, 4], "ending": "won", "stopped_by": 0}, "base": null, '
        b'"by": "A", "id": "x"}',
        "invalid",
    ),
    (
        b'{"entry": {"center": [18, 11, 9], "stack": [0, 3, 4], "ending": "stop", "stopped_by": 0}, "base": null, '
        b'"by": "A", "id": ""}',
        "invalid",
    ),
    (
        b'{"entry": {"center": [18, 11, 9], "stack": [0, 11, 4], "ending": "stop", "stopped_by": 0}, "base": null, '
        b'"by": "A", "id": "x"}',
        "bad_entry",
    ),
    (
        b'{"entry": {"center": [18, -1, 9], "stack": [0, 3, 4], "ending": "stop", "stopped_by": 0}, "base": null, '
        b'"by": "A", "id": "x"}',
        "bad_entry",
    ),
    (
        b'{"entry": {"center": [18, 11, 9], "stack": [0, 3, 4], "ending": "stop", "stopped_by": 1}, "base": null, '
        b'"by": "A", "id": "x"}',
        "bad_entry",
    ),
    (
        b'{"entry": {"center": [18, 11, 9], "stack": [0, 3, 4], "ending": "stop", "stopped_by": 0}, "base": null, '
        b'"by": "", "id": "x"}',
        "bad_name",
    ),
]


@pytest.mark.parametrize(("body", "code"), BAD_ROUNDS)
def test_a_bad_round_is_refused_and_changes_nothing(module_server: Any, body: bytes, code: str) -> None:
    sheet = new_sheet(module_server)
    path = f"/api/sheets/{sheet['code']}/rounds/1"
    status, answer = call(module_server, "PUT", path, raw=body)
    assert (status, answer["error"]) == (400, code) and answer["message"]
    assert call(module_server, "GET", f"/api/sheets/{sheet['code']}") == (200, sheet)


def test_a_refused_entry_names_the_player(module_server: Any) -> None:
    code = new_sheet(module_server)["code"]
    status, answer = put(module_server, code, 1, entry([18, 11, 9], [0, 11, 4], 0), base=None, client_id="x")
    assert (status, answer["message"]) == (400, "Bob: a Ligretto stack holds 0-10 cards, not 11")
    status, answer = put(module_server, code, 1, entry([18, 11, 9], [0, 3, 4], 2), base=None, client_id="x")
    assert "Cleo called Stop with 4 cards left" in answer["message"]
    for n in (0, 2, "x"):
        status, answer = put(module_server, code, n, entry(*SEEDS, 0), base=None, client_id="y")  # type: ignore[arg-type]
        assert (status, answer["error"]) == (404, "no_round")


def test_a_round_past_the_end_is_refused(module_server: Any) -> None:
    code = new_sheet(module_server, options={"match_end": "rounds:1"})["code"]
    status, over = put(module_server, code, 1, entry(*SEEDS, 0), base=None, client_id="a")
    assert status == 200 and over["over"] and over["winners"] == [0] and over["places"] == [1, 2, 3]
    status, answer = put(module_server, code, 2, entry(*SEEDS, 0), base=None, client_id="b")
    assert (status, answer["error"]) == (400, "bad_entry") and "the match is over after round 1" in answer["message"]


def _online_round(rules: RuleSet, seed: int) -> tuple[Round, dict[str, Any]]:
    """A round played by bots through the engine, and the entry the table would count."""
    game = Round.deal(rules, 3, seed)
    simulate_round(rules, [BotSpec.parse("greedy:skilled")] * 3, seed, game=game)
    center = [0, 0, 0]
    for seats in game.pile_seats:
        for seat in seats:
            center[seat] += 1
    stopped = game.stopped_by if game.ending is Ending.STOP else None
    return game, entry(center, [len(area.stack) for area in game.areas], stopped)


@pytest.mark.parametrize("preset", list(PRESETS))
@pytest.mark.parametrize(
    "options", [{}, {"stack_penalty": 3}, {"floor_at_zero": True}, {"scoring": "first_out"}, {"stack_penalty": 0}]
)
def test_the_sheet_scores_as_the_engine_for_every_scoring_option(
    module_server: Any, preset: str, options: dict[str, Any]
) -> None:
    rules = RuleSet.preset(preset).replace(match_end="rounds:3", **options)
    code = new_sheet(module_server, preset=preset, options={"match_end": "rounds:3", **options})["code"]
    expected = []
    for number, seed in enumerate((101, 202, 303), start=1):
        game, counted = _online_round(rules, seed)
        status, body = put(module_server, code, number, counted, base=None, client_id=f"r{number}")
        assert status == 200, body
        expected.append([{"center": s.center, "stack": s.stack, "score": s.score} for s in score_round(game)])
    assert [row["lines"] for row in body["sheet"]["rounds"]] == expected
    assert body["sheet"]["totals"] == [sum(row[seat]["score"] for row in expected) for seat in range(3)]
    assert body["over"]
    status, text = call(module_server, "GET", f"/api/sheets/{code}/csv")
    assert status == 200
    rounds = [tally_of(SheetEntry(**r["entry"])) for r in body["rounds"]]
    assert read_csv(text, [p["name"] for p in PLAYERS]) == rounds


def test_a_sheet_is_found_again_after_the_server_is_killed(tmp_path: Path, store_db: StoreDatabase) -> None:
    with running(ServerProcess(store_db.url, tmp_path / "server.log")) as server:
        code = new_sheet(server)["code"]
        assert put(server, code, 1, entry(*SEEDS, 0), base=None, client_id="a")[0] == 200
        status, before = put(server, code, 2, entry([10, 20, 3], [5, 0, 9], 1), base=None, client_id="b")
        assert status == 200
        server.kill()  # SIGKILL: every answered change was written before its answer
        server.start()
        assert call(server, "GET", f"/api/sheets/{code}") == (200, before)
        assert put(server, code, 2, entry([10, 20, 3], [5, 0, 9], 1), base=None, client_id="b") == (
            200,
            before,
        )  # id kept
        status, after = put(server, code, 2, entry([10, 21, 3], [5, 0, 9], 1), base=2, client_id="c")
        assert status == 200 and after["version"] == 3


def test_a_finished_sheet_is_in_the_history_of_its_profiles_unrated(module_server: Any) -> None:
    status, ann = call(module_server, "POST", "/api/profiles", {"name": "Ann", "symbol": "sun"})
    assert status == 201
    status, leaders = call(module_server, "GET", "/api/leaderboard")
    status, sheet = call(
        module_server,
        "POST",
        "/api/sheets",
        {"players": PLAYERS, "me": 1, "options": {"match_end": "rounds:2"}},
        secret=ann["secret"],
    )
    assert status == 201 and sheet["players"][1]["profile"] == ann["id"]
    code = sheet["code"]
    assert put(module_server, code, 1, entry(*SEEDS, 0), base=None, client_id="a")[0] == 200
    path = f"/api/profiles/{ann['id']}/matches"
    assert call(module_server, "GET", path)[1]["matches"] == []  # not over: not filed
    status, done = put(module_server, code, 2, entry([10, 20, 3], [5, 0, 9], None), base=None, client_id="b")
    assert status == 200 and done["over"]
    status, history = call(module_server, "GET", path, secret=ann["secret"])
    (match,) = history["matches"]
    assert (match["kind"], match["rated"], match["code"]) == ("table", False, code)
    assert match["sheet"] == done["sheet"]
    assert match["places"] == done["places"]
    assert [(p["name"], p["profile"]) for p in match["players"]] == [
        ("Alice", None),
        ("Bob", ann["id"]),
        ("Cleo", None),
    ]
    assert call(module_server, "GET", path)[1]["matches"][0]["code"] is None  # the link is the owner's
    status, stats = call(module_server, "GET", f"/api/profiles/{ann['id']}/stats")
    assert (stats["matches"], stats["rounds"], stats["races_won"]) == (1, 2, 0)
    assert stats["rating"]["matches"] == 0
    assert call(module_server, "GET", "/api/leaderboard") == (200, leaders)


def test_a_sheet_files_into_no_profile_without_its_owners_secret(module_server: Any) -> None:
    """Naming Ann's public id on a new sheet needs Ann's secret: without one (or with
    Mallory's) the sheet is refused and nothing reaches Ann's history or statistics; with
    hers the finished match is filed there as with ``me``."""
    ann = call(module_server, "POST", "/api/profiles", {"name": "Ann", "symbol": "sun"})[1]
    mallory = call(module_server, "POST", "/api/profiles", {"name": "Mallory", "symbol": "moon"})[1]
    hers = [{**p, "profile": ann["id"]} if p["name"] == "Bob" else p for p in PLAYERS]
    done = {"players": hers, "options": {"match_end": "rounds:1"}}
    for secret, status, code in ((None, 401, "bad_profile"), (mallory["secret"], 403, "not_your_profile")):
        refused = call(module_server, "POST", "/api/sheets", done, secret=secret)
        assert (refused[0], refused[1]["error"]) == (status, code) and refused[1]["message"]
    status, both = call(module_server, "POST", "/api/sheets", {**done, "me": 0}, secret=mallory["secret"])
    assert (status, both["error"]) == (403, "not_your_profile")  # her own on another seat does not help
    matches, stats = f"/api/profiles/{ann['id']}/matches", f"/api/profiles/{ann['id']}/stats"
    assert call(module_server, "GET", matches, secret=ann["secret"])[1]["total"] == 0
    assert call(module_server, "GET", stats)[1]["matches"] == 0

    status, sheet = call(module_server, "POST", "/api/sheets", done, secret=ann["secret"])
    assert status == 201 and [p["profile"] for p in sheet["players"]] == [None, ann["id"], None]
    assert put(module_server, sheet["code"], 1, entry(*SEEDS, 0), base=None, client_id="a")[0] == 200
    (match,) = call(module_server, "GET", matches, secret=ann["secret"])[1]["matches"]
    assert (match["kind"], match["code"]) == ("table", sheet["code"])
    assert call(module_server, "GET", stats)[1]["matches"] == 1


def test_each_player_links_their_own_profile_to_their_seat(module_server: Any) -> None:
    """Ann makes a sheet; Ben links his own profile to his seat with his secret (never
    with none, nor with Ann's public id as one), and a live stream sees it; no two seats
    share a profile, nobody takes or frees another's seat but the creator before the end;
    undo passes links by; the finished match is in Ben's history and statistics, and in
    Cleo's from the moment she links hers after the end, until she unlinks it.  No answer,
    event or log line ever holds a secret."""
    said: list[str] = []

    def ask(method: str, path: str, body: Any = None, secret: str | None = None) -> tuple[int, Any]:
        status, answer = call(module_server, method, path, body, secret=secret)
        said.append(json.dumps(answer))
        return status, answer

    ann, ben, cleo = (
        ask("POST", "/api/profiles", {"name": name, "symbol": "sun"})[1] for name in ("Ann", "Ben", "Cleo")
    )
    said.clear()  # each answer of its own creation holds its secret, by design
    rules = {"match_end": "rounds:1"}
    status, sheet = ask("POST", "/api/sheets", {"players": PLAYERS, "me": 0, "options": rules}, ann["secret"])
    assert status == 201 and sheet["creator"] == ann["id"]
    code = sheet["code"]
    stream = SheetStream(module_server, code)
    seat = f"/api/sheets/{code}/players/{{}}/profile".format

    def profiles(body: dict[str, Any]) -> list[str | None]:
        return [player["profile"] for player in body["players"]]

    # Refused, nothing changed: no secret, a public id for one, no such seat or sheet.
    for secret in (None, ben["id"], ann["id"]):
        status, refused = ask("PUT", seat(1), secret=secret)
        assert (status, refused["error"]) == (401, "bad_profile"), refused
    for text in ("3", "12", "-1", "1.0", "%D9%A1", "1e0", "%201", "+1"):
        status, refused = ask("PUT", seat(text), secret=ben["secret"])
        assert (status, refused["error"]) == (404, "no_seat"), (text, refused)
    status, refused = ask("PUT", "/api/sheets/nosuchsheetcode0/players/1/profile", secret=ben["secret"])
    assert (status, refused["error"]) == (404, "no_sheet")
    assert ask("GET", f"/api/sheets/{code}") == (200, sheet)

    # Ben links his own: version 1, on the live stream; again is the same answer.
    status, linked = ask("PUT", seat(1), secret=ben["secret"])
    assert status == 200 and profiles(linked) == [ann["id"], ben["id"], None] and linked["version"] == 1
    assert linked["changes"][0] | {"at": 0} == {
        **{"n": 1, "round": 0, "by": "Ben", "at": 0, "kind": "link", "before": None, "after": None},
        **{"undoes": None, "seat": 1, "profile": ben["id"]},
    }
    assert stream.until(1)[1] == linked
    assert ask("PUT", seat(1), secret=ben["secret"]) == (200, linked)
    for who, method, where, status, error in (
        (ben, "PUT", 2, 409, "already_seated"),
        (ann, "PUT", 1, 409, "seat_taken"),
        (cleo, "PUT", 0, 409, "seat_taken"),
        (cleo, "DELETE", 1, 403, "not_your_profile"),
    ):
        refused = ask(method, seat(where), secret=who["secret"])
        assert (refused[0], refused[1]["error"]) == (status, error) and refused[1]["message"], refused
    assert ask("DELETE", seat(2), secret=cleo["secret"]) == (200, linked)  # nobody there: nothing to unlink

    # Undo passes the link by; Ann, the creator, frees Ben's seat before the end.
    assert put(module_server, code, 1, entry(*SEEDS, 0), base=None, client_id="r1")[0] == 200
    status, undone = ask("POST", f"/api/sheets/{code}/undo", {"by": "Ann", "id": "u1"})
    assert status == 200 and undone["rounds"] == [] and profiles(undone)[1] == ben["id"]
    status, freed = ask("DELETE", seat(1), secret=ann["secret"])
    assert status == 200 and profiles(freed)[1] is None and freed["changes"][-1]["kind"] == "unlink"
    assert ask("PUT", seat(1), secret=ben["secret"])[0] == 200

    # The end: in Ben's history and statistics; Ann may not take it out of his.
    matches, stats = "/api/profiles/{}/matches".format, "/api/profiles/{}/stats".format
    status, over = put(module_server, code, 1, entry(*SEEDS, 0), base=None, client_id="r2")
    assert status == 200 and over["over"]
    (match,) = ask("GET", matches(ben["id"]), secret=ben["secret"])[1]["matches"]
    assert (match["kind"], match["code"], match["rated"]) == ("table", code, False)
    assert [p["profile"] for p in match["players"]] == [ann["id"], ben["id"], None]
    assert ask("GET", stats(ben["id"]))[1]["matches"] == 1
    refused = ask("DELETE", seat(1), secret=ann["secret"])
    assert (refused[0], refused[1]["error"]) == (403, "not_your_profile")

    # Cleo links hers after the end: filed in her history at once; unlinked, out again.
    for method, filed in (("PUT", 1), ("DELETE", 0)):
        status, now = ask(method, seat(2), secret=cleo["secret"])
        assert status == 200 and profiles(now)[2] == (cleo["id"] if filed else None)
        assert ask("GET", matches(cleo["id"]), secret=cleo["secret"])[1]["total"] == filed
        assert ask("GET", stats(cleo["id"]))[1]["matches"] == filed
    assert ask("GET", stats(ben["id"]))[1]["matches"] == 1
    assert stream.until(now["version"])[1] == now and now["version"] == 8

    secrets = [profile["secret"] for profile in (ann, ben, cleo)]
    told = [*said, module_server.log_text()]
    assert not [secret for secret in secrets if any(secret in text for text in told)]
