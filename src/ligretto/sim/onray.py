"""Simulations on Ray (``ligretto simulate --ray [ADDRESS]``): the worker processes' tasks, elsewhere.

The tasks, their seeds, their blocks and the rows a block's results travel as are
:mod:`ligretto.sim.tasks`, exactly as for worker processes: each block is one Ray task
(:func:`ligretto.sim.tasks.play_block`, with the run's own strategies), ``workers`` of
them are kept in flight, and the parent puts the results back in task order.  So a run on Ray gives the same rounds,
matches and summary as on any number of worker processes.

Ray is an optional extra (``pip install 'ligretto[ray]'``), imported only here and only
when asked for.  ``"local"`` starts a Ray for the run on this machine and stops it after;
an address joins a running cluster (``HOST:PORT`` of its head, ``auto`` for the one this
machine joined with ``ray start``, ``ray://HOST:PORT`` through Ray Client), whose nodes
need ligretto installed.  A Ray this process is already connected to (a notebook's, the
tests') is used as it is and left running.
"""

from __future__ import annotations

import logging
import os
import socket
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ligretto.bots.strategies import STRATEGIES, Strategy
from ligretto.sim.tasks import Blocks, Packed, SimConfig, SimConfigError, Task, block_size, play_block, seatings, unpack

LOCAL = "local"
"""The address that starts a Ray on this machine for one run (``--ray`` with no address)."""
AUTO = "auto"
"""Ray's own name for the cluster this machine joined with ``ray start``."""
PROBE_S = 5.0
"""Seconds a cluster's address has to accept a connection before it is refused: Ray itself
would try for minutes."""
LOCAL_OBJECT_STORE_BYTES = 128 * 2**20
"""The object store of a local Ray: a block's results are a few kilobytes (Ray's own default
is 30 % of the memory)."""
AUTH_HINT = "set RAY_AUTH_MODE=token and the cluster's RAY_AUTH_TOKEN, docs/simulator.md"
"""What a run says when joining a cluster failed: Ray's token authentication is the usual cause."""


class RayError(SimConfigError):
    """Ray cannot be used as asked: not installed, a bad or unreachable address, a failed start."""


class RayUnavailable(RayError):
    """Ray is not there: not installed, no cluster answering at the address, a failed start
    (the address itself may be right: ``ligretto simulate`` exits with code 1, not 2)."""


@contextmanager
def connect(address: str) -> Iterator[int]:
    """A Ray to play on for the ``with`` block: started (``"local"``) or joined; yields its CPUs."""
    try:
        import ray  # noqa: PLC0415 -- an optional extra, slow to import
    except ImportError:
        raise RayUnavailable("--ray needs Ray: pip install 'ligretto[ray]'") from None
    if address != LOCAL:
        check_address(address)
    if ray.is_initialized():
        yield cpus()
        return
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # a simulation never reports to anyone
    options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "logging_level": logging.ERROR}
    if address == LOCAL:
        options["object_store_memory"] = LOCAL_OBJECT_STORE_BYTES
    try:
        ray.init(address=address, **options)
    except Exception as error:  # whatever Ray says, one line of it
        hint = "" if address in (LOCAL, AUTO) else f" (a cluster with token authentication: {AUTH_HINT})"
        raise RayUnavailable(f"--ray {address}: Ray did not start: {error}{hint}") from None
    try:
        yield cpus()
    finally:
        ray.shutdown()


def check_address(address: str) -> None:
    """Refuse (:class:`RayError`) an address that is not one, or where nothing accepts a connection."""
    if address == AUTO:
        return
    where = address.removeprefix("ray://")
    host, colon, port_text = where.rpartition(":")
    host = host.removeprefix("[").removesuffix("]")  # [::1]:6379
    if not colon or not host or not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise RayError(
            f"--ray {address!r}: expected HOST:PORT (a cluster's head), ray://HOST:PORT (Ray Client), "
            f"{AUTO}, or no address for a local Ray"
        )
    try:
        socket.create_connection((host, int(port_text)), timeout=PROBE_S).close()
    except OSError as error:
        reason = error.strerror or str(error) or type(error).__name__
        raise RayUnavailable(f"--ray {address}: no Ray cluster answers there ({reason})") from None


def cpus() -> int:
    """The CPUs of the Ray this process is connected to: the default number of tasks in flight."""
    import ray  # noqa: PLC0415

    resources: dict[str, float] = ray.cluster_resources()
    return max(1, int(resources.get("CPU", 1)))


def own_strategies(config: SimConfig) -> dict[str, type[Strategy]]:
    """The strategies of ``config``'s bots that are not ligretto's (registered by ``--import``)."""
    found = {spec.strategy: spec.strategy_class for spec in config.bots}
    return {name: cls for name, cls in found.items() if not cls.__module__.startswith("ligretto.")}


def play_registered(
    strategies: dict[str, type[Strategy]], config: SimConfig, first: int, block: list[Task]
) -> list[Packed]:
    """:func:`~ligretto.sim.tasks.play_block` on a node, with the run's own strategies made known there."""
    STRATEGIES.update(strategies)
    return play_block(config, first, block)


def blocks(config: SimConfig, todo: list[Task]) -> Blocks:
    """Each block of tasks as a Ray task played it, ``config.worker_count`` of them in flight."""
    import ray  # noqa: PLC0415
    from ray import cloudpickle  # noqa: PLC0415

    in_flight = min(config.worker_count, len(todo))
    size = block_size(len(todo), in_flight)
    remote = ray.remote(num_cpus=1)(play_registered)  # by reference: a node imports ligretto.sim.onray
    strategies = own_strategies(config)
    for cls in strategies.values():  # sent by value: a node needs ligretto, not the user's module
        if cls.__module__ in sys.modules and cls.__module__ != "__main__":  # __main__'s go by value anyway
            cloudpickle.register_pickle_by_value(sys.modules[cls.__module__])
    shared = ray.put(config)  # sent once, not with every block
    known = ray.put(strategies)
    seats = seatings(config)
    starts = iter(range(0, len(todo), size))
    pending: dict[Any, int] = {}

    def submit() -> None:
        first = next(starts, None)
        if first is not None:
            pending[remote.remote(known, shared, first, todo[first : first + size])] = first

    try:
        for _ in range(in_flight):
            submit()
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            first = pending.pop(ready[0])
            packed = ray.get(ready[0])  # a task's error is raised here, as its own type
            submit()  # the next block is on its way while this one is unpacked
            yield first, [unpack(config, first + k, todo[first + k], rows, seats) for k, rows in enumerate(packed)]
    finally:
        for ref in pending:  # a failure or Ctrl-C here: nothing goes on playing for no one
            ray.cancel(ref, force=True)
