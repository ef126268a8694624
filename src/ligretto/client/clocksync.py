"""A client's clock sync with its table (docs/protocol.md, "Clock sync" and "Races"):
the one model of it for every Python client (the terminal client, whose model keeps it as
``TableModel.clock``, and ``ligretto bench --only fairness``'s players); the browser's is
``static/js/connection.js``.

One :class:`ClockSync` per client, used at the moment a message leaves: every ``pong`` gives a round trip and an
offset (server time minus local time; the offset of the shortest recent round trip is
the one believed), every ``act`` is stamped with ``t``, the local clock plus that offset,
and every ``ping`` after the first echoes the last pong (``echo``: its ``server_t``,
``held``: how long the client kept it), so the server measures the round trip on its own
clock and credits the connection's one-way delay in fair judging.

Plain Python: the local time is always passed in, so tests give it.  The schedule of the
pings (three quick ones for the clock sync, then one a second while connected, in play
too) is here as figures; each transport keeps it with its own timers.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from statistics import median
from typing import Any

from ligretto.protocol.limits import MAX_HELD_S
from ligretto.protocol.server import Pong

Message = dict[str, Any]

CLOCK_PINGS = 3
"""Quick pings after connecting, so the offset is known before the countdown."""
CLOCK_GAP_S = 0.3
"""Seconds between those quick pings."""
PING_S = 1.0
"""Seconds between two pings after them, for as long as the client is connected (the
heartbeat, and the round trips the server's fair judging measures during play)."""
RECENT = 16
"""How many recent round trips the shortest is chosen from (about 16 s of pings)."""


def ping_gap(sent: int, every: float = PING_S) -> float:
    """Seconds until the next ping once ``sent`` pings went out on this connection
    (``every``: the pace after the quick ones)."""
    return CLOCK_GAP_S if sent < CLOCK_PINGS else every


@dataclass(frozen=True, slots=True)
class Trip:
    """One ping's round trip (local seconds) and the clock offset it gives."""

    seconds: float
    offset: float


@dataclass(slots=True)
class ClockSync:
    """The offset to the server's clock, from pongs; the stamps of what the client sends."""

    trips: deque[Trip] = field(default_factory=lambda: deque(maxlen=RECENT))
    last_pong: tuple[float, float] | None = None
    """The last pong received: its ``server_t`` and the local time it arrived."""

    @property
    def synced(self) -> bool:
        return bool(self.trips)

    @property
    def best(self) -> Trip | None:
        """The shortest recent round trip (``None`` before the first pong)."""
        return min(self.trips, key=lambda trip: trip.seconds) if self.trips else None

    @property
    def round_trip(self) -> float:
        """The median recent round trip (0 before the first pong)."""
        return median(trip.seconds for trip in self.trips) if self.trips else 0.0

    @property
    def offset(self) -> float:
        """Server time minus local time, from the shortest recent round trip (0 before any)."""
        best = self.best
        return 0.0 if best is None else best.offset

    def server_time(self, now: float) -> float:
        """The local time ``now`` on the estimate of the server's clock."""
        return now + self.offset

    def ponged(self, message: Pong | Message, now: float) -> None:
        """A ``pong`` (read, or its plain JSON object) arrived at local time ``now``: its
        round trip and offset are kept."""
        if isinstance(message, Pong):
            sent, server_t = message.t, message.server_t
        else:
            sent, server_t = float(message["t"]), float(message["server_t"])
        self.last_pong = (server_t, now)
        trip = now - sent
        if trip >= 0:  # a local clock set back meanwhile measured nothing
            self.trips.append(Trip(trip, server_t - (sent + now) / 2))

    def connected(self) -> None:
        """A new connection: its server echoes only its own pongs (the offset stays good)."""
        self.last_pong = None

    def ping(self, now: float) -> Message:
        """The ``ping`` to send at local time ``now``: after a pong, it echoes it."""
        ping: Message = {"type": "ping", "t": now}
        if self.last_pong is not None:
            server_t, arrived = self.last_pong
            held = now - arrived
            if 0.0 <= held <= MAX_HELD_S:  # else no round trip worth measuring (and invalid)
                ping["echo"], ping["held"] = server_t, held
        return ping

    def stamped(self, message: Message, now: float) -> Message:
        """``message`` as it leaves at local time ``now``: an ``act`` stamped with ``t``
        (once the offset is known: without ``t`` the server counts it as sent when it
        arrived); anything else as it is."""
        if message.get("type") == "act" and self.synced:
            return {**message, "t": self.server_time(now)}
        return message
