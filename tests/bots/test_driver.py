"""The bot driver (``ligretto.bots.driver``): what a bot does next and after how long, the
same for the simulator's virtual time and the server's real time; one seeding scheme."""

from __future__ import annotations

import random

import pytest

from ligretto.bots import LEVELS, BotSpec, DelaySampler, Level, Move, Observation, Strategy
from ligretto.bots.driver import LOOK_AGAIN, MIN_MOVE_REAL_TIME, BotDriver, bot_seeds
from ligretto.bots.reaction import MOVE_OF
from ligretto.engine import Action, Place, Play, Round, RuleSet, Source, Turn, Vote, Withdraw

KEY = "ligretto:7:0"


class Scripted(Strategy):
    """Returns the actions it is given, one per question, and notes what it was shown."""

    def __init__(self, rng: random.Random, script: list[Action | None]) -> None:
        super().__init__(rng)
        self.script = list(script)
        self.shown: list[int] = []

    def choose(self, seen: Observation) -> Action | None:
        self.shown.append(seen.center_size)
        return self.script.pop(0)


QUICK_LOOK = Level("test-quick-look", react=LOOK_AGAIN, scan=0.02, bits=0.2, reach=0.2, aim=0.1, sigma=0.2, tau=0.3)
"""Looks drawn around LOOK_AGAIN: some shorter, some longer."""


def sampler_for(level: str | Level, seat: int = 0) -> DelaySampler:
    """A second sampler with the delay seed the driver's own gets: the same draws."""
    return (LEVELS[level] if isinstance(level, str) else level).sampler(random.Random(bot_seeds(KEY, seat)[1]))


def driver(script: list[Action | None], level: str | Level, *, real_time: bool = False, seat: int = 0) -> BotDriver:
    game = Round.deal(RuleSet(), 3, 7)
    strategy = Scripted(random.Random(bot_seeds(KEY, seat)[0]), script)
    return BotDriver(strategy, sampler_for(level, seat), Observation(game, seat), real_time=real_time)


def test_a_move_waits_the_reaction_time_of_its_kind() -> None:
    script: list[Action | None] = [Turn(1), Vote(1), Withdraw(1), Place(1, Source.STACK, 2), Turn(1)]
    bot = driver(script, "casual", seat=1)
    expected = sampler_for("casual", seat=1)
    for action in list(script):
        delay, planned = bot.plan()
        assert planned is action, "the driver acts on what the strategy chose"
        # the delay for what the seat sees: its playable options and the center's piles
        assert delay == expected.delay(MOVE_OF[type(action)], bot.seen.play_options(), bot.seen.piles)
    assert bot.seat == 1


def test_nothing_to_do_looks_again_no_sooner_than_look_again() -> None:
    bot = driver([None] * 200, QUICK_LOOK)
    expected = sampler_for(QUICK_LOOK)
    looks = [bot.plan() for _ in range(200)]
    assert all(action is None for _, action in looks)
    draws = [expected.delay(Move.LOOK) for _ in range(200)]
    assert [delay for delay, _ in looks] == [max(draw, LOOK_AGAIN) for draw in draws]
    assert any(draw < LOOK_AGAIN for draw in draws) and any(draw > LOOK_AGAIN for draw in draws)


@pytest.mark.parametrize(("real_time", "floor"), [(False, 0.0), (True, MIN_MOVE_REAL_TIME)])
def test_machine_bots_move_at_once_in_virtual_time_and_after_the_floor_in_real_time(
    real_time: bool, floor: float
) -> None:
    bot = driver([Turn(0), None, Vote(0)], "machine", real_time=real_time)
    assert bot.plan() == (floor, Turn(0))
    assert bot.plan() == (LOOK_AGAIN, None), "looks have the same floor on both clocks"
    assert bot.plan() == (floor, Vote(0))


def test_the_real_time_floor_does_not_touch_human_speeds() -> None:
    script: list[Action | None] = [Turn(0)] * 50
    virtual, real = driver(script, "expert"), driver(script, "expert", real_time=True)
    assert [virtual.plan() for _ in script] == [real.plan() for _ in script]


def test_the_driver_sees_the_live_round() -> None:
    """The host applies actions between plans; the next plan is chosen on the table as it
    is then (a play made meanwhile shows in the center)."""
    for seed in range(20):
        game = Round.deal(RuleSet(), 3, seed)
        plays = [a for seat in range(3) for a in Observation(game, seat).legal_actions() if isinstance(a, Play)]
        if plays:
            break
    strategy = Scripted(random.Random(0), [None, None])
    bot = BotDriver(strategy, sampler_for("expert"), Observation(game, 0))
    bot.plan()
    assert game.apply(plays[0]).ok
    bot.plan()
    assert strategy.shown == [0, 1]


def test_bot_seeds_name_the_round_and_the_seat() -> None:
    choices, delays = bot_seeds(KEY, 2)
    assert choices != delays, "a strategy's choices never shift its reaction times"
    seeds = {seed for key in (KEY, "ligretto:7:1", "ABCD:9:1") for seat in range(12) for seed in bot_seeds(key, seat)}
    assert len(seeds) == 3 * 12 * 2
    assert bot_seeds(KEY, 2) == (choices, delays)


def test_a_spec_drives_a_seat_from_the_round_key() -> None:
    """``BotSpec.driver`` seeds the strategy and the delays with ``bot_seeds``: two drivers
    for the same key and seat plan the same, another seat or round plans differently."""

    def plans(key: str, seat: int) -> list[tuple[float, Action | None]]:
        game = Round.deal(RuleSet(), 3, 7)
        bot = BotSpec("random", "casual").driver(game, seat, key)
        out = []
        for _ in range(40):
            delay, action = bot.plan()
            out.append((delay, action))
            if action is not None:
                game.apply(action)
        return out

    assert plans(KEY, 1) == plans(KEY, 1)
    assert plans(KEY, 1) != plans(KEY, 2)
    assert plans(KEY, 1) != plans("ligretto:7:1", 1)
    # The delays come from the delay seed alone: a sampler seeded the same way draws them.
    game = Round.deal(RuleSet(), 3, 7)
    bot = BotSpec("greedy", "skilled").driver(game, 0, KEY)
    expected = sampler_for("skilled")
    delay, action = bot.plan()
    assert action is not None
    assert delay == expected.delay(MOVE_OF[type(action)], bot.seen.play_options(), bot.seen.piles)


def test_a_play_takes_longer_with_more_options_and_piles_in_view() -> None:
    """A whole round of six greedy bots: every planned move waits exactly the draw for the
    options and piles its seat saw (``Observation.play_options`` counts the plays among the
    legal actions), and the same draw is longer with more of either."""
    game = Round.deal(RuleSet(), 6, 3)
    bots = [BotSpec("greedy", "casual").driver(game, seat, KEY) for seat in range(6)]
    samplers = [sampler_for("casual", seat) for seat in range(6)]
    seen_options, seen_piles = set(), set()
    for turn in range(3000):
        seat = turn % 6
        bot = bots[seat]
        seen = bot.seen
        options, piles = seen.play_options(), seen.piles
        assert options == sum(isinstance(a, Play) for a in seen.legal_actions())
        delay, action = bot.plan()
        if action is None:
            samplers[seat].delay(Move.LOOK)
            continue
        assert delay == samplers[seat].delay(MOVE_OF[type(action)], options, piles)
        seen_options.add(options)
        seen_piles.add(piles)
        if not game.apply(action).ok or game.ending is not None:
            break
    assert max(seen_options) >= 3 and max(seen_piles) >= 12, (seen_options, seen_piles)
    sampler_at = LEVELS["casual"].sampler
    assert sampler_at(random.Random(1)).delay(Move.PLAY, 1, 4) < sampler_at(random.Random(1)).delay(Move.PLAY, 4, 4)
    assert sampler_at(random.Random(1)).delay(Move.PLAY, 1, 4) < sampler_at(random.Random(1)).delay(Move.PLAY, 1, 16)
