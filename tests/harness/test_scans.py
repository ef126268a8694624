"""The stress harness's scans: a whole round's view loses no card; one card gone or one too
many is counted; no frame of a real race names a hidden card (judged against the engine's
replay from the server's database, while it runs and after), and a planted one is counted.
The real race is the races scenario's (``harness/races.py``), checked here too: contested
plays, no card lost, every acknowledged play where it was played."""

from __future__ import annotations

import asyncio
import copy
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ligretto.engine.actions import Action
from ligretto.engine.rules import RuleSet
from ligretto.engine.serial import action_from_dict
from ligretto.engine.state import Round
from ligretto.engine.views import view
from ligretto.harness.races import run_races
from ligretto.harness.scenario import ScenarioReport
from ligretto.server.records.readonly import stored_rounds
from ligretto.testkit.scans import Frame, HiddenScan, cards_lost, hidden_cards_sent
from positions import play_some
from realserver import ServerProcess, running


def _view_of_a_played_round(players: int, seed: int, rules: RuleSet | None = None) -> dict[str, Any]:
    return view(play_some(rules or RuleSet(), players, seed, 80), None).to_dict()


def test_every_card_of_a_played_round_is_in_its_view() -> None:
    for players in (2, 4, 12):
        played = _view_of_a_played_round(players, players)
        assert sum(len(pile["backs"]) for pile in played["center"]) > 0
        assert cards_lost(played) == 0
    assert cards_lost(_view_of_a_played_round(3, 7, RuleSet.preset("expert"))) == 0


def test_a_card_missing_or_extra_is_counted() -> None:
    whole = _view_of_a_played_round(4, 1)
    missing = copy.deepcopy(whole)
    missing["areas"][2]["hand_size"] -= 1
    assert cards_lost(missing) == 1
    extra = copy.deepcopy(whole)
    extra["center"].append({"index": 99, "colour": "red", "top": 1, "backs": [3]})
    assert cards_lost(extra) == 1


# --- hidden cards sent, against a real server's database ---------------------------------


@dataclass
class Raced:
    db: Path
    frames: list[Frame]
    scan_while_running: HiddenScan
    report: ScenarioReport
    healthy_after: bool


@pytest.fixture(scope="module")
def raced(tmp_path_factory: pytest.TempPathFactory) -> Raced:
    """The races scenario (``harness/races.py``) at two tables of three real WebSocket
    clients (and a spectator each) for 6 s; its frames scanned while the server still runs,
    and the database kept.  One run for the scenario's own test and the scans' tests."""
    folder = tmp_path_factory.mktemp("raced")
    with running(ServerProcess.in_folder(folder)) as server:
        assert server.process is not None
        report = asyncio.run(run_races(server.url, tables=2, players=3, seconds=6.0, server_pid=server.pid))
        healthy = server.healthy()
        scan = hidden_cards_sent(server.db, report.frames)
    return Raced(server.db, report.frames, scan, report, healthy)


def test_racers_contest_the_same_piles_and_nothing_is_lost(raced: Raced) -> None:
    """Real clients at real tables all aim for the lowest pile at once, so plays are
    contested and refused as beaten to it; no card is lost, every acknowledged play is where
    it was played, nothing crashes, no frame names a hidden card."""
    report, scan = raced.report, raced.scan_while_running
    assert raced.healthy_after
    details = report.details
    assert report.tried > 0, details  # plays refused because another seat got there first
    beaten = details["refusals"].get("does_not_fit", 0) + details["refusals"].get("pile_complete", 0)
    assert details["applied_plays"] > 0 and beaten >= report.tried, details
    assert (report.crashes, report.cards_lost, report.acks_lost) == (0, 0, 0), details
    assert details["views_checked"] >= 2 * (3 + 1 + 1), details  # each racer, spectator, newcomer
    assert (details["mirror_problems"], details["ack_timeouts"], details["closed_by_server"]) == (0, 0, 0), details
    assert details["tables_never_started"] == 0, details
    assert report.rss_before and report.rss_after
    assert scan.frames_scanned == len(report.frames) > 0 and scan.cards_checked > 0
    assert (scan.hidden_cards, scan.leaks, scan.unplaced) == (0, 0, 0), scan.problems
    assert not report.failures


def _round_of(db: Path, code: str, number: int) -> tuple[Round, list[Action]]:
    """Round ``number`` of table ``code`` as dealt, and its recorded actions."""
    (stored,) = stored_rounds(db)[(code, number)]
    return Round.deal(stored.rules, stored.players, stored.seed), [action_from_dict(a) for a in stored.actions]


def _first(raced: Raced, test: Any) -> tuple[Frame, dict[str, Any]]:
    return next((f, m) for f in raced.frames if test(f, m := json.loads(f.text)))


def test_no_frame_of_a_real_race_names_a_hidden_card(raced: Raced) -> None:
    scan = raced.scan_while_running
    kinds = {json.loads(f.text)["type"] for f in raced.frames}
    assert {"snapshot", "events", "ack", "table"} <= kinds
    assert scan.frames_scanned == len(raced.frames) > 0
    assert scan.cards_checked > 100, "too few cards checked to mean anything"
    assert (scan.hidden_cards, scan.leaks, scan.unplaced) == (0, 0, 0), scan.problems
    # After the server stopped, the same.
    after = hidden_cards_sent(raced.db, raced.frames)
    assert (after.hidden_cards, after.leaks, after.cards_checked) == (0, 0, scan.cards_checked)


def test_a_planted_hidden_card_in_a_snapshot_is_counted(raced: Raced) -> None:
    # Seat 0's first snapshot of round 1 is the deal: the second card of its Ligretto
    # stack is face down then, for everyone, its owner included.
    frame, message = _first(raced, lambda f, m: m["type"] == "snapshot" and f.seat == 0 and m["round"] == 1)
    game, _actions = _round_of(raced.db, frame.code, 1)
    second = str(game.card(0, game.areas[0].stack[-2]))
    assert message["view"]["areas"][0]["stack_top"] != second
    message["view"]["areas"][0]["stack_top"] = second
    planted = Frame(frame.code, frame.seat, json.dumps(message))
    scan = hidden_cards_sent(raced.db, [*raced.frames, planted])
    assert (scan.hidden_cards, scan.unplaced) == (1, 0), scan.problems
    assert "HIDDEN" in scan.problems[0]


def test_a_planted_hand_card_in_an_events_frame_is_counted(raced: Raced) -> None:
    # A turn names only the new discard top; a card still in the turner's hand is hidden.
    frame, message = _first(raced, lambda f, m: m["type"] == "events" and m["events"][-1]["type"] == "hand_turned")
    game, actions = _round_of(raced.db, frame.code, message["round"])
    for action in actions[: message["seq"] + 1]:
        game.apply(action)
    turned = message["events"][-1]
    assert game.areas[turned["player"]].hand, "a hand emptied by the first turn?"
    turned["discard_top"] = str(game.card(turned["player"], game.areas[turned["player"]].hand[0]))
    planted = Frame(frame.code, frame.seat, json.dumps(message))
    scan = hidden_cards_sent(raced.db, [planted])
    assert (scan.frames_scanned, scan.hidden_cards, scan.unplaced) == (1, 1, 0), scan.problems


def test_strays_hidden_keys_and_frames_that_fit_no_moment_are_counted(raced: Raced) -> None:
    frame, message = _first(raced, lambda f, m: m["type"] == "events")
    beyond = {**message, "seq": 10**6}
    table_frame, table = _first(raced, lambda f, m: m["type"] == "table")
    planted = [
        Frame(frame.code, frame.seat, json.dumps(beyond)),
        Frame(table_frame.code, None, json.dumps({**table, "note": "r5"})),
        Frame(table_frame.code, None, json.dumps({**table, "seed": 12345})),
        Frame("NO-SUCH-TABLE", None, frame.text),
    ]
    scan = hidden_cards_sent(raced.db, planted)
    assert (scan.unplaced, scan.stray_cards, scan.hidden_keys, scan.unknown_rounds) == (1, 1, 1, 1), scan
    assert scan.leaks == 3
