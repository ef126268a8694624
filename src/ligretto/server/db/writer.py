"""Where the store's writes are committed, and what waits for each commit.

The store collects what play writes during a turn of the event loop (``store.Store``);
:class:`Writer` commits each batch, in order, and then runs on the loop what waited for
it: the outbox's messages of that turn (``outbox.Outbox``), so no client learns of
something that is not committed yet.

- **On the loop** (an SQLite file): a commit appends to the write-ahead log, 50 µs; it
  runs at once, then the messages go -- at most once every :data:`COMMIT_EVERY_S`
  (:class:`Pace`): under load a turn of the loop holds a few actions, and a commit for
  each turn was a tenth of the server's CPU at 1,000 tables (issue 31); a commit after a
  quiet spell still goes at once.
- **On a thread of its own** (PostgreSQL): a durable commit waits for the server's disk,
  0.7 ms that the loop would otherwise spend idle.  One thread, with its own connection,
  commits one batch at a time; while it does, the loop plays on and collects the next
  batch, which goes as one transaction once the first is done (under load, many turns'
  writes share one commit).  Batch N's messages are delivered after commit N, and before
  batch N+1's: the order of messages stays the order of play.

A batch that fails is put back in front of what was collected since (every write is an
idempotent upsert) and written with the next one; its messages go anyway, as the game
goes on in memory (a failed commit is logged, docs/deploy.md "When PostgreSQL fails").
After a failure the writer waits for the next write before it tries again, so a database
that is down is not asked in a loop.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import math
import time
from collections.abc import Callable
from typing import Generic, TypeVar

log = logging.getLogger("ligretto.store")

Batch = TypeVar("Batch")

Waiting = Callable[[], None]
"""What runs on the loop once everything written before it is committed."""

COMMIT_EVERY_S = 0.005
"""An SQLite store's commits (and so the outbox's deliveries) come at most this often: up to
5 ms more before an ack under load, a third of the commits and 7-9 % less CPU per action at
1,000 tables (docs/benchmarks.md, issue 31)."""


class Pace:
    """Runs what it is given on the loop's next turn, or, if the last run was less than
    ``every_s`` ago, once ``every_s`` has passed since it (0: always on the next turn).
    ``clock`` is monotonic seconds, the loop's own clock (the tests' to fake)."""

    __slots__ = ("clock", "every_s", "last")

    def __init__(self, every_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.every_s = every_s
        self.clock = clock
        self.last = -math.inf

    def call(self, loop: asyncio.AbstractEventLoop, callback: Callable[[], None]) -> None:
        wait = self.last + self.every_s - self.clock() if self.every_s else 0.0
        if wait > 0:
            loop.call_later(wait, callback)
        else:
            loop.call_soon(callback)

    def ran(self) -> None:
        """What was called has run now."""
        if self.every_s:
            self.last = self.clock()


class Writer(Generic[Batch]):
    """Commits the batches ``take`` gives with ``write`` (``False``: it failed, ``put_back``
    the batch); ``threaded``: on a thread of its own, else on the caller's; ``landed``
    sees each committed batch (on the loop) before what waited for it runs."""

    def __init__(
        self,
        take: Callable[[], Batch | None],
        write: Callable[[Batch], bool],
        put_back: Callable[[Batch], None],
        *,
        threaded: bool,
        landed: Callable[[Batch], None] | None = None,
    ) -> None:
        self._take = take
        self._write = write
        self._put_back = put_back
        self._landed_hook = landed
        """Runs on the loop once a batch is committed, before what waited for it."""
        self._thread = (
            concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="ligretto-writer") if threaded else None
        )
        self._in_flight = False
        self._closed = False
        self._waiting: list[Waiting] = []
        """What waits for the next batch's commit."""
        self.commits = 0
        """Batches committed so far."""

    @property
    def threaded(self) -> bool:
        return self._thread is not None

    @property
    def busy(self) -> bool:
        """A batch is being committed, or something waits for a commit."""
        return self._in_flight or bool(self._waiting)

    def commit_now(self) -> None:
        """Commit what was collected, and return once it is (after the batch in flight,
        if any: the order stays)."""
        batch = self._take()
        if batch is None:
            return
        done = self._write(batch) if self._thread is None else self._thread.submit(self._write, batch).result()
        self._finished(batch, done)

    def after_commit(self, waiting: Waiting) -> None:
        """Run ``waiting`` once everything collected so far is committed: at once on the
        loop's thread, else on the loop when the writer's thread is done with it."""
        if self._thread is None:
            try:
                self.commit_now()
            finally:
                waiting()
            return
        self._waiting.append(waiting)
        if not self._in_flight:
            self._send()

    def written(self) -> None:
        """Something was collected (on the loop's next turn): commit it unless a batch is in
        flight (it goes when that one is done)."""
        if self._thread is None:
            self.commit_now()
        elif not self._in_flight:
            self._send()

    def _send(self) -> None:
        batch = self._take()
        waiting, self._waiting = self._waiting, []
        if batch is None:
            _run(waiting)
            return
        assert self._thread is not None
        self._in_flight = True
        loop = asyncio.get_running_loop()
        future = self._thread.submit(self._write, batch)

        def landed(future: concurrent.futures.Future[bool]) -> None:
            loop.call_soon_threadsafe(self._landed, batch, future, waiting)

        future.add_done_callback(landed)

    def _landed(self, batch: Batch, future: concurrent.futures.Future[bool], waiting: list[Waiting]) -> None:
        self._in_flight = False
        error = future.exception()
        if error is not None:
            log.error("a commit failed: kept for the next one", exc_info=error)
        done = error is None and future.result()
        self._finished(batch, done)
        try:
            _run(waiting)
        finally:
            if done and not self._closed and not self._in_flight:
                self._send()  # what was collected meanwhile, and what waits for it

    def _finished(self, batch: Batch, done: bool) -> None:
        if done:
            self.commits += 1
            if self._landed_hook is not None:
                self._landed_hook(batch)
        else:
            self._put_back(batch)

    def close(self) -> None:
        """Commit what is left, and stop the thread (what waits is run: the loop is ending)."""
        self._closed = True
        self.commit_now()
        if self._thread is not None:
            self._thread.shutdown(wait=True)
        waiting, self._waiting = self._waiting, []
        _run(waiting)


def _run(waiting: list[Waiting]) -> None:
    """Run each, in order; an error in one does not keep the others from running."""
    errors: list[BaseException] = []
    for callback in waiting:
        try:
            callback()
        except Exception as error:  # the loop's to log, after the others ran
            errors.append(error)
    if errors:
        raise errors[0]
