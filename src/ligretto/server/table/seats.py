"""Who is at a table: its seats and their tokens, its connections, the host, who is away.

:class:`Seating` is the part of a :class:`~ligretto.server.table.table.Table` that keeps the
seats and the connections (the table's listeners): taking a free seat (the first person
becomes host), coming back with the seat's token (the connection it had is let go),
watching, giving a seat up (for good: in a match the seat's token is spent), a connection
lost, the host's role passed to the next connected person, and since when no seated
person is connected.  It runs each away person's grace period on the table's timers and
tells the table (``grace_over``, the one thing it is given) when one ends; what follows
from that, and from every other change here (a stand-in bot, the phases, the messages
about the table), is the table's: each method says what changed and the table acts on it.
"""

from __future__ import annotations

import enum
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from ligretto import protocol
from ligretto.bots.spec import BotSpec
from ligretto.engine.cards import MAX_PLAYERS, MIN_PLAYERS
from ligretto.engine.races import Fairness
from ligretto.protocol import Phase
from ligretto.server.table import messages
from ligretto.server.table.clock import Timers
from ligretto.server.table.timing import MAX_GRACE_S, MAX_READY_S, MIN_READY_S


class Abandoned(enum.StrEnum):
    """Why a table was closed for good (``Table.abandoned``; its record keeps it)."""

    MATCH = "match_abandoned"
    """A match was on and no seated person was connected for ``deserted_s``."""
    NOBODY_SEATED = "nobody_seated"
    """No person held a seat (nobody ever joined, or everyone left) for ``deserted_s``."""
    AWAY = "away"
    """In the lobby or with the match over, every seated person was away for ``abandoned_s``."""


FULL = "every seat is taken: you can watch"
"""Why a person cannot take a seat at a full table (``full``)."""


class TableError(Exception):
    """A request the table refuses: ``code`` for machines, ``message`` for people."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class CoolingDown(TableError):
    """A seat's token came back too soon after the rate limit closed that seat's last
    connection: it may come back in ``wait_s`` seconds (the server holds the ``hello``
    that long, then tries again)."""

    def __init__(self, wait_s: float) -> None:
        super().__init__("rate_limited", f"too many messages: come back in {wait_s:.1f} s")
        self.wait_s = wait_s


class Listener(Protocol):
    """A connection (or test double) that receives a table's messages."""

    seat: int | None

    def send(self, message: protocol.Outgoing) -> None: ...

    def detach(self) -> None:
        """The table lets go of this listener (its seat was taken over): close it."""


@dataclass(slots=True)
class Seat:
    """Who sits at a seat: a person (``bot is None``) or a bot."""

    name: str
    token: str
    bot: BotSpec | None = None
    connected: bool = False
    away_since: float | None = None
    stand_in: bool = False
    """A bot plays for this person, who has been away longer than the grace period (or left)."""
    ready: bool = False
    left: bool = False
    """The person gave the seat up during a match (``leave``): its token lets nobody back,
    and the stand-in keeps the seat."""
    cooling_until: float | None = None
    """A connection of this seat was closed for sending too fast (``rate_limited``): its
    token brings nobody back before this moment (the table's clock; :class:`CoolingDown`),
    so coming straight back does not refill the rate limit (docs/protocol.md, Limits)."""
    shares_aim: bool = False
    """The person's connection chose to show their aim to the others (``share_aim``; live
    presence); a new connection (``rejoin``) starts without."""
    profile: str | None = None
    """The public id of the profile the person sat down with (``hello.profile``; ``None``:
    none).  Never shown to the other players: they see the display name only."""

    @property
    def human(self) -> bool:
        return self.bot is None


def check_seats(seats: int) -> int:
    """A table's number of seats, 2-12, else :class:`TableError` ``bad_seats``."""
    if not MIN_PLAYERS <= seats <= MAX_PLAYERS:
        raise TableError("bad_seats", f"a table has {MIN_PLAYERS}-{MAX_PLAYERS} seats, not {seats}")
    return seats


def check_grace(grace_s: float) -> float:
    """A grace period, 0-``MAX_GRACE_S`` seconds, else :class:`TableError` ``bad_grace``."""
    if not 0 <= grace_s <= MAX_GRACE_S:
        raise TableError("bad_grace", f"the grace period is 0-{MAX_GRACE_S:g} seconds")
    return grace_s


def check_ready(ready_s: float) -> float:
    """The score sheet's wait for *Ready*, ``MIN_READY_S``-``MAX_READY_S`` seconds, else
    :class:`TableError` ``bad_ready``."""
    if not MIN_READY_S <= ready_s <= MAX_READY_S:
        raise TableError("bad_ready", f"the wait for Ready is {MIN_READY_S:g}-{MAX_READY_S:g} seconds")
    return ready_s


def check_fairness(arbitration: str | None, window_ms: int | None, base: Fairness | None = None) -> Fairness:
    """``base`` with the judging asked for, else :class:`TableError` ``bad_fairness``."""
    try:
        return Fairness.of(arbitration, window_ms, base)
    except ValueError as error:
        raise TableError("bad_fairness", str(error)) from None


def new_token() -> str:
    """A seat's secret token (it lets its owner come back to the seat)."""
    return secrets.token_urlsafe(24)


class Seating:
    """The seats, tokens, connections and host of a table (see the module's docstring).
    ``grace_over(index)`` is called when the grace period of the person away from seat
    ``index`` ends with the person still away."""

    def __init__(
        self, code: str, size: int, clock: Callable[[], float], timers: Timers, grace_over: Callable[[int], None]
    ) -> None:
        self.code = code
        self.size = size
        self.seats: list[Seat | None] = [None] * size
        self.host: int | None = None
        self.listeners: list[Listener] = []
        self.clock = clock
        self.timers = timers
        self._grace_over = grace_over
        self._grace: dict[int, int] = {}
        """Seat -> its grace period's timer (cancelled when the person is back)."""
        self.idle_since: float | None = clock()
        """Since when no seated person has been connected (spectators do not count: they
        cannot keep a table alive for ever); ``None``: one is."""

    # --- reading ----------------------------------------------------------------------

    def seat_of(self, token: str) -> int | None:
        """The seat ``token`` brings its owner back to (``None``: no seat, or one given up)."""
        for index, seat in enumerate(self.seats):
            if seat is not None and not seat.left and secrets.compare_digest(seat.token, token):
                return index
        return None

    def free_seat(self) -> int | None:
        return next((i for i, seat in enumerate(self.seats) if seat is None), None)

    def check_host(self, index: int | None) -> None:
        """:class:`TableError` ``not_host`` unless seat ``index`` is the host's."""
        if index is None or index != self.host:
            raise TableError("not_host", "only the host may do that")

    def away(self) -> list[int]:
        """The seats of people away with no stand-in."""
        return [
            index
            for index, seat in enumerate(self.seats)
            if seat is not None and seat.human and not seat.connected and not seat.stand_in
        ]

    def abandoned(self, phase: Phase, abandoned_s: float, deserted_s: float) -> Abandoned | None:
        """Why the table may be closed and dropped now (``None``: it may not): no seated
        person has been connected for ``deserted_s`` seconds while a match is on or while no
        person holds a seat at all, or for ``abandoned_s`` in the lobby or with the match
        over (people who keep a seat may come back to their waiting room)."""
        since = self.idle_since
        if since is None:
            return None
        idle = self.clock() - since
        if phase not in (Phase.LOBBY, Phase.OVER):
            return Abandoned.MATCH if idle >= deserted_s else None
        if not any(seat is not None and seat.human for seat in self.seats):
            return Abandoned.NOBODY_SEATED if idle >= deserted_s else None
        return Abandoned.AWAY if idle >= abandoned_s else None

    def _note_presence(self) -> None:
        """Keep ``idle_since``: a connection took, left or gave up a seat."""
        if any(listener.seat is not None for listener in self.listeners):
            self.idle_since = None
        elif self.idle_since is None:
            self.idle_since = self.clock()

    # --- listeners --------------------------------------------------------------------

    def broadcast(self, message: protocol.ServerMessage, *, but: int | None = None) -> None:
        """The same message to every player and spectator (encoded once for all); ``but``:
        not to the connections of that seat."""
        shared = protocol.Broadcast(message)
        for listener in list(self.listeners):
            if but is None or listener.seat != but:
                listener.send(shared)

    def send_to(self, index: int, message: protocol.Outgoing) -> None:
        """A message to every connection of seat ``index``."""
        for listener in self.listeners:
            if listener.seat == index:
                listener.send(message)

    def attach(self, listener: Listener, index: int, token: str) -> None:
        """Seat a person's connection at ``index`` and welcome it (with the seat's token)."""
        listener.seat = index
        self.listeners.append(listener)
        self._note_presence()
        listener.send(messages.welcome(self.code, index, token))

    def watch(self, listener: Listener) -> None:
        """A spectator's connection, welcomed (no seat, no token)."""
        listener.seat = None
        self.listeners.append(listener)
        listener.send(messages.welcome(self.code, None, None))

    # --- seats taken and given back ---------------------------------------------------

    def take(self, name: str, profile: str | None) -> tuple[int, str]:
        """A free seat for the person ``name`` (connected; the first becomes host): its
        number and token.  ``profile``: the id of the person's profile, kept with the seat."""
        free = self.free_seat()
        if free is None:
            raise TableError("full", FULL)
        if profile is not None and any(seat is not None and seat.profile == profile for seat in self.seats):
            raise TableError("profile_seated", "this profile has a seat at this table already")
        token = new_token()
        self.seats[free] = Seat(name, token, connected=True, profile=profile)
        if self.host is None:
            self.host = free
        return free, token

    def reserve(self, name: str, profile: str | None) -> tuple[int, str]:
        """A free seat taken for the person ``name`` before they come (the matchmaking
        queue seats them): away from now, until they come with its token (:meth:`reclaim`)."""
        index, token = self.take(name, profile)
        seat = self.seats[index]
        assert seat is not None
        seat.connected = False
        seat.away_since = self.clock()
        return index, token

    def seat_bot(self, spec: BotSpec) -> int:
        """A bot in the first free seat; returns its seat."""
        free = self.free_seat()
        if free is None:
            raise TableError("full", "every seat is taken")
        self.seats[free] = Seat(f"{spec.strategy.capitalize()} bot {free + 1}", new_token(), bot=spec)
        return free

    def reclaim(self, token: str) -> tuple[int, bool]:
        """The person of ``token`` is back (page reload, dropped connection): the seat's other
        connection is let go and the person is connected again.  Returns the seat and whether
        its stand-in stops (the table stops that bot)."""
        index = self.seat_of(token)
        if index is None:
            raise TableError("bad_token", "this seat token is not valid at this table")
        seat = self.seats[index]
        assert seat is not None
        if seat.cooling_until is not None:
            wait = seat.cooling_until - self.clock()
            if wait > 0:
                raise CoolingDown(wait)
            seat.cooling_until = None
        for other in [li for li in self.listeners if li.seat == index]:
            other.send(messages.taken_over())
            self.listeners.remove(other)
            other.seat = None
            other.detach()
        seat.connected = True
        seat.away_since = None
        self.timers.cancel(self._grace.pop(index, None))
        if self.host is None and seat.human:
            self.host = index
        stood_in = seat.stand_in
        seat.stand_in = False
        return index, stood_in

    def lost(self, listener: Listener) -> tuple[int, float] | None:
        """A connection closed.  If it was the last one of a seated person, that person is
        away from now (the host's role passes on): ``(seat, since)``; else ``None``."""
        if listener in self.listeners:
            self.listeners.remove(listener)
        self._note_presence()
        index = listener.seat
        if index is None or any(li.seat == index for li in self.listeners):
            return None
        seat = self.seats[index]
        if seat is None or not seat.human:
            return None
        seat.connected = False
        seat.away_since = since = self.clock()
        if self.host == index:
            self._pass_host()
        return index, since

    def give_up(self, index: int, keep: bool) -> bool:
        """The person at ``index`` gives the seat up for good: it is freed, or with ``keep``
        (a match is on) it is left to a stand-in for good (its token lets nobody back).
        ``False``: nobody sat there."""
        seat = self.seats[index]
        if seat is None:
            return False
        for listener in [li for li in self.listeners if li.seat == index]:
            listener.seat = None
        self._note_presence()
        if keep:
            seat.connected, seat.stand_in, seat.ready, seat.left = False, True, True, True
            self.timers.cancel(self._grace.pop(index, None))
        else:
            self.seats[index] = None
        if self.host == index:
            self._pass_host()
        return True

    def remove(self, index: int, why: protocol.Error | None = None) -> None:
        """Whoever sits at ``index`` is removed (by the host; ``why``: else), their
        connections told so and watching from now on; the host passes on if it was theirs."""
        for listener in [li for li in self.listeners if li.seat == index]:
            listener.send(why or messages.removed())
            listener.seat = None
        self.timers.cancel(self._grace.pop(index, None))
        self.seats[index] = None
        if self.host == index:
            self._pass_host()

    def resize(self, size: int) -> None:
        """``size`` seats (the ones cut off are free)."""
        self.seats = (self.seats + [None] * size)[:size]
        self.size = size

    def cool_down(self, index: int, seconds: float) -> None:
        """The rate limit closed a connection of seat ``index``: its token is refused
        (:class:`CoolingDown`) for ``seconds``."""
        seat = self.seats[index]
        if seat is not None and seconds > 0:
            seat.cooling_until = self.clock() + seconds

    def _pass_host(self) -> None:
        humans = [i for i, s in enumerate(self.seats) if s is not None and s.human and s.connected]
        self.host = humans[0] if humans else None

    def close_gaps(self, players: list[int]) -> None:
        """Renumber the taken seats 0..n-1 (the engine seats players so).  A connection
        whose seat number changes is welcomed again at its new seat, with the same token
        (a seat's token travels with it), before the round's table and snapshot."""
        self.seats = [self.seats[i] for i in players]
        self.size = len(players)
        if self.host is not None:
            self.host = players.index(self.host)
        for listener in self.listeners:
            if listener.seat is None:
                continue
            index = players.index(listener.seat)
            seat = self.seats[index]
            if index != listener.seat and seat is not None:
                listener.seat = index
                listener.send(messages.welcome(self.code, index, seat.token))

    # --- grace periods ----------------------------------------------------------------

    def start_grace(self, index: int, seconds: float, since: float) -> None:
        """In ``seconds`` the table is told (``grace_over``) that the person away from
        ``index`` since ``since`` is still away."""
        self.timers.cancel(self._grace.pop(index, None))
        key = self.timers.later(seconds, lambda: self._grace_ends(index, since))
        if key is not None:
            self._grace[index] = key

    def _grace_ends(self, index: int, since: float) -> None:
        self._grace.pop(index, None)  # this seat's timer, which just fired
        seat = self.seats[index]
        if seat is not None and not seat.connected and seat.away_since == since:
            self._grace_over(index)

    def stand_in(self, index: int) -> None:
        """A stand-in plays seat ``index`` from now (its person stayed away)."""
        seat = self.seats[index]
        assert seat is not None
        seat.stand_in = True
        seat.ready = True
