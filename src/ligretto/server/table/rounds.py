"""A table's match and its rounds: the phase, the deal, the countdown, *go*, the round's
end and the next round (docs/protocol.md).

:class:`Rounds` is the part of a :class:`~ligretto.server.table.table.Table` that owns the
phase (``protocol.Phase``) and the match (``engine.match.Match``): the host starts it (a
rematch once it is over; the taken seats are numbered 0..n-1 first), each round is dealt
(by ``deal``: the match's next round, or the tutorial's fixed one) with a share token
(``replayaccess``) and counted down to one absolute server time (``start_at``), goes on
at *go* (its bots start), ends when the engine says so (scored; the match may be over) and
the next one is dealt once every seat is ready, or ``ready_s`` after the first person said
*Ready* (the table's setting: those not ready yet are dealt in as usual), or when the host
starts it once half of the people are ready (:meth:`Rounds.next_round`).  Once the match
is over, *Ready* says "a rematch": it starts as soon as every seat wants one (bots
always do), or ``ready_s`` after the first person said so with the seats that want one,
the others' people watching from then on (:meth:`Rounds.rematch`); the host may start it
at once with every seat (``start``).  After a restart ``resume`` counts a
restored round down again (:meth:`Rounds.count_down`; ``catching_up`` while it waits for
its people).  It is given the seats, the settings, the judge and the timers, and tells the
table what happened through :class:`RoundHooks`.
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ligretto import protocol
from ligretto.engine.cards import MIN_PLAYERS
from ligretto.engine.match import Match
from ligretto.engine.state import Round
from ligretto.protocol import Phase
from ligretto.server.table import messages
from ligretto.server.table.clock import Timers
from ligretto.server.table.host import Settings
from ligretto.server.table.judging import Judge
from ligretto.server.table.replayaccess import new_replay_token
from ligretto.server.table.seats import Seating, TableError


def random_match_seed(_number: int) -> int:
    """A fresh random seed for a table's match."""
    return secrets.randbits(62)


def next_round(match: Match) -> Round:
    """A match's next round, dealt from its seed (every table's but the tutorial's)."""
    return match.new_round()


@dataclass(frozen=True, slots=True)
class RoundHooks:
    """What the rounds tell their table, each as it happens."""

    changed: Callable[[], None]
    """The table changed: stored, and told to everyone."""
    saved: Callable[[], None]
    """The table changed and is stored (what changed is told otherwise)."""
    dealt: Callable[[], None]
    """A round was dealt: stored with its seed and share token."""
    bot: Callable[[int], None]
    """A bot (or a stand-in) plays seat ``index`` in the round that just went on."""
    ending: Callable[[], None]
    """The round is over: its bots stop and the plays still held are answered."""


class Rounds:
    """The match and the phases of one table (see the module's docstring)."""

    def __init__(
        self,
        seating: Seating,
        settings: Settings,
        judge: Judge,
        timers: Timers,
        hooks: RoundHooks,
        *,
        countdown_s: float,
        match_seeds: Callable[[int], int] = random_match_seed,
        deal: Callable[[Match], Round] = next_round,
    ) -> None:
        self.seating = seating
        self.settings = settings
        self.judge = judge
        self.timers = timers
        self.clock = seating.clock
        self.hooks = hooks
        self.countdown_s = countdown_s
        self.match_seeds = match_seeds
        """``match_seeds(n)``: the seed of the table's ``n``-th match (1-based)."""
        self.deal = deal
        self.phase = Phase.LOBBY
        self.match: Match | None = None
        self.match_seed = 0
        self.matches_played = 0
        self.start_at: float | None = None
        self.replay_token: str | None = None
        """The share token of the round being dealt or played, or of the last one: told
        to the table only in that round's ``round_over``."""
        self.catching_up = False
        """A restored round waits for its people: no bot acts yet."""
        self._go_timer: int | None = None
        """The countdown's timer (moved when a restored round's people are all back)."""
        self.ready_by: float | None = None
        """On the score sheet, once the first person is ready: when the next round is dealt
        whoever is ready (``None``: nobody waits yet, or not on the score sheet)."""
        self._ready_timer: int | None = None
        self.speed_flags: list[dict[str, Any]] = []
        """The seats flagged for inhuman speed in the current match (``engine.tempo``): each
        ``Flag.to_dict()`` with its ``round`` and ``seat``; a rated match with any is not
        rated (``records.storewrite.match_over``)."""

    # --- reading ----------------------------------------------------------------------

    @property
    def game(self) -> Round | None:
        """The round dealt now (``None``: none)."""
        return None if self.match is None else self.match.current

    def live_round(self) -> Round | None:
        """The round being played now (``None`` in every other phase)."""
        return self.game if self.phase is Phase.PLAYING else None

    @property
    def round_number(self) -> int:
        return 0 if self.match is None else self.match.round_number

    def snapshot(self, viewer: int | None) -> protocol.Snapshot | None:
        """The round as ``viewer`` may see it (``None``: no round)."""
        return messages.snapshot_message(self.match, viewer)

    # --- the match --------------------------------------------------------------------

    def start(self, by: int | None) -> None:
        """Host: start the match, or a rematch once it is over."""
        seating = self.seating
        seating.check_host(by)
        if self.phase not in (Phase.LOBBY, Phase.OVER):
            raise TableError("started", "the match is already on")
        self._start_match()

    def begin(self) -> None:
        """Start the match on behalf of whoever runs the table (a tournament's stage): no
        host is asked."""
        if self.phase is not Phase.LOBBY:
            raise TableError("started", "the match is already on")
        self._start_match()

    def _start_match(self) -> None:
        seating = self.seating
        players = [i for i, seat in enumerate(seating.seats) if seat is not None]
        if len(players) < MIN_PLAYERS:
            raise TableError("too_few", "a match needs at least 2 players (add a bot?)")
        if len(players) != seating.size:
            seating.close_gaps(players)
            self.judge.renumber(players)
        self.matches_played += 1
        self.speed_flags = []
        self.match_seed = self.match_seeds(self.matches_played)
        self.match = Match(self.settings.rules, seating.size, self.match_seed)
        self._begin_countdown()
        # People who dropped out in the lobby: their grace period runs from when they left.
        now = self.clock()
        grace_s = self.settings.grace_s
        for index in seating.away():
            seat = seating.seats[index]
            assert seat is not None
            since = seat.away_since if seat.away_since is not None else now
            seating.start_grace(index, max(0.0, grace_s - (now - since)), since)

    def _begin_countdown(self) -> None:
        assert self.match is not None
        self._stop_waiting()
        self.deal(self.match)
        self.replay_token = new_replay_token()
        self.judge.new_round()
        for seat in self.seating.seats:
            if seat is not None:
                seat.ready = False
        self.phase = Phase.COUNTDOWN
        self.start_at = self.clock() + self.countdown_s
        self.hooks.dealt()
        self.hooks.changed()
        for listener in self.seating.listeners:
            snapshot = self.snapshot(listener.seat)
            if snapshot:
                listener.send(snapshot)
        self._go_timer = self.timers.later(self.countdown_s, self._go)

    def count_down(self, seconds: float) -> None:
        """The round (dealt, maybe half played) starts ``seconds`` from now; a restored
        round waiting for its people stops waiting when that is one countdown."""
        if seconds <= self.countdown_s:
            self.catching_up = False
        self.timers.cancel(self._go_timer)
        self.start_at = self.clock() + seconds
        self._go_timer = self.timers.later(seconds, self._go)

    def _go(self) -> None:
        self._go_timer = None
        if self.phase is not Phase.COUNTDOWN:
            return
        self.catching_up = False
        self.phase = Phase.PLAYING
        self.hooks.saved()
        self.seating.broadcast(messages.go(self.round_number))
        for index, seat in enumerate(self.seating.seats):
            if seat is not None and (seat.bot is not None or seat.stand_in):
                self.hooks.bot(index)

    def round_over(self) -> None:
        """The round just ended (the action applied last ended it): scored, and told."""
        assert self.match is not None
        self.hooks.ending()
        scores = self.match.finish_round()
        game = self.game
        assert game is not None
        self.phase = Phase.OVER if self.match.over else Phase.SCORING
        over = self.phase is Phase.OVER
        for seat in self.seating.seats:
            if seat is not None:  # a rematch: only who says so; the next round: who can
                seat.ready = not seat.human or (not over and (seat.stand_in or not seat.connected))
        self.seating.broadcast(messages.round_over(self.match, game, scores, self.replay_token))
        self.hooks.changed()

    # --- the score sheet: ready for the next round ------------------------------------

    def ready(self, index: int | None) -> None:
        """A person is ready for the next round: dealt once everyone is, and at the latest
        ``ready_s`` after the first person said so."""
        if index is None:
            raise TableError("not_seated", "spectators are always ready")
        if self.phase not in (Phase.SCORING, Phase.OVER):
            raise TableError("not_scoring", "there is no round to get ready for")
        seat = self.seating.seats[index]
        assert seat is not None
        seat.ready = True
        if self.ready_by is None and not self._everyone_ready():
            self.wait_for_ready()
        self.hooks.changed()
        self.maybe_next_round()

    def next_round(self, by: int | None) -> None:
        """Host, on the score sheet: deal the next round now, once at least half of the
        people are ready (the host among them: the command says the host is)."""
        self.seating.check_host(by)
        if self.phase is not Phase.SCORING:
            raise TableError("not_scoring", "there is no round to start")
        people = [(index, seat) for index, seat in enumerate(self.seating.seats) if seat is not None and seat.human]
        ready = sum(seat.ready or index == by for index, seat in people)
        needed = math.ceil(len(people) / 2)
        if ready < needed:
            raise TableError("too_few_ready", f"wait until {needed} of the {len(people)} players are ready")
        self._begin_countdown()

    def keep_going(self) -> None:
        """On the score sheet of a table run for others (a tournament's, where bots alone
        may sit): the next round is dealt once everyone is ready, and at the latest
        ``ready_s`` from now, as if a person had said *Ready*."""
        if self.phase is not Phase.SCORING:
            return
        if self._everyone_ready():
            self._begin_countdown()
        elif self.ready_by is None:
            self.wait_for_ready()
            self.hooks.changed()

    def wait_for_ready(self) -> None:
        """The others have ``ready_s`` from now (the first person is ready, or the table
        was restored on a score sheet that was waiting): then the next round is dealt."""
        self.timers.cancel(self._ready_timer)
        self.ready_by = self.clock() + self.settings.ready_s
        self._ready_timer = self.timers.later(self.settings.ready_s, self._ready_over)

    def _ready_over(self) -> None:
        self._ready_timer = None
        if self.phase is Phase.SCORING:
            self._begin_countdown()  # whoever is not ready yet is dealt in all the same
        elif self.phase is Phase.OVER:
            self.rematch()

    def rematch(self) -> None:
        """The match is over and the wait for a rematch too (or everyone wants one): it
        starts with the seats that want one; the others are freed, their people watching
        on (``no_rematch``).  Fewer than two wanting one, or no person: nothing starts, and
        anyone may ask again."""
        seating = self.seating
        wanted = [seat for seat in seating.seats if seat is not None and seat.ready]
        self._stop_waiting()
        if len(wanted) < MIN_PLAYERS or not any(seat.human for seat in wanted):
            for seat in seating.seats:
                if seat is not None and seat.human:
                    seat.ready = False
            self.hooks.changed()
            return
        for index, seat in enumerate(seating.seats):
            if seat is not None and not seat.ready:
                seating.remove(index, messages.no_rematch())
        self._start_match()

    def _stop_waiting(self) -> None:
        self.timers.cancel(self._ready_timer)
        self._ready_timer = None
        self.ready_by = None

    def _everyone_ready(self) -> bool:
        return all(seat is None or seat.ready for seat in self.seating.seats)

    def maybe_next_round(self) -> None:
        """Deal the next round (or start the rematch) if every seat is ready for it."""
        if self.phase is Phase.SCORING and self._everyone_ready():
            self._begin_countdown()
        elif self.phase is Phase.OVER and self._everyone_ready():
            self.rematch()
