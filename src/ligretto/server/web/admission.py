"""Admission control (docs/protocol.md, Limits): who may open a WebSocket, how fast it
may send, and who may create a table.  :class:`ConnectionCount` counts the open WebSockets
per client address and in all; :class:`RateLimit` is one WebSocket's token bucket (``/ws``
and ``/ws/lobby`` alike); :class:`Cooling` keeps a lobby flooder's address out a moment;
:class:`TableQuota` counts the tables each address created in the last minute (``now`` is
passed in, so tests need no clock); a :class:`Refusal` is the clear answer when a limit is
reached.  Every limit is a ``Settings`` field; 0 turns the caps and the quota off."""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from starlette.responses import Response

from ligretto import protocol


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a connection or a request is not admitted: an HTTP status, an error code and
    its text (an ``HttpError`` body), and when to try again."""

    status: int
    code: str
    message: str
    retry_after_s: float

    def response(self) -> Response:
        """The HTTP answer: the error body, with ``Retry-After`` in whole seconds."""
        body = protocol.encode(protocol.HttpError(self.code, self.message))
        headers = {"Retry-After": str(max(1, math.ceil(self.retry_after_s)))}
        return Response(body, status_code=self.status, media_type="application/json", headers=headers)


class ConnectionCount:
    """The open WebSockets (``/ws`` and ``/ws/lobby``) per client address and in all:
    at most ``per_address`` from one address and ``total`` in all (0: no cap)."""

    RETRY_S = 10.0
    """What a refused client is told to wait (``Retry-After``)."""

    def __init__(self, per_address: int, total: int) -> None:
        self.per_address = per_address
        self.total = total
        self.count = 0
        self.by_address: dict[str, int] = {}

    def admit(self, address: str) -> Refusal | None:
        """Count one more connection from ``address``; or, when full, say why not (and
        count nothing)."""
        if self.total and self.count >= self.total:
            return Refusal(503, "server_full", f"the server is full ({self.total} connections)", self.RETRY_S)
        held = self.by_address.get(address, 0)
        if self.per_address and held >= self.per_address:
            text = f"too many connections from your address (at most {self.per_address})"
            return Refusal(429, "too_many_connections", text, self.RETRY_S)
        self.by_address[address] = held + 1
        self.count += 1
        return None

    def release(self, address: str) -> None:
        """One connection ``admit`` counted has closed."""
        held = self.by_address.get(address, 0)
        if held <= 1:
            self.by_address.pop(address, None)
        else:
            self.by_address[address] = held - 1
        self.count = max(0, self.count - 1)


class Cooling:
    """The addresses whose last ``/ws/lobby`` socket was closed for flooding: none of them
    opens another for ``seconds`` (refused before the upgrade, 429 ``cooling_down``), so a
    flooder that comes straight back costs a refusal, not a socket (0: off)."""

    KEPT = 10_000
    """Addresses remembered at most (the cooled-down ones forgotten first)."""

    def __init__(self, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds = seconds
        self.clock = clock
        self.until: dict[str, float] = {}

    def flooded(self, address: str) -> None:
        """A socket from ``address`` was closed for flooding: it cools down."""
        if not self.seconds:
            return
        now = self.clock()
        if len(self.until) >= self.KEPT:
            self.until = {a: t for a, t in self.until.items() if t > now}
        self.until[address] = now + self.seconds

    def refusal(self, address: str) -> Refusal | None:
        """The refusal of a new socket from ``address`` while it cools down, else ``None``."""
        until = self.until.get(address)
        if until is None:
            return None
        wait = until - self.clock()
        if wait <= 0:
            del self.until[address]
            return None
        text = f"your last lobby connection sent too much: try again in {math.ceil(wait)} s"
        return Refusal(429, "cooling_down", text, wait)


class RateLimit:
    """One WebSocket's token bucket: ``burst`` messages at once, ``rate_per_s`` a second
    after that (``Settings.burst``, ``Settings.rate_per_s``)."""

    __slots__ = ("allowance", "burst", "clock", "last", "rate_per_s")

    def __init__(self, rate_per_s: float, burst: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate_per_s = rate_per_s
        self.burst = burst
        self.clock = clock
        self.allowance = float(burst)
        self.last = clock()

    def allow(self) -> bool:
        """Whether one more message may come now; if so, it is counted."""
        now = self.clock()
        self.allowance = min(self.burst, self.allowance + (now - self.last) * self.rate_per_s)
        self.last = now
        if self.allowance < 1:
            return False
        self.allowance -= 1
        return True


class TableQuota:
    """The tables created from each address lately: at most ``per_window`` in any
    ``window_s`` seconds (a sliding window; 0: no quota).  ``POST /api/tables`` and
    ``POST /api/tutorial`` share it."""

    def __init__(self, per_window: int, window_s: float = 60.0, what: str = "tables") -> None:
        """``what`` is counted: ``tables`` (error ``too_many_tables``) or ``profiles``
        (``POST /api/profiles``: ``too_many_profiles``), each its own quota."""
        self.per_window = per_window
        self.window_s = window_s
        self.what = what
        self.created: dict[str, deque[float]] = {}
        self.swept = -math.inf

    def allow(self, address: str, now: float) -> Refusal | None:
        """Count one more table from ``address`` at ``now`` (monotonic seconds); or, over
        the quota, say when the next one may be made (and count nothing)."""
        if not self.per_window:
            return None
        self._forget(now)
        times = self.created.setdefault(address, deque())
        while times and now - times[0] >= self.window_s:
            times.popleft()
        if len(times) >= self.per_window:
            wait = times[0] + self.window_s - now
            text = f"at most {self.per_window} {self.what} a minute from one address: try again in {math.ceil(wait)} s"
            return Refusal(429, f"too_many_{self.what}", text, wait)
        times.append(now)
        return None

    def _forget(self, now: float) -> None:
        """Once a window, drop the addresses that created nothing in the last one, so the
        quota holds only the addresses of the last minute."""
        if now - self.swept < self.window_s:
            return
        self.swept = now
        stale = [address for address, times in self.created.items() if not times or now - times[-1] >= self.window_s]
        for address in stale:
            del self.created[address]
