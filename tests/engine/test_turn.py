"""Turning the hand (RULES.md §3): packets of three, short hands, recycling the discard pile."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from ligretto.engine import Applied, Reason, Refused, Round, RuleSet, Turn, parse_position, state_to_dict
from ligretto.engine.cards import Card, face_text, parse_face
from ligretto.engine.events import HandRecycled, HandTurned


def position(hand: str, discard: str = "") -> str:
    """Seat 0 with exactly this hand and discard pile (bottom card first, top card last);
    the rest of its deck lies in its row and Ligretto stack.  Both seats keep a 1 in the row,
    so the round can never be a proven stalemate."""
    used = {parse_face(c) for c in f"{hand} {discard}".split()}
    rest = [face_text(f) for f in range(40) if f not in used]
    return f"""
center:
0: row {rest[0]} | stack {" ".join(rest[1:])} | discard {discard} | hand {hand}
1: row r1 | stack r2 r3 | hand *
"""


SIX_IN_HAND = position(hand="r2 g3 y4 b5 r6 g7")
FIVE_IN_HAND_ONE_DISCARDED = position(hand="r2 g3 y4 b5 r6", discard="b10")
TWO_IN_HAND = position(hand="y4 b5", discard="r2 g3 r6")
ONE_IN_HAND = position(hand="b5", discard="r2 g3 r6")
TWO_IN_HAND_NOTHING_DISCARDED = position(hand="y4 b5")
EMPTY_HAND = position(hand="", discard="r2 g3 y4 b5")
TEN_DISCARDED = position(hand="", discard="r2 g3 y4 b5 r6 g7 y8 b9 r10 g10")
NOTHING_LEFT = position(hand="", discard="")

TURN_REMAINING = RuleSet()
NO_SHUFFLE = RuleSet(recycle_shuffle=False)
RECYCLE_NO_SHUFFLE = RuleSet.preset("seed-es")
RECYCLE_SHUFFLE = RuleSet().replace(short_turn="recycle", recycle_shuffle="true")
ALL_TURN_RULES = {
    "turn_remaining, shuffle": TURN_REMAINING,
    "turn_remaining, no shuffle": NO_SHUFFLE,
    "recycle, shuffle": RECYCLE_SHUFFLE,
    "recycle, no shuffle": RECYCLE_NO_SHUFFLE,
}


def faces(text: str) -> list[int]:
    return [parse_face(c) for c in text.split()]


def card(text: str) -> Card:
    return Card.parse(text, 0)


def turn(game: Round, player: int = 0) -> tuple[Any, ...]:
    result = game.apply(Turn(player))
    assert isinstance(result, Applied), result
    return result.events


def hand_and_discard(game: Round) -> tuple[list[int], list[int]]:
    area = game.areas[0]
    return list(area.hand), list(area.discard)


def everything_but_hand_and_discard(game: Round) -> dict[str, Any]:
    state = state_to_dict(game)
    del state["log"]
    for area in state["areas"]:
        for key in ("hand", "discard", "recycles", "moves"):
            del area[key]
    return state


# --- three at a time -----------------------------------------------------------------------


@pytest.mark.parametrize("rules", list(ALL_TURN_RULES))
def test_turning_three_cards_the_third_shows(rules: str) -> None:
    game = parse_position(SIX_IN_HAND, ALL_TURN_RULES[rules])
    assert turn(game) == (HandTurned(0, 3, card("b5")),)
    # The hand's top card (g7) went down first; the third card (b5) is the visible top.
    assert hand_and_discard(game) == (faces("r2 g3 y4"), faces("g7 r6 b5"))
    assert turn(game) == (HandTurned(0, 3, card("r2")),)
    assert hand_and_discard(game) == ([], faces("g7 r6 b5 y4 g3 r2"))


def test_a_packet_goes_on_top_of_the_discard_pile() -> None:
    game = parse_position(FIVE_IN_HAND_ONE_DISCARDED)
    assert turn(game) == (HandTurned(0, 3, card("y4")),)
    assert hand_and_discard(game) == (faces("r2 g3"), faces("b10 r6 b5 y4"))


@pytest.mark.parametrize("rules", list(ALL_TURN_RULES))
def test_turning_touches_nothing_but_this_hand_and_discard_pile(rules: str) -> None:
    game = parse_position(SIX_IN_HAND, ALL_TURN_RULES[rules])
    before = everything_but_hand_and_discard(game)
    for _ in range(7):
        turn(game)
    assert everything_but_hand_and_discard(game) == before


# --- fewer than three: short_turn ----------------------------------------------------------


@pytest.mark.parametrize("rules", [TURN_REMAINING, NO_SHUFFLE])
@pytest.mark.parametrize(
    ("text", "count", "discard", "top"),
    [
        (TWO_IN_HAND, 2, "r2 g3 r6 b5 y4", "y4"),
        (ONE_IN_HAND, 1, "r2 g3 r6 b5", "b5"),
        (TWO_IN_HAND_NOTHING_DISCARDED, 2, "b5 y4", "y4"),
    ],
)
def test_turn_remaining_turns_the_last_cards(rules: RuleSet, text: str, count: int, discard: str, top: str) -> None:
    game = parse_position(text, rules)
    assert turn(game) == (HandTurned(0, count, card(top)),)
    assert hand_and_discard(game) == ([], faces(discard))


@pytest.mark.parametrize(
    ("text", "hand", "discard", "top"),
    [
        # r6 g3 r2 go face down under y4 b5; then b5 y4 r2 are turned.
        (TWO_IN_HAND, "r6 g3", "b5 y4 r2", "r2"),
        (ONE_IN_HAND, "r6", "b5 r2 g3", "g3"),
    ],
)
def test_recycle_puts_the_discard_pile_under_the_hand_then_turns_three(
    text: str, hand: str, discard: str, top: str
) -> None:
    game = parse_position(text, RECYCLE_NO_SHUFFLE)
    assert turn(game) == (HandRecycled(0, 3, shuffled=False), HandTurned(0, 3, card(top)))
    assert hand_and_discard(game) == (faces(hand), faces(discard))


def test_recycle_with_shuffle_keeps_the_remaining_hand_cards_on_top() -> None:
    game = parse_position(position(hand="y4 b5", discard="r2 g3 r6 g9 y8"), RECYCLE_SHUFFLE, seed=4)
    events = turn(game)
    assert events[0] == HandRecycled(0, 5, shuffled=True)
    assert isinstance(events[1], HandTurned)
    assert events[1].count == 3
    hand, discard = hand_and_discard(game)
    assert discard[:2] == faces("b5 y4"), "the cards left in the hand are turned first"
    assert discard[2] in faces("r2 g3 r6 g9 y8")
    assert events[1].discard_top == card(face_text(discard[2]))
    assert Counter(hand + discard) == Counter(faces("y4 b5 r2 g3 r6 g9 y8"))


def test_recycle_with_nothing_discarded_turns_what_is_left() -> None:
    game = parse_position(TWO_IN_HAND_NOTHING_DISCARDED, RECYCLE_NO_SHUFFLE)
    assert turn(game) == (HandTurned(0, 2, card("y4")),)
    assert hand_and_discard(game) == ([], faces("b5 y4"))


def test_turn_remaining_empties_the_hand_before_recycling() -> None:
    game = parse_position(TWO_IN_HAND, NO_SHUFFLE)
    turn(game)
    assert game.areas[0].hand == []
    # Only the next turn recycles the discard pile.
    # The discard pile r2 g3 r6 b5 y4 turned face down: r2 on top, so r2 g3 r6 are turned.
    assert turn(game) == (HandRecycled(0, 5, shuffled=False), HandTurned(0, 3, card("r6")))
    assert hand_and_discard(game) == (faces("y4 b5"), faces("r2 g3 r6"))


# --- empty hand: the discard pile becomes the hand -----------------------------------------


@pytest.mark.parametrize("rules", [NO_SHUFFLE, RECYCLE_NO_SHUFFLE])
def test_recycling_without_shuffle_keeps_the_order(rules: RuleSet) -> None:
    game = parse_position(EMPTY_HAND, rules)
    # The discard pile turned face down: its bottom card (r2) is the new hand top, turned first.
    assert turn(game) == (HandRecycled(0, 4, shuffled=False), HandTurned(0, 3, card("y4")))
    assert hand_and_discard(game) == (faces("b5"), faces("r2 g3 y4"))


@pytest.mark.parametrize("rules", [NO_SHUFFLE, RECYCLE_NO_SHUFFLE])
def test_without_shuffle_the_next_pass_repeats_the_same_packets(rules: RuleSet) -> None:
    game = parse_position(SIX_IN_HAND, rules)
    first = turn(game)
    after_first = hand_and_discard(game)
    second = turn(game)
    assert game.areas[0].hand == []
    assert turn(game) == (HandRecycled(0, 6, shuffled=False), *first)
    assert hand_and_discard(game) == after_first
    assert turn(game) == second
    # And so on, pass after pass.
    tops = [turn(game)[-1].discard_top for _ in range(6)]
    assert tops == [card("b5"), card("r2")] * 3


def test_without_shuffle_a_seven_card_hand_cycles_through_the_same_packets() -> None:
    game = parse_position(position(hand="r2 g3 y4 b5 r6 g7 y8"), NO_SHUFFLE)
    tops = [turn(game)[-1].discard_top for _ in range(9)]
    assert tops == [card("r6"), card("g3"), card("r2")] * 3


def recycled_order(seed: int, rules: RuleSet = TURN_REMAINING) -> tuple[list[int], list[int]]:
    game = parse_position(TEN_DISCARDED, rules, seed=seed)
    events = turn(game)
    assert events[0] == HandRecycled(0, 10, shuffled=True)
    return hand_and_discard(game)


@pytest.mark.parametrize("rules", [TURN_REMAINING, RECYCLE_SHUFFLE])
def test_recycling_with_shuffle_is_deterministic_by_seed(rules: RuleSet) -> None:
    for seed in (0, 1, 99):
        assert recycled_order(seed, rules) == recycled_order(seed, rules)


@pytest.mark.parametrize("rules", [TURN_REMAINING, RECYCLE_SHUFFLE])
def test_recycling_with_shuffle_shuffles(rules: RuleSet) -> None:
    unshuffled = parse_position(TEN_DISCARDED, RuleSet(recycle_shuffle=False))
    turn(unshuffled)
    kept_order = hand_and_discard(unshuffled)
    orders = []
    for seed in range(10):
        hand, discard = recycled_order(seed, rules)
        assert Counter(hand + discard) == Counter(faces("r2 g3 y4 b5 r6 g7 y8 b9 r10 g10"))
        assert len(discard) == 3
        orders.append((tuple(hand), tuple(discard)))
    assert len(set(orders)) >= 8, "different seeds give different orders"
    assert sum(order == tuple(map(tuple, kept_order)) for order in orders) <= 1, "the order is not kept"


# --- nothing to turn; turning is always allowed otherwise ----------------------------------


@pytest.mark.parametrize("rules", list(ALL_TURN_RULES))
def test_nothing_to_turn(rules: str) -> None:
    game = parse_position(NOTHING_LEFT, ALL_TURN_RULES[rules])
    before = state_to_dict(game)
    result = game.apply(Turn(0))
    assert isinstance(result, Refused)
    assert result.reason is Reason.NOTHING_TO_TURN
    after = state_to_dict(game)
    del before["log"], after["log"]
    assert after == before
    assert Turn(0) not in game.legal_actions(0)
    assert Turn(1) in game.legal_actions(1)


@pytest.mark.parametrize("rules", list(ALL_TURN_RULES))
@pytest.mark.parametrize(
    ("hand", "discard"),
    [
        ("r2 g3 y4 b5 r6", ""),
        ("r2 g3 y4", "b7"),
        ("r2 g3", ""),
        ("r2", ""),
        ("r2", "b7 b8"),
        ("", "b7"),
        ("", "b7 b8 b9 g9 y9"),
    ],
)
def test_turning_is_always_legal_with_cards_in_hand_or_discard(rules: str, hand: str, discard: str) -> None:
    game = parse_position(position(hand, discard), ALL_TURN_RULES[rules])
    cards = Counter(faces(f"{hand} {discard}"))
    for _ in range(12):
        assert Turn(0) in game.legal_actions(0)
        events = turn(game)
        turned = events[-1]
        assert isinstance(turned, HandTurned)
        assert 1 <= turned.count <= 3
        assert turned.discard_top == card(face_text(game.areas[0].discard[-1]))
        held_hand, held_discard = hand_and_discard(game)
        assert Counter(held_hand + held_discard) == cards, "turning never loses or adds a card"
