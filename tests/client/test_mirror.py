"""The client's round model (ligretto.client.mirror) against the engine: after every
recorded event it equals the engine's own view, and it says where a card goes as the
engine's legal plays do."""

from __future__ import annotations

import copy

import pytest
from recorded_streams import PRESETS, Stream, as_seen_by, record

from ligretto.client.mirror import NEW_PILE, Mirror, face, wire_pile
from ligretto.engine import RuleSet
from ligretto.engine.actions import Play
from ligretto.engine.state import Round
from ligretto.engine.views import view


def replay(stream: Stream, seat: int | None) -> Mirror:
    """Replay a stream through a strict model, checking it after every step."""
    mirror = Mirror.from_view(as_seen_by(stream.snapshot, seat), strict=True)
    for number, step in enumerate(stream.steps):
        if "snapshot" in step:
            mirror = Mirror.from_view(as_seen_by(step["snapshot"], seat), strict=True)
            continue
        mirror.apply(copy.deepcopy(step["events"]))
        assert mirror.problems == [], (stream.name, number)
        assert mirror.to_dict() == as_seen_by(step["view"], seat), (stream.name, number)
    return mirror


@pytest.mark.parametrize("preset", PRESETS)
def test_the_model_follows_every_preset_for_a_seat_and_a_spectator(preset: str) -> None:
    stream = record(preset, 3, 5)
    assert len(stream.steps) > 20
    replay(stream, stream.seat)
    replay(stream, None)


@pytest.mark.parametrize("players", [2, 7, 12])
def test_the_model_follows_races_and_reconnections(players: int) -> None:
    stream = record("classic", players, 40 + players, reconnect_every=13)
    assert stream.refusals > 0  # some plays lost a race: refused, no events
    assert any("snapshot" in step for step in stream.steps)
    replay(stream, stream.seat)


def test_the_expert_variant_places_cards_on_columns() -> None:
    stream = record("expert", 2, 9, max_steps=600)
    placed = [e for step in stream.steps for e in step.get("events", []) if e["type"] == "card_placed"]
    assert placed
    mirror = replay(stream, 1)
    assert any(len(column) > 1 for area in mirror.areas for column in area.row) or mirror.ending is not None


def test_where_a_card_goes_agrees_with_the_engines_legal_plays() -> None:
    for seed in range(6):
        game = Round.deal(RuleSet.preset("classic"), 4, seed)
        for step in range(300):
            if game.over:
                break
            mirror = Mirror.from_view(view(game, 0).to_dict())
            legal = [a for a in game.legal_actions(0) if type(a) is Play]
            for source, position, card in mirror.areas[0].playable():
                piles = [a.pile for a in legal if a.source.name.lower() == source and a.position == position]
                assert [wire_pile(p) for p in mirror.piles_for(card)] == piles
                target = mirror.target_pile(card)
                assert target == (None if not piles else NEW_PILE if piles[0] is None else piles[0])
            game.apply(game.legal_actions(step % 4)[0])


def test_no_pile_new_pile_and_a_pile_are_told_apart() -> None:
    game = Round.deal(RuleSet.preset("classic"), 2, 3)
    mirror = Mirror.from_view(view(game, 0).to_dict())
    assert mirror.target_pile("g1") == NEW_PILE
    assert wire_pile(NEW_PILE) is None
    assert mirror.target_pile("g2") is None  # no green pile yet
    mirror.apply([{"type": "pile_started", "pile": 0, "colour": "green"}])
    mirror.center[0].top = 1
    assert mirror.target_pile("g2") == 0
    assert wire_pile(0) == 0


def test_a_column_takes_one_lower_of_another_colour() -> None:
    assert Mirror.goes_on("r4", ["g9", "b5"])
    assert not Mirror.goes_on("r4", ["r5"])
    assert not Mirror.goes_on("r4", [])


def test_strict_mode_reports_an_event_the_view_did_not_allow() -> None:
    game = Round.deal(RuleSet.preset("classic"), 2, 1)
    mirror = Mirror.from_view(view(game, 0).to_dict(), strict=True)
    top = mirror.areas[1].row[0][-1]
    wrong = "r5" if top != "r5" else "b5"
    mirror.apply([{"type": "card_played", "player": 1, "card": wrong, "source": "row", "position": 0,
                   "pile": 3, "new_pile": False, "uncovered": None}])  # fmt: skip
    assert mirror.problems is not None and len(mirror.problems) == 2  # not that card; no such pile
    lenient = Mirror.from_view(view(game, 0).to_dict())
    lenient.apply([{"type": "some_future_event"}])
    assert lenient.problems is None and lenient.to_dict() == view(game, 0).to_dict()


def test_a_card_is_written_as_on_the_wire() -> None:
    assert face("r1") == 0 and face("b10") == 39
    with pytest.raises(ValueError, match="bad card"):
        face("x")
