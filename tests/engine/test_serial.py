"""JSON forms of states, actions and recorded rounds, replay, and the text notation."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from ligretto.engine import (
    PRESETS,
    Action,
    Card,
    Place,
    Play,
    Round,
    RoundRecord,
    RuleSet,
    Source,
    Turn,
    Vote,
    Withdraw,
    format_position,
    parse_position,
    replay,
    state_from_dict,
    state_to_dict,
)
from ligretto.engine.notation import NotationError
from ligretto.engine.serial import FormatError, action_from_dict, action_to_dict, result_to_dict

# --- random play -------------------------------------------------------------------------


def _bad_actions(game: Round, seat: int) -> list[Action]:
    """Actions that are refused (or at least may be): they belong in a log too."""
    other = (seat + 1) % game.players
    return [
        Play(seat, Source.ROW, 47, 0),
        Play(seat, Source.STACK, None),
        Play(seat, Source.ROW, 0, 0, card=Card.parse("r5", other)),
        Play(seat, Source.DISCARD, 0, card=Card.parse("b10", seat)),
        Place(seat, Source.STACK, 0),
        Place(seat, Source.ROW, 0),
        Withdraw(seat),
        Play(game.players + 1, Source.ROW, None, 0),
    ]


def _pick(game: Round, rng: random.Random, refusals: bool = True) -> Action:
    """A random action: mostly legal (turning and placing often), sometimes a refused one."""
    seat = rng.randrange(game.players)
    if refusals and rng.random() < 0.08:
        return rng.choice(_bad_actions(game, seat))
    legal = [a for a in game.legal_actions(seat) if not isinstance(a, (Vote, Withdraw))]
    if not legal:
        return Turn(seat)
    places = [a for a in legal if isinstance(a, Place)]
    if places and rng.random() < 0.8:
        return rng.choice(places)
    plays = [a for a in legal if isinstance(a, Play)]
    if plays and rng.random() < 0.5:
        play = rng.choice(plays)
        if rng.random() < 0.5:  # name the card meant, as a client would
            area = game.areas[seat]
            pile = {Source.ROW: area.row[play.position], Source.STACK: area.stack, Source.DISCARD: area.discard}
            play = Play(seat, play.source, play.pile, play.position, game.card(seat, pile[play.source][-1]))
        return play
    return Turn(seat) if Turn(seat) in legal else rng.choice(legal)


def _play(game: Round, rng: random.Random, steps: int, refusals: bool = True) -> list[Any]:
    """Apply up to ``steps`` random actions (stopping when the round ends); the results."""
    results = []
    for _ in range(steps):
        if game.over:
            break
        results.append(game.apply(_pick(game, rng, refusals)))
    return results


def _dealt(preset: str, players: int, seed: int, stage: str) -> Round:
    """A dealt round: ``fresh``, ``mid`` (some way in, with a vote cast) or ``finished``."""
    game = Round.deal(RuleSet.preset(preset), players, seed)
    rng = random.Random(f"serial:{preset}:{seed}")
    if stage == "mid":
        for _ in range(120):  # play on, but never the action that would end the round
            action = _pick(game, rng)
            trial = game.copy()
            trial.apply(action)
            if not trial.over:
                game.apply(action)
        assert not game.over
        game.apply(Vote(players - 1))
    elif stage == "finished":
        _play(game, rng, 5000)
        assert game.over
    return game


def _without(data: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k not in keys}


STAGES = ["fresh", "mid", "finished"]


# --- complete states ---------------------------------------------------------------------


@pytest.mark.parametrize("stage", STAGES)
@pytest.mark.parametrize("preset", list(PRESETS))
def test_state_round_trip(preset: str, stage: str) -> None:
    game = _dealt(preset, 3, 21, stage)
    data = state_to_dict(game)
    text = json.dumps(data)
    again = state_from_dict(json.loads(text))
    assert state_to_dict(again) == data
    assert json.dumps(state_to_dict(again)) == text
    assert again.ending == game.ending and again.stopped_by == game.stopped_by
    for seat in range(3):
        assert again.legal_actions(seat) == game.legal_actions(seat)
    if stage == "mid":
        assert again.areas[2].voted
        assert any(area.recycles > 0 for area in again.areas)  # the shuffle counter survives
        assert any(area.discard for area in again.areas)


def test_expert_state_with_columns_round_trips() -> None:
    game = _dealt("expert", 2, 4, "mid")
    assert any(len(column) >= 2 for area in game.areas for column in area.row)
    again = state_from_dict(json.loads(json.dumps(state_to_dict(game))))
    assert [area.row for area in again.areas] == [area.row for area in game.areas]
    assert state_to_dict(again) == state_to_dict(game)


@pytest.mark.parametrize("preset", list(PRESETS))
def test_a_restored_state_plays_on_identically(preset: str) -> None:
    game = _dealt(preset, 3, 8, "mid")
    again = state_from_dict(json.loads(json.dumps(state_to_dict(game))))
    rng = random.Random(f"continue:{preset}")
    for _ in range(600):
        if game.over:
            break
        action = _pick(game, rng)
        assert result_to_dict(again.apply(action)) == result_to_dict(game.apply(action)), action
        for seat in range(3):
            assert again.legal_actions(seat) == game.legal_actions(seat)
    assert state_to_dict(again) == state_to_dict(game)


def test_state_to_dict_is_plain_json() -> None:
    game = _dealt("classic", 2, 3, "mid")
    data = state_to_dict(game)
    assert data["version"] == 1
    assert data["players"] == 2 and data["seed"] == 3
    assert data["rules"] == RuleSet().to_dict()
    assert all(isinstance(c, str) for area in data["areas"] for c in area["hand"])
    assert len(data["log"]) == len(game.log)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"version": 2}, "unsupported state version"),
        ({"players": "abc"}, "not a valid state"),
        ({"rules": {"row_size": 9}}, "not a valid state"),
        ({"areas": 5}, "not a valid state"),
        ({"center": [{"colour": "q", "seats": [0]}]}, "not a valid state"),
    ],
)
def test_bad_state_raises_format_error(change: dict[str, Any], message: str) -> None:
    data = {**state_to_dict(Round.deal(RuleSet(), 2, 1)), **change}
    with pytest.raises(FormatError, match=message):
        state_from_dict(data)


def test_a_state_missing_a_key_raises_format_error() -> None:
    data = state_to_dict(Round.deal(RuleSet(), 2, 1))
    del data["areas"][0]["hand"]
    with pytest.raises(FormatError, match="hand"):
        state_from_dict(data)


# --- recorded rounds and replay ----------------------------------------------------------


@pytest.mark.parametrize("preset", list(PRESETS))
@pytest.mark.parametrize(("players", "seed"), [(2, 1), (4, 2)])
def test_replay_reproduces_state_and_events(preset: str, players: int, seed: int) -> None:
    game = Round.deal(RuleSet.preset(preset), players, seed)
    rng = random.Random(f"record:{preset}:{seed}")
    results = _play(game, rng, 5000)
    assert game.over
    results += [game.apply(a) for a in (Turn(0), Vote(1))]  # refused after the end, still logged
    assert sum(1 for r in results if not r.ok) >= 5
    record = RoundRecord.of(game)
    assert len(record.actions) == len(results)
    text = json.dumps(record.to_dict())
    restored = RoundRecord.from_dict(json.loads(text))
    assert restored.to_dict() == record.to_dict()
    assert restored.actions == record.actions
    again, replayed = replay(restored)
    assert state_to_dict(again) == state_to_dict(game)
    assert [result_to_dict(r) for r in replayed] == [result_to_dict(r) for r in results]


def test_replay_of_a_round_in_progress() -> None:
    game = Round.deal(RuleSet.preset("seed-es"), 3, 77)
    results = _play(game, random.Random(77), 90)
    assert not game.over
    again, replayed = replay(RoundRecord.from_dict(json.loads(json.dumps(RoundRecord.of(game).to_dict()))))
    assert state_to_dict(again) == state_to_dict(game)
    assert [result_to_dict(r) for r in replayed] == [result_to_dict(r) for r in results]


def test_record_to_dict() -> None:
    record = RoundRecord(RuleSet.preset("seed-es"), 3, 5, [Turn(0), Play(1, Source.ROW, None, 2), Vote(2)])
    assert record.to_dict() == {
        "version": 1,
        "rules": RuleSet.preset("seed-es").to_dict(),
        "players": 3,
        "seed": 5,
        "actions": [
            {"type": "turn", "player": 0},
            {"type": "play", "player": 1, "source": "row", "position": 2, "pile": None},
            {"type": "vote", "player": 2},
        ],
    }


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"version": 7}, "unsupported record version"),
        ({"seed": None}, "not a valid round record"),
        ({"actions": [{"type": "jump", "player": 0}]}, "unknown action type"),
    ],
)
def test_bad_record_raises_format_error(change: dict[str, Any], message: str) -> None:
    data = {**RoundRecord(RuleSet(), 2, 1, [Turn(0)]).to_dict(), **change}
    with pytest.raises(FormatError, match=message):
        RoundRecord.from_dict(data)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"players": "abc"}, "abc"),
        ({"rules": {"row_size": 9}}, "row_size"),
    ],
)
def test_bad_record_values_raise_format_error_like_bad_states(change: dict[str, Any], message: str) -> None:
    """A record with a non-numeric player count or a bad rule option is "JSON that does not
    describe a valid record" (FormatError's contract), as it is for a state."""
    state = {**state_to_dict(Round.deal(RuleSet(), 2, 1)), **change}
    with pytest.raises(FormatError, match=message):
        state_from_dict(state)
    data = {**RoundRecord(RuleSet(), 2, 1, [Turn(0)]).to_dict(), **change}
    with pytest.raises(FormatError, match=message):
        RoundRecord.from_dict(data)


# --- actions -----------------------------------------------------------------------------

EVERY_ACTION: list[Action] = [
    Play(0, Source.ROW, None, 2),
    Play(1, Source.ROW, 5, 0),
    Play(2, Source.STACK, 3),
    Play(2, Source.DISCARD, None),
    Play(3, Source.DISCARD, 0, card=Card.parse("r5", 3)),
    Play(0, Source.ROW, 4, 1, card=Card.parse("b10", 7)),  # somebody else's card: refused, but writable
    Play(11, Source.STACK, 47, card=Card.parse("g1", 11)),
    Turn(3),
    Place(1, Source.STACK, 2),
    Place(0, Source.DISCARD, 0, card=Card.parse("y9", 0)),
    Place(4, Source.ROW, 1),  # a bad source is refused by the engine, not by the format
    Vote(5),
    Withdraw(11),
]


@pytest.mark.parametrize("action", EVERY_ACTION, ids=repr)
def test_action_round_trip(action: Action) -> None:
    data = action_to_dict(action)
    assert action_from_dict(json.loads(json.dumps(data))) == action
    assert data["player"] == action.player


def test_action_dict_forms() -> None:
    assert action_to_dict(Play(0, Source.ROW, None, 2)) == {
        "type": "play",
        "player": 0,
        "source": "row",
        "position": 2,
        "pile": None,
    }
    assert action_to_dict(Turn(1)) == {"type": "turn", "player": 1}
    assert action_to_dict(Withdraw(2)) == {"type": "withdraw", "player": 2}
    assert action_to_dict(Place(0, Source.DISCARD, 3, Card.parse("y9", 0))) == {
        "type": "place",
        "player": 0,
        "source": "discard",
        "column": 3,
        "card": "y9",
    }
    assert action_to_dict(Play(0, Source.STACK, 1, card=Card.parse("r2", 2)))["owner"] == 2
    assert action_from_dict({"type": "play", "player": 1, "source": "STACK", "pile": 0}) == Play(1, Source.STACK, 0)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], "must be a JSON object"),
        ("play", "must be a JSON object"),
        (None, "must be a JSON object"),
        ({"type": "jump", "player": 0}, "unknown action type 'jump'"),
        ({"player": 0}, "unknown action type None"),
        ({"type": "turn"}, "'player' must be an integer"),
        ({"type": "vote", "player": "0"}, "'player' must be an integer"),
        ({"type": "withdraw", "player": True}, "'player' must be an integer"),
        ({"type": "play", "player": 0, "source": "hand", "pile": None}, "unknown source 'hand'"),
        ({"type": "play", "player": 0, "pile": None}, "unknown source None"),
        ({"type": "place", "player": 0, "source": "center", "column": 0}, "unknown source 'center'"),
        ({"type": "play", "player": 0, "source": "row", "pile": None}, "'position' must be an integer"),
        ({"type": "play", "player": 0, "source": "stack", "pile": "2"}, "'pile' must be a pile number or null"),
        ({"type": "play", "player": 0, "source": "stack", "pile": True}, "'pile' must be a pile number or null"),
        ({"type": "place", "player": 0, "source": "stack"}, "'column' must be an integer"),
        ({"type": "play", "player": 0, "source": "stack", "pile": 0, "card": "x5"}, "unknown colour 'x'"),
        ({"type": "play", "player": 0, "source": "stack", "pile": 0, "card": "r11"}, "number must be 1-10"),
        ({"type": "play", "player": 0, "source": "stack", "pile": 0, "card": "red"}, "bad card 'red'"),
        ({"type": "play", "player": 0, "source": "stack", "pile": 0, "card": 5}, "'card' must be written like"),
        ({"type": "place", "player": 0, "source": "stack", "column": 0, "card": "r5", "owner": 12}, "'owner'"),
    ],
)
def test_bad_actions_raise_format_error(data: Any, message: str) -> None:
    with pytest.raises(FormatError) as caught:
        action_from_dict(data)
    assert message in str(caught.value)
    assert isinstance(caught.value, ValueError)


# --- the notation ------------------------------------------------------------------------


def _position_state(game: Round) -> dict[str, Any]:
    """The position: the state without the log and the per-seat bookkeeping counters
    (``moves``, ``recycles``), which the notation does not write."""
    data = _without(state_to_dict(game), "log")
    data["areas"] = [_without(area, "moves", "recycles") for area in data["areas"]]
    return data


@pytest.mark.parametrize("players", [2, 5, 12])
@pytest.mark.parametrize("preset", list(PRESETS))
def test_notation_round_trip_of_a_fresh_deal(preset: str, players: int) -> None:
    game = Round.deal(RuleSet.preset(preset), players, 31)
    text = format_position(game)
    again = parse_position(text, game.rules, game.seed)
    assert _without(state_to_dict(again), "log") == _without(state_to_dict(game), "log")
    assert format_position(again) == text


@pytest.mark.parametrize("stage", ["mid", "finished"])
@pytest.mark.parametrize("preset", list(PRESETS))
def test_notation_round_trip_during_play(preset: str, stage: str) -> None:
    game = _dealt(preset, 3, 12, stage)
    text = format_position(game)
    again = parse_position(text, game.rules, game.seed)
    assert _position_state(again) == _position_state(game)
    assert format_position(again) == text
    for seat in range(3):
        assert again.legal_actions(seat) == game.legal_actions(seat)


def test_notation_round_trip_of_expert_columns() -> None:
    game = _dealt("expert", 2, 4, "mid")
    text = format_position(game)
    assert ">" in text
    again = parse_position(text, game.rules, game.seed)
    assert [area.row for area in again.areas] == [area.row for area in game.areas]
    assert _position_state(again) == _position_state(game)


WRITTEN = """
center: r:0,0,1 g:1
0: row r5 g2 b7 | stack y3 b1 | discard b4 | hand *
1: row r4 y9>g8 b2 | stack b9 | discard | hand *
voted: 0
ending: stop 1
"""


def test_notation_of_a_written_position() -> None:
    game = parse_position(WRITTEN, RuleSet(expert=True))
    assert game.pile_colours == [0, 1] and game.pile_seats == [[0, 0, 1], [1]]
    assert [area.voted for area in game.areas] == [True, False]
    assert game.ending is not None and game.ending.value == "stop" and game.stopped_by == 1
    hand = game.areas[0].hand
    assert hand == sorted(hand) and len(hand) == 40 - 2 - 3 - 2 - 1
    again = parse_position(format_position(game), game.rules)
    assert _without(state_to_dict(again), "log") == _without(state_to_dict(game), "log")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # a card twice
        ("0: row r5 g2 | stack r5 | hand *\n1: row r5 g2 | hand *", "r5 appears twice"),
        ("center: r:0\n0: row r1 g2 | hand *\n1: row r5 g2 | hand *", "r1 appears twice"),
        ("center: g:1,1 g:1\n0: row r1 g2 | hand *\n1: row r5 b2 | hand *", "g1 appears twice"),
        ("0: row r5 g2 | hand r1 r1\n1: row r5 g2 | hand *", "appears twice"),
        # cards missing
        ("0: row r5 g2 | stack y1 | hand r1 r2\n1: row r5 g2 | hand *", "cards missing"),
        ("0: row r5 g2 | stack y1 | hand *\n1: row r5 g2 | hand b3", "cards missing"),
        # bad seats
        ("0: row r5 | hand *\n2: row r5 | hand *", "without gaps"),
        ("1: row r5 | hand *\n2: row r5 | hand *", "without gaps"),
        ("center: r:0,2\n0: row r5 | hand *\n1: row r5 | hand *", "names seat 2"),
        ("center: r:0,-1\n0: row r5 | hand *\n1: row r5 | hand *", "names seat -1"),
        # other shapes
        ("center: r\n0: row r5 | hand *\n1: row r5 | hand *", "bad pile"),
        ("center: r:0,0,0,0,0,0,0,0,0,0,0\n0: row r5 | hand *\n1: row r5 | hand *", "more than 10"),
        ("0: stack r5 | hand *\n1: row r5 | hand *", "expected 'row"),
        ("0: row r5 | pocket r6 | hand *\n1: row r5 | hand *", "expected 'row"),
        ("0 row r5 | hand *\n1: row r5 | hand *", "no 'name:'"),
    ],
)
def test_notation_errors(text: str, message: str) -> None:
    with pytest.raises(NotationError) as caught:
        parse_position(text)
    assert message in str(caught.value)


@pytest.mark.parametrize(
    "text",
    [
        "0: row r5 | hand *\n1: row r5 | hand *\nvoted: 0 2",
        "0: row r5 | hand *\n1: row r5 | stack | hand *\nending: stop 3",
    ],
    ids=["voted", "ending"],
)
def test_notation_bad_seat_in_the_voted_and_ending_lines(text: str) -> None:
    """Seat 2 or 3 at a table of two is a bad seat wherever it is named."""
    with pytest.raises(NotationError, match="seat"):
        parse_position(text)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("center:\nx: y\n0: row r1 | stack r2\n1: row r1 | stack r2", "unknown line 'x'"),
        ("center:\n0: row x5 | stack r2\n1: row r1 | stack r2", "unknown colour 'x'"),
        ("center:\n0: row r1 | stack r2\n1: row r1 | stack r2\nending: foo", "unknown ending 'foo'"),
    ],
)
def test_notation_other_errors_are_notation_errors(text: str, message: str) -> None:
    with pytest.raises(NotationError, match=message):
        parse_position(text)


def test_notation_keeps_recycle_counts_so_shuffles_continue_identically() -> None:
    rules = RuleSet()
    game = Round.deal(rules, 2, seed=21)
    while game.areas[0].recycles < 2:
        game.apply(Turn(0))
    text = format_position(game)
    assert f"recycles: {game.areas[0].recycles} 0" in text
    again = parse_position(text, rules, seed=21)
    assert [a.recycles for a in again.areas] == [a.recycles for a in game.areas]
    for _ in range(30):
        assert result_to_dict(again.apply(Turn(0))) == result_to_dict(game.apply(Turn(0)))
