"""The simulated network between the seats and the table, and how the table judges races.

Each seat ``s`` has a one-way delay ``d_s`` each way plus optional jitter ``j_s``: every
message takes ``d_s + U(0, j_s)`` seconds, drawn from a generator seeded from the round's
key, so the same seed gives the same round.  The table judges plays by ``arrival`` (what
the server did before issue 14) or ``fair``ly (ranked by when each seat would have played
at the table, contested plays held while a rival's earlier play may still come:
:func:`ligretto.engine.races.judge`).  The model is docs/fairness.md.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any

from ligretto.engine.races import CAP_MS, DEFAULT_WINDOW_MS, Arbitration

WINDOW_S = DEFAULT_WINDOW_MS / 1000
"""How long a contested play is held at most for rivals (``fair``): the server's default
window (``engine.races``)."""
CAP_S = CAP_MS / 1000
"""The most one-way delay credited to a seat (``fair``)."""

__all__ = [
    "CAP_S",
    "WINDOW_S",
    "Arbitration",
    "Latency",
    "LatencyError",
    "Link",
    "latency_from_ms",
    "per_seat_ms",
]


class LatencyError(ValueError):
    """A latency that cannot be simulated (a negative delay, a wrong number of seats, ...)."""


def _seconds(name: str, value: float) -> float:
    if not math.isfinite(value) or value < 0:
        raise LatencyError(f"{name} must be a number of seconds, 0 or more, not {value}")
    return float(value)


@dataclass(frozen=True, slots=True)
class Latency:
    """Per-seat one-way delays and jitter (seconds), and how the table judges races."""

    delay_s: tuple[float, ...]
    """One-way delay of each seat, each way (index = seat)."""
    jitter_s: tuple[float, ...] = ()
    """Each seat's jitter: a message takes ``delay + U(0, jitter)``; empty: none."""
    arbitration: Arbitration = Arbitration.ARRIVAL
    window_s: float = WINDOW_S
    cap_s: float = CAP_S

    def __post_init__(self) -> None:
        delays = tuple(_seconds("a delay", d) for d in self.delay_s)
        if not delays:
            raise LatencyError("a latency needs a delay for every seat")
        jitters = tuple(_seconds("a jitter", j) for j in self.jitter_s) or (0.0,) * len(delays)
        if len(jitters) != len(delays):
            raise LatencyError(f"{len(delays)} delays but {len(jitters)} jitters: give one per seat")
        object.__setattr__(self, "delay_s", delays)
        object.__setattr__(self, "jitter_s", jitters)
        try:
            object.__setattr__(self, "arbitration", Arbitration(self.arbitration))
        except ValueError:
            raise LatencyError(f"the arbitration must be arrival or fair, not {self.arbitration!r}") from None
        object.__setattr__(self, "window_s", _seconds("the window", self.window_s))
        object.__setattr__(self, "cap_s", _seconds("the cap", self.cap_s))

    @property
    def seats(self) -> int:
        return len(self.delay_s)

    @property
    def fair(self) -> bool:
        return self.arbitration is Arbitration.FAIR

    def check_players(self, players: int) -> None:
        """Raise :class:`LatencyError` unless there is one delay per seat."""
        if self.seats != players:
            raise LatencyError(f"{self.seats} delays for {players} players: give one per seat, or one for all")

    def link(self, round_key: str) -> Link:
        """The round's network: its messages' delays drawn from a generator seeded by the round."""
        return Link(self, random.Random(f"{round_key}:network"))

    def to_dict(self) -> dict[str, Any]:
        return {
            "delay_ms": [_ms(d) for d in self.delay_s],
            "jitter_ms": [_ms(j) for j in self.jitter_s],
            "arbitration": self.arbitration.value,
            "window_ms": _ms(self.window_s),
            "cap_ms": _ms(self.cap_s),
        }


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 6)


class Link:
    """One round's network: the delay of each message between a seat and the table."""

    __slots__ = ("_delay", "_jitter", "_random", "cap", "estimate", "fair", "window")

    def __init__(self, latency: Latency, rng: random.Random) -> None:
        self._delay = latency.delay_s
        self._jitter = latency.jitter_s
        self._random = rng.random
        self.fair = latency.fair
        self.window = latency.window_s
        self.cap = latency.cap_s
        self.estimate = latency.delay_s
        """The table's estimate of each seat's one-way delay: the mean, without jitter."""

    def delay(self, seat: int) -> float:
        """One message's delay between ``seat`` and the table (a draw only where there is jitter)."""
        jitter = self._jitter[seat]
        if jitter == 0.0:
            return self._delay[seat]
        return self._delay[seat] + jitter * self._random()


def per_seat_ms(option: str, text: str, players: int) -> tuple[float, ...]:
    """Seconds per seat from milliseconds as written on the command line: one value per
    seat, comma-separated, or one for every seat (``10,10,100,100``, ``50``)."""
    values = []
    for part in text.split(","):
        try:
            value = float(part)
        except ValueError:
            raise LatencyError(f"{option}: not a number of milliseconds: {part.strip()!r}") from None
        if not math.isfinite(value) or value < 0:
            raise LatencyError(f"{option}: {part.strip()} is not a number of milliseconds, 0 or more")
        values.append(value / 1000)
    if len(values) == 1:
        values *= players
    if len(values) != players:
        raise LatencyError(f"{option}: {len(values)} values for {players} players: give one per seat, or one for all")
    return tuple(values)


def latency_from_ms(
    players: int,
    delay: str | None,
    *,
    jitter: str | None = None,
    arbitration: str | None = None,
    window: float | None = None,
    cap: float | None = None,
) -> Latency | None:
    """``ligretto simulate``'s ``--latency``, ``--jitter`` (ms per seat), ``--arbitration``,
    ``--window`` and ``--cap`` (ms); ``None`` when none is given (every seat at the table).
    Any of them alone puts every seat 0 ms away unless ``--latency`` says otherwise."""
    if all(option is None for option in (delay, jitter, arbitration, window, cap)):
        return None
    try:
        mode = Arbitration(arbitration or Arbitration.ARRIVAL)
    except ValueError:
        raise LatencyError(f"--arbitration: {arbitration!r} is not one of arrival, fair") from None
    if mode is not Arbitration.FAIR and (window is not None or cap is not None):
        raise LatencyError("--window and --cap are for --arbitration fair")
    for option, value in (("--window", window), ("--cap", cap)):
        if value is not None and (not math.isfinite(value) or value < 0):
            raise LatencyError(f"{option}: {value:g} is not a number of milliseconds, 0 or more")
    return Latency(
        per_seat_ms("--latency", delay or "0", players),
        per_seat_ms("--jitter", jitter, players) if jitter is not None else (),
        mode,
        WINDOW_S if window is None else window / 1000,
        CAP_S if cap is None else cap / 1000,
    )
