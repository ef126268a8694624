"""Setting up a round (RULES.md §1-§2): decks, backs, boxes, the deal and its seeding."""

from __future__ import annotations

import pytest

from ligretto.engine import Back, Box, Round, RuleError, RuleSet, Symbol, state_to_dict
from ligretto.engine.area import Area
from ligretto.engine.cards import boxes_needed

PLAYER_COUNTS = range(2, 13)

CLASSIC_ROW = {2: 5, 3: 4, 4: 3, 5: 3, 6: 3, 7: 3, 8: 3, 9: 3, 10: 3, 11: 3, 12: 3}
BY_BOXES_ROW = {2: 5, 3: 5, 4: 5, 5: 4, 6: 4, 7: 4, 8: 4, 9: 3, 10: 3, 11: 3, 12: 3}

RULE_SETS = {
    "classic": (RuleSet(), CLASSIC_ROW),
    "by_boxes": (RuleSet(row_size="by_boxes"), BY_BOXES_ROW),
    "fixed 5": (RuleSet.preset("seed-fr"), dict.fromkeys(PLAYER_COUNTS, 5)),
    "fixed 1": (RuleSet(row_size=1), dict.fromkeys(PLAYER_COUNTS, 1)),
    "expert": (RuleSet.preset("expert"), CLASSIC_ROW),
}


def deck_order(area: Area) -> list[int]:
    """A player's whole deck in the order the deal laid it out: row, stack, hand."""
    return [face for column in area.row for face in column] + area.stack + area.hand


# --- the deal ------------------------------------------------------------------------------


@pytest.mark.parametrize("rule_set", list(RULE_SETS))
@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_deal_lays_out_every_deck(rule_set: str, players: int) -> None:
    rules, row_table = RULE_SETS[rule_set]
    row = row_table[players]
    game = Round.deal(rules, players, seed=players * 31)
    assert game.players == players
    assert len(game.areas) == players
    assert game.row_length == row
    for area in game.areas:
        assert sorted(area.faces()) == list(range(40)), "exactly the 40 distinct cards of one deck"
        assert len(area.row) == row
        assert all(len(column) == 1 for column in area.row)
        assert len(area.stack) == 10
        assert len(area.hand) == 40 - 10 - row
        assert area.discard == []
        assert area.voted is False
    assert game.pile_colours == []
    assert game.pile_seats == []
    assert game.ending is None
    assert game.stopped_by is None
    # Nothing but a 1 can go to the empty center.
    for face in range(40):
        assert game.fits(face) == (face % 10 == 0)


@pytest.mark.parametrize("players", [0, 1, 13])
def test_deal_refuses_a_bad_player_count(players: int) -> None:
    with pytest.raises(RuleError):
        Round.deal(RuleSet(), players, seed=1)


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_every_seat_plays_with_its_own_back(players: int) -> None:
    game = Round.deal(RuleSet(), players, seed=5)
    backs = []
    for seat, area in enumerate(game.areas):
        cards = [game.card(seat, face) for face in area.faces()]
        assert {card.back for card in cards} == {Back.for_seat(seat)}
        assert all(card.owner == seat for card in cards)
        backs.append(Back.for_seat(seat))
    assert len(set(backs)) == players
    assert len({back.box for back in backs}) == boxes_needed(players)


# --- backs and boxes (RULES.md §1) ---------------------------------------------------------


@pytest.mark.parametrize(
    ("seat", "box"),
    [*((s, Box.RED) for s in range(4)), *((s, Box.BLUE) for s in range(4, 8)), *((s, Box.GREEN) for s in range(8, 12))],
)
def test_back_for_seat_uses_the_boxes_in_order(seat: int, box: Box) -> None:
    back = Back.for_seat(seat)
    assert back.box is box
    assert back.seat == seat


def test_backs_are_distinct_within_a_box_and_overall() -> None:
    backs = [Back.for_seat(seat) for seat in range(12)]
    assert len(set(backs)) == 12
    for box in Box:
        symbols = [back.symbol for back in backs if back.box is box]
        assert len(symbols) == 4
        assert set(symbols) == set(Symbol)


@pytest.mark.parametrize("seat", [-1, 12, 99])
def test_there_are_only_twelve_backs(seat: int) -> None:
    with pytest.raises(ValueError):
        Back.for_seat(seat)


@pytest.mark.parametrize(
    ("players", "boxes"), [(2, 1), (3, 1), (4, 1), (5, 2), (6, 2), (7, 2), (8, 2), (9, 3), (10, 3), (11, 3), (12, 3)]
)
def test_boxes_needed(players: int, boxes: int) -> None:
    assert boxes_needed(players) == boxes


# --- seeding -------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 5, 12])
def test_same_seed_same_deal(players: int) -> None:
    rules = RuleSet.preset("seed-pt")
    first = Round.deal(rules, players, seed=2024)
    second = Round.deal(rules, players, seed=2024)
    assert state_to_dict(first) == state_to_dict(second)


@pytest.mark.parametrize("players", [2, 5, 12])
def test_different_seed_different_deal(players: int) -> None:
    rules = RuleSet()
    deals = {seed: Round.deal(rules, players, seed) for seed in range(5)}
    for seat in range(players):
        orders = {tuple(deck_order(game.areas[seat])) for game in deals.values()}
        assert len(orders) == len(deals), f"seat {seat} got the same deal from two seeds"


def test_decks_are_shuffled() -> None:
    game = Round.deal(RuleSet(), 12, seed=3)
    for area in game.areas:
        order = deck_order(area)
        assert order != sorted(order)
        assert order != sorted(order, reverse=True)


@pytest.mark.parametrize("seed", [0, 1, 77])
def test_each_player_shuffles_only_their_own_deck(seed: int) -> None:
    """A seat's deal depends on the seed and the seat only: not on how many play or on the row size."""
    reference = {seat: deck_order(area) for seat, area in enumerate(Round.deal(RuleSet(), 12, seed).areas)}
    for players in PLAYER_COUNTS:
        for rules in (RuleSet(), RuleSet(row_size="by_boxes"), RuleSet(row_size=1)):
            game = Round.deal(rules, players, seed)
            for seat, area in enumerate(game.areas):
                assert deck_order(area) == reference[seat], (players, rules.row_size, seat)


def test_seats_are_shuffled_independently_of_each_other() -> None:
    game = Round.deal(RuleSet(), 12, seed=11)
    orders = {tuple(deck_order(area)) for area in game.areas}
    assert len(orders) == 12


def test_the_row_is_dealt_first_then_the_stack() -> None:
    """The same deck order gives the same first cards in the row whatever the row size:
    a shorter row moves the next cards to the stack, a longer one takes them from it."""
    five = Round.deal(RuleSet(row_size=5), 2, seed=8).areas[0]
    three = Round.deal(RuleSet(row_size=3), 2, seed=8).areas[0]
    assert [c[0] for c in three.row] == [c[0] for c in five.row][:3]
    assert three.stack[:2] == [c[0] for c in five.row][3:]
    assert three.stack[2:] == five.stack[:8]
