"""The bot strategies: random, greedy and smart, and strategies of one's own.

Positions are written in the engine's notation (``ligretto.engine.notation``): lists bottom
card first, so the last card of a stack or discard pile is its visible top.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import positions
from ligretto.bots import (
    STRATEGIES,
    GreedyStrategy,
    Observation,
    RandomStrategy,
    SharpStrategy,
    SmartStrategy,
    Strategy,
    parse_bots,
    register,
)
from ligretto.bots.driver import LOOK_AGAIN
from ligretto.bots.strategies import SHARP_PATIENCE, STUCK_PASSES
from ligretto.engine import (
    PRESETS,
    Action,
    Place,
    Play,
    Round,
    RuleSet,
    Source,
    Turn,
    Vote,
    Withdraw,
    parse_position,
)
from ligretto.sim import simulate_round

# Seat 0 can play the row r2 (pile 0), the stack top b2 (pile 2) and the discard top g3 (pile 1).
STACK_ROW_DISCARD = """
center: r:1 g:1,1 b:1
0: row r2 y5 y6 | stack y7 b2 | discard y9 g3 | hand *
1: row b5 g6 y4 | stack g7 g8 | hand *
"""
# As above without the stack play (the stack top is y8).
ROW_DISCARD = """
center: r:1 g:1,1 b:1
0: row r2 y5 y6 | stack y7 y8 | discard y9 g3 | hand *
1: row b5 g6 y4 | stack g7 g8 | hand *
"""
# Only the discard top g3 plays.
DISCARD_ONLY = """
center: r:1 g:1,1 b:1
0: row r5 y5 y6 | stack y7 y8 | discard y9 g3 | hand *
1: row b5 g6 y4 | stack g7 g8 | hand *
"""
# Two row plays of the same worth: r2 on pile 0 and b2 on pile 1.
TWO_ROW_PLAYS = """
center: r:1 b:1
0: row r2 y5 b2 | stack y7 y8 | discard y9 g6 | hand *
1: row b5 g6 y4 | stack g7 g8 | hand *
"""
# Nothing of seat 0 fits: no 1 in sight and no pile its cards follow.
NO_PLAY = """
center: r:1,1
0: row g5 y8 b9 | stack y7 y6 | discard b4 | hand *
1: row b3 g7 y4 | stack g9 g8 | hand *
"""
# Seat 0 can never play while the center stays as it is: all its 1s and its r2 lie under
# the stack top.  Seat 1 can play (its r1), so the round is no proven stalemate.
STUCK = """
0: row g5 y8 b9 | stack r1 g1 y1 b1 r2 b5 b6 b7 b8 y10 | hand *
1: row r1 g4 y6 | stack b3 b4 | hand *
"""
STUCK_HAND = 40 - 3 - 10
# Expert variant: the discard top g3 plays on pile 0; the stack top r4 goes onto column 0 (g5).
EXPERT_PLACE = """
center: g:1,1
0: row g5 y8 b9 | stack y7 r4 | discard y9 g3 | hand *
1: row b5 g6 y4 | stack g7 g8 | hand *
"""
# As above, with a row play as well (r2 on pile 1).
EXPERT_ROW = """
center: g:1,1 r:1
0: row g5 r2 b9 | stack y7 r4 | discard y9 g3 | hand *
1: row b5 g6 y4 | stack g7 g8 | hand *
"""


def position(text: str, expert: bool = False) -> Round:
    return parse_position(text, RuleSet(expert=expert))


def choose(strategy: type[Strategy], text: str, seed: int = 0, expert: bool = False) -> Action | None:
    return strategy(random.Random(seed)).choose(Observation(position(text, expert), 0))


def play(source: Source, pile: int | None, position: int = 0) -> Play:
    return Play(0, source, pile, position)


# --- random ----------------------------------------------------------------------------


CHI_SQUARE_999 = {1: 10.828, 2: 13.816, 3: 16.266, 4: 18.467, 5: 20.515, 6: 22.458, 7: 24.322, 8: 26.124}
"""The 99.9 % quantile of chi-square by degrees of freedom."""


@pytest.mark.parametrize("text", [STACK_ROW_DISCARD, TWO_ROW_PLAYS, EXPERT_ROW])
def test_random_picks_uniformly_among_legal_actions(text: str) -> None:
    expert = text is EXPERT_ROW
    game = position(text, expert)
    seen = Observation(game, 0)
    legal = seen.legal_actions()
    assert len(legal) >= 4
    bot = RandomStrategy(random.Random(2024))
    draws = 1000 * len(legal)
    counts = Counter(bot.choose(seen) for _ in range(draws))
    assert set(counts) == set(legal), "every legal action, and only those, is chosen"
    expected = draws / len(legal)
    chi2 = sum((counts[a] - expected) ** 2 / expected for a in legal)
    assert chi2 < CHI_SQUARE_999[len(legal) - 1], f"not uniform: {dict(counts)}"


def test_random_takes_stalemate_votes_and_withdrawals_too() -> None:
    game = position(STUCK)
    bot = RandomStrategy(random.Random(3))
    assert {bot.choose(Observation(game, 0)) for _ in range(100)} == {Turn(0), Vote(0)}
    game.apply(Vote(0))
    assert {bot.choose(Observation(game, 0)) for _ in range(100)} == {Turn(0), Withdraw(0)}


# --- properties over many positions ----------------------------------------------------


def play_some(rules: RuleSet, players: int, seed: int, steps: int) -> Round:
    """A dealt round after ``steps`` random actions (plays favoured, no votes)."""
    return positions.play_some(rules, players, seed, steps, key="positions", plays_share=0.5)


def smart_rank(action: Action) -> int | None:
    """Smart's documented order: stack play, row play, (expert) stack top onto a column,
    discard play; ``None`` for everything else."""
    if isinstance(action, Play):
        return {Source.STACK: 0, Source.ROW: 1, Source.DISCARD: 3}[action.source]
    if isinstance(action, Place) and action.source is Source.STACK:
        return 2
    return None


def seats_of_positions(preset: str, players: int, seed: int, steps: int) -> Iterator[tuple[Round, int]]:
    game = play_some(RuleSet.preset(preset), players, seed, steps)
    for seat in range(players):
        yield game, seat


CASES = st.tuples(
    st.sampled_from(sorted(PRESETS)), st.sampled_from([2, 3, 4, 6]), st.integers(0, 10_000), st.integers(0, 300)
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(CASES, st.integers(0, 1000))
def test_every_strategy_chooses_a_legal_action(case: tuple[str, int, int, int], rng_seed: int) -> None:
    for game, seat in seats_of_positions(*case):
        if game.over:
            continue  # see test_every_strategy_waits_when_the_round_is_over
        legal = game.legal_actions(seat)
        for name in ("random", "greedy", "smart", "sharp"):
            chosen = STRATEGIES[name](random.Random(rng_seed)).choose(Observation(game, seat))
            assert chosen is None or chosen in legal, f"{name} chose {chosen}, not legal"
            if chosen is None:
                assert not any(isinstance(a, Play) for a in legal), f"{name} waits with a play in hand"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(CASES)
def test_greedy_plays_the_first_play_in_legal_order_else_turns(case: tuple[str, int, int, int]) -> None:
    for game, seat in seats_of_positions(*case):
        if game.over:
            continue
        legal = game.legal_actions(seat)
        chosen = GreedyStrategy(random.Random(0)).choose(Observation(game, seat))
        plays = [a for a in legal if isinstance(a, Play)]
        if plays:
            assert chosen == plays[0]
        elif Turn(seat) in legal:
            assert chosen == Turn(seat), "a fresh greedy bot with no play turns"
        else:
            assert chosen in (Vote(seat), None)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(CASES, st.integers(0, 1000))
def test_smart_takes_a_best_ranked_action(case: tuple[str, int, int, int], rng_seed: int) -> None:
    for game, seat in seats_of_positions(*case):
        if game.over:
            continue
        legal = game.legal_actions(seat)
        chosen = SmartStrategy(random.Random(rng_seed)).choose(Observation(game, seat))
        ranks = [r for r in map(smart_rank, legal) if r is not None]
        if ranks:
            assert chosen is not None and smart_rank(chosen) == min(ranks), f"{chosen} among {legal}"
        else:
            assert chosen is None or isinstance(chosen, (Turn, Vote, Place)), f"{chosen} with no play"
            assert chosen != Vote(seat) or Turn(seat) not in legal, "a fresh smart bot votes only when stuck"


# --- greedy and smart in chosen positions ----------------------------------------------


def test_greedy_takes_the_first_play_row_then_stack_then_discard() -> None:
    assert choose(GreedyStrategy, STACK_ROW_DISCARD) == play(Source.ROW, 0)
    assert choose(GreedyStrategy, DISCARD_ONLY) == play(Source.DISCARD, 1)
    assert choose(GreedyStrategy, NO_PLAY) == Turn(0)
    # Greedy does not use the expert placements: it plays the discard top.
    assert choose(GreedyStrategy, EXPERT_PLACE, expert=True) == play(Source.DISCARD, 0)


@pytest.mark.parametrize("seed", range(10))
def test_smart_prefers_stack_then_row_then_discard(seed: int) -> None:
    assert choose(SmartStrategy, STACK_ROW_DISCARD, seed) == play(Source.STACK, 2)
    assert choose(SmartStrategy, ROW_DISCARD, seed) == play(Source.ROW, 0)
    assert choose(SmartStrategy, DISCARD_ONLY, seed) == play(Source.DISCARD, 1)
    assert choose(SmartStrategy, NO_PLAY, seed) == Turn(0)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a 1 that is the only play goes to a new pile at once, from wherever it is
        ("0: row g5 y8 r1 | stack y7 y6 | discard b4 | hand *", play(Source.ROW, None, 2)),
        ("0: row g5 y8 b9 | stack y7 g1 | discard b4 | hand *", play(Source.STACK, None)),
        ("0: row g5 y8 b9 | stack y7 y6 | discard b4 y1 | hand *", play(Source.DISCARD, None)),
        # a stack 1 before a row card, a row 1 before a discard card
        ("center: r:1\n0: row r2 y8 b9 | stack y7 g1 | discard b4 | hand *", play(Source.STACK, None)),
        ("center: y:1,1\n0: row g5 r1 b9 | stack y7 y6 | discard b4 y3 | hand *", play(Source.ROW, None, 1)),
    ],
)
def test_smart_plays_ones_at_once(text: str, expected: Play) -> None:
    text += "\n1: row b3 g7 y4 | stack g9 g8 | hand *"
    for seed in range(5):
        assert choose(SmartStrategy, text, seed) == expected


def test_smart_breaks_ties_at_random() -> None:
    chosen = Counter(choose(SmartStrategy, TWO_ROW_PLAYS, seed) for seed in range(60))
    assert set(chosen) == {play(Source.ROW, 0, 0), play(Source.ROW, 1, 2)}
    assert min(chosen.values()) >= 15


# Seat 0 has no play; its g3 (put in place of {mine}) waits for the g2 that pile 0 wants next,
# and seat 1 shows a g2 (or, with {theirs} = g6, does not).
ABOUT_TO_FIT = """
center: g:1
0: {mine} | hand *
1: row {theirs} b3 y4 | stack g9 g8 | hand *
"""


@pytest.mark.parametrize(
    ("mine", "smart_waits"),
    [
        ("row g5 g3 b9 | stack y7 y6 | discard b4", False),
        ("row g5 y8 b9 | stack y7 g3 | discard b4", False),
        ("row g5 y8 b9 | stack y7 y6 | discard b4 g3", True),
    ],
)
def test_sharp_waits_for_any_of_its_cards_about_to_fit(mine: str, smart_waits: bool) -> None:
    """Where smart waits only for its discard top, sharp waits for a row card or the stack
    top as well -- ``SHARP_PATIENCE`` looks, then it turns once -- and only while another
    player shows the card the pile wants first."""
    seen = Observation(position(ABOUT_TO_FIT.format(mine=mine, theirs="g2")), 0)
    sharp = SharpStrategy(random.Random(0))
    assert [sharp.choose(seen) for _ in range(SHARP_PATIENCE + 2)] == [None] * SHARP_PATIENCE + [Turn(0), None]
    assert (SmartStrategy(random.Random(0)).choose(seen) is None) is smart_waits
    unseen = Observation(position(ABOUT_TO_FIT.format(mine=mine, theirs="g6")), 0)
    assert SharpStrategy(random.Random(0)).choose(unseen) == Turn(0)
    # expert variant: a discard top that could go onto a column (r4 on g5) is no reason to turn
    buried = "row g5 g3 b9 | stack y7 y6 | discard b4 r4"
    seen = Observation(position(ABOUT_TO_FIT.format(mine=buried, theirs="g2"), expert=True), 0)
    assert Place(0, Source.DISCARD, 0) in seen.legal_actions()
    assert SharpStrategy(random.Random(0)).choose(seen) is None
    assert SmartStrategy(random.Random(0)).choose(seen) == Turn(0)


@pytest.mark.parametrize("seed", range(5))
def test_sharp_plays_a_contested_card_first_else_as_smart_does(seed: int) -> None:
    for text in (STACK_ROW_DISCARD, ROW_DISCARD, DISCARD_ONLY, NO_PLAY):
        assert choose(SharpStrategy, text, seed) == choose(SmartStrategy, text, seed)
    # seat 1 shows a g3 too: seat 0's discard top g3 goes first, before its stack and row plays
    contested = STACK_ROW_DISCARD.replace("1: row b5 g6 y4", "1: row b5 g3 y4")
    assert choose(SmartStrategy, contested, seed) == play(Source.STACK, 2)
    assert choose(SharpStrategy, contested, seed) == play(Source.DISCARD, 1)


@pytest.mark.parametrize("seed", range(10))
def test_smart_in_the_expert_variant_places_the_stack_top_before_a_discard_play(seed: int) -> None:
    assert choose(SmartStrategy, EXPERT_PLACE, seed, expert=True) == Place(0, Source.STACK, 0)
    # ... but a row play comes first.
    assert choose(SmartStrategy, EXPERT_ROW, seed, expert=True) == play(Source.ROW, 1, 1)


def turns_until_vote(bot: Strategy, game: Round, limit: int = 120) -> int:
    """Let ``bot`` (seat 0) act until it votes; the number of turns it took before."""
    seen = Observation(game, 0)
    for turns in range(limit):
        action = bot.choose(seen)
        if action == Vote(0):
            return turns
        assert action == Turn(0), f"stuck, {bot.name} did {action}"
        assert game.apply(action).ok
        assert not game.over
    pytest.fail(f"{bot.name} never voted")


@pytest.mark.parametrize("strategy", [GreedyStrategy, SmartStrategy])
@pytest.mark.parametrize("preset", ["classic", "seed-es"])
def test_votes_only_after_turning_through_the_whole_hand(strategy: type[Strategy], preset: str) -> None:
    """Three passes (``STUCK_PASSES``) through hand and discard without a change: then the vote."""
    game = parse_position(STUCK, RuleSet.preset(preset))
    turns = turns_until_vote(strategy(random.Random(1)), game)
    passes = STUCK_PASSES * math.ceil(STUCK_HAND / 3)
    assert passes <= turns <= passes + 2, f"voted after {turns} turns of a {STUCK_HAND}-card hand"


@pytest.mark.parametrize("strategy", [GreedyStrategy, SmartStrategy])
def test_a_change_in_the_center_starts_the_count_again(strategy: type[Strategy]) -> None:
    game = parse_position(STUCK)
    bot = strategy(random.Random(1))
    seen = Observation(game, 0)
    for _ in range(STUCK_HAND // 3 - 1):
        action = bot.choose(seen)
        assert action == Turn(0)
        game.apply(action)
    assert game.apply(Play(1, Source.ROW, None, 0)).ok  # seat 1 starts a pile: the center changed
    turns = turns_until_vote(bot, game)
    assert turns >= STUCK_PASSES * math.ceil(STUCK_HAND / 3), f"voted {turns} turns after the center changed"


@pytest.mark.parametrize("strategy", [GreedyStrategy, SmartStrategy])
def test_after_voting_a_bot_neither_withdraws_nor_votes_again(strategy: type[Strategy]) -> None:
    game = parse_position(STUCK)
    bot = strategy(random.Random(1))
    turns_until_vote(bot, game)
    assert game.apply(Vote(0)).ok
    for _ in range(5):
        action = bot.choose(Observation(game, 0))
        assert action is None or action == Turn(0), f"after voting, {bot.name} did {action}"
        if action is not None:
            game.apply(action)


@pytest.mark.parametrize("name", ["random", "greedy", "smart", "sharp"])
def test_every_strategy_waits_when_the_round_is_over(name: str) -> None:
    game = parse_position(NO_PLAY + "ending: stop 1")
    assert game.legal_actions(0) == []
    assert STRATEGIES[name](random.Random(0)).choose(Observation(game, 0)) is None


# --- strategies of one's own -----------------------------------------------------------


@pytest.fixture
def restore_strategies() -> Iterator[None]:
    saved = dict(STRATEGIES)
    yield
    STRATEGIES.clear()
    STRATEGIES.update(saved)


@pytest.mark.usefixtures("restore_strategies")
def test_a_registered_strategy_is_usable_by_name() -> None:
    chosen: list[Action | None] = []

    @register("test-cautious")
    class Cautious(Strategy):
        def choose(self, seen: Observation) -> Action | None:
            actions = seen.legal_actions()
            plays = [a for a in actions if isinstance(a, Play)]
            action = plays[-1] if plays else next((a for a in actions if isinstance(a, (Turn, Vote))), None)
            chosen.append(action)
            return action

    assert STRATEGIES["test-cautious"] is Cautious
    assert Cautious.name == "test-cautious"
    bots = parse_bots("test-cautious:expert,greedy:expert", 2)
    assert bots[0].strategy_class is Cautious
    assert str(bots[0]) == "test-cautious:expert"
    result = simulate_round(RuleSet(), bots, 5)
    assert result.bots == ["test-cautious:expert", "greedy:expert"]
    assert result.ended_by in {"stop", "stalemate_vote", "stalemate_proven"}
    assert len(chosen) > 10
    assert result.center[0] > 0, "the custom bot played cards"


@pytest.mark.usefixtures("restore_strategies")
@pytest.mark.parametrize("waits", [1, 3, 7])
def test_a_strategy_returning_none_waits_and_is_asked_again(waits: int) -> None:
    asked: Counter[int] = Counter()
    waited: Counter[int] = Counter()

    @register("test-patient")
    class Patient(GreedyStrategy):
        def choose(self, seen: Observation) -> Action | None:
            asked[seen.seat] += 1
            action = None if asked[seen.seat] <= waits else super().choose(seen)
            waited[seen.seat] += action is None
            return action

    result = simulate_round(RuleSet(), parse_bots("test-patient:machine", 3), 8)
    assert all(asked[seat] > waits + 1 for seat in range(3)), "every bot is asked again after waiting"
    assert all(waited[seat] >= waits for seat in range(3))
    assert result.actions > 0
    assert result.ended_by == "stop" and result.stopped_by is not None
    # Machine bots take no time, so a bot's clock moves only while it waits, LOOK_AGAIN a
    # look: the round ended at the clock of the bot that called Stop.
    assert result.duration_s == pytest.approx(waited[result.stopped_by] * LOOK_AGAIN)
