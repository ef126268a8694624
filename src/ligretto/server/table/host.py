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
from dataclasses import KW_ONLY, dataclass
from typing import Any, TypedDict, Unpack

from ligretto.bots.spec import BotSpec, BotSpecError
from ligretto.engine.rules import RuleError, RuleSet
from ligretto.protocol import Phase
from ligretto.server.table.judging import Judge
from ligretto.server.table.replayaccess import Replays, check_replays
from ligretto.server.table.seats import Seating, TableError, check_fairness, check_grace, check_ready, check_seats
from ligretto.server.table.timing import READY_S


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
    ready_s: float = READY_S
    """On the score sheet, how long the others may take once the first person is ready."""


class Change(TypedDict, total=False):
    """What the host's ``set_rules`` may change besides the rules (absent or ``None``: as it is)."""

    seats: int | None
    public: bool | None
    grace_s: float | None
    ready_s: float | None
    arbitration: str | None
    window_ms: int | None
    rated: bool | None
    replays: str | None


@dataclass(eq=False, slots=True)
class HostCommands:
    """The host's commands of a table (see the module's docstring)."""

    seating: Seating
    settings: Settings
    judge: Judge
    _: KW_ONLY
    phase: Callable[[], Phase]
    """The table's phase."""
    changed: Callable[[], None]
    """Tells the table a command changed it."""

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

    def set_rules(self, by: int | None, *, preset: str, options: dict[str, Any], **change: Unpack[Change]) -> None:
        """The rules of ``preset`` with ``options``, and what else ``change`` says."""
        self._check(by, "the rules can only change before the match")
        try:
            rules = RuleSet.preset(preset).replace(**options)
        except RuleError as error:
            raise TableError("bad_rules", str(error)) from None
        seats, grace_s, ready_s = change.get("seats"), change.get("grace_s"), change.get("ready_s")
        if seats is not None:
            check_seats(seats)
            if any(seat is not None for seat in self.seating.seats[seats:]):
                raise TableError("bad_seats", "remove the players in the last seats first")
        if grace_s is not None:
            check_grace(grace_s)
        if ready_s is not None:
            check_ready(ready_s)
        settings = self.settings
        fairness = check_fairness(change.get("arbitration"), change.get("window_ms"), self.judge.fairness)
        access = check_replays(change.get("replays"), settings.replays)
        public, rated = change.get("public"), change.get("rated")
        # Every check passed: change the table.
        if seats is not None:
            self.seating.resize(seats)
        if grace_s is not None:
            settings.grace_s = grace_s
        if ready_s is not None:
            settings.ready_s = ready_s
        if public is not None:
            settings.public = public
        if rated is not None:
            settings.rated = rated
        settings.rules = rules
        self.judge.fairness = fairness
        settings.replays = access
        self.changed()
