"""Verifying a replay file against the engine (``ligretto.replay.verify``): a real round
verifies; each kind of tampering is refused naming the first action that does not replay."""

from __future__ import annotations

import json
from typing import Any

import pytest
from replayrounds import played_doc

from ligretto.engine import Round, RuleSet
from ligretto.engine.views import view
from ligretto.replay import APPLIED, ReplayDoc, ReplayError, decode, encode, verify


@pytest.fixture(scope="module")
def doc() -> ReplayDoc:
    return played_doc(seed=7)


def tampered(doc: ReplayDoc) -> dict[str, Any]:
    """The document as plain JSON, to change."""
    data: dict[str, Any] = json.loads(encode(doc))
    return data


def check(data: dict[str, Any]) -> None:
    verify(decode(json.dumps(data).encode()))


def first_index(doc: ReplayDoc, answer: str | None = None, *, refused: bool = False) -> int:
    """The first action (after the opening few) with that answer, or refused."""
    for index, step in enumerate(doc.actions):
        if index > 3 and (step.answer == answer or (refused and step.answer != APPLIED)):
            return index
    raise AssertionError("no such action in the round")


def test_a_real_round_verifies_and_every_frame_is_the_spectator_view(doc: ReplayDoc) -> None:
    verified = verify(decode(encode(doc)))
    assert len(verified.frames) == len(doc.actions)
    game = Round.deal(RuleSet.from_dict(doc.rules), doc.players, doc.seed)
    assert verified.dealt == view(game, None)
    for frame in verified.frames:
        game.apply(frame.action)
        assert frame.board == view(game, None)
        assert frame.board.viewer is None
    last = verified.frames[-1].board
    assert last.outcome is not None and last.outcome.ending.value == doc.end.ending
    assert verified.summary().startswith(f"verified: {len(doc.actions)} actions, outcome {doc.end.ending}")


def test_an_action_changed_is_refused_naming_it(doc: ReplayDoc) -> None:
    data = tampered(doc)
    index = next(i for i, s in enumerate(doc.actions) if i > 10 and s.action["type"] == "play" and s.answer == APPLIED)
    data["actions"][index]["action"]["pile"] = None if data["actions"][index]["action"]["pile"] is not None else 0
    with pytest.raises(ReplayError, match=rf"^action {index} \(at {0.25 * index:.3f} s\), seat \d plays") as caught:
        check(data)
    assert caught.value.index == index and caught.value.t == pytest.approx(0.25 * index)
    assert "the file says applied" in str(caught.value) and "the engine says" in str(caught.value)


def test_an_answer_changed_is_refused_naming_it(doc: ReplayDoc) -> None:
    index = first_index(doc, refused=True)
    data = tampered(doc)
    data["actions"][index]["answer"] = APPLIED
    with pytest.raises(ReplayError, match=rf"^action {index} .* the file says applied .* the engine says") as caught:
        check(data)
    assert caught.value.index == index
    assert doc.actions[index].answer in str(caught.value)


def test_a_digest_changed_is_refused_naming_it(doc: ReplayDoc) -> None:
    data = tampered(doc)
    data["actions"][20]["state"] = "000000000000"
    answer, state = doc.actions[20].answer, doc.actions[20].state
    says = rf"^action 20 .*the file says {answer} \(board 000000000000\), the engine says {answer} \(board {state}\)"
    with pytest.raises(ReplayError, match=says) as caught:
        check(data)
    assert caught.value.index == 20


def test_a_missing_action_is_refused_at_its_place(doc: ReplayDoc) -> None:
    for index in (5, first_index(doc, refused=True)):  # an applied one, and one that changed no board
        data = tampered(doc)
        del data["actions"][index]
        with pytest.raises(ReplayError, match=rf"^action {index} ") as caught:
            check(data)
        assert caught.value.index == index


def test_the_last_action_missing_is_refused_at_the_end(doc: ReplayDoc) -> None:
    data = tampered(doc)
    data["actions"].pop()
    with pytest.raises(ReplayError, match=r"^the end does not replay") as caught:
        check(data)
    assert caught.value.index is None


def test_an_extra_action_is_refused_naming_it(doc: ReplayDoc) -> None:
    data = tampered(doc)
    data["actions"].insert(9, dict(data["actions"][8]))
    with pytest.raises(ReplayError, match=r"^action 9 ") as caught:
        check(data)
    assert caught.value.index == 9
    data = tampered(doc)
    extra = dict(data["actions"][-1], answer="round_over")
    data["actions"].append(extra)
    last = len(data["actions"]) - 1
    with pytest.raises(ReplayError, match=rf"^action {last} .*after the round ended"):
        check(data)


def test_a_bad_seed_or_rule_set_is_refused_at_the_deal(doc: ReplayDoc) -> None:
    data = tampered(doc)
    data["seed"] += 1
    with pytest.raises(ReplayError, match=r"^the deal does not replay \(seed or rules changed\)") as caught:
        check(data)
    assert caught.value.index is None
    data = tampered(doc)
    data["rules"]["row_size"] = "nine"
    with pytest.raises(ReplayError, match="the file's rules are not valid"):
        check(data)


def test_an_end_changed_is_refused(doc: ReplayDoc) -> None:
    data = tampered(doc)
    data["end"]["scores"][0] += 5
    with pytest.raises(ReplayError, match=r"^the end does not replay .*the file says .*the engine says"):
        check(data)


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda d: d["actions"][4].update(seat=(d["actions"][4]["seat"] + 1) % 3), r"^action 4 .*is by seat \d but"),
        (lambda d: d["actions"][4]["action"].update(type="dance"), r"^action 4 .*is not an action: unknown action"),
        (lambda d: d["actions"][4].update(seat=3, action={"type": "turn", "player": 3}), r"^action 4 .*no such seat"),
        (lambda d: d["actions"][4]["action"].update(note="hi"), r"^action 4 .*not written as the store writes it"),
        (lambda d: d["actions"][4].update(t=-1.0), r"^action 4 .*comes before"),
        (lambda d: d["actions"][4].update(t=d["actions"][3]["t"] - 0.1), r"^action 4 .*comes before"),
        (lambda d: d.update(players=13), "'players' must be 2-12"),
        (lambda d: d["seats"].pop(), "3 players but 2 seats"),
        (lambda d: d["seats"][1]["back"].update(symbol="heart"), "seat 1 has the back red heart"),
        (lambda d: d.update(seed=-5), "'seed' must be 0 or more"),
    ],
)
def test_a_malformed_document_is_refused_clearly(doc: ReplayDoc, change: Any, says: str) -> None:
    data = tampered(doc)
    change(data)
    with pytest.raises(ReplayError, match=says):
        check(data)


def test_times_may_be_unknown(doc: ReplayDoc) -> None:
    data = tampered(doc)
    for step in data["actions"]:
        step["t"] = None
    verified = verify(decode(json.dumps(data).encode()))
    assert all(frame.t is None for frame in verified.frames)
    data["actions"][6]["state"] = "ffffffffffff"
    with pytest.raises(ReplayError, match=r"^action 6 \(at an unknown time\)"):
        check(data)


def test_the_summary_prints_no_control_character_of_a_name(doc: ReplayDoc) -> None:
    data = tampered(doc)
    stopper = doc.end.stopped_by
    assert stopper is not None
    data["seats"][stopper]["name"] = "Cy\x1b[2J"
    summary = verify(decode(json.dumps(data).encode())).summary()
    assert f"by seat {stopper} (Cy[2J)" in summary and "\x1b" not in summary
