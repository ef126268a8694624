"""The judge of one table's races: when each action takes effect (docs/fairness.md).

Under ``arrival`` judging every action takes effect as it arrives.  Under ``fair`` judging
a *contestable* play (``engine.races.rivals``: other seats show a card for the same pile)
is ranked by its compensated time (``engine.races.judge``: when the player would have
played at the table, its stamp less its connection's measured one-way delay for the way
down, and never more than that delay before its arrival for the way up; the delay is
capped), and held while a rival's earlier-ranked play could still be on its way: until
its compensated time plus the largest rival's round trip, never longer than the table's
window after it arrived.  A play for a pile never overtakes an earlier-ranked play held
for that pile (``engine.races.behind``).  Every other action takes effect at once.

The delay of each seat is the last one measured for it (:meth:`Judge.measured`, from its
connection's pings, and with each action it sends; 0 for bots and stand-ins).  Held plays
wait on a heap keyed ``(release, compensated, order)`` behind one timer of the table; a
seat's later actions wait behind its own held play (a player's actions take effect in the
order they were sent).  The table applies each play when the judge lets it go
(:attr:`Judge.take_effect`), so the order decided is the order the table logs: replaying
the log gives the same round.  The compensated time of every card put on a pile is kept,
(``engine.races.Landings``), so a play refused for its place is told a race only if it was
ranked at the same time (:meth:`Judge.raced`, ``engine.races.same_time``), and by how
much (:meth:`Judge.margin_ms`).
"""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from ligretto.engine.actions import Action
from ligretto.engine.races import CAP_MS, Fairness, Landings, behind, judge, pile_of
from ligretto.server.table.clock import Timers


@dataclass(slots=True)
class Pending:
    """One action on its way into the round: who sent it, when it arrived (table clock),
    its sender's stamp and measured one-way delay (seconds), and once judged its
    compensated time and release."""

    seat: int
    action: Action
    client_id: str | int | None
    arrival: float
    stamp: float
    delay: float
    compensated: float = 0.0
    release: float = 0.0
    held: bool = False


@dataclass(slots=True)
class Judge:
    """One table's races: ``rivals(action)`` says which other seats could contest a play now,
    ``take_effect(pending)`` applies one (called for held plays when they are let go)."""

    timers: Timers
    clock: Callable[[], float]
    rivals: Callable[[Action], tuple[int, ...]]
    take_effect: Callable[[Pending], object]
    fairness: Fairness = field(default_factory=Fairness)
    cap_s: float = CAP_MS / 1000
    _held: list[tuple[float, float, int, Pending]] = field(default_factory=list)
    _waiting: dict[int, deque[Pending]] = field(default_factory=dict)
    _holding: set[int] = field(default_factory=set)
    _order: int = 0
    _timer: int | None = None
    landings: Landings = field(default_factory=Landings)
    """The compensated time of the card that took each place on a pile, to tell races."""
    delays: dict[int, float] = field(default_factory=dict)
    """The one-way delay measured last for each seat (seconds; a seat not in it: 0)."""

    # --- admitting actions --------------------------------------------------------------

    def measured(self, seat: int, delay: float) -> None:
        """The one-way delay of ``seat``'s connection is ``delay`` (seconds) now."""
        self.delays[seat] = delay

    def renumber(self, players: list[int]) -> None:
        """The seats were renumbered: the new seat ``i`` is the old seat ``players[i]``."""
        self.delays = {new: self.delays[old] for new, old in enumerate(players) if old in self.delays}

    def admit(self, pending: Pending) -> bool:
        """Judge an action that just arrived: ``True`` if it takes effect now (the caller
        applies it), ``False`` if it is held (:attr:`take_effect` applies it later)."""
        self.delays[pending.seat] = pending.delay
        if pending.seat in self._holding:
            self._waiting.setdefault(pending.seat, deque()).append(pending)
            return False
        return self._judge(pending)

    def _judge(self, pending: Pending) -> bool:
        fairness = self.fairness
        fair = fairness.fair
        seats = self.rivals(pending.action) if fair else ()
        delays = self.delays
        pending.release, pending.compensated = judge(
            pending.arrival,
            pending.stamp if fair else pending.arrival,
            pending.delay if fair else 0.0,
            rival=max(delays.get(seat, 0.0) for seat in seats) if seats else None,
            window=fairness.window_ms / 1000,
            cap=self.cap_s,
        )
        if seats:
            pending.release = behind(pending.release, pending.compensated, self._held_for(pile_of(pending.action)))
        now = self.clock()
        if pending.release <= now:
            return True
        pending.held = True
        self._order += 1
        heapq.heappush(self._held, (pending.release, pending.compensated, self._order, pending))
        self._holding.add(pending.seat)
        if not self._arm():
            # No timers here (no event loop: a script drives the table), so nothing was
            # ever held before this play, and it cannot wait either.
            self._held.clear()
            self._holding.clear()
            pending.held = False
            return True
        return False

    def _held_for(self, pile: int | None) -> list[tuple[float, float]]:
        """``(release, compensated)`` of the plays held for ``pile``."""
        return [(entry[0], entry[1]) for entry in self._held if pile_of(entry[3].action) == pile]

    def _arm(self) -> bool:
        """One timer, for the first play to let go; ``False`` if no timer can be set."""
        self.timers.cancel(self._timer)
        self._timer = None
        if not self._held:
            return True
        self._timer = self.timers.later(max(0.0, self._held[0][0] - self.clock()), self._let_go)
        return self._timer is not None

    def _let_go(self) -> None:
        """The timer fired: every play due now takes effect, earliest release (then earliest
        compensated time) first, each seat's waiting actions judged in turn behind it."""
        self._timer = None
        now = self.clock()
        while self._held and self._held[0][0] <= now:
            pending = heapq.heappop(self._held)[3]
            self._holding.discard(pending.seat)
            self.take_effect(pending)
            self._next_of(pending.seat)
        self._arm()

    def _next_of(self, seat: int) -> None:
        waiting = self._waiting.get(seat)
        while waiting and seat not in self._holding:
            pending = waiting.popleft()
            if self._judge(pending):
                self.take_effect(pending)
        if waiting is not None and not waiting:
            self._waiting.pop(seat, None)

    # --- the round's end ----------------------------------------------------------------

    def drain(self) -> list[Pending]:
        """Every action still held or waiting, in the order they would have gone, taken
        out (the round ended, the table closes): the caller answers them."""
        drained = [entry[3] for entry in sorted(self._held)]
        for waiting in self._waiting.values():
            drained.extend(waiting)
            waiting.clear()  # a loop letting this seat's actions go stops here
        self._held.clear()
        self._waiting.clear()
        self._holding.clear()
        self.timers.cancel(self._timer)
        self._timer = None
        return drained

    @property
    def pending(self) -> int:
        """Actions held or waiting now."""
        return len(self._held) + sum(len(w) for w in self._waiting.values())

    def new_round(self) -> None:
        """A new round is dealt: no card of it is on a pile yet."""
        self.landings.clear()

    # --- margins ------------------------------------------------------------------------

    def placed(self, pile: int, height: int, compensated: float) -> None:
        """A card became the ``height``-th card of ``pile`` (1-based), ranked at ``compensated``."""
        self.landings.took((pile, height), compensated)

    def raced(self, pile: int, height: int, compensated: float) -> bool:
        """Whether a play ranked at ``compensated`` and refused for the place ``height`` of
        ``pile`` was ranked at the same time as the card that took it (``races.same_time``;
        not known, e.g. it was put there before a restart: no)."""
        return self.landings.raced((pile, height), compensated)

    def margin_ms(self, pile: int, height: int, compensated: float) -> int | None:
        """By how many milliseconds of compensated time the card at ``height`` of ``pile``
        beat a play ranked at ``compensated`` (``None``: not known, e.g. it was put there
        before a restart)."""
        won = self.landings.ranked((pile, height))
        return None if won is None else round((compensated - won) * 1000)
