"""The host's commands before a match: bots in free seats, seats removed, the rules set.

Only the host may give them (``not_host`` otherwise), and only in the lobby (``started``);
a command that is refused changes nothing.  Starting the match is the table's
(:meth:`~ligretto.server.table.table.Table.start`).
"""

from __future__ import annotations

from typing import Any

from ligretto.bots.spec import BotSpec, BotSpecError
from ligretto.engine.races import Fairness
from ligretto.engine.rules import RuleError, RuleSet
from ligretto.server.table import messages
from ligretto.server.table.replayaccess import Replays, check_replays
from ligretto.server.table.seats import (
    Phase,
    Seat,
    Seating,
    TableError,
    check_fairness,
    check_grace,
    check_seats,
    new_token,
)


class HostCommands(Seating):
    """The host's commands of a :class:`~ligretto.server.table.table.Table`."""

    rules: RuleSet
    replays: Replays
    public: bool
    fairness: Fairness

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
        free = self.free_seat()
        if free is None:
            raise TableError("full", "every seat is taken")
        self.seats[free] = Seat(f"{spec.strategy.capitalize()} bot {free + 1}", new_token(), bot=spec)
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
            listener.send(messages.removed())
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
        arbitration: str | None = None,
        window_ms: int | None = None,
        rated: bool | None = None,
        replays: str | None = None,
    ) -> None:
        self._check_host(by)
        if self.phase is not Phase.LOBBY:
            raise TableError("started", "the rules can only change before the match")
        try:
            rules = RuleSet.preset(preset).replace(**options)
        except RuleError as error:
            raise TableError("bad_rules", str(error)) from None
        if seats is not None:
            check_seats(seats)
            if any(seat is not None for seat in self.seats[seats:]):
                raise TableError("bad_seats", "remove the players in the last seats first")
        if grace_s is not None:
            check_grace(grace_s)
        fairness = check_fairness(arbitration, window_ms, self.fairness)
        access = check_replays(replays, self.replays)
        # Every check passed: change the table.
        if seats is not None:
            self.seats = (self.seats + [None] * seats)[:seats]
            self.size = seats
        if grace_s is not None:
            self.grace_s = grace_s
        if public is not None:
            self.public = public
        if rated is not None:
            self.rated = rated
        self.rules = rules
        self.fairness = fairness
        self.replays = access
        self._changed()
