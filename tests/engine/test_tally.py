"""A round counted at a real table: its scores by the engine's one formula, its checks,
the match's end (the score keeper, docs/protocol.md "Score keeper")."""

from __future__ import annotations

import pytest

from ligretto.bots.spec import BotSpec
from ligretto.engine import PRESETS, Match, Round, RuleSet, ScoreSheet, Scoring, score_round
from ligretto.engine.events import Ending
from ligretto.engine.match import match_over
from ligretto.engine.scoring import RoundScore, score_tally
from ligretto.engine.tally import TALLY_ENDINGS, Tally, check_entry, standing, tally_scores, tally_sheet
from ligretto.sim.table import simulate_round

NAMES = ("Alice", "Bob", "Cleo", "Dan")
SEED_COUNTS = ((18, 11, 9, 18), (4, 3, 4, 0))
"""The seed examples of RULES.md §5 as one round Dan stopped: 18/4, 11/3, 9/4, 18/0."""


def tally(center: tuple[int, ...], stack: tuple[int, ...], stopped_by: int | None = 3) -> Tally:
    ending = Ending.STOP if stopped_by is not None else Ending.STALEMATE_VOTE
    return Tally(center, stack, ending, stopped_by)


@pytest.mark.parametrize("preset", list(PRESETS))
def test_the_seed_examples_score_as_the_rules_say(preset: str) -> None:
    rules = RuleSet.preset(preset)
    scores = tally_scores(rules, tally(*SEED_COUNTS), 4)
    assert [s.score for s in scores] == [10, 5, 1, 18]
    assert [(s.center, s.stack) for s in scores] == list(zip(*SEED_COUNTS, strict=True))


@pytest.mark.parametrize("preset", list(PRESETS))
@pytest.mark.parametrize("penalty", [0, 1, 3])
def test_stack_penalty_and_floor_at_zero(preset: str, penalty: int) -> None:
    rules = RuleSet.preset(preset).replace(stack_penalty=penalty, floor_at_zero=False)
    scores = tally_scores(rules, tally((2, 11, 9, 18), (10, 3, 4, 0)), 4)
    assert [s.score for s in scores] == [2 - 10 * penalty, 11 - 3 * penalty, 9 - 4 * penalty, 18]
    floored = tally_scores(rules.replace(floor_at_zero=True), tally((2, 11, 9, 18), (10, 3, 4, 0)), 4)
    assert [s.score for s in floored] == [max(0, s.score) for s in scores]


def test_stack_penalty_three_and_the_floor() -> None:
    rules = RuleSet().replace(stack_penalty=3)
    assert [s.score for s in tally_scores(rules, tally(*SEED_COUNTS), 4)] == [6, 2, -3, 18]
    floored = rules.replace(floor_at_zero=True)
    assert [s.score for s in tally_scores(floored, tally(*SEED_COUNTS), 4)] == [6, 2, 0, 18]


@pytest.mark.parametrize("preset", list(PRESETS))
def test_first_out_counts_only_who_stopped(preset: str) -> None:
    rules = RuleSet.preset(preset).replace(scoring="first_out")
    assert [s.score for s in tally_scores(rules, tally((), (), 1), 4)] == [0, 1, 0, 0]
    assert [s.score for s in tally_scores(rules, tally(*SEED_COUNTS), 4)] == [0, 0, 0, 1]
    assert [s.score for s in tally_scores(rules, tally((), (), None), 4)] == [0, 0, 0, 0]
    assert check_entry(rules, NAMES, tally((), (), 1), 1, ScoreSheet(4)) is None


def test_score_tally_is_what_score_round_uses() -> None:
    rules = RuleSet()
    assert score_tally(rules, [18, 18], [4, 0], 1) == (RoundScore(18, 4, 10), RoundScore(18, 0, 18))


def _counts(game: Round) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """What the table would count after the round: each seat's cards in the center (by
    their backs) and left in its Ligretto stack."""
    center = [0] * game.players
    for seats in game.pile_seats:
        for seat in seats:
            center[seat] += 1
    return tuple(center), tuple(len(area.stack) for area in game.areas)


@pytest.mark.parametrize("preset", list(PRESETS))
@pytest.mark.parametrize(
    "options",
    [{}, {"stack_penalty": 3}, {"floor_at_zero": True}, {"scoring": "first_out"}, {"stack_penalty": 0}],
)
def test_a_tally_of_an_online_round_scores_as_score_round(preset: str, options: dict[str, object]) -> None:
    rules = RuleSet.preset(preset).replace(**options)
    for players, seed in ((2, 11), (3, 12), (4, 13)):
        game = Round.deal(rules, players, seed)
        simulate_round(rules, [BotSpec.parse("greedy:skilled")] * players, seed, game=game)
        assert game.ending is not None
        center, stack = _counts(game)
        names = NAMES[:players]
        ending = Ending.STOP if game.ending is Ending.STOP else Ending.STALEMATE_VOTE
        counted = Tally(center, stack, ending, game.stopped_by)
        assert check_entry(rules, names, counted, 1, ScoreSheet(players)) is None
        assert tally_scores(rules, counted, players) == score_round(game)
        online = ScoreSheet(players)
        online.add(game)
        assert tally_sheet(rules, players, [counted]).totals() == online.totals()


def _refusal(entry: Tally, rules: RuleSet | None = None, sheet: ScoreSheet | None = None, number: int = 1) -> str:
    found = check_entry(rules or RuleSet(), NAMES, entry, number, sheet or ScoreSheet(4))
    assert found is not None, f"{entry} was accepted"
    return found.message


@pytest.mark.parametrize(
    ("entry", "words", "player"),
    [
        (tally((18, 11, 9, 18), (4, 11, 4, 0)), "Bob: a Ligretto stack holds 0-10 cards, not 11", 1),
        (tally((18, -1, 9, 18), (4, 3, 4, 0)), "Bob: a count is never negative, not -1 in the center", 1),
        (tally((18, 11, 9, 18), (4, 3, -2, 0)), "Cleo: a count is never negative, not -2 in the stack", 2),
        (tally((37, 11, 9, 18), (4, 3, 4, 0)), "Alice: 37 cards in the center and 4 in the stack", 0),
        (tally((18, 11, 9, 18), (4, 3, 4, 2)), "Dan called Stop with 2 cards left in the Ligretto stack", 3),
        (tally((18, 11, 9, 18), (4, 3, 4, 0), 4), "stopped_by 4 is not a player: the players are 0-3", None),
        (tally((18, 11, 9, 18), (4, 3, 4, 0), -1), "stopped_by -1 is not a player", None),
        (Tally((18, 11, 9, 18), (4, 3, 4, 0), Ending.STOP, None), "says who called it", None),
        (Tally((18, 11, 9, 18), (4, 3, 4, 0), Ending.STALEMATE_VOTE, 3), "nobody calls Stop in a stalemate", None),
        (Tally((18, 11, 9, 18), (4, 3, 4, 0), Ending.STALEMATE_PROVEN, None), "by stop or stalemate", None),
        (tally((18, 11, 9), (4, 3, 4, 0)), "a center count for each of the 4 players, not 3", None),
        (tally((), ()), "a center count for each of the 4 players, not 0", None),
    ],
)
def test_every_refusal_names_its_cause(entry: Tally, words: str, player: int | None) -> None:
    found = check_entry(RuleSet(), NAMES, entry, 1, ScoreSheet(4))
    assert found is not None
    assert words in found.message
    assert found.player == player


def test_the_bounds_themselves_are_allowed() -> None:
    rules = RuleSet()
    assert check_entry(rules, NAMES, tally((30, 0, 40, 0), (10, 10, 0, 0)), 1, ScoreSheet(4)) is None
    assert "31 cards in the center" in _refusal(tally((31, 0, 40, 0), (10, 10, 0, 0)))


def test_an_unlikely_tally_is_accepted() -> None:
    # Two players with an empty stack after a Stop: possible (the caller was first).
    assert check_entry(RuleSet(), NAMES, tally((18, 11, 9, 18), (0, 3, 4, 0)), 1, ScoreSheet(4)) is None
    assert check_entry(RuleSet(), NAMES, tally((0, 0, 0, 0), (10, 10, 10, 10), None), 1, ScoreSheet(4)) is None


def test_a_round_past_the_match_end_is_refused() -> None:
    rules = RuleSet().replace(match_end="rounds:2")
    rounds = [tally(*SEED_COUNTS), tally(*SEED_COUNTS)]
    sheet = tally_sheet(rules, 4, rounds)
    assert match_over(rules, sheet)
    assert "the match is over after round 2: no round 3" in _refusal(tally(*SEED_COUNTS), rules, sheet, 3)
    # a correction of a round already played is still allowed
    assert check_entry(rules, NAMES, tally(*SEED_COUNTS), 2, sheet) is None


@pytest.mark.parametrize("preset", list(PRESETS))
def test_the_match_ends_by_the_engines_rule(preset: str) -> None:
    rules = RuleSet.preset(preset).replace(match_end="target:30")
    sheet = tally_sheet(rules, 4, [tally(*SEED_COUNTS)])
    assert not standing(rules, sheet).over
    assert standing(rules, sheet).winners == ()
    sheet = tally_sheet(rules, 4, [tally(*SEED_COUNTS), tally(*SEED_COUNTS)])
    over = standing(rules, sheet)
    assert over.over and over.winners == (3,) and over.places == (2, 3, 4, 1)
    match = Match(rules, 4, 1)
    match.sheet = sheet
    assert match.over


def test_ties_share_places_and_win_together() -> None:
    rules = RuleSet().replace(match_end="rounds:1")
    result = standing(rules, tally_sheet(rules, 4, [tally((18, 18, 9, 18), (4, 0, 4, 0))]))
    assert result.over
    assert result.winners == (1, 3)
    assert result.places == (3, 1, 4, 1)


def test_a_stalemate_goes_on_the_sheet_as_a_stalemate_vote() -> None:
    assert TALLY_ENDINGS == {"stop": Ending.STOP, "stalemate": Ending.STALEMATE_VOTE}
    sheet = tally_sheet(RuleSet(), 4, [tally(*SEED_COUNTS, stopped_by=None)])
    assert sheet.endings == ["stalemate_vote"]
    assert sheet.stopped_by == [None]
    assert sheet.to_dict()["rounds"][0]["totals"] == [10, 5, 1, 18]


def test_first_out_rules_need_no_counts() -> None:
    rules = RuleSet().replace(scoring=Scoring.FIRST_OUT.value)
    assert check_entry(rules, NAMES, tally((), (), 2), 1, ScoreSheet(4)) is None
    assert tally_sheet(rules, 4, [tally((), (), 2)]).totals() == (0, 0, 1, 0)
    assert "a stack count for each of the 4 players, not 2" in _refusal(tally((), (1, 2), 2), rules)
