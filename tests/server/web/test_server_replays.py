"""Replays over HTTP on a real server: a play-now round with two ``smart:machine`` bots is
played to its end while a spectator watches; its share token comes in ``round_over`` and
in no message before; its replay (by that token, read from the store's file while the
round is played) is refused while it is played (``round_not_over``) and served after:
the viewer's answer is exactly what the spectator was sent (the deal's snapshot, every
action's events and race, the scores), the file verifies with ``ligretto replay
--verify-only`` and a copy with one action changed is refused naming that action.  No
answer holds a hidden card.  A wrong token is not found."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from ligretto.replay import decode, verify
from ligretto.testkit.scans import card_mentions, hidden_keys
from racedeals import raced_replay

PLAY_NOW = {"bots": ["smart:machine"] * 2, "seats": 3, "start": True, "options": {"match_end": "rounds:1"}}


def replay_path(token: str, what: str = "") -> str:
    return f"/api/replays/{token}{what}"


def stored_token(server: Any, code: str) -> str:
    """The share token the store's file keeps for the table's round 1 of match 1."""
    db = sqlite3.connect(f"file:{server.db}?mode=ro", uri=True)
    try:
        found = db.execute("SELECT share FROM rounds WHERE code = ? AND match = 1 AND number = 1", (code,)).fetchone()
    finally:
        db.close()
    assert found is not None and found[0], "the round is stored with its token when it is dealt"
    token: str = found[0]
    return token


@pytest.fixture(scope="module")
def played(module_server: Any) -> dict[str, Any]:
    """The round played to its end: the spectator's messages, the answers asked while it
    was played and after."""
    server = module_server
    status, table = server.http("POST", "/api/tables", PLAY_NOW)
    assert status == 201, table
    code = table["code"]

    async def scenario() -> dict[str, Any]:
        watcher = await server.client("watcher").watch(code)
        ann = await server.client("Ann").join(code)
        await ann.wait_for("snapshot")
        token = stored_token(server, code)
        during = [server.http("GET", replay_path(token, end)) for end in ("", "/file")]
        await ann.wait_for("go", timeout=5)
        during += [server.http("GET", replay_path(token, end)) for end in ("", "/file")]
        await ann.play_to_end()
        over = await watcher.wait_for("round_over", timeout=30)
        await ann.wait_for("round_over", timeout=30)
        await asyncio.sleep(0.2)  # the store commits on the loop's next turn
        await ann.close()
        await watcher.close()
        return {
            "code": code,
            "token": token,
            "seen": watcher.messages,
            "ann": ann.messages,
            "over": over,
            "during": during,
        }

    result: dict[str, Any] = asyncio.run(asyncio.wait_for(scenario(), 90))
    status, result["answer"] = server.http("GET", replay_path(result["token"]))
    assert status == 200, result["answer"]
    with urllib.request.urlopen(server.url + replay_path(result["token"], "/file"), timeout=10) as response:
        result["file"] = response.read()
        result["disposition"] = response.headers["Content-Disposition"]
    return result


def test_a_round_being_played_is_refused_and_an_unknown_one_is_not_found(
    played: dict[str, Any], module_server: Any
) -> None:
    assert len(played["during"]) == 4
    for status, body in played["during"]:
        assert status == 409 and body["error"] == "round_not_over", body
        assert "still being played" in body["message"]
    wrong = played["token"][:-1] + ("A" if played["token"][-1] != "A" else "B")
    for path in (
        replay_path(wrong),
        replay_path(wrong, "/file"),
        replay_path(played["code"]),  # the invite code leads to no replay
        f"/api/replays/{played['code']}/1/1",  # nor do the match and round numbers
    ):
        status, body = module_server.http("GET", path)
        assert status == 404, (path, body)
    status, body = module_server.http("GET", replay_path(wrong))
    assert body["error"] == "no_round" and "replay link" in body["message"]


def test_the_token_comes_in_round_over_and_in_no_message_before(played: dict[str, Any]) -> None:
    token = played["token"]
    assert played["over"]["replay"] == token
    for label in ("seen", "ann"):
        messages = played[label]
        first = next(i for i, m in enumerate(messages) if m["type"] == "round_over")
        assert messages[first]["replay"] == token
        before = json.dumps(messages[:first])
        assert token not in before, f"{label} was told the token before the round was over"


def test_the_viewers_answer_is_what_a_spectator_was_sent(played: dict[str, Any]) -> None:
    answer, seen = played["answer"], played["seen"]
    snapshot = next(m for m in seen if m["type"] == "snapshot")
    assert answer["snapshot"] == snapshot and answer["snapshot"]["view"]["viewer"] is None
    sent_events = [m for m in seen if m["type"] == "events"]
    assert [step["events"] for step in answer["steps"] if "events" in step] == sent_events
    sent_races = [(m["pile"], m["winner"], m["loser"]) for m in seen if m["type"] == "race"]
    replayed = [(s["race"]["pile"], s["race"]["winner"], s["race"]["loser"]) for s in answer["steps"] if "race" in s]
    assert replayed == sent_races
    over = played["over"]
    assert answer["end"]["scores"] == [line["score"] for line in over["scores"]]
    assert answer["end"]["ending"] == over["ending"] and answer["end"]["stopped_by"] == over["stopped_by"]
    assert [p["bot"] for p in answer["players"]] == ["smart:machine", "smart:machine", None]
    # Every action has its seat and its time from "go", in order.
    times = [step["t"] for step in answer["steps"]]
    assert all(t is not None and t >= 0 for t in times), times[:5]
    assert times == sorted(times), times
    assert 0 < times[-1] < 600, times[-5:]  # seconds from "go", not from the epoch
    assert len(answer["steps"]) == len(json.loads(played["file"])["actions"])


def test_a_replay_does_not_hand_out_the_tables_invite_code(played: dict[str, Any]) -> None:
    assert (played["answer"]["match"], played["answer"]["round"]) == (1, 1)
    assert played["code"] not in json.dumps(played["answer"])
    assert played["code"].encode() not in played["file"] and played["code"] not in played["disposition"]


def test_no_replay_answer_holds_a_hidden_card(played: dict[str, Any]) -> None:
    answer = played["answer"]
    assert hidden_keys(answer) == []
    for message in [answer["snapshot"], *(step["events"] for step in answer["steps"] if "events" in step)]:
        _, stray = card_mentions(message)
        assert stray == [], stray
    # Each step's events name only cards face up before that step (a card played) or after
    # it (a card uncovered), as the engine shows a spectator.
    verified = verify(decode(played["file"]))
    boards = [verified.dealt, *(frame.board for frame in verified.frames)]
    for k, step in enumerate(answer["steps"]):
        shown = json.dumps(boards[k].to_dict()) + json.dumps(boards[k + 1].to_dict())
        owned, _ = card_mentions(step.get("events") or {"type": "events", "events": []})
        assert all(f'"{card}"' in shown for _, card in owned), (k, owned)


def test_the_file_verifies_and_one_action_changed_is_refused_naming_it(played: dict[str, Any], tmp_path: Path) -> None:
    text = played["file"]
    doc = json.loads(text)
    assert played["disposition"] == 'attachment; filename="ligretto-replay-1-1.json"'
    assert doc["round"] is None, "a shared replay does not name the table's invite code"
    path = tmp_path / "round.json"
    path.write_bytes(text)
    command = [sys.executable, "-m", "ligretto", "replay", "--verify-only"]
    ok = subprocess.run([*command, str(path)], check=False, capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.startswith(f"verified: {len(doc['actions'])} actions")
    # One play changed to another row position: the engine answers otherwise there.
    index = next(i for i, step in enumerate(doc["actions"]) if step["action"]["type"] == "turn")
    doc["actions"][index]["action"] = {"type": "vote", "player": doc["actions"][index]["seat"]}
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(doc))
    refused = subprocess.run([*command, str(tampered)], check=False, capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2
    assert f"action {index} " in refused.stderr, refused.stderr


def test_a_lost_race_is_the_race_a_spectator_was_sent() -> None:
    answer = raced_replay()
    steps = answer["steps"]
    assert [step["t"] for step in steps] == [0.5, 1.25, 1.5]
    assert steps[0]["events"]["seq"] == 0 and steps[1]["events"]["by"] == 0
    pile = steps[0]["events"]["events"][0]["pile"]
    assert steps[2] == {
        "t": 1.5,
        "seat": 1,
        "race": {"type": "race", "round": 1, "pile": pile, "winner": 0, "loser": 1},
    }
    assert answer["end"] == {"ending": None, "stopped_by": None, "scores": answer["end"]["scores"]}
    assert answer["snapshot"]["view"]["viewer"] is None and hidden_keys(answer) == []


def test_a_play_refused_well_after_the_card_that_took_its_place_is_no_race() -> None:
    """251 ms after Ann's 2, Bob's is too late: no race, as the table told nobody of one;
    the stored ranks decide where there are (a far Bob ranked 200 ms after Ann raced her,
    though his card came 500 ms later; ranked 300 ms after, he did not)."""
    steps = raced_replay(lost_at=102.501)["steps"]
    assert steps[2] == {"t": 1.501, "seat": 1}
    assert "race" in raced_replay(lost_at=102.75, ranks=(102.05, 102.25))["steps"][2]
    assert "race" not in raced_replay(lost_at=102.4, ranks=(102.05, 102.35))["steps"][2]
