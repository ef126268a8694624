"""A delaying TCP proxy on 127.0.0.1: what a network far away does to a connection, without
root (the fairness benchmark's far and near clients, docs/fairness.md).

A :class:`DelayProxy` listens on a free port and opens one connection to its target for
each client that connects.  Every chunk read in either direction is held back by a fixed
one-way ``delay`` (plus, with ``jitter``, a uniform ``U(0, jitter)`` drawn from a seeded
generator) and then written on, in the order it was read: each direction is one queue of
(release time, bytes), and a chunk is never released before the chunk before it, so the
bytes of a stream are never reordered (jitter only ever delays a chunk more).  A closed
side is passed on once the bytes before it have gone.

``python -m ligretto.harness.delayproxy --to 127.0.0.1:8000 --delay-ms 10 --delay-ms 100``
runs one proxy per delay in a process of its own and prints their ports as one JSON line
(``{"ports": [...]}``), then serves until it is terminated: the benchmark's clients then
share their process with nothing that delays the proxy's timers.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import sys
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass
from typing import Any

CHUNK = 65536
"""Bytes read at a time."""


@dataclass(frozen=True, slots=True)
class Delay:
    """One way's delay in seconds: ``base`` plus ``U(0, jitter)``."""

    base: float
    jitter: float = 0.0

    def __post_init__(self) -> None:
        if self.base < 0 or self.jitter < 0:
            raise ValueError(f"a delay is not negative: {self.base}, {self.jitter}")


class DelayProxy:
    """A TCP proxy from ``127.0.0.1:port`` (a free port unless given) to ``target``,
    delaying every chunk by ``delay`` each way (see the module's docstring)."""

    def __init__(self, target: tuple[str, int], delay: Delay, *, port: int = 0, seed: int = 0) -> None:
        self.target = target
        self.delay = delay
        self.requested_port = port
        self.random = random.Random(seed)
        self.server: asyncio.Server | None = None
        self.connections = 0
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def port(self) -> int:
        assert self.server is not None, "the proxy is not started"
        port: int = self.server.sockets[0].getsockname()[1]
        return port

    async def start(self) -> None:
        self.server = await asyncio.start_server(self._connected, "127.0.0.1", self.requested_port)

    async def close(self) -> None:
        if self.server is not None:
            self.server.close()
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        if self.server is not None:
            await self.server.wait_closed()

    async def __aenter__(self) -> DelayProxy:
        await self.start()
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.close()

    def _spawn(self, coroutine: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _connected(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._spawn(self._serve(reader, writer))

    async def _serve(self, client_in: asyncio.StreamReader, client_out: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            server_in, server_out = await asyncio.open_connection(*self.target)
        except OSError:
            client_out.close()
            return
        try:
            await asyncio.gather(self._pipe(client_in, server_out), self._pipe(server_in, client_out))
        finally:
            for writer in (client_out, server_out):
                writer.close()

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """One direction: read, stamp each chunk with its release time, write it then."""
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()
        sender = asyncio.ensure_future(self._send(queue, writer))
        last = 0.0
        try:
            while True:
                try:
                    chunk = await reader.read(CHUNK)
                except (ConnectionError, OSError):
                    chunk = b""
                due = loop.time() + self.delay.base
                if self.delay.jitter:
                    due += self.random.random() * self.delay.jitter
                last = max(last, due)  # never before the chunk read before it
                queue.put_nowait((last, chunk))
                if not chunk:
                    break
            await sender
        finally:
            sender.cancel()

    @staticmethod
    async def _send(queue: asyncio.Queue[tuple[float, bytes]], writer: asyncio.StreamWriter) -> None:
        loop = asyncio.get_running_loop()
        while True:
            due, chunk = await queue.get()
            wait = due - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            if not chunk:  # the other side closed: pass it on
                with contextlib.suppress(OSError, RuntimeError):
                    if writer.can_write_eof():
                        writer.write_eof()
                return
            try:
                writer.write(chunk)
                await writer.drain()
            except (ConnectionError, OSError):
                return


# --- in a process of its own ----------------------------------------------------------


async def serve(target: tuple[str, int], delays: Sequence[Delay], seed: int = 0) -> None:
    """One proxy per delay; their ports printed as one JSON line; serve until cancelled."""
    proxies = [DelayProxy(target, delay, seed=seed + i) for i, delay in enumerate(delays)]
    for proxy in proxies:
        await proxy.start()
    print(json.dumps({"ports": [proxy.port for proxy in proxies]}), flush=True)
    try:
        await asyncio.Event().wait()
    finally:
        for proxy in proxies:
            await proxy.close()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ligretto.harness.delayproxy", description=__doc__)
    parser.add_argument("--to", required=True, help="the target, HOST:PORT")
    parser.add_argument("--delay-ms", type=float, action="append", required=True, help="one proxy per delay")
    parser.add_argument("--jitter-ms", type=float, action="append", help="each proxy's jitter (default 0)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    host, _, port = args.to.rpartition(":")
    jitters = args.jitter_ms or [0.0] * len(args.delay_ms)
    if len(jitters) != len(args.delay_ms):
        parser.error("give one --jitter-ms per --delay-ms, or none")
    delays = [Delay(d / 1000, j / 1000) for d, j in zip(args.delay_ms, jitters, strict=True)]
    try:
        import uvloop  # noqa: PLC0415 (it comes with uvicorn[standard])
    except ImportError:
        factory = None
    else:
        factory = uvloop.new_event_loop
    with contextlib.suppress(KeyboardInterrupt), asyncio.Runner(loop_factory=factory) as runner:
        runner.run(serve((host, int(port)), delays, args.seed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
