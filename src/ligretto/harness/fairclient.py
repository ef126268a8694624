"""A load-test player that follows the protocol's fair-judging half (docs/protocol.md,
"Races: fair judging"), for ``ligretto bench --only fairness`` (``harness/fairness.py``).

:class:`FairClient` is the load test's :class:`~ligretto.harness.client.Client` (the same
loop, strategy, reaction times and one action in flight) that also

- keeps the clock sync running (the Python clients' one :class:`~ligretto.client.clocksync.ClockSync`,
  on its schedule): a ``ping`` every second (three quick ones first), each after the first
  echoing the last pong's ``server_t`` with how long it was ``held``, so the server
  measures the connection's round trip;
- stamps every ``act`` with ``t``, its send time on its estimate of the server's clock
  (the offset of the shortest recent round trip), or, a *liar*, ``lie_s`` earlier;
- notes what fair judging answers: each ack's latency beyond the connection's round trip
  (``added``; ``contested`` says which of them were plays another seat could have made
  too, as the client saw the table when it sent them: :func:`seen_contested`), the races
  of its table (:class:`RaceTally`, from the ``race`` messages and from the loser's
  ``ack``, ``by`` and ``by_ms``) and the true send time of its plays, so that a race can
  be checked against the clamp of the judging afterwards (:func:`ranked_too_early`).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from array import array
from dataclasses import dataclass, field
from typing import Any

from websockets.exceptions import ConnectionClosed

from ligretto.client.clocksync import ClockSync, ping_gap
from ligretto.client.mirror import Mirror
from ligretto.engine.races import CAP_MS
from ligretto.harness.client import Client, ClientSettings, TableRun
from ligretto.harness.figures import Figures
from ligretto.protocol import Ack, Pong, Race, RoundOver, ServerMessage, Welcome


@dataclass(frozen=True, slots=True)
class LostRace:
    """A play refused because another card took its place, as its loser was told: the
    round, the pile and card of the refused play, the seat whose card took it, ``by_ms``
    (``None``: no race, it came too late), and when (wall clock) the ack came."""

    round: int
    pile: int
    card: str
    winner: int
    by_ms: int | None
    acked: float


@dataclass(slots=True)
class RaceTally:
    """One table's races by round: from the losers' acks (``lost``: every play refused
    because the other seat's card took its place, the simulator's races, whatever the gap)
    and from the ``race`` messages one of its clients gets (``told``: the races the server
    tells, the two cards at most ``RACE_MS`` apart); the rounds that ended; which seat is
    the far one."""

    far_seat: int | None = None
    told: dict[int, list[int]] = field(default_factory=dict)
    """Round -> [races told, won by the far seat], from the ``race`` messages."""
    completed: set[int] = field(default_factory=set)
    lost: list[LostRace] = field(default_factory=list)

    def race(self, message: Race) -> None:
        count = self.told.setdefault(message.round, [0, 0])
        count[0] += 1
        count[1] += message.winner == self.far_seat

    def rounds(self) -> list[tuple[int, int]]:
        """(races, won by the far seat) of every completed round, in order, from the
        losers' acks (``by``): every beaten play, as the simulator counts races."""
        counts = {number: [0, 0] for number in self.completed}
        for lost in self.lost:
            if lost.round in counts:
                counts[lost.round][0] += 1
                counts[lost.round][1] += lost.winner == self.far_seat
        return [(counts[r][0], counts[r][1]) for r in sorted(counts)]

    def told_races(self) -> int:
        """The races told in the completed rounds (``race`` messages)."""
        return sum(self.told.get(r, (0, 0))[0] for r in self.completed)

    def told_by_ack(self) -> int:
        """The same from the losers' acks: those with a margin (``by_ms``), which the
        server gives a race alone."""
        return sum(lost.round in self.completed and lost.by_ms is not None for lost in self.lost)


class FairClient(Client):
    """A load-test player that stamps its acts and pings (see the module's docstring);
    ``counts``: this client counts its table's ``race`` messages and rounds."""

    def __init__(
        self,
        table: TableRun,
        index: int,
        settings: ClientSettings,
        figures: Figures,
        tally: RaceTally,
        *,
        far: bool = False,
        counts: bool = False,
        lie_s: float = 0.0,
    ) -> None:
        super().__init__(table, index, settings, figures)
        self.tally = tally
        self.far = far
        self.counts = counts
        self.lie_s = lie_s
        self.clock = ClockSync()
        self.added: array[float] = array("d")
        """Each ack's latency beyond the connection's round trip (seconds)."""
        self.contested: array[int] = array("b")
        """For each of ``added``: 1 if the act was a play another seat could contest."""
        self.act_contested = False
        self.plays: Plays = {}

    def act_message(self, action: dict[str, Any]) -> dict[str, Any]:
        message = super().act_message(action)
        wall = time.time()
        message["t"] = self.clock.server_time(wall) - self.lie_s
        self.act_contested = seen_contested(self.session.mirror, self.session.seat, action)
        if action["kind"] == "play" and action.get("pile") is not None:
            self.plays[(self.session.round, action["pile"], str(action.get("card")))] = wall
        return message

    def _receive(self, message: ServerMessage, now: float) -> None:
        if isinstance(message, Pong):
            self.clock.ponged(message, time.time())
        elif isinstance(message, Ack):
            answer = self.session.answered
            if answer is not None and answer.ident == self.act_id:
                self.added.append(now - self.act_sent - self.clock.round_trip)
                self.contested.append(self.act_contested)
                action = answer.action
                if message.by is not None and action.get("pile") is not None:
                    card, round_number = str(action.get("card")), self.session.round
                    lost = LostRace(round_number, action["pile"], card, message.by, message.by_ms, time.time())
                    self.tally.lost.append(lost)
        elif isinstance(message, Race) and self.counts:
            self.tally.race(message)
        elif isinstance(message, RoundOver) and self.counts:
            self.tally.completed.add(message.round)
        elif isinstance(message, Welcome) and self.far:
            self.tally.far_seat = message.seat
        super()._receive(message, now)

    async def _keep_alive(self) -> None:
        """A ping every second (the first few quicker: ``ping_gap``), whatever else is sent."""
        with contextlib.suppress(ConnectionClosed):
            pings = 0
            while not self.stopping:
                await self.send(self.clock.ping(time.time()))
                pings += 1
                await asyncio.sleep(ping_gap(pings))


def seen_contested(mirror: Mirror | None, seat: int | None, action: dict[str, Any]) -> bool:
    """Whether ``action`` is a play onto an existing pile that another seat could make
    too, as ``seat`` sees the table (``mirror``) when sending it: another area shows the
    same card face up (the engine's ``races.rivals``, on the client's view, which may be
    a round trip old)."""
    card = action.get("card")
    if mirror is None or action["kind"] != "play" or action.get("pile") is None or card is None:
        return False
    return any(area.seat != seat and card in (top for _, _, top in area.playable()) for area in mirror.areas)


Plays = dict[tuple[int, int, str], float]
"""(round, pile, card) -> the true send time (wall clock) of a client's last such play."""


def ranked_too_early(lost: LostRace, plays: Plays, cap_s: float = CAP_MS / 1000) -> bool | None:
    """Whether the winning play of a lost race (its true send time in the winner's
    ``plays``) was provably ranked earlier than its send time minus twice the cap: what
    the clamp of fair judging forbids, however early the winner stamped it.

    The winner was ranked ``by_ms`` before the loser's compensated time, which is never
    later than the loser's play arrived, so never later than the loser's ack came (one
    machine, one wall clock); the clamp ranks the winner no earlier than its arrival minus
    its delay credited each way (at most the cap), so no earlier than its send time minus
    twice the cap.  ``None``: the winning play is not known (or the ack had no ``by_ms``),
    nothing to check."""
    sent = plays.get((lost.round, lost.pile, lost.card))
    if sent is None or lost.by_ms is None:
        return None
    latest_rank = lost.acked - lost.by_ms / 1000
    return latest_rank < sent - 2 * cap_s - 0.001  # by_ms is rounded to the millisecond
