"""One table of the malformed-message scenario (``harness/stress.py``): the attacker,
seated host at seat 0, and a second person at seat 1 who only keeps their connection
alive, the table held in one phase (``kinds.PHASES``) while the attacker sends it
malformed messages (``harness/kinds.py``).

Messages go in batches, each followed by a ping: exactly one refusal (an ``error`` or a
refused ``ack``) per message must come before its pong.  A batch answered otherwise is
sent again one message at a time, to name the kinds that were.  Before and after, a
newcomer spectator's ``table`` message and view of the round must be the same (state
changes).  A table in ``countdown`` is attacked only until shortly before its *go*; then
both players vote the round over, get ready, and the next round's countdown is attacked,
each countdown checked on its own.  Frames past the largest the server reads are sent by
the second person at the end (each must close its connection with 1009), who comes back
with their seat token.

Each connection is a client session (:class:`ligretto.client.Session`: its hello, the
seat's token, the table and its phase, the round as a newcomer sees it); the malformed
messages themselves go out as the raw frames they are.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from ligretto.client.session import Session
from ligretto.harness.kinds import FRAME_BYTES, KINDS, Message
from ligretto.harness.probes import drain, http
from ligretto.protocol import Ack, Error, Go, Phase, Pong, ServerMessage, TableState, Welcome

TOO_BIG = 1009
"""The close code of a frame past the largest the server reads."""
ROUNDS = {"over": "rounds:1"}
"""The match of a table held in ``over`` is one round; the others' last for ever."""
MATCH_END = "rounds:1000"


@dataclass(slots=True)
class Tally:
    """What the attackers of one run sent and saw, by phase and kind."""

    tried: dict[str, dict[str, int]] = field(default_factory=dict)
    odd: dict[str, dict[str, int]] = field(default_factory=dict)
    """Messages not answered by exactly one refusal (or, for a closing frame, not closed
    with its code, or its seat not back)."""
    answers: dict[str, int] = field(default_factory=dict)
    """The refusals by code (an ``ack``'s reason)."""
    state_changes: int = 0
    views_compared: int = 0
    countdowns: int = 0
    past_go: int = 0
    """Countdown batches answered after *go* (not judged: the round had started)."""

    def count(self, into: dict[str, dict[str, int]], phase: str, kind: str, n: int = 1) -> None:
        kinds = into.setdefault(phase, {})
        kinds[kind] = kinds.get(kind, 0) + n


async def join(ws_url: str, session: Session) -> ClientConnection:
    """A new connection of ``session`` (a seat by name, or back by its token), welcomed."""
    ws = await connect(ws_url, compression=None, ping_interval=None, max_size=1 << 20, proxy=None)
    await ws.send(json.dumps(session.connect()))
    answer = await until(ws, session, lambda m: isinstance(m, Welcome | Error))
    if isinstance(answer, Error):
        raise RuntimeError(f"could not join {session.code}: {answer.code}")
    return ws


async def until(
    ws: ClientConnection, session: Session, match: Callable[[ServerMessage], bool], timeout: float = 15.0
) -> ServerMessage:
    """The next message ``match`` takes (each one fed to ``session`` on the way)."""
    while True:
        message = session.receive(await asyncio.wait_for(ws.recv(), timeout))
        if match(message):
            return message


def refusal(message: ServerMessage) -> str | None:
    """The code of a refusal (``error``, or an ``ack`` refused: its reason), else ``None``."""
    if isinstance(message, Error):
        return message.code
    if isinstance(message, Ack) and message.applied is False:
        return str(message.reason)
    return None


async def _keep(ws: ClientConnection, session: Session) -> None:
    """A quiet person: reads what comes, pings every second (the silence deadline is 6 s)."""

    async def read() -> None:
        with contextlib.suppress(ConnectionClosed):
            async for raw in ws:
                session.receive(raw)

    reader = asyncio.create_task(read())
    try:
        while not reader.done():
            await ws.send(json.dumps({"type": "ping", "t": -1.0}))
            await asyncio.wait({reader}, timeout=1.0)
    except ConnectionClosed:
        pass
    finally:
        reader.cancel()


class Attacker:
    """One table held in ``phase``, its attacker and its quiet second person."""

    def __init__(self, base: str, ws_url: str, phase: str, rng: random.Random, tally: Tally) -> None:
        self.base, self.ws_url, self.phase, self.rng, self.tally = base, ws_url, phase, rng, tally
        self.code = ""
        self.ws: ClientConnection | None = None
        self.session = Session(name="attacker")
        self.quiet: ClientConnection | None = None
        self.quiet_session = Session(name="quiet")
        self.keeper: asyncio.Task[None] | None = None
        self.start_at = 0.0
        self.window_end = 0.0
        self.go_seen = False
        """The countdown's *go* came (among a batch's answers)."""
        self.barrier = 0
        self.sent = 0
        """Messages sent so far, then frames too big."""

    # --- the table in its phase ------------------------------------------------------

    async def seat(self) -> None:
        """The table made, both seated, the match brought to this attacker's phase."""
        options = {"match_end": ROUNDS.get(self.phase, MATCH_END)}
        reply = await asyncio.to_thread(http, f"{self.base}/api/tables", {"seats": 2, "options": options})
        self.code = self.session.code = self.quiet_session.code = json.loads(reply)["code"]
        self.ws = await join(self.ws_url, self.session)
        self.quiet = await join(self.ws_url, self.quiet_session)
        self.keeper = asyncio.create_task(_keep(self.quiet, self.quiet_session))
        if self.phase != "lobby":
            await self.ws.send(json.dumps({"type": "start"}))
            await self._countdown_begun()
        if self.phase not in ("lobby", "countdown"):
            await until(self.ws, self.session, lambda m: isinstance(m, Go))
        if self.phase in ("scoring", "over"):
            await self._vote_round_over()
        await self._send([])  # what the table sent so far is read: only answers come now

    async def _countdown_begun(self) -> None:
        assert self.ws is not None
        await until(self.ws, self.session, lambda m: isinstance(m, TableState) and m.phase is Phase.COUNTDOWN)
        assert self.session.table is not None and self.session.table.start_at is not None
        now = time.time()
        self.go_seen = False
        self.start_at = self.session.table.start_at
        # Attack until well before go (a batch and a spectator's look must fit before it).
        self.window_end = self.start_at - max(0.15, 0.4 * (self.start_at - now))

    async def _vote_round_over(self) -> None:
        """Both vote: the round is over (a stalemate by vote), the score sheet shown."""
        assert self.ws is not None and self.quiet is not None
        await self.ws.send(json.dumps(self.session.act({"kind": "vote"})))
        await self.quiet.send(json.dumps(self.quiet_session.act({"kind": "vote"})))
        await until(
            self.ws, self.session, lambda m: isinstance(m, TableState) and m.phase in (Phase.SCORING, Phase.OVER)
        )

    async def _next_countdown(self) -> None:
        """From a countdown that ran out: the round played to its end, the next dealt."""
        assert self.ws is not None and self.quiet is not None
        if not self.go_seen:  # (a batch past the window may have read it)
            await until(self.ws, self.session, lambda m: isinstance(m, Go))
        await self._vote_round_over()
        await self.ws.send(json.dumps({"type": "ready"}))
        await self.quiet.send(json.dumps({"type": "ready"}))
        await self._countdown_begun()
        await self._send([])
        self.tally.countdowns += 1

    async def view(self) -> tuple[TableState | None, dict[str, Any] | None]:
        """The table and its round as a newcomer spectator sees them."""
        newcomer = Session(self.code, watch=True)
        ws = await connect(self.ws_url, compression=None, ping_interval=None, max_size=1 << 20, proxy=None)
        try:
            await ws.send(json.dumps(newcomer.connect()))
            await ws.send(json.dumps({"type": "ping", "t": 0.0}))
            await until(ws, newcomer, lambda m: isinstance(m, Pong))
            return newcomer.table, None if newcomer.mirror is None else newcomer.mirror.to_dict()
        finally:
            await ws.close()

    # --- the attack ------------------------------------------------------------------

    async def attack(self, count: int, batch: int, rate: float, closes: int) -> None:
        """``count`` messages in batches of ``batch`` (``rate`` a second at most, 0: no
        pause), then ``closes`` frames too big; the views before and after compared."""
        before = await self.view()
        kinds = list(KINDS)
        while self.sent < count + closes:
            if self.phase == "countdown" and time.time() >= self.window_end:
                await self._compare(before)
                await self._next_countdown()
                before = await self.view()
                continue
            if self.sent >= count:
                self.sent += 1
                await self.frame_too_big()
                continue
            start = time.monotonic()
            n = min(batch, count - self.sent)
            chosen = [kinds[(self.sent + i) % len(kinds)] for i in range(n)]
            self.sent += n
            await self._batch([(kind, KINDS[kind](self.rng, self.phase)) for kind in chosen])
            if rate > 0:
                await asyncio.sleep(max(0.0, (n + 1) / rate - (time.monotonic() - start)))
        await self._compare(before)

    async def _compare(self, before: tuple[TableState | None, dict[str, Any] | None]) -> None:
        after = await self.view()
        if self.phase == "countdown" and (after[0] is None or after[0].phase is not Phase.COUNTDOWN):
            return  # go came first: the round started, nothing to compare
        self.tally.views_compared += 1
        self.tally.state_changes += before != after

    async def _batch(self, messages: list[tuple[str, Message]]) -> None:
        """Send ``messages`` and a ping; exactly one refusal each must come before its pong."""
        answers, others, go = await self._send(m for _, m in messages)
        tally = self.tally
        for kind, _ in messages:
            tally.count(tally.tried, self.phase, kind)
        if go:
            tally.past_go += 1
            return
        for code in answers:
            tally.answers[code] = tally.answers.get(code, 0) + 1
        if len(answers) == len(messages) and not others:
            return
        # Which kinds were answered otherwise: each message again, on its own.
        for kind, message in messages:
            answers, others, go = await self._send([message])
            if (len(answers) != 1 or others) and not go:
                tally.count(tally.odd, self.phase, kind)

    async def _send(self, messages: Any) -> tuple[list[str], int, bool]:
        """Send, then a ping: the refusals' codes, the other answers, whether *go* came."""
        ws = self.ws
        assert ws is not None
        for message in messages:
            await ws.send(message)
        self.barrier -= 1
        await ws.send(json.dumps({"type": "ping", "t": float(self.barrier)}))
        answers: list[str] = []
        others, go = 0, False
        while True:
            message = self.session.receive(await asyncio.wait_for(ws.recv(), 30.0))
            if isinstance(message, Pong) and message.t == self.barrier:
                return answers, others, go
            if isinstance(message, Go):
                go = self.go_seen = True
            elif (code := refusal(message)) is not None:
                answers.append(code)
            else:
                others += 1

    async def frame_too_big(self) -> None:
        """The second person sends a frame past the largest the server reads: their
        connection must close with 1009, and their seat token bring them back."""
        assert self.quiet is not None and self.keeper is not None
        tally = self.tally
        tally.count(tally.tried, self.phase, "frame_too_big")
        self.keeper.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.keeper
        quiet = self.quiet
        with contextlib.suppress(ConnectionClosed):
            await quiet.send("[" + " " * FRAME_BYTES + "]")
            await asyncio.wait_for(drain(quiet), 15.0)
        await quiet.close()
        code = quiet.close_code
        try:  # back with the seat's token
            self.quiet = await join(self.ws_url, self.quiet_session)
            await until(self.quiet, self.quiet_session, lambda m: isinstance(m, TableState))
        except (RuntimeError, OSError, ConnectionClosed, TimeoutError):
            code = None
        if code != TOO_BIG:
            tally.count(tally.odd, self.phase, "frame_too_big")
        self.keeper = asyncio.create_task(_keep(self.quiet, self.quiet_session))

    async def invalid_utf8(self) -> int | None:
        """A text frame that is not UTF-8, on a fresh connection: the close code."""
        try:
            ws = await connect(self.ws_url, compression=None, ping_interval=None, proxy=None)
        except OSError:
            return None
        await ws.send(b'{"type": "ping", "t": 1, "x": "\xff\xfe"}', text=True)
        with contextlib.suppress(ConnectionClosed, TimeoutError):
            while True:
                await asyncio.wait_for(ws.recv(), 5.0)
        await ws.close()
        return ws.close_code

    async def close(self) -> None:
        if self.keeper is not None:
            self.keeper.cancel()
        for ws in (self.ws, self.quiet):
            if ws is not None:
                await ws.close()
