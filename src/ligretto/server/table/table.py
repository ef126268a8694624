"""A table: the one authority that orders the actions of its players and bots.

Everything that changes a table happens in a method of :class:`Table`, called
from the event loop one at a time; each method runs to completion without awaiting.
Actions take effect one at a time, in the order the table's judge decides (by arrival,
or at a ``fair`` table a contestable play held a moment for earlier-ranked rivals:
``plays``, ``judging``).  The engine decides every action;
the table checks credentials and the phase first, hands what happened to its store in the
order it took effect, and sends every listener what it may see (views and events are public
information only; the seat token goes to its owner alone).  What goes to every
listener is the same for players and spectators (table, events, go, round_over): it is
sent as one :class:`~ligretto.protocol.Broadcast`, encoded once for all of them;
only the welcome (the token), the snapshot (the viewer) and the ack are one listener's.

The table owns its parts, one module each, and wires them together (as boardgame.io's
``Master`` holds its storage and transport): the seats and connections (``seats.Seating``),
the settings and the host's commands (``host``), the match and its phases (``rounds``;
``protocol.Phase``), resuming after a restart (``resume``), the judge of races (``judging``),
the plays (``plays``), the seats' aims shown to the others (``aims``: live presence),
people coming and going (``presence``), the real-time bots
(``bots``), what everyone may see (``views``, ``messages``), the records it hands its store
(``record.Keeper``: the store never reads the table) and, at a tutorial, its tutor
(``tutorial.Tutor``); the timers are the injected scheduler's (``clock``: tests run them in
virtual time).  Each part is given only the parts and callables it needs; what a change of
one means for the others (the table stored and told to everyone) is decided here.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Iterable
from typing import Any, Unpack

from ligretto import protocol
from ligretto.bots.spec import BotSpec
from ligretto.engine.actions import Action
from ligretto.engine.events import Applied, Refused
from ligretto.engine.match import Match
from ligretto.engine.races import Fairness
from ligretto.engine.rules import RuleSet
from ligretto.engine.state import Round
from ligretto.engine.tempo import Flag
from ligretto.protocol import Phase
from ligretto.server.table import messages
from ligretto.server.table.aims import Aims
from ligretto.server.table.bots import TableBots
from ligretto.server.table.clock import LoopScheduler, Scheduler, Timers
from ligretto.server.table.host import Change, HostCommands, Settings
from ligretto.server.table.judging import Judge, Pending
from ligretto.server.table.latency import NO_DELAY
from ligretto.server.table.parts import Through
from ligretto.server.table.plays import Plays
from ligretto.server.table.presence import Presence
from ligretto.server.table.record import DealRecord, Keeper, NoStore, Store, TableRecord
from ligretto.server.table.replayaccess import Replays
from ligretto.server.table.resume import Resume
from ligretto.server.table.rounds import RoundHooks, Rounds, next_round, random_match_seed
from ligretto.server.table.seats import Abandoned, Listener, Seat, Seating, TableError, check_seats
from ligretto.server.table.timing import CATCH_UP_S, COUNTDOWN_S, DEFAULT_GRACE_S, READY_S
from ligretto.server.table.tutorial import LESSON, RULES, TUTOR_DELAY_S, Tutor
from ligretto.server.table.views import Views

__all__ = ["STAND_IN", "Abandoned", "Listener", "NoStore", "Seat", "Store", "Table", "TableError", "new_code"]

Peeks = Callable[[str | None, str | None], bool]
"""Whether a spectator with this profile id and seat token (each ``None``: none given)
may not watch a tournament's stage table now (``Table.in_tournament``)."""

STAND_IN = BotSpec("smart", "skilled")
"""The bot that plays for a person who stays away longer than the grace period."""


def new_code() -> str:
    """An unguessable invite code (about 60 bits) that never begins with ``-``: typed on a
    command line (``ligretto join --code CODE``) it would read as an option."""
    while True:
        code = secrets.token_urlsafe(8)
        if not code.startswith("-"):
            return code


class Table:
    """One table of 2-12 seats, its match and its listeners (see the module's docstring)."""

    def __init__(
        self,
        code: str,
        *,
        seats: int = 4,
        rules: RuleSet | None = None,
        public: bool = False,
        grace_s: float = DEFAULT_GRACE_S,
        ready_s: float = READY_S,
        store: Store | None = None,
        clock: Callable[[], float] | None = None,
        scheduler: Scheduler | None = None,
        countdown_s: float = COUNTDOWN_S,
        match_seeds: Callable[[int], int] | None = None,
        fairness: Fairness | None = None,
        rated: bool | None = None,
        replays: Replays = Replays.LINK,
        tutor: Tutor | None = None,
    ) -> None:
        """``match_seeds(n)`` gives the seed of the table's ``n``-th match (1-based); by
        default a fresh random one.  Every deal and every bot's choices follow from it.
        ``scheduler`` runs every timer of the table (by default the running event loop's,
        on ``clock``, the wall clock unless given; a test gives a ``VirtualScheduler``).
        ``fairness``: how races are judged (by default ``fair`` with the default window).
        ``rated``: its matches update its profiles' ratings (by default: public tables are).
        ``ready_s``: on the score sheet, how long the others may take once the first person
        is ready (``timing.READY_S``).
        ``tutor``: the tutorial's (``Table.tutorial``)."""
        check_seats(seats)
        if scheduler is not None and clock is not None:
            raise ValueError("give a scheduler or a clock, not both (the scheduler has its clock)")
        self.code = code
        self.scheduler = scheduler = scheduler or LoopScheduler(clock or time.time)
        self.clock: Callable[[], float] = scheduler.now
        self.timers = Timers(scheduler)
        """The table's own timers (countdown, grace periods, the tutor's moves; not the bots')."""
        self.tutor = tutor
        self.closed = False
        # The parts, each given the others it works with (one that calls a part made after
        # it is given the table's method that does: the wiring at the end of the class).
        self.seating = seating = Seating(code, seats, self.clock, self.timers, self._grace_over)
        rated = public if rated is None else rated
        self.settings = settings = Settings(rules or RuleSet(), public, rated, replays, grace_s, ready_s)
        self.judge = judge = Judge(self.timers, self.clock, self._rivals, self._take_effect, fairness or Fairness())
        self.rounds = rounds = Rounds(
            seating,
            settings,
            judge,
            self.timers,
            RoundHooks(self._changed, self._saved, self._dealt, self._start_bot, self._round_ends),
            countdown_s=countdown_s,
            match_seeds=match_seeds or random_match_seed,
            deal=next_round if tutor is None else tutor.deal,
        )
        self.keeper = Keeper(store or NoStore(), seating=seating, settings=settings, rounds=rounds, judge=judge)
        self.views = Views(seating, settings, rounds, judge)
        self.bots = TableBots(code, scheduler, rounds.live_round, self.act)
        self.aims = aims = Aims(seating, rounds, self.timers)
        self.plays = Plays(
            rounds,
            seating,
            judge,
            self.bots,
            log=self.keeper.logged,
            tutor=tutor,
            moved=aims.moved,
            flagged=self._speed_flagged,
        )
        self.commands = HostCommands(seating, settings, judge, phase=lambda: rounds.phase, changed=self._changed)
        self.resumption = Resume(seating, rounds, settings, changed=self._changed)
        self.presence = Presence(
            seating,
            rounds,
            settings,
            bots=self.bots,
            changed=self._changed,
            start_bot=self._start_bot,
            table_message=self.views.table_message,
            tutor=tutor,
        )
        if tutor is not None:
            tutor.seat(self.seating)
        self.peeks: Peeks | None = None
        """At a tournament's stage table (:meth:`in_tournament`): who may not watch it."""

    @classmethod
    def tutorial(
        cls,
        code: str,
        name: str,
        *,
        countdown_s: float = COUNTDOWN_S,
        clock: Callable[[], float] | None = None,
        scheduler: Scheduler | None = None,
        tutor_delay_s: float = TUTOR_DELAY_S,
    ) -> Table:
        """A private tutorial table of the learner ``name`` (seat 0, the host) and the tutor
        (seat 1): it deals the tutorial's round and follows its script (``tutorial``),
        starting when the learner comes (with the token ``table.tutor.token``)."""
        tutor = Tutor(name, tutor_delay_s)
        table = cls(code, seats=2, rules=RULES, countdown_s=countdown_s, clock=clock, scheduler=scheduler, tutor=tutor)
        table.judge.fairness = LESSON
        return table

    # --- what the parts hold, read (and written) through the table ---------------------

    seats: Through[list[Seat | None]] = Through("seating")
    host: Through[int | None] = Through("seating")
    size: Through[int] = Through("seating")
    listeners: Through[list[Listener]] = Through("seating")
    rules: Through[RuleSet] = Through("settings")
    public: Through[bool] = Through("settings")
    rated: Through[bool] = Through("settings")
    replays: Through[Replays] = Through("settings")
    grace_s: Through[float] = Through("settings")
    ready_s: Through[float] = Through("settings")
    phase: Through[Phase] = Through("rounds")
    match: Through[Match | None] = Through("rounds")
    start_at: Through[float | None] = Through("rounds")
    ready_by: Through[float | None] = Through("rounds")
    replay_token: Through[str | None] = Through("rounds")
    matches_played: Through[int] = Through("rounds")
    match_seed: Through[int] = Through("rounds")
    match_seeds: Through[Callable[[int], int]] = Through("rounds")
    countdown_s: Through[float] = Through("rounds")
    start_on_join: Through[bool] = Through("presence")
    store: Through[Store] = Through("keeper")
    dropped: Through[bool] = Through("keeper")
    dropped_because: Through[Abandoned | None] = Through("keeper")

    def free_seat(self) -> int | None:
        return self.seating.free_seat()

    @property
    def fairness(self) -> Fairness:
        """How this table judges races (``arbitration`` and window)."""
        return self.judge.fairness

    @property
    def game(self) -> Round | None:
        """The round dealt now (``None``: none)."""
        return self.rounds.game

    @property
    def round_number(self) -> int:
        return self.rounds.round_number

    @property
    def round_key(self) -> str:
        """The name of the round being played for its bots' seeds
        (:func:`~ligretto.bots.driver.bot_seeds`): table, match seed, round."""
        return f"{self.code}:{self.match_seed}:{self.round_number}"

    @property
    def pending_timers(self) -> int:
        """The table's own timers still to fire (countdown, grace periods; not the bots')."""
        return self.timers.pending

    # --- what everyone may see (``views.Views``) ---------------------------------------

    def summary(self) -> protocol.TableSummary:
        """What the public lobby list shows of this table."""
        return self.views.summary()

    def details(self) -> protocol.TableDetails:
        """The summary and who sits where (``None``: a free seat), for the invite page before joining."""
        return self.views.details()

    def table_message(self) -> protocol.TableState:
        """Everything about the table that everyone may see."""
        return self.views.table_message()

    def _changed(self) -> None:
        """Seats, connections, rules or phase changed: stored, and told to everyone.  A
        restored round waiting for its people gets its fresh countdown here, in the same
        message, once the last of them is back (or has a stand-in)."""
        self.resumption.caught_up()
        self.keeper.saved()
        self.seating.broadcast(self.views.table_message())

    # --- people coming and going (``presence.Presence``) --------------------------------

    def join(self, listener: Listener, name: str, profile: str | None = None) -> tuple[int, str]:
        """Take a free seat (lobby only): its number and token.  ``profile``: the id of the
        person's profile, kept with the seat (never shown to the others)."""
        return self.presence.join(listener, name, profile)

    def seat_away(self, name: str, profile: str | None = None) -> tuple[int, str]:
        """Take a free seat for a person who is not here yet (the matchmaking queue, a
        tournament's stage: each hands them its token): its number and token.  Once the match starts, their grace period
        runs until they come."""
        return self.seating.reserve(name, profile)

    def rejoin(self, listener: Listener, token: str) -> int:
        """Come back to one's seat with its token (page reload, dropped connection).  Its aim
        is not shown until the new connection says it shares it (``share_aim``)."""
        index = self.presence.rejoin(listener, token)
        self.aims.share(index, False)
        return index

    def watch(self, listener: Listener, profile: str | None = None, token: str | None = None) -> None:
        """Watch the table.  At a tournament's stage table, a spectator whose profile id
        (``profile``) or seat token (``token``) is an entrant's at another table of the
        stage is refused (``own_stage``) while the stage is on: it is dealt their cards."""
        if self.peeks is not None and self.peeks(profile, token):
            raise protocol.own_stage()
        self.presence.watch(listener)

    def in_tournament(self, tournament: protocol.TableTournament, peeks: Peeks) -> None:
        """Make this a tournament's stage table: its ``table`` message names the tournament
        and stage; ``peeks(profile, token)`` says whether a spectator is an entrant who
        may not watch it now (:meth:`watch`)."""
        self.views.tournament = tournament
        self.peeks = peeks

    @property
    def listed(self) -> bool:
        """Whether the lobby's list shows it: public, open, and no tournament's stage
        table (the list shows the tournament once instead)."""
        return self.settings.public and not self.closed and self.views.tournament is None

    @property
    def tournament(self) -> protocol.TableTournament | None:
        """The tournament and stage of a stage table (``None``: any other table)."""
        return self.views.tournament

    def disconnected(self, listener: Listener) -> None:
        """A connection closed: its person is away; after the grace period a bot stands in."""
        self.presence.disconnected(listener)

    def leave(self, index: int) -> None:
        """A person gives up their seat for good (in a match a stand-in keeps it)."""
        self.presence.leave(index)

    def cool_down(self, index: int, seconds: float) -> None:
        """The rate limit closed a connection of seat ``index``: its token is refused
        (``CoolingDown``) for ``seconds``."""
        self.seating.cool_down(index, seconds)

    def abandoned(self, abandoned_s: float, deserted_s: float) -> Abandoned | None:
        """Why the table may be closed and dropped now (``None``: it may not)."""
        return self.presence.abandoned(abandoned_s, deserted_s)

    # --- the host's commands (``host.HostCommands``) ----------------------------------

    def add_bot(self, by: int | None, spec_text: str) -> int:
        return self.commands.add_bot(by, spec_text)

    def seat_bot(self, spec: BotSpec) -> int:
        """A bot in the first free seat (bots asked for when the table is made); its seat."""
        return self.commands.seat_bot(spec)

    def remove_seat(self, by: int | None, index: int) -> None:
        self.commands.remove_seat(by, index)

    def set_rules(self, by: int | None, *, preset: str, options: dict[str, Any], **change: Unpack[Change]) -> None:
        """The host sets the rules, and maybe the seats, grace period, wait for *Ready*,
        public, judging, rated, replays."""
        self.commands.set_rules(by, preset=preset, options=options, **change)

    # --- the match --------------------------------------------------------------------

    def start(self, by: int | None) -> None:
        """Host: start the match, or a rematch once it is over."""
        self.rounds.start(by)

    def begin(self) -> None:
        """Start the match for whoever runs the table (a tournament), with no host."""
        self.rounds.begin()

    def keep_going(self) -> None:
        """A tournament's table, on the score sheet: the next round comes without waiting
        for a person (``Rounds.keep_going``)."""
        self.rounds.keep_going()

    def ready(self, index: int | None) -> None:
        """A person is ready for the next round (``Rounds.ready``)."""
        self.rounds.ready(index)

    def next_round(self, by: int | None) -> None:
        """Host, on the score sheet: the next round now, once half of the people are ready."""
        self.rounds.next_round(by)

    def act(
        self,
        index: int | None,
        action: Action,
        client_id: str | int | None = None,
        *,
        sent: float | None = None,
        delay: float = NO_DELAY,
    ) -> Applied | Refused | None:
        """One action of ``index``: checked, judged (``judging``), decided by the engine, sent
        to all (``Plays``).  ``sent``: the sender's stamp on the table's clock (``None``: when
        it arrived), ``delay``: its connection's measured one-way delay (seconds).  Returns
        the engine's result, or ``None`` while the play is held for rivals (its ack follows
        when it takes effect)."""
        return self.plays.act(index, action, client_id, sent, delay)

    def react(self, index: int, emote: str) -> None:
        """A seated player's emote (the app checks the seat, the emote and the connection's
        limit), to every player and spectator.  Not a game action: it is not written to the
        store and changes nothing at the table."""
        self.seating.broadcast(messages.reaction(index, emote))

    def share_aim(self, index: int | None, on: bool) -> None:
        """Seat ``index`` shows its aim to the others from now on, or no longer (``aims``)."""
        self.aims.share(index, on)

    def aim(self, index: int | None, source: str | None, position: int, pile: int | str | None) -> None:
        """Seat ``index``'s aim (live presence), relayed to the others at a bounded rate if
        it shares it (``aims.Aims``).  Not a game action: not stored, judged or logged."""
        self.aims.aim(index, source, position, pile)

    def resume(self, catch_up_s: float = CATCH_UP_S) -> None:
        """Carry on after a restart (``Resume.resume``)."""
        self.resumption.resume(catch_up_s)

    def _start_bot(self, index: int) -> None:
        """A bot (or a stand-in) plays seat ``index`` in the round being played (none at a
        tutorial: its tutor plays its script only)."""
        if self.closed or self.tutor is not None:
            return
        seat = self.seats[index]
        assert seat is not None
        self.bots.start(index, seat.bot or STAND_IN, self.round_key)

    def _round_ends(self) -> None:
        self.bots.stop_all()
        self.plays.answer_held()
        self.aims.forget()

    def _speed_flagged(self, index: int, flag: Flag) -> None:
        """A seat played faster than a person can (``engine.tempo``): kept in the match's
        record (its rated match is not rated) and its host is told."""
        self.rounds.speed_flags.append({"round": self.rounds.round_number, "seat": index, **flag.to_dict()})
        self.keeper.saved()
        host = self.seating.host
        if host is not None:
            self.seating.send_to(host, messages.speed(self.rounds.round_number, index, flag))

    # --- the wiring: parts reaching parts made after them -----------------------------

    def _grace_over(self, index: int) -> None:
        self.presence.grace_over(index)

    def _rivals(self, action: Action) -> tuple[int, ...]:
        return self.plays.rivals(action)

    def _take_effect(self, pending: Pending) -> Applied | Refused:
        return self.plays.take_effect(pending)

    def _saved(self) -> None:
        self.keeper.saved()

    def _dealt(self) -> None:
        self.aims.forget()
        self.keeper.dealt()

    # --- the records the table hands its store ----------------------------------------

    def record(self) -> TableRecord:
        """The table as the store keeps it (``record``)."""
        return self.keeper.record()

    def deal_record(self) -> DealRecord:
        """The round being dealt or played, as the store files it and its actions."""
        return self.keeper.deal_record()

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
        """The table of ``record`` rebuilt (``Keeper.restore``): settings, seats, phase, score
        sheet, and the current round dealt again from its seed with ``actions`` (its own, in
        order) replayed, with its share token as the store keeps it (``None``: a new one).
        Nothing runs yet: :meth:`resume` carries on."""
        table = cls(record.code, seats=record.size, store=store, countdown_s=countdown_s, scheduler=scheduler)
        table.keeper.restore(record, actions, replay_token)
        return table

    # --- the end ----------------------------------------------------------------------

    def close(self) -> None:
        self.closed = True
        self.plays.answer_held()
        self.bots.stop_all()
        self.timers.cancel_all()

    def drop(self, because: Abandoned | None = None) -> None:
        """Close for good (abandoned, ``because``): not restored after a restart.  Whoever
        is still connected (spectators) is told the table is gone and let go."""
        self.close()
        self.keeper.dropped = True
        self.keeper.dropped_because = because
        listeners, self.seating.listeners = self.seating.listeners, []
        for listener in listeners:
            listener.send(messages.closed())
            listener.seat = None
