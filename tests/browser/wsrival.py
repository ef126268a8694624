"""A rival for the browser tests: a seated player over a real WebSocket (the ``websockets``
library's threaded client), so a test can make a real race against a page.

It keeps every message it received and a mirror of its round (the client model), pings
every second with ``echo``/``held`` as the protocol asks (so the server measures its delay
as it does a page's), and stamps its plays with the server's clock: the test runs on the
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

from ligretto.client.mirror import Mirror, wire_pile

PING_S = 1.0

Message = dict[str, Any]


class Rival:
    """One seated player of a table, by invite code and name."""

    def __init__(self, port: int, code: str, name: str) -> None:
        self.stack = contextlib.ExitStack()
        self.ws = self.stack.enter_context(connect(f"ws://127.0.0.1:{port}/ws", open_timeout=5))
        self.lock = threading.Lock()
        self.messages: list[Message] = []
        self.mirror: Mirror | None = None
        self.round = 0
        self.seat: int | None = None
        self.ids = 0
        self.pong: tuple[float, float] | None = None  # (server_t, when it arrived)
        self.closed = False
        self.reader = threading.Thread(target=self._read, name=f"rival-{name}", daemon=True)
        self.reader.start()
        self.send({"type": "hello", "v": 1, "code": code, "name": name})
        welcome = self.wait(lambda m: m["type"] == "welcome")
        self.seat = int(welcome["seat"])

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
                    self._ping()
                    next_ping = time.monotonic() + PING_S
                try:
                    raw = self.ws.recv(timeout=0.2)
                except TimeoutError:
                    continue
                self._track(json.loads(raw))
        except ConnectionClosed:
            return

    def _ping(self) -> None:
        ping: Message = {"type": "ping", "t": time.time()}
        if self.pong is not None:
            ping |= {"echo": self.pong[0], "held": time.monotonic() - self.pong[1]}
        self.send(ping)

    def _track(self, message: Message) -> None:
        with self.lock:
            kind = message["type"]
            if kind == "pong":
                self.pong = (message["server_t"], time.monotonic())
                return
            self.messages.append(message)
            if kind == "snapshot":
                self.mirror = Mirror.from_view(message["view"])
                self.round = message["round"]
            elif kind == "events" and self.mirror is not None and message["round"] == self.round:
                self.mirror.apply(message["events"])

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
            assert self.mirror is not None
            return [(p.index, p.colour, p.top) for p in self.mirror.center]

    def fitting(self) -> list[tuple[str, int, str, int | None]]:
        """(source, position, card, pile) of every card it could play now (``None``: a new pile)."""
        with self.lock:
            assert self.mirror is not None and self.seat is not None
            mirror = self.mirror
            return [
                (source, position, card, wire_pile(pile))
                for source, position, card in mirror.areas[self.seat].playable()
                for pile in mirror.piles_for(card)
            ]

    def act(self, action: Message) -> Message:
        """Send an action stamped with the server's clock; its ack."""
        self.ids += 1
        ident = self.ids
        with self.lock:
            start = len(self.messages)
        self.send({"type": "act", "id": ident, "action": action, "t": time.time()})
        return self.wait(lambda m: m["type"] in ("ack", "error") and m.get("id") == ident, after=start)
