"""The stress harness's table-creation flood (issue 13, "Measured";
``python -m ligretto.harness.stress --scenario tables``): ``count`` public tables asked
for from one address as fast as the server answers.  It reports how many were made, how
many refused (by error code: ``too_many_tables`` is the quota of docs/protocol.md,
Limits), and the size of the lobby list after: ``GET /api/tables`` and the first
``/ws/lobby`` message, which every lobby watcher is sent."""

from __future__ import annotations

import asyncio
import json
import time
import urllib.error

from websockets.asyncio.client import connect

from ligretto.harness.probes import http, rss_of
from ligretto.harness.run import server_urls
from ligretto.harness.scenario import ScenarioReport


def _create(base: str) -> str:
    """One ``POST /api/tables``: ``"made"`` or the refusal's error code."""
    body = {"seats": 2, "public": True}
    try:
        http(f"{base}/api/tables", body)
    except urllib.error.HTTPError as error:
        try:
            return str(json.loads(error.read())["error"])
        except (ValueError, KeyError, TypeError):
            return f"http_{error.code}"
    return "made"


async def list_tables(base: str, count: int) -> int:
    """``count`` public tables asked for (a lobby list to send: the lobby scenarios); how many were made."""
    return sum([await asyncio.to_thread(_create, base) == "made" for _ in range(count)])


async def lobby_sizes(base: str, ws_url: str) -> dict[str, int]:
    """The lobby list as sent: its bytes over HTTP and over ``/ws/lobby``, the tables it
    shows and how many public tables there are."""
    listing = await asyncio.to_thread(http, f"{base}/api/tables")
    async with connect(f"{ws_url}/lobby", compression=None, ping_interval=None, proxy=None) as ws:
        message = await asyncio.wait_for(ws.recv(), 10.0)
    body = json.loads(listing)
    return {
        "http_bytes": len(listing),
        "ws_lobby_bytes": len(message),
        "tables_shown": len(body["tables"]),
        "tables_public": int(body["total"]),
    }


async def run_table_flood(url: str, count: int, *, server_pid: int | None = None) -> ScenarioReport:
    """Ask for ``count`` public tables from this one address, one after another; the
    report (tried: the tables asked for; details: made, refused by code, the lobby list
    before and after)."""
    base, ws_url = server_urls(url)
    rss_before = rss_of(server_pid)[0] if server_pid else None
    lobby_before = await lobby_sizes(base, ws_url)
    answers: dict[str, int] = {}
    start = time.monotonic()
    for _ in range(count):
        answer = await asyncio.to_thread(_create, base)
        answers[answer] = answers.get(answer, 0) + 1
    seconds = time.monotonic() - start
    try:
        lobby_after: dict[str, int] | None = await lobby_sizes(base, ws_url)
    except OSError:
        lobby_after = None
    made = answers.pop("made", 0)
    return ScenarioReport(
        scenario="tables",
        what="tables asked for",
        tried=count,
        seconds=round(seconds, 1),
        crashes=0 if lobby_after is not None else 1,
        rss_before=rss_before,
        rss_after=rss_of(server_pid)[0] if server_pid else None,
        details={
            "made": made,
            "refused": dict(sorted(answers.items())),
            "lobby_before": lobby_before,
            "lobby_after": lobby_after,
        },
    )
