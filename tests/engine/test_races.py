"""Races for a pile (``ligretto.engine.races``): which plays can be contested, who won a
race, and the judging of plays by compensated time (docs/fairness.md)."""

from __future__ import annotations

import heapq

import pytest

from ligretto.engine import Place, Play, Reason, Refused, Round, RuleSet, Source, Turn, Vote, Withdraw, parse_position
from ligretto.engine.cards import Card, parse_face
from ligretto.engine.races import RACE_MS, behind, contestable, judge, race_winner, rivals, same_time, shows

# Seat 0's r4 (row 0) fits pile 0 (red 1-3); so does seat 1's, in its row.
BOTH = """
center: r:0,0,1 g:1,1
0: row r4 b9 y7 | stack g7 g8 y10 | hand *
1: row r4 b8 y6 | stack g5 b4 y9 | hand *
"""


def position(text: str, rules: RuleSet | None = None) -> Round:
    return parse_position(text, rules)


R4_ROW = Play(0, Source.ROW, 0, 0)


def test_a_play_is_contestable_when_a_rival_shows_a_card_for_the_same_pile() -> None:
    assert contestable(position(BOTH), R4_ROW)
    assert contestable(position(BOTH), Play(1, Source.ROW, 0, 0))


def test_the_rivals_are_every_other_seat_that_shows_a_card_for_the_pile() -> None:
    three = "center: r:0,0,1\n0: row r4 b9 y7 | stack g7 g8 y10 | hand *\n1: row b1 r4 y6 | stack g5 b4 y9 | hand *\n"
    assert rivals(position(three + "2: row b2 b8 y6 | stack g5 b4 r4 | hand *"), R4_ROW) == (1, 2)
    assert rivals(position(three + "2: row b2 b8 y6 | stack g5 b4 y4 | hand *"), R4_ROW) == (1,)
    assert rivals(position(three + "2: row b2 b8 y6 | stack g5 b4 y4 | hand *"), Play(2, Source.ROW, 0, 0)) == ()


@pytest.mark.parametrize(
    "rival",
    [
        "row b1 b8 y6 | stack g5 b4 r4 | hand *",  # r4 on its Ligretto stack
        "row b1 b8 y6 | stack g5 b4 y9 | discard g9 r4 | hand *",  # r4 on its discard pile
    ],
)
def test_a_rivals_stack_top_or_discard_top_contests_too(rival: str) -> None:
    game = position(f"center: r:0,0,1\n0: row r4 b9 y7 | stack g7 g8 y10 | hand *\n1: {rival}")
    assert contestable(game, R4_ROW)


@pytest.mark.parametrize(
    "rival",
    [
        "row b1 b8 y6 | stack g5 b4 y9 | hand *",  # r4 in the hidden hand only
        "row b1 b8 y6 | stack r4 b4 y9 | hand *",  # r4 in the stack, under its top
        "row b1 b8 y6 | stack g5 b4 y9 | discard r4 g9 | hand *",  # r4 in the discard, covered
        "row b1 b8 r5 | stack g5 b4 y9 | hand *",  # its red card fits only after mine
    ],
)
def test_a_play_no_rival_can_serve_now_is_not_contestable(rival: str) -> None:
    game = position(f"center: r:0,0,1\n0: row r4 b9 y7 | stack g7 g8 y10 | hand *\n1: {rival}")
    assert not contestable(game, R4_ROW)


def test_my_own_other_cards_do_not_contest_my_play() -> None:
    game = position("center: r:0,0,1\n0: row r4 b9 y7 | stack g7 g8 y10 | hand *\n1: row b1 b8 y6 | stack g5 | hand *")
    assert not shows(game.areas[1], parse_face("r4"))
    assert shows(game.areas[0], parse_face("r4"))
    assert not contestable(game, R4_ROW)


def test_other_actions_are_never_contestable() -> None:
    game = position(BOTH)
    actions = [Turn(0), Vote(0), Withdraw(0), Place(0, Source.STACK, 0)]
    assert not any(contestable(game, action) for action in actions)


def test_a_new_pile_a_play_that_does_not_fit_and_a_bad_play_are_not_contestable() -> None:
    game = position("""
    center: r:0,0,1 g:1,1
    0: row r4 b1 y7 | stack g7 g8 y10 | hand *
    1: row r4 b1 y6 | stack g5 b4 y3 | hand *
    """)
    assert not contestable(game, Play(0, Source.ROW, None, 1)), "a 1 starting a pile races no one"
    assert not contestable(game, Play(0, Source.ROW, 1, 0)), "r4 does not fit the green pile"
    assert not contestable(game, Play(0, Source.ROW, 7, 0)), "no such pile"
    assert not contestable(game, Play(0, Source.ROW, 0, 9)), "no such row column"
    assert not contestable(game, Play(5, Source.ROW, 0, 0)), "no such player"
    assert not contestable(game, Play(0, Source.DISCARD, 0)), "an empty discard pile"
    meant = Card.parse("r4", 1)
    assert not contestable(game, Play(0, Source.ROW, 0, 0, meant)), "not the card the player means"
    assert contestable(game, Play(0, Source.ROW, 0, 0, Card.parse("r4", 0)))


def test_nothing_is_contestable_once_the_round_is_over() -> None:
    game = position(BOTH)
    game.apply(Vote(0))
    game.apply(Vote(1))
    assert game.over
    assert not contestable(game, R4_ROW)


def test_the_winner_of_a_race_is_the_seat_whose_card_took_the_place() -> None:
    game = position(BOTH)
    assert game.apply(Play(1, Source.ROW, 0, 0)).ok
    lost = game.apply(R4_ROW)
    assert lost == Refused(Reason.DOES_NOT_FIT)
    assert race_winner(game, R4_ROW, lost) == 1


def test_the_winner_is_whoever_took_the_place_not_whoever_is_on_top() -> None:
    game = position("""
    center: r:0,0,1
    0: row r4 b9 y7 | stack g7 g8 y10 | hand *
    1: row r4 b8 y6 | stack g5 b4 y9 | hand *
    2: row r5 b7 y5 | stack g4 b3 y8 | hand *
    """)
    assert game.apply(Play(1, Source.ROW, 0, 0)).ok  # seat 1's r4 ...
    assert game.apply(Play(2, Source.ROW, 0, 0)).ok  # ... then seat 2's r5 on top of it
    lost = game.apply(R4_ROW)
    assert lost == Refused(Reason.DOES_NOT_FIT)
    assert race_winner(game, R4_ROW, lost) == 1


def test_a_race_for_the_last_place_of_a_pile_is_won_by_the_ten() -> None:
    game = position("""
    center: r:0,0,0,0,0,0,0,0,1
    0: row r10 b9 y7 | stack g7 g8 y10 | hand *
    1: row r10 b8 y6 | stack g5 b4 y9 | hand *
    """)
    play = Play(1, Source.ROW, 0, 0)
    assert contestable(game, play)
    assert game.apply(Play(0, Source.ROW, 0, 0)).ok
    lost = game.apply(play)
    assert lost == Refused(Reason.PILE_COMPLETE)
    assert race_winner(game, play, lost) == 0


def test_refusals_that_are_not_races_name_no_winner() -> None:
    game = position(BOTH)
    applied = game.apply(R4_ROW)
    assert race_winner(game, R4_ROW, applied) is None, "an applied play lost nothing"
    wrong_pile = Play(1, Source.ROW, 1, 0)  # r4 onto the green pile
    assert race_winner(game, wrong_pile, game.apply(wrong_pile)) is None
    too_high = Play(1, Source.ROW, 0, 1)  # b8 onto red
    assert race_winner(game, too_high, game.apply(too_high)) is None
    no_pile = Play(1, Source.ROW, 9, 0)
    assert race_winner(game, no_pile, game.apply(no_pile)) is None
    assert race_winner(game, Turn(1), Refused(Reason.NOTHING_TO_TURN)) is None


def test_a_play_too_high_for_the_pile_is_not_a_race() -> None:
    game = position("""
    center: r:0,0,1
    0: row r6 b9 y7 | stack g7 g8 y10 | hand *
    1: row r4 b8 y6 | stack g5 b4 y9 | hand *
    """)
    play = Play(0, Source.ROW, 0, 0)
    refused = game.apply(play)
    assert refused == Refused(Reason.DOES_NOT_FIT)
    assert race_winner(game, play, refused) is None


# --- judging by compensated time -------------------------------------------------------

W, CAP = 0.200, 0.150


def test_an_honest_play_is_ranked_when_it_would_have_been_played_at_the_table() -> None:
    # from 10 ms away: it saw the table 10 ms late, sent at 1.000, arrives 1.010: ranked 0.990
    release, compensated = judge(1.010, 1.000, 0.010, rival=None, window=W, cap=CAP)
    assert (release, compensated) == pytest.approx((1.010, 0.990))
    # from 100 ms away: sent at 1.000, arrives 1.100, ranked 0.900
    assert judge(1.100, 1.000, 0.100, rival=None, window=W, cap=CAP) == pytest.approx((1.100, 0.900))


def test_a_contested_play_is_held_while_a_rivals_earlier_play_could_come() -> None:
    # a near play (ranked 0.990) against a rival 100 ms away: a rival play ranked earlier
    # arrives at most 200 ms after its rank, so before 1.190: held until then
    assert judge(1.010, 1.000, 0.010, rival=0.100, window=W, cap=CAP) == pytest.approx((1.190, 0.990))
    # the far play against the near rival: any near play ranked earlier is already in
    assert judge(1.100, 1.000, 0.100, rival=0.010, window=W, cap=CAP) == pytest.approx((1.100, 0.900))
    # two seats equally far: nothing to wait for
    assert judge(1.050, 1.000, 0.050, rival=0.050, window=W, cap=CAP) == pytest.approx((1.050, 0.950))


def test_the_window_bounds_the_hold() -> None:
    assert judge(1.010, 1.000, 0.010, rival=0.100, window=0.080, cap=CAP) == pytest.approx((1.090, 0.990))
    assert judge(1.010, 1.000, 0.010, rival=0.100, window=0.0, cap=CAP) == pytest.approx((1.010, 0.990))


def test_a_play_that_is_not_contested_takes_effect_on_arrival() -> None:
    for estimate in (0.0, 0.010, 0.100, 1.0):
        release, compensated = judge(2.0, 2.0 - estimate, estimate, rival=None, window=W, cap=CAP)
        assert release == 2.0
        assert compensated == pytest.approx(2.0 - 2 * min(estimate, CAP))


def test_a_stamp_that_lies_early_gains_no_more_than_the_measured_delay() -> None:
    honest = judge(1.100, 1.000, 0.100, rival=0.010, window=W, cap=CAP)
    liar = judge(1.100, 0.600, 0.100, rival=0.010, window=W, cap=CAP)  # stamped 500 ms early
    assert liar == honest
    assert liar[1] == pytest.approx(0.900)


def test_the_cap_bounds_what_any_delay_earns() -> None:
    # a seat 400 ms away, honest: credited 150 ms each way, ranked 300 ms before its arrival
    assert judge(5.0, 4.6, 0.400, rival=0.0, window=W, cap=CAP) == pytest.approx((5.0, 4.7))
    assert judge(5.0, 4.6, 0.400, rival=0.0, window=W, cap=0.0) == pytest.approx((5.0, 5.0))
    # a rival that far holds a near play at most its capped round trip (and the window)
    assert judge(5.0, 5.0, 0.0, rival=0.400, window=1.0, cap=CAP) == pytest.approx((5.3, 5.0))


def test_a_stamp_later_than_the_arrival_is_ranked_at_the_arrival() -> None:
    assert judge(3.0, 3.5, 0.050, rival=None, window=W, cap=CAP) == pytest.approx((3.0, 2.95))


def test_judging_refuses_negative_figures() -> None:
    for window, cap, estimate, rival in (
        (-0.01, CAP, 0.0, 0.0),
        (W, -1.0, 0.0, 0.0),
        (W, CAP, -0.002, 0.0),
        (W, CAP, 0.0, -1.0),
    ):
        with pytest.raises(ValueError, match="must not be negative"):
            judge(1.0, 1.0, estimate, rival=rival, window=window, cap=cap)


def test_two_plays_arriving_in_one_order_are_judged_in_the_other() -> None:
    """Near (10 ms) sends at 1.050 and arrives 1.060 (ranked 1.040); far (60 ms) sent at
    1.020 and arrives later, 1.080 (ranked 0.960).  By arrival the near seat would win;
    judged, the far seat's play is released first: the near one is held until 1.160."""
    near_release, near_c = judge(1.060, 1.050, 0.010, rival=0.060, window=W, cap=CAP)
    far_release, far_c = judge(1.080, 1.020, 0.060, rival=0.010, window=W, cap=CAP)
    assert (near_release, far_release) == pytest.approx((1.160, 1.080))
    held = [(near_release, near_c, 0.5, "near"), (far_release, far_c, 0.7, "far")]
    heapq.heapify(held)
    assert [heapq.heappop(held)[-1] for _ in range(2)] == ["far", "near"]


def test_a_play_never_overtakes_an_earlier_ranked_play_held_for_its_pile() -> None:
    """A near play ranked 0.990 is held until 1.190 for a far rival; the far rival's play
    ranked later (1.000) arrives at 1.200 wanting to go at once: it waits behind it."""
    near = judge(1.010, 1.000, 0.010, rival=0.100, window=W, cap=CAP)
    far_release, far_c = judge(1.200, 1.100, 0.100, rival=0.010, window=W, cap=CAP)
    assert far_c > near[1] and far_release == pytest.approx(1.200)
    assert behind(far_release, far_c, [near]) == pytest.approx(1.200), "the near play went first already"
    early_far = judge(1.150, 1.050, 0.100, rival=0.010, window=W, cap=CAP)  # ranked 0.950: before
    assert behind(*early_far, [near]) == pytest.approx(1.150), "ranked earlier: it need not wait"
    late_far = judge(1.180, 1.080, 0.100, rival=0.010, window=W, cap=CAP)  # ranked 0.980: before too
    assert behind(*late_far, [near]) == pytest.approx(1.180)
    later_far = judge(1.185, 1.095, 0.090, rival=0.010, window=W, cap=CAP)  # ranked 1.005: after
    assert behind(*later_far, [near]) == pytest.approx(1.190), "waits for the near play's release"


def test_of_plays_released_together_the_earlier_rank_goes_first() -> None:
    # two seats 0 ms away: released as they arrive; at an exact tie the heap key
    # (release, compensated, tie) puts the earlier compensated time first
    a = (*judge(2.0, 2.0, 0.0, rival=0.0, window=0.0, cap=CAP), 0.1, "a")
    b = (*judge(2.0, 1.875, 0.125, rival=0.0, window=0.25, cap=0.5), 0.9, "b")
    assert a[0] == b[0] == 2.0
    assert sorted([a, b])[0][-1] == "b"


def test_a_race_is_two_cards_landing_at_most_race_ms_apart() -> None:
    assert RACE_MS == 250
    assert same_time(100.0, 100.25) and same_time(100.0, 100.0)
    assert not same_time(100.0, 100.251), "a play ranked 251 ms later came too late: no race"
    assert same_time(100.25, 100.0) and not same_time(100.26, 100.0), "either way (a negative margin)"
    assert not same_time(None, 100.0), "a card laid before a restart: not known, no race"
    # In whole milliseconds, so that times far from zero decide as the stored ones do.
    assert same_time(1795962800.125, 1795962800.375) and not same_time(1795962800.125, 1795962800.376)
