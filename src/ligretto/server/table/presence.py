"""People coming and going at a table: :class:`Presence`, the part of a
:class:`~ligretto.server.table.table.Table` that turns a person's arrival, return, departure
and absence into the table's changes.

A seat is taken in the lobby only (the first person becomes host; at a table made to "play
now" the host's arrival starts the match); a person comes back with the seat's token (the
seat's stand-in stops); a spectator only watches.  A person whose last connection closed is
away: once a match is on, after the table's grace period a stand-in bot plays for them; a
person who leaves during a match leaves the seat to a stand-in for good.  Every change is
told to the table (``changed``); a seat that stops holding up the next round may deal it.
At a tutorial (``tutor``) nobody else may take a seat, the learner's first arrival deals
the round, and the table closes sooner (``Tutor.abandoned``).

It works on the seats (``seats.Seating``, which keeps who sits where and runs the grace
periods) and the rounds (``rounds.Rounds``: the phase, the start, the snapshot) it is given,
stops a seat's bot through the table's bots, and is given the table's ``changed``,
``start_bot`` (a stand-in plays a seat) and ``table_message``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass

from ligretto import protocol
from ligretto.protocol import Phase
from ligretto.server.table.bots import TableBots
from ligretto.server.table.host import Settings
from ligretto.server.table.rounds import Rounds
from ligretto.server.table.seats import FULL, Abandoned, Listener, Seating, TableError
from ligretto.server.table.tutorial import LEARNER, Tutor


@dataclass(eq=False, slots=True)
class Presence:
    """The people of a table coming and going (see the module's docstring)."""

    seating: Seating
    rounds: Rounds
    settings: Settings
    _: KW_ONLY
    bots: TableBots
    changed: Callable[[], None]
    """Tells the table it changed (stored, and told to everyone)."""
    start_bot: Callable[[int], None]
    """A stand-in plays seat ``index`` in the round being played."""
    table_message: Callable[[], protocol.TableState]
    tutor: Tutor | None = None
    start_on_join: bool = False
    """Play now: the first person to take a seat starts the match at once (kept in
    memory only: after a restart that person lands in the waiting room as host)."""

    def join(self, listener: Listener, name: str, profile: str | None = None) -> tuple[int, str]:
        """Take a free seat (lobby only); the first person becomes host.  ``profile``: the
        id of the person's profile, kept with the seat (never shown to the others)."""
        if self.tutor is not None:
            raise TableError("full", FULL)
        if self.rounds.phase is not Phase.LOBBY:
            raise TableError("started", "the match has started: you can watch, or join the next one")
        index, token = self.seating.take(name, profile)
        self._attach(listener, index, token)
        if self.start_on_join and self.seating.host == index:
            self.start_on_join = False
            self.rounds.start(index)
        return index, token

    def rejoin(self, listener: Listener, token: str) -> int:
        """Come back to one's seat with its token (page reload, dropped connection); its
        stand-in stops.  A tutorial's learner coming the first time deals its round."""
        if self.tutor is not None and self.rounds.phase is Phase.LOBBY and self.seating.seat_of(token) == LEARNER:
            self.rounds.start(LEARNER)
        index, stood_in = self.seating.reclaim(token)
        if stood_in:
            self.bots.stop(index)
        self._attach(listener, index, token)
        return index

    def watch(self, listener: Listener) -> None:
        self.seating.watch(listener)
        listener.send(self.table_message())
        self._show_round(listener, None)

    def _attach(self, listener: Listener, index: int, token: str) -> None:
        """Seat a person's connection: its welcome, the change told to everyone (the
        newcomer included: that broadcast is its one ``table`` message), its snapshot."""
        self.seating.attach(listener, index, token)
        self.changed()
        self._show_round(listener, index)

    def _show_round(self, listener: Listener, viewer: int | None) -> None:
        snapshot = self.rounds.snapshot(viewer)
        if snapshot:
            listener.send(snapshot)

    def disconnected(self, listener: Listener) -> None:
        """A connection closed: its person is away; after the grace period a bot stands in."""
        away = self.seating.lost(listener)
        if away is None:
            return
        index, since = away
        if self.rounds.phase is not Phase.LOBBY:
            self.seating.start_grace(index, self.settings.grace_s, since)
        self.changed()

    def grace_over(self, index: int) -> None:
        """The person of seat ``index`` stayed away the whole grace period: a stand-in plays."""
        phase = self.rounds.phase
        if phase in (Phase.LOBBY, Phase.OVER):
            return  # no round to play (a person away from a match over wants no rematch)
        self.seating.stand_in(index)
        if phase is Phase.PLAYING:
            self.start_bot(index)
        self.changed()
        self.rounds.maybe_next_round()

    def leave(self, index: int) -> None:
        """A person gives up their seat for good: in the lobby it frees; in a match a bot
        takes over and keeps it (the seat's token lets nobody back: ``bad_token``)."""
        phase = self.rounds.phase
        if not self.seating.give_up(index, keep=phase not in (Phase.LOBBY, Phase.OVER)):
            return
        if phase is Phase.PLAYING:
            self.start_bot(index)
        self.changed()
        self.rounds.maybe_next_round()

    def abandoned(self, abandoned_s: float, deserted_s: float) -> Abandoned | None:
        """Why the table may be closed and dropped now (``None``: it may not): see
        ``Seating.abandoned`` (a tutorial's: ``Tutor.abandoned``)."""
        if self.tutor is not None:
            return self.tutor.abandoned(self.seating, self.rounds.phase, abandoned_s, deserted_s)
        return self.seating.abandoned(self.rounds.phase, abandoned_s, deserted_s)
