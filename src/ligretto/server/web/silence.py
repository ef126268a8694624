"""When a ``/ws`` connection is closed for saying nothing: ``silence_s`` after its last
message (``Settings.silence_s``), or at ``hello_s`` after it opened while it has still to
join a table (``Settings.hello_s``).

Each connection keeps its :class:`Silence` (the time of its last message, its hello
deadline) and one :class:`Watch` per server looks at all of them every
:attr:`Watch.tick_s`, firing the ones past due.  A timer per connection, moved as messages
come, cost a timer, a handle and a context object per connection a second: at 1,000
tables, 16,000 objects that every young collection of the heap had to scan (issue 31).
So a deadline fires up to a tick late: within a quarter of ``silence_s`` (or ``hello_s``)
more, at most 1 s."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable

from ligretto.server.web.settings import Settings

FIRED_AT_ONCE = 50
"""Deadlines fired in one turn of the loop: a storm of idle connections (1,750 opened a
second) has as many due at one look, and closing them all in one turn held every table up
for the length of it (docs/reliability.md, idle)."""


class Silence:
    """One connection's deadlines; its ``deadline`` (an ``asyncio.timeout(None)`` around the
    connection's reading) is fired by the :class:`Watch` once :meth:`due`."""

    __slots__ = ("clock", "deadline", "heard_at", "hello_by", "silence_s")

    def __init__(self, settings: Settings, clock: Callable[[], float]) -> None:
        self.clock = clock
        self.silence_s = settings.silence_s
        now = clock()
        self.heard_at = now
        self.hello_by: float | None = now + settings.hello_s if settings.hello_s else None
        """Until the connection has joined a table, it must do so by then (``None``: it has)."""
        self.deadline: asyncio.Timeout | None = None
        """The timeout that closes the connection (set by the connection's loop)."""

    def heard(self, seated: bool = True) -> None:
        """A message came (``seated``: the connection has a table now)."""
        self.heard_at = self.clock()
        if seated:
            self.hello_by = None

    def due(self, now: float) -> bool:
        """Whether the connection is to be closed at ``now``: silent for ``silence_s``
        (0: never), or past its hello deadline."""
        if self.hello_by is not None and now >= self.hello_by:
            return True
        return self.silence_s > 0 and now - self.heard_at >= self.silence_s

    def no_hello(self) -> bool:
        """Whether the deadline that passed was the hello's."""
        return self.hello_by is not None and self.clock() >= self.hello_by


class Watch:
    """Every open connection's :class:`Silence`, looked at every :attr:`tick_s` by one task
    (started with the first connection, ended with the last)."""

    def __init__(self, settings: Settings) -> None:
        ticks = [seconds / 4 for seconds in (settings.silence_s, settings.hello_s) if seconds > 0]
        self.tick_s = max(0.01, min([1.0, *ticks]))
        self.silences: set[Silence] = set()
        self.task: asyncio.Task[None] | None = None

    def add(self, silence: Silence) -> None:
        """Watch ``silence`` until :meth:`discard` (or until it is fired)."""
        self.silences.add(silence)
        if self.task is None:
            self.task = asyncio.get_running_loop().create_task(self._run())

    def discard(self, silence: Silence) -> None:
        self.silences.discard(silence)

    def look(self, now: float) -> list[Silence]:
        """The connections due at ``now``; they are watched no more (:meth:`fire` each)."""
        due = [silence for silence in self.silences if silence.due(now)]
        self.silences.difference_update(due)
        return due

    @staticmethod
    def fire(silence: Silence) -> None:
        """Close the connection now: its loop times out."""
        if silence.deadline is not None:
            silence.deadline.reschedule(-math.inf)

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            while self.silences:
                await asyncio.sleep(self.tick_s)
                due = self.look(loop.time())
                for start in range(0, len(due), FIRED_AT_ONCE):
                    if start:
                        await asyncio.sleep(0)  # the loop closes these before the next ones
                    for silence in due[start : start + FIRED_AT_ONCE]:
                        self.fire(silence)
        finally:
            self.task = None
