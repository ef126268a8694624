"""End-to-end fixtures: a REAL server process and REAL WebSocket clients.

* :class:`ServerProcess` is the real server of ``tests/realserver.py`` (shared with the
  browser and terminal tests) that also hands out test clients; the fixture fails a test
  whose server logged a traceback.
* :class:`Client` is a small asyncio WebSocket client: it keeps every message it
  received (parsed and raw), waits for a message by type, fields or predicate with a
  timeout, sends acts with ids and waits for their answer.  What it knows of its table
  is its client session's (:class:`ligretto.client.Session`, strict), fed every message:
  the seat and token, the last ``table`` message, the round's *mirror* (the last
  snapshot's view with every later event applied to it, each event checked against it:
  the card played was the one shown at its source, the pile fits, ...); anything that
  does not add up, or is no message the protocol's structs write back the same, goes to
  ``problems``.
* :func:`choose` is the simple policy the test players follow: play a visible card that
  fits a pile (or a 1), else turn the hand, and vote once the whole hand has been turned
  without the center changing.

The tests' servers run with the rate limit off (``realserver.TEST_RATE``), so their clients
send at once; a module marked ``rate_limited`` (its tests are about the limit) gets the
server's own limit (a burst of 40, then 20 messages per second), and its clients pace their
messages (``ACT_GAP_S``) to stay under it, but where a test floods on purpose.
They ping every ``KEEPALIVE_S`` (the server closes a connection silent for its
``silence_s``, docs/protocol.md "Heartbeats"); those pongs are not recorded.

"Nothing else arrived" is proven with :meth:`Client.barrier`, never with a sleep: a ping
whose pong comes after everything the server had queued for that connection (it answers
one connection in order, and every message goes through one outbox in the order it was
posted), so the messages before the pong are all that the server's earlier decisions
sent this client.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import random
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import msgspec
import pytest
import websockets
from inprocess import AppServer

import realserver
from ligretto import protocol
from ligretto.client.mirror import Area, Mirror, wire_pile
from ligretto.client.session import Session
from ligretto.testkit.scans import card_mentions
from realserver import COUNTDOWN_S, TEST_RATE, running
from wire import hidden_keys

ACT_GAP_S = 0.055
"""Seconds between two messages of one client: about 18 per second, under the 20/s limit."""
KEEPALIVE_S = 1.5
"""A client pings this often, so the server never takes it for a silent one (its
``silence_s``); with the paced messages it stays under the rate limit."""
KEEPALIVE_T = -1.0
"""The ``t`` of those pings: their pongs are not recorded, so no test sees them."""
BARRIER_T = 1_000_000.0
"""The ``t`` of a barrier's first ping (each barrier adds one, so each pong is its own)."""
WAIT_S = 5.0


Message = dict[str, Any]
Matcher = str | Callable[[Message], bool] | None
FROM_SESSION = frozenset(("seat", "token", "round"))
"""What a test reads of a client that is its session's as it is."""


# --- the server process ------------------------------------------------------------------


class ServerProcess(realserver.ServerProcess):
    """The real server, with WebSocket test clients."""

    @property
    def paced(self) -> bool:
        """Whether its clients must pace their messages: it has the production rate limit."""
        return "rate_per_s" not in self.settings

    def client(self, label: str, *, keepalive: float | None = KEEPALIVE_S) -> Client:
        return Client(self, label, keepalive=keepalive)


def center_total(view: dict[str, Any]) -> int:
    return sum(pile["top"] for pile in view["center"])


def visible_cards(area: dict[str, Any]) -> list[tuple[str, int, str]]:
    """(source, position, card) of every card an area may play to the center (the client model's)."""
    return Area.from_dict(area).playable()


def fitting_piles(view: dict[str, Any], card: str) -> list[int | None]:
    """The piles a card fits (``None``: it is a 1 and starts a new pile), by the client model."""
    return [wire_pile(pile) for pile in Mirror.from_view(view).piles_for(card)]


def play_action(source: str, position: int, pile: int | None, card: str) -> Message:
    return {"kind": "play", "source": source, "position": position, "pile": pile, "card": card}


def fitting_plays(view: dict[str, Any], seat: int) -> list[Message]:
    return [
        play_action(source, position, pile, card)
        for source, position, card in visible_cards(view["areas"][seat])
        for pile in fitting_piles(view, card)
    ]


class Stuck:
    """When a test player says "I'm stuck": it turned through its whole hand and discard
    pile while the center did not change."""

    def __init__(self) -> None:
        self.center = -1
        self.turns = 0

    def choose(self, view: dict[str, Any], seat: int) -> Message | None:
        """The policy: a fitting play, else turn, else vote once stuck; ``None``: wait."""
        plays = fitting_plays(view, seat)
        if plays:
            return plays[0]
        total = center_total(view)
        if total != self.center:
            self.center, self.turns = total, 0
        area = view["areas"][seat]
        cards = area["hand_size"] + area["discard_size"]
        if self.turns * 3 >= cards + 3 or cards == 0:
            return None if area["voted"] else {"kind": "vote"}
        self.turns += 1
        return {"kind": "turn"}


# --- the WebSocket client ----------------------------------------------------------------


class Client:
    """A real WebSocket client of ``/ws`` that keeps everything it received."""

    def __init__(self, server: ServerProcess, label: str, *, keepalive: float | None = KEEPALIVE_S) -> None:
        self.server = server
        self.label = label
        self.keepalive = keepalive
        """Seconds between two keep-alive pings (``None``, also set later: the client falls silent)."""
        self.ws: Any = None
        self.reader: asyncio.Task[None] | None = None
        self.pinger: asyncio.Task[None] | None = None
        self.messages: list[Message] = []
        self.raw: list[str] = []
        self.closed = False
        self.close_code: int | None = None
        self.session = Session(strict=True)
        """Who this client is at its table and what it knows of it (``hello`` sets who)."""
        self.unreadable: list[str] = []
        """Messages the protocol's structs do not read, or write back otherwise."""
        self.ids = 0
        self.last_send = 0.0
        self.barriers = 0
        self._arrived = asyncio.Event()

    # --- what the session knows ----------------------------------------------------------

    def __getattr__(self, name: str) -> Any:
        """``seat``, ``token``, ``round``: the session's."""
        if name in FROM_SESSION:
            return getattr(self.session, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    @property
    def table(self) -> Message | None:
        """The last ``table`` message, as received."""
        table = self.session.table
        return None if table is None else dict(msgspec.to_builtins(table))

    @property
    def view(self) -> dict[str, Any] | None:
        """The round as this client sees it: the last snapshot with every later event applied."""
        mirror = self.session.mirror
        return None if mirror is None else mirror.to_dict()

    @property
    def problems(self) -> list[str]:
        """Every message that did not read back, every event that did not fit the mirror."""
        return self.unreadable + [f"{self.label}: {problem}" for problem in self.session.problems]

    # --- connection -------------------------------------------------------------------

    async def connect(self, path: str = "/ws", headers: dict[str, str] | None = None) -> Client:
        self.ws = await websockets.connect(
            f"ws://127.0.0.1:{self.server.port}{path}",
            max_size=None,
            open_timeout=WAIT_S,
            ping_interval=None,
            additional_headers=headers,
        )
        self.closed = False
        self.reader = asyncio.create_task(self._read())
        if self.keepalive is not None and path == "/ws":
            self.pinger = asyncio.create_task(self._keep_alive(self.ws))
        return self

    async def _keep_alive(self, ws: Any) -> None:
        with contextlib.suppress(websockets.ConnectionClosed):
            while self.keepalive is not None:
                await asyncio.sleep(self.keepalive)
                if self.keepalive is None:
                    return
                await ws.send(json.dumps({"type": "ping", "t": KEEPALIVE_T}))

    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                text = raw if isinstance(raw, str) else raw.decode()
                message = json.loads(text)
                if message.get("type") == "pong" and message.get("t") == KEEPALIVE_T:
                    continue
                self.raw.append(text)
                self.messages.append(message)
                self._receive(text, message)
                self._wake()
        except websockets.ConnectionClosed:
            pass
        finally:
            self.closed = True
            self.close_code = self.ws.close_code
            if self.pinger is not None:
                self.pinger.cancel()
            self._wake()

    def _wake(self) -> None:
        arrived, self._arrived = self._arrived, asyncio.Event()
        arrived.set()

    def _receive(self, text: str, message: Message) -> None:
        """The session reads every message; each is one of the protocol's structs, which
        writes it back the same."""
        try:
            typed = self.session.receive(text)
        except protocol.ProtocolError as error:
            self.unreadable.append(f"{self.label}: {error}")
            return
        if json.loads(protocol.encode(typed)) != message:
            self.unreadable.append(f"{self.label}: {type(typed).__name__} writes another message than {message}")

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self.reader is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self.reader

    # --- sending ----------------------------------------------------------------------

    async def send(self, message: Message | str, *, paced: bool = True) -> None:
        if paced and self.server.paced:  # real time: the server's rate limit counts real seconds
            wait = self.last_send + ACT_GAP_S - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            self.last_send = time.monotonic()
        await self.ws.send(message if isinstance(message, str) else json.dumps(message))

    async def hello(
        self,
        code: str,
        name: str | None = None,
        *,
        token: str | None = None,
        watch: bool = False,
        profile: str | None = None,
    ) -> Message:
        """Say the session's hello, as who it is told (``profile``: a profile's secret);
        returns the welcome (or the error)."""
        session = self.session
        session.code, session.name, session.token, session.watch, session.profile = code, name, token, watch, profile
        mark = len(self.messages)
        await self.send(session.connect())
        return await self.wait_for(lambda m: m["type"] in ("welcome", "error"), since=mark)

    async def join(self, code: str, name: str | None = None, *, token: str | None = None) -> Client:
        """Connect, say hello and wait for the welcome and the table message."""
        await self.connect()
        welcome = await self.hello(code, name or self.label, token=token)
        assert welcome["type"] == "welcome", welcome
        await self.wait_for("table")
        return self

    async def watch(self, code: str) -> Client:
        await self.connect()
        welcome = await self.hello(code, watch=True)
        assert welcome["type"] == "welcome" and welcome["seat"] is None, welcome
        await self.wait_for("table")
        return self

    async def act(self, action: Message, *, timeout: float = WAIT_S, paced: bool = True) -> Message:
        """Send one act (in flight in the session) and wait for its ack (or error) with the same id."""
        act = self.session.act(action, self.next_id())
        await self.send(act, paced=paced)
        answer = await self.answer(act["id"], timeout=timeout)
        if answer["type"] == "ack" and answer["applied"]:
            # The server queues the events of an applied act right behind its ack: wait for
            # them, so the mirror shows the act before the next decision.
            await self.wait_for("events", since=self.messages.index(answer) + 1, timeout=timeout)
        return answer

    def next_id(self) -> str:
        self.ids += 1
        return f"{self.label}-{self.ids}"

    async def answer(self, ident: str, *, timeout: float = WAIT_S) -> Message:
        return await self.wait_for(lambda m: m.get("id") == ident and m["type"] in ("ack", "error"), timeout=timeout)

    async def command(self, message: Message) -> None:
        await self.send(message)

    # --- waiting ----------------------------------------------------------------------

    def find(self, match: Matcher = None, since: int = 0, **fields: Any) -> Message | None:
        for message in self.messages[since:]:
            if _matches(message, match, fields):
                return message
        return None

    def all(self, match: Matcher = None, since: int = 0, **fields: Any) -> list[Message]:
        return [m for m in self.messages[since:] if _matches(m, match, fields)]

    async def wait_for(
        self, match: Matcher = None, *, timeout: float = WAIT_S, since: int = 0, **fields: Any
    ) -> Message:
        """The first message since index ``since`` of that type (or predicate) and fields."""
        deadline = time.monotonic() + timeout
        while True:
            arrived = self._arrived
            found = self.find(match, since, **fields)
            if found is not None:
                return found
            if self.closed:
                raise AssertionError(
                    f"{self.label}: connection closed ({self.close_code}) while waiting for {match} {fields}; "
                    f"last messages: {self.messages[-5:]}"
                )
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(
                    f"{self.label}: no {match} {fields} within {timeout} s; last messages: {self.messages[-5:]}"
                )
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(arrived.wait(), left)

    async def barrier(self, *, timeout: float = WAIT_S) -> list[Message]:
        """Everything the server had queued for this client before now, proven arrived:
        send a ping and read until its pong.  Returns the messages that came since the
        call (the pong not included), for a test to assert "nothing else arrived" on.

        A message caused by another connection's message is covered once that message
        has been answered (its ack, error or barrier pong came back): the server had then
        posted what it caused before it reads this ping."""
        mark = len(self.messages)
        self.barriers += 1
        t = BARRIER_T + self.barriers
        await self.send({"type": "ping", "t": t})
        pong = await self.wait_for(lambda m: m["type"] == "pong" and m["t"] == t, since=mark, timeout=timeout)
        end = next(i for i in range(mark, len(self.messages)) if self.messages[i] is pong)
        return self.messages[mark:end]

    async def next_arrival(self, timeout: float) -> None:
        """Wait until a message arrives, at most ``timeout`` s (a closed connection fails:
        nothing can arrive any more)."""
        arrived = self._arrived
        if self.closed:
            raise AssertionError(f"{self.label}: connection closed ({self.close_code}) while waiting")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(arrived.wait(), timeout)

    async def wait_closed(self, timeout: float = WAIT_S) -> int | None:
        assert self.reader is not None
        await asyncio.wait_for(asyncio.shield(self.reader), timeout)
        return self.close_code

    async def flood(self, count: int = 200) -> int | None:
        """Send ``count`` pings unpaced (past the rate limit) until the server closes the
        connection; its close code."""
        assert self.ws is not None
        try:
            for i in range(count):
                await self.ws.send(f'{{"type": "ping", "t": {i}}}')
        except websockets.ConnectionClosed:
            pass
        return await self.wait_closed()

    async def snapshot(self) -> Message:
        """The latest snapshot message received."""
        return await self.wait_for("snapshot")

    # --- playing ----------------------------------------------------------------------

    async def play(self, steps: int, stuck: Stuck | None = None) -> list[Message]:
        """Follow the policy for ``steps`` acts (or until the round ends); returns the answers."""
        stuck = stuck or Stuck()
        answers = []
        for _ in range(steps):
            view = self.view
            assert view is not None and self.seat is not None
            if view["ending"] is not None:
                break
            action = stuck.choose(view, self.seat)
            if action is None:  # voted: only a message (events, round_over) changes that
                await self.next_arrival(0.1)
                continue
            answer = await self.act(action)
            answers.append(answer)
            if answer["type"] == "error":
                assert answer["code"] == "not_playing", answer
                break
        return answers

    async def play_to_end(self, timeout: float = 40.0, pace: tuple[float, float] | None = None) -> int:
        """Follow the policy until this round ends; returns the number of acts sent.  With
        ``pace``, each act waits a person's moment first (seconds, drawn evenly from that range
        by a seeded generator): the server's speed check (``engine.tempo``) flags a seat that
        answers every change at once."""
        deadline = time.monotonic() + timeout
        moments = random.Random(f"pace:{self.label}")
        stuck = Stuck()
        sent = 0
        round_number = self.round
        while time.monotonic() < deadline:
            view = self.view
            assert view is not None and self.seat is not None
            if view["ending"] is not None or self.find("round_over", round=round_number):
                return sent
            action = stuck.choose(view, self.seat)
            if action is None:  # voted: only a message (events, round_over) changes that
                await self.next_arrival(max(0.0, deadline - time.monotonic()))
                continue
            if pace is not None:
                await asyncio.sleep(moments.uniform(*pace))
            answer = await self.act(action)
            sent += 1
            if answer["type"] == "error":
                assert answer["code"] == "not_playing", answer
                return sent
        raise AssertionError(f"{self.label}: the round did not end within {timeout} s")


def _matches(message: Message, match: Matcher, fields: dict[str, Any]) -> bool:
    if isinstance(match, str):
        if message.get("type") != match:
            return False
    elif match is not None and not match(message):
        return False
    return all(message.get(key) == value for key, value in fields.items())


# --- fixtures ----------------------------------------------------------------------------


@pytest.fixture
def server_db(tmp_path: Path) -> Path | str:
    """The database of the test's ``server``: an SQLite file of its own (a test module may
    give another, a ``postgresql://`` URL: ``test_server_restore.py``)."""
    return tmp_path / "ligretto.db"


@pytest.fixture
def server(request: pytest.FixtureRequest, tmp_path: Path, server_db: Path | str) -> Iterator[ServerProcess]:
    """A started server process; killed at the end; a traceback in its log fails the test.
    In a module marked ``shared_server`` (its tests each make their own tables and
    profiles, and none stops the server or counts what the others made), the module's
    one ``module_server`` instead."""
    if request.node.get_closest_marker("shared_server"):
        yield request.getfixturevalue("module_server")
        return
    with running(ServerProcess(server_db, tmp_path / "server.log", **rate_of(request))) as process:
        yield process


def rate_of(request: pytest.FixtureRequest) -> dict[str, Any]:
    """The rate limit of a test's server: off (``TEST_RATE``) unless its module is marked
    ``rate_limited``."""
    return {} if request.node.get_closest_marker("rate_limited") else TEST_RATE


@pytest.fixture
def app_server(tmp_path: Path) -> Iterator[AppServer]:
    """The web app in this process (``inprocess.py``), for tests of the HTTP API where no
    real socket is the subject: nothing to start, an exception on the server's side fails
    the test."""
    with AppServer(tmp_path) as app:
        yield app


@pytest.fixture
def server_with(tmp_path: Path) -> Iterator[Callable[..., ServerProcess]]:
    """Start a server with more ``app.Settings`` (``server_with(abandoned_s=1.0)``); each is
    stopped at the end, and a traceback in its log fails the test."""
    count = itertools.count()
    with contextlib.ExitStack() as stack:

        def start(**settings: Any) -> ServerProcess:
            folder = tmp_path / f"server{next(count)}"
            folder.mkdir()
            return stack.enter_context(running(ServerProcess.in_folder(folder, **settings)))

        yield start


@pytest.fixture(scope="module")
def module_server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """One server for the tests of a module that share a played match (or a
    ``shared_server`` module's)."""
    folder = tmp_path_factory.mktemp("server")
    with running(ServerProcess(folder / "ligretto.db", folder / "server.log", **rate_of(request))) as process:
        yield process


@pytest.fixture(scope="session")
def server_class() -> type[ServerProcess]:
    """The real server with test clients, for tests that start several on one database
    (``tests/server/cluster/``)."""
    return ServerProcess


@pytest.fixture(scope="session")
def mentions() -> Callable[[Any], tuple[list[tuple[int, str]], list[str]]]:
    return card_mentions


@pytest.fixture(scope="session")
def forbidden_keys() -> Callable[[Any], list[str]]:
    return hidden_keys


@pytest.fixture(scope="session")
def plays_for() -> Callable[[dict[str, Any], int], list[Message]]:
    return fitting_plays


async def start_match(
    server: ServerProcess,
    names: list[str],
    *,
    bots: Sequence[str] = (),
    options: dict[str, Any] | None = None,
    grace_s: float = 60.0,
    watchers: int = 0,
    wait_go: bool = True,
    judging: dict[str, Any] | None = None,
) -> tuple[str, list[Client], list[Client]]:
    """Create a table, seat the people (the first is host), add bots, set the rules (and
    the ``judging``: ``arbitration``, ``window_ms``), start.

    Returns the code, the players' clients and the spectators' clients (connected before
    the start, so they see everything)."""
    code = server.create_table(len(names) + len(bots), grace_s=grace_s)
    players = [await server.client(name).join(code) for name in names]
    host = players[0]
    assert host.seat == 0 and host.table is not None and host.table["host"] == 0
    mark = len(host.messages)
    rules = {"type": "set_rules", "preset": "classic", "options": options or {"match_end": "rounds:1"}}
    await host.command({**rules, **(judging or {})})
    await host.wait_for("table", since=mark, timeout=WAIT_S)
    for spec in bots:
        strategy, level = spec.split(":")
        mark = len(host.messages)
        await host.command({"type": "add_bot", "strategy": strategy, "level": level})
        await host.wait_for(lambda m: m["type"] in ("table", "error"), since=mark)
    spectators = [await server.client(f"watcher{i}").watch(code) for i in range(watchers)]
    marks = [len(c.messages) for c in players + spectators]
    await host.command({"type": "start"})
    for client, mark in zip(players + spectators, marks, strict=True):
        await client.wait_for("snapshot", since=mark)
        if wait_go:
            await client.wait_for("go", since=mark, timeout=COUNTDOWN_S + WAIT_S)
    return code, players, spectators


@pytest.fixture(scope="session")
def match_starter() -> Callable[..., Awaitable[tuple[str, list[Client], list[Client]]]]:
    return start_match
