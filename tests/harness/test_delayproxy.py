"""The delaying proxy: bytes arrive intact and in order, never before the delay (lower
bounds only: a busy machine only ever makes them later)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time

import pytest

from ligretto.harness.delayproxy import Delay, DelayProxy

DELAY = 0.05

TIMER_SLACK_S = 0.001
"""How early an event loop's timer was seen to fire (a round trip of 19.93 ms for 2 x 10 ms)."""


async def _echo_server() -> tuple[asyncio.Server, int]:
    async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while data := await reader.read(4096):
            writer.write(data)
            await writer.drain()
        writer.close()

    server = await asyncio.start_server(echo, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1]


async def _read_exactly(reader: asyncio.StreamReader, size: int) -> bytes:
    return await asyncio.wait_for(reader.readexactly(size), 10)


def test_bytes_arrive_intact_in_order_after_the_delay_each_way() -> None:
    async def scenario() -> None:
        server, port = await _echo_server()
        async with server, DelayProxy(("127.0.0.1", port), Delay(DELAY, jitter=0.02), seed=3) as proxy:
            reader, writer = await asyncio.open_connection("127.0.0.1", proxy.port)
            # Many small writes with jitter: a later chunk may draw a shorter delay, yet
            # every byte must come back in the order it was sent.
            payload = b"".join(i.to_bytes(2, "big") for i in range(3000))
            start = time.monotonic()
            for offset in range(0, len(payload), 97):
                writer.write(payload[offset : offset + 97])
                await writer.drain()
            first = await _read_exactly(reader, 1)
            round_trip = time.monotonic() - start
            rest = await _read_exactly(reader, len(payload) - 1)
            assert first + rest == payload
            assert round_trip >= 2 * DELAY  # through the proxy both ways
            writer.close()
            assert proxy.connections == 1

    asyncio.run(scenario())


def test_a_closed_side_is_passed_on_after_its_bytes() -> None:
    async def scenario() -> None:
        async def say_and_close(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            writer.write(b"goodbye")
            await writer.drain()
            writer.close()

        server = await asyncio.start_server(say_and_close, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        async with server, DelayProxy(("127.0.0.1", port), Delay(DELAY)) as proxy:
            reader, writer = await asyncio.open_connection("127.0.0.1", proxy.port)
            assert await asyncio.wait_for(reader.read(), 10) == b"goodbye"  # then end of stream
            writer.close()

    asyncio.run(scenario())


def test_a_negative_delay_is_refused() -> None:
    with pytest.raises(ValueError, match="not negative"):
        Delay(-0.01)


def test_the_proxy_process_prints_its_ports_and_forwards() -> None:
    async def scenario() -> None:
        server, port = await _echo_server()
        async with server:
            process = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "ligretto.harness.delayproxy",
                "--to",
                f"127.0.0.1:{port}",
                "--delay-ms",
                "10",
                "--delay-ms",
                "30",
                stdout=subprocess.PIPE,
            )
            try:
                assert process.stdout is not None
                ports = json.loads(await asyncio.wait_for(process.stdout.readline(), 20))["ports"]
                assert len(ports) == 2
                for proxy_port, delay in zip(ports, (0.01, 0.03), strict=True):
                    reader, writer = await asyncio.open_connection("127.0.0.1", proxy_port)
                    start = time.monotonic()
                    writer.write(b"ping")
                    assert await _read_exactly(reader, 4) == b"ping"
                    # Both ways delayed (a timer may fire a hair early: 1 ms of slack).
                    assert time.monotonic() - start >= 2 * delay - TIMER_SLACK_S
                    writer.close()
            finally:
                process.terminate()
                await process.wait()

    asyncio.run(scenario())
