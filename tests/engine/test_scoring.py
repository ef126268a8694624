"""Scoring a round, the score sheet and a match (RULES.md §5-§6).

Positions are written in the notation of :mod:`ligretto.engine.notation` (lists bottom
card first; ``hand *`` is every card not written elsewhere).
"""

from __future__ import annotations

import json
import random

import pytest

from ligretto.engine import (
    Match,
    Place,
    Play,
    Round,
    RoundScore,
    RuleError,
    RuleSet,
    ScoreSheet,
    Scoring,
    Turn,
    Vote,
    parse_position,
    places,
    score_round,
    state_to_dict,
    winners,
)
from ligretto.engine.scoring import score_cards

CLASSIC = RuleSet()

# --- the seed examples -------------------------------------------------------------------

SEED_EXAMPLES = [
    # (center, stack, score) -- RULES.md §5: pt/it and fi
    (18, 4, 10),
    (18, 0, 18),
    (11, 3, 5),
    (9, 4, 1),
]


@pytest.mark.parametrize(("center", "stack", "score"), SEED_EXAMPLES)
def test_seed_examples(center: int, stack: int, score: int) -> None:
    assert score_cards(center, stack, CLASSIC) == score


def _pile(colour: str, seat: int, cards: int) -> str:
    """A pile of ``cards`` cards (1 up), all from ``seat``'s deck: ``_pile("g", 2, 3)`` is ``g:2,2,2``."""
    return f"{colour}:{','.join([str(seat)] * cards)}"


# Four seats with the seed examples' counts at the end of a round that seat 1 stopped:
# seat 0 has 18 cards in the center (red 1-10, green 1-8) and 4 in its stack; seat 1 has
# 18 and an empty stack; seat 2 has 11 (red 1-10, green 1) and 3; seat 3 has 9 (red 1-9) and 4.
# Rows, hands and discard piles hold the rest (seat 2 also has two discarded cards).
SEED_EXAMPLES_CENTER = " ".join(
    (
        _pile("r", 0, 10),
        _pile("g", 0, 8),
        _pile("r", 1, 10),
        _pile("g", 1, 8),
        _pile("r", 2, 10),
        _pile("g", 2, 1),
        _pile("r", 3, 9),
    )
)
SEED_EXAMPLES_ROUND = f"""
center: {SEED_EXAMPLES_CENTER}
0: row y1 y2 y3 | stack b1 b2 b3 b4 | hand *
1: row y1 y2 y3 | stack | hand *
2: row y1 y2 y3 | stack b1 b2 b3 | discard b9 b10 | hand *
3: row y1 y2 y3 | stack b1 b2 b3 b4 | hand *
ending: stop 1
"""

# The same counts, but the round was ended by a vote: seat 1 still has a card in its stack
# (so it scores 18 - 2 = 16), and nobody called Stop.
SEED_EXAMPLES_VOTED_OUT = f"""
center: {SEED_EXAMPLES_CENTER}
0: row y1 y2 y3 | stack b1 b2 b3 b4 | hand *
1: row y1 y2 y3 | stack b5 | hand *
2: row y1 y2 y3 | stack b1 b2 b3 | discard b9 b10 | hand *
3: row y1 y2 y3 | stack b1 b2 b3 b4 | hand *
voted: 0 1 2 3
ending: stalemate_vote
"""


def test_a_finished_round_scores_the_seed_examples() -> None:
    game = parse_position(SEED_EXAMPLES_ROUND)
    assert score_round(game) == tuple(RoundScore(c, s, score) for c, s, score in SEED_EXAMPLES)
    assert winners([line.score for line in score_round(game)]) == (1,)


def test_center_cards_are_sorted_by_back() -> None:
    """A pile holds cards of several players; each card scores for the deck it came from."""
    game = parse_position(
        """
        center: r:0,1,0,1,2 g:2,2,0 b:1
        0: row y1 y2 y3 | stack b1 b2 | hand *
        1: row y1 y2 y3 | stack b2 b3 b4 | hand *
        2: row y1 y2 y3 | stack | hand *
        ending: stop 2
        """
    )
    assert score_round(game) == (RoundScore(3, 2, -1), RoundScore(3, 3, -3), RoundScore(3, 0, 3))


# Seat 0: 5 cards in the center and 2 in the stack; its other 33 cards lie in the row, the
# hand or the discard pile in different proportions: none of them may change the score.
_MOST_OF_SEAT_0 = "r8 r9 r10 g6 g7 g8 g9 g10 y1 y2 y3 y4 y5 y6 y7 y8 y9 y10 b3 b4 b5 b6 b7 b8 b9 b10"
ROW_HAND_DISCARD_POSITIONS = [
    """
    center: r:0,0,0,0,0
    0: row g1 g2 g3 g4 g5 | stack b1 b2 | discard | hand *
    1: row y1 y2 y3 y4 y5 | stack | hand *
    ending: stop 1
    """,
    """
    center: r:0,0,0,0,0
    0: row g1 g2 g3 g4 g5 | stack b1 b2 | discard y1 y2 y3 y4 y5 y6 y7 y8 y9 y10 b3 b4 b5 | hand *
    1: row y1 y2 y3 y4 y5 | stack | hand *
    ending: stop 1
    """,
    f"""
    center: r:0,0,0,0,0
    0: row g1 g2 g3 g4 g5 | stack b1 b2 | hand r6 r7 | discard {_MOST_OF_SEAT_0}
    1: row y1 y2 y3 y4 y5 | stack | hand *
    ending: stop 1
    """,
    """
    center: r:0,0,0,0,0
    0: row g1 | stack b1 b2 | hand *
    1: row y1 | stack | hand *
    ending: stop 1
    """,
]


@pytest.mark.parametrize("position", ROW_HAND_DISCARD_POSITIONS)
def test_row_hand_and_discard_cards_count_zero(position: str) -> None:
    game = parse_position(position)
    assert score_round(game) == (RoundScore(5, 2, 1), RoundScore(0, 0, 0))


def test_stack_penalty_three() -> None:
    rules = CLASSIC.replace(stack_penalty=3)
    assert score_cards(18, 4, rules) == 6
    assert score_cards(18, 0, rules) == 18
    game = parse_position(SEED_EXAMPLES_ROUND, rules)
    assert [line.score for line in score_round(game)] == [6, 18, 2, -3]


@pytest.mark.parametrize(
    ("center", "stack", "unfloored"),
    [(9, 5, -1), (0, 10, -20), (3, 2, -1), (4, 2, 0), (18, 4, 10)],
)
def test_floor_at_zero(center: int, stack: int, unfloored: int) -> None:
    assert score_cards(center, stack, CLASSIC.replace(floor_at_zero=False)) == unfloored
    assert score_cards(center, stack, CLASSIC.replace(floor_at_zero=True)) == max(unfloored, 0)


def test_floor_at_zero_in_a_finished_round() -> None:
    rules = CLASSIC.replace(stack_penalty=3)
    assert [line.score for line in score_round(parse_position(SEED_EXAMPLES_ROUND, rules))] == [6, 18, 2, -3]
    floored = parse_position(SEED_EXAMPLES_ROUND, rules.replace(floor_at_zero=True))
    assert score_round(floored)[3] == RoundScore(9, 4, 0)


def test_seed_es_floors_at_zero() -> None:
    assert RuleSet.preset("seed-es").floor_at_zero
    assert score_cards(9, 5, RuleSet.preset("seed-es")) == 0
    assert score_cards(9, 5, RuleSet.preset("classic")) == -1


def test_first_out_gives_one_point_to_who_called_stop() -> None:
    rules = CLASSIC.replace(scoring="first_out")
    assert rules.scoring is Scoring.FIRST_OUT
    game = parse_position(SEED_EXAMPLES_ROUND, rules)
    assert [line.score for line in score_round(game)] == [0, 1, 0, 0]
    # the counts are still on the sheet
    assert [(line.center, line.stack) for line in score_round(game)] == [(18, 4), (18, 0), (11, 3), (9, 4)]


def test_first_out_stalemate_gives_everyone_zero() -> None:
    game = parse_position(SEED_EXAMPLES_VOTED_OUT, CLASSIC.replace(scoring="first_out"))
    assert game.stopped_by is None
    assert [line.score for line in score_round(game)] == [0, 0, 0, 0]
    assert [line.score for line in score_round(parse_position(SEED_EXAMPLES_VOTED_OUT))] == [10, 16, 5, 1]


def test_first_out_after_a_real_stop() -> None:
    game = Round.deal(CLASSIC.replace(scoring="first_out"), 3, seed=5)
    _play_out(game, random.Random(5))
    assert game.stopped_by is not None
    expected = [0, 0, 0]
    expected[game.stopped_by] = 1
    assert [line.score for line in score_round(game)] == expected


@pytest.mark.parametrize(
    ("scores", "expected"),
    [
        ([5, 5, 3], (0, 1)),
        ([1], (0,)),
        ([-2, -1, -1, -3], (1, 2)),
        ([7, 7, 7], (0, 1, 2)),
        ([0, 9, 2, 9, 9], (1, 3, 4)),
    ],
)
def test_ties_give_several_round_winners(scores: list[int], expected: tuple[int, ...]) -> None:
    assert winners(scores) == expected


@pytest.mark.parametrize(
    ("scores", "expected"),
    [
        ([5, 9, 5, 2], (2, 1, 2, 4)),
        ([1], (1,)),
        ([-2, -1, -1, -3], (3, 1, 1, 4)),
        ([7, 7, 7], (1, 1, 1)),
        ([0, 9, 2, 9, 9], (5, 1, 4, 1, 1)),
    ],
)
def test_ties_share_a_place_and_the_next_place_is_skipped(scores: list[int], expected: tuple[int, ...]) -> None:
    assert places(scores) == expected


# seat 0: 4 in the center, 0 in the stack -> 4; seat 1: 6 and 1 -> 4; seat 2: 2 and 1 -> 0
TIED_ROUND = """
center: r:0,0,0,0 g:1,1,1,1,1,1 b:2,2
0: row y1 y2 y3 | stack | hand *
1: row y1 y2 y3 | stack b1 | hand *
2: row y1 y2 y3 | stack b3 | hand *
ending: stop 0
"""


def test_a_tied_round_has_several_winners() -> None:
    sheet = ScoreSheet(3)
    assert [line.score for line in sheet.add(parse_position(TIED_ROUND))] == [4, 4, 0]
    assert sheet.round_winners(0) == (0, 1)
    assert sheet.format().splitlines()[2].endswith("*")
    assert sheet.format().splitlines()[3].endswith("*")
    assert not sheet.format().splitlines()[4].endswith("*")


# --- the score sheet ---------------------------------------------------------------------


def _sheet() -> ScoreSheet:
    sheet = ScoreSheet(4)
    sheet.add(parse_position(SEED_EXAMPLES_ROUND))  # 10 18 5 1
    sheet.add(parse_position(SEED_EXAMPLES_ROUND, CLASSIC.replace(stack_penalty=3)))  # 6 18 2 -3
    sheet.add(parse_position(SEED_EXAMPLES_VOTED_OUT))  # 10 16 5 1
    return sheet


def test_sheet_lines_and_running_totals() -> None:
    sheet = _sheet()
    assert [[line.score for line in row] for row in sheet.rounds] == [[10, 18, 5, 1], [6, 18, 2, -3], [10, 16, 5, 1]]
    assert sheet.rounds[0][2] == RoundScore(11, 3, 5)
    assert sheet.totals(1) == (10, 18, 5, 1)
    assert sheet.totals(2) == (16, 36, 7, -2)
    assert sheet.totals() == (26, 52, 12, -1)
    assert sheet.endings == ["stop", "stop", "stalemate_vote"]
    assert sheet.stopped_by == [1, 1, None]
    assert sheet.round_winners(2) == (1,)


def test_sheet_to_dict() -> None:
    data = _sheet().to_dict()
    assert data["players"] == 4
    assert data["totals"] == [26, 52, 12, -1]
    assert [row["totals"] for row in data["rounds"]] == [[10, 18, 5, 1], [16, 36, 7, -2], [26, 52, 12, -1]]
    assert data["rounds"][1]["lines"][3] == {"center": 9, "stack": 4, "score": -3}
    assert data["rounds"][2]["ending"] == "stalemate_vote"
    assert data["rounds"][2]["stopped_by"] is None
    assert [row["winners"] for row in data["rounds"]] == [[1], [1], [1]]
    assert data["places"] == [2, 1, 3, 4]


def test_sheet_round_trip() -> None:
    sheet = _sheet()
    again = ScoreSheet.from_dict(json.loads(json.dumps(sheet.to_dict())))
    assert again.to_dict() == sheet.to_dict()
    assert again.rounds == sheet.rounds
    assert again.totals() == sheet.totals()
    assert again.endings == sheet.endings
    assert again.stopped_by == sheet.stopped_by
    empty = ScoreSheet.from_dict(ScoreSheet(3).to_dict())
    assert empty.players == 3 and empty.rounds == [] and empty.totals() == (0, 0, 0)


def test_totals_have_no_cap() -> None:
    sheet = ScoreSheet.from_dict(
        {
            "players": 2,
            "rounds": [
                {"ending": "stop", "stopped_by": 0, "lines": [{"center": 60, "stack": 0, "score": 60}] * 2},
                {"ending": "stop", "stopped_by": 1, "lines": [{"center": 55, "stack": 0, "score": 55}] * 2},
            ],
        }
    )
    assert sheet.totals() == (115, 115)


def test_sheet_format_shows_every_player() -> None:
    sheet = _sheet()
    text = sheet.format()
    for name in ("Player 1", "Player 2", "Player 3", "Player 4"):
        assert text.count(name) == 3  # one line per round
    assert "Player 5" not in text
    named = sheet.format(["Ana", "Bea", "Carla", "Dora"])
    lines = named.splitlines()
    for name, total in zip(["Ana", "Bea", "Carla", "Dora"], [26, 52, 12, -1], strict=True):
        last = [line for line in lines if line.startswith(name)][-1]
        assert last.split()[1:5] == [str(n) for n in _last_line_numbers(sheet, name)]
        assert last.split()[4] == str(total)
    # the round winner is marked
    assert next(line for line in lines if line.startswith("Bea")).endswith("*")
    assert not next(line for line in lines if line.startswith("Ana")).endswith("*")


def _last_line_numbers(sheet: ScoreSheet, name: str) -> list[int]:
    seat = ["Ana", "Bea", "Carla", "Dora"].index(name)
    line = sheet.rounds[-1][seat]
    return [line.center, line.stack, line.score, sheet.totals()[seat]]


def test_sheet_refuses_an_unfinished_round_and_a_wrong_table() -> None:
    sheet = ScoreSheet(2)
    with pytest.raises(ValueError, match="finished"):
        sheet.add(Round.deal(CLASSIC, 2, seed=1))
    with pytest.raises(ValueError, match="players"):
        sheet.add(parse_position(SEED_EXAMPLES_ROUND))
    assert sheet.rounds == []


# --- a match -----------------------------------------------------------------------------


def _play_out(game: Round, rng: random.Random, seats: list[int] | None = None) -> None:
    """Greedy random play: every seat in turn plays a card if it can, else turns."""
    seats = list(range(game.players)) if seats is None else seats
    for _ in range(20000):
        for seat in seats:
            if game.over:
                return
            moves = [a for a in game.legal_actions(seat) if isinstance(a, (Play, Place))]
            game.apply(rng.choice(moves) if moves else Turn(seat))
    raise AssertionError("the round did not end")


def _vote_out(game: Round) -> None:
    for seat in range(game.players):
        game.apply(Vote(seat))
    assert game.over


@pytest.mark.parametrize("rounds", [1, 3])
def test_match_of_n_rounds(rounds: int) -> None:
    match = Match(CLASSIC.replace(match_end=f"rounds:{rounds}"), 3, seed=11)
    rng = random.Random(11)
    for number in range(1, rounds + 1):
        assert not match.over
        _play_out(match.new_round(), rng)
        scores = match.finish_round()
        assert scores == match.sheet.rounds[-1]
        assert len(match.sheet.rounds) == number
    assert match.over
    with pytest.raises(ValueError, match="over"):
        match.new_round()
    totals = match.sheet.totals()
    assert match.winners() == tuple(seat for seat in range(3) if totals[seat] == max(totals))


def test_match_to_a_target() -> None:
    target = 30
    match = Match(CLASSIC.replace(match_end=f"target:{target}"), 3, seed=4)
    rng = random.Random(4)
    played = 0
    while not match.over:
        assert max(match.sheet.totals()) < target  # it only ends once a total reaches the target
        _play_out(match.new_round(), rng)
        match.finish_round()
        played += 1
        assert played < 50
    assert played >= 2  # the target was chosen so that one round is not enough
    totals = match.sheet.totals()
    assert max(totals) >= target
    assert max(match.sheet.totals(played - 1)) < target
    best = max(totals)
    assert match.winners() == tuple(seat for seat, total in enumerate(totals) if total == best)
    with pytest.raises(ValueError, match="over"):
        match.new_round()


def test_match_target_with_seed_pt_preset() -> None:
    rules = RuleSet.preset("seed-pt")
    assert str(rules.match_end) == "target:100"
    match = Match(rules, 2, seed=1)
    rng = random.Random(1)
    while not match.over:
        _play_out(match.new_round(), rng)
        match.finish_round()
    assert max(match.sheet.totals()) >= 100
    assert all(max(match.sheet.totals(n)) < 100 for n in range(1, len(match.sheet.rounds)))


def test_match_ties_give_several_winners() -> None:
    # every round is voted out at once: everyone keeps 10 stack cards and scores -20
    match = Match(CLASSIC.replace(match_end="rounds:2"), 3, seed=8)
    for _ in range(2):
        _vote_out(match.new_round())
        assert [line.score for line in match.finish_round()] == [-20, -20, -20]
    assert match.over
    assert match.winners() == (0, 1, 2)


def test_match_round_seeds() -> None:
    def seeds_and_deals(seed: int) -> tuple[list[int], list[dict[str, object]]]:
        match = Match(CLASSIC.replace(match_end="rounds:4"), 2, seed=seed)
        seeds, deals = [], []
        while not match.over:
            game = match.new_round()
            seeds.append(game.seed)
            deals.append(state_to_dict(game)["areas"])
            _vote_out(game)
            match.finish_round()
        return seeds, deals

    seeds, deals = seeds_and_deals(123)
    assert len(seeds) == 4
    assert len(set(seeds)) == 4  # every round is dealt from its own seed
    assert len({json.dumps(deal) for deal in deals}) == 4  # and dealt differently
    assert seeds_and_deals(123) == (seeds, deals)  # reproducible from the match seed
    other, _ = seeds_and_deals(124)
    assert not set(other) & set(seeds)


def test_new_round_refuses_while_the_current_round_is_unfinished() -> None:
    match = Match(CLASSIC, 2, seed=3)
    game = match.new_round()
    with pytest.raises(ValueError, match="still being played"):
        match.new_round()
    with pytest.raises(ValueError):
        match.finish_round()
    assert match.current is game
    assert match.sheet.rounds == []
    _vote_out(game)
    match.finish_round()
    assert match.new_round() is not game


def test_finish_round_before_any_round() -> None:
    with pytest.raises(ValueError, match="no round"):
        Match(CLASSIC, 2, seed=3).finish_round()


def test_match_checks_the_player_count() -> None:
    with pytest.raises(RuleError):
        Match(CLASSIC, 1, seed=0)
    with pytest.raises(RuleError):
        Match(CLASSIC, 13, seed=0)


def test_a_round_goes_on_the_sheet_once() -> None:
    match = Match(CLASSIC, 2, seed=5)
    game = match.new_round()
    _vote_out(game)
    match.finish_round()
    with pytest.raises(ValueError, match="no round to record"):
        match.finish_round()
    assert len(match.sheet.rounds) == 1


def test_a_finished_round_must_be_recorded_before_the_next_deal() -> None:
    match = Match(CLASSIC, 2, seed=5)
    _vote_out(match.new_round())
    with pytest.raises(ValueError, match="finish_round"):
        match.new_round()


def test_match_json_round_trip_keeps_the_current_round_and_totals() -> None:
    match = Match(RuleSet.preset("seed-pt"), 3, seed=8)
    _vote_out(match.new_round())
    match.finish_round()
    current = match.new_round()
    current.apply(Turn(1))
    again = Match.from_dict(json.loads(json.dumps(match.to_dict())))
    assert again.sheet.totals() == match.sheet.totals()
    assert again.round_number == match.round_number == 2
    assert again.current is not None
    assert state_to_dict(again.current) == state_to_dict(current)
    with pytest.raises(ValueError, match="still being played"):
        again.new_round()
