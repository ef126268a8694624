"""A table: the one authority that orders the actions of its players and bots.

Everything that changes a table happens in a method of :class:`Table`, called
from the event loop one at a time; each method runs to completion without awaiting.
Actions take effect one at a time, in the order the table's judge decides (by arrival,
or at a ``fair`` table a contestable play held a moment for earlier-ranked rivals:
``plays``, ``judging``).  The engine decides every action;
the table checks credentials and the phase first, records what happened in the
store in the order it took effect, and sends every listener what it may see (views and events are public
information only; the seat token goes to its owner alone).  What goes to every
listener is the same for players and spectators (table, events, go, round_over): it is
sent as one :class:`~ligretto.protocol.Broadcast`, encoded once for all of them;
only the welcome (the token), the snapshot (the viewer) and the ack are one listener's.

Phases: ``lobby`` (seats fill, the host sets rules and bots) -> ``countdown``
(the round starts at one absolute server time) -> ``playing`` -> ``scoring``
(the score sheet; every seated human marks ready) -> ``countdown`` ... ->
``over`` (the match result; the host may start a rematch).

The table is made of parts, one module each: the seats, tokens, connections and host
(``seats.Seating``), the host's commands (``host.HostCommands``), resuming after a restart
(``resume.Resuming``: the restored round waits for its people), the plays (``plays.Plays``:
``act``, judged by ``judging.Judge``, applied and answered), the real-time bots
(``tablebots``), the clock and timers (``clock``: the scheduler is injected, so tests run
countdowns, grace periods and bots in virtual time) and the messages (``tablemessages``);
this module holds the phases and rounds.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Iterable
from typing import Any, Protocol

from ligretto import protocol
from ligretto.bots.spec import BotSpec
from ligretto.engine.cards import MIN_PLAYERS
from ligretto.engine.match import Match
from ligretto.engine.races import Fairness
from ligretto.engine.rules import RuleSet
from ligretto.engine.state import Round
from ligretto.server.table import messages
from ligretto.server.table import record as tablerecord
from ligretto.server.table.bots import TableBots
from ligretto.server.table.clock import LoopScheduler, Scheduler
from ligretto.server.table.judging import Judge
from ligretto.server.table.plays import Plays
from ligretto.server.table.record import DealRecord, TableRecord
from ligretto.server.table.replayaccess import Replays, new_replay_token
from ligretto.server.table.seats import Abandoned, Listener, Phase, Seat, TableError, check_seats
from ligretto.server.table.timing import ABANDONED_S, CATCH_UP_S, COUNTDOWN_S, DEFAULT_GRACE_S, DESERTED_S

__all__ = [
    "ABANDONED_S",
    "CATCH_UP_S",
    "COUNTDOWN_S",
    "DEFAULT_GRACE_S",
    "DESERTED_S",
    "STAND_IN",
    "Abandoned",
    "Listener",
    "NoStore",
    "Phase",
    "Seat",
    "Store",
    "Table",
    "TableError",
    "new_code",
]

STAND_IN = BotSpec("smart", "skilled")
"""The bot that plays for a person who stays away longer than the grace period."""


class Store(Protocol):
    """Where a table writes what happens (see ``ligretto.server.records.store``)."""

    def save_table(self, table: Table) -> None: ...

    def start_round(self, table: Table) -> None: ...

    def record_action(self, table: Table, index: int, action: dict[str, Any], at: float) -> None: ...


class NoStore:
    """A store that keeps nothing (tests, throw-away tables)."""

    def save_table(self, table: Table) -> None:
        pass

    def start_round(self, table: Table) -> None:
        pass

    def record_action(self, table: Table, index: int, action: dict[str, Any], at: float) -> None:
        pass


def _random_match_seed(_number: int) -> int:
    return secrets.randbits(62)


def new_code() -> str:
    """An unguessable invite code (about 60 bits) that never begins with ``-``: typed on a
    command line (``ligretto join --code CODE``) it would read as an option."""
    while True:
        code = secrets.token_urlsafe(8)
        if not code.startswith("-"):
            return code


class Table(Plays):
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
        scheduler: Scheduler | None = None,
        countdown_s: float = COUNTDOWN_S,
        match_seeds: Callable[[int], int] | None = None,
        fairness: Fairness | None = None,
        rated: bool | None = None,
        replays: Replays = Replays.LINK,
    ) -> None:
        """``match_seeds(n)`` gives the seed of the table's ``n``-th match (1-based); by
        default a fresh random one.  Every deal and every bot's choices follow from it.
        ``scheduler`` runs every timer of the table (by default the running event loop's,
        on ``clock``, the wall clock unless given; a test gives a ``VirtualScheduler``).
        ``fairness``: how races are judged (by default ``fair`` with the default window)."""
        check_seats(seats)
        if scheduler is not None and clock is not None:
            raise ValueError("give a scheduler or a clock, not both (the scheduler has its clock)")
        scheduler = scheduler or LoopScheduler(clock or time.time)
        super().__init__(code, seats, scheduler, grace_s)
        self.rules = rules or RuleSet()
        self.public = public
        self.rated = public if rated is None else rated
        """Its matches update its profiles' ratings (by default: public tables are rated)."""
        self.replays = replays
        """Who may watch its rounds' replays (``replayaccess``)."""
        self.replay_token: str | None = None
        """The share token of the round being dealt or played, or of the last one: told
        to the table only in that round's ``round_over``."""
        self.store: Store = store or NoStore()
        self.countdown_s = countdown_s
        self.match_seeds = match_seeds or _random_match_seed
        self.match: Match | None = None
        self.match_seed = 0
        self.matches_played = 0
        self.start_at: float | None = None
        self.bots = TableBots(self, scheduler)
        self.judge = Judge(self.timers, self.clock, self._rivals, self._take_effect, fairness or Fairness())
        self._go_timer: int | None = None
        self.catching_up = False
        self.closed = False
        self.dropped = False
        """Closed for good (abandoned): the store does not restore it."""
        self.dropped_because: Abandoned | None = None
        """Why it was dropped (its record keeps it)."""

    # --- reading ----------------------------------------------------------------------

    @property
    def game(self) -> Round | None:
        return None if self.match is None else self.match.current

    def live_round(self) -> Round | None:
        """The round being played now (``None`` in every other phase)."""
        return self.game if self.phase is Phase.PLAYING else None

    @property
    def round_number(self) -> int:
        return 0 if self.match is None else self.match.round_number

    @property
    def round_key(self) -> str:
        """The name of the round being played for its bots' seeds
        (:func:`~ligretto.bots.driver.bot_seeds`): table, match seed, round."""
        return f"{self.code}:{self.match_seed}:{self.round_number}"

    def summary(self) -> protocol.TableSummary:
        """What the public lobby list shows of this table."""
        return messages.summary(self)

    def details(self) -> protocol.TableDetails:
        """The summary and who sits where (``None``: a free seat), for the invite page before joining."""
        return messages.details(self)

    def table_message(self) -> protocol.TableState:
        """Everything about the table that everyone may see."""
        return messages.table_message(self)

    def snapshot_message(self, viewer: int | None) -> protocol.Snapshot | None:
        return messages.snapshot_message(self.match, viewer)

    def _changed(self) -> None:
        """Seats, connections, rules or phase changed: stored, and told to everyone.  A
        restored round waiting for its people gets its fresh countdown here, in the same
        message, once the last of them is back (or has a stand-in)."""
        self._caught_up()
        self.store.save_table(self)
        self.broadcast(self.table_message())

    # --- the match --------------------------------------------------------------------

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
            self.judge.renumber(players)
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

    # --- rounds -----------------------------------------------------------------------

    def _deal(self) -> Round:
        """The next round of the match (the tutorial's table deals its fixed one instead)."""
        assert self.match is not None
        return self.match.new_round()

    def _begin_countdown(self) -> None:
        self._deal()
        self.replay_token = new_replay_token()
        self.judge.new_round()
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
        self._go_timer = self._later(self.countdown_s, self._go)

    def _go(self) -> None:
        self._go_timer = None
        if self.phase is not Phase.COUNTDOWN:
            return
        self.catching_up = False
        self.phase = Phase.PLAYING
        self.store.save_table(self)
        self.broadcast(messages.go(self.round_number))
        for index, seat in enumerate(self.seats):
            if seat is not None and (seat.bot is not None or seat.stand_in):
                self._start_bot(index)

    def react(self, index: int, emote: str) -> None:
        """A seated player's emote (the app checks the seat, the emote and the connection's
        limit), to every player and spectator.  Not a game action: it is not written to the
        store and changes nothing at the table."""
        self.broadcast(messages.reaction(index, emote))

    def _round_over(self) -> None:
        assert self.match is not None
        self.bots.stop_all()
        self._answer_held()
        scores = self.match.finish_round()
        game = self.game
        assert game is not None
        self.phase = Phase.OVER if self.match.over else Phase.SCORING
        for seat in self.seats:
            if seat is not None:
                seat.ready = not seat.human or seat.stand_in or not seat.connected
        self.broadcast(messages.round_over(self.match, game, scores, self.replay_token))
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

    # --- the store's records ------------------------------------------------------

    def record(self) -> TableRecord:
        """The table as the store keeps it (``tablerecord``)."""
        return tablerecord.record_of(self)

    def deal_record(self) -> DealRecord:
        """The round being dealt or played, as the store files it and its actions."""
        assert self.game is not None and self.replay_token is not None
        return DealRecord(self.code, self.matches_played, self.round_number, self.game.seed, self.replay_token)

    @classmethod
    def restore(
        cls,
        record: TableRecord,
        actions: Iterable[dict[str, Any]],
        *,
        store: Store | None = None,
        countdown_s: float = COUNTDOWN_S,
        scheduler: Scheduler | None = None,
        replay_token: str | None = None,
    ) -> Table:
        """The table of ``record`` rebuilt: seats, rules, phase, score sheet, and the current
        round dealt again from its seed with ``actions`` (its own, in order) replayed, with
        its share token as the store keeps it (``None``: none stored, a new one).
        Nothing runs yet: :meth:`resume` carries on."""
        table = cls(
            record.code,
            seats=record.size,
            rules=RuleSet.from_dict(record.rules),
            public=record.public,
            grace_s=record.grace_s,
            store=store,
            countdown_s=countdown_s,
            scheduler=scheduler,
        )
        tablerecord.restore_state(table, record, actions)
        if table.match is not None and record.round:
            table.replay_token = replay_token or new_replay_token()
        return table

    # --- bots -------------------------------------------------------------------------

    def _start_bot(self, index: int) -> None:
        if self.closed:
            return
        seat = self.seats[index]
        assert seat is not None
        self.bots.start(index, seat.bot or STAND_IN, self.round_key)

    def _stop_bot(self, index: int) -> None:
        self.bots.stop(index)

    # --- timers -----------------------------------------------------------------------

    def _later(self, seconds: float, callback: Callable[[], None]) -> int | None:
        """Call ``callback`` in ``seconds``; returns the timer's key (``None``: no timer)."""
        return self.timers.later(seconds, callback)

    @property
    def pending_timers(self) -> int:
        """The table's own timers still to fire (countdown, grace periods; not the bots')."""
        return self.timers.pending

    def close(self) -> None:
        self.closed = True
        self._answer_held()
        self.bots.stop_all()
        self.timers.cancel_all()

    def drop(self, because: Abandoned | None = None) -> None:
        """Close for good (abandoned, ``because``): not restored after a restart.  Whoever
        is still connected (spectators) is told the table is gone and let go."""
        self.close()
        self.dropped = True
        self.dropped_because = because
        listeners, self.listeners = self.listeners, []
        for listener in listeners:
            listener.send(messages.closed())
            listener.seat = None
