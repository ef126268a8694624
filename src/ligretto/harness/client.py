"""The clients of ``ligretto loadtest``: one real WebSocket per player, playing like a person.

A :class:`Client` joins a table with the Python clients' one session
(:class:`ligretto.client.Session`: its hello, its seat, the table, the round's
:class:`~ligretto.client.Mirror` kept from the snapshot and the ``events``, each act in
flight and its answer), chooses with the greedy bot's own strategy (``bots.strategies``, through
:class:`ligretto.client.MirrorObservation`: a card that fits a pile, row, then stack, then
discard; else turn the hand; vote once stuck; or another: ``ClientSettings.strategy``),
waits a human reaction time for that kind of move, sends the action and waits for its
ack and, if applied, its events before choosing again: one action in flight per client,
as a person sees their card land before reaching for the next.  Every client counts what
it measures into the run's shared :class:`Figures`
(one event loop, so no locks).  ``fairclient.FairClient`` is this client with the
protocol's fair-judging half (stamped acts, pings with ``echo``/``held``).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from dataclasses import dataclass
from typing import Any

import msgspec
from websockets.exceptions import ConnectionClosed

from ligretto.bots.reaction import LEVELS, MOVE_OF, DelaySampler, Move
from ligretto.bots.strategies import STRATEGIES, GreedyStrategy, Strategy
from ligretto.client.mirror import Mirror
from ligretto.client.observation import MirrorObservation, action_message
from ligretto.client.session import ActId, Answer, Session
from ligretto.engine.rules import RuleSet
from ligretto.harness.figures import Figures
from ligretto.harness.wire import Text, Wire
from ligretto.protocol import (
    KEEPALIVE_S,
    Ack,
    Error,
    Events,
    Go,
    RoundOver,
    ServerMessage,
    Snapshot,
    TableState,
    Welcome,
)

MIN_DELAY_S = 0.06
"""No client sends faster than this (the server's rate limit is 20 messages a second)."""
RECENT = 8
"""Applied actions per seat whose send times are kept for the fan-out measure."""
BENIGN = frozenset(("not_playing", "countdown"))
"""Errors answering an act that only mean the round ended while it was on its way."""
ENDED = "round_over"
"""The refusal of an act held for rivals (fair judging) while the round ended: late too."""

_encode = msgspec.json.Encoder().encode


def choose(strategy: Strategy, mirror: Mirror, seat: int, rules: RuleSet) -> tuple[Move, dict[str, Any]] | None:
    """The strategy's next action on the round as ``seat``'s client sees it, as the ``act``
    message's action, with the kind of move it is (for the reaction time); ``None``: wait
    and look again."""
    action = strategy.choose(MirrorObservation(mirror, seat, rules))
    if action is None:
        return None
    return MOVE_OF[type(action)], action_message(action, mirror)


@dataclass(slots=True)
class ClientSettings:
    """How the clients behave."""

    ws_url: str
    level: str = "casual"
    strategy: str = "greedy"
    """The bots' strategy (``bots.strategies``) the clients play."""
    speed: float = 1.0
    """Reaction times are divided by this (tests use > 1 to get through rounds quickly)."""
    timeout: float = 10.0
    """Seconds to wait for a connection, a welcome, an ack or an action's events."""
    compression: bool = True
    """Offer permessage-deflate, as browsers do."""
    connect_concurrency: int = 64
    connect_rate: float = 200.0
    """New connections per second at most (staggered, so the server's backlog never fills)."""
    seed: int = 0


class Pacer:
    """Staggers connection attempts: ``rate`` a second, ``concurrency`` handshakes at once."""

    def __init__(self, rate: float, concurrency: int) -> None:
        self.interval = 1.0 / rate
        self.next = 0.0
        self.slots = asyncio.Semaphore(concurrency)

    async def turn(self) -> None:
        now = time.monotonic()
        at = max(now, self.next)
        self.next = at + self.interval
        if at > now:
            await asyncio.sleep(at - now)


# --- a client ----------------------------------------------------------------------------


class TableRun:
    """One table of the test: its clients, and when each seat sent its recent actions.

    A seat has one action in flight at a time.  Its ``events`` message carries the
    action's ``seq``, which the sender learns from its own copy; another client may get
    its copy first, and then the action in flight is the one.
    """

    def __init__(self, code: str) -> None:
        self.code = code
        self.clients: list[Client] = []
        self.host_seat: int | None = None
        self.in_flight: dict[int, float] = {}
        """Seat -> send time of its action whose events have not come back to it yet."""
        self.recent: dict[int, dict[tuple[int, int], float]] = {}
        """Seat -> (round, seq) -> send time, for its last few applied actions."""

    def sent_at(self, seat: int, key: tuple[int, int]) -> float | None:
        recent = self.recent.get(seat)
        if recent is not None and key in recent:
            return recent[key]
        return self.in_flight.get(seat)

    def came_back(self, seat: int, key: tuple[int, int], sent: float) -> None:
        """The sender got the events of its action: now its ``seq`` is known."""
        recent = self.recent.setdefault(seat, {})
        recent[key] = sent
        if len(recent) > RECENT:
            del recent[next(iter(recent))]
        self.in_flight.pop(seat, None)


class Client:
    """One player: a WebSocket (a :class:`~ligretto.harness.wire.Wire`, whose messages this
    client reads as they arrive), its session at the table, and a player task."""

    def __init__(self, table: TableRun, index: int, settings: ClientSettings, figures: Figures) -> None:
        self.table = table
        self.name = f"load {table.code[:4]} {index}"
        self.settings = settings
        self.figures = figures
        level = LEVELS[settings.level]
        self.delays = DelaySampler(level, random.Random(f"{settings.seed}:{table.code}:{index}"))
        self.ws: Wire | None = None
        self.session = Session(table.code, name=self.name)
        self.strategy: Strategy = GreedyStrategy(random.Random(0))
        self.playing = asyncio.Event()
        self.joined: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self.stopping = False
        self.in_flight = False
        self.act_id: ActId | None = None
        """The id of the act in flight (or the last one sent)."""
        self.act_sent = 0.0
        self.ack: asyncio.Future[Answer] | None = None
        self.ack_arrived = 0.0
        """When the ack of the act in flight was read off the socket (its latency ends there,
        not when the playing task wakes up to it: a loaded client's loop takes one or two
        turns more for that)."""
        self.own_events: asyncio.Future[None] | None = None
        self.player: asyncio.Task[None] | None = None
        self.pinger: asyncio.Task[None] | None = None
        self.last_sent = 0.0

    # --- connecting

    async def open(self, pacer: Pacer) -> bool:
        """Connect and join the table; failures are counted, never raised."""
        settings = self.settings
        async with pacer.slots:
            await pacer.turn()
            try:
                self.ws = await Wire.open(
                    settings.ws_url,
                    self._text,
                    self._closed,
                    timeout=settings.timeout,
                    compression=settings.compression,
                    max_size=1 << 20,
                )
            except Exception as error:
                self.figures.connect_error(error)
                return False
        self.figures.connections_opened += 1
        self.pinger = asyncio.create_task(self._keep_alive())
        try:
            await self.send(self.session.connect())
            return await asyncio.wait_for(asyncio.shield(self.joined), settings.timeout)
        except (TimeoutError, ConnectionClosed) as error:
            self.figures.error("join", f"{type(error).__name__} {error}")
            return False

    async def send(self, message: dict[str, Any]) -> None:
        assert self.ws is not None
        self.last_sent = time.monotonic()
        self.ws.send(_encode(message))

    async def _keep_alive(self) -> None:
        """A ping whenever this client sent nothing for ``KEEPALIVE_S``."""
        with contextlib.suppress(ConnectionClosed):
            while not self.stopping:
                wait = self.last_sent + KEEPALIVE_S - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
                else:
                    await self.send({"type": "ping", "t": 0.0})

    # --- receiving

    def _text(self, raw: Text) -> None:
        """A message off the socket, read as it arrives."""
        arrived = time.perf_counter()
        try:
            self._receive(self.session.receive(raw), arrived)
        except Exception as error:  # a bug of ours must not stop the other clients: this one stops
            self.figures.error("client", f"{self.name}: {type(error).__name__}: {error}")
            self.stopping = True
            self._stopped()
            if self.ws is not None:
                self.ws.abort()

    def _closed(self, closed: ConnectionClosed) -> None:
        if not self.stopping:
            self.figures.error("unexpected_close", f"{self.name}: {closed}")
        self._stopped()

    def _stopped(self) -> None:
        """Nothing more comes: whoever waits for this client's messages stops waiting."""
        if not self.joined.done():
            self.joined.set_result(False)
        self.playing.clear()
        for future in (self.ack, self.own_events):
            if future is not None and not future.done():
                future.cancel()

    def _receive(self, message: ServerMessage, now: float) -> None:
        """What this player does about a message its session has just applied."""
        self.figures.messages_received += 1
        if isinstance(message, Events):
            self._events(message, now)
        elif isinstance(message, Ack | Error):
            self._answered(message, now)
        elif isinstance(message, Snapshot):
            # One strategy instance plays one seat for one round (bots/strategies.py).
            strategy = STRATEGIES[self.settings.strategy]
            self.strategy = strategy(random.Random(f"{self.settings.seed}:{self.name}:{self.session.round}"))
        elif isinstance(message, Go):
            self.playing.set()
        elif isinstance(message, RoundOver):
            self.playing.clear()
            if self.session.seat == self.table.host_seat:
                self.figures.rounds_completed += 1
            if not message.match_over:
                asyncio.create_task(self._ready())  # noqa: RUF006 (short-lived, errors handled inside)
        elif isinstance(message, TableState):
            self.table.host_seat = message.host
        elif isinstance(message, Welcome) and not self.joined.done():
            self.joined.set_result(True)

    def _events(self, message: Events, now: float) -> None:
        key, by = (message.round, message.seq), message.by
        if by == self.session.seat:
            self.table.came_back(by, key, self.act_sent)
            if self.own_events is not None and not self.own_events.done():
                self.own_events.set_result(None)
            return
        sent = self.table.sent_at(by, key)
        if sent is None:
            self.figures.unmatched_events += 1
        else:
            self.figures.fanout_sent.append(sent)
            self.figures.fanout_latency.append(now - sent)

    def _answered(self, message: Ack | Error, now: float) -> None:
        """The act in flight answered at ``now`` (its ack, or an error with its id); any other
        error counted."""
        answer = self.session.answered
        if answer is not None and answer.ident == self.act_id and self.ack is not None and not self.ack.done():
            self.ack_arrived = now
            self.ack.set_result(answer)
            return
        if isinstance(message, Error):
            if not self.joined.done():
                self.joined.set_result(False)
            self.figures.error(f"server:{message.code}", f"{self.name}: {message.message}")

    async def _ready(self) -> None:
        with contextlib.suppress(ConnectionClosed):
            await self.send({"type": "ready"})

    # --- playing

    def start_playing(self) -> None:
        self.player = asyncio.create_task(self._play())

    async def _play(self) -> None:
        speed = self.settings.speed
        delay = self.delays.delay
        while not self.stopping:
            await self.playing.wait()
            if self.session.mirror is None:
                await asyncio.sleep(0.05)
                continue
            round_number = self.session.round
            choice = self._choose()
            if choice is None:
                await asyncio.sleep(max(delay(Move.LOOK) / speed, MIN_DELAY_S))
                continue
            move, action = choice
            # the reaction time for what the seat sees, as a bot's (docs/bots.md)
            seen = MirrorObservation(self.session.mirror, self.session.seat or 0, self.session.rules)
            await asyncio.sleep(max(delay(move, seen.play_options(), seen.piles) / speed, MIN_DELAY_S))
            if self.stopping or not self.playing.is_set() or self.session.round != round_number:
                continue
            try:
                await self._act(action)
            except ConnectionClosed:
                return

    def _choose(self) -> tuple[Move, dict[str, Any]] | None:
        session = self.session
        if session.mirror is None or session.seat is None:
            return None
        return choose(self.strategy, session.mirror, session.seat, session.rules)

    async def _act(self, action: dict[str, Any]) -> None:
        """Send one action and wait for its ack (and, if applied, its events)."""
        figures, timeout = self.figures, self.settings.timeout
        loop = asyncio.get_running_loop()
        self.in_flight = True
        try:
            self.ack = loop.create_future()
            self.own_events = loop.create_future()
            self.act_sent = sent = time.perf_counter()
            figures.sent.append(sent)
            if self.session.seat is not None:
                self.table.in_flight[self.session.seat] = sent
            message = self.act_message(action)
            self.act_id = message["id"]
            await self.send(message)
            try:
                answer = await asyncio.wait_for(self.ack, timeout)
            except TimeoutError:
                figures.error("ack_timeout", f"{self.name}: {action['kind']}")
                return
            except asyncio.CancelledError:
                if self.stopping:
                    raise
                return  # the connection closed: counted by the reader
            reply = answer.reply
            if not answer.applied and self.session.seat is not None:
                self.table.in_flight.pop(self.session.seat, None)  # no events will come
            if isinstance(reply, Error):
                if reply.code in BENIGN:
                    figures.late += 1
                else:
                    figures.error(f"server:{reply.code}", f"{self.name}: {reply.message}")
                return
            if answer.reason == ENDED:
                figures.late += 1
                return
            figures.ack_sent.append(sent)
            figures.ack_latency.append(self.ack_arrived - sent)
            if answer.reason is not None:
                figures.refusals[answer.reason] = figures.refusals.get(answer.reason, 0) + 1
                return
            try:
                await asyncio.wait_for(self.own_events, timeout)
            except TimeoutError:
                figures.error("events_timeout", f"{self.name}: {action['kind']}")
        finally:
            self.in_flight = False

    def act_message(self, action: dict[str, Any]) -> dict[str, Any]:
        """The ``act`` that sends ``action``, in flight in the session from now on
        (``fairclient.FairClient`` stamps it)."""
        return self.session.act(action)

    async def close(self) -> None:
        self.stopping = True
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()
        for task in (self.player, self.pinger):
            if task is not None and not task.done():
                task.cancel()
