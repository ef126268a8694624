"""The research environment (``ligretto.rl``): PettingZoo's and Gymnasium's own checks, the
simulator's clock, public information only, and time as part of the game."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test
from simulatordoc import doc_block

import ligretto.rl
from ligretto.bots import LEVELS, Move, parse_bots
from ligretto.bots.driver import bot_seeds
from ligretto.engine import Round, RuleSet, Turn
from ligretto.engine.observation import Observation
from ligretto.engine.scoring import round_seed
from ligretto.rl import Layout, RealTimeTable
from ligretto.sim import simulate_round


def pick(table: RealTimeTable, rng: random.Random) -> int:
    """A uniformly random legal action of the due learner but a stalemate vote (learners
    that all vote end the round at once)."""
    return rng.choice([index for index in table.legal(table.due) if index != table.layout.vote])


# --- the libraries' own checks ------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [
        {"players": 3, "agents": 2, "opponents": "greedy:expert", "seed": 1},
        {"players": 2, "agents": 1, "rules": "expert", "opponents": "smart:machine", "seed": 2},
    ],
    ids=["classic-3", "expert-2-machine"],
)
def test_pettingzoo_checks_pass(options: dict[str, object]) -> None:
    with warnings.catch_warnings():
        # a Dict of features and an action mask is PettingZoo's own convention for masked
        # actions, which its checker still warns about (its classic games get the same)
        warnings.filterwarnings("ignore", "Observation", UserWarning)
        api_test(ligretto.rl.env(**options), num_cycles=400)
        parallel_api_test(ligretto.rl.parallel_env(**options), num_cycles=400)
    seed_test(lambda: ligretto.rl.env(**options), num_cycles=400)
    parallel_seed_test(lambda: ligretto.rl.parallel_env(**options), num_cycles=400)


def test_gymnasium_single_agent_env_passes_check_env_and_plays_rounds_to_their_scores() -> None:
    env = ligretto.rl.single_agent_env(players=4, opponents=("smart:expert", "greedy:skilled", "random:casual"))
    check_env(env, skip_render_check=True)
    # a masked random learner plays whole rounds; the reward is its round score, at the end
    rounds = []
    for seed in (5, 6):
        observation, _ = env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        total, done, steps = 0.0, False, 0
        while not done:
            assert observation in env.observation_space
            action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
            observation, reward, terminated, truncated, info = env.step(action)
            total += reward
            done = terminated or truncated
            steps += 1
        assert total == info["scores"][0] == env.table.scores()[0]
        assert env.table.game.over and steps > 10
        rounds.append(list(env.table.game.log))
    # the same seed deals and plays the same round again
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    observation, done = env.reset(seed=5)[0], False
    while not done:
        observation, _, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        done = terminated or truncated
    assert env.table.game.log == rounds[0] != rounds[1]
    # without a seed: the constructor's, then the rounds of its sequence
    seeded = ligretto.rl.single_agent_env(players=2, seed=5)
    dealt = [seeded.table.seed]
    for _ in range(3):
        seeded.reset()
        dealt.append(seeded.table.seed)
    assert dealt == [5, 5, round_seed(5, 1), round_seed(5, 2)]
    assert seeded.table.game.areas[0].hand == Round.deal(RuleSet(), 2, round_seed(5, 2)).areas[0].hand


# --- one clock: the simulator's ------------------------------------------------------------


@pytest.mark.parametrize(
    ("rules", "bots", "agents", "seed"),
    [
        ("classic", "smart:expert,greedy:casual", 2, 11),
        ("classic", "smart:expert,greedy:skilled,random:beginner,smart:casual", 4, 12),
        ("classic", "smart:expert,greedy:skilled,random:beginner,smart:casual", 1, 13),
        ("expert", "smart:machine,greedy:machine,smart:expert", 2, 14),  # exact ties
        ("seed-fi", "smart:skilled*5", 3, 15),
    ],
)
def test_learners_playing_as_bots_play_the_simulators_round(rules: str, bots: str, agents: int, seed: int) -> None:
    """Learners told each decision and reaction time of the bot that would sit there, and
    bots at the other seats, give the very round ``simulate_round`` plays: every action in
    the same order, the same scores, the same virtual time."""
    specs = parse_bots(bots, len(bots.split(",")) if "*" not in bots else int(bots.split("*")[1]))
    players = len(specs)
    ruleset = RuleSet.preset(rules)
    expected_game = Round.deal(ruleset, players, seed)
    expected = simulate_round(ruleset, specs, seed, game=expected_game)

    env = ligretto.rl.env(
        players=players, rules=rules, agents=agents, opponents=[str(s) for s in specs[agents:]] or "smart", seed=seed
    )
    table = env.table
    key = f"ligretto:{seed}:0"
    learners = [specs[seat].driver(table.game, seat, key) for seat in range(agents)]
    decisions = 0
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, _ = env.last()
        if terminated or truncated:
            assert reward == expected.scores[int(agent.removeprefix("seat_"))]
            env.step(None)
            continue
        seat = table.due
        delay, action = learners[seat].plan()
        index = table.layout.index(action)
        assert observation["action_mask"][index] or action is None or not table.game.legal_actions(seat)
        env.step((index, delay))
        decisions += 1
    assert decisions > 20
    assert table.game.log == expected_game.log
    assert table.scores() == expected.scores
    assert table.outcome == expected.outcome
    assert min(table.clock.now, 1800.0) == expected.duration_s
    assert (table.clock.applied, table.clock.refused) == (expected.actions, expected.refusals)


def test_time_is_part_of_the_game() -> None:
    """Whoever is due next in virtual time acts: a learner that answers at once acts again
    before any bot of the table; one that takes a minute lets the bots play meanwhile; a
    learner without a reaction time of its own is paced as a bot of its level."""
    table = RealTimeTable(players=3, opponents="greedy:expert", seed=21)
    start = len(table.game.log)
    table.act(table.layout.turn, 0.0)
    assert table.due == 0 and table.clock.now == 0.0
    assert table.game.log[start:] == [Turn(0)]  # no bot acted in between
    table.act(table.layout.wait, 3.0)
    assert table.due == 0 and table.clock.now == 3.0
    assert sum(action.player != 0 for action in table.game.log) > 4  # the bots played meanwhile
    # paced by the level: the delay the expert bot at that seat would draw for a turn
    sampler = LEVELS["expert"].sampler(random.Random(bot_seeds("ligretto:21:0", 0)[1]))
    paced = RealTimeTable(players=3, opponents="greedy:expert", reaction="expert", seed=21)
    paced.act(paced.layout.turn)
    assert paced.due == 0 and paced.clock.now == sampler.delay(Move.TURN) > 0
    # a slower level waits longer for the same decision on the same seed
    slow = RealTimeTable(players=3, opponents="greedy:expert", reaction="beginner", seed=21)
    slow.act(slow.layout.turn)
    assert slow.clock.now > paced.clock.now


def test_bad_input_is_refused_and_changes_nothing() -> None:
    env = ligretto.rl.env(players=2, seed=3)
    table = env.table
    log, now = list(table.game.log), table.clock.now
    for bad in (-1, table.layout.size, 2.5, "1", True, (0, -0.5), (0, float("nan")), (0, 1.0, 2.0)):
        with pytest.raises(ValueError, match=r"action|reaction_s"):
            env.step(bad)
    assert table.game.log == log and table.clock.now == now and table.due == 0
    with pytest.raises(ValueError, match="agents must be 1-2"):
        ligretto.rl.env(players=2, agents=3)
    with pytest.raises(ValueError, match="unknown level"):
        ligretto.rl.env(players=2, reaction="superhuman")
    with pytest.raises(ValueError, match="players must be"):
        ligretto.rl.env(players=13)
    # an action that is not legal now is still tried, refused when it takes effect, and costs its time
    play_to_pile_7 = 7
    assert table.legal(0).count(play_to_pile_7) == 0
    env.step(play_to_pile_7)
    assert table.clock.refused >= 1 and table.clock.now > now


# --- public information only ---------------------------------------------------------------


def hide_again(game: Round, rng: random.Random) -> Round:
    """The same public table with every hidden card moved: hands in another order, the
    Ligretto stacks and discard piles below their tops shuffled."""
    other = game.copy()
    for area in other.areas:
        rng.shuffle(area.hand)
        for pile in (area.stack, area.discard):
            below = pile[:-1]
            rng.shuffle(below)
            pile[:-1] = below
    return other


@pytest.mark.parametrize(("rules", "players"), [("classic", 4), ("expert", 3)])
def test_no_hidden_card_reaches_an_observation(rules: str, players: int) -> None:
    """At every decision of random rounds, every seat's features are the same for any
    placement of the hidden cards, and they say what the engine's state shows."""
    rng = random.Random(7)
    for seed in range(3):
        table = RealTimeTable(players=players, rules=rules, agents=players, seed=seed)
        layout = Layout(table.rules, players)
        decisions = 0
        while not table.over:
            for seat in range(players):
                features = table.features(seat)
                assert len(features) == layout.features_size
                assert all(0 <= value <= high for value, high in zip(features, layout.highs(), strict=True))
                assert features == layout.features(Observation(hide_again(table.game, rng), seat), table.clock.now)
                # the public facts, read from the engine: own stack top and hand size,
                # the next seat's row, the center's piles
                area = table.game.areas[seat]
                at = 2 * layout.row
                assert features[at : at + 2] == (
                    [area.stack[-1] // 10 + 1, area.stack[-1] % 10 + 1] if area.stack else [0, 0]
                )
                assert features[at + 6] == len(area.hand)
                following = table.game.areas[(seat + 1) % players]
                at = 2 * layout.row + 8
                assert features[at : at + 2] == [following.row[0][-1] // 10 + 1, following.row[0][-1] % 10 + 1]
                at = players * (2 * layout.row + 8)
                assert features[at : at + 2 * len(table.game.pile_colours)] == [
                    v
                    for c, seats in zip(table.game.pile_colours, table.game.pile_seats, strict=True)
                    for v in (c + 1, len(seats))
                ]
            table.act(pick(table, rng))
            decisions += 1
        assert decisions > 30
    # the check can fail: a visible card moved changes the features
    game = table.game.copy()
    area = game.areas[1]
    area.discard.append(area.hand.pop()) if area.hand else area.hand.append(area.discard.pop())
    assert layout.features(Observation(game, 0), 0.0) != layout.features(Observation(table.game, 0), 0.0)


def test_the_docs_random_learner_runs(capsys: pytest.CaptureFixture[str]) -> None:
    """docs/simulator.md's example under "Research" runs as it is and plays a round out."""
    example = doc_block("## Research")
    assert len(example.strip().splitlines()) <= 12
    scope: dict[str, object] = {}
    exec(compile(example, "docs/simulator.md", "exec"), scope)
    assert scope["env"].table.over  # type: ignore[attr-defined]
    assert "round score of seat 0:" in capsys.readouterr().out
