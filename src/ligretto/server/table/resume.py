"""A table carries on after a restart: :class:`Resuming`, the part of a
:class:`~ligretto.server.table.table.Table` that resumes it once the store has rebuilt it.

Nobody is connected to a restored table yet, so every person's grace period starts again.
A round that was being played (or counted down) waits for its people rather than letting
its bots play on alone: it is put in ``countdown``, where nobody acts, and starts
(``go``) one countdown after the last of its seated people is back or has a stand-in,
or after ``catch_up_s`` and a countdown at the latest.  ``start_at`` always says when.
"""

from __future__ import annotations

from abc import abstractmethod

from ligretto.engine.state import Round
from ligretto.server.table.host import HostCommands
from ligretto.server.table.seats import Phase
from ligretto.server.table.timing import CATCH_UP_S


class Resuming(HostCommands):
    """A table's resumption after a restart (see the module's docstring)."""

    countdown_s: float
    start_at: float | None
    catching_up: bool
    """A restored round waits for its people: no bot acts yet."""
    _go_timer: int | None
    """The countdown's timer (moved when a restored round's people are all back)."""

    def resume(self, catch_up_s: float = CATCH_UP_S) -> None:
        """Carry on after a restart (the table was rebuilt from the store): every person's
        grace period starts now, and a round that was on waits for its people."""
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
        if self.phase in (Phase.COUNTDOWN, Phase.PLAYING):
            self.phase = Phase.COUNTDOWN
            self.catching_up = True
            self._count_down_again(catch_up_s + self.countdown_s)
            self._changed()  # stored; and with nobody to wait for, the countdown is a plain one

    def _caught_up(self) -> None:
        """Called on every change of the table: once a restored round waits for nobody
        (the last person is back, or has a stand-in), its fresh countdown starts."""
        if self.catching_up and not self._awaited():
            self._count_down_again(self.countdown_s)

    def _awaited(self) -> list[int]:
        """The seats a restored round waits for: people away with no stand-in."""
        return [
            index
            for index, seat in enumerate(self.seats)
            if seat is not None and seat.human and not seat.connected and not seat.stand_in
        ]

    def _count_down_again(self, seconds: float) -> None:
        """The round (dealt, maybe half played) starts ``seconds`` from now; a restored
        round waiting for its people stops waiting when that is one countdown."""
        if seconds <= self.countdown_s:
            self.catching_up = False
        self.timers.cancel(self._go_timer)
        self.start_at = self.clock() + seconds
        self._go_timer = self.timers.later(seconds, self._go)

    # --- the table's part -------------------------------------------------------------

    @property
    @abstractmethod
    def game(self) -> Round | None:
        """The match's current round (``None``: none dealt)."""

    @abstractmethod
    def _go(self) -> None:
        """The countdown is over: the round is on."""

    @abstractmethod
    def _round_over(self) -> None:
        """The round is over: score it."""
