"""One round for learners and bots together, on the simulator's own clock.

:class:`RealTimeTable` deals a round and runs the simulator's
:class:`~ligretto.sim.table.TableClock`: whoever is due next in virtual time decides.  A bot
seat decides through its :class:`~ligretto.bots.driver.BotDriver`, as in
``simulate_round``; at a learner's seat (seats ``0 .. agents - 1``) the clock stops and
waits for :meth:`RealTimeTable.act`.  Every action takes effect its reaction time after the
seat looked, whatever happened meanwhile: a play whose pile was taken, or one that never
fitted, is refused when its time comes, as for a person, and costs that time.  A learner's
reaction time is drawn by the same pacing as a bot of its ``reaction`` level (from the seed
that level would use in that seat), unless the learner gives its own.

Seats, deals and tie-breaks are seeded exactly as in the simulator (round key
``ligretto:{seed}:0``), so a table whose learners play what bots would play, with the bots'
reaction times, plays the simulator's very round.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from ligretto.bots.driver import BotDriver, bot_seeds
from ligretto.bots.reaction import LEVELS, Level
from ligretto.bots.spec import BotSpec, BotSpecError, parse_bots
from ligretto.bots.strategies import Strategy
from ligretto.engine.actions import Action
from ligretto.engine.events import Ending, Outcome
from ligretto.engine.observation import Observation
from ligretto.engine.rules import RuleSet
from ligretto.engine.scoring import round_seed, score_round
from ligretto.engine.state import Round
from ligretto.sim.layout import Layout
from ligretto.sim.table import TableClock, finish_round


class _Intent(Strategy):
    """A learner's choice, handed to the bots' pacing: the action it was told to choose."""

    def __init__(self, rng: random.Random) -> None:
        super().__init__(rng)
        self.action: Action | None = None

    def choose(self, seen: Observation) -> Action | None:
        return self.action


class RealTimeTable:
    """A round of ``players`` under ``rules``: learners at seats ``0 .. agents - 1``, bots
    (``opponents``, one spec filling every seat or one per seat) at the others."""

    def __init__(
        self,
        *,
        players: int = 4,
        rules: RuleSet | str = "classic",
        opponents: Sequence[str] | str = ("smart:expert",),
        agents: int = 1,
        reaction: str = "expert",
        seed: int | None = None,
    ) -> None:
        self.rules = RuleSet.preset(rules) if isinstance(rules, str) else rules
        self.rules.row_length(players)  # a bad number of players says so here
        if not 1 <= agents <= players:
            raise ValueError(f"agents must be 1-{players} (the learner's seats), not {agents}")
        self.players = players
        self.agents = agents
        named = opponents if isinstance(opponents, str) else ",".join(opponents)
        self.opponents: list[BotSpec] = parse_bots(named, players - agents) if agents < players else []
        if reaction not in LEVELS:
            raise BotSpecError(f"unknown level {reaction!r}: choose from {', '.join(LEVELS)}")
        self.level: Level = LEVELS[reaction]
        self.layout = Layout(self.rules, players)
        self._actions = [self.layout.actions(seat) for seat in range(agents)]
        self._base = random.SystemRandom().getrandbits(62) if seed is None else seed
        self._dealt = 0
        self.deal()
        self._dealt = 0  # the first reset without a seed deals this round again

    # --- a round ------------------------------------------------------------------------

    def deal(self, seed: int | None = None) -> None:
        """Deal a new round: from ``seed``, or the next of the current seed's sequence
        (``seed`` itself first, then ``round_seed(seed, 1)``, ``round_seed(seed, 2)``, ...)."""
        if seed is not None:
            self._base, self._dealt = seed, 0
        self.seed = self._base if self._dealt == 0 else round_seed(self._base, self._dealt)
        self._dealt += 1
        game = self.game = Round.deal(self.rules, self.players, self.seed)
        key = f"ligretto:{self.seed}:0"
        self.clock = TableClock(game, random.Random(f"{key}:ties").random)
        self.seen = [Observation(game, seat) for seat in range(self.players)]
        self._plans = [
            None if seat < self.agents else self.opponents[seat - self.agents].driver(game, seat, key).plan
            for seat in range(self.players)
        ]
        self._intents = [_Intent(random.Random(bot_seeds(key, seat)[0])) for seat in range(self.agents)]
        self._pacers = [
            BotDriver(self._intents[seat], self.level.sampler(random.Random(bot_seeds(key, seat)[1])), self.seen[seat])
            for seat in range(self.agents)
        ]
        self.due = -1
        self.outcome: Outcome | None = None
        """How the round ended, once it has (``Ending.TIME_LIMIT``: stopped at a limit)."""
        self._advance()

    def _advance(self) -> None:
        """Let the bots act until a learner is due (``due``) or the round is over (``-1``)."""
        due, act, plans = self.clock.due, self.clock.act, self._plans
        seat = due()
        while seat >= self.agents:
            delay, action = plans[seat]()  # type: ignore[misc]
            act(seat, delay, action)
            seat = due()
        self.due = seat
        if seat < 0:
            self.outcome = finish_round(self.game)

    def act(self, index: int, reaction_s: float | None = None) -> None:
        """The due learner intends action ``index``, to take effect after its reaction time
        (``reaction_s`` seconds, or drawn from its level); then the bots act until the next
        learner is due.  An action not legal now is still tried: it is refused when it takes
        effect, as a person's mistaken play is."""
        seat = self.due
        if seat < 0:
            raise ValueError("the round is over: deal again (reset)")
        if not 0 <= index < self.layout.size or int(index) != index:
            raise ValueError(f"action {index!r} is not one of 0-{self.layout.size - 1}")
        action = self._actions[seat][int(index)]
        if reaction_s is None:
            self._intents[seat].action = action
            delay, _ = self._pacers[seat].plan()
        else:
            if not (math.isfinite(reaction_s) and reaction_s >= 0):
                raise ValueError(f"reaction_s must be a finite number of seconds >= 0, not {reaction_s!r}")
            delay = float(reaction_s)
        self.clock.act(seat, delay, action)
        self._advance()

    # --- what a seat sees -----------------------------------------------------------------

    @property
    def over(self) -> bool:
        return self.due < 0

    @property
    def truncated(self) -> bool:
        """Whether the table stopped the round at a limit (``TIME_LIMIT``, ``STEP_LIMIT``)."""
        return self.outcome is not None and self.outcome.ending is Ending.TIME_LIMIT

    def features(self, seat: int) -> list[float]:
        return self.layout.features(self.seen[seat], self.clock.now)

    def legal(self, seat: int) -> list[int]:
        """The actions ``seat`` may choose now: the legal ones and wait when it is due; only
        wait while it is in the middle of a reaction (or once the round is over)."""
        if seat != self.due:
            return [self.layout.wait]
        return self.layout.legal(self.seen[seat])

    def scores(self) -> list[int]:
        """Every seat's round score as it stands (the rewards once the round is over)."""
        return [line.score for line in score_round(self.game)]
