"""A table carries on after a restart: :class:`Resume`, the part of a
:class:`~ligretto.server.table.table.Table` that resumes it once the store has rebuilt it.

Nobody is connected to a restored table yet, so every person's grace period starts again.
A round that was being played (or counted down) waits for its people rather than letting
its bots play on alone: it is put in ``countdown``, where nobody acts, and starts
(``go``) one countdown after the last of its seated people is back or has a stand-in,
or after ``catch_up_s`` and a countdown at the latest.  ``start_at`` always says when.  A
score sheet that was waiting for *Ready* (``ready_by``) waits its whole ``ready_s`` again
from the restart, as the grace periods do.
It works on the seats and the rounds it is given, and tells the table (``changed``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass

from ligretto.protocol import Phase
from ligretto.server.table.host import Settings
from ligretto.server.table.rounds import Rounds
from ligretto.server.table.seats import Seating
from ligretto.server.table.timing import CATCH_UP_S


@dataclass(eq=False, slots=True)
class Resume:
    """A table's resumption after a restart (see the module's docstring)."""

    seating: Seating
    rounds: Rounds
    settings: Settings
    _: KW_ONLY
    changed: Callable[[], None]

    def resume(self, catch_up_s: float = CATCH_UP_S) -> None:
        """Carry on after a restart (the table was rebuilt from the store): every person's
        grace period starts now, and a round that was on waits for its people."""
        seating, rounds = self.seating, self.rounds
        now = seating.clock()
        for index, seat in enumerate(seating.seats):
            if seat is not None and seat.human:
                seat.connected = False
                seat.away_since = now
                if rounds.phase is not Phase.LOBBY and not seat.stand_in:
                    seating.start_grace(index, self.settings.grace_s, now)
        game = rounds.game
        if rounds.phase in (Phase.COUNTDOWN, Phase.PLAYING) and game is not None and game.over:
            # The action that ended the round was stored, the round's end was not: score it now.
            rounds.round_over()
            return
        if rounds.phase in (Phase.SCORING, Phase.OVER) and rounds.ready_by is not None:
            rounds.wait_for_ready()
            self.changed()
        if rounds.phase in (Phase.COUNTDOWN, Phase.PLAYING):
            rounds.phase = Phase.COUNTDOWN
            rounds.catching_up = True
            rounds.count_down(catch_up_s + rounds.countdown_s)
            self.changed()  # stored; and with nobody to wait for, the countdown is a plain one

    def caught_up(self) -> None:
        """Called on every change of the table: once a restored round waits for nobody
        (the last person is back, or has a stand-in), its fresh countdown starts."""
        if self.rounds.catching_up and not self.seating.away():
            self.rounds.count_down(self.rounds.countdown_s)
