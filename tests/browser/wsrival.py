"""A rival for the browser tests: a seated player over a real WebSocket (the ``websockets``
library's threaded client), so a test can make a real race against a page.

What it knows of its table is its client session's (:class:`ligretto.client.Session`:
the seat, the round's mirror, its acts in flight), fed every message it receives; it also
keeps every message (but pongs) for the test to wait on.  It pings every second with
``echo``/``held`` as the protocol asks (the Python clients' one clock sync,
:class:`~ligretto.client.clocksync.ClockSync`), so the server measures its delay as it
does a page's, and stamps its plays with the server's clock: the test runs on the
server's machine, so its clock is the server's.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable
from typing import Any

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from ligretto import protocol
from ligretto.client.clocksync import PING_S, ClockSync
from ligretto.client.mirror import wire_pile
from ligretto.client.session import Session

Message = dict[str, Any]


class Rival:
    """One seated player of a table, by invite code and name."""

    def __init__(self, port: int, code: str, name: str) -> None:
        self.stack = contextlib.ExitStack()
        self.ws = self.stack.enter_context(connect(f"ws://127.0.0.1:{port}/ws", open_timeout=5))
        self.lock = threading.Lock()
        """Held while the reader feeds the session, and while the test reads it."""
        self.messages: list[Message] = []
        self.session = Session(code, name=name)
        self.clock = ClockSync()
        self.closed = False
        self.reader = threading.Thread(target=self._read, name=f"rival-{name}", daemon=True)
        self.reader.start()
        with self.lock:
            hello = self.session.connect()
        self.send(hello)
        self.wait(lambda m: m["type"] == "welcome")

    @property
    def seat(self) -> int:
        with self.lock:
            assert self.session.seat is not None
            return self.session.seat

    def send(self, message: Message) -> None:
        self.ws.send(json.dumps(message))

    def close(self) -> None:
        self.closed = True
        self.stack.close()
        self.reader.join(timeout=5)

    # --- receiving ------------------------------------------------------------------

    def _read(self) -> None:
        next_ping = time.monotonic()
        try:
            while not self.closed:
                if time.monotonic() >= next_ping:
                    self.send(self.clock.ping(time.time()))
                    next_ping = time.monotonic() + PING_S
                try:
                    raw = self.ws.recv(timeout=0.2)
                except TimeoutError:
                    continue
                self._track(raw)
        except ConnectionClosed:
            return

    def _track(self, raw: str | bytes) -> None:
        with self.lock:
            message = self.session.receive(raw)
            if isinstance(message, protocol.Pong):
                self.clock.ponged(message, time.time())
                return
            self.messages.append(json.loads(raw))

    def wait(self, match: Callable[[Message], bool], timeout_s: float = 8.0, *, after: int = 0) -> Message:
        """The first message (from index ``after`` on) for which ``match`` holds."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            with self.lock:
                for message in self.messages[after:]:
                    if match(message):
                        return message
            time.sleep(0.01)
        raise AssertionError(f"no such message within {timeout_s} s; last: {self.messages[-3:]}")

    # --- playing --------------------------------------------------------------------

    def piles(self) -> list[tuple[int, str, int]]:
        """The center as this rival sees it: (index, colour, top), as the page shows it."""
        with self.lock:
            mirror = self.session.mirror
            assert mirror is not None
            return [(p.index, p.colour, p.top) for p in mirror.center]

    def fitting(self) -> list[tuple[str, int, str, int | None]]:
        """(source, position, card, pile) of every card it could play now (``None``: a new pile)."""
        with self.lock:
            mirror, seat = self.session.mirror, self.session.seat
            assert mirror is not None and seat is not None
            return [
                (source, position, card, wire_pile(pile))
                for source, position, card in mirror.areas[seat].playable()
                for pile in mirror.piles_for(card)
            ]

    def act(self, action: Message) -> Message:
        """Send an action stamped with the server's clock; its ack."""
        with self.lock:
            start = len(self.messages)
            act = self.session.act(action)
        self.send({**act, "t": time.time()})
        ident = act["id"]
        return self.wait(lambda m: m["type"] in ("ack", "error") and m.get("id") == ident, after=start)
