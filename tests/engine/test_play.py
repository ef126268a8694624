"""Playing cards to the center (RULES.md §3): sources, piles, row refill, events and refusals."""

from __future__ import annotations

import random
from typing import Any

import pytest

from ligretto.engine import (
    Action,
    Applied,
    Back,
    Card,
    Colour,
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
    view,
)
from ligretto.engine.cards import parse_face
from ligretto.engine.events import CardPlayed, PileCompleted, PileStarted, RoundStopped, RowRefilled

ROW, STACK, DISCARD = Source.ROW, Source.STACK, Source.DISCARD

# Pile 0 is red 1-3 (wants r4), pile 1 green 1-2 (wants g3), pile 2 blue 1 (wants b2).
# Seat 0 can play r4 (row 0), g3 (stack top) and b2 (discard top); seat 1 can start
# piles with y1 (row 0) and r1 (discard top) or put r4 (row 1) on pile 0; seat 2 can
# put g3 (row 2) on pile 1 and has an empty discard pile.
MIXED_CENTER = """
center: r:0,1,0 g:1,0 b:1
0: row r4 g5 b7 | stack y5 b1 g3 | discard g9 b2 | hand *
1: row y1 r4 g5 | stack b4 b3 y2  | discard g6 r1 | hand *
2: row y4 r9 g3 | stack g8 b6     | discard       | hand *
"""

# Two red piles at 3, each wanting a red 4; both seats hold a red 4 in the row, seat 0 a red 5
# in the discard pile.
TWO_RED_PILES_AT_THREE = """
center: r:0,0,0 r:1,1,1
0: row r4 g2 | stack b5 b6 | discard r5 | hand *
1: row b9 r4 | stack y5 y6 | hand *
"""

# A blue pile at 9; both seats hold a blue 10 in the row.
BLUE_PILE_AT_NINE = """
center: b:0,0,0,0,1,1,1,1,1
0: row b10 y3 | stack g4 g5 | hand *
1: row b10 r7 | stack y8 y9 | hand *
"""

# Seat 0 has one card left in the Ligretto stack.
ONE_CARD_IN_THE_STACK = """
center: g:0
0: row g2 r5 | stack y7 | hand *
1: row r1 b4 | stack b5 b6 | hand *
"""

# Seat 0's last stack card fits the center directly.
LAST_STACK_CARD_FITS = """
center: g:0
0: row r5 y7 | stack g2 | hand *
1: row r1 b4 | stack b5 b6 | hand *
"""

# The center is empty and no visible card is a 1: only hand cards (all the 1s) could ever fit.
ONLY_THE_HAND_FITS = """
center:
0: row r5 g6 b7 | stack y3 y4 | discard | hand *
1: row r2 g2 y2 | stack b2 b3 | discard | hand *
"""

# A round that already ended with seat 1's Ligretto Stop.
STOPPED = """
center: r:1,0
0: row r3 g5 | stack y2 y3 | discard y1 | hand *
1: row y4 r4 | stack | hand *
ending: stop 1
"""


def faces(text: str) -> list[int]:
    return [parse_face(card) for card in text.split()]


def card(text: str, seat: int) -> Card:
    return Card.parse(text, seat)


def snapshot(game: Round) -> dict[str, Any]:
    """The whole state except the log (which records refused actions too)."""
    state = state_to_dict(game)
    del state["log"]
    return state


def applied(game: Round, action: Action) -> tuple[Any, ...]:
    result = game.apply(action)
    assert isinstance(result, Applied), result
    assert result.ok
    return result.events


def refused(game: Round, action: Action) -> Reason:
    """Apply an action that must be refused; check that nothing changed; return the reason."""
    before = snapshot(game)
    result = game.apply(action)
    assert isinstance(result, Refused), result
    assert not result.ok
    assert snapshot(game) == before
    assert game.log[-1] == action
    return result.reason


# --- playing from each source --------------------------------------------------------------


def test_row_card_onto_a_pile_refills_the_row_from_the_stack() -> None:
    game = parse_position(MIXED_CENTER)
    events = applied(game, Play(0, ROW, pile=0, position=0))
    assert events == (
        CardPlayed(0, card("r4", 0), ROW, 0, 0, False, None),
        RowRefilled(0, 0, card("g3", 0), stack_top=card("b1", 0)),
    )
    area = game.areas[0]
    assert area.row == [faces("g3"), faces("g5"), faces("b7")]
    assert area.stack == faces("y5 b1")
    assert game.pile_seats[0] == [0, 1, 0, 0]
    assert game.pile_top(0) == 4
    assert game.wanted[parse_face("r4")] == []
    assert game.wanted[parse_face("r5")] == [0]


def test_row_card_from_another_position() -> None:
    game = parse_position(MIXED_CENTER)
    events = applied(game, Play(2, ROW, pile=1, position=2))
    assert events == (
        CardPlayed(2, card("g3", 2), ROW, 2, 1, False, None),
        RowRefilled(2, 2, card("b6", 2), stack_top=card("g8", 2)),
    )
    assert game.areas[2].row == [faces("y4"), faces("r9"), faces("b6")]
    assert game.pile_seats[1] == [1, 0, 2]


def test_stack_top_onto_a_pile_uncovers_the_next_stack_card() -> None:
    game = parse_position(MIXED_CENTER)
    events = applied(game, Play(0, STACK, pile=1))
    assert events == (CardPlayed(0, card("g3", 0), STACK, 0, 1, False, card("b1", 0)),)
    assert game.areas[0].stack == faces("y5 b1")
    assert game.areas[0].row == [faces("r4"), faces("g5"), faces("b7")], "the row is not touched"
    assert game.pile_seats[1] == [1, 0, 0]
    assert game.wanted[parse_face("g4")] == [1]


def test_discard_top_onto_a_pile_uncovers_the_card_under_it() -> None:
    game = parse_position(MIXED_CENTER)
    events = applied(game, Play(0, DISCARD, pile=2))
    assert events == (CardPlayed(0, card("b2", 0), DISCARD, 0, 2, False, card("g9", 0)),)
    assert game.areas[0].discard == faces("g9")
    assert game.pile_seats[2] == [1, 0]


def test_the_last_discard_card_uncovers_nothing() -> None:
    game = parse_position(TWO_RED_PILES_AT_THREE)
    applied(game, Play(0, ROW, pile=0, position=0))
    events = applied(game, Play(0, DISCARD, pile=0))
    assert events == (CardPlayed(0, card("r5", 0), DISCARD, 0, 0, False, None),)
    assert game.areas[0].discard == []


def test_a_one_from_the_row_starts_a_new_pile() -> None:
    game = parse_position(MIXED_CENTER)
    events = applied(game, Play(1, ROW, pile=None, position=0))
    assert events == (
        PileStarted(3, Colour.YELLOW),
        CardPlayed(1, card("y1", 1), ROW, 0, 3, True, None),
        RowRefilled(1, 0, card("y2", 1), stack_top=card("b3", 1)),
    )
    assert game.pile_colours[3] == Colour.YELLOW
    assert game.pile_seats[3] == [1]
    assert game.wanted[parse_face("y2")] == [3]


def test_a_one_from_the_discard_starts_a_new_pile() -> None:
    game = parse_position(MIXED_CENTER)
    events = applied(game, Play(1, DISCARD, pile=None))
    assert events == (PileStarted(3, Colour.RED), CardPlayed(1, card("r1", 1), DISCARD, 0, 3, True, card("g6", 1)))
    assert game.areas[1].discard == faces("g6")


def test_a_one_from_the_stack_starts_a_new_pile() -> None:
    game = parse_position(MIXED_CENTER)
    applied(game, Play(0, STACK, pile=1))  # g3: b1 is now the stack top
    events = applied(game, Play(0, STACK, pile=None))
    assert events == (PileStarted(3, Colour.BLUE), CardPlayed(0, card("b1", 0), STACK, 0, 3, True, card("y5", 0)))
    assert game.pile_colours == [Colour.RED, Colour.GREEN, Colour.BLUE, Colour.BLUE]


# --- several piles, any player, whose card -------------------------------------------------


def test_several_piles_of_the_same_colour() -> None:
    game = parse_position(MIXED_CENTER)
    applied(game, Play(1, DISCARD, pile=None))  # r1 starts a second red pile (3) next to pile 0 (red at 3)
    assert [game.pile_colours[p] for p in (0, 3)] == [Colour.RED, Colour.RED]
    assert game.wanted[parse_face("r2")] == [3]
    assert game.wanted[parse_face("r4")] == [0]
    applied(game, Play(0, ROW, pile=0, position=0))  # r4 onto pile 0
    assert (game.pile_top(0), game.pile_top(3)) == (4, 1)


def test_any_player_may_play_on_any_pile_and_the_pile_records_whose_cards() -> None:
    game = parse_position(MIXED_CENTER)
    applied(game, Play(1, ROW, pile=None, position=0))  # seat 1 starts yellow pile 3 with y1
    applied(game, Play(1, ROW, pile=3, position=0))  # ... y2 from the refill
    applied(game, Play(0, DISCARD, pile=2))  # seat 0 on seat 1's blue pile
    applied(game, Play(2, ROW, pile=1, position=2))  # seat 2 on the green pile
    applied(game, Play(0, ROW, pile=0, position=0))  # seat 0 on the red pile
    assert game.pile_seats == [[0, 1, 0, 0], [1, 0, 2], [1, 0], [1, 1]]
    # What everyone sees: each center card carries its owner's back (scored by back, RULES.md §5).
    assert view(game).center[2].backs == (Back.for_seat(1), Back.for_seat(0))
    assert view(game).center[1].backs == (Back.for_seat(1), Back.for_seat(0), Back.for_seat(2))


# --- completing a pile ---------------------------------------------------------------------


def test_a_ten_completes_the_pile_which_then_refuses_every_card() -> None:
    game = parse_position(BLUE_PILE_AT_NINE)
    events = applied(game, Play(0, ROW, pile=0, position=0))
    assert events == (
        CardPlayed(0, card("b10", 0), ROW, 0, 0, False, None),
        PileCompleted(0),
        RowRefilled(0, 0, card("g5", 0), stack_top=card("g4", 0)),
    )
    assert game.pile_top(0) == 10
    assert game.pile_seats[0] == [0, 0, 0, 0, 1, 1, 1, 1, 1, 0]
    assert all(0 not in game.wanted[face] for face in range(40))
    # Seat 1 aimed its own blue 10 at the same pile: too late, and it keeps the card.
    assert refused(game, Play(1, ROW, pile=0, position=0)) is Reason.PILE_COMPLETE
    assert refused(game, Play(1, ROW, pile=0, position=1)) is Reason.PILE_COMPLETE
    assert game.areas[1].row == [faces("b10"), faces("r7")]
    assert Play(1, ROW, 0, 0) not in game.legal_actions(1)


# --- refusals: each reason, and nothing changes --------------------------------------------

MIXED_CENTER_REFUSALS: list[tuple[Action, Reason]] = [
    (Play(3, ROW, pile=0, position=0), Reason.NO_SUCH_PLAYER),
    (Play(-1, STACK, pile=1), Reason.NO_SUCH_PLAYER),
    (Play(2, DISCARD, pile=0), Reason.NO_SUCH_CARD),  # seat 2's discard pile is empty
    (Play(2, DISCARD, pile=None), Reason.NO_SUCH_CARD),
    (Play(0, ROW, pile=0, position=3), Reason.NO_SUCH_CARD),  # rows have positions 0-2
    (Play(0, ROW, pile=0, position=-1), Reason.NO_SUCH_CARD),
    (Play(0, ROW, pile=0, position=0, card=card("r4", 1)), Reason.NOT_YOUR_CARD),
    (Play(0, STACK, pile=1, card=card("g3", 2)), Reason.NOT_YOUR_CARD),
    (Play(0, ROW, pile=0, position=0, card=card("g5", 0)), Reason.CARD_MOVED),
    (Play(0, DISCARD, pile=2, card=card("g9", 0)), Reason.CARD_MOVED),  # under the top: not usable
    (Play(0, STACK, pile=3), Reason.NO_SUCH_PILE),
    (Play(0, STACK, pile=-1), Reason.NO_SUCH_PILE),
    (Play(1, ROW, pile=48, position=0), Reason.NO_SUCH_PILE),
    (Play(2, ROW, pile=0, position=0), Reason.DOES_NOT_FIT),  # y4 on red at 3: wrong colour
    (Play(0, ROW, pile=1, position=1), Reason.DOES_NOT_FIT),  # g5 on green at 2: wrong number
    (Play(1, ROW, pile=1, position=2), Reason.DOES_NOT_FIT),  # g5 on green at 2: wrong number
    (Play(0, ROW, pile=2, position=2), Reason.DOES_NOT_FIT),  # b7 on blue at 1: wrong number
    (Play(0, STACK, pile=0), Reason.DOES_NOT_FIT),  # g3 on red at 3: right number, wrong colour
    (Play(1, ROW, pile=0, position=0), Reason.DOES_NOT_FIT),  # a 1 never goes on a pile
    (Play(0, ROW, pile=None, position=0), Reason.NOT_A_ONE),
    (Play(0, STACK, pile=None), Reason.NOT_A_ONE),
    (Play(0, DISCARD, pile=None), Reason.NOT_A_ONE),
]


@pytest.mark.parametrize(("action", "reason"), MIXED_CENTER_REFUSALS)
def test_refusal_changes_nothing(action: Action, reason: Reason) -> None:
    game = parse_position(MIXED_CENTER)
    assert refused(game, action) is reason
    if 0 <= action.player < game.players:
        assert action not in game.legal_actions(action.player)


def test_a_play_naming_its_card_is_refused_once_that_card_has_moved() -> None:
    """Seat 0 meant its red 4 at row position 0; it went to the center and the green 3 took
    its place.  The green 3 would fit pile 1, but the player did not mean it."""
    game = parse_position(MIXED_CENTER)
    applied(game, Play(0, ROW, pile=0, position=0, card=card("r4", 0)))
    assert refused(game, Play(0, ROW, pile=1, position=0, card=card("r4", 0))) is Reason.CARD_MOVED
    applied(game, Play(0, ROW, pile=1, position=0, card=card("g3", 0)))


@pytest.mark.parametrize(
    "action",
    [Play(0, ROW, pile=0, position=0), Play(0, DISCARD, pile=None), Play(1, ROW, pile=0, position=1), Turn(0), Vote(1)],
)
def test_after_the_round_ended_every_action_is_refused(action: Action) -> None:
    game = parse_position(STOPPED)
    assert game.ending is Ending.STOP
    assert refused(game, action) is Reason.ROUND_OVER
    assert game.legal_actions(0) == []
    assert game.legal_actions(1) == []


def test_no_such_player_even_for_turning() -> None:
    game = parse_position(MIXED_CENTER)
    assert refused(game, Turn(7)) is Reason.NO_SUCH_PLAYER


# --- "beaten to it" ------------------------------------------------------------------------


def test_beaten_to_it_on_a_pile() -> None:
    game = parse_position(MIXED_CENTER)
    # Seats 0 and 1 both aim their red 4 at pile 0; seat 0's action arrives first.
    first = Play(0, ROW, pile=0, position=0)
    second = Play(1, ROW, pile=0, position=1)
    assert second in game.legal_actions(1)
    applied(game, first)
    assert refused(game, second) is Reason.DOES_NOT_FIT
    assert game.areas[1].row == [faces("y1"), faces("r4"), faces("g5")], "seat 1 keeps its red 4"
    assert game.pile_seats[0] == [0, 1, 0, 0]
    assert Reason.DOES_NOT_FIT.text.endswith("(beaten to it?)")


def test_beaten_to_it_from_the_stack() -> None:
    game = parse_position(MIXED_CENTER)
    # Seat 2 (row g3) and seat 0 (stack g3) race for pile 1; seat 2 wins.
    applied(game, Play(2, ROW, pile=1, position=2))
    assert refused(game, Play(0, STACK, pile=1)) is Reason.DOES_NOT_FIT
    assert game.areas[0].stack == faces("y5 b1 g3")


def test_a_refused_racer_is_not_redirected_to_another_fitting_pile() -> None:
    game = parse_position(TWO_RED_PILES_AT_THREE)
    applied(game, Play(0, ROW, pile=0, position=0))
    # Pile 1 would still take seat 1's red 4, but the play named pile 0.
    assert refused(game, Play(1, ROW, pile=0, position=1)) is Reason.DOES_NOT_FIT
    assert game.areas[1].row[1] == faces("r4")
    events = applied(game, Play(1, ROW, pile=1, position=1))
    assert events[0] == CardPlayed(1, card("r4", 1), ROW, 1, 1, False, None)
    assert game.pile_seats == [[0, 0, 0, 0], [1, 1, 1, 1]]


def test_two_new_piles_with_ones_never_race() -> None:
    game = parse_position(MIXED_CENTER)
    applied(game, Play(1, ROW, pile=None, position=0))
    applied(game, Play(1, DISCARD, pile=None))
    applied(game, Play(0, STACK, pile=1))
    applied(game, Play(0, STACK, pile=None))
    assert game.pile_colours[3:] == [Colour.YELLOW, Colour.RED, Colour.BLUE]
    assert game.pile_seats[3:] == [[1], [1], [0]]


# --- Ligretto Stop by playing --------------------------------------------------------------


def test_the_last_stack_card_going_into_the_row_stops_the_round() -> None:
    game = parse_position(ONE_CARD_IN_THE_STACK)
    events = applied(game, Play(0, ROW, pile=0, position=0))
    assert events == (
        CardPlayed(0, card("g2", 0), ROW, 0, 0, False, None),
        RowRefilled(0, 0, card("y7", 0), stack_top=None),
        RoundStopped(Ending.STOP, 0),
    )
    assert game.ending is Ending.STOP
    assert game.stopped_by == 0
    assert refused(game, Play(1, ROW, pile=None, position=0)) is Reason.ROUND_OVER


def test_the_last_stack_card_going_to_the_center_stops_the_round() -> None:
    game = parse_position(LAST_STACK_CARD_FITS)
    events = applied(game, Play(0, STACK, pile=0))
    assert events == (CardPlayed(0, card("g2", 0), STACK, 0, 0, False, None), RoundStopped(Ending.STOP, 0))
    assert (game.ending, game.stopped_by) == (Ending.STOP, 0)


# --- hand cards never go to the center -----------------------------------------------------


def test_there_is_no_source_for_hand_cards() -> None:
    assert set(Source) == {Source.ROW, Source.STACK, Source.DISCARD}


@pytest.mark.parametrize("one", ["r1", "g1", "y1", "b1"])
def test_a_hand_card_named_in_a_play_is_refused(one: str) -> None:
    game = parse_position(ONLY_THE_HAND_FITS)
    assert parse_face(one) in game.areas[0].hand
    for source in Source:
        for position in range(game.row_length):
            reason = refused(game, Play(0, source, pile=None, position=position, card=card(one, 0)))
            assert reason in (Reason.CARD_MOVED, Reason.NO_SUCH_CARD)


def test_hand_cards_become_playable_only_as_the_discard_top() -> None:
    game = parse_position(ONLY_THE_HAND_FITS)
    ones = set(faces("r1 g1 y1 b1"))
    assert ones <= set(game.areas[0].hand)
    assert game.legal_actions(0) == [Turn(0), Vote(0)]
    seen_ones = 0
    for _ in range(20):
        applied(game, Turn(0))
        plays = [a for a in game.legal_actions(0) if isinstance(a, Play)]
        top = game.areas[0].discard[-1]
        if top in ones:
            seen_ones += 1
            assert plays == [Play(0, DISCARD, None, 0)]
        else:
            assert plays == []
    assert seen_ones >= 1


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
    assert state_to_dict(game) == before, "trying actions on copies leaves the game untouched"


POSITIONS = {
    "mixed center": MIXED_CENTER,
    "two red piles": TWO_RED_PILES_AT_THREE,
    "blue pile at nine": BLUE_PILE_AT_NINE,
    "one card in the stack": ONE_CARD_IN_THE_STACK,
    "only the hand fits": ONLY_THE_HAND_FITS,
    "stopped": STOPPED,
}


@pytest.mark.parametrize("name", list(POSITIONS))
def test_legal_actions_of_a_position(name: str) -> None:
    check_legal_actions(parse_position(POSITIONS[name]))


def test_legal_actions_of_the_mixed_center() -> None:
    game = parse_position(MIXED_CENTER)
    assert game.legal_actions(0) == [
        Play(0, ROW, 0, 0),
        Play(0, STACK, 1),
        Play(0, DISCARD, 2),
        Turn(0),
        Vote(0),
    ]
    assert game.legal_actions(1) == [
        Play(1, ROW, None, 0),
        Play(1, ROW, 0, 1),
        Play(1, DISCARD, None),
        Turn(1),
        Vote(1),
    ]
    assert game.legal_actions(2) == [Play(2, ROW, 1, 2), Turn(2), Vote(2)]


def test_legal_actions_after_some_plays() -> None:
    game = parse_position(MIXED_CENTER)
    for action in (Play(1, DISCARD, None), Play(0, STACK, 1), Play(0, STACK, None), Vote(2)):
        applied(game, action)
        check_legal_actions(game)
    # Seat 2 voted: it may withdraw, not vote again.
    assert Withdraw(2) in game.legal_actions(2)
    assert Vote(2) not in game.legal_actions(2)


@pytest.mark.parametrize(("players", "seed"), [(2, 1), (3, 2), (4, 3), (7, 4), (12, 5)])
def test_legal_actions_along_a_random_game(players: int, seed: int) -> None:
    game = Round.deal(RuleSet(), players, seed)
    rng = random.Random(seed)
    for step in range(60):
        player = rng.randrange(players)
        check_legal_actions(game, None if step % 10 == 0 else [player])
        if game.over:
            break
        actions = [a for a in game.legal_actions(player) if not isinstance(a, Vote | Withdraw)]
        plays = [a for a in actions if isinstance(a, Play)]
        applied(game, rng.choice(plays) if plays and rng.random() < 0.7 else rng.choice(actions))
    assert game.pile_seats, "the random game played cards to the center"
