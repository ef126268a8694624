"""The runnable examples of docs/simulator.md's "Research" chapter, as the doc shows them:
the learner trained by ``docs/examples/train_policy.py`` learns, and the script that enters
your own bot in a server table plays its round over the protocol to the end."""

from __future__ import annotations

import json
import re
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest

import ligretto.client
from ligretto.protocol import RoundOver
from realserver import ServerProcess, running

ROOT = Path(__file__).resolve().parents[2]


def doc_block(heading: str) -> str:
    """The first Python block of docs/simulator.md after ``heading``."""
    doc = (ROOT / "docs" / "simulator.md").read_text(encoding="utf-8")
    return doc.split(f"\n{heading}\n", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]


def test_the_docs_own_bot_plays_a_server_round_over_the_protocol(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The script of "Entering your own bot in a table over the protocol", run as it is
    against a real ``ligretto serve``: it makes its table, takes the third seat, plays the
    round out at a person's pace and prints the round's end; its seat put cards in the
    center, and what it printed is what the server scored (and kept in the round's replay)."""
    script = doc_block("### Entering your own bot in a table over the protocol")
    heard: list[Any] = []

    class Listening(ligretto.client.Session):
        """The script's session, keeping what the server sent for the test to read."""

        def receive(self, raw: str | bytes) -> Any:
            message = super().receive(raw)
            heard.append(message)
            return message

    monkeypatch.setattr(ligretto.client, "Session", Listening)
    with running(ServerProcess.in_folder(tmp_path)) as server:
        monkeypatch.setattr(sys, "argv", ["my_seat.py", server.url])
        exec(compile(script, "docs/simulator.md", "exec"), {"__name__": "__main__"})
        over = [message for message in heard if isinstance(message, RoundOver)]
        assert len(over) == 1, over
        ending = over[0]
        with urllib.request.urlopen(f"{server.url}/api/replays/{ending.replay}") as reply:
            replay = json.load(reply)
    printed = capsys.readouterr().out
    match = re.fullmatch(r"round over: (\w+) totals (\[.*\]) my seat (\d+)\n", printed)
    assert match, printed
    assert (match[1], json.loads(match[2]), int(match[3])) == (ending.ending, ending.totals, 2)
    assert ending.ending in ("stop", "stalemate") and ending.match_over
    mine = ending.scores[2]
    assert mine.center > 0
    assert ending.totals[2] == mine.score == mine.center - 2 * mine.stack
    # the round as the server kept it: every seat's plays are its cards in the center, the
    # bot's among them, and its scores are those the script was sent
    played = [0] * 3
    for step in replay["steps"]:
        for event in step.get("events", {}).get("events", []):
            if event["type"] == "card_played":
                played[event["player"]] += 1
    assert played == [line.center for line in ending.scores]
    assert replay["end"]["scores"] == [line.score for line in ending.scores] == ending.totals
    assert [player["bot"] for player in replay["players"]] == ["smart:casual", "greedy:casual", None]
