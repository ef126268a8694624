"""The races scenario of the stress harness (issue 13, "Measured"): at every table, 2-4 real
WebSocket clients play as fast as the rate limit lets them, and all aim for the same pile.

Every client is the Python clients' one session (:class:`ligretto.client.Session`, strict:
its round in the one client model, :class:`ligretto.client.Mirror`) and plays in step
with the others of its table: on each tick (``rate`` a second, under the
server's 20 messages a second per connection) each sends its best play at once, the play
onto the existing pile with the lowest index that takes one of its cards (else a 1 onto a
new pile, else it turns its hand, else it votes).  Whoever has a card for the lowest pile
goes for it at the same moment as everyone else who has one, so many plays are
contested: the server applies the first and refuses the others, ``does_not_fit`` (or
``pile_complete``) with ``by``, the seat that got there first -- the count of those is
what this scenario tried.  A spectator watches every table.

Checked afterwards: the server still answers (crashes); every seat's 40 cards are in each
round's last view of the spectator, in a fresh spectator's view of the table, and in each
client's last view (:func:`~ligretto.testkit.scans.cards_lost`); and every play
acknowledged as applied lies where it was played in the spectator's last view of its
round (:func:`acks_lost`: a card of seat ``s`` numbered ``n`` on a pile is that pile's
colour with ``backs[n - 1] == s``: each deck has one card of each colour and number).
Every frame each client and spectator received is kept (``ScenarioReport.frames``) for
the harness's scan for hidden cards against the server's database.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Self

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from ligretto import protocol
from ligretto.client.mirror import NEW_PILE, Mirror, wire_pile
from ligretto.client.session import ActId, Answer, Session
from ligretto.harness.acks import lies_on
from ligretto.harness.probes import alive, http, rss_of
from ligretto.harness.run import server_urls
from ligretto.harness.scenario import ScenarioReport
from ligretto.testkit.scans import Frame, cards_lost

RATE = 16.0
"""Ticks a second (one action each, a ping now and then): under the default limit of 20
messages a second per connection."""
CONTESTED = frozenset(("does_not_fit", "pile_complete"))
"""Refusals of a play onto a pile someone else reached first (with ``by``)."""
TIMEOUT_S = 10.0
START_S = 30.0
"""Seconds a table may take from ``start`` to its first ``go`` (the server's countdown)."""


@dataclass(frozen=True, slots=True)
class AppliedPlay:
    """A play the server acknowledged as applied: round, seat, card, and the pile it named
    (``NEW_PILE``: a 1 that started a pile)."""

    round: int
    seat: int
    card: str
    pile: int


def acks_lost(plays: Iterable[AppliedPlay], last_views: dict[int, dict[str, Any]]) -> int:
    """Acknowledged plays not in the center of their round's last view where they were
    played (``acks.lies_on``; a 1 that started a pile: on any pile), a round with no view
    counting every play of it as lost: nothing shows it was kept."""
    return sum(
        1
        for play in plays
        if play.round not in last_views
        or not lies_on(last_views[play.round], play.card, play.seat, None if play.pile == NEW_PILE else play.pile)
    )


def race_action(mirror: Mirror, seat: int) -> dict[str, Any] | None:
    """The racer's move: its card for the existing pile with the lowest index, else a 1
    onto a new pile, else turn the hand, else vote (``None``: voted already, wait)."""
    area = mirror.areas[seat]
    best: tuple[int, str, int, str, int] | None = None
    for source, position, card in area.playable():
        for pile in mirror.piles_for(card):
            rank = len(mirror.center) if pile == NEW_PILE else pile
            if best is None or rank < best[0]:
                best = (rank, source, position, card, pile)
    if best is not None:
        _, source, position, card, pile = best
        return {"kind": "play", "source": source, "position": position, "pile": wire_pile(pile), "card": card}
    if area.hand_size or area.discard_size:
        return {"kind": "turn"}
    return None if area.voted else {"kind": "vote"}


async def _connect(ws_url: str) -> ClientConnection:
    return await connect(ws_url, compression=None, ping_interval=None, max_size=1 << 20, proxy=None)


class Listener:
    """One connection at a table, player or spectator, and its session (strict): every
    frame it receives is kept, and each round's last view when the next comes."""

    def __init__(self, ws: ClientConnection, frames: list[Frame], session: Session) -> None:
        self.code = session.code
        self.ws = ws
        self.frames = frames
        self.session = session
        self.last_views: dict[int, dict[str, Any]] = {}
        self.pongs: set[float] = set()
        """The ``t`` of every pong (a barrier's ping is marked with a negative one)."""
        self.barriers = 0
        self.changed = asyncio.Event()
        self.last_sent = time.monotonic()
        self.closing = False
        self.closed_by_server: int | None = None
        """The close code, if the server closed this connection before the harness did."""
        self.reader = asyncio.create_task(self._read())

    @classmethod
    async def join(cls, ws_url: str, frames: list[Frame], session: Session) -> Self:
        """Connect and say the session's hello; its table message is awaited."""
        listener = cls(await _connect(ws_url), frames, session)
        await listener.send(session.connect())
        await listener.wait_for(lambda: session.table is not None)
        return listener

    async def send(self, message: dict[str, Any]) -> None:
        """Send, unless the connection is gone (the reader notes how it went)."""
        self.last_sent = time.monotonic()
        with contextlib.suppress(ConnectionClosed):
            await self.ws.send(json.dumps(message))

    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                text = raw if isinstance(raw, str) else raw.decode()
                message = protocol.decode_server(text)
                if isinstance(message, protocol.Snapshot):
                    self._keep_last_view()
                self.session.receive(message)
                self.frames.append(Frame(self.code, self.session.seat, text))
                self.receive(message)
                self.changed.set()
        except ConnectionClosed:
            pass
        if not self.closing:
            self.closed_by_server = self.ws.close_code

    def receive(self, message: protocol.ServerMessage) -> None:
        """What this connection does about a message its session has just applied."""
        if isinstance(message, protocol.Pong):
            self.pongs.add(message.t)

    def _keep_last_view(self) -> None:
        if self.session.mirror is not None:
            self.last_views[self.session.round] = self.session.mirror.to_dict()

    async def barrier(self) -> None:
        """Wait until everything the server had queued for this connection arrived (a ping:
        its pong comes after all of it)."""
        self.barriers += 1
        mark = -float(self.barriers)
        await self.send({"type": "ping", "t": mark})
        await self.wait_for(lambda: mark in self.pongs)

    async def wait_for(self, test: Any) -> None:
        deadline = time.monotonic() + TIMEOUT_S
        while not test():
            self.changed.clear()
            await asyncio.wait_for(self.changed.wait(), max(0.01, deadline - time.monotonic()))

    def finish(self) -> None:
        """Keep the current round's view as its last one."""
        self._keep_last_view()

    async def close(self) -> None:
        self.closing = True
        await self.ws.close()
        with contextlib.suppress(asyncio.CancelledError, TimeoutError):
            await asyncio.wait_for(self.reader, 2.0)


class Racer(Listener):
    """A seated client: sends its race move on every tick of its table, one at a time."""

    def __init__(self, ws: ClientConnection, frames: list[Frame], session: Session) -> None:
        super().__init__(ws, frames, session)
        self.playing = False
        self.in_flight: ActId | None = None
        """The id of the action in flight."""
        self.sent_at = 0.0
        self.applied: list[AppliedPlay] = []
        self.refusals: dict[str, int] = {}
        self.contested = 0
        self.turns = 0
        self.ack_timeouts = 0

    def receive(self, message: protocol.ServerMessage) -> None:
        super().receive(message)
        answer = self.session.answered
        if isinstance(message, protocol.Go):
            self.playing = True
        elif isinstance(message, protocol.RoundOver):
            self.playing = False
            if not message.match_over:
                asyncio.create_task(self._ready())  # noqa: RUF006 (short-lived, errors suppressed)
        elif answer is not None and answer.ident == self.in_flight:
            self._answered(answer)

    def _answered(self, answer: Answer) -> None:
        self.in_flight = None
        reason, action = answer.reason, answer.action
        if reason is not None:
            self.refusals[reason] = self.refusals.get(reason, 0) + 1
            reply = answer.reply
            if isinstance(reply, protocol.Ack) and reason in CONTESTED and reply.by not in (None, self.session.seat):
                self.contested += 1
        elif action["kind"] == "play" and self.session.seat is not None:
            pile = NEW_PILE if action["pile"] is None else action["pile"]
            self.applied.append(AppliedPlay(answer.round, self.session.seat, action["card"], pile))
        elif action["kind"] == "turn":
            self.turns += 1

    async def _ready(self) -> None:
        with contextlib.suppress(ConnectionClosed):
            await self.send({"type": "ready"})

    async def tick(self) -> None:
        """This tick's move (or a keep-alive ping)."""
        now = time.monotonic()
        if self.in_flight is not None and now - self.sent_at > TIMEOUT_S:
            self.ack_timeouts += 1
            self.in_flight = None
        action = None
        mirror, seat = self.session.mirror, self.session.seat
        if self.playing and self.in_flight is None and mirror is not None and seat is not None:
            action = race_action(mirror, seat)
        if action is not None:
            act = self.session.act(action)
            self.in_flight = act["id"]
            self.sent_at = now
            await self.send(act)
        elif now - self.last_sent > 1.0:
            await self.send({"type": "ping", "t": 0.0})


class RaceTable:
    """One table: its racers (the first is host) and a spectator."""

    def __init__(self, code: str, racers: list[Racer], spectator: Listener) -> None:
        self.code = code
        self.racers = racers
        self.spectator = spectator
        self.started = False

    @classmethod
    async def open(cls, base: str, ws_url: str, players: int, index: int, frames: list[Frame]) -> RaceTable:
        body = {"seats": players, "options": {"match_end": "rounds:1000"}}
        code = json.loads(await asyncio.to_thread(http, f"{base}/api/tables", body))["code"]
        racers = []
        for seat in range(players):
            session = Session(code, name=f"racer {index}.{seat}", strict=True)
            racers.append(await Racer.join(ws_url, frames, session))
        spectator = await Listener.join(ws_url, frames, Session(code, watch=True, strict=True))
        await racers[0].send({"type": "start"})
        return cls(code, racers, spectator)

    async def race(self, seconds: float, rate: float) -> None:
        """Tick for ``seconds`` from the first round's ``go`` (pinging meanwhile): every
        racer's move at the same moment."""
        tick = begin = time.monotonic()
        until: float | None = None
        while until is None or tick < until:
            if until is None and all(racer.playing for racer in self.racers):
                until = tick + seconds
                self.started = True
            elif until is None and tick - begin > START_S:
                return  # never started: counted
            await asyncio.gather(*(racer.tick() for racer in self.racers))
            if self.spectator.ws.state.name == "OPEN" and time.monotonic() - self.spectator.last_sent > 1.0:
                await self.spectator.send({"type": "ping", "t": 0.0})
            # The next tick; ticks missed while this process was busy are skipped, never
            # sent in a burst that the rate limit would close.
            tick = max(tick + 1.0 / rate, time.monotonic())
            await asyncio.sleep(tick - time.monotonic())

    async def settle(self) -> None:
        """Wait for the answers still on their way, then everything the server queued."""
        deadline = time.monotonic() + TIMEOUT_S
        while any(r.in_flight is not None for r in self.racers) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        for listener in [*self.racers, self.spectator]:
            with contextlib.suppress(ConnectionClosed, TimeoutError):
                await listener.barrier()

    async def fresh_view(self, ws_url: str, frames: list[Frame]) -> dict[str, Any] | None:
        """The table as a newcomer spectator sees it now (its frames kept too)."""
        watcher = await Listener.join(ws_url, frames, Session(self.code, watch=True, strict=True))
        try:
            await watcher.barrier()
            return None if watcher.session.mirror is None else watcher.session.mirror.to_dict()
        finally:
            await watcher.close()


async def run_races(
    url: str,
    tables: int,
    players: int,
    seconds: float,
    *,
    seed: int = 0,
    server_pid: int | None = None,
    rate: float = RATE,
) -> ScenarioReport:
    """Race at ``tables`` tables of ``players`` (2-4) for ``seconds`` from each table's first
    ``go`` (the report's ``seconds`` include the countdown); ``rate`` ticks a second (raise
    it only with the server's rate limit).  ``seed`` names the run's tables'
    players only: the race itself is decided by the server's order of arrival."""
    if not 2 <= players <= 4:
        raise ValueError(f"a race takes 2-4 players, not {players}")
    base, ws_url = server_urls(url)
    rss_before = rss_of(server_pid)[0] if server_pid else None
    frames: list[Frame] = []
    race_tables = [await RaceTable.open(base, ws_url, players, seed * 10_000 + i, frames) for i in range(tables)]
    start = time.monotonic()
    await asyncio.gather(*(t.race(seconds, rate) for t in race_tables))
    elapsed = time.monotonic() - start
    await asyncio.gather(*(t.settle() for t in race_tables))
    fresh = [await t.fresh_view(ws_url, frames) for t in race_tables]
    listeners = [listener for t in race_tables for listener in (*t.racers, t.spectator)]
    for listener in listeners:
        listener.finish()
    await asyncio.gather(*(listener.close() for listener in listeners))
    up = await alive(base, server_pid)
    racers = [r for t in race_tables for r in t.racers]
    views = [v for listener in listeners for v in listener.last_views.values()] + [v for v in fresh if v]
    lost = sum(acks_lost(r.applied, t.spectator.last_views) for t in race_tables for r in t.racers)
    refusals: dict[str, int] = {}
    for racer in racers:
        for reason, count in racer.refusals.items():
            refusals[reason] = refusals.get(reason, 0) + count
    return ScenarioReport(
        scenario="races",
        what="contested plays",
        tried=sum(r.contested for r in racers),
        seconds=round(elapsed, 1),
        crashes=0 if up else 1,
        cards_lost=sum(cards_lost(v) for v in views),
        acks_lost=lost,
        rss_before=rss_before,
        rss_after=rss_of(server_pid)[0] if server_pid else None,
        details={
            "tables": tables,
            "tables_never_started": sum(not t.started for t in race_tables),
            "players": players,
            "applied_plays": sum(len(r.applied) for r in racers),
            "turns": sum(r.turns for r in racers),
            "refusals": dict(sorted(refusals.items())),
            "rounds_seen": sum(len(t.spectator.last_views) for t in race_tables),
            "views_checked": len(views),
            "ack_timeouts": sum(r.ack_timeouts for r in racers),
            "mirror_problems": sum(len(listener.session.problems) for listener in listeners),
            "closed_by_server": sum(listener.closed_by_server is not None for listener in listeners),
            "frames": len(frames),
        },
        frames=frames,
    )
