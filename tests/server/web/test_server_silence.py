"""The silence and hello deadlines of ``/ws`` connections (``server/web/silence.py``), on
an injected clock; a real server's connections closed by them are in
``tests/server/test_server_heartbeat.py`` and ``tests/harness/test_stress.py``."""

from __future__ import annotations

import asyncio
import math
from collections import Counter

from ligretto.server.web.settings import Settings
from ligretto.server.web.silence import FIRED_AT_ONCE, Silence, Watch


class Deadline:
    """An ``asyncio.Timeout``'s ``reschedule``, without a loop: when it was told to fire."""

    def __init__(self) -> None:
        self.at: float | None = None

    def reschedule(self, when: float | None) -> None:
        self.at = when


def _silence(now: list[float], **settings: float) -> tuple[Silence, Deadline]:
    silence = Silence(Settings(**settings), lambda: now[0])
    deadline = Deadline()
    silence.deadline = deadline  # type: ignore[assignment]
    return silence, deadline


def test_the_hello_deadline_comes_before_the_silence_deadline_until_a_table_is_joined() -> None:
    now = [100.0]
    early, _ = _silence(now, silence_s=6.0, hello_s=5.0)
    late, _ = _silence(now, silence_s=6.0, hello_s=10.0)
    assert not early.due(104.9) and early.due(105.0), "no hello within hello_s"
    assert not late.due(105.9) and late.due(106.0), "silent for silence_s before its hello deadline"
    now[0] = 104.0
    late.heard(seated=False)
    assert not late.due(109.9) and late.due(110.0), "a message that seats nobody: the hello deadline stays"
    late.heard(seated=True)
    assert late.hello_by is None and not late.due(109.9) and late.due(110.0), "seated: only silence counts"
    assert not late.no_hello()
    now[0] = 106.0
    assert early.no_hello(), "the deadline that passed was the hello's"
    quiet, _ = _silence(now, silence_s=0.0, hello_s=0.0)
    assert not quiet.due(1e9) and not quiet.no_hello(), "0: no deadline"


def test_the_watch_fires_what_is_due_once_and_ticks_within_a_quarter_of_the_deadlines() -> None:
    now = [0.0]
    watch = Watch(Settings(silence_s=6.0, hello_s=2.0))
    assert watch.tick_s == 0.5
    assert Watch(Settings(silence_s=60.0, hello_s=0.0)).tick_s == 1.0, "at most a second"
    assert Watch(Settings(silence_s=0.4, hello_s=10.0)).tick_s == 0.1
    talking, talking_deadline = _silence(now, silence_s=6.0, hello_s=2.0)
    quiet, quiet_deadline = _silence(now, silence_s=6.0, hello_s=2.0)
    watch.silences |= {talking, quiet}
    now[0] = 1.0
    talking.heard(seated=True)
    assert watch.look(1.5) == []
    assert watch.look(2.0) == [quiet], "no hello"
    assert watch.silences == {talking}, "a due deadline is watched no more"
    Watch.fire(quiet)
    assert quiet_deadline.at == -math.inf, "fired: at once"
    assert watch.look(6.9) == [] and talking_deadline.at is None
    assert watch.look(7.0) == [talking]
    assert watch.look(100.0) == []


def test_one_task_watches_while_connections_are_open() -> None:
    async def scenario() -> None:
        watch = Watch(Settings(silence_s=0.2, hello_s=0.0))
        loop = asyncio.get_running_loop()
        silence = Silence(Settings(silence_s=0.2, hello_s=0.0), loop.time)
        with_timeout: list[bool] = []

        async def connection() -> None:
            try:
                async with asyncio.timeout(None) as silence.deadline:
                    watch.add(silence)
                    await asyncio.sleep(10)
            except TimeoutError:
                with_timeout.append(True)

        started = loop.time()
        await asyncio.wait_for(connection(), 2.0)
        assert with_timeout == [True] and loop.time() - started >= 0.2, "not before silence_s"
        await asyncio.sleep(0.1)
        assert watch.task is None, "nothing to watch: its task has ended"
        # A storm: more due at once than are fired in one turn, all fired, a turn at a time.
        storm = [Silence(Settings(silence_s=0.2, hello_s=0.0), loop.time) for _ in range(3 * FIRED_AT_ONCE)]
        timed_out: dict[int, int] = {}
        turns = [0]

        async def count_turns() -> None:
            while True:
                turns[0] += 1
                await asyncio.sleep(0)

        async def idle(index: int, silence: Silence) -> None:
            try:
                async with asyncio.timeout(None) as silence.deadline:
                    watch.add(silence)
                    await asyncio.sleep(10)
            except TimeoutError:
                timed_out[index] = turns[0]

        ticker = asyncio.create_task(count_turns())
        await asyncio.wait_for(asyncio.gather(*(idle(i, s) for i, s in enumerate(storm))), 5.0)
        ticker.cancel()
        assert sorted(timed_out) == list(range(len(storm))), "every one closed"
        assert len(set(timed_out.values())) >= 3, "over three turns of the loop at least"
        assert max(Counter(timed_out.values()).values()) <= FIRED_AT_ONCE
        other = Silence(Settings(silence_s=0.2, hello_s=0.0), loop.time)
        watch.add(other)
        assert watch.task is not None
        watch.discard(other)
        await asyncio.sleep(0.15)
        assert watch.task is None

    asyncio.run(scenario())
