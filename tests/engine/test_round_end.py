"""How a round ends (RULES.md §4): Ligretto Stop, the stalemate vote and the proven stalemate.

Positions are written in the notation of :mod:`ligretto.engine.notation`: every list
is bottom card first, so the LAST card is the top (the visible stack/discard card, the
next hand card to be turned); ``hand *`` is every remaining card in ascending order
(r < g < y < b, then by number), so its highest card is turned first.
"""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest

from ligretto.engine import (
    Applied,
    Card,
    Colour,
    Ending,
    Place,
    Play,
    Reason,
    Refused,
    Round,
    RuleSet,
    ShortTurn,
    Source,
    Turn,
    Vote,
    Withdraw,
    parse_position,
    state_to_dict,
    view,
)
from ligretto.engine.cards import NUMBERS, face_of, face_text
from ligretto.engine.events import (
    CardPlaced,
    CardPlayed,
    HandRecycled,
    HandTurned,
    PileCompleted,
    PileStarted,
    RoundStopped,
    RowRefilled,
    VoteCast,
    VotesCleared,
    VoteWithdrawn,
)


def _complete(colours: str) -> str:
    """Complete piles (1-10) of both seats' cards, seat 0's pile first, for each colour given."""
    return " ".join(f"{colour}:{','.join(seat * NUMBERS)}" for colour in colours for seat in "01")


def card(seat: int, text: str) -> Card:
    return Card.parse(text, seat)


def events(result: object) -> tuple[object, ...]:
    """The events of an applied action (fails on a refusal)."""
    assert isinstance(result, Applied), result
    return result.events


def state(game: Round) -> dict[str, Any]:
    """The complete state without the action log (which records refused actions too)."""
    data = state_to_dict(game)
    del data["log"]
    return data


ALL_TURN_RULES = [
    RuleSet(short_turn=short_turn, recycle_shuffle=shuffle)
    for short_turn, shuffle in itertools.product(ShortTurn, (True, False))
]
ALL_TURN_IDS = [f"{r.short_turn.value}-{'shuffle' if r.recycle_shuffle else 'keep-order'}" for r in ALL_TURN_RULES]


# --- Ligretto Stop -----------------------------------------------------------------------

# Seat 1's stack holds one card, a green 1: playing it starts a pile and empties the stack.
LAST_STACK_CARD_IS_A_ONE = """
center:
0: row r5 g7 y9 | stack b4 b8 | hand *
1: row r6 g8 y10 | stack g1 | hand *
"""

# Seat 1's last stack card is a red 2 that fits the red pile 0.
LAST_STACK_CARD_FITS_A_PILE = """
center: r:0
0: row r5 g7 y9 | stack b4 b8 | hand *
1: row r6 g8 y10 | stack r2 | hand *
"""

# Seat 0 plays the red 1 from the row; the gap takes b4, the last card of the stack.
LAST_STACK_CARD_REFILLS_THE_ROW = """
center:
0: row r1 g7 y9 | stack b4 | hand *
1: row r6 g8 y10 | stack g2 b3 | hand *
"""

# Seat 0's row is three 1s over a stack of four: the whole row can be played.
ROW_OF_ONES = """
center:
0: row r1 g1 y1 | stack b5 b6 b7 b8 | hand *
1: row r6 g8 y10 | stack g2 b3 | hand *
"""


@pytest.mark.parametrize(
    ("position", "pile", "new_pile"),
    [(LAST_STACK_CARD_IS_A_ONE, None, True), (LAST_STACK_CARD_FITS_A_PILE, 0, False)],
    ids=["new-pile", "existing-pile"],
)
def test_stop_when_the_last_stack_card_goes_to_the_center(position: str, pile: int | None, new_pile: bool) -> None:
    game = parse_position(position)
    stack_card = card(1, face_text(game.areas[1].stack[-1]))
    result = game.apply(Play(1, Source.STACK, pile))
    assert isinstance(result, Applied)
    played = [e for e in result.events if isinstance(e, CardPlayed)]
    assert played == [CardPlayed(1, stack_card, Source.STACK, 0, 0, new_pile, None)]
    assert result.events[-1] == RoundStopped(Ending.STOP, 1)
    assert game.over
    assert game.ending is Ending.STOP
    assert game.stopped_by == 1
    assert game.areas[1].stack == []
    assert game.legal_actions(0) == [] and game.legal_actions(1) == []


def test_stop_when_the_last_stack_card_refills_the_row() -> None:
    game = parse_position(LAST_STACK_CARD_REFILLS_THE_ROW)
    result = game.apply(Play(0, Source.ROW, None, 0))
    assert isinstance(result, Applied)
    assert result.events == (
        PileStarted(0, Colour.RED),
        CardPlayed(0, card(0, "r1"), Source.ROW, 0, 0, True, None),
        RowRefilled(0, 0, card(0, "b4"), None),
        RoundStopped(Ending.STOP, 0),
    )
    assert game.ending is Ending.STOP
    assert game.stopped_by == 0
    assert [face_text(column[-1]) for column in game.areas[0].row] == ["b4", "g7", "y9"]


def test_playing_the_whole_row_does_not_end_the_round() -> None:
    """Emptying the row alone is no Stop: every gap is refilled from the stack at once."""
    game = parse_position(ROW_OF_ONES)
    for position in range(3):
        stack_top = game.areas[0].stack[-1]
        result = game.apply(Play(0, Source.ROW, None, position))
        assert isinstance(result, Applied)
        assert result.events[-1] == RowRefilled(
            0, position, card(0, face_text(stack_top)), card(0, face_text(game.areas[0].stack[-1]))
        )
        assert not game.over
        assert len(game.areas[0].row) == 3
    # every card that was in the row at the start is now in the center; the round goes on
    assert [[face_text(f) for f in column] for column in game.areas[0].row] == [["b8"], ["b7"], ["b6"]]
    assert [face_text(f) for f in game.areas[0].stack] == ["b5"]
    assert game.pile_colours == [Colour.RED, Colour.GREEN, Colour.YELLOW]
    assert game.ending is None
    assert Turn(0) in game.legal_actions(0)


def _stopped() -> Round:
    game = parse_position(LAST_STACK_CARD_REFILLS_THE_ROW)
    game.apply(Play(0, Source.ROW, None, 0))
    assert game.ending is Ending.STOP
    return game


def _voted_out() -> Round:
    game = parse_position(LAST_STACK_CARD_REFILLS_THE_ROW)
    game.apply(Vote(0))
    game.apply(Vote(1))
    assert game.ending is Ending.STALEMATE_VOTE
    return game


def _proven() -> Round:
    game = parse_position(NOTHING_FITS)
    game.end_if_stalemate()
    assert game.ending is Ending.STALEMATE_PROVEN
    return game


AFTER_THE_END = [
    Play(0, Source.ROW, None, 0),
    Play(0, Source.ROW, 0, 1),
    Play(1, Source.ROW, None, 0),
    Play(1, Source.STACK, None),
    Play(1, Source.STACK, 0),
    Play(0, Source.DISCARD, None),
    Turn(0),
    Turn(1),
    Place(0, Source.STACK, 0),
    Vote(0),
    Vote(1),
    Withdraw(0),
    Withdraw(1),
    Play(7, Source.ROW, None, 0),
    Turn(9),
]


@pytest.mark.parametrize("ended", [_stopped, _voted_out, _proven], ids=["stop", "vote", "proven"])
@pytest.mark.parametrize("action", AFTER_THE_END, ids=repr)
def test_every_action_after_the_end_is_refused_and_changes_nothing(ended: Any, action: Any) -> None:
    game = ended()
    before = state(game)
    assert game.apply(action) == Refused(Reason.ROUND_OVER)
    assert state(game) == before
    assert game.legal_actions(0) == [] and game.legal_actions(1) == []


def test_the_ending_is_kept_after_refusals() -> None:
    game = _stopped()
    for action in AFTER_THE_END:
        game.apply(action)
    assert game.ending is Ending.STOP and game.stopped_by == 0


# --- the stalemate vote ------------------------------------------------------------------

# Three players, several cards to play: a live round.
THREE_PLAYING = """
center: r:0
0: row r2 g5 y7 | stack b3 b6 | hand *
1: row g1 r8 y4 | stack b2 b7 | hand *
2: row y1 b1 r9 | stack g3 g9 | hand *
"""


def test_vote_and_withdraw() -> None:
    game = parse_position(THREE_PLAYING)
    assert Vote(0) in game.legal_actions(0) and Withdraw(0) not in game.legal_actions(0)
    assert game.apply(Vote(0)) == Applied((VoteCast(0),))
    assert game.areas[0].voted
    assert Withdraw(0) in game.legal_actions(0) and Vote(0) not in game.legal_actions(0)
    assert game.apply(Withdraw(0)) == Applied((VoteWithdrawn(0),))
    assert not game.areas[0].voted
    assert not game.over


def test_voting_twice_is_refused() -> None:
    game = parse_position(THREE_PLAYING)
    game.apply(Vote(1))
    before = state(game)
    assert game.apply(Vote(1)) == Refused(Reason.ALREADY_VOTED)
    assert state(game) == before


def test_withdrawing_without_a_vote_is_refused() -> None:
    game = parse_position(THREE_PLAYING)
    game.apply(Vote(0))
    before = state(game)
    assert game.apply(Withdraw(2)) == Refused(Reason.NOT_VOTED)
    assert state(game) == before
    game.apply(Withdraw(0))
    assert game.apply(Withdraw(0)) == Refused(Reason.NOT_VOTED)


def test_the_round_ends_only_when_every_player_has_voted() -> None:
    game = parse_position(THREE_PLAYING)
    game.apply(Vote(0))
    game.apply(Vote(1))
    assert not game.over
    game.apply(Withdraw(1))
    assert game.apply(Vote(2)) == Applied((VoteCast(2),))
    assert not game.over  # seats 0 and 2 voted, seat 1 withdrew
    result = game.apply(Vote(1))
    assert result == Applied((VoteCast(1), RoundStopped(Ending.STALEMATE_VOTE, None)))
    assert game.ending is Ending.STALEMATE_VOTE
    assert game.stopped_by is None


@pytest.mark.parametrize(
    ("play", "player"),
    [(Play(2, Source.ROW, None, 0), 2), (Play(0, Source.ROW, 0, 0), 0)],
    ids=["by-a-non-voter", "by-a-voter"],
)
def test_a_card_moved_to_the_center_clears_every_vote(play: Play, player: int) -> None:
    game = parse_position(THREE_PLAYING)
    game.apply(Vote(0))
    game.apply(Vote(1))
    result = game.apply(play)
    assert isinstance(result, Applied)
    assert any(isinstance(e, CardPlayed) and e.player == player for e in result.events)
    assert result.events[-1] == VotesCleared()
    assert not any(area.voted for area in game.areas)
    # the votes must be cast again: seat 2 alone does not end the round
    game.apply(Vote(2))
    assert not game.over
    game.apply(Vote(0))
    assert not game.over
    assert events(game.apply(Vote(1)))[-1] == RoundStopped(Ending.STALEMATE_VOTE, None)


def test_a_play_without_votes_reports_no_cleared_votes() -> None:
    game = parse_position(THREE_PLAYING)
    result = game.apply(Play(2, Source.ROW, None, 0))
    assert isinstance(result, Applied)
    assert not any(isinstance(e, VotesCleared) for e in result.events)


def test_turning_does_not_clear_votes() -> None:
    game = parse_position(THREE_PLAYING)
    game.apply(Vote(0))
    game.apply(Vote(1))
    for seat in (0, 1, 2, 0):
        result = game.apply(Turn(seat))
        assert isinstance(result, Applied)
        assert not any(isinstance(e, VotesCleared) for e in result.events)
    assert [area.voted for area in game.areas] == [True, True, False]
    assert game.apply(Vote(2)) == Applied((VoteCast(2), RoundStopped(Ending.STALEMATE_VOTE, None)))


def _stop_by_a_play() -> tuple[Round, Play | Place]:
    return parse_position(LAST_STACK_CARD_REFILLS_THE_ROW), Play(0, Source.ROW, None, 0)


def _stop_by_a_placement() -> tuple[Round, Play | Place]:
    return parse_position(EXPERT_PLACEMENT_TO_STOP, RuleSet(expert=True)), Place(0, Source.STACK, 0)


@pytest.mark.parametrize("stop", [_stop_by_a_play, _stop_by_a_placement], ids=["play", "placement"])
@pytest.mark.parametrize("voters", [(0,), (1,)], ids=["the-stopper-voted", "another-seat-voted"])
def test_a_card_moved_that_stops_the_round_clears_every_vote(stop: Any, voters: tuple[int, ...]) -> None:
    """The play (or expert placement) that empties a stack clears the votes like any
    other card moved, before the Stop: a stopped round keeps no vote, and a client that
    applies the events sees the engine's view."""
    game, action = stop()
    for seat in voters:
        game.apply(Vote(seat))
    assert [area.voted for area in game.areas] == [seat in voters for seat in (0, 1)]
    result = events(game.apply(action))
    assert result[-2:] == (VotesCleared(), RoundStopped(Ending.STOP, 0))
    assert game.ending is Ending.STOP and game.stopped_by == 0
    assert game.votes == 0
    assert not any(area.voted for area in game.areas)
    for viewer in (None, 0, 1):
        assert not any(area.voted for area in view(game, viewer).areas)


# --- the proven stalemate ----------------------------------------------------------------
#
# Most positions below have both seats' red, green and yellow cards in complete piles
# (piles 0-5) and a blue 1 of each seat in the center (pile 6 is seat 0's, pile 7 seat 1's):
# each seat holds only blue 2-10, and the only cards that fit anywhere are the blue 2s.

RGY = _complete("rgy")
BLUE_PILE_OF_SEAT_0 = 6

# (a) Both blue 2s lie under a stack top: no card anywhere can be played, whatever turning does.
NOTHING_FITS = f"""
center: {RGY} b:0 b:1
0: row b5 | stack b2 b10 | hand *
1: row b6 | stack b2 b10 | discard b3 b4 | hand *
"""

# (b) Seat 0's b2 is at the bottom of a 6-card hand (hand * = b2 b3 b4 b5 b6 b7, b7 on top):
# the first turn shows b5 (packet b7 b6 b5), the second b2 (packet b4 b3 b2).
REACHABLE_IN_HAND = f"""
center: {RGY} b:0 b:1
0: row b9 | stack b8 b10 | hand *
1: row b5 | stack b2 b10 | hand *
"""

# (c) Seat 0's b2 is in the hand, but the unshuffled turning sequence never shows it.
# Write hand = [a b c d] (d on top) = [b5 b6 b2 b7] and discard = [e f] (f on top) = [b3 b4].
#
# short_turn=turn_remaining:
#   T1  turn d c b          discard e f d c b, top b = b6; hand a
#   T2  turn the last card  discard e f d c b a, top a = b5; hand empty
#   T3  hand empty: the discard turned face down, its bottom e on top: hand a b c d f e;
#       turn e f d          discard e f d, top d = b7; hand a b c
#   T4  turn c b a          discard e f d c b a, top a = b5; hand empty -> T5 repeats T3.
#   Tops: b6 b5 b7 b5 b7 ...; never c = b2 (nor e = b3).
#
# short_turn=recycle:
#   T1  turn d c b          discard e f d c b, top b = b6; hand a
#   T2  one card left: the discard (face down: b c d f e, e nearest the hand) goes under
#       it: hand b c d f e a; turn a e f   discard a e f, top f = b4; hand b c d
#   T3  turn d c b          discard a e f d c b, top b = b6; hand empty
#   T4  hand empty: hand b c d f e a; turn a e f   discard a e f, top f = b4 -> T3 again.
#   Tops: b6 b4 b6 b4 ...; never c = b2 (nor a, d, e).
#
# With recycle_shuffle=true any recycled card may come up, so it is no stalemate.
NEVER_TURNED_UP = f"""
center: {RGY} b:0 b:1
0: row b9 | stack b8 b10 | discard b3 b4 | hand b5 b6 b2 b7
1: row b5 | stack b2 b10 | hand *
"""

# The same for seat 0, but seat 1's b2 lies in its row: the round stays live while
# seat 0 turns, so the turning sequence above can be watched through apply().
NEVER_TURNED_UP_LIVE = f"""
center: {RGY} b:0 b:1
0: row b9 | stack b8 b10 | discard b3 b4 | hand b5 b6 b2 b7
1: row b2 | stack b5 b10 | hand *
"""

# (d) The b2 on seat 0's discard top is the last playable card.  hand [a b c d] = [b4 b5 b6 b7],
# discard [e f] = [b3 b2].  Under turn_remaining (trace as in (c)) the tops after turning are
# b5 b4 b7 b4 b7 ...: one turn buries f = b2 for good.  Under recycle they are b5 b2 ...:
# the b2 comes back on the second turn.
LAST_CHANCE_ON_THE_DISCARD = f"""
center: {RGY} b:0 b:1
0: row b9 | stack b8 b10 | discard b3 b2 | hand b4 b5 b6 b7
1: row b5 | stack b2 b10 | hand *
"""

# (d) Seat 0's y10 fits its yellow pile 4 (y1-y9) and completes it; nothing new fits then.
# Before the play: hand [b3 b2 b4] (b4 on top), discard [y10].  T1 turns b4 b2 b3 (top b3,
# hand empty); T2 turns the discard face down (hand b3 b2 b4 y10, y10 on top) and turns
# y10 b4 b2: top b2, playable.  After playing y10 the discard is empty and the hand is
# exactly three cards: every turn shows its bottom card b3, turning the discard face down
# restores the same hand, and b2 (the middle card) never comes up, for both short_turn values.
LAST_CHANCE_BEFORE_A_DISCARD_PLAY = f"""
center: {_complete("rg")} y:0,0,0,0,0,0,0,0,0 y:1,1,1,1,1,1,1,1,1,1 b:0 b:1
0: row b9 | stack b5 b6 b7 b8 b10 | discard y10 | hand b3 b2 b4
1: row b5 | stack b2 b10 | hand *
"""
YELLOW_PILE_OF_SEAT_0 = 4

# (e) Expert variant.  Red and green are complete; the yellow and blue piles are complete
# with seat 0's 1-7 and seat 1's 8-10, so seat 0 holds y8 y9 y10 b8 b9 b10 and seat 1
# holds its 1-7 of yellow and blue.  The only cards that fit the center are seat 1's y1
# and b1, both under its stack top.  Seat 1's column y2 could take only a non-yellow 1.
EXPERT_CENTER = f"center: {_complete('rg')} y:0,0,0,0,0,0,0,1,1,1 b:0,0,0,0,0,0,0,1,1,1"

# Seat 0's last stack card b9 can go onto its column y10 (one lower, other colour):
# that placement empties the stack, a Ligretto Stop.  The round can go on.
EXPERT_PLACEMENT_TO_STOP = f"""
{EXPERT_CENTER}
0: row y10 | stack b9 | hand *
1: row y2 | stack y1 b1 b7 | hand *
"""

# Seat 0's column y8 would take only a non-yellow 7, and seat 0 has none left: nothing
# can ever move, in the expert variant too.
EXPERT_NOTHING_TO_PLACE = f"""
{EXPERT_CENTER}
0: row y8 | stack b9 | hand *
1: row y2 | stack y1 b1 b7 | hand *
"""

# Seat 0's b9 is at the bottom of a 3-card hand: one turn shows it, and it can then go
# from the discard onto column y10.
EXPERT_PLACEMENT_FROM_THE_HAND = f"""
{EXPERT_CENTER}
0: row y10 | stack b8 b10 | hand b9 y8 y9
1: row y2 | stack y1 b1 b7 | hand *
"""


def _blue_two_playable(game: Round, seat: int) -> bool:
    return any(isinstance(a, Play) for a in game.legal_actions(seat))


@pytest.mark.parametrize("rules", ALL_TURN_RULES, ids=ALL_TURN_IDS)
@pytest.mark.parametrize("expert", [False, True], ids=["base", "expert"])
def test_nothing_fits_anywhere_is_a_stalemate(rules: RuleSet, expert: bool) -> None:
    game = parse_position(NOTHING_FITS, rules.replace(expert=expert))
    assert game.stalemate_proven()
    assert not game.over  # a position built by hand is not ended until asked
    assert game.end_if_stalemate() == Applied((RoundStopped(Ending.STALEMATE_PROVEN, None),))
    assert game.ending is Ending.STALEMATE_PROVEN
    assert game.stopped_by is None
    assert game.end_if_stalemate() == Applied(())  # ending it twice does nothing
    assert game.ending is Ending.STALEMATE_PROVEN


@pytest.mark.parametrize("rules", ALL_TURN_RULES, ids=ALL_TURN_IDS)
def test_any_action_in_a_stalemate_ends_the_round(rules: RuleSet) -> None:
    game = parse_position(NOTHING_FITS, rules)
    result = game.apply(Turn(1))
    assert isinstance(result, Applied)
    assert isinstance(result.events[0], HandTurned)
    assert result.events[-1] == RoundStopped(Ending.STALEMATE_PROVEN, None)
    assert game.ending is Ending.STALEMATE_PROVEN


@pytest.mark.parametrize("rules", ALL_TURN_RULES, ids=ALL_TURN_IDS)
def test_a_fitting_card_reachable_in_the_hand_is_no_stalemate(rules: RuleSet) -> None:
    game = parse_position(REACHABLE_IN_HAND, rules)
    assert not game.stalemate_proven()
    assert game.end_if_stalemate() == Applied(())
    assert not game.over
    assert not _blue_two_playable(game, 0)
    assert game.apply(Turn(0)) == Applied((HandTurned(0, 3, card(0, "b5")),))
    assert game.apply(Turn(0)) == Applied((HandTurned(0, 3, card(0, "b2")),))
    assert Play(0, Source.DISCARD, BLUE_PILE_OF_SEAT_0) in game.legal_actions(0)
    result = game.apply(Play(0, Source.DISCARD, BLUE_PILE_OF_SEAT_0))
    assert isinstance(result, Applied)
    assert not game.over


# (discard top, cards turned, discard recycled first?) after each turn, from the traces above.
NEVER_TURNED_UP_SEQUENCE = {
    ShortTurn.TURN_REMAINING: [
        ("b6", 3, False),
        ("b5", 1, False),
        ("b7", 3, True),
        ("b5", 3, False),
        ("b7", 3, True),
        ("b5", 3, False),
        ("b7", 3, True),
        ("b5", 3, False),
    ],
    ShortTurn.RECYCLE: [
        ("b6", 3, False),
        ("b4", 3, True),
        ("b6", 3, False),
        ("b4", 3, True),
        ("b6", 3, False),
        ("b4", 3, True),
        ("b6", 3, False),
        ("b4", 3, True),
    ],
}


@pytest.mark.parametrize("short_turn", list(ShortTurn))
def test_the_unshuffled_turning_sequence(short_turn: ShortTurn) -> None:
    game = parse_position(NEVER_TURNED_UP_LIVE, RuleSet(short_turn=short_turn, recycle_shuffle=False))
    seen = []
    for _ in NEVER_TURNED_UP_SEQUENCE[short_turn]:
        result = game.apply(Turn(0))
        assert isinstance(result, Applied)
        turned = result.events[-1]
        assert isinstance(turned, HandTurned)
        recycled = [e for e in result.events if isinstance(e, HandRecycled)]
        assert all(not e.shuffled for e in recycled)
        seen.append((str(turned.discard_top), turned.count, bool(recycled)))
        assert not game.over
    assert seen == NEVER_TURNED_UP_SEQUENCE[short_turn]
    assert "b2" not in {top for top, _, _ in seen}


@pytest.mark.parametrize("short_turn", list(ShortTurn))
def test_a_card_the_turning_sequence_never_shows_is_a_stalemate(short_turn: ShortTurn) -> None:
    game = parse_position(NEVER_TURNED_UP, RuleSet(short_turn=short_turn, recycle_shuffle=False))
    assert game.stalemate_proven()
    assert game.end_if_stalemate() == Applied((RoundStopped(Ending.STALEMATE_PROVEN, None),))
    assert game.ending is Ending.STALEMATE_PROVEN
    assert game.apply(Turn(0)) == Refused(Reason.ROUND_OVER)


@pytest.mark.parametrize("short_turn", list(ShortTurn))
def test_with_shuffling_a_card_in_the_hand_can_always_come_up(short_turn: ShortTurn) -> None:
    game = parse_position(NEVER_TURNED_UP, RuleSet(short_turn=short_turn, recycle_shuffle=True))
    assert not game.stalemate_proven()
    assert game.end_if_stalemate() == Applied(())
    assert not game.over
    for _ in range(4):  # turning (and reshuffling) goes on; the round is not declared stuck
        result = game.apply(Turn(0))
        assert isinstance(result, Applied)
        assert not any(isinstance(e, RoundStopped) for e in result.events)


def test_a_turn_that_buries_the_last_playable_card_ends_the_round() -> None:
    game = parse_position(LAST_CHANCE_ON_THE_DISCARD, RuleSet(recycle_shuffle=False))
    assert not game.stalemate_proven()
    assert Play(0, Source.DISCARD, BLUE_PILE_OF_SEAT_0) in game.legal_actions(0)
    result = game.apply(Turn(0))
    assert result == Applied((HandTurned(0, 3, card(0, "b5")), RoundStopped(Ending.STALEMATE_PROVEN, None)))
    assert game.ending is Ending.STALEMATE_PROVEN
    assert game.stopped_by is None


def test_a_turn_that_only_delays_the_last_playable_card_does_not_end_the_round() -> None:
    game = parse_position(LAST_CHANCE_ON_THE_DISCARD, RuleSet(short_turn=ShortTurn.RECYCLE, recycle_shuffle=False))
    assert game.apply(Turn(0)) == Applied((HandTurned(0, 3, card(0, "b5")),))
    assert not game.over
    result = game.apply(Turn(0))
    assert isinstance(result, Applied)
    assert result.events[-1] == HandTurned(0, 3, card(0, "b2"))
    assert not game.over
    assert Play(0, Source.DISCARD, BLUE_PILE_OF_SEAT_0) in game.legal_actions(0)


def test_with_shuffling_burying_a_card_in_the_discard_is_no_stalemate() -> None:
    game = parse_position(LAST_CHANCE_ON_THE_DISCARD, RuleSet(recycle_shuffle=True))
    result = game.apply(Turn(0))
    assert result == Applied((HandTurned(0, 3, card(0, "b5")),))
    assert not game.over


@pytest.mark.parametrize("short_turn", list(ShortTurn))
def test_a_discard_play_that_shifts_the_packets_ends_the_round(short_turn: ShortTurn) -> None:
    rules = RuleSet(short_turn=short_turn, recycle_shuffle=False)
    game = parse_position(LAST_CHANCE_BEFORE_A_DISCARD_PLAY, rules)
    assert not game.stalemate_proven()

    # Without the play, two turns bring the b2 up (see the position's comment).
    turning = game.copy()
    assert turning.apply(Turn(0)) == Applied((HandTurned(0, 3, card(0, "b3")),))
    result = turning.apply(Turn(0))
    assert isinstance(result, Applied)
    assert result.events[-1] == HandTurned(0, 3, card(0, "b2"))
    assert not turning.over
    assert Play(0, Source.DISCARD, BLUE_PILE_OF_SEAT_0) in turning.legal_actions(0)

    # Playing the y10 first loses the b2 for good: the play itself ends the round.
    result = game.apply(Play(0, Source.DISCARD, YELLOW_PILE_OF_SEAT_0))
    assert result == Applied(
        (
            CardPlayed(0, card(0, "y10"), Source.DISCARD, 0, YELLOW_PILE_OF_SEAT_0, False, None),
            PileCompleted(YELLOW_PILE_OF_SEAT_0),
            RoundStopped(Ending.STALEMATE_PROVEN, None),
        )
    )
    assert game.ending is Ending.STALEMATE_PROVEN


def test_with_shuffling_the_discard_play_does_not_end_the_round() -> None:
    game = parse_position(LAST_CHANCE_BEFORE_A_DISCARD_PLAY, RuleSet(recycle_shuffle=True))
    result = game.apply(Play(0, Source.DISCARD, YELLOW_PILE_OF_SEAT_0))
    assert isinstance(result, Applied)
    assert not any(isinstance(e, RoundStopped) for e in result.events)
    assert not game.over


@pytest.mark.parametrize("rules", ALL_TURN_RULES, ids=ALL_TURN_IDS)
def test_expert_a_possible_placement_is_no_stalemate(rules: RuleSet) -> None:
    base = parse_position(EXPERT_PLACEMENT_TO_STOP, rules)
    assert base.stalemate_proven()  # without columns, nothing can ever move
    game = parse_position(EXPERT_PLACEMENT_TO_STOP, rules.replace(expert=True))
    assert not any(isinstance(a, Play) for seat in (0, 1) for a in game.legal_actions(seat))
    assert not game.stalemate_proven()
    assert game.end_if_stalemate() == Applied(())
    assert Place(0, Source.STACK, 0) in game.legal_actions(0)
    # a turn by either player must not end the round while the placement is possible
    assert not any(isinstance(e, RoundStopped) for e in events(game.apply(Turn(1))))
    assert not any(isinstance(e, RoundStopped) for e in events(game.apply(Turn(0))))
    assert not game.over
    result = game.apply(Place(0, Source.STACK, 0))
    assert result == Applied((CardPlaced(0, card(0, "b9"), Source.STACK, 0, None), RoundStopped(Ending.STOP, 0)))
    assert game.stopped_by == 0


@pytest.mark.parametrize("rules", ALL_TURN_RULES, ids=ALL_TURN_IDS)
def test_expert_nothing_to_play_or_place_is_a_stalemate(rules: RuleSet) -> None:
    game = parse_position(EXPERT_NOTHING_TO_PLACE, rules.replace(expert=True))
    assert not any(isinstance(a, (Play, Place)) for seat in (0, 1) for a in game.legal_actions(seat))
    assert game.stalemate_proven()
    result = game.apply(Turn(0))
    assert isinstance(result, Applied)
    assert result.events[-1] == RoundStopped(Ending.STALEMATE_PROVEN, None)


def test_expert_a_hand_card_that_could_go_onto_a_column_is_no_stalemate() -> None:
    rules = RuleSet(expert=True, recycle_shuffle=False)
    assert parse_position(EXPERT_PLACEMENT_FROM_THE_HAND, rules.replace(expert=False)).stalemate_proven()
    game = parse_position(EXPERT_PLACEMENT_FROM_THE_HAND, rules)
    assert not game.stalemate_proven()
    assert game.apply(Turn(0)) == Applied((HandTurned(0, 3, card(0, "b9")),))
    assert not game.over
    assert Place(0, Source.DISCARD, 0) in game.legal_actions(0)
    assert game.apply(Place(0, Source.DISCARD, 0)) == Applied(
        (CardPlaced(0, card(0, "b9"), Source.DISCARD, 0, card(0, "y8")),)
    )
    assert [face_text(f) for f in game.areas[0].row[0]] == ["y10", "b9"]


# --- brute force: the proof is exact in the base game ------------------------------------


def _random_position(rng: random.Random) -> str | None:
    """Two seats, row of one card; most piles complete, so only a few cards are left and fit."""
    tops = [[NUMBERS] * 4 for _ in range(2)]
    for seat in range(2):
        for _ in range(rng.choice((1, 1, 2))):
            tops[seat][rng.randrange(4)] = rng.randint(4, 9)
    piles, left = [], [[], []]
    for colour in range(4):
        for seat in range(2):
            piles.append(f"{'rgyb'[colour]}:{','.join([str(seat)] * tops[seat][colour])}")
            left[seat] += [face_of(colour, n) for n in range(tops[seat][colour] + 1, NUMBERS + 1)]
    lines = ["center: " + " ".join(piles)]
    for seat in range(2):
        cards = left[seat]
        if len(cards) < 2:
            return None
        rng.shuffle(cards)
        row, rest = cards[:1], cards[1:]
        stack_size = rng.randint(1, min(2, len(rest)))
        stack, rest = rest[:stack_size], rest[stack_size:]
        split = rng.randint(0, len(rest))
        discard, hand = rest[:split], rest[split:]

        def text(faces: list[int]) -> str:
            return " ".join(face_text(f) for f in faces)

        lines.append(f"{seat}: row {text(row)} | stack {text(stack)} | discard {text(discard)} | hand {text(hand)}")
    return "\n".join(lines)


def _key(game: Round) -> tuple[Any, ...]:
    areas = tuple((tuple(map(tuple, a.row)), tuple(a.stack), tuple(a.hand), tuple(a.discard)) for a in game.areas)
    return areas, tuple(game.pile_colours), tuple(len(p) for p in game.pile_seats)


def _can_play_now(game: Round) -> bool:
    return any(isinstance(a, Play) for seat in range(game.players) for a in game.legal_actions(seat))


def _explore(root: Round, cap: int) -> tuple[dict[Any, Round], dict[Any, list[Any]]] | None:
    """Every state reachable by plays and turns (a Stop ends a branch).  When the engine ends
    a round as a proven stalemate, that claim is checked here and the state explored further
    (with the ending cleared) so that the brute force can check it.  ``None`` past ``cap`` states."""
    states = {_key(root): root}
    edges: dict[Any, list[Any]] = {}
    queue = [_key(root)]
    for key in queue:
        game = states[key]
        children = []
        for seat in range(game.players):
            for action in game.legal_actions(seat):
                if isinstance(action, (Vote, Withdraw)):
                    continue
                child = game.copy()
                assert child.apply(action).ok
                if child.ending is Ending.STOP:
                    continue
                auto = child.ending is Ending.STALEMATE_PROVEN
                child.ending = None
                assert auto == child.stalemate_proven(), (
                    f"after {action} the engine {'ended' if auto else 'did not end'} the round, "
                    f"but stalemate_proven() is {child.stalemate_proven()}"
                )
                child_key = _key(child)
                if child_key not in states:
                    if len(states) >= cap:
                        return None
                    states[child_key] = child
                    queue.append(child_key)
                children.append(child_key)
        edges[key] = children
    return states, edges


@pytest.mark.parametrize("short_turn", list(ShortTurn))
def test_brute_force_the_stalemate_proof_is_exact(short_turn: ShortTurn) -> None:
    rules = RuleSet(short_turn=short_turn, recycle_shuffle=False)
    rng = random.Random(f"stalemate:{short_turn.value}")
    roots = {"proven": 0, "play later": 0}
    explored = 0
    checked_states = 0
    while explored < 60:
        text = _random_position(rng)
        if text is None:
            continue
        root = parse_position(text, rules)
        if _can_play_now(root):
            continue  # the interesting roots: nobody can play now
        explored += 1
        found = _explore(root, cap=1500)
        if found is None:
            continue
        states, edges = found
        # which states can reach one where a play is legal?
        reach = {key: _can_play_now(game) for key, game in states.items()}
        changed = True
        while changed:
            changed = False
            for key, children in edges.items():
                if not reach[key] and any(reach[c] for c in children):
                    reach[key] = changed = True
        for key, game in states.items():
            assert game.stalemate_proven() == (not reach[key]), (
                f"stalemate_proven() is {game.stalemate_proven()} but a play is "
                f"{'reachable' if reach[key] else 'unreachable'} from\n{text}"
            )
        checked_states += len(states)
        roots["proven" if root.stalemate_proven() else "play later"] += 1
    # the sample must hold both kinds of roots, or the check proves little
    assert roots["proven"] >= 10, roots
    assert roots["play later"] >= 10, roots
    assert checked_states >= 1000
