"""Who plays with whom in the matchmaking queue: the pure core of ``queue.py``.

Tickets waiting for one kind of table (a number of seats and a rule preset) are grouped
oldest first: the oldest ticket anchors a group and takes the next ones whose rating is
within reach, while they fit the seats (a party's people always together).  The reach is
a band around each ticket's conservative rating (``mu - 3 sigma``) that widens with its
wait, so a strong player waits a little for peers and then plays with whoever is there.
A group is ready when it fills the seats, or when its anchor's countdown ends (the empty
seats then go to bots).  No clock, no I/O: ``now`` is passed in.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ligretto.protocol.limits import QUEUE_COUNTDOWN_S

BAND = 5.0
"""The half-width of a ticket's band when it arrives, in conservative rating points (a
new player's rating is 0; the calibrated bots span about -11 to 53)."""
WIDEN_PER_S = 2.0
"""How much a ticket's band widens per second waited (after 30 s: 65 points each way)."""
COUNTDOWN_S = QUEUE_COUNTDOWN_S
"""How long a group's oldest ticket waits at most before its table starts with bots."""


@dataclass(frozen=True, slots=True)
class Waiting:
    """One ticket as the grouping sees it: ``people`` seated together, their rating
    (conservative, a party's mean) and when it joined."""

    id: str
    people: int
    rating: float
    since: float


@dataclass(frozen=True, slots=True)
class Group:
    """Tickets to seat at one table, oldest first; its countdown ends at ``starts_at``."""

    tickets: tuple[Waiting, ...]
    seats: int
    starts_at: float

    @property
    def people(self) -> int:
        return sum(t.people for t in self.tickets)

    @property
    def full(self) -> bool:
        return self.people >= self.seats

    def ready(self, now: float) -> bool:
        """Its table starts now: every seat taken, or its countdown over."""
        return self.full or now >= self.starts_at


def reach(ticket: Waiting, now: float, band: float = BAND, widen: float = WIDEN_PER_S) -> float:
    """How far from its own rating a ticket accepts others, after its wait until ``now``."""
    return band + widen * max(0.0, now - ticket.since)


def groups(
    waiting: Iterable[Waiting],
    seats: int,
    now: float,
    countdown_s: float = COUNTDOWN_S,
    *,
    band: float = BAND,
    widen: float = WIDEN_PER_S,
) -> list[Group]:
    """Every ticket in exactly one group, the groups in the order of their oldest ticket.
    Two tickets go together when their ratings are within the wider of their two reaches;
    a ticket of more people than ``seats`` is a group of its own (the queue refuses those)."""
    left = sorted(waiting, key=lambda t: (t.since, t.id))
    found = []
    while left:
        anchor = left.pop(0)
        members = [anchor]
        people = anchor.people
        for other in list(left):
            if people >= seats:
                break
            if people + other.people > seats:
                continue
            width = max(reach(anchor, now, band, widen), reach(other, now, band, widen))
            if abs(other.rating - anchor.rating) <= width:
                members.append(other)
                people += other.people
                left.remove(other)
        found.append(Group(tuple(members), seats, anchor.since + countdown_s))
    return found
