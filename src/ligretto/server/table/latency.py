"""One connection's network delay, as the server measures it: the one-way delay that fair
judging credits to its plays (docs/fairness.md).

The clock sync of the protocol is a ``ping`` from the client answered by a ``pong`` with
the server's time ``server_t``.  Each later ``ping`` echoes the last ``server_t`` it got
(``echo``) and says how long the client kept it before sending (``held``), so the server
sees a whole round trip on its own clock: ``arrival - echo - held``.  Only an echo of the
pong this server last sent counts, once.  The one-way delay is half the median of the
last :data:`SAMPLES` round trips (a median: one slow trip does not move it, and it follows
a connection whose delay changes within a few seconds of pings).

A client can make its round trips look longer than they are (answer late, or claim a
short ``held``), never shorter than the network makes them: what it can gain by that is
bounded by the cap of the judging (``engine.races.CAP_MS``), and what it gains is what an
honest client that far away gets anyway.
"""

from __future__ import annotations

from statistics import median

SAMPLES = 9
"""How many recent round trips the estimate is the median of."""


class Latency:
    """The round trips of one connection, and its one-way delay estimate (seconds)."""

    __slots__ = ("_pong", "samples")

    def __init__(self) -> None:
        self._pong: float | None = None
        self.samples: list[float] = []
        """The last :data:`SAMPLES` round trips, oldest first: a list (a ``deque`` with a
        ``maxlen`` is a 760-byte block per connection, issue 31)."""

    def ponged(self, server_t: float) -> None:
        """A ``pong`` carrying ``server_t`` was sent to this connection."""
        self._pong = server_t

    def pinged(self, echo: float | None, held: float | None, now: float) -> float | None:
        """A ``ping`` arrived at ``now``; if it echoes the last pong, the round trip it
        measures (which is kept), else ``None``."""
        if echo is None or echo != self._pong:
            return None
        self._pong = None
        trip = now - echo - (held or 0.0)
        if trip < 0:
            return None
        samples = self.samples
        samples.append(trip)
        if len(samples) > SAMPLES:
            del samples[0]
        return trip

    @property
    def one_way(self) -> float:
        """Half the median round trip (0 before the first one is measured)."""
        return median(self.samples) / 2 if self.samples else 0.0


NO_DELAY = 0.0
"""The one-way delay of a player at the table itself: bots, stand-ins, local play."""
