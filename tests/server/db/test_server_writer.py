"""The store's writer (``writer.Writer``): batches committed in order, on the loop or on a
thread of its own, and what waits for a commit run on the loop only once it is done.

The commit here is a function the test holds up with a gate, so what happens while a
batch is "on the disk" is the test's to look at; the store over a real PostgreSQL is
tests/server/web/test_server_outbox.py's and test_server_store.py's."""

from __future__ import annotations

import asyncio
import threading

import pytest

from ligretto.server.db.writer import Pace, Writer


class Disk:
    """What the writer is given: ``collected`` is taken as one batch; ``write`` (if
    ``gated``) waits for a permit of the test's (:meth:`let_one_through`) and records the
    batch; ``fail`` makes the next write fail."""

    def __init__(self, *, gated: bool = False) -> None:
        self.collected: list[str] = []
        self.written: list[list[str]] = []
        self.put_back: list[list[str]] = []
        self.gated = gated
        self.permits = threading.Semaphore(0)
        self.starts = threading.Semaphore(0)
        self.fail = False
        self.threads: set[str] = set()

    def take(self) -> list[str] | None:
        if not self.collected:
            return None
        batch, self.collected = self.collected, []
        return batch

    def write(self, batch: list[str]) -> bool:
        self.threads.add(threading.current_thread().name)
        self.starts.release()
        if self.gated:
            assert self.permits.acquire(timeout=10), "the test never let the write through"
        if self.fail:
            self.fail = False
            return False
        self.written.append(batch)
        return True

    def let_one_through(self, after_s: float = 0.0) -> None:
        threading.Timer(after_s, self.permits.release).start()

    async def started(self) -> None:
        """Until a write has begun (and is held, if gated)."""
        assert await asyncio.to_thread(self.starts.acquire, True, 10), "no write began"

    def back(self, batch: list[str]) -> None:
        self.put_back.append(batch)
        self.collected = batch + self.collected

    def writer(self, *, threaded: bool) -> Writer[list[str]]:
        return Writer(self.take, self.write, self.back, threaded=threaded)


async def until(condition: object, what: str) -> None:
    for _ in range(5000):
        if callable(condition) and condition():
            return
        await asyncio.sleep(0.001)
    raise AssertionError(f"never: {what}")


def test_the_loop_plays_on_while_a_batch_is_written_and_what_came_meanwhile_goes_as_one() -> None:
    async def scenario() -> None:
        disk = Disk(gated=True)
        writer = disk.writer(threaded=True)
        told: list[str] = []
        disk.collected = ["ack 1"]
        writer.after_commit(lambda: told.append("turn 1"))
        await disk.started()
        assert writer.busy and told == [], "told before its commit"

        # Three more turns while the first batch is on the disk: the loop is free.
        for turn in (2, 3, 4):
            disk.collected.append(f"ack {turn}")
            writer.after_commit(lambda turn=turn: told.append(f"turn {turn}"))
            await asyncio.sleep(0)
        assert told == [] and disk.written == []

        disk.let_one_through()
        disk.let_one_through()
        await until(lambda: not writer.busy, "the writer is done")
        assert disk.written == [["ack 1"], ["ack 2", "ack 3", "ack 4"]], "one batch for what came meanwhile"
        assert told == ["turn 1", "turn 2", "turn 3", "turn 4"], "in the order of play"
        assert writer.commits == 2
        assert disk.threads == {"ligretto-writer_0"}, "not on the loop's thread"
        writer.close()

    asyncio.run(scenario())


def test_what_waits_for_a_batch_goes_only_after_that_batch() -> None:
    """Turn 2's messages are not told when batch 1 lands: they wait for batch 2."""

    async def scenario() -> None:
        disk = Disk(gated=True)
        writer = disk.writer(threaded=True)
        told: list[str] = []
        seen_written: list[int] = []

        def tell(turn: str) -> None:
            told.append(turn)
            seen_written.append(len(disk.written))

        disk.collected = ["a"]
        writer.after_commit(lambda: tell("turn 1"))
        await disk.started()
        disk.collected = ["b"]
        writer.after_commit(lambda: tell("turn 2"))
        disk.let_one_through()  # batch 1 lands...
        await until(lambda: told == ["turn 1"], "turn 1 told")
        await disk.started()  # ...batch 2 is on its way, held
        assert told == ["turn 1"] and seen_written == [1]
        disk.let_one_through()
        await until(lambda: len(told) == 2, "turn 2 told")
        assert seen_written == [1, 2], "each turn told once its own batch was written"
        writer.close()

    asyncio.run(scenario())


def test_a_failed_batch_is_put_back_told_anyway_and_written_with_the_next() -> None:
    async def scenario() -> None:
        disk = Disk()
        writer = disk.writer(threaded=True)
        told: list[str] = []
        disk.fail = True
        disk.collected = ["a"]
        writer.after_commit(lambda: told.append("turn 1"))
        await until(lambda: told == ["turn 1"], "told though the commit failed")
        assert disk.put_back == [["a"]] and disk.collected == ["a"] and writer.commits == 0
        await asyncio.sleep(0.05)
        assert disk.written == [], "tried again without anything new: a database that is down is asked in a loop"

        disk.collected.append("b")
        writer.after_commit(lambda: told.append("turn 2"))
        await until(lambda: len(told) == 2, "turn 2 told")
        assert disk.written == [["a", "b"]] and writer.commits == 1
        writer.close()

    asyncio.run(scenario())


def test_a_commit_now_waits_for_the_batch_in_flight_and_keeps_the_order() -> None:
    async def scenario() -> None:
        disk = Disk(gated=True)
        writer = disk.writer(threaded=True)
        disk.collected = ["first"]
        writer.written()
        await disk.started()
        disk.collected = ["second"]
        disk.let_one_through(after_s=0.05)
        disk.let_one_through(after_s=0.05)
        writer.commit_now()  # blocks until both are written, as a table's creation needs
        assert disk.written == [["first"], ["second"]]
        await until(lambda: not writer.busy, "the first batch's landing seen by the loop")
        assert writer.commits == 2
        writer.close()

    asyncio.run(scenario())


def test_on_the_loop_a_commit_runs_at_once_and_then_what_waits_even_if_it_raised() -> None:
    disk = Disk()
    writer = disk.writer(threaded=False)
    told: list[str] = []
    disk.collected = ["a"]
    writer.after_commit(lambda: told.append("turn 1"))
    assert disk.written == [["a"]] and told == ["turn 1"]
    assert disk.threads == {threading.current_thread().name}

    def broken(batch: list[str]) -> bool:
        raise RuntimeError("disk on fire")

    writer = Writer(disk.take, broken, disk.back, threaded=False)
    disk.collected = ["b"]
    with pytest.raises(RuntimeError):
        writer.after_commit(lambda: told.append("turn 2"))
    assert told == ["turn 1", "turn 2"], "the messages go even when the commit raised"


def test_closing_writes_what_is_left_and_runs_what_waits() -> None:
    async def scenario() -> None:
        disk = Disk(gated=True)
        writer = disk.writer(threaded=True)
        told: list[str] = []
        disk.collected = ["a"]
        writer.after_commit(lambda: told.append("turn 1"))
        await disk.started()
        disk.collected = ["b"]
        writer.after_commit(lambda: told.append("turn 2"))
        disk.let_one_through(after_s=0.05)
        disk.let_one_through(after_s=0.05)
        writer.close()
        assert disk.written == [["a"], ["b"]]
        assert "turn 2" in told, "what waited was dropped"
        await asyncio.sleep(0.01)  # batch 1's landing arrives after the close: nothing is sent again
        assert disk.written == [["a"], ["b"]] and sorted(told) == ["turn 1", "turn 2"]

    asyncio.run(scenario())


class Loop:
    """What :class:`Pace` asks of an event loop (and its clock): its time, and what it was told to call when."""

    def __init__(self) -> None:
        self.now = 100.0
        self.calls: list[float] = []

    def time(self) -> float:
        return self.now

    def call_soon(self, callback: object) -> None:
        self.calls.append(0.0)

    def call_later(self, delay: float, callback: object) -> None:
        self.calls.append(delay)


def test_a_pace_runs_at_once_after_a_quiet_spell_and_else_waits_for_its_period() -> None:
    loop = Loop()
    pace = Pace(0.005, clock=loop.time)
    pace.call(loop, print)  # type: ignore[arg-type]
    assert loop.calls == [0.0], "nothing ran lately: on the next turn"
    pace.ran()
    loop.now += 0.002
    pace.call(loop, print)  # type: ignore[arg-type]
    assert loop.calls[-1] == pytest.approx(0.003), "2 ms after the last run: 3 ms more"
    pace.ran()
    loop.now += 0.006
    pace.call(loop, print)  # type: ignore[arg-type]
    assert loop.calls[-1] == 0.0
    unpaced = Pace(0.0, clock=loop.time)
    unpaced.ran()
    unpaced.call(loop, print)  # type: ignore[arg-type]
    assert loop.calls[-1] == 0.0, "0: always the next turn"
