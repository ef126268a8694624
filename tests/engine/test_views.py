"""What a player or a spectator may see (RULES.md §9).

Public: every row card, the top and size of every Ligretto stack, the top and size of
every discard pile, every hand's size and every center pile.  Hidden from everyone, the
owner included: any hand card (and the hand's order), any stack card below the top and
any discard card below the top.

Cards are unique per seat only (every deck has its own r5), so a card is identified by
``(seat, face)``: a view names a seat's cards in that seat's area.
"""

from __future__ import annotations

import dataclasses
import json
import random
import re
from typing import Any

import pytest

from ligretto.engine import (
    PRESETS,
    Back,
    Card,
    Colour,
    Ending,
    Outcome,
    Play,
    Round,
    RoundView,
    RuleSet,
    Source,
    Turn,
    Vote,
    Withdraw,
    parse_position,
    view,
)
from ligretto.engine.cards import face_text
from ligretto.engine.views import AreaView, PileView

CARD_TEXT = re.compile(r"\b[rgyb](?:10|[1-9])\b")
"""A card as the views write it: colour letter and number."""

# Seat 0 has r1 (pile 0) and b1 b2 (pile 2) in the center, seat 1 has r2 r3 (pile 0) and g1.
VIEWED = """
center: r:0,1,1 g:1 b:0,0
0: row r5 g2 b7 | stack y3 b5 | discard b4 y9 | hand *
1: row r4 y9 b3 | stack b9 | discard | hand *
voted: 1
"""

# Expert variant: columns of several cards (bottom first, the last one exposed).
VIEWED_EXPERT = """
center: r:0
0: row y9>g8>r7 b6 g10>b9 | stack r2 | hand *
1: row b10 g5>r4 y3 | stack b9 b8 | discard g6 | hand *
"""

# Seat 0's last stack card is a 1: playing it is a Stop.
STOPPING = """
center:
0: row r5 g2 b7 | stack y1 | hand *
1: row r4 y9 b3 | stack b9 b8 | hand *
"""


def card(seat: int, text: str) -> Card:
    return Card.parse(text, seat)


def test_view_of_a_position() -> None:
    game = parse_position(VIEWED)
    seen = view(game, 0)
    assert seen.viewer == 0
    assert seen.players == 2
    assert seen.areas[0] == AreaView(
        seat=0,
        back=Back.for_seat(0),
        row=((card(0, "r5"),), (card(0, "g2"),), (card(0, "b7"),)),
        stack_top=card(0, "b5"),
        stack_size=2,
        discard_top=card(0, "y9"),
        discard_size=2,
        hand_size=40 - 3 - 2 - 2 - 3,
        voted=False,
    )
    assert seen.areas[1] == AreaView(
        seat=1,
        back=Back.for_seat(1),
        row=((card(1, "r4"),), (card(1, "y9"),), (card(1, "b3"),)),
        stack_top=card(1, "b9"),
        stack_size=1,
        discard_top=None,
        discard_size=0,
        hand_size=40 - 3 - 1 - 3,
        voted=True,
    )
    b0, b1 = Back.for_seat(0), Back.for_seat(1)
    assert seen.center == (
        PileView(0, Colour.RED, 3, (b0, b1, b1)),
        PileView(1, Colour.GREEN, 1, (b1,)),
        PileView(2, Colour.BLUE, 2, (b0, b0)),
    )
    assert seen.ending is None and seen.stopped_by is None
    assert seen.outcome is None


def test_view_to_dict_of_a_position() -> None:
    data = view(parse_position(VIEWED), None).to_dict()
    json.dumps(data)
    assert data["viewer"] is None
    assert data["areas"][0] == {
        "seat": 0,
        "back": {"box": "red", "symbol": "sun"},
        "row": [["r5"], ["g2"], ["b7"]],
        "stack_top": "b5",
        "stack_size": 2,
        "discard_top": "y9",
        "discard_size": 2,
        "hand_size": 30,
        "voted": False,
    }
    assert data["areas"][1]["back"] == {"box": "red", "symbol": "moon"}
    assert data["areas"][1]["discard_top"] is None
    assert data["areas"][1]["hand_size"] == 33
    assert data["center"] == [
        {"index": 0, "colour": "red", "top": 3, "backs": [0, 1, 1]},
        {"index": 1, "colour": "green", "top": 1, "backs": [1]},
        {"index": 2, "colour": "blue", "top": 2, "backs": [0, 0]},
    ]


def test_view_shows_whole_expert_columns() -> None:
    game = parse_position(VIEWED_EXPERT, RuleSet(expert=True))
    data = view(game, 1).to_dict()
    assert data["areas"][0]["row"] == [["y9", "g8", "r7"], ["b6"], ["g10", "b9"]]
    assert data["areas"][1]["row"] == [["b10"], ["g5", "r4"], ["y3"]]
    assert data["areas"][1]["stack_top"] == "b8"
    assert data["areas"][1]["discard_top"] == "g6"
    assert view(game, 1).areas[0].row[0] == (card(0, "y9"), card(0, "g8"), card(0, "r7"))


def test_view_of_a_finished_round() -> None:
    game = parse_position(VIEWED)
    game.apply(Vote(0))  # seat 1 had voted already
    data = view(game, 1).to_dict()
    assert data["ending"] == "stalemate_vote"
    assert data["stopped_by"] is None
    assert [a["voted"] for a in data["areas"]] == [True, True]


def test_view_of_a_stop() -> None:
    game = parse_position(
        """
        center:
        0: row r5 | stack g1 | hand *
        1: row r6 | stack b9 | hand *
        """
    )
    game.apply(Play(0, Source.STACK, None))
    data = view(game, None).to_dict()
    assert data["ending"] == "stop"
    assert data["stopped_by"] == 0
    assert data["areas"][0]["stack_top"] is None
    assert data["areas"][0]["stack_size"] == 0
    assert data["center"] == [{"index": 0, "colour": "green", "top": 1, "backs": [0]}]


@pytest.mark.parametrize("viewer", [-1, 2, 12])
def test_no_view_for_a_seat_that_is_not_at_the_table(viewer: int) -> None:
    with pytest.raises(ValueError, match="seat"):
        view(parse_position(VIEWED), viewer)


# --- nothing hidden ever leaks -----------------------------------------------------------


def _hidden(game: Round, seat: int) -> set[str]:
    area = game.areas[seat]
    return {face_text(f) for f in (*area.hand, *area.stack[:-1], *area.discard[:-1])}


def _visible(game: Round, seat: int) -> set[str]:
    area = game.areas[seat]
    faces = [f for column in area.row for f in column] + area.stack[-1:] + area.discard[-1:]
    return {face_text(f) for f in faces}


def _cards_in(value: Any) -> list[Card]:
    """Every Card object inside a view (dataclasses and tuples, recursively)."""
    if isinstance(value, Card):
        return [value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [c for f in dataclasses.fields(value) for c in _cards_in(getattr(value, f.name))]
    if isinstance(value, (tuple, list)):
        return [c for item in value for c in _cards_in(item)]
    return []


def check_view(game: Round, seen: RoundView) -> None:
    data = seen.to_dict()
    text = json.dumps(data)  # what would go over the wire
    assert json.loads(text) == data
    hidden = [_hidden(game, seat) for seat in range(game.players)]
    visible = [_visible(game, seat) for seat in range(game.players)]
    for seat, area in enumerate(data["areas"]):
        assert area["seat"] == seat
        named = set(CARD_TEXT.findall(json.dumps(area)))
        leaked = named & hidden[seat]
        assert not leaked, f"view for {seen.viewer} shows hidden cards of seat {seat}: {sorted(leaked)}"
        assert named == visible[seat]  # and every visible card is shown
        state = game.areas[seat]
        assert (area["stack_size"], area["discard_size"], area["hand_size"]) == (
            len(state.stack),
            len(state.discard),
            len(state.hand),
        )
        assert area["stack_top"] == (face_text(state.stack[-1]) if state.stack else None)
        assert area["discard_top"] == (face_text(state.discard[-1]) if state.discard else None)
        assert area["row"] == [[face_text(f) for f in column] for column in state.row]
    assert [(pile["colour"][0], pile["top"], pile["backs"]) for pile in data["center"]] == [
        ("rgyb"[colour], len(seats), seats) for colour, seats in zip(game.pile_colours, game.pile_seats, strict=True)
    ]
    rest = {key: value for key, value in data.items() if key != "areas"}
    assert not CARD_TEXT.findall(json.dumps(rest)), rest
    # the view object itself (given to in-process bots) holds no hidden card either
    for shown in _cards_in(seen):
        assert face_text(shown.face) not in hidden[shown.owner], shown


def _random_states(preset: str, players: int, seed: int, steps: int) -> list[Round]:
    """Copies of a dealt round after each of ``steps`` random actions (turning often)."""
    rng = random.Random(f"views:{preset}:{players}:{seed}")
    game = Round.deal(RuleSet.preset(preset), players, seed)
    states = [game.copy()]
    for _ in range(steps):
        if game.over:
            break
        seat = rng.randrange(players)
        actions = [a for a in game.legal_actions(seat) if not isinstance(a, (Vote, Withdraw))]
        turn = [a for a in actions if isinstance(a, Turn)]
        action = turn[0] if turn and rng.random() < 0.6 else rng.choice(actions)
        assert game.apply(action).ok
        states.append(game.copy())
    return states


@pytest.mark.parametrize("preset", list(PRESETS))
@pytest.mark.parametrize(("players", "seed"), [(2, 1), (3, 2), (5, 3)])
def test_views_never_contain_a_hidden_card(preset: str, players: int, seed: int) -> None:
    states = _random_states(preset, players, seed, steps=120)
    assert sum(1 for s in states if any(len(a.discard) > 1 for a in s.areas)) > 10  # discards built up
    for game in states[::2]:
        for viewer in (None, *range(players)):
            check_view(game, view(game, viewer))


def test_the_hidden_card_check_catches_a_leak() -> None:
    """The check above would notice a view that names a hand card."""
    game = parse_position(VIEWED)
    seen = view(game, 0)
    hand_card = card(0, face_text(game.areas[0].hand[-1]))
    leaky_area = dataclasses.replace(seen.areas[0], discard_top=hand_card)
    leaky = dataclasses.replace(seen, areas=(leaky_area, seen.areas[1]))
    with pytest.raises(AssertionError, match="hidden cards of seat 0"):
        check_view(game, leaky)


# --- everyone sees the same --------------------------------------------------------------


@pytest.mark.parametrize("preset", ["classic", "seed-es", "expert"])
def test_a_players_view_differs_from_the_spectators_only_in_viewer(preset: str) -> None:
    for game in _random_states(preset, 3, 7, steps=80)[::10]:
        spectator = view(game, None)
        for seat in range(3):
            seen = view(game, seat)
            assert seen.viewer == seat
            assert seen != spectator
            assert dataclasses.replace(seen, viewer=None) == spectator
            data = seen.to_dict()
            assert data["viewer"] == seat
            assert {**data, "viewer": None} == spectator.to_dict()


def _shuffle_hidden(game: Round, rng: random.Random, hands_only: bool) -> Round:
    """The same table with every hand reordered (and, unless ``hands_only``, the cards
    under every stack top and discard top)."""
    other = game.copy()
    for area in other.areas:
        rng.shuffle(area.hand)
        if not hands_only:
            for pile in (area.stack, area.discard):
                below = pile[:-1]
                rng.shuffle(below)
                pile[:-1] = below
    return other


@pytest.mark.parametrize("hands_only", [True, False], ids=["hand-order", "all-hidden-order"])
@pytest.mark.parametrize("preset", ["classic", "expert"])
def test_views_do_not_depend_on_hidden_order(preset: str, hands_only: bool) -> None:
    rng = random.Random(99)
    changed = 0
    for game in _random_states(preset, 2, 5, steps=60)[::6]:
        other = _shuffle_hidden(game, rng, hands_only)
        changed += any(a.hand != b.hand for a, b in zip(game.areas, other.areas, strict=True))
        for viewer in (None, 0, 1):
            assert view(game, viewer) == view(other, viewer)
            assert view(game, viewer).to_dict() == view(other, viewer).to_dict()
    assert changed >= 5  # the orders really differed


def test_views_do_differ_when_a_visible_card_differs() -> None:
    """The comparison above is not vacuous: a different discard top gives a different view."""
    game = parse_position(VIEWED)
    other = game.copy()
    area = other.areas[0]
    area.discard[-1], area.hand[0] = area.hand[0], area.discard[-1]
    assert view(game, 0) != view(other, 0)
    assert view(game, 0).to_dict() != view(other, 0).to_dict()


@pytest.mark.parametrize("viewer", [None, 0, 1])
def test_the_view_shows_the_rounds_outcome(viewer: int | None) -> None:
    """``ending`` and ``stopped_by`` come from the round's one :class:`Outcome`, in the
    value and in its JSON form (the ending as its string)."""
    game = parse_position(STOPPING)
    assert view(game, viewer).outcome is None and game.outcome is None
    assert view(game, viewer).to_dict()["ending"] is None
    game.apply(Play(0, Source.STACK, None))
    assert game.outcome == Outcome(Ending.STOP, 0)
    seen = view(game, viewer)
    assert seen.outcome == game.outcome
    assert (seen.ending, seen.stopped_by) == (Ending.STOP, 0)
    data = seen.to_dict()
    assert (data["ending"], data["stopped_by"]) == ("stop", 0)
    assert list(data)[:4] == ["viewer", "players", "ending", "stopped_by"]
    json.dumps(data)
