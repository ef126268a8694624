"""One simulated round: the same engine and bots as live play, in virtual time.

A discrete-event simulation.  Each bot looks at the table, decides its next
intended action and schedules it at ``now + delay`` (its reaction time); when
that moment comes the action is applied, whatever happened meanwhile -- a play
whose pile was taken is refused ("beaten to it"), exactly as for a human -- and
the bot decides again.  The bots are driven as on the server: one
:class:`~ligretto.bots.driver.BotDriver` per seat says what to do and after how long;
the heap below does the waiting.  Actions take effect in the order of their virtual times;
exact ties (``machine`` bots) are broken by a generator drawn from the seed.
No wall clock is read: the same (rules, bots, seed) always give the same round.

With a :class:`~ligretto.sim.network.Latency` each seat is some way from the table: an
action decided on the table as it was at ``t`` arrives at ``t + down + reaction + up``,
and the table judges races by arrival or fairly (docs/fairness.md).  Without one (or
with every delay 0 and ``arrival``) the round is exactly the one above.  Either way a
play refused because another seat's card took its place first is a race, counted for
both seats (``races_won``, ``races_lost``).
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ligretto.bots.driver import BotDriver
from ligretto.bots.spec import BotSpec
from ligretto.engine.actions import Action, Play, Vote
from ligretto.engine.events import Ending, Outcome, Refused
from ligretto.engine.races import behind, judge, pile_of, race_winner, rivals
from ligretto.engine.rules import RuleSet
from ligretto.engine.scoring import score_round
from ligretto.engine.state import Round
from ligretto.engine.tempo import Flag, TableTempo, face_played
from ligretto.sim.network import Latency, Link

TIME_LIMIT = 1800.0
"""Virtual seconds after which the table agrees to stop a round that will not end."""
STEP_LIMIT = 50_000
"""Decisions after which the same happens (``machine`` bots do not move the clock);
either limit gives the outcome ``Ending.TIME_LIMIT``."""


@dataclass(slots=True)
class RoundResult:
    """What one simulated round produced; lists are indexed by seat."""

    seed: int
    bots: list[str]
    outcome: Outcome
    """How the round ended; ``Ending.TIME_LIMIT`` when the table stopped it at a limit."""
    scores: list[int]
    center: list[int]
    stack_left: list[int]
    actions: int
    """Applied actions."""
    refusals: int
    """Refused actions: almost always plays beaten to their pile."""
    duration_s: float
    """Virtual seconds from "Ligretto!" to the end."""
    rotation: int = 0
    """Duplicate mode: how far the bots were rotated through the seats for this deal."""
    races_won: list[int] = field(default_factory=list)
    """Per seat: races for a pile won (a rival's play refused because this seat's card came first)."""
    races_lost: list[int] = field(default_factory=list)
    """Per seat: races lost (this seat's play refused because a rival's card came first)."""
    flags: dict[int, Flag] = field(default_factory=dict)
    """With ``tempo``: the seats flagged for inhuman speed (``engine.tempo``), and why."""

    @property
    def ended_by(self) -> str:
        """The ending as its string: ``stop``, ``stalemate_vote``, ``stalemate_proven``, ``time_limit``."""
        return self.outcome.ending.value

    @property
    def stopped_by(self) -> int | None:
        return self.outcome.stopped_by

    def to_dict(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "rotation": self.rotation,
            "bots": self.bots,
            "ended_by": self.ended_by,
            "stopped_by": self.stopped_by,
            "scores": self.scores,
            "center": self.center,
            "stack_left": self.stack_left,
            "actions": self.actions,
            "refusals": self.refusals,
            "duration_s": round(self.duration_s, 3),
            "races_won": self.races_won,
            "races_lost": self.races_lost,
        }


def simulate_round(
    rules: RuleSet,
    bots: list[BotSpec],
    seed: int,
    *,
    rotation: int = 0,
    game: Round | None = None,
    latency: Latency | None = None,
    tempo: bool = False,
) -> RoundResult:
    """Play one round between ``bots`` (one per seat) dealt from ``seed``.

    ``game`` may be given to play on an existing deal (tests); otherwise it is dealt here.
    ``latency`` puts each seat some way from the table (its delays stay with the seats).
    ``tempo`` watches every seat's reactions (``engine.tempo``, at the table only: no
    ``latency``) and gives the seats flagged in ``flags``.
    """
    players = len(bots)
    if game is None:
        game = Round.deal(rules, players, seed)
    elif game.players != players or game.rules != rules:
        raise ValueError(f"the game has {game.players} players and its own rules; the bots or rules given differ")
    if latency is not None:
        latency.check_players(players)
    key = f"ligretto:{seed}:{rotation}"
    drivers: list[BotDriver] = [spec.driver(game, seat, key) for seat, spec in enumerate(bots)]
    tie = random.Random(f"{key}:ties").random
    won, lost = [0] * players, [0] * players
    watch = TableTempo(frozenset(range(players))) if tempo else None
    if watch is not None:
        if latency is not None:
            raise ValueError("tempo is watched with every seat at the table (no latency)")
        watch.dealt(game.areas)
    if latency is None:
        now, applied, refused = _play_at_once(game, drivers, tie, won, lost, watch=watch)
    else:
        now, applied, refused = _play_over_network(game, drivers, tie, latency.link(key), won=won, lost=lost)
    outcome = finish_round(game)
    scores = score_round(game)
    return RoundResult(
        seed=seed,
        bots=[str(spec) for spec in bots],
        outcome=outcome,
        scores=[line.score for line in scores],
        center=[line.center for line in scores],
        stack_left=[line.stack for line in scores],
        actions=applied,
        refusals=refused,
        duration_s=min(now, TIME_LIMIT),
        rotation=rotation,
        races_won=won,
        races_lost=lost,
        flags={} if watch is None else watch.flags,
    )


def _race(game: Round, action: Action, result: Refused, won: list[int], lost: list[int]) -> None:
    """Count a refused play that lost a race for its pile, for the loser and the winner."""
    winner = race_winner(game, action, result)
    if winner is not None:
        won[winner] += 1
        lost[action.player] += 1


class TableClock:
    """The table's clock in virtual time: whose decision is due next, and when.

    One heap of (virtual time, seeded tie-break, seat, intended action or ``None``: a look).
    :meth:`due` takes the next entry, applies its action (a refusal, almost always a play
    beaten to its pile, changes nothing) and names the seat that decides now; its host says
    what that seat does and after how long with :meth:`act`.  The simulator's bots decide
    through their :class:`~ligretto.bots.driver.BotDriver` (:func:`simulate_round`); the
    research environment (:mod:`ligretto.rl`) lets a learner decide for some seats on the
    very same clock.  Every seat looks at the table at time 0.
    """

    __slots__ = ("_apply", "_game", "_heap", "_steps", "_tie", "applied", "lost", "now", "refused", "watch", "won")

    def __init__(self, game: Round, tie: Callable[[], float], watch: TableTempo | None = None) -> None:
        self._game = game
        self.watch = watch
        """Given each play's reaction and each applied action (the simulator's tempo watch)."""
        self._apply = game.apply
        self._tie = tie
        players = game.players
        self._heap: list[tuple[float, float, int, Action | None]] = [
            (0.0, tie(), seat, None) for seat in range(players)
        ]
        heapq.heapify(self._heap)
        self._steps = 0
        self.now = 0.0
        """The virtual time of the last decision taken from the heap."""
        self.applied = 0
        self.refused = 0
        self.won = [0] * players
        """Per seat: races for a pile won."""
        self.lost = [0] * players
        """Per seat: races for a pile lost."""

    def due(self) -> int:
        """Apply the next action whose time has come; the seat that decides now, or -1 once
        the round is over or past a limit (``TIME_LIMIT``, ``STEP_LIMIT``)."""
        if self._steps >= STEP_LIMIT:
            return -1
        self._steps += 1
        now, _tie, seat, action = heapq.heappop(self._heap)
        self.now = now
        if now > TIME_LIMIT:
            return -1
        if action is not None:
            watch = self.watch
            piles, face = _before(self._game, action) if watch is not None else (0, None)
            result = self._apply(action)
            if type(result) is Refused:
                self.refused += 1
                _race(self._game, action, result, self.won, self.lost)
            else:
                self.applied += 1
                if watch is not None:
                    _watched(watch, self._game, action, piles=piles, face=face, now=now)
                if self._game.ending is not None:
                    return -1
        return seat

    def act(self, seat: int, delay: float, action: Action | None) -> None:
        """``seat`` (the one :meth:`due` named) intends ``action`` (``None``: look again),
        to take effect ``delay`` virtual seconds from now."""
        heapq.heappush(self._heap, (self.now + delay, self._tie(), seat, action))


def _play_at_once(
    game: Round,
    drivers: list[BotDriver],
    tie: Callable[[], float],
    won: list[int],
    lost: list[int],
    *,
    watch: TableTempo | None = None,
) -> tuple[float, int, int]:
    """The round with every seat at the table: an action takes effect ``reaction`` after
    its bot looked; ``watch`` is given each play's reaction and each applied action.
    Returns (the virtual time it ended, applied, refused actions)."""
    clock = TableClock(game, tie, watch)
    clock.won, clock.lost = won, lost
    due, act = clock.due, clock.act
    plans = [driver.plan for driver in drivers]
    seat = due()
    while seat >= 0:
        delay, action = plans[seat]()
        act(seat, delay, action)
        seat = due()
    return clock.now, clock.applied, clock.refused


def _before(game: Round, action: Action) -> tuple[int, int | None]:
    """For the tempo watch, before ``action`` is applied: the piles, and a play's face."""
    face = face_played(game.areas[action.player], action) if isinstance(action, Play) else None
    return len(game.pile_seats), face


def _watched(watch: TableTempo, game: Round, action: Action, *, piles: int, face: int | None, now: float) -> None:
    """An applied action, for the tempo watch: a play's reaction judged, the change kept."""
    pile: int | None = None
    if isinstance(action, Play):
        watch.played(action.player, face, action.pile, now)
        pile = action.pile if action.pile is not None else (piles if len(game.pile_seats) > piles else None)
    watch.took_effect(action.player, game.areas[action.player], pile, now)


def _play_over_network(
    game: Round, drivers: list[BotDriver], tie: Callable[[], float], link: Link, *, won: list[int], lost: list[int]
) -> tuple[float, int, int]:
    """The round with each seat ``link``'s delays away from the table.

    A bot looks at the table at ``t`` (its look is the state the table sent then), and its
    action arrives at ``t + down + reaction + up``; it looks again at the moment its action
    took effect (the table's answer is the state then).  ``fair`` judging holds a contested
    play until its release (:func:`~ligretto.engine.races.judge`) on a second heap ordered by
    (release, compensated time, tie): of plays released together the earlier-stamped goes
    first.  Returns (the virtual time it ended, applied, refused actions)."""
    apply = game.apply
    delay_of = link.delay
    fair, window, cap, estimate = link.fair, link.window, link.cap, link.estimate
    # (virtual time it arrives, seeded tie-break, seat, intended action or None: a look, its
    # stamp: its send time)
    heap: list[tuple[float, float, int, Action | None, float]] = [
        (0.0, tie(), seat, None, 0.0) for seat in range(game.players)
    ]
    heapq.heapify(heap)
    # fair judging's held plays: (release, compensated time, seeded tie-break, seat, play)
    held: list[tuple[float, float, float, int, Action]] = []
    pop, push = heapq.heappop, heapq.heappush
    applied = refused = 0
    now = 0.0
    for _ in range(STEP_LIMIT):
        # 1. The next thing to happen: a held play released, or an arrival (or a look).
        action: Action | None
        if held and (not heap or held[0][0] <= heap[0][0]):
            now, _c, _tie, seat, action = pop(held)
            if now > TIME_LIMIT:
                break
        else:
            now, _tie, seat, action, stamp = pop(heap)
            if now > TIME_LIMIT:
                break
            # 2. Fair judging: a contested play waits while a rival's earlier play may come.
            if action is not None and fair:
                seats = rivals(game, action)
                if seats and isinstance(action, Play):
                    rival = max(estimate[r] for r in seats)
                    release, compensated = judge(now, stamp, estimate[seat], rival=rival, window=window, cap=cap)
                    release = behind(release, compensated, [(h[0], h[1]) for h in held if pile_of(h[4]) == action.pile])
                    if release > now:
                        push(held, (release, compensated, tie(), seat, action))
                        continue
        # 3. The action takes effect.
        if action is not None:
            result = apply(action)
            if type(result) is Refused:
                refused += 1
                _race(game, action, result, won, lost)
            else:
                applied += 1
                if game.ending is not None:
                    break
        # 4. The bot looks at the table as it is now; its next action travels both ways.
        delay, action = drivers[seat].plan()
        if action is None:  # nothing to do: it looks again a moment later, no message sent
            push(heap, (now + delay, tie(), seat, None, 0.0))
        else:
            sent = now + delay_of(seat) + delay
            push(heap, (sent + delay_of(seat), tie(), seat, action, sent))
    return now, applied, refused


def finish_round(game: Round) -> Outcome:
    """The round's outcome; a round that hit a limit is ended by everyone voting."""
    outcome = game.outcome
    if outcome is not None:
        return outcome
    for seat, area in enumerate(game.areas):
        if not area.voted:
            game.apply(Vote(seat))
    return Outcome(Ending.TIME_LIMIT, None)
