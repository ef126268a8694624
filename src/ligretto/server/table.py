"""A table: the one authority that orders the actions of its players and bots.

Everything that changes a table happens in a method of :class:`Table`, called
from the event loop one at a time, so actions are ordered by arrival; each
method runs to completion without awaiting.  The engine decides every action;
the table checks credentials and the phase first, records what happened in the
store, and sends every listener what it may see (views and events are public
information only; the seat token goes to its owner alone).  What goes to every
listener is the same for players and spectators (table, events, go, round_over): it is
sent as one :class:`~ligretto.server.protocol.Broadcast`, encoded once for all of them;
only the welcome (the token), the snapshot (the viewer) and the ack are one listener's.

Phases: ``lobby`` (seats fill, the host sets rules and bots) -> ``countdown``
(the round starts at one absolute server time) -> ``playing`` -> ``scoring``
(the score sheet; every seated human marks ready) -> ``countdown`` ... ->
``over`` (the match result; the host may start a rematch).
"""

from __future__ import annotations

import asyncio
import enum
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from ligretto.bots.spec import BotSpec, BotSpecError
from ligretto.engine.actions import Action, Play
from ligretto.engine.cards import MAX_PLAYERS, MIN_PLAYERS
from ligretto.engine.events import Applied, Reason, Refused
from ligretto.engine.rules import RuleError, RuleSet
from ligretto.engine.scoring import Match
from ligretto.engine.serial import action_to_dict, event_to_dict
from ligretto.engine.state import Round
from ligretto.engine.views import view
from ligretto.server import metrics
from ligretto.server.protocol import Broadcast

log = logging.getLogger("ligretto.table")

COUNTDOWN_S = 3.0
DEFAULT_GRACE_S = 120.0
ABANDONED_S = 3600.0
"""A table nobody has been connected to for this long, with no match on, is closed (``Table.abandoned``)."""
STAND_IN = BotSpec("smart", "skilled")
"""The bot that plays for a person who stays away longer than the grace period."""


class Phase(enum.StrEnum):
    LOBBY = "lobby"
    COUNTDOWN = "countdown"
    PLAYING = "playing"
    SCORING = "scoring"
    OVER = "over"


class TableError(Exception):
    """A request the table refuses: ``code`` for machines, ``message`` for people."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class Listener(Protocol):
    """A connection (or test double) that receives a table's messages."""

    seat: int | None

    def send(self, message: dict[str, Any]) -> None: ...

    def detach(self) -> None:
        """The table lets go of this listener (its seat was taken over): close it."""


class Store(Protocol):
    """Where a table writes what happens (see ``ligretto.server.store``)."""

    def save_table(self, table: Table) -> None: ...

    def start_round(self, table: Table) -> None: ...

    def record_action(self, table: Table, index: int, action: dict[str, Any]) -> None: ...


class NoStore:
    """A store that keeps nothing (tests, throw-away tables)."""

    def save_table(self, table: Table) -> None:
        pass

    def start_round(self, table: Table) -> None:
        pass

    def record_action(self, table: Table, index: int, action: dict[str, Any]) -> None:
        pass


@dataclass(slots=True)
class Seat:
    """Who sits at a seat: a person (``bot is None``) or a bot."""

    name: str
    token: str
    bot: BotSpec | None = None
    connected: bool = False
    away_since: float | None = None
    stand_in: bool = False
    """A bot plays for this person, who has been away longer than the grace period."""
    ready: bool = False

    @property
    def human(self) -> bool:
        return self.bot is None

    def public(self, index: int) -> dict[str, Any]:
        return {
            "seat": index,
            "name": self.name,
            "bot": None if self.bot is None else str(self.bot),
            "connected": self.connected or self.bot is not None,
            "stand_in": self.stand_in,
            "ready": self.ready,
        }


def _random_match_seed(_number: int) -> int:
    return secrets.randbits(62)


def new_code() -> str:
    """An unguessable invite code (about 60 bits)."""
    return secrets.token_urlsafe(8)


class Table:
    """One table of 2-12 seats, its match and its listeners."""

    def __init__(
        self,
        code: str,
        *,
        seats: int = 4,
        rules: RuleSet | None = None,
        public: bool = False,
        grace_s: float = DEFAULT_GRACE_S,
        store: Store | None = None,
        clock: Callable[[], float] | None = None,
        countdown_s: float = COUNTDOWN_S,
        match_seeds: Callable[[int], int] | None = None,
    ) -> None:
        """``match_seeds(n)`` gives the seed of the table's ``n``-th match (1-based); by
        default a fresh random one.  Every deal and every bot's choices follow from it."""
        if not MIN_PLAYERS <= seats <= MAX_PLAYERS:
            raise TableError("bad_seats", f"a table has {MIN_PLAYERS}-{MAX_PLAYERS} seats, not {seats}")
        self.code = code
        self.size = seats
        self.rules = rules or RuleSet()
        self.public = public
        self.grace_s = grace_s
        self.store: Store = store or NoStore()
        self.clock = clock or _loop_clock
        self.countdown_s = countdown_s
        self.match_seeds = match_seeds or _random_match_seed
        self.seats: list[Seat | None] = [None] * seats
        self.host: int | None = None
        self.phase = Phase.LOBBY
        self.match: Match | None = None
        self.match_seed = 0
        self.matches_played = 0
        self.start_at: float | None = None
        self.listeners: list[Listener] = []
        self._bots: dict[int, asyncio.Task[None]] = {}
        self._timers: dict[int, asyncio.TimerHandle] = {}
        """The timers still to fire (a fired one removes itself)."""
        self._timer_ids = 0
        self._grace: dict[int, int] = {}
        """Seat -> its grace period's timer (cancelled when the person is back)."""
        self.deserted_since: float | None = self.clock()
        """Since when no connection (player or spectator) is at the table; ``None``: someone is."""
        self.closed = False
        self.dropped = False
        """Closed for good (abandoned): the store does not restore it."""
        self.start_on_join = False
        """Play now: the first person to take a seat starts the match at once (kept in
        memory only: after a restart that person lands in the waiting room as host)."""

    # --- reading ----------------------------------------------------------------------

    @property
    def game(self) -> Round | None:
        return None if self.match is None else self.match.current

    def seat_of(self, token: str) -> int | None:
        for index, seat in enumerate(self.seats):
            if seat is not None and secrets.compare_digest(seat.token, token):
                return index
        return None

    def abandoned(self, after_s: float) -> bool:
        """Nobody has been connected for ``after_s`` seconds and no match is on (the lobby,
        or a match that is over): the table may be closed and dropped."""
        since = self.deserted_since
        if self.listeners or since is None or self.phase not in (Phase.LOBBY, Phase.OVER):
            return False
        return self.clock() - since >= after_s

    def summary(self) -> dict[str, Any]:
        """What the public lobby list shows of this table."""
        return {
            "code": self.code,
            "phase": self.phase.value,
            "seats": self.size,
            "taken": sum(seat is not None for seat in self.seats),
            "host": _name(self.seats[self.host]) if self.host is not None else None,
            "rules": self.rules.to_dict(),
        }

    def players(self) -> list[dict[str, Any] | None]:
        """Who sits where (``None``: a free seat): names and bots, as the ``table`` message
        shows them, for the invite page before joining."""
        return [
            None if seat is None else {"seat": i, "name": seat.name, "bot": None if seat.bot is None else str(seat.bot)}
            for i, seat in enumerate(self.seats)
        ]

    def table_message(self) -> dict[str, Any]:
        """Everything about the table that everyone may see."""
        sheet = None if self.match is None else self.match.sheet.to_dict()
        return {
            "type": "table",
            "code": self.code,
            "phase": self.phase.value,
            "seats": [None if seat is None else seat.public(i) for i, seat in enumerate(self.seats)],
            "host": self.host,
            "rules": self.rules.to_dict(),
            "public": self.public,
            "grace_s": self.grace_s,
            "round": 0 if self.match is None else self.match.round_number,
            "start_at": self.start_at,
            "sheet": sheet,
            "winners": list(self.match.winners()) if self.phase is Phase.OVER and self.match else None,
        }

    def snapshot_message(self, viewer: int | None) -> dict[str, Any] | None:
        game = self.game
        if game is None:
            return None
        return {"type": "snapshot", "view": view(game, viewer).to_dict(), "round": self.match.round_number}  # type: ignore[union-attr]

    # --- listeners --------------------------------------------------------------------

    def broadcast(self, message: dict[str, Any]) -> None:
        """The same message to every player and spectator (encoded once for all)."""
        shared = Broadcast(message)
        for listener in list(self.listeners):
            listener.send(shared)

    def _changed(self) -> None:
        self.store.save_table(self)
        self.broadcast(self.table_message())

    # --- joining and leaving ----------------------------------------------------------

    def join(self, listener: Listener, name: str) -> tuple[int, str]:
        """Take a free seat (lobby only); the first person becomes host."""
        if self.phase is not Phase.LOBBY:
            raise TableError("started", "the match has started: you can watch, or join the next one")
        free = next((i for i, seat in enumerate(self.seats) if seat is None), None)
        if free is None:
            raise TableError("full", "every seat is taken: you can watch")
        token = secrets.token_urlsafe(24)
        self.seats[free] = Seat(name, token, connected=True)
        if self.host is None:
            self.host = free
        self._attach(listener, free, token)
        if self.start_on_join and self.host == free:
            self.start_on_join = False
            self.start(free)
        return free, token

    def rejoin(self, listener: Listener, token: str) -> int:
        """Come back to one's seat with its token (page reload, dropped connection)."""
        index = self.seat_of(token)
        if index is None:
            raise TableError("bad_token", "this seat token is not valid at this table")
        seat = self.seats[index]
        assert seat is not None
        for other in [li for li in self.listeners if li.seat == index]:
            other.send({"type": "error", "code": "replaced", "message": "this seat was taken over by a new connection"})
            self.listeners.remove(other)
            other.seat = None
            other.detach()
        seat.connected = True
        seat.away_since = None
        self._cancel(self._grace.pop(index, None))
        if self.host is None and seat.human:
            self.host = index
        if seat.stand_in:
            seat.stand_in = False
            self._stop_bot(index)
        self._attach(listener, index, token)
        return index

    def watch(self, listener: Listener) -> None:
        listener.seat = None
        self.listeners.append(listener)
        self.deserted_since = None
        listener.send(self._welcome(None, None))
        listener.send(self.table_message())
        snapshot = self.snapshot_message(None)
        if snapshot:
            listener.send(snapshot)

    def _attach(self, listener: Listener, index: int, token: str) -> None:
        """Seat a person's connection: its welcome, the change told to everyone (the
        newcomer included: that broadcast is its one ``table`` message), its snapshot."""
        listener.seat = index
        self.listeners.append(listener)
        self.deserted_since = None
        listener.send(self._welcome(index, token))
        self._changed()
        snapshot = self.snapshot_message(index)
        if snapshot:
            listener.send(snapshot)

    def _welcome(self, index: int | None, token: str | None) -> dict[str, Any]:
        return {"type": "welcome", "v": 1, "code": self.code, "seat": index, "token": token}

    def disconnected(self, listener: Listener) -> None:
        """A connection closed: its person is away; after the grace period a bot stands in."""
        if listener in self.listeners:
            self.listeners.remove(listener)
        if not self.listeners:
            self.deserted_since = self.clock()
        index = listener.seat
        if index is None or any(li.seat == index for li in self.listeners):
            return
        seat = self.seats[index]
        if seat is None or not seat.human:
            return
        seat.connected = False
        seat.away_since = since = self.clock()
        if self.phase is not Phase.LOBBY:
            self._start_grace(index, self.grace_s, since)
        if self.host == index:
            self._pass_host()
        self._changed()

    def _grace_over(self, index: int, since: float | None) -> None:
        self._grace.pop(index, None)  # this seat's timer, which just fired
        seat = self.seats[index]
        if seat is None or seat.connected or seat.away_since != since or self.phase is Phase.LOBBY:
            return
        seat.stand_in = True
        seat.ready = True
        if self.phase is Phase.PLAYING:
            self._start_bot(index)
        self._changed()
        self._maybe_next_round()

    def leave(self, index: int) -> None:
        """A person gives up their seat: in the lobby it frees; in a match a bot takes over."""
        seat = self.seats[index]
        if seat is None:
            return
        for listener in [li for li in self.listeners if li.seat == index]:
            listener.seat = None
        if self.phase is Phase.LOBBY:
            self.seats[index] = None
        else:
            seat.connected, seat.stand_in, seat.ready = False, True, True
            if self.phase is Phase.PLAYING:
                self._start_bot(index)
        if self.host == index:
            self._pass_host()
        self._changed()
        self._maybe_next_round()

    def _pass_host(self) -> None:
        humans = [i for i, s in enumerate(self.seats) if s is not None and s.human and s.connected]
        self.host = humans[0] if humans else None

    # --- the host's commands ----------------------------------------------------------

    def _check_host(self, index: int | None) -> None:
        if index is None or index != self.host:
            raise TableError("not_host", "only the host may do that")

    def add_bot(self, by: int | None, spec_text: str) -> int:
        self._check_host(by)
        if self.phase is not Phase.LOBBY:
            raise TableError("started", "bots can only be added before the match")
        try:
            spec = BotSpec.parse(spec_text)
        except BotSpecError as error:
            raise TableError("bad_bot", str(error)) from None
        return self.seat_bot(spec)

    def seat_bot(self, spec: BotSpec) -> int:
        """A bot in the first free seat (the host's ``add_bot``, or bots asked for when the
        table is made); returns its seat."""
        free = next((i for i, seat in enumerate(self.seats) if seat is None), None)
        if free is None:
            raise TableError("full", "every seat is taken")
        self.seats[free] = Seat(f"{spec.strategy.capitalize()} bot {free + 1}", secrets.token_urlsafe(24), bot=spec)
        self._changed()
        return free

    def remove_seat(self, by: int | None, index: int) -> None:
        self._check_host(by)
        if self.phase is not Phase.LOBBY:
            raise TableError("started", "seats can only be removed before the match")
        if not 0 <= index < self.size or self.seats[index] is None:
            raise TableError("no_seat", f"there is nobody at seat {index}")
        if index == by:
            raise TableError("bad_seat", "the host cannot remove themselves (leave instead)")
        for listener in [li for li in self.listeners if li.seat == index]:
            listener.send({"type": "error", "code": "removed", "message": "the host removed you from the table"})
            listener.seat = None
        self.seats[index] = None
        self._changed()

    def set_rules(
        self,
        by: int | None,
        *,
        preset: str,
        options: dict[str, Any],
        seats: int | None = None,
        public: bool | None = None,
        grace_s: float | None = None,
    ) -> None:
        self._check_host(by)
        if self.phase is not Phase.LOBBY:
            raise TableError("started", "the rules can only change before the match")
        try:
            rules = RuleSet.preset(preset).replace(**options)
        except RuleError as error:
            raise TableError("bad_rules", str(error)) from None
        if seats is not None:
            if not MIN_PLAYERS <= seats <= MAX_PLAYERS:
                raise TableError("bad_seats", f"a table has {MIN_PLAYERS}-{MAX_PLAYERS} seats, not {seats}")
            if any(seat is not None for seat in self.seats[seats:]):
                raise TableError("bad_seats", "remove the players in the last seats first")
            self.seats = (self.seats + [None] * seats)[:seats]
            self.size = seats
        if grace_s is not None:
            if not 0 <= grace_s <= 3600:
                raise TableError("bad_grace", "the grace period is 0-3600 seconds")
            self.grace_s = grace_s
        if public is not None:
            self.public = public
        self.rules = rules
        self._changed()

    def start(self, by: int | None) -> None:
        """Host: start the match, or a rematch once it is over."""
        self._check_host(by)
        if self.phase not in (Phase.LOBBY, Phase.OVER):
            raise TableError("started", "the match is already on")
        players = [i for i, seat in enumerate(self.seats) if seat is not None]
        if len(players) < MIN_PLAYERS:
            raise TableError("too_few", "a match needs at least 2 players (add a bot?)")
        if len(players) != self.size:
            self._close_gaps(players)
        self.matches_played += 1
        self.match_seed = self.match_seeds(self.matches_played)
        self.match = Match(self.rules, self.size, self.match_seed)
        self._begin_countdown()
        # People who dropped out in the lobby: their grace period runs from when they left.
        now = self.clock()
        for index, seat in enumerate(self.seats):
            if seat is not None and seat.human and not seat.connected and not seat.stand_in:
                since = seat.away_since if seat.away_since is not None else now
                self._start_grace(index, max(0.0, self.grace_s - (now - since)), since)

    def _close_gaps(self, players: list[int]) -> None:
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
                listener.send(self._welcome(index, seat.token))

    # --- rounds -----------------------------------------------------------------------

    def _deal(self) -> Round:
        """The next round of the match (the tutorial's table deals its fixed one instead)."""
        assert self.match is not None
        return self.match.new_round()

    def _begin_countdown(self) -> None:
        self._deal()
        for seat in self.seats:
            if seat is not None:
                seat.ready = False
        self.phase = Phase.COUNTDOWN
        self.start_at = self.clock() + self.countdown_s
        self.store.start_round(self)
        self._changed()
        for listener in self.listeners:
            snapshot = self.snapshot_message(listener.seat)
            if snapshot:
                listener.send(snapshot)
        self._later(self.countdown_s, self._go)

    def _go(self) -> None:
        if self.phase is not Phase.COUNTDOWN:
            return
        self.phase = Phase.PLAYING
        self.store.save_table(self)
        self.broadcast({"type": "go", "round": self.match.round_number if self.match else 0})
        for index, seat in enumerate(self.seats):
            if seat is not None and (seat.bot is not None or seat.stand_in):
                self._start_bot(index)

    def act(self, index: int | None, action: Action, client_id: str | int | None = None) -> Applied | Refused:
        """Apply one action of ``index``: checked here, decided by the engine, sent to all."""
        if index is None:
            raise TableError("not_seated", "spectators cannot play")
        game = self.game
        if self.phase is Phase.COUNTDOWN:
            raise TableError("countdown", "wait for the countdown to end")
        if self.phase is not Phase.PLAYING or game is None:
            raise TableError("not_playing", "no round is being played")
        if action.player != index:
            raise TableError("not_your_seat", "you can only play your own cards")
        start = time.perf_counter()
        count = len(game.log)
        result = game.apply(action)
        self.store.record_action(self, count, action_to_dict(action))
        if isinstance(result, Refused):
            body: dict[str, Any] = {"applied": False, "reason": result.reason.value, "message": result.reason.text}
            faster = self._faster(game, action, result)
            if faster is not None:
                body["by"] = faster
            self._ack(index, client_id, body)
        else:
            self._ack(index, client_id, {"applied": True})
            self.broadcast(
                {
                    "type": "events",
                    "round": self.match.round_number if self.match else 0,
                    "seq": count,
                    "by": index,
                    "events": [event_to_dict(e) for e in result.events],
                }
            )
            if game.over:
                self._round_over()
        metrics.action(time.perf_counter() - start, isinstance(result, Refused))
        return result

    @staticmethod
    def _faster(game: Round, action: Action, result: Refused) -> int | None:
        """Who was faster: for a play refused at an existing pile (it no longer fits, or is
        complete), the seat whose card lies on top of it (public: the top is face up)."""
        if not isinstance(action, Play) or action.pile is None:
            return None
        if result.reason not in (Reason.DOES_NOT_FIT, Reason.PILE_COMPLETE):
            return None
        if not 0 <= action.pile < len(game.pile_seats):
            return None
        return game.pile_seats[action.pile][-1]

    def react(self, index: int, emote: str) -> None:
        """A seated player's emote (the app checks the seat, the emote and the connection's
        limit), to every player and spectator.  Not a game action: it is not written to the
        store and changes nothing at the table."""
        self.broadcast({"type": "reaction", "seat": index, "emote": emote})

    def _ack(self, index: int, client_id: str | int | None, body: dict[str, Any]) -> None:
        if client_id is None:
            return
        message = {"type": "ack", "id": client_id, **body}
        for listener in self.listeners:
            if listener.seat == index:
                listener.send(message)

    def _round_over(self) -> None:
        assert self.match is not None
        for index in list(self._bots):
            self._stop_bot(index)
        scores = self.match.finish_round()
        game = self.game
        assert game is not None and game.ending is not None
        self.phase = Phase.OVER if self.match.over else Phase.SCORING
        for seat in self.seats:
            if seat is not None:
                seat.ready = not seat.human or seat.stand_in or not seat.connected
        self.broadcast(
            {
                "type": "round_over",
                "round": self.match.round_number,
                "ending": game.ending.value,
                "stopped_by": game.stopped_by,
                "scores": [{"center": s.center, "stack": s.stack, "score": s.score} for s in scores],
                "totals": list(self.match.sheet.totals()),
                "match_over": self.match.over,
                "winners": list(self.match.winners()) if self.match.over else None,
            }
        )
        self._changed()

    def ready(self, index: int | None) -> None:
        if index is None:
            raise TableError("not_seated", "spectators are always ready")
        if self.phase is not Phase.SCORING:
            raise TableError("not_scoring", "there is no round to get ready for")
        seat = self.seats[index]
        assert seat is not None
        seat.ready = True
        self._changed()
        self._maybe_next_round()

    def _maybe_next_round(self) -> None:
        if self.phase is Phase.SCORING and all(seat is None or seat.ready for seat in self.seats):
            self._begin_countdown()

    # --- bots -------------------------------------------------------------------------

    def _start_bot(self, index: int) -> None:
        if index in self._bots or self.closed:
            return
        seat = self.seats[index]
        assert seat is not None
        spec = seat.bot or STAND_IN
        self._bots[index] = asyncio.get_running_loop().create_task(self._run_bot(index, spec))

    def _stop_bot(self, index: int) -> None:
        task = self._bots.pop(index, None)
        if task is not None:
            task.cancel()

    async def _run_bot(self, index: int, spec: BotSpec) -> None:
        """A bot at this table, driven by its :class:`BotDriver`: wait what it plans, act."""
        if self.game is None:
            return
        round_key = f"{self.code}:{self.match_seed}:{self.match.round_number if self.match else 0}"
        driver = spec.driver(self.game, index, round_key, real_time=True)
        try:
            while self.phase is Phase.PLAYING and self.game is not None:
                delay, action = driver.plan()
                await asyncio.sleep(delay)
                if action is None:
                    continue
                if self.phase is not Phase.PLAYING:
                    return
                self.act(index, action)
        except asyncio.CancelledError:
            raise
        except Exception:  # a bot must never take the table down
            log.exception("bot at %s seat %s failed", self.code, index)

    # --- restarting -------------------------------------------------------------------

    def resume(self) -> None:
        """Carry on after a restart (the table was rebuilt from the store): nobody is
        connected yet, so every person's grace period starts now; bots and the countdown
        pick up where they were."""
        now = self.clock()
        for index, seat in enumerate(self.seats):
            if seat is not None and seat.human:
                seat.connected = False
                seat.away_since = now
                if self.phase is not Phase.LOBBY and not seat.stand_in:
                    self._start_grace(index, self.grace_s, now)
        game = self.game
        if self.phase in (Phase.COUNTDOWN, Phase.PLAYING) and game is not None and game.over:
            # The action that ended the round was stored, the round's end was not: score it now.
            self._round_over()
            return
        if self.phase is Phase.COUNTDOWN:
            remaining = max(0.0, (self.start_at or now) - now)
            self._later(remaining, self._go)
        elif self.phase is Phase.PLAYING:
            for index, seat in enumerate(self.seats):
                if seat is not None and (seat.bot is not None or seat.stand_in):
                    self._start_bot(index)

    # --- timers -----------------------------------------------------------------------

    def _later(self, seconds: float, callback: Callable[[], None]) -> int | None:
        """Call ``callback`` in ``seconds``; returns the timer's key (``None``: no event loop)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return None
        self._timer_ids += 1
        key = self._timer_ids

        def fire() -> None:
            del self._timers[key]
            callback()

        self._timers[key] = loop.call_later(seconds, fire)
        return key

    def _cancel(self, key: int | None) -> None:
        timer = None if key is None else self._timers.pop(key, None)
        if timer is not None:
            timer.cancel()

    def _start_grace(self, index: int, seconds: float, since: float) -> None:
        """In ``seconds`` a stand-in takes the seat of the person away since ``since``."""
        self._cancel(self._grace.pop(index, None))
        key = self._later(seconds, lambda: self._grace_over(index, since))
        if key is not None:
            self._grace[index] = key

    @property
    def pending_timers(self) -> int:
        return len(self._timers)

    def close(self) -> None:
        self.closed = True
        for index in list(self._bots):
            self._stop_bot(index)
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()

    def drop(self) -> None:
        """Close for good (``abandoned``): not restored after a restart."""
        self.close()
        self.dropped = True


def _loop_clock() -> float:
    return time.time()


def _name(seat: Seat | None) -> str | None:
    return None if seat is None else seat.name
