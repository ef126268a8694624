"""The round simulator (``ligretto.sim.table.simulate_round``): bots in virtual time.

Determinism, the order of actions in virtual time, every preset and table size, scores,
durations, races for a pile ("beaten to it") and the strength of the strategies.
"""

from __future__ import annotations

import random
import statistics
from collections import Counter, deque
from collections.abc import Iterator

import pytest

from ligretto.bots import (
    LEVELS,
    STRATEGIES,
    BotSpec,
    Level,
    Move,
    Observation,
    SmartStrategy,
    Strategy,
    parse_bots,
    register,
)
from ligretto.bots.driver import LOOK_AGAIN
from ligretto.engine import (
    PRESETS,
    Action,
    Ending,
    Outcome,
    Place,
    Play,
    Refused,
    Round,
    RuleSet,
    Source,
    Turn,
    Vote,
    Withdraw,
    format_position,
    parse_position,
    score_round,
)
from ligretto.engine.events import Reason
from ligretto.sim import RoundResult, simulate_round
from ligretto.sim.duel import duel
from ligretto.sim.table import TIME_LIMIT

ENDINGS = {"stop", "stalemate_vote", "stalemate_proven", "time_limit"}
PLAYER_COUNTS = (2, 3, 4, 5, 8, 12)


def bots_for(players: int, *names: str) -> list[BotSpec]:
    """``names`` repeated round the table, e.g. smart, greedy, smart, greedy, ..."""
    return parse_bots(",".join(names[seat % len(names)] for seat in range(players)), players)


def conserved(game: Round) -> None:
    """Every player's 40 cards are still there: in their area or in the center."""
    held: list[list[int]] = [area.faces() for area in game.areas]
    for colour, seats in zip(game.pile_colours, game.pile_seats, strict=True):
        for number, seat in enumerate(seats):
            held[seat].append(colour * 10 + number)
    for seat, faces in enumerate(held):
        assert sorted(faces) == list(range(40)), f"seat {seat} holds {len(faces)} cards: {sorted(faces)}"


@pytest.fixture
def restore_registries() -> Iterator[None]:
    strategies, levels = dict(STRATEGIES), dict(LEVELS)
    yield
    STRATEGIES.clear()
    STRATEGIES.update(strategies)
    LEVELS.clear()
    LEVELS.update(levels)


# --- determinism -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("preset", "spec", "players"),
    [
        ("classic", "smart:expert,greedy:casual,random:beginner", 3),
        ("expert", "smart:skilled", 4),
        ("seed-es", "greedy:expert,smart:machine", 2),
        ("classic", "smart:machine", 5),
        ("seed-pt", "random:machine,greedy:machine,smart:machine", 3),
    ],
)
def test_same_rules_bots_and_seed_give_the_same_round(preset: str, spec: str, players: int) -> None:
    rules = RuleSet.preset(preset)
    bots = parse_bots(spec, players)
    for seed in (0, 17, 123_456_789):
        first, second = Round.deal(rules, players, seed), Round.deal(rules, players, seed)
        one = simulate_round(rules, bots, seed, game=first)
        assert one.to_dict() == simulate_round(rules, bots, seed, game=second).to_dict()
        assert first.log == second.log
        assert format_position(first) == format_position(second)
        # Without ``game`` the simulator deals the same cards from the seed.
        assert simulate_round(rules, bots, seed).to_dict() == one.to_dict()


def test_different_seeds_give_different_rounds() -> None:
    rules = RuleSet()
    for spec in ("smart:expert", "greedy:machine", "random:casual"):
        bots = parse_bots(spec, 4)
        rounds = [simulate_round(rules, bots, seed).to_dict() for seed in range(8)]
        for r in rounds:
            del r["seed"]
        distinct = {repr(r) for r in rounds}
        assert len(distinct) == len(rounds), f"{spec}: some seeds gave the same round"


def test_the_rotation_changes_the_bots_draws_not_the_deal() -> None:
    rules = RuleSet()
    bots = parse_bots("smart:expert,greedy:expert,random:expert", 3)
    results = [simulate_round(rules, bots, 99, rotation=r) for r in range(3)]
    assert [r.rotation for r in results] == [0, 1, 2]
    assert [r.to_dict()["rotation"] for r in results] == [0, 1, 2]
    assert len({r.duration_s for r in results}) == 3, "each rotation draws its own reaction times"


# --- virtual time ----------------------------------------------------------------------


@pytest.mark.usefixtures("restore_registries")
@pytest.mark.parametrize("preset", ["classic", "expert"])
@pytest.mark.parametrize("seed", range(3))
def test_actions_take_effect_in_virtual_time_order(preset: str, seed: int) -> None:
    """Bots with steady (no spread) reaction times keep their own clocks: a bot is asked again
    exactly when its previous action took effect (or its look ended), so its clock is the
    sum of its delays.  The simulator must ask, and apply, in the order of those times."""
    levels = {
        0: Level("test-quick", react=0.13, scan=0.011, bits=0.07, reach=0.11, aim=0.03, sigma=0.0, tau=0.0),
        1: Level("test-slow", react=0.23, scan=0.017, bits=0.17, reach=0.19, aim=0.05, sigma=0.0, tau=0.0),
        2: Level("test-mid", react=0.17, scan=0.013, bits=0.11, reach=0.31, aim=0.07, sigma=0.0, tau=0.0),
    }
    for level in levels.values():
        LEVELS[level.name] = level
    kinds = {Play: Move.PLAY, Place: Move.PLACE, Turn: Move.TURN, Vote: Move.VOTE, Withdraw: Move.VOTE}
    asked: list[tuple[float, int, Action | None, float]] = []

    @register("test-clocked")
    class Clocked(SmartStrategy):
        def __init__(self, rng: random.Random) -> None:
            super().__init__(rng)
            self.clock = 0.0

        def choose(self, seen: Observation) -> Action | None:
            action = super().choose(seen)
            level = levels[seen.seat]
            if action is None:
                delay = max(level.mean(Move.LOOK), LOOK_AGAIN)
            else:  # the time for what the seat sees: its playable options and the piles to search
                delay = level.mean(kinds[type(action)], seen.play_options(), seen.piles)
            asked.append((self.clock, seen.seat, action, self.clock + delay))
            self.clock += delay
            return action

    rules = RuleSet.preset(preset)
    game = Round.deal(rules, 3, seed)
    bots = parse_bots("test-clocked:test-quick,test-clocked:test-slow,test-clocked:test-mid", 3)
    result = simulate_round(rules, bots, seed, game=game)
    assert result.ended_by != "time_limit", "a round ended by the players' own actions"

    times = [t for t, _, _, _ in asked]
    assert times == sorted(times), "bots were asked out of virtual-time order"
    # When does each intended action take effect?  At the time it was chosen plus its delay.
    planned: dict[int, deque[tuple[float, Action]]] = {seat: deque() for seat in range(3)}
    for _, seat, action, due in asked:
        if action is not None:
            planned[seat].append((due, action))
    effective = []
    for action in game.log:
        t, intended = planned[action.player].popleft()
        assert action == intended, "the simulator applied something the bot did not choose"
        effective.append(t)
    assert effective == sorted(effective), "actions took effect out of virtual-time order"
    assert result.duration_s == pytest.approx(effective[-1])
    assert len({a.player for a in game.log[:10]}) == 3, "the seats' actions interleave"


def test_machine_bots_take_no_virtual_time() -> None:
    rules = RuleSet()
    for seed in range(10):
        result = simulate_round(rules, parse_bots("random:machine", 4), seed)
        assert result.duration_s == 0.0
        assert result.actions > 0
        # Bots that wait (return None) look again LOOK_AGAIN later: only that moves the clock.
        for spec in ("smart:machine", "greedy:machine"):
            duration = simulate_round(rules, parse_bots(spec, 3), seed).duration_s
            looks = round(duration / LOOK_AGAIN)
            assert duration == pytest.approx(looks * LOOK_AGAIN) and looks <= 20, f"{spec}: {duration}"


def test_slower_levels_take_longer_rounds() -> None:
    rules = RuleSet()
    seeds = range(30)
    durations = {
        level: statistics.fmean(simulate_round(rules, parse_bots(f"smart:{level}", 4), s).duration_s for s in seeds)
        for level in ("beginner", "casual", "skilled", "expert", "machine")
    }
    ordered = list(durations.values())
    assert ordered == sorted(ordered, reverse=True), durations
    assert durations["beginner"] > 2 * durations["expert"], durations
    assert durations["machine"] < 0.05 * durations["expert"], durations
    # Round by round as well, mostly: on the same deals a beginner table is slower.
    slower = sum(
        simulate_round(rules, parse_bots("greedy:beginner", 4), s).duration_s
        > simulate_round(rules, parse_bots("greedy:expert", 4), s).duration_s
        for s in seeds
    )
    assert slower >= 27


@pytest.mark.usefixtures("restore_registries")
@pytest.mark.parametrize("level", ["machine", "expert"])
def test_a_round_that_will_not_end_stops_at_the_limit(level: str) -> None:
    @register("test-idle")
    class Idle(Strategy):
        """Never plays: waits, or (``turner``) keeps turning its hand."""

        def choose(self, seen: Observation) -> Action | None:
            return None

    @register("test-turner")
    class Turner(Strategy):
        def choose(self, seen: Observation) -> Action | None:
            return next((a for a in seen.legal_actions() if isinstance(a, Turn)), None)

    rules = RuleSet()
    for spec in (f"test-idle:{level}", f"test-turner:{level}"):
        game = Round.deal(rules, 2, 3)
        result = simulate_round(rules, parse_bots(spec, 2), 3, game=game)
        assert result.ended_by == "time_limit"
        assert result.outcome == Outcome(Ending.TIME_LIMIT, None)
        assert result.to_dict()["ended_by"] == "time_limit"
        assert game.over, "the table agrees to stop"
        assert result.stopped_by is None
        assert result.scores == [line.score for line in score_round(game)]
        assert result.center == [0, 0]
        if level != "machine" or spec.startswith("test-idle"):
            assert result.duration_s == TIME_LIMIT  # reported as the limit itself
        else:  # machine bots that keep turning never move the clock: the step limit ends it
            assert result.duration_s == 0.0
        conserved(game)


@pytest.mark.parametrize("seed", range(6))
def test_the_result_takes_its_outcome_from_the_round(seed: int) -> None:
    """``ended_by`` and ``stopped_by`` are the round's own outcome, the ending as its string."""
    rules = RuleSet()
    game = Round.deal(rules, 3, seed)
    result = simulate_round(rules, parse_bots("smart:expert,greedy:expert,random:expert", 3), seed, game=game)
    assert result.outcome == game.outcome
    assert result.outcome.ending is not Ending.TIME_LIMIT
    data = result.to_dict()
    assert (data["ended_by"], data["stopped_by"]) == (game.outcome.ending.value, game.outcome.stopped_by)
    assert Ending(result.ended_by) is result.outcome.ending


# --- every preset and table size -------------------------------------------------------


@pytest.mark.parametrize("players", PLAYER_COUNTS)
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_preset_and_table_size_completes(preset: str, players: int) -> None:
    rules = RuleSet.preset(preset)
    endings: Counter[str] = Counter()
    cases = [(bots_for(players, "smart:expert", "greedy:skilled"), seed) for seed in range(10)]
    cases += [(bots_for(players, "random:casual", "smart:machine", "greedy:machine"), seed) for seed in range(10, 13)]
    for n, (bots, seed) in enumerate(cases):
        game = Round.deal(rules, players, seed)
        result = simulate_round(rules, bots, seed, game=game)
        check_result(result, game, bots, seed)
        if n < 10:
            endings[result.ended_by] += 1
    assert endings["stop"] >= 7, f"smart and greedy tables should mostly end by Stop: {dict(endings)}"


def check_result(result: RoundResult, game: Round, bots: list[BotSpec], seed: int) -> None:
    players = game.players
    assert result.ended_by in ENDINGS
    assert game.over
    assert result.seed == seed
    assert result.bots == [str(b) for b in bots]
    lines = score_round(game)
    assert result.scores == [line.score for line in lines]
    assert result.center == [line.center for line in lines]
    assert result.stack_left == [line.stack for line in lines]
    assert len(result.scores) == players
    assert result.stopped_by == game.stopped_by
    if result.ended_by == "stop":
        assert result.stopped_by is not None and result.stack_left[result.stopped_by] == 0
    else:
        assert result.stopped_by is None
    if result.ended_by == "time_limit":  # the table's closing votes come on top
        assert len(game.log) - players <= result.actions + result.refusals <= len(game.log)
    else:
        assert result.actions + result.refusals == len(game.log)
    assert result.duration_s >= 0
    conserved(game)
    data = result.to_dict()
    assert data["scores"] == result.scores and data["ended_by"] == result.ended_by


def test_scores_follow_the_rules_scoring() -> None:
    """The result's scores are the engine's, whatever the scoring options."""
    for rules in (RuleSet(stack_penalty=3), RuleSet(floor_at_zero=True), RuleSet.preset("seed-es")):
        for seed in range(5):
            game = Round.deal(rules, 3, seed)
            result = simulate_round(rules, parse_bots("greedy:expert,random:expert,smart:casual", 3), seed, game=game)
            assert result.scores == [line.score for line in score_round(game)]
    first_out = RuleSet().replace(scoring="first_out")
    game = Round.deal(first_out, 3, 4)
    result = simulate_round(first_out, parse_bots("smart:expert", 3), 4, game=game)
    assert result.ended_by == "stop"
    assert result.scores == [int(seat == result.stopped_by) for seat in range(3)]


# --- races: "beaten to it" -------------------------------------------------------------

# Both seats' only play is their r4 onto pile 0 (red 1-3); their r5 follows it.
RACE = """
center: r:0,0,1
0: row r4 r5 b9 | stack g7 g8 y10 | hand *
1: row r4 r5 b9 | stack g7 g8 y10 | hand *
"""


def face_played(game: Round, action: Action) -> int | None:
    """The face a play would take from its source now (``None`` for other actions)."""
    if not isinstance(action, Play):
        return None
    area = game.areas[action.player]
    cards = {Source.ROW: area.row[action.position], Source.STACK: area.stack, Source.DISCARD: area.discard}
    return cards[action.source][-1] if cards[action.source] else None


def race(spec: str, seed: int) -> bool:
    """Play RACE between two ``spec`` bots; if both went for pile 0 at once, check that the
    slower one was refused, lost no card and then played something else.  Returns whether
    they raced."""
    game = parse_position(RACE)
    result = simulate_round(game.rules, parse_bots(spec, 2), seed, game=game)
    conserved(game)
    # Replay the log on the same position to see each action's outcome.
    replay = parse_position(RACE)
    outcomes = [(action, face_played(replay, action), replay.apply(action)) for action in game.log]
    assert format_position(replay) == format_position(game)
    assert sum(type(r) is Refused for _, _, r in outcomes) == result.refusals
    r4 = 3  # the face of red 4
    first, first_face, first_result = outcomes[0]
    assert first == Play(first.player, Source.ROW, 0, 0) and first_face == r4 and first_result.ok
    # The other bot's first action: did it still aim at pile 0 with its r4?
    n = next((n for n, (a, _, _) in enumerate(outcomes) if a.player != first.player), None)
    if n is None or outcomes[n][0] != Play(outcomes[n][0].player, Source.ROW, 0, 0):
        return False  # it looked only after the first play (machine bots can), or never
    second, second_face, second_result = outcomes[n]
    assert result.refusals >= 1
    assert second == Play(second.player, Source.ROW, 0, 0) and second_face == r4, "both went for the pile"
    assert second_result == Refused(Reason.DOES_NOT_FIT), "the slower one is beaten to it"
    loser = second.player
    later = [(a, face) for a, face, r in outcomes[n + 1 :] if a.player == loser and isinstance(a, Play) and r.ok]
    assert later, "the refused bot played again"
    assert later[0][1] != r4, "... something else"
    return True


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("spec", ["smart:expert", "greedy:expert", "smart:beginner"])
def test_a_bot_beaten_to_the_pile_is_refused_and_decides_again(spec: str, seed: int) -> None:
    """Both bots spot the play at the start and need time to make it: they always race."""
    assert race(spec, seed)


@pytest.mark.parametrize("spec", ["smart:machine", "greedy:machine"])
def test_machine_bots_race_when_both_look_before_either_plays(spec: str) -> None:
    """Machine bots act at once; exact ties are broken by the seed, so some deals race."""
    raced = sum(race(spec, seed) for seed in range(20))
    assert 3 <= raced <= 17, f"{raced} of 20 seeds raced"


def test_races_happen_and_lose_no_card_in_full_rounds() -> None:
    rules = RuleSet()
    refusals = 0
    for seed in range(20):
        game = Round.deal(rules, 6, seed)
        result = simulate_round(rules, bots_for(6, "smart:expert", "greedy:expert", "smart:casual"), seed, game=game)
        refusals += result.refusals
        conserved(game)
    assert refusals > 20


# --- strength --------------------------------------------------------------------------


def test_smart_beats_random() -> None:
    mean, half = duel("smart", "random", deals=100)
    assert mean - half > 0, f"smart - random = {mean:.2f} ± {half:.2f} (99 %)"


def test_greedy_beats_random() -> None:
    mean, half = duel("greedy", "random", deals=60)
    assert mean - half > 0, f"greedy - random = {mean:.2f} ± {half:.2f} (99 %)"


def test_smart_beats_greedy_in_the_base_game() -> None:
    """A small edge (docs/bots.md): it takes a thousand deals to show it at 99 %."""
    mean, half = duel("smart", "greedy", deals=1000)
    assert mean - half > 0, f"smart - greedy = {mean:.2f} ± {half:.2f} (99 %, 1000 deals x 4 seats)"


def test_smart_beats_greedy_in_the_expert_variant() -> None:
    """Using the row as a buffer for the stack is a clear edge."""
    mean, half = duel("smart", "greedy", deals=150, rules=RuleSet.preset("expert"))
    assert mean - half > 0, f"smart - greedy = {mean:.2f} ± {half:.2f} (99 %, expert, 150 deals x 4 seats)"


@pytest.mark.parametrize(("players", "deals"), [(2, 500), (4, 100), (8, 50)])
def test_sharp_beats_smart(players: int, deals: int) -> None:
    """Waiting for any of its cards about to fit, not only the discard top, is an edge at
    every table size (the figures, with thousands of deals, in docs/bots.md)."""
    mean, half = duel("sharp", "smart", deals, players=players)
    assert mean - half > 0, f"sharp - smart = {mean:.2f} ± {half:.2f} (99 %, {deals} deals x {players} seats)"
