"""The tasks of a simulation: what to play, their seeds, their order and their results.

The unit of work is a *task*: one round (``--rounds``) or one whole match
(``--matches``; its rounds depend on the running totals, so they stay together).
Tasks are listed in a fixed order and cut into fixed blocks (:func:`block_size`) that
the workers take one after the other -- worker processes (:mod:`ligretto.sim.runner`) or
Ray tasks (:mod:`ligretto.sim.onray`); results are put back in task order.  Every task
is a pure function of (rules, bots, seed, rotation), so a run gives identical results
for any number of workers, on processes or on Ray.

Seeds: deal ``n`` (1-based) of a run with master seed ``S`` uses
``round_seed(S, n)``; in matches mode that is the seed of match ``n``, whose
round ``k`` is dealt from ``round_seed(round_seed(S, n), k)`` exactly as
:class:`~ligretto.engine.match.Match` deals it.

Duplicate mode: every deal (or match) is played once per rotation
``r = 0 .. P-1``; in rotation ``r`` seat ``s`` is taken by bot ``(s + r) % P``,
so every bot plays every deal from every seat, and bots are compared on the same
cards.  Results are then counted per *bot* (its index in the list), not per seat.
"""

from __future__ import annotations

import os
from collections.abc import Generator
from dataclasses import dataclass
from typing import Any, NamedTuple

from ligretto.bots.spec import BotSpec
from ligretto.engine.events import Ending, Outcome
from ligretto.engine.match import Match
from ligretto.engine.rules import RuleSet
from ligretto.engine.scoring import round_seed
from ligretto.sim.network import Latency, LatencyError
from ligretto.sim.table import RoundResult, simulate_round

MATCH_ROUND_LIMIT = 1000
"""Rounds after which a match that never reaches its ``target:N`` is ended anyway."""
BLOCKS_PER_WORKER = 32
"""About this many blocks of tasks per worker: the progress bar moves often."""
MAX_BLOCK = 32
"""At most this many tasks per block, so that the workers finish together."""


class SimConfigError(ValueError):
    """A simulation that cannot be run as configured (both rounds and matches, no bots, ...)."""


@dataclass(frozen=True, slots=True)
class SimConfig:
    """What to simulate: the rules, one bot per seat, how much, from which seed, how."""

    rules: RuleSet
    bots: tuple[BotSpec, ...]
    """One bot per seat (in duplicate mode: the bots rotated through the seats)."""
    rounds: int | None = None
    """Deals to play (each played once per rotation in duplicate mode)."""
    matches: int | None = None
    """Matches to play until ``rules.match_end`` (instead of ``rounds``)."""
    seed: int = 1
    duplicate: bool = False
    workers: int | None = None
    """Worker processes (on Ray: tasks in flight); ``None`` means ``os.cpu_count()`` (on Ray:
    the cluster's CPUs).  Never changes the results."""
    latency: Latency | None = None
    """Each seat's network delay and the table's judging of races; ``None``: every seat at the
    table.  The delays stay with the seats: in duplicate mode the bots rotate through them."""
    ray: str | None = None
    """Play the tasks on Ray (:mod:`ligretto.sim.onray`): a cluster's address, or ``"local"``
    for a Ray started for this run; ``None``: worker processes.  Never changes the results,
    and is not part of :meth:`to_dict` (a run's files are the same either way)."""

    def __post_init__(self) -> None:
        if (self.rounds is None) == (self.matches is None):
            raise SimConfigError("give either rounds or matches, not both or neither")
        count = self.rounds if self.rounds is not None else self.matches
        if count is None or count < 1:
            raise SimConfigError(f"rounds and matches must be at least 1, not {count}")
        if self.workers is not None and self.workers < 1:
            raise SimConfigError(f"workers must be at least 1, not {self.workers}")
        object.__setattr__(self, "bots", tuple(self.bots))
        self.rules.row_length(len(self.bots))  # raises RuleError unless 2-12 players
        if self.latency is not None:
            try:
                self.latency.check_players(len(self.bots))
            except LatencyError as error:
                raise SimConfigError(str(error)) from None

    @property
    def players(self) -> int:
        return len(self.bots)

    @property
    def deals(self) -> int:
        """Deals (rounds mode) or matches (matches mode) to play per rotation."""
        return self.rounds if self.rounds is not None else self.matches or 0

    @property
    def rotations(self) -> int:
        """How often each deal is played: once per seat in duplicate mode, else once."""
        return self.players if self.duplicate else 1

    @property
    def worker_count(self) -> int:
        return self.workers if self.workers is not None else os.cpu_count() or 1

    def labels(self) -> list[str]:
        """A name per bot, numbered so that equal specs stay apart: ``1 smart:expert``."""
        return [f"{index + 1} {spec}" for index, spec in enumerate(self.bots)]

    def seating(self, rotation: int) -> list[int]:
        """The bot index in each seat for ``rotation``: seat ``s`` gets bot ``(s + rotation) % P``."""
        players = self.players
        return [(seat + rotation) % players for seat in range(players)]

    def to_dict(self) -> dict[str, Any]:
        return {
            "rules": self.rules.to_dict(),
            "players": self.players,
            "bots": [str(spec) for spec in self.bots],
            "rounds": self.rounds,
            "matches": self.matches,
            "seed": self.seed,
            "duplicate": self.duplicate,
            "workers": self.worker_count,
            "latency": None if self.latency is None else self.latency.to_dict(),
        }


@dataclass(frozen=True, slots=True)
class PlayedRound:
    """One simulated round and where it belongs in the run."""

    result: RoundResult
    deal: int
    """The deal (rounds mode) or match (matches mode) it belongs to, 1-based."""
    seating: tuple[int, ...]
    """The bot index in each seat."""
    match: int | None = None
    """Matches mode: the match's number (1-based), counted over all rotations."""
    match_round: int | None = None
    """Matches mode: the round's number within its match, 1-based."""


@dataclass(frozen=True, slots=True)
class PlayedMatch:
    """One whole match: its rounds are in :attr:`SimReport.rounds`."""

    match: int
    """1-based, in the order played: deal 1's rotations first, then deal 2's ..."""
    deal: int
    seed: int
    rotation: int
    seating: tuple[int, ...]
    rounds: int
    totals: tuple[int, ...]
    """Each seat's total."""
    winners: tuple[int, ...]
    """The seats with the highest total (several on a tie)."""
    complete: bool = True
    """False if the match was cut off at :data:`MATCH_ROUND_LIMIT` rounds."""

    def winning_bots(self) -> tuple[int, ...]:
        return tuple(self.seating[seat] for seat in self.winners)


# --- tasks ----------------------------------------------------------------------------


class Task(NamedTuple):  # a tuple: cheap to make by the ten thousand
    deal: int
    seed: int
    rotation: int


TaskOutcome = tuple[list[PlayedRound], PlayedMatch | None]
Blocks = Generator[tuple[int, list[TaskOutcome]]]
"""``(first task index, outcomes)`` for each block of tasks as it is played, in any order."""


def tasks(config: SimConfig) -> list[Task]:
    """Every task in order: deal 1 in each rotation, then deal 2, ..."""
    return [
        Task(deal, round_seed(config.seed, deal), rotation)
        for deal in range(1, config.deals + 1)
        for rotation in range(config.rotations)
    ]


def _play_round(config: SimConfig, task: Task) -> TaskOutcome:
    seating = config.seating(task.rotation)
    bots = [config.bots[index] for index in seating]
    result = simulate_round(config.rules, bots, task.seed, rotation=task.rotation, latency=config.latency)
    return [PlayedRound(result, task.deal, tuple(seating))], None


def _play_match(config: SimConfig, task: Task, number: int) -> TaskOutcome:
    """Play a match with the engine's :class:`Match`: its seeds, its ``match_end``, its totals."""
    seating = config.seating(task.rotation)
    bots = [config.bots[index] for index in seating]
    match = Match(config.rules, config.players, task.seed)
    played: list[PlayedRound] = []
    while not match.over and len(played) < MATCH_ROUND_LIMIT:
        game = match.new_round()
        result = simulate_round(
            config.rules, bots, game.seed, rotation=task.rotation, game=game, latency=config.latency
        )
        match.finish_round()
        played.append(PlayedRound(result, task.deal, tuple(seating), number, len(played) + 1))
    outcome = PlayedMatch(
        match=number,
        deal=task.deal,
        seed=task.seed,
        rotation=task.rotation,
        seating=tuple(seating),
        rounds=len(played),
        totals=match.sheet.totals(),
        winners=match.winners(),
        complete=match.over,
    )
    return played, outcome


def block_size(total: int, workers: int) -> int:
    """Tasks a worker takes at a time: a pure function of the task count and worker count."""
    return max(1, min(MAX_BLOCK, total // (workers * BLOCKS_PER_WORKER)))


# --- results as plain rows ----------------------------------------------------------------
#
# A worker (a process or a Ray task) plays a block of tasks and sends back one message of
# plain numbers and strings; the parent only rebuilds the result objects and puts them in
# task order.  Before, a multiprocessing.Pool's parent spent a quarter of a core handing out
# chunks and unpickling result objects, which the workers then lacked (docs/benchmarks.md).

Row = tuple[int, str, int | None, list[int], list[int], list[int], int, int, float, list[int], list[int]]
"""A :class:`RoundResult` as plain data, without what the parent knows (bots, rotation)."""
Seating = tuple[tuple[int, ...], list[str]]
"""The bot index in each seat, and the bots' names in seat order."""
Packed = tuple[list[Row], tuple[tuple[int, ...], tuple[int, ...], bool] | None]
"""A task's rounds as rows, and in matches mode its match's (totals, winners, complete)."""


def pack(outcome: TaskOutcome) -> Packed:
    rows = [
        (
            r.seed,
            r.ended_by,
            r.stopped_by,
            r.scores,
            r.center,
            r.stack_left,
            r.actions,
            r.refusals,
            r.duration_s,
            r.races_won,
            r.races_lost,
        )
        for r in (played.result for played in outcome[0])
    ]
    match = outcome[1]
    return rows, None if match is None else (match.totals, match.winners, match.complete)


def unpack(config: SimConfig, index: int, task: Task, packed: Packed, seats: list[Seating]) -> TaskOutcome:
    """The outcome :func:`_play_round` or :func:`_play_match` returned in the worker.

    ``seats[r]`` is the seating of rotation ``r`` and the bots' names in that order.
    """
    rows, ending = packed
    seating, bots = seats[task.rotation]
    number = index + 1 if config.matches is not None else None
    rounds = [
        PlayedRound(
            RoundResult(
                seed,
                bots.copy(),
                Outcome(Ending(ended_by), stopped_by),
                scores,
                center,
                stack,
                actions,
                refusals,
                duration,
                task.rotation,
                won,
                lost,
            ),
            task.deal,
            seating,
            number,
            None if number is None else k + 1,
        )
        for k, (seed, ended_by, stopped_by, scores, center, stack, actions, refusals, duration, won, lost) in enumerate(
            rows
        )
    ]
    if ending is None or number is None:
        return rounds, None
    totals, winners, complete = ending
    match = PlayedMatch(number, task.deal, task.seed, task.rotation, seating, len(rounds), totals, winners, complete)
    return rounds, match


def seatings(config: SimConfig) -> list[Seating]:
    """What :func:`unpack` needs of every rotation: its seating and the bots' names in it."""
    return [
        (tuple(seating), [str(config.bots[bot]) for bot in seating])
        for seating in map(config.seating, range(config.rotations))
    ]


def play(config: SimConfig, index: int, task: Task) -> TaskOutcome:
    """Task ``index`` (0-based, in :func:`tasks` order) played: its rounds, and its match."""
    if config.matches is None:
        return _play_round(config, task)
    return _play_match(config, task, index + 1)


def play_block(config: SimConfig, first: int, block: list[Task]) -> list[Packed]:
    """A block of tasks, the first of them task ``first``, played and packed as a worker sends it."""
    return [pack(play(config, first + k, task)) for k, task in enumerate(block)]
