"""The replay file (``ligretto.replay.file``): what a played round's document holds, its
bytes round-trip, and bytes that are not a replay document are refused clearly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from replayrounds import NAMES, played_doc

from ligretto.engine import Round, RuleSet, score_round
from ligretto.engine.rules import PRESETS
from ligretto.engine.scoring import round_seed
from ligretto.engine.serial import action_from_dict, action_to_dict
from ligretto.engine.views import view
from ligretto.replay import (
    APPLIED,
    FORMAT,
    VERSION,
    ReplayError,
    ReplayFormatError,
    decode,
    describe,
    digest,
    encode,
    verify,
    write_round,
)
from ligretto.replay.file import End


def test_a_played_round_is_written_with_every_action_its_answer_and_board() -> None:
    doc = played_doc(seed=7)
    rules = RuleSet.from_dict(doc.rules)
    game = Round.deal(rules, 3, 7)
    assert doc.format == FORMAT and doc.version == VERSION
    assert doc.players == 3 and [s.name for s in doc.seats] == NAMES
    assert [(s.back.box, s.back.symbol) for s in doc.seats] == [("red", "sun"), ("red", "moon"), ("red", "star")]
    assert doc.deal == digest(game, 0)
    answers = set()
    for index, step in enumerate(doc.actions):
        action = action_from_dict(step.action)
        result = game.apply(action)
        answers.add(step.answer)
        assert step.seat == action.player
        assert step.action == action_to_dict(action)
        assert step.t == pytest.approx(0.25 * index)
        assert step.answer == (APPLIED if result.ok else result.reason.value)  # type: ignore[union-attr]
        assert step.state == digest(game, index + 1)
    assert APPLIED in answers and len(answers) > 1, "a bots' round has refused plays too"
    assert game.outcome is not None and doc.end.ending == game.outcome.ending.value
    assert doc.end.stopped_by == game.outcome.stopped_by
    assert doc.end.actions == len(doc.actions)
    assert doc.end.scores == [line.score for line in score_round(game)]


def test_the_digest_is_of_the_spectator_view_and_the_count() -> None:
    game = Round.deal(RuleSet(), 2, 3)
    first = digest(game, 0)
    assert len(first) == 12 and int(first, 16) >= 0
    assert digest(game, 1) != first, "the count of actions is part of the digest"
    other = Round.deal(RuleSet(), 2, 4)
    if view(other, None).to_dict() != view(game, None).to_dict():
        assert digest(other, 0) != first
    game.areas[0].hand.reverse()  # the hand's order is hidden: no spectator sees it change
    assert digest(game, 0) == first


def test_every_rule_option_round_trips() -> None:
    for preset in PRESETS:
        doc = played_doc(seed=11, preset=preset)
        again = decode(encode(doc))
        assert again == doc
        assert RuleSet.from_dict(again.rules) == RuleSet.from_dict(PRESETS[preset])


def test_the_seed_is_the_rounds_own_never_the_matchs() -> None:
    seed = round_seed(99, 2)
    doc = write_round(RuleSet(), ["A", "B"], seed, [])
    assert doc.seed == seed != 99
    assert doc.end == End(None, None, 0, [-20, -20], [0, 0], [10, 10]), "no card played, 10 left at -2 each"


def test_the_bytes_are_one_json_document_with_format_and_version() -> None:
    data = json.loads(encode(played_doc()))
    assert data["format"] == "ligretto-replay" and data["version"] == 1
    assert list(data) == ["format", "version", "rules", "players", "seats", "seed", "deal", "actions", "end", "round"]
    assert set(data["actions"][0]) == {"seat", "t", "action", "answer", "state"}


@pytest.mark.parametrize(
    ("data", "says"),
    [
        (b"not json", "not a replay file"),
        (b"[1, 2]", "not a replay file"),
        (b'{"format": "something-else", "version": 1}', "'format' must be 'ligretto-replay'"),
        (b'{"format": "ligretto-replay", "version": 2}', "replay version 2"),
        (b'{"format": "ligretto-replay", "version": 1}', "missing required field"),
    ],
)
def test_what_is_not_a_replay_document_is_refused_clearly(data: bytes, says: str) -> None:
    with pytest.raises(ReplayFormatError, match=says):
        decode(data)


def test_a_field_of_the_wrong_type_or_unknown_is_refused_naming_it() -> None:
    data = json.loads(encode(played_doc()))
    data["actions"][3]["t"] = "soon"
    with pytest.raises(ReplayFormatError, match=r"actions\[3\]\.t"):
        decode(json.dumps(data).encode())
    data = json.loads(encode(played_doc()))
    data["secret"] = 1
    with pytest.raises(ReplayFormatError, match="secret"):
        decode(json.dumps(data).encode())


def test_no_hidden_card_is_in_the_file_beyond_what_its_seed_deals() -> None:
    """The file holds actions and public boards' digests: no hand order, no stack below
    its top, written out (the seed deals them, as it must for a replay)."""
    data = json.loads(encode(played_doc()))
    assert {"hand", "stack", "areas"}.isdisjoint(data)
    for step in data["actions"]:
        assert set(step["action"]) <= {"type", "player", "source", "position", "pile", "column", "card", "owner"}


def test_the_example_of_the_docs_verifies_and_its_error_line_is_the_engines() -> None:
    text = (Path(__file__).resolve().parents[2] / "docs" / "clients.md").read_text()
    section = text.split("### Replays: `ligretto replay FILE`", 1)[1]
    example = section.split("```json\n", 1)[1].split("```", 1)[0]
    verified = verify(decode(example.encode()))
    assert [frame.answer for frame in verified.frames] == ["applied", "applied", "does_not_fit"]
    data = json.loads(example)
    data["actions"][2]["answer"] = "applied"
    with pytest.raises(ReplayError) as caught:
        verify(decode(json.dumps(data).encode()))
    line = section.split("ligretto replay: error: round.json: ", 1)[1].split("\n", 1)[0]
    assert str(caught.value) == line
    shown = section.split("after each action (*", 1)[1].split("*)", 1)[0].replace("\n", " ")
    second = verified.frames[1]
    assert shown.startswith(f"action 1 at 0.400 s: {describe(second.action, second.card, 'Ann')}")
