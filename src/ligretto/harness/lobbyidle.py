"""The stress harness's idle lobby sockets (issue 27, ``ligretto stress --scenarios
lobby_idle``): ``sockets`` ``/ws/lobby`` sockets that send nothing, held open for
``hold_s`` while the measuring tables play, with ``tables`` public tables in the list.

The server makes the lobby list once a tick for every socket (``server/web/listing.py``):
held silent, a thousand sockets must cost what one does.  Each socket reads what it is
sent (a client that reads nothing is closed as stalled: ``tests/server/web``), counting the
lists.  :func:`run_lobby_idle` checks that every socket gets its first list, that none is
closed while it idles, that the tables were listed at most once a tick while they were held
(the server's ``ligretto_lobby_listings_total``: once per socket per tick is the defect
this scenario is for), and that every socket gets the new list when a public table
appears; it reports the server's CPU while they are held, its memory per socket, and
(its window: the hold) the other tables' ack meanwhile."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, WebSocketException

from ligretto.harness.idle import OPENING
from ligretto.harness.probes import Cpu, alive, metrics, rss_of
from ligretto.harness.run import server_urls
from ligretto.harness.scenario import ScenarioReport
from ligretto.harness.tableflood import list_tables

LISTINGS = "ligretto_lobby_listings_total"
PERIOD_S = 0.5
"""The lobby feed's tick (``server/web/listing.py``, ``PERIOD_S``: the harness does not
import the server)."""
LIST_WAIT_S = 10.0
"""How long a socket may wait for a list it is owed."""


class Watcher:
    """One silent lobby socket: the lists it was sent, and whether the server closed it."""

    def __init__(self) -> None:
        self.ws: ClientConnection | None = None
        self.lists = 0
        self.total: int | None = None
        """The number of public tables the newest list says there are."""
        self.closed_code: int | None = None
        self.reader: asyncio.Task[None] | None = None

    async def open(self, lobby_url: str, slots: asyncio.Semaphore) -> bool:
        async with slots:
            try:
                self.ws = await connect(lobby_url, compression=None, ping_interval=None, proxy=None, max_size=None)
            except (OSError, WebSocketException):
                return False
        self.reader = asyncio.create_task(self._read(self.ws))
        return True

    async def _read(self, ws: ClientConnection) -> None:
        try:
            async for text in ws:
                message = json.loads(text)
                if message.get("type") == "lobby":
                    self.lists += 1
                    self.total = message.get("total")
        except ConnectionClosed:
            pass
        self.closed_code = ws.close_code if ws.close_code is not None else 1006

    async def close(self) -> None:
        if self.ws is not None and self.reader is not None:
            self.reader.cancel()
            await self.ws.close()


async def _until(check: Any, wait_s: float) -> None:
    """Wait until ``check()`` is true, or ``wait_s``."""
    deadline = time.monotonic() + wait_s
    while not check() and time.monotonic() < deadline:
        await asyncio.sleep(0.05)


async def run_lobby_idle(
    url: str, sockets: int, hold_s: float, *, tables: int = 0, server_pid: int | None = None
) -> ScenarioReport:
    """``sockets`` silent lobby sockets held ``hold_s`` with ``tables`` public tables listed;
    the report (tried: the sockets; its window: the hold)."""
    base, ws_url = server_urls(url)
    listed = await list_tables(base, tables)
    rss_before = rss_of(server_pid)[0] if server_pid else None
    # 1. The sockets, OPENING at a time, each with its first list.
    started = time.monotonic()
    watchers = [Watcher() for _ in range(sockets)]
    slots = asyncio.Semaphore(OPENING)
    opened = sum(await asyncio.gather(*(w.open(f"{ws_url}/lobby", slots) for w in watchers)))
    opening_s = time.monotonic() - started
    await _until(lambda: all(w.lists or w.closed_code for w in watchers), LIST_WAIT_S)
    without_first = sum(not w.lists for w in watchers)
    # 2. Held silent: the listings counted, the server's CPU and memory.
    listings = (await metrics(base)).get(LISTINGS)
    start, cpu = time.perf_counter(), Cpu(server_pid or None)
    await asyncio.sleep(hold_s)
    end = time.perf_counter()
    cpu.stop()
    listings_after = (await metrics(base)).get(LISTINGS)
    rss_held = rss_of(server_pid)[0] if server_pid else None
    most = int((end - start) / PERIOD_S) + 2  # a tick each, one more for /metrics' own timing
    looks = None if listings is None or listings_after is None else int(listings_after - listings)
    closed_idle = sum(w.closed_code is not None for w in watchers)
    # 3. A public table appears: every socket gets the new list.
    before = {id(w): w.lists for w in watchers}
    await list_tables(base, 1)
    await _until(lambda: all(w.lists > before[id(w)] or w.closed_code for w in watchers), LIST_WAIT_S)
    not_told = sum(w.lists == before[id(w)] and w.closed_code is None for w in watchers)
    up = await alive(base)
    await asyncio.gather(*(w.close() for w in watchers))
    held = None if rss_held is None or rss_before is None else rss_held - rss_before
    return ScenarioReport(
        scenario="lobby_idle",
        what="idle lobby sockets",
        tried=sockets,
        seconds=round(time.monotonic() - started, 1),
        crashes=0 if up else 1,
        # not opened, no first list, closed while idle, not told of the new table
        wrong_answers=(sockets - opened) + without_first + closed_idle + not_told,
        over_bound=1 if looks is None or looks > most else 0,
        rss_before=rss_before,
        rss_after=rss_of(server_pid)[0] if server_pid else None,
        window=(start, end),
        details={
            "opened": opened,
            "opened_per_s": round(opened / opening_s, 1) if opening_s else None,
            "without_a_first_list": without_first,
            "closed_while_idle": closed_idle,
            "not_told_of_a_new_table": not_told,
            "public_tables": listed,
            "hold_s": round(end - start, 1),
            "listings_while_held": looks,
            "listings_at_most": most,
            "server_cpu_percent": cpu.figures["server_percent"],
            "server_rss_held_bytes": rss_held,
            "bytes_per_socket": None if held is None or not opened else round(held / opened),
        },
    )
