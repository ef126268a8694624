"""The round on the wire is the engine's JSON form, typed: events, views and score sheets
of seeded random rounds (every preset, 2-12 seats, expert placements, refusals, votes)
give, as structs, exactly what ``serial.event_to_dict``, ``RoundView.to_dict`` and
``ScoreSheet.to_dict`` write."""

from __future__ import annotations

import random

import msgspec
import pytest

from ligretto import protocol
from ligretto.engine import PRESETS, Applied, Refused, Round, RuleSet, Vote, Withdraw
from ligretto.engine.actions import Play, Source
from ligretto.engine.events import Reason
from ligretto.engine.scoring import ScoreSheet
from ligretto.engine.serial import event_to_dict
from ligretto.engine.views import view

SEATS = (2, 3, 5, 12)


def play(rules: RuleSet, players: int, seed: int) -> tuple[Round, set[str]]:
    """A random round to its end, each event and view checked against the engine's JSON;
    the event types it showed."""
    rng = random.Random(seed)
    game = Round.deal(rules, players, seed)
    kinds: set[str] = set()
    while game.ending is None and len(game.log) < 5000:
        seat = rng.randrange(players)
        legal = game.legal_actions(seat)
        if rng.random() > 0.01:
            legal = [a for a in legal if not isinstance(a, (Vote, Withdraw))]
        if not legal:
            continue
        action = rng.choice(legal)
        if rng.random() < 0.05:  # now and then a play that does not fit: refused
            action = Play(seat, Source.STACK, 0)
        result = game.apply(action)
        if isinstance(result, Refused):
            ack = protocol.ack_message(3, result)
            assert msgspec.to_builtins(ack) == {"type": "ack", "id": 3, "applied": False, **_refusal(result)}
            continue
        assert isinstance(result, Applied)
        for event in result.events:
            wire = msgspec.to_builtins(protocol.event_message(event))
            assert wire == event_to_dict(event)
            kinds.add(wire["type"])
        if len(game.log) % 25 == 0:
            viewer = rng.choice([None, *range(players)])
            assert msgspec.to_builtins(protocol.view_message(view(game, viewer))) == view(game, viewer).to_dict()
    return game, kinds


def _refusal(result: Refused) -> dict[str, str]:
    return {"reason": result.reason.value, "message": result.reason.text}


@pytest.mark.parametrize("preset", PRESETS)
def test_events_and_views_are_the_engines_json(preset: str) -> None:
    kinds: set[str] = set()
    for players in SEATS:
        game, shown = play(RuleSet.preset(preset), players, seed=players * 101)
        kinds |= shown
        final = view(game, 0)
        assert msgspec.to_builtins(protocol.view_message(final)) == final.to_dict()
    assert {"card_played", "row_refilled", "pile_started", "hand_turned", "round_stopped"} <= kinds


def test_every_event_type_is_built() -> None:
    kinds: set[str] = set()
    for seed in range(6):
        _, shown = play(RuleSet.preset("expert"), 2 + seed, seed)
        kinds |= shown
        _, shown = play(RuleSet.preset("seed-es"), 2 + seed, seed)
        kinds |= shown
    game = Round.deal(RuleSet(), 3, 1)
    for action in (Vote(0), Withdraw(0)):
        result = game.apply(action)
        assert isinstance(result, Applied)
        for event in result.events:
            wire = msgspec.to_builtins(protocol.event_message(event))
            assert wire == event_to_dict(event)
            kinds.add(wire["type"])
    every = {cls.__struct_config__.tag for cls in protocol.EVENT_MESSAGES}
    assert kinds == every


def test_the_score_sheet_is_the_engines_json() -> None:
    sheet = ScoreSheet(3)
    for seed in range(3):
        game, _ = play(RuleSet(), 3, seed)
        sheet.add(game)
    assert msgspec.to_builtins(protocol.sheet_message(sheet)) == sheet.to_dict()


def test_an_applied_ack_says_nothing_else() -> None:
    assert msgspec.to_builtins(protocol.ack_message("a-1", Applied(()))) == {
        "type": "ack",
        "id": "a-1",
        "applied": True,
    }
    refused = protocol.ack_message(7, Refused(Reason.DOES_NOT_FIT), by=2)
    assert msgspec.to_builtins(refused)["by"] == 2
