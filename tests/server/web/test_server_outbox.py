"""Nothing reaches a client before the store has committed it (``outbox.Outbox`` and
``SqliteStore.commit``), and the store commits once per turn of the event loop; then a
connection writes each message at once, or, while its client is slow to read, keeps the
rest in order behind it (``outbox.start_eagerly``, ``sockets.Connection``).

In-process, with a real SQLite file: listeners post their messages to an outbox as
the server's connections do, and at the moment each message is *delivered* the test
reads the file through a second SQLite connection, as a restarted server would after a
SIGKILL: every action an ``ack`` or an ``events`` message tells of must already be there,
and so must the end of the match a ``table`` message shows.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest

from ligretto import protocol
from ligretto.engine.actions import Turn, Vote
from ligretto.engine.rules import RuleSet
from ligretto.protocol import Phase
from ligretto.server.db.database import open_database
from ligretto.server.records.store import SqliteStore, Store
from ligretto.server.table.clock import VirtualScheduler
from ligretto.server.table.table import Table
from ligretto.server.web.outbox import Outbox, start_eagerly
from ligretto.server.web.settings import Settings
from ligretto.server.web.sockets import Connection
from ligretto.server.web.wsprotocol import FRAMES
from pgserver import StoreDatabase


class Reader:
    """What a restarted server would find in the database right now (a connection of its own)."""

    def __init__(self, url: str | Path) -> None:
        self.db = open_database(url)

    def actions(self, code: str) -> int:
        (count,) = self.db.execute("SELECT COUNT(*) FROM actions WHERE code = ?", (code,)).fetchone()
        return int(count)

    def phase(self, code: str) -> str:
        (config,) = self.db.execute("SELECT config FROM tables WHERE code = ?", (code,)).fetchone()
        return str(json.loads(config)["phase"])


async def settled(store: Store, outbox: Outbox | None = None) -> None:
    """Let the loop turn until the store has committed everything and the outbox delivered
    it (one turn on SQLite; on PostgreSQL, as long as the writer's thread takes)."""
    await asyncio.sleep(0)
    for _ in range(2000):
        if not store.writer.busy and not store.pending and not (outbox and outbox.holding):
            break
        await asyncio.sleep(0.001)
    await asyncio.sleep(0)


class Wire:
    """A connection as the server has it: ``send`` posts to the outbox; ``deliver`` is the
    moment the message would go out, where the test checks the file."""

    def __init__(self, outbox: Outbox, reader: Reader, code: str, label: str) -> None:
        self.seat: int | None = None
        self.outbox = outbox
        self.reader = reader
        self.code = code
        self.label = label
        self.delivered: list[dict[str, Any]] = []
        self.problems: list[str] = []
        self.phases: list[tuple[str, str]] = []
        """(phase a ``table`` message shows, phase in the file when it was delivered)."""
        self.acts: dict[int, int] = {}
        """Client id -> how many actions the round's log holds once that act is in it."""
        self.flushes = 0
        """Turns of the outbox that delivered to this connection (each ends with a flush)."""

    def detach(self) -> None:
        self.seat = None

    def send(self, message: dict[str, Any]) -> None:
        self.outbox.post(self, protocol.wire(message))

    def flush(self) -> None:
        self.flushes += 1

    def deliver(self, text: str) -> None:
        message = json.loads(text)
        self.delivered.append(message)
        stored = self.reader.actions(self.code)
        if message["type"] == "ack" and stored < self.acts[message["id"]]:
            self.problems.append(f"{self.label}: ack {message['id']} delivered, its action is not in the file")
        if message["type"] == "events" and stored <= message["seq"]:
            self.problems.append(f"{self.label}: events {message['seq']} delivered, the action is not in the file")
        if message["type"] == "table":
            self.phases.append((message["phase"], self.reader.phase(self.code)))


def test_acks_and_events_leave_only_after_their_commit_one_commit_per_loop_turn(store_db: StoreDatabase) -> None:
    """On SQLite the commit runs on the loop; on PostgreSQL on the writer's thread, while
    the loop goes on (``writer``): either way no message leaves before its commit."""

    async def scenario() -> None:
        store = Store(store_db.url)
        outbox = Outbox(store.after_commit)
        reader = Reader(store_db.url)
        scheduler = VirtualScheduler()
        rules = RuleSet().replace(match_end="rounds:1")
        table = Table("OUTBOX", seats=2, rules=rules, store=store, countdown_s=0.01, scheduler=scheduler)
        ann, bob = Wire(outbox, reader, "OUTBOX", "Ann"), Wire(outbox, reader, "OUTBOX", "Bob")
        table.join(ann, "Ann")
        table.join(bob, "Bob")
        table.start(0)
        scheduler.advance(0.01)  # the countdown ends: go
        await settled(store, outbox)  # the outbox delivers on the loop's next turn, once committed
        assert table.phase is Phase.PLAYING and ann.delivered[-1]["type"] == "go"

        # One turn of the loop: a message with nothing to write first (a pong, an error),
        # then six actions; nothing written or sent until the turn is over.
        commits, seen = store.commits, [len(ann.delivered), len(bob.delivered)]
        bob.send({"type": "pong", "t": 0.0, "server_t": 0.0})
        for client_id in range(6):
            seat = client_id % 2
            table.act(seat, Turn(seat), client_id)
            assert table.game is not None
            (ann, bob)[seat].acts[client_id] = len(table.game.log)
        assert reader.actions("OUTBOX") == 0, "written before the end of the loop's turn"
        assert [len(ann.delivered), len(bob.delivered)] == seen, "sent before the commit"
        flushes = [ann.flushes, bob.flushes]
        await settled(store, outbox)
        assert store.commits == commits + 1, "one commit for the whole turn"
        assert [ann.flushes, bob.flushes] == [f + 1 for f in flushes], "the turn's messages flushed once each"
        assert reader.actions("OUTBOX") == 6
        acks = [m["id"] for m in ann.delivered + bob.delivered if m["type"] == "ack"]
        assert sorted(acks) == list(range(6))

        # The action that ends the round, its events, round_over and the new phase.
        table.act(0, Vote(0), 10)
        table.act(1, Vote(1), 11)
        ann.acts[10], bob.acts[11] = 7, 8
        await settled(store, outbox)
        assert table.phase is Phase.OVER
        assert [m["type"] for m in bob.delivered[-4:]] == ["ack", "events", "round_over", "table"]
        assert bob.phases[-1] == ("over", "over") and ann.phases[-1] == ("over", "over")
        assert not ann.problems and not bob.problems
        table.close()
        store.close()
        reader.db.close()

    asyncio.run(scenario())


def test_on_sqlite_turns_close_together_share_one_commit_and_one_delivery(tmp_path: Path) -> None:
    """``writer.Pace``: a commit (and the outbox's delivery after it) comes at once after a
    quiet spell, else no sooner than ``commit_every_s`` after the last one (a long one here:
    no machine is that slow between two turns)."""

    async def scenario() -> None:
        url = str(tmp_path / "paced.db")
        store = Store(url, commit_every_s=0.5)
        outbox = Outbox(store.after_commit, store.commit_every_s)
        reader = Reader(url)
        scheduler = VirtualScheduler()
        table = Table("PACED", seats=2, store=store, countdown_s=0.01, scheduler=scheduler)
        ann, bob = Wire(outbox, reader, "PACED", "Ann"), Wire(outbox, reader, "PACED", "Bob")
        table.join(ann, "Ann")
        table.join(bob, "Bob")
        table.start(0)
        scheduler.advance(0.01)
        await settled(store, outbox)
        assert table.phase is Phase.PLAYING and ann.delivered[-1]["type"] == "go"

        commits, flushes, seen = store.commits, [ann.flushes, bob.flushes], len(ann.delivered)
        for seat in (0, 1):  # two turns of the loop, one action each
            table.act(seat, Turn(seat), seat)
            assert table.game is not None
            (ann, bob)[seat].acts[seat] = len(table.game.log)
            await asyncio.sleep(0)
            await asyncio.sleep(0)
        assert reader.actions("PACED") == 0 and len(ann.delivered) == seen, "committed and sent within 0.5 s"
        await settled(store, outbox)
        assert store.commits == commits + 1, "the two turns in one commit"
        assert [ann.flushes, bob.flushes] == [f + 1 for f in flushes], "and one delivery each"
        assert reader.actions("PACED") == 2 and not ann.problems and not bob.problems
        table.close()
        store.close()
        reader.db.close()

    asyncio.run(scenario())


def test_a_write_outside_an_event_loop_commits_at_once(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "plain.db")
    table = Table("PLAIN", seats=2, store=store)
    store.save_table(table.record())
    assert not store.pending
    reader = Reader(tmp_path / "plain.db")
    assert reader.phase("PLAIN") == "lobby"
    reader.db.close()
    store.close()


# --- sending at once: start_eagerly and the connection's backlog ---------------------------


def test_start_eagerly_runs_a_coroutine_that_need_not_wait_to_its_end_at_once() -> None:
    async def scenario() -> None:
        done: list[str] = []

        async def quick() -> None:
            done.append("sent")

        assert start_eagerly(quick()) is None
        assert done == ["sent"], "not run at once"

        async def failing() -> None:
            raise ConnectionError("gone")

        with pytest.raises(ConnectionError):
            start_eagerly(failing())

    asyncio.run(scenario())


def test_start_eagerly_hands_a_coroutine_that_waits_to_a_task() -> None:
    async def scenario() -> None:
        gate: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        steps: list[str] = []

        async def slow() -> None:
            steps.append("before")
            steps.append(await gate)
            await asyncio.sleep(0)
            steps.append("after")

        rest = start_eagerly(slow())
        assert rest is not None and steps == ["before"]
        gate.set_result("opened")
        await rest
        assert steps == ["before", "opened", "after"]

        blocked: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        cleaned: list[bool] = []

        async def cancelled() -> None:
            try:
                await blocked
            finally:
                cleaned.append(True)

        task = start_eagerly(cancelled())
        assert task is not None
        await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert cleaned == [True] and blocked.cancelled()

    asyncio.run(scenario())


class SlowSocket:
    """A WebSocket whose client reads only when the test lets it (``opened``)."""

    def __init__(self) -> None:
        self.scope: dict[str, object] = {}  # no ``ligretto.frames``: every message through send_text
        self.sent: list[str] = []
        self.opened = asyncio.Event()
        self.opened.set()
        self.close_code: int | None = None

    async def send_text(self, text: str) -> None:
        await self.opened.wait()  # as uvicorn waits while the transport's buffer is full
        self.sent.append(text)

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        self.close_code = code


class FramedSlowSocket(SlowSocket):
    """A slow WebSocket under the server's own protocol: ready-made frames go out below ASGI
    (``ligretto.frames``) while the client reads, and are declined while it does not."""

    def __init__(self) -> None:
        super().__init__()
        self.scope = {"extensions": {FRAMES: self}}
        self.framed = 0

    def write_frame(self, frames: bytes) -> bool:
        """One write of the turn's frames (small unmasked text frames, one after another)."""
        if not self.opened.is_set():
            return False
        while frames:
            assert frames[0] == 0x81 and frames[1] < 126, "a small unmasked text frame"
            end = 2 + frames[1]
            self.sent.append(frames[2:end].decode())
            frames = frames[end:]
        self.framed += 1
        return True


@pytest.mark.parametrize("socket_kind", [SlowSocket, FramedSlowSocket])
def test_a_slow_client_gets_its_messages_in_order_without_holding_anyone_up(socket_kind: type[SlowSocket]) -> None:
    async def scenario() -> None:
        outbox = Outbox()
        socket = socket_kind()
        conn = Connection(socket, Settings(), outbox)  # type: ignore[arg-type]
        conn.send({"type": "go", "round": 1})
        conn.send({"type": "ack", "id": 1, "applied": True})
        await asyncio.sleep(0)
        assert socket.sent == ['{"type":"go","round":1}', '{"type":"ack","id":1,"applied":true}'], "sent at once"
        assert conn.sender is None

        socket.opened.clear()  # the client stops reading
        for seq in range(5):
            conn.send({"type": "events", "seq": seq})
        conn.detach()  # replaced: closed after what was sent before
        await asyncio.sleep(0)  # the outbox releases them: nothing blocks
        assert conn.sender is not None and len(socket.sent) == 2
        socket.opened.set()
        await conn.sender
        assert [json.loads(text)["seq"] for text in socket.sent[2:]] == [0, 1, 2, 3, 4]
        assert socket.close_code == 4001 and conn.closed
        assert conn.backlog is None and conn.sender is None
        conn.send({"type": "go", "round": 2})
        await asyncio.sleep(0)
        assert len(socket.sent) == 7, "nothing is sent after the close"
        if isinstance(socket, FramedSlowSocket):
            assert socket.framed == 1, "one write for the first turn's two; the rest through ASGI"

    asyncio.run(scenario())


def test_the_store_checkpoints_in_a_thread_of_its_own(tmp_path: Path) -> None:
    """SQLite would copy its write-ahead log into the database file inside every
    thousandth commit, on the event loop (10-20 ms); the store's thread does it instead."""
    store = SqliteStore(tmp_path / "checkpoint.db", checkpoint_s=0.01)
    assert store.db.execute("PRAGMA wal_autocheckpoint").fetchone() == (0,)
    table = Table("CHECK", seats=2, store=store)
    deadline = time.monotonic() + 5
    while store.checkpoints < 2:
        store.save_table(table.record())  # outside an event loop: committed at once
        assert time.monotonic() < deadline, "no checkpoint"
        time.sleep(0.01)
    thread = store.db._checkpointer  # the SQLite database's (server/db/database.py)
    assert thread is not None
    store.close()
    assert not thread.is_alive()
    reader = Reader(tmp_path / "checkpoint.db")
    assert reader.phase("CHECK") == "lobby"
    reader.db.close()
