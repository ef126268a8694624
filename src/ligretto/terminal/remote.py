"""Online play: the protocol over a WebSocket, with the seat token kept for coming back.

One task per connection reads messages and hands them to the app (whose model feeds
them to the client's :class:`~ligretto.client.session.Session`); a second sends the
app's messages, paced under the server's rate limit, each stamped as it leaves by the
client's clock sync (``clocksync.ClockSync``: an ``act``'s ``t``, a ``ping``'s echo of
the last pong); a third pings every second.  Every connection opens with the session's
``hello`` (``Session.connect``): when the connection drops, the client connects again
(with a growing pause) and the hello comes back with the seat token, so it gets its
seat, the table and the round's snapshot back.  Who the hello says the person is (the
token, the profile, watching) is the session's; the answers to a hello that cannot wait
for the app are read here as they arrive: a welcome's token (kept in a small file,
``$XDG_STATE_HOME/ligretto/seats.json``, keyed by server and invite code, so even a
restarted client comes back to its seat) and a refused hello, said again another way.
With a ``ProfileKeeper`` (``ligretto join``) the server's profile is checked or made
before the first connection and its secret sent in every hello (``terminal/profiles.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import websockets
from websockets.asyncio.client import ClientConnection

from ligretto.client.clocksync import PING_S, ClockSync, ping_gap
from ligretto.client.session import Session
from ligretto.terminal.profiles import DEFAULT_SYMBOL, ProfileKeeper
from ligretto.terminal.serverapi import UrlError, base_url
from ligretto.terminal.statefiles import read_json, state_dir, write_private
from ligretto.terminal.transport import Deliver

SEND_GAP_S = 1 / 18
"""Seconds between two messages: under the server's 20 a second."""
RETRY_S = (0.5, 1.0, 2.0, 4.0, 8.0)
"""Pauses before reconnecting: the n-th attempt in a row waits ``RETRY_S[n]`` (the last repeats)."""
KEEPALIVE_S = PING_S
"""Seconds between two pings after the first quick ones, for as long as the connection is
open, in play too: the heartbeat, and the round trips fair judging measures."""
REPLACED = 4001
"""The close code of a connection whose seat was taken over by another one."""
FATAL = frozenset({"no_table", "bad_name", "bad_version", "replaced"})
"""Errors after which reconnecting cannot help."""


def ws_url(url: str) -> str:
    """The WebSocket address of a server: ``http://host:8000`` -> ``ws://host:8000/ws``."""
    parts = urlsplit(url.strip())
    schemes = {"http": "ws", "https": "wss", "ws": "ws", "wss": "wss"}
    if parts.scheme not in schemes or not parts.netloc:
        raise UrlError(f"bad server address {url!r}: expected e.g. http://127.0.0.1:8000")
    path = parts.path if parts.path not in ("", "/") else "/ws"
    return urlunsplit((schemes[parts.scheme], parts.netloc, path, "", ""))


class SeatTokens:
    """Seat tokens by server and invite code, in a JSON file only its owner may read."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or state_dir() / "seats.json"

    def _load(self) -> dict[str, str]:
        return {str(k): str(v) for k, v in read_json(self.path).items()}

    def get(self, key: str) -> str | None:
        return self._load().get(key)

    def put(self, key: str, token: str | None) -> None:
        """Keep ``token`` for ``key`` (``None`` forgets it)."""
        data = self._load()
        if token is None:
            data.pop(key, None)
        else:
            data[key] = token
        write_private(self.path, data)


class RemoteTable:
    """A seat at a server table, over ``/ws``; reconnects with its seat token after a drop."""

    def __init__(
        self,
        url: str,
        code: str,
        name: str,
        *,
        tokens: SeatTokens | None = None,
        profiles: ProfileKeeper | None = None,
        symbol: str = DEFAULT_SYMBOL,
        now: Callable[[], float] = time.time,
    ) -> None:
        """``profiles``: the server's profile, checked or made before the first connection
        (with ``symbol`` if one is made) and sent in every ``hello`` (``None``: no profile);
        ``now``: the local clock the clock sync stamps with (tests give one)."""
        self.url = ws_url(url)
        self.code = code
        self.name = name
        self.tokens = tokens or SeatTokens()
        self.profiles = profiles
        self.symbol = symbol
        self.profile_note = ""
        """What the connected notice says of the profile (which one, or why none)."""
        self.key = f"{self.url}#{code}"
        self.session = Session(code, name=name, token=self.tokens.get(self.key))
        """The client's session: the app's model feeds it; every ``hello`` is its."""
        self.description = f"{self.url} table {code}"
        self.site: str | None = base_url(url)
        """The server's page address, for links to its pages (a round's replay)."""
        self.ws: ClientConnection | None = None
        self.outbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.stopped = False
        self.welcomed = False
        """This connection's welcome came (a later one: the start renumbered the seats), as
        read here on arrival, before the app has the message."""
        self.now = now
        self.clock = ClockSync()
        """The client's clock sync (the model's, given at ``start``): stamps what leaves."""
        self._deliver: Deliver = lambda message: None
        self._task: asyncio.Task[None] | None = None

    @property
    def connects(self) -> int:
        """Connections made so far (the first, then one per reconnection)."""
        return self.session.connections

    # --- the app's side -------------------------------------------------------------

    def start(self, deliver: Deliver, clock: ClockSync | None = None) -> None:
        self._deliver = deliver
        if clock is not None:
            self.clock = clock
        self._task = asyncio.get_running_loop().create_task(self._run())

    def send(self, message: dict[str, Any]) -> None:
        if self.ws is None:
            self._notify("offline", "not connected: wait for the connection to come back")
            return
        self.outbox.put_nowait(message)

    async def close(self) -> None:
        self.stopped = True
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    # --- the connection ---------------------------------------------------------------

    def _notify(self, state: str, text: str) -> None:
        """A client-side notice (type ``connection``: never sent by a server)."""
        self._deliver({"type": "connection", "state": state, "message": text})

    def _hello(self) -> dict[str, Any]:
        """The hello the session says now."""
        return self.session.hello()

    async def _find_profile(self) -> None:
        if self.profiles is None:
            return
        found = await asyncio.to_thread(self.profiles.for_join, self.name, self.symbol)
        self.session.profile, self.profile_note = found

    async def _run(self) -> None:
        await self._find_profile()
        failures = 0
        while not self.stopped:
            try:
                async with websockets.connect(self.url, open_timeout=10, max_size=2**22) as ws:
                    self.ws = ws
                    failures = 0
                    await self._session(ws)
                    if ws.close_code == REPLACED:
                        self.stopped = True
            except (OSError, TimeoutError, websockets.WebSocketException) as error:
                if failures == 0:
                    self._notify("lost", f"connection lost ({error.__class__.__name__}): reconnecting")
            finally:
                self.ws = None
            if self.stopped:
                return
            pause = RETRY_S[min(failures, len(RETRY_S) - 1)]
            failures += 1
            self._notify("lost", f"not connected: trying again in {pause:g} s")
            await asyncio.sleep(pause)

    async def _session(self, ws: ClientConnection) -> None:
        self.welcomed = False
        self.outbox = asyncio.Queue()
        self.clock.connected()
        await ws.send(json.dumps(self.session.connect()))
        helpers = [
            asyncio.create_task(self._send_loop(ws)),
            asyncio.create_task(self._pinging()),
        ]
        try:
            async for raw in ws:
                message = json.loads(raw)
                if isinstance(message, dict) and await self._track(ws, message):
                    self._deliver(message)
                if self.stopped:
                    return
        finally:
            for helper in helpers:
                helper.cancel()

    async def _track(self, ws: ClientConnection, message: dict[str, Any]) -> bool:
        """Keep the token and answer hello errors at once (the session learns who the
        person is now); ``False``: the message is handled here."""
        kind = message.get("type")
        session = self.session
        if kind == "welcome":
            if message["token"] is not None:  # the next connection's hello comes back with it
                session.token = message["token"]
                self.tokens.put(self.key, session.token)
            if self.welcomed:  # the host's start closed a gap: a new seat number, no news to tell
                return True
            self.welcomed = True
            where = "watching" if message["seat"] is None else f"seat {message['seat'] + 1}"
            note = f" ({self.profile_note})" if self.profile_note else ""
            self._notify("connected", f"connected to {self.url}, table {self.code}: {where}{note}")
            return True
        if kind != "error":
            return True
        code = message.get("code")
        if code == "bad_token":  # an old token: take a new seat by name
            session.token = None
            self.tokens.put(self.key, None)
            await ws.send(json.dumps(session.hello()))
            return False
        if code == "bad_profile" and session.profile is not None:  # deleted meanwhile: carry on without it
            if self.profiles is not None:
                self.profiles.forget(session.profile)
            session.profile, self.profile_note = None, "without a profile: the server no longer knows it"
            await ws.send(json.dumps(session.hello()))
            return False
        if code in ("started", "full", "profile_seated") and session.token is None and not session.watch:
            session.watch = True
            self._notify("watching", f"{message['message']}: watching the table")
            await ws.send(json.dumps(session.hello()))
            return False
        if code in FATAL:
            self.stopped = True
            self._notify("closed", f"{message['message']} (disconnected)")
            return False
        return True

    async def _send_loop(self, ws: ClientConnection) -> None:
        last = 0.0
        while True:
            message = await self.outbox.get()
            wait = last + SEND_GAP_S - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            last = time.monotonic()
            # stamped as it leaves: a ping echoes the last pong, an act carries its send time
            now = self.now()
            message = self.clock.ping(now) if message.get("type") == "ping" else self.clock.stamped(message, now)
            await ws.send(json.dumps(message))

    async def _pinging(self) -> None:
        """A few quick pings for the clock sync, then one every ``KEEPALIVE_S`` for as long
        as the connection is open (the send loop makes each one as it leaves)."""
        sent = 0
        while True:
            self.outbox.put_nowait({"type": "ping"})
            sent += 1
            await asyncio.sleep(ping_gap(sent, KEEPALIVE_S))
