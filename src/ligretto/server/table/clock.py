"""The clock and scheduler a table is given: everything that waits at a table goes through it.

A :class:`Scheduler` tells the time (:meth:`~Scheduler.now`, the table's clock) and calls
a function later (:meth:`~Scheduler.call_later`, which returns a :class:`Timer` to cancel,
or ``None`` when it cannot keep timers at all).  The countdown before *go*, the grace
periods and the bots' pacing are its timers, so a test can run them in virtual time.

- :class:`LoopScheduler` (the server's): the wall clock (``time.time``, unless another
  clock is given) and the running asyncio loop's ``call_later``; with no running loop
  there is no timer (scripts and tests that drive a table by hand).
- :class:`VirtualScheduler` (tests): a clock that moves only when :meth:`~VirtualScheduler.advance`
  moves it, running every timer that falls due, in time order (the order they were set in,
  for equal times), timers set by those timers included.

:class:`Timers` is one table's book of its own timers (countdown, grace periods, the
tutor's moves): the ones still to fire, forgotten when they fire, all cancelled on close.
"""

from __future__ import annotations

import asyncio
import heapq
import time
from collections.abc import Callable
from typing import Protocol


class Timer(Protocol):
    """A call set for later; ``cancel`` makes sure it does not happen."""

    def cancel(self) -> None: ...


class Scheduler(Protocol):
    """The time, and calls later (see the module's docstring)."""

    def now(self) -> float:
        """The table's clock, in seconds (absolute: the countdown's ``start_at`` is one)."""
        ...

    def call_later(self, seconds: float, callback: Callable[[], None]) -> Timer | None:
        """Call ``callback`` in ``seconds``; ``None``: no timer can be set (no event loop)."""
        ...


class LoopScheduler:
    """The real scheduler: ``clock`` (wall time by default) and the running asyncio loop."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock

    def now(self) -> float:
        return self.clock()

    def call_later(self, seconds: float, callback: Callable[[], None]) -> Timer | None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return None
        return loop.call_later(seconds, callback)


class VirtualTimer:
    """A timer of a :class:`VirtualScheduler`."""

    __slots__ = ("due", "callback", "cancelled")

    def __init__(self, due: float, callback: Callable[[], None]) -> None:
        self.due = due
        self.callback = callback
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class VirtualScheduler:
    """Virtual time for tests: nothing happens until :meth:`advance` (or :meth:`run_due`)."""

    def __init__(self, start: float = 1000.0) -> None:
        self._now = start
        self._heap: list[tuple[float, int, VirtualTimer]] = []
        self._order = 0
        """Tie-break of equal times: the order the timers were set in."""

    def now(self) -> float:
        return self._now

    def call_later(self, seconds: float, callback: Callable[[], None]) -> VirtualTimer:
        timer = VirtualTimer(self._now + max(0.0, seconds), callback)
        self._order += 1
        heapq.heappush(self._heap, (timer.due, self._order, timer))
        return timer

    @property
    def pending(self) -> int:
        """Timers set and neither fired nor cancelled."""
        return sum(not timer.cancelled for _, _, timer in self._heap)

    @property
    def next_due(self) -> float | None:
        """When the next timer fires (``None``: none is set)."""
        self._drop_cancelled()
        return self._heap[0][0] if self._heap else None

    def advance(self, seconds: float) -> int:
        """Move the clock ``seconds`` on, running every timer due by then in time order
        (the clock reads each timer's time while it runs); returns how many ran."""
        if seconds < 0:
            raise ValueError(f"time only moves forward, not by {seconds}")
        end = self._now + seconds
        ran = 0
        while True:
            self._drop_cancelled()
            if not self._heap or self._heap[0][0] > end:
                break
            due, _, timer = heapq.heappop(self._heap)
            self._now = max(self._now, due)
            timer.cancelled = True  # fired: cancelling it now changes nothing
            timer.callback()
            ran += 1
        self._now = end
        return ran

    def run_due(self) -> int:
        """Run the timers due now (those set for 0 seconds included), the clock unmoved."""
        return self.advance(0.0)

    def run_until(self, done: Callable[[], bool], *, limit_s: float = 3600.0) -> float:
        """Jump from timer to timer until ``done()``; returns the virtual seconds that
        passed.  Raises ``TimeoutError`` if ``limit_s`` pass first (or nothing is set)."""
        start = self._now
        while not done():
            due = self.next_due
            if due is None or due - start > limit_s:
                raise TimeoutError(f"not done after {self._now - start:.3f} virtual seconds")
            self.advance(due - self._now)
        return self._now - start

    def _drop_cancelled(self) -> None:
        while self._heap and self._heap[0][2].cancelled:
            heapq.heappop(self._heap)


class Timers:
    """One table's own timers, through its scheduler: each has a key, and is forgotten
    when it fires or is cancelled (``pending`` counts those still to fire)."""

    def __init__(self, scheduler: Scheduler) -> None:
        self.scheduler = scheduler
        self._timers: dict[int, Timer] = {}
        self._keys = 0

    def later(self, seconds: float, callback: Callable[[], None]) -> int | None:
        """Call ``callback`` in ``seconds``; returns the timer's key (``None``: no timer)."""
        self._keys += 1
        key = self._keys

        def fire() -> None:
            del self._timers[key]
            callback()

        timer = self.scheduler.call_later(seconds, fire)
        if timer is None:
            return None
        self._timers[key] = timer
        return key

    def cancel(self, key: int | None) -> None:
        timer = None if key is None else self._timers.pop(key, None)
        if timer is not None:
            timer.cancel()

    @property
    def pending(self) -> int:
        return len(self._timers)

    def cancel_all(self) -> None:
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
