"""The expert variant (RULES.md §7): row columns, placements, column plays and Stop."""

from __future__ import annotations

import random
from typing import Any

import pytest

from ligretto.engine import (
    Action,
    Applied,
    Card,
    Ending,
    Place,
    Play,
    Reason,
    Refused,
    Round,
    RuleSet,
    Source,
    Turn,
    Vote,
    Withdraw,
    parse_position,
    state_to_dict,
)
from ligretto.engine.cards import parse_face
from ligretto.engine.events import CardPlaced, CardPlayed, RoundStopped, RowRefilled

ROW, STACK, DISCARD = Source.ROW, Source.STACK, Source.DISCARD
EXPERT = RuleSet.preset("expert")
BASE = RuleSet()

# Seat 0: the stack top g4 fits on the red 5 (column 0), the discard top y6 on the green 7
# (column 1); nothing fits on the blue 3.  Seat 1: the stack top g2 fits on the yellow 3
# (column 0); its discard top g7 is the same colour as the green 8.  Seat 2's discard is empty.
PLACEMENTS = """
center:
0: row r5 g7 b3 | stack y9 r4 g4 | discard r8 y6 | hand *
1: row y3 g8 r6 | stack b5 g2    | discard y9 g7 | hand *
2: row b9 b8 b7 | stack r2 r3    | discard       | hand *
"""

# Seat 0's first column holds a yellow 9 under a green 8.  The green pile wants the green 8
# and the yellow pile would want the yellow 9, which is covered.
COVERED_NINE = """
center: g:1,1,1,1,1,1,1 y:1,1,1,1,1,1,1,1
0: row y9>g8 r3 | stack b4 b5 | hand *
1: row r10 b10  | stack r9 b9 | hand *
"""

# Seat 0 has one card left in the stack, and it fits on the red 5.
LAST_STACK_CARD_PLACEABLE = """
center:
0: row r5 g7 | stack g4    | hand *
1: row r1 b4 | stack b5 b6 | hand *
"""

# A column three cards deep, a red pile at 5 wanting the exposed red 6 and a blue pile at 4.
DEEP_COLUMN = """
center: r:1,1,1,1,1 b:1,1,1,1
0: row b8>y7>r6 g2 | stack b3 b4 b5 | discard | hand *
1: row g9 g10      | stack y1 y2    | discard | hand *
"""


def faces(text: str) -> list[int]:
    return [parse_face(c) for c in text.split()]


def card(text: str, seat: int) -> Card:
    return Card.parse(text, seat)


def snapshot(game: Round) -> dict[str, Any]:
    state = state_to_dict(game)
    del state["log"]
    return state


def applied(game: Round, action: Action) -> tuple[Any, ...]:
    result = game.apply(action)
    assert isinstance(result, Applied), result
    return result.events


def refused(game: Round, action: Action) -> Reason:
    before = snapshot(game)
    result = game.apply(action)
    assert isinstance(result, Refused), result
    assert snapshot(game) == before, "a refused action changes nothing"
    return result.reason


# --- placing onto a column -----------------------------------------------------------------


def test_placing_the_stack_top_onto_a_column() -> None:
    game = parse_position(PLACEMENTS, EXPERT)
    events = applied(game, Place(0, STACK, 0))
    assert events == (CardPlaced(0, card("g4", 0), STACK, 0, uncovered=card("r4", 0)),)
    area = game.areas[0]
    assert area.row == [faces("r5 g4"), faces("g7"), faces("b3")]
    assert area.stack == faces("y9 r4")
    assert area.discard == faces("r8 y6")


def test_placing_the_discard_top_onto_a_column() -> None:
    game = parse_position(PLACEMENTS, EXPERT)
    events = applied(game, Place(0, DISCARD, 1))
    assert events == (CardPlaced(0, card("y6", 0), DISCARD, 1, uncovered=card("r8", 0)),)
    area = game.areas[0]
    assert area.row == [faces("r5"), faces("g7 y6"), faces("b3")]
    assert area.discard == faces("r8")
    assert area.stack == faces("y9 r4 g4")


def test_placing_naming_the_card() -> None:
    game = parse_position(PLACEMENTS, EXPERT)
    applied(game, Place(1, STACK, 0, card=card("g2", 1)))
    assert game.areas[1].row[0] == faces("y3 g2")


def test_a_column_grows_descending_with_alternating_colours() -> None:
    game = parse_position(
        """
        center:
        0: row r5 g9 | stack y10 b2 g3 y4 | discard | hand *
        1: row r1 b4 | stack b5 b6        | discard | hand *
        """,
        EXPERT,
    )
    assert applied(game, Place(0, STACK, 0)) == (CardPlaced(0, card("y4", 0), STACK, 0, card("g3", 0)),)
    assert applied(game, Place(0, STACK, 0)) == (CardPlaced(0, card("g3", 0), STACK, 0, card("b2", 0)),)
    assert applied(game, Place(0, STACK, 0)) == (CardPlaced(0, card("b2", 0), STACK, 0, card("y10", 0)),)
    assert game.areas[0].row == [faces("r5 y4 g3 b2"), faces("g9")]
    assert game.areas[0].stack == faces("y10")
    assert game.ending is None


PLACEMENT_REFUSALS: list[tuple[Action, Reason]] = [
    (Place(0, STACK, 3), Reason.NO_SUCH_COLUMN),
    (Place(0, DISCARD, -1), Reason.NO_SUCH_COLUMN),
    (Place(1, DISCARD, 1), Reason.DOES_NOT_FIT),  # g7 on g8: same colour
    (Place(0, STACK, 2), Reason.DOES_NOT_FIT),  # g4 on b3: one higher
    (Place(0, STACK, 1), Reason.DOES_NOT_FIT),  # g4 on g7: same colour and three lower
    (Place(0, DISCARD, 0), Reason.DOES_NOT_FIT),  # y6 on r5: one higher
    (Place(1, STACK, 2), Reason.DOES_NOT_FIT),  # g2 on r6: four lower
    (Place(2, STACK, 0), Reason.DOES_NOT_FIT),  # r3 on b9
    (Place(0, ROW, 0), Reason.BAD_SOURCE),
    (Place(0, ROW, 1), Reason.BAD_SOURCE),
    (Place(2, DISCARD, 0), Reason.NO_SUCH_CARD),  # seat 2's discard pile is empty
    (Place(3, STACK, 0), Reason.NO_SUCH_PLAYER),
    (Place(0, STACK, 0, card=card("g4", 1)), Reason.NOT_YOUR_CARD),
    (Place(0, STACK, 0, card=card("r4", 0)), Reason.CARD_MOVED),  # r4 lies under the stack top
]


@pytest.mark.parametrize(("action", "reason"), PLACEMENT_REFUSALS)
def test_placement_refusals_change_nothing(action: Action, reason: Reason) -> None:
    game = parse_position(PLACEMENTS, EXPERT)
    assert refused(game, action) is reason
    if 0 <= action.player < game.players:
        assert action not in game.legal_actions(action.player)


@pytest.mark.parametrize("action", [Place(0, STACK, 0), Place(0, DISCARD, 1), Place(1, STACK, 0), Place(0, ROW, 0)])
def test_no_placement_in_the_base_game(action: Place) -> None:
    game = parse_position(PLACEMENTS, BASE)
    assert refused(game, action) is Reason.NOT_EXPERT
    assert not any(isinstance(a, Place) for a in game.legal_actions(action.player))


# --- playing from a column -----------------------------------------------------------------


def test_only_the_exposed_card_of_a_column_can_go_to_the_center() -> None:
    game = parse_position(COVERED_NINE, EXPERT)
    plays = [a for a in game.legal_actions(0) if isinstance(a, Play)]
    assert plays == [Play(0, ROW, 0, 0)], "the green 8 on the green pile; not the covered yellow 9"
    assert refused(game, Play(0, ROW, pile=1, position=0)) is Reason.DOES_NOT_FIT
    assert refused(game, Play(0, ROW, pile=1, position=0, card=card("y9", 0))) is Reason.CARD_MOVED


def test_playing_the_exposed_card_exposes_the_one_under_it() -> None:
    game = parse_position(COVERED_NINE, EXPERT)
    events = applied(game, Play(0, ROW, pile=0, position=0))
    assert events == (CardPlayed(0, card("g8", 0), ROW, 0, 0, False, uncovered=card("y9", 0)),)
    assert game.areas[0].row == [faces("y9"), faces("r3")], "the column is not empty: no refill"
    assert game.areas[0].stack == faces("b4 b5")
    # Now the yellow 9 is exposed and fits the yellow pile.
    assert Play(0, ROW, 1, 0) in game.legal_actions(0)


def test_an_emptied_column_is_refilled_from_the_stack() -> None:
    game = parse_position(COVERED_NINE, EXPERT)
    applied(game, Play(0, ROW, pile=0, position=0))
    events = applied(game, Play(0, ROW, pile=1, position=0))
    assert events == (
        CardPlayed(0, card("y9", 0), ROW, 0, 1, False, uncovered=None),
        RowRefilled(0, 0, card("b5", 0), stack_top=card("b4", 0)),
    )
    assert game.areas[0].row == [faces("b5"), faces("r3")]
    assert game.areas[0].stack == faces("b4")
    assert game.pile_seats[1] == [1] * 8 + [0]


def test_a_deep_column_is_played_down_card_by_card() -> None:
    game = parse_position(DEEP_COLUMN, EXPERT)
    events = applied(game, Play(0, ROW, pile=0, position=0))
    assert events == (CardPlayed(0, card("r6", 0), ROW, 0, 0, False, uncovered=card("y7", 0)),)
    assert game.areas[0].row[0] == faces("b8 y7")
    # y7 is exposed now; b8 under it is still out of reach.
    assert refused(game, Play(0, ROW, pile=0, position=0)) is Reason.DOES_NOT_FIT


def test_a_placed_card_can_be_played_to_the_center_from_its_column() -> None:
    game = parse_position(DEEP_COLUMN, EXPERT)
    applied(game, Place(0, STACK, 0))  # b5 on r6
    assert game.areas[0].row[0] == faces("b8 y7 r6 b5")
    events = applied(game, Play(0, ROW, pile=1, position=0))  # b5 onto the blue pile
    assert events == (CardPlayed(0, card("b5", 0), ROW, 0, 1, False, uncovered=card("r6", 0)),)
    events = applied(game, Play(0, ROW, pile=0, position=0))  # r6 onto the red pile
    assert events == (CardPlayed(0, card("r6", 0), ROW, 0, 0, False, uncovered=card("y7", 0)),)
    assert game.areas[0].row == [faces("b8 y7"), faces("g2")]
    assert game.areas[0].stack == faces("b3 b4")


# --- Ligretto Stop by a placement ----------------------------------------------------------


def test_placing_the_last_stack_card_is_a_ligretto_stop() -> None:
    game = parse_position(LAST_STACK_CARD_PLACEABLE, EXPERT)
    events = applied(game, Place(0, STACK, 0))
    assert events == (CardPlaced(0, card("g4", 0), STACK, 0, uncovered=None), RoundStopped(Ending.STOP, 0))
    assert game.ending is Ending.STOP
    assert game.stopped_by == 0
    assert game.areas[0].row[0] == faces("r5 g4")
    assert game.legal_actions(0) == []
    assert refused(game, Play(1, ROW, pile=None, position=0)) is Reason.ROUND_OVER
    assert refused(game, Place(0, DISCARD, 0)) is Reason.ROUND_OVER


# --- legal actions -------------------------------------------------------------------------


def every_action(game: Round, player: int) -> list[Action]:
    """Every action worth trying for ``player``: valid ones and plenty of invalid alternatives."""
    positions = range(-1, game.row_length + 1)
    piles: list[int | None] = [None, *range(-1, len(game.pile_seats) + 1)]
    plays: list[Action] = [
        Play(player, source, pile, position)
        for source in Source
        for position in (positions if source is Source.ROW else [0])
        for pile in piles
    ]
    places: list[Action] = [Place(player, source, column) for source in Source for column in positions]
    return [*plays, *places, Turn(player), Vote(player), Withdraw(player)]


def check_legal_actions(game: Round, players: list[int] | None = None) -> None:
    """legal_actions lists exactly the actions that would be applied (tried on copies)."""
    before = state_to_dict(game)
    for player in range(game.players) if players is None else players:
        legal = game.legal_actions(player)
        assert len(set(legal)) == len(legal), "no duplicates"
        candidates = every_action(game, player)
        assert set(legal) <= set(candidates)
        for action in candidates:
            result = game.copy().apply(action)
            assert (action in legal) == isinstance(result, Applied), (action, result)
    assert state_to_dict(game) == before


def test_legal_actions_list_the_placements() -> None:
    game = parse_position(PLACEMENTS, EXPERT)
    assert [a for a in game.legal_actions(0) if isinstance(a, Place)] == [Place(0, STACK, 0), Place(0, DISCARD, 1)]
    assert [a for a in game.legal_actions(1) if isinstance(a, Place)] == [Place(1, STACK, 0)]
    assert [a for a in game.legal_actions(2) if isinstance(a, Place)] == []


@pytest.mark.parametrize("text", [PLACEMENTS, COVERED_NINE, LAST_STACK_CARD_PLACEABLE, DEEP_COLUMN])
@pytest.mark.parametrize("rules", [EXPERT, BASE], ids=["expert", "base"])
def test_legal_actions_are_exactly_the_applicable_ones(text: str, rules: RuleSet) -> None:
    check_legal_actions(parse_position(text, rules))


@pytest.mark.parametrize(("players", "seed"), [(2, 1), (4, 2), (9, 3)])
def test_legal_actions_along_a_random_expert_game(players: int, seed: int) -> None:
    game = Round.deal(EXPERT, players, seed)
    rng = random.Random(seed)
    placed = 0
    for step in range(80):
        player = rng.randrange(players)
        check_legal_actions(game, None if step % 10 == 0 else [player])
        if game.over:
            break
        actions = [a for a in game.legal_actions(player) if not isinstance(a, Vote | Withdraw)]
        moves = [a for a in actions if isinstance(a, Play | Place)]
        action = rng.choice(moves) if moves and rng.random() < 0.8 else rng.choice(actions)
        placed += isinstance(action, Place)
        applied(game, action)
    assert placed > 0, "the random game made placements"
