"""Many simulated rounds or matches played by worker processes (or on Ray), in task order.

What a task is, its seed, its block and its result are :mod:`ligretto.sim.tasks` (its
names are re-exported here); this module plays the blocks in worker processes, or hands
them to :mod:`ligretto.sim.onray` when the configuration names a Ray (``--ray``), and
puts the results back in task order with a progress callback.
"""

from __future__ import annotations

import multiprocessing
import pickle
import signal
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from multiprocessing.connection import Connection, wait
from multiprocessing.context import ForkContext, SpawnContext
from typing import Any

from ligretto.sim.tasks import (
    BLOCKS_PER_WORKER,
    MATCH_ROUND_LIMIT,
    MAX_BLOCK,
    Blocks,
    PlayedMatch,
    PlayedRound,
    SimConfig,
    SimConfigError,
    Task,
    TaskOutcome,
    block_size,
    play,
    play_block,
    seatings,
    tasks,
    unpack,
)

__all__ = [
    "BLOCKS_PER_WORKER",
    "MATCH_ROUND_LIMIT",
    "MAX_BLOCK",
    "Blocks",
    "PlayedMatch",
    "PlayedRound",
    "ProgressCallback",
    "SimConfig",
    "SimConfigError",
    "SimReport",
    "block_size",
    "run",
    "tasks",
]

ProgressCallback = Callable[[int, int], None]
"""``on_progress(done, total)``: tasks (rounds, or matches in matches mode) finished so far."""


@dataclass(slots=True)
class SimReport:
    """Everything a run produced, in task order."""

    config: SimConfig
    rounds: list[PlayedRound] = field(default_factory=list)
    matches: list[PlayedMatch] = field(default_factory=list)
    wall_s: float = 0.0
    """Real seconds the run took (not part of the results: it depends on the machine)."""


# --- worker processes ---------------------------------------------------------------------
#
# Each worker takes the next block of tasks from a shared counter (no round trip through
# the parent), plays it and sends back its rows (tasks.pack); the parent only waits,
# rebuilds the result objects and puts them in task order.

_DONE = -1
"""A worker's last message when no task is left."""
_FAILED = -2
"""A worker's last message when it failed: the error follows."""


def _work(config: SimConfig, todo: list[Task], counter: Any, size: int, results: Connection) -> None:
    """A worker process: play blocks of tasks until none are left; report each, or the error."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle: it stops the workers
    try:
        while True:
            with counter.get_lock():
                first = counter.value
                counter.value = first + size
            if first >= len(todo):
                break
            results.send((first, play_block(config, first, todo[first : first + size])))
        results.send((_DONE, None))
    except BaseException as error:  # whatever it is, the parent raises it
        results.send((_FAILED, _portable(error)))
    finally:
        results.close()


def _portable(error: BaseException) -> BaseException:
    """``error`` if it survives pickling, else a RuntimeError carrying its traceback."""
    try:
        pickle.loads(pickle.dumps(error))
    except Exception:  # any failure to round-trip: send text instead
        return RuntimeError("".join(traceback.format_exception(error)))
    return error


def _blocks(config: SimConfig, todo: list[Task]) -> Blocks:
    """Each block of tasks as a worker process (or, with one worker, this one) played it."""
    workers = min(config.worker_count, len(todo))
    size = block_size(len(todo), workers)
    if workers <= 1:
        for first in range(0, len(todo), size):
            yield first, [play(config, index, todo[index]) for index in range(first, min(first + size, len(todo)))]
        return
    context: ForkContext | SpawnContext
    if "fork" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("fork")
    else:
        context = multiprocessing.get_context("spawn")
    counter = context.Value("q", 0)
    seats = seatings(config)
    pipes: dict[Connection, Any] = {}
    try:
        for _ in range(workers):
            receiver, sender = context.Pipe(duplex=False)
            process = context.Process(target=_work, args=(config, todo, counter, size, sender), daemon=True)
            process.start()
            sender.close()
            pipes[receiver] = process
        while pipes:
            for pipe in wait(list(pipes)):
                assert isinstance(pipe, Connection)
                try:
                    first, block = pipe.recv()
                except EOFError:  # killed, or crashed in C: the others may wait on the counter's lock for ever
                    process = pipes.pop(pipe)
                    process.join()
                    raise RuntimeError(f"a simulation worker died (exit code {process.exitcode})") from None
                if first == _DONE:
                    pipes.pop(pipe).join()
                    continue
                if first == _FAILED:
                    raise block
                yield (
                    first,
                    [unpack(config, first + k, todo[first + k], packed, seats) for k, packed in enumerate(block)],
                )
    finally:
        for process in pipes.values():
            process.terminate()
            process.join()


def run(config: SimConfig, on_progress: ProgressCallback | None = None) -> SimReport:
    """Play every task of ``config`` and collect the results in task order.

    With ``config.ray`` the tasks are played on that Ray (:mod:`ligretto.sim.onray`), and
    the report's ``workers`` is the number of Ray tasks kept in flight.
    """
    start = time.perf_counter()
    if config.ray is None:
        return _collect(config, _blocks, on_progress, start)
    from ligretto.sim import onray  # noqa: PLC0415 -- Ray is an optional extra, slow to import

    with onray.connect(config.ray) as cpus:
        return _collect(replace(config, workers=config.workers or cpus), onray.blocks, on_progress, start)


def _collect(
    config: SimConfig,
    play_blocks: Callable[[SimConfig, list[Task]], Blocks],
    on_progress: ProgressCallback | None,
    start: float,
) -> SimReport:
    todo = tasks(config)
    outcomes: list[TaskOutcome | None] = [None] * len(todo)
    done = 0
    if on_progress is not None:
        on_progress(0, len(todo))
    blocks = play_blocks(config, todo)
    try:
        for first, block in blocks:
            outcomes[first : first + len(block)] = block
            done += len(block)
            if on_progress is not None:
                on_progress(done, len(todo))
    finally:
        blocks.close()  # stops the workers at once if anything went wrong here (Ctrl-C included)
    assert done == len(todo), f"{len(todo) - done} of {len(todo)} tasks not played"
    report = SimReport(config)
    for outcome in outcomes:
        assert outcome is not None
        rounds, match = outcome
        report.rounds += rounds
        if match is not None:
            report.matches.append(match)
    report.wall_s = time.perf_counter() - start
    return report
