"""The clients of the scenarios that take servers away (``harness/kills.py``, and the
service's: ``harness/service.py``): a seated person (or a spectator) on a real WebSocket
who comes back with the seat token whenever the connection drops, retrying while the server
is down, and carries on from the fresh snapshot.  Given several processes of a service,
each connection goes to the next of them, as a load balancer without stickiness sends a
client's new connections (one that is down: the next, after a pause); a ``hello`` closed
1013 (try again) or a connection closed 1012 (the table moved) is tried again so too.

A :class:`Rejoiner` is the Python clients' one session (:class:`ligretto.client.Session`,
strict: every event is checked against the round's view; its hello comes back with the
token after a drop) and plays with the greedy bot's own
strategy through ``MirrorObservation`` (``harness/client.py``'s :func:`choose`), at a
brisk pace well under the rate limit, one action in flight.  It notes every action the
server acknowledged as applied (:class:`~ligretto.harness.acks.Acked`, with the ``seq``
and pile its ``events`` named) until the next snapshot after a reconnection, when its
:class:`Watcher` checks them.  Between rounds it says ``ready`` after a short pause (so
the score sheet is shown a while), once the match is over its host starts a rematch.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Sequence
from typing import Any

import msgspec
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from ligretto.bots.strategies import GreedyStrategy
from ligretto.client.session import ActId, Answer, Session
from ligretto.harness.acks import Acked
from ligretto.harness.client import choose
from ligretto.protocol import (
    Ack,
    CardPlayedMsg,
    Error,
    Events,
    Go,
    Phase,
    RoundOver,
    ServerMessage,
    Snapshot,
    TableState,
    Welcome,
)

PACE_S = (0.1, 0.25)
"""Seconds between two of a player's actions (at most 10 a second: the rate limit is 20)."""
READY_S = (0.4, 1.2)
"""Seconds a player looks at the score sheet before ``ready``."""
RETRY_S = (0.05, 0.5)
"""Seconds between two attempts to connect while the server is down (drawn, as a
browser's back-off spreads its people's returns)."""
KEEPALIVE_S = 1.5
ACK_TIMEOUT_S = 5.0

_encode = msgspec.json.Encoder().encode


class Watcher(ABC):
    """What the scenario is told by its clients."""

    @abstractmethod
    def received(self, client: Rejoiner, text: str) -> None:
        """Every frame a client received."""

    @abstractmethod
    def acked(self, client: Rejoiner, acked: Acked) -> None:
        """The server acknowledged an action of ``client`` as applied."""

    @abstractmethod
    def accepted(self, client: Rejoiner) -> None:
        """The table answered an action with an ``ack`` (applied or refused)."""

    @abstractmethod
    def restored(self, client: Rejoiner, snapshot: dict[str, Any], pending: list[Acked]) -> None:
        """The first snapshot after a reconnection, with the acknowledged actions noted
        since the last one (to be checked against it)."""

    def dropped(self, client: Rejoiner) -> None:  # noqa: B027  (nothing to do unless told)
        """``client``'s connection ended (it comes back)."""


class Rejoiner:
    """One person at a table (``watch``: a spectator), back with its token after every drop."""

    def __init__(
        self,
        code: str,
        name: str,
        ws_urls: Sequence[str],
        watcher: Watcher,
        rng: random.Random,
        *,
        watch: bool = False,
    ) -> None:
        self.code, self.name, self.watcher, self.rng, self.watch = code, name, watcher, rng, watch
        self.ws_urls = list(ws_urls)
        """Where a connection may go (a service's processes: each connection the next)."""
        self.entrance = rng.randrange(len(self.ws_urls)) if len(self.ws_urls) > 1 else 0
        self.session = Session(code, name=name, watch=watch, strict=True)
        self.first_seat: int | None = None
        self.ws: ClientConnection | None = None
        self.connected_at = 0.0
        """When the current connection was opened (``time.monotonic``)."""
        self.failed: list[str] = []
        """Reconnections refused by the server (the reason), or given up."""
        self.pending: list[Acked] = []
        self.awaiting: Acked | None = None
        """The last acknowledged action whose ``events`` have not come yet."""
        self.vote_now = False
        """Vote to end the round (the scenario wants a score sheet), play no card."""
        self.playing = asyncio.Event()
        self.welcomed: asyncio.Future[bool | None] | None = None
        """Answered by ``welcome`` (True), a refusal (False) or the connection's end (None)."""
        self.ack: asyncio.Future[Answer | None] | None = None
        """Answered by the act's answer, or ``None``: the connection dropped first."""
        self.act_id: ActId | None = None
        self.sent_at = 0.0
        """When the action in flight was sent (``time.monotonic``)."""
        self.closes: Counter[int] = Counter()
        """How the connections ended, by close code (1006: dropped without a close frame)."""
        self.errors: list[str] = []
        """What went wrong in this client itself (reading a message)."""
        self.fresh = False
        self.stopping = False
        self.ready_for: tuple[int, int, int] | None = None
        self.strategy = GreedyStrategy(random.Random(0))
        self.tasks: list[asyncio.Task[None]] = []
        self._reader: asyncio.Task[None] | None = None
        self._pinger: asyncio.Task[None] | None = None

    # --- the session's state -----------------------------------------------------------

    @property
    def phase(self) -> Phase:
        """The table's phase as this client last heard it (the lobby before it did)."""
        return self.session.phase or Phase.LOBBY

    @property
    def problems(self) -> int:
        """Events that did not fit the view they were applied to (the strict session's problems)."""
        return len(self.session.problems)

    # --- connecting --------------------------------------------------------------------

    async def join(self, deadline_s: float) -> bool:
        """The first connection (a name, or ``watch``); then the client lives on its own."""
        ok = await self._connect(deadline_s)
        if ok:
            self.first_seat = self.session.seat
            self.tasks.append(asyncio.create_task(self._live(deadline_s)))
            if not self.watch:
                self.tasks.append(asyncio.create_task(self._play()))
        return ok

    async def _connect(self, deadline_s: float) -> bool:
        """Connect (retrying until ``deadline_s`` while the server is down) and say hello."""
        give_up = time.monotonic() + deadline_s
        while not self.stopping:
            try:
                ws = await connect(self._next_url(), compression=None, ping_interval=None, max_size=1 << 20, proxy=None)
            except Exception as error:  # refused while the server is down, a 5xx while it starts, ...
                if time.monotonic() > give_up:
                    self.failed.append(f"connect: {type(error).__name__}")
                    return False
                await asyncio.sleep(self.rng.uniform(*RETRY_S))
                continue
            self.ws, self.connected_at, self.fresh = ws, time.monotonic(), True
            self.welcomed = asyncio.get_running_loop().create_future()
            reader = asyncio.create_task(self._read(ws))
            pinger = asyncio.create_task(self._keep_alive(ws))
            try:
                await ws.send(_encode(self.session.connect()).decode())
                ok = await asyncio.wait_for(asyncio.shield(self.welcomed), ACK_TIMEOUT_S)
            except (ConnectionClosed, TimeoutError):
                ok = None  # the server went down again: try again
            if ok:
                self._reader, self._pinger = reader, pinger
                return True
            reader.cancel()
            pinger.cancel()
            with contextlib.suppress(Exception):
                await ws.close()
            if ok is False:
                return False  # refused: counted in ``failed``
            if time.monotonic() > give_up:
                self.failed.append("no welcome")
                return False
            await asyncio.sleep(self.rng.uniform(*RETRY_S))
        return False

    def _next_url(self) -> str:
        """The entrance of the next connection (the processes in turn)."""
        self.entrance = (self.entrance + 1) % len(self.ws_urls)
        return self.ws_urls[self.entrance]

    async def _live(self, deadline_s: float) -> None:
        """Read until the connection drops, then come back; for as long as the scenario runs."""
        while not self.stopping:
            if self._reader is not None:
                await self._reader
            if self._pinger is not None:
                self._pinger.cancel()
            self.playing.clear()
            if not self.stopping:
                self.watcher.dropped(self)
            if self.stopping or not await self._connect(deadline_s):
                return

    async def _keep_alive(self, ws: ClientConnection) -> None:
        with contextlib.suppress(ConnectionClosed):
            while True:
                await asyncio.sleep(KEEPALIVE_S)
                await ws.send('{"type": "ping", "t": 0}')

    async def drop(self) -> None:
        """Close the connection from this side: the client comes back at once, through the
        next process (a network that dropped it)."""
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()

    async def send(self, message: dict[str, Any]) -> None:
        if self.ws is not None:
            with contextlib.suppress(ConnectionClosed):
                await self.ws.send(_encode(message).decode())

    # --- receiving ---------------------------------------------------------------------

    async def _read(self, ws: ClientConnection) -> None:
        try:
            async for raw in ws:
                text = raw if isinstance(raw, str) else raw.decode()
                try:
                    self._receive(self.session.receive(text))
                finally:  # after a ``welcome``: the seat it was sent to
                    self.watcher.received(self, text)
        except ConnectionClosed:
            pass
        except Exception as error:  # a bug of the harness: noted, and the client comes back
            self.errors.append(f"{type(error).__name__}: {error}")
        finally:
            if not self.stopping:
                self.closes[ws.close_code or 1006] += 1
            if self.welcomed is not None and not self.welcomed.done():
                self.welcomed.set_result(None)  # gone before the welcome
            if self.ack is not None and not self.ack.done():
                self.ack.set_result(None)
            self.awaiting = None

    def _receive(self, message: ServerMessage) -> None:
        """What this client does about a message its session has just applied."""
        if isinstance(message, Welcome):
            # Answered here, not once the hello's caller resumes: the ``table`` and
            # ``snapshot`` that follow may be read first.
            if self.welcomed is not None and not self.welcomed.done():
                self.welcomed.set_result(True)
        elif isinstance(message, Error):
            self._error(message)
        elif isinstance(message, Snapshot):
            self._snapshot(message)
        elif isinstance(message, TableState):
            self._table(message)
        elif isinstance(message, Go):
            self.playing.set()
        elif isinstance(message, Events):
            self._events(message)
        elif isinstance(message, Ack):
            self._ack()
        elif isinstance(message, RoundOver):
            self.vote_now = False
            self.playing.clear()

    def _error(self, message: Error) -> None:
        answer = self.session.answered
        if answer is not None and answer.ident == self.act_id:
            if self.ack is not None and not self.ack.done():
                self.ack.set_result(answer)
        elif self.session.refused is message and self.welcomed is not None and not self.welcomed.done():
            self.failed.append(f"hello: {message.code} ({self.ws_urls[self.entrance]}, {time.time():.3f})")
            self.welcomed.set_result(False)

    def _snapshot(self, message: Snapshot) -> None:
        if self.session.seat is not None:
            self.strategy = GreedyStrategy(random.Random(f"{self.name}:{self.session.match}:{self.session.round}"))
        if self.fresh and self.session.joins > 1:  # a reconnection
            pending, self.pending = self.pending, []
            self.watcher.restored(self, msgspec.to_builtins(message), pending)
        self.fresh = False

    def _table(self, message: TableState) -> None:
        self.fresh = self.fresh and message.round > 0  # no round dealt: no snapshot comes
        if self.phase is Phase.PLAYING:
            self.playing.set()
        else:
            self.playing.clear()
        if self.watch or self.session.seat is None:
            return
        seat = message.seats[self.session.seat]
        ready_for = (self.session.joins, self.session.match, message.round)
        if self.phase is Phase.SCORING and seat is not None and not seat.ready and self.ready_for != ready_for:
            self.ready_for = ready_for
            self._later(self.rng.uniform(*READY_S), {"type": "ready"})
        elif self.phase is Phase.OVER and self.session.host == self.session.seat:
            self._later(self.rng.uniform(*READY_S), {"type": "start"})

    def _later(self, seconds: float, message: dict[str, Any]) -> None:
        async def send() -> None:
            await asyncio.sleep(seconds)
            await self.send(message)

        self.tasks.append(asyncio.create_task(send()))

    def _events(self, message: Events) -> None:
        awaiting = self.awaiting
        if awaiting is not None and message.by == self.session.seat and message.round == awaiting.round:
            awaiting.seq = message.seq
            played = [e for e in message.events if isinstance(e, CardPlayedMsg)]
            if played:
                awaiting.pile = played[0].pile
            self.awaiting = None

    def _ack(self) -> None:
        answer = self.session.answered
        if answer is None or answer.ident != self.act_id:
            return
        self.watcher.accepted(self)
        if answer.applied and self.session.seat is not None:
            acked = Acked(self.session.match, self.session.round, self.session.seat, answer.action, self.session.seq)
            self.pending.append(acked)
            self.awaiting = acked
            self.watcher.acked(self, acked)
        if self.ack is not None and not self.ack.done():
            self.ack.set_result(answer)

    # --- playing -----------------------------------------------------------------------

    async def _play(self) -> None:
        while not self.stopping:
            await self.playing.wait()
            round_number = self.session.round
            action = self._choose()
            await asyncio.sleep(self.rng.uniform(*PACE_S))
            if action is None or not self.playing.is_set() or self.session.round != round_number:
                continue
            await self._act(action)

    def _choose(self) -> dict[str, Any] | None:
        mirror, seat = self.session.mirror, self.session.seat
        if mirror is None or seat is None or mirror.ending is not None:
            return None
        if self.vote_now:
            return None if mirror.areas[seat].voted else {"kind": "vote"}
        choice = choose(self.strategy, mirror, seat, self.session.rules)
        return None if choice is None else choice[1]

    async def _act(self, action: dict[str, Any]) -> None:
        """One action, and its ack (or nothing: the connection dropped, the action may or
        may not have been applied, and the next snapshot says which)."""
        act = self.session.act(action)
        self.act_id = act["id"]
        self.ack = asyncio.get_running_loop().create_future()
        self.sent_at = time.monotonic()
        await self.send(act)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(self.ack), ACK_TIMEOUT_S)

    @property
    def back(self) -> bool:
        """Connected, at the seat it first took."""
        return self.ws is not None and self.ws.state.name == "OPEN" and self.session.seat == self.first_seat

    @property
    def state(self) -> dict[str, Any]:
        """What this client knows of its table (for a report on a table that is stuck)."""
        mirror, seat = self.session.mirror, self.session.seat
        return {
            "seat": seat,
            "back": self.back,
            "phase": self.phase,
            "round": self.session.round,
            "ending": None if mirror is None else mirror.ending,
            "voted": None if mirror is None or seat is None else mirror.areas[seat].voted,
            "vote_now": self.vote_now,
        }

    async def close(self) -> None:
        self.stopping = True
        for task in self.tasks:
            task.cancel()
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()
