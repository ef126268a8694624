"""The host's commands before a match: bots in free seats, seats removed, the rules set.

:class:`HostCommands` is the part of a :class:`~ligretto.server.table.table.Table` that carries
them out on the parts it is given: the seats (:class:`~ligretto.server.table.seats.Seating`),
the table's :class:`Settings` and its judge (the judging of races).  Only the host may give
them (``not_host`` otherwise), and only in the lobby (``started``); a command that is
refused changes nothing, one carried out is told to the table (``changed``).  Starting the
match is the table's (:meth:`~ligretto.server.table.table.Table.start`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ligretto.bots.spec import BotSpec, BotSpecError
from ligretto.engine.rules import RuleError, RuleSet
from ligretto.server.table.judging import Judge
from ligretto.server.table.phase import Phase
from ligretto.server.table.replayaccess import Replays, check_replays
from ligretto.server.table.seats import Seating, TableError, check_fairness, check_grace, check_seats


@dataclass(slots=True)
class Settings:
    """What the host sets of a table, besides its seats and the judging of its races."""

    rules: RuleSet
    public: bool
    rated: bool
    """Its matches update its profiles' ratings."""
    replays: Replays
    """Who may watch its rounds' replays (``replayaccess``)."""
    grace_s: float
    """How long a person may be away during a match before a stand-in plays for them."""


class HostCommands:
    """The host's commands of a table (see the module's docstring); ``phase()`` is the
    table's phase, ``changed()`` tells the table a command changed it."""

    def __init__(
        self,
        seating: Seating,
        settings: Settings,
        judge: Judge,
        *,
        phase: Callable[[], Phase],
        changed: Callable[[], None],
    ) -> None:
        self.seating = seating
        self.settings = settings
        self.judge = judge
        self.phase = phase
        self.changed = changed

    def _check(self, by: int | None, what: str) -> None:
        self.seating.check_host(by)
        if self.phase() is not Phase.LOBBY:
            raise TableError("started", what)

    def add_bot(self, by: int | None, spec_text: str) -> int:
        self._check(by, "bots can only be added before the match")
        try:
            spec = BotSpec.parse(spec_text)
        except BotSpecError as error:
            raise TableError("bad_bot", str(error)) from None
        return self.seat_bot(spec)

    def seat_bot(self, spec: BotSpec) -> int:
        """A bot in the first free seat (the host's ``add_bot``, or bots asked for when the
        table is made); returns its seat."""
        index = self.seating.seat_bot(spec)
        self.changed()
        return index

    def remove_seat(self, by: int | None, index: int) -> None:
        self._check(by, "seats can only be removed before the match")
        seating = self.seating
        if not 0 <= index < seating.size or seating.seats[index] is None:
            raise TableError("no_seat", f"there is nobody at seat {index}")
        if index == by:
            raise TableError("bad_seat", "the host cannot remove themselves (leave instead)")
        seating.remove(index)
        self.changed()

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
        self._check(by, "the rules can only change before the match")
        try:
            rules = RuleSet.preset(preset).replace(**options)
        except RuleError as error:
            raise TableError("bad_rules", str(error)) from None
        if seats is not None:
            check_seats(seats)
            if any(seat is not None for seat in self.seating.seats[seats:]):
                raise TableError("bad_seats", "remove the players in the last seats first")
        if grace_s is not None:
            check_grace(grace_s)
        settings = self.settings
        fairness = check_fairness(arbitration, window_ms, self.judge.fairness)
        access = check_replays(replays, settings.replays)
        # Every check passed: change the table.
        if seats is not None:
            self.seating.resize(seats)
        if grace_s is not None:
            settings.grace_s = grace_s
        if public is not None:
            settings.public = public
        if rated is not None:
            settings.rated = rated
        settings.rules = rules
        self.judge.fairness = fairness
        settings.replays = access
        self.changed()
