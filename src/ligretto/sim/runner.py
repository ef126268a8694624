"""Many simulated rounds or matches: seeds, duplicate deals, worker processes.

The unit of work is a *task*: one round (``--rounds``) or one whole match
(``--matches``; its rounds depend on the running totals, so they stay together).
Tasks are listed in a fixed order, cut into fixed chunks and handed to worker
processes; results come back in task order.  Every task is a pure function of
(rules, bots, seed, rotation), so a run gives identical results for any number
of workers.

Seeds: deal ``n`` (1-based) of a run with master seed ``S`` uses
``round_seed(S, n)``; in matches mode that is the seed of match ``n``, whose
round ``k`` is dealt from ``round_seed(round_seed(S, n), k)`` exactly as
:class:`~ligretto.engine.scoring.Match` deals it.

Duplicate mode: every deal (or match) is played once per rotation
``r = 0 .. P-1``; in rotation ``r`` seat ``s`` is taken by bot ``(s + r) % P``,
so every bot plays every deal from every seat, and bots are compared on the same
cards.  Results are then counted per *bot* (its index in the list), not per seat.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from ligretto.bots.spec import BotSpec
from ligretto.engine.rules import RuleSet
from ligretto.engine.scoring import Match, round_seed
from ligretto.sim.table import RoundResult, simulate_round

MATCH_ROUND_LIMIT = 1000
"""Rounds after which a match that never reaches its ``target:N`` is ended anyway."""
CHUNKS_PER_WORKER = 16
"""About this many chunks per worker: small enough to balance, large enough to be cheap."""
MAX_CHUNK = 64
"""At most this many tasks per chunk: the progress bar moves, and the workers finish
together; larger chunks cost the parent process less (a chunk's round trip costs it
about a millisecond of CPU, docs/benchmarks.md)."""

ProgressCallback = Callable[[int, int], None]
"""``on_progress(done, total)``: tasks (rounds, or matches in matches mode) finished so far."""


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
    """Worker processes; ``None`` means ``os.cpu_count()``.  Never changes the results."""

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


@dataclass(slots=True)
class SimReport:
    """Everything a run produced, in task order."""

    config: SimConfig
    rounds: list[PlayedRound] = field(default_factory=list)
    matches: list[PlayedMatch] = field(default_factory=list)
    wall_s: float = 0.0
    """Real seconds the run took (not part of the results: it depends on the machine)."""


# --- tasks ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Task:
    deal: int
    seed: int
    rotation: int


_Outcome = tuple[list[PlayedRound], PlayedMatch | None]


def tasks(config: SimConfig) -> list[_Task]:
    """Every task in order: deal 1 in each rotation, then deal 2, ..."""
    return [
        _Task(deal, round_seed(config.seed, deal), rotation)
        for deal in range(1, config.deals + 1)
        for rotation in range(config.rotations)
    ]


def _play_round(config: SimConfig, task: _Task) -> _Outcome:
    seating = config.seating(task.rotation)
    bots = [config.bots[index] for index in seating]
    result = simulate_round(config.rules, bots, task.seed, rotation=task.rotation)
    return [PlayedRound(result, task.deal, tuple(seating))], None


def _play_match(config: SimConfig, task: _Task, number: int) -> _Outcome:
    """Play a match with the engine's :class:`Match`: its seeds, its ``match_end``, its totals."""
    seating = config.seating(task.rotation)
    bots = [config.bots[index] for index in seating]
    match = Match(config.rules, config.players, task.seed)
    played: list[PlayedRound] = []
    while not match.over and len(played) < MATCH_ROUND_LIMIT:
        game = match.new_round()
        result = simulate_round(config.rules, bots, game.seed, rotation=task.rotation, game=game)
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


def _run_chunk(config: SimConfig, chunk: Sequence[tuple[int, _Task]]) -> list[_Outcome]:
    if config.matches is None:
        return [_play_round(config, task) for _, task in chunk]
    return [_play_match(config, task, index + 1) for index, task in chunk]


def chunk_size(total: int, workers: int) -> int:
    """Tasks per chunk: a pure function of the task count and worker count."""
    return max(1, min(MAX_CHUNK, -(-total // (workers * CHUNKS_PER_WORKER))))


# The worker processes' copy of the configuration, set once per process.
_worker_config: SimConfig | None = None


def _init_worker(config: SimConfig) -> None:
    global _worker_config  # noqa: PLW0603 -- one configuration per worker process
    _worker_config = config
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle: it stops the pool


def _run_chunk_in_worker(chunk: Sequence[tuple[int, _Task]]) -> list[_Outcome]:
    assert _worker_config is not None, "worker not initialised"
    return _run_chunk(_worker_config, chunk)


def _outcomes(config: SimConfig, chunks: list[list[tuple[int, _Task]]]) -> Iterator[list[_Outcome]]:
    """Each chunk's outcomes, in chunk order, computed here or by a pool of worker processes."""
    workers = min(config.worker_count, len(chunks))
    if workers <= 1:
        for chunk in chunks:
            yield _run_chunk(config, chunk)
        return
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    with context.Pool(workers, initializer=_init_worker, initargs=(config,)) as pool:
        yield from pool.imap(_run_chunk_in_worker, chunks)  # imap keeps the order


def run(config: SimConfig, on_progress: ProgressCallback | None = None) -> SimReport:
    """Play every task of ``config`` and collect the results in task order."""
    start = time.perf_counter()
    todo = list(enumerate(tasks(config)))
    size = chunk_size(len(todo), config.worker_count)
    chunks = [todo[i : i + size] for i in range(0, len(todo), size)]
    report = SimReport(config)
    done = 0
    if on_progress is not None:
        on_progress(0, len(todo))
    for outcomes in _outcomes(config, chunks):
        for rounds, match in outcomes:
            report.rounds += rounds
            if match is not None:
                report.matches.append(match)
        done += len(outcomes)
        if on_progress is not None:
            on_progress(done, len(todo))
    report.wall_s = time.perf_counter() - start
    return report
