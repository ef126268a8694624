"""The garbage collector of a long-running server, and its pauses on ``/metrics``.

Python's collector runs when 700 more container objects have been allocated than
freed, and scans a generation each time; a full collection scans every container
object in the process, and while it runs no table moves.  With 500 tables of four the
defaults gave a full collection of 200-285 ms about once a minute (five more while the
connections opened), and young collections of 5-8 ms twice a second: the coroutines
and futures of a waiting connection live about a second, long enough to be scanned
again and again (docs/benchmarks.md).

Almost all of this server's garbage is freed at once by reference counting (its young
collections find next to nothing to collect), and what survives a collection lives
long (tables, rounds, their actions, connections).  So the collector is told to scan
each long-lived object once, and to leave it alone after that:

* a young collection only after :data:`THRESHOLDS` ``[0]`` net new container objects
  or :data:`YOUNG_EVERY_S` seconds, whichever comes first (:meth:`Collector.tick`): by
  then the short-lived objects are gone, freed by reference counting;
* after start-up and restoring (:meth:`Collector.settle`) and after every collection,
  the survivors are frozen (``gc.freeze``: moved where no collection looks);
* objects that die while frozen are still freed by reference counting, but not those
  that die in a reference cycle (a closed connection, a closed table): after
  :data:`THAW_AFTER` of those, everything is thawed and collected once (one longer
  pause) and the survivors frozen again -- at most once every :data:`THAW_EVERY_S`:
  with 10,000 connections open a full collection takes 250-500 ms, and a storm of
  connections closing (10,000 idle sockets, docs/reliability.md) thawed ten times in
  twenty seconds, each time holding every table up as long.
"""

from __future__ import annotations

import asyncio
import gc
import time
from typing import Any

from ligretto.server.ops import metrics

YOUNG_EVERY_S = 5.0
"""Seconds after which a young collection runs even if few objects were allocated."""
TICK_S = 1.0
"""Seconds between two looks at the clock (:meth:`Collector.tick`)."""
THRESHOLDS = (20_000, 10, 10)
"""``gc.set_threshold``: collections by allocation count (Python's default: 700, 10, 10)."""
THAW_AFTER = 1000
"""Connections and tables closed between two thaws of the frozen heap."""
THAW_EVERY_S = 30.0
"""Seconds between two thaws at least, however many went away."""


class Collector:
    """One per server process: thresholds, the clock, freezing, pause metrics."""

    def __init__(
        self,
        thresholds: tuple[int, int, int] = THRESHOLDS,
        thaw_after: int = THAW_AFTER,
        thaw_every_s: float = THAW_EVERY_S,
    ) -> None:
        self.thresholds = thresholds
        self.thaw_after = thaw_after
        self.thaw_every_s = thaw_every_s
        self.last_thaw = -thaw_every_s
        self.released = 0
        """Connections and tables closed since the last thaw."""
        self.thaws = 0
        self.last_collection = time.monotonic()
        self._saved: tuple[int, int, int] | None = None
        self._started = 0.0

    @property
    def installed(self) -> bool:
        return self._saved is not None

    def install(self) -> None:
        """Set the thresholds and watch every collection (idempotent)."""
        if self._saved is not None:
            return
        self._saved = gc.get_threshold()
        gc.set_threshold(*self.thresholds)
        gc.callbacks.append(self._callback)

    def uninstall(self) -> None:
        """Back to how the process was."""
        if self._saved is None:
            return
        gc.callbacks.remove(self._callback)
        gc.set_threshold(*self._saved)
        self._saved = None
        gc.unfreeze()

    def settle(self) -> None:
        """After start-up and restoring: collect once, freeze what is left."""
        gc.collect()
        gc.freeze()

    def release(self, count: int = 1) -> None:
        """Note that long-lived objects went away (a connection or a table was closed)."""
        self.released += count

    def tick(self) -> int | None:
        """Collect if it is time: the whole heap once :data:`THAW_AFTER` long-lived objects
        went away (and :data:`THAW_EVERY_S` passed since the last time), else the young
        generation if none was collected for :data:`YOUNG_EVERY_S`.  Returns the
        generation collected (``None``: none)."""
        now = time.monotonic()
        if self.released >= self.thaw_after and now - self.last_thaw >= self.thaw_every_s:
            self.released = 0
            self.thaws += 1
            self.last_thaw = now
            gc.unfreeze()
            gc.collect()
            return 2
        if now - self.last_collection >= YOUNG_EVERY_S:
            gc.collect(0)
            return 0
        return None

    async def run(self, tick_s: float = TICK_S) -> None:
        """Tick until cancelled (the server's lifespan)."""
        while True:
            await asyncio.sleep(tick_s)
            self.tick()

    def _callback(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
            return
        metrics.GC_PAUSES.labels(str(info["generation"])).observe(time.perf_counter() - self._started)
        self.last_collection = time.monotonic()
        gc.freeze()  # what survived a collection lives long: no collection needs to scan it again


COLLECTOR = Collector()
