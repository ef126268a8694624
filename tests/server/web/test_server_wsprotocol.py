"""The server's WebSocket protocol (``server/web/wsprotocol.py``) against a real server: a
client that floods and never reads is cut off as soon as the rate limit closes it (not
read on for uvicorn's 10 s), the server parsing only what its application reads; an
ordinary client still gets the close code and its messages in order."""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Callable, Coroutine
from typing import Any

import pytest
import websockets

Arun = Callable[[Coroutine[Any, Any, Any]], Any]
ACT = '{"type": "act", "id": %d, "action": {"kind": "turn"}}'

pytestmark = pytest.mark.rate_limited  # the tests are about the server's own limit


def _metric(text: str, name: str) -> float:
    match = re.search(rf"^{re.escape(name)} (\S+)$", text, re.MULTILINE)
    return float(match.group(1)) if match else 0.0


def test_a_flooding_client_that_never_reads_is_cut_off_at_once(server: Any, arun: Arun) -> None:
    code = server.create_table(2)

    async def scenario() -> tuple[float, int]:
        ws = await websockets.connect(server.ws_url, ping_interval=None, compression=None)
        await ws.send(json.dumps({"type": "hello", "v": 1, "code": code, "name": "Flood"}))
        await asyncio.wait_for(ws.recv(), 5.0)  # the welcome: from now on it never reads
        start = time.monotonic()
        sent = 0
        try:
            while time.monotonic() - start < 8.0:  # uvicorn alone would read on for 10 s
                sent += 1
                await ws.send(ACT % sent)
        except websockets.ConnectionClosed:
            pass
        return time.monotonic() - start, sent

    seconds, sent = arun(scenario())
    assert seconds < 5.0, f"still connected after {seconds:.1f} s and {sent} messages"
    assert sent > 1000
    text = server.http("GET", "/metrics")[1]
    assert _metric(text, 'ligretto_bad_messages_total{code="rate_limited"}') == 1
    # The burst (40) was read; not the thousands that followed (lobby: each is not_playing).
    assert _metric(text, 'ligretto_bad_messages_total{code="not_playing"}') <= 40
    assert server.healthy()


def test_a_client_that_sends_a_burst_gets_every_answer_in_order(server: Any, arun: Arun) -> None:
    """Messages arriving together are parsed a piece at a time: none is lost or reordered."""
    pad = "x" * 3000  # a few of these fill more than one piece of 4 KiB

    def message(t: int) -> str:
        return json.dumps({"type": "ping", "t": t, "pad": pad} if t % 3 == 0 else {"type": "ping", "t": t})

    async def scenario() -> list[float]:
        ws = await websockets.connect(server.ws_url, ping_interval=None, compression=None)
        for t in range(30):
            await ws.send(message(t))
        answers = [json.loads(await asyncio.wait_for(ws.recv(), 5.0)) for _ in range(30)]
        await ws.close()
        return [a["t"] if a["type"] == "pong" else -1.0 for a in answers]

    # Every third ping has a field too many (an error, -1); the others are answered in order.
    assert arun(scenario()) == [-1.0 if t % 3 == 0 else float(t) for t in range(30)]
