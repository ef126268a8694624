"""The browser in a service of two processes (issue 16): the pages are served by one
process, their table lives on the other (placed there by load) and reaches them through
the relay; the owner is killed mid-round (SIGKILL); the page reconnects by itself to the
process it knows, which has taken the table over, restored from the shared file: back at
its seat with the round as it was under a countdown (the round waits for Bob, whose page
was closed), and once Bob's page is back *go*, and Alice plays on.  The
browser needs nothing special for it: this test checks so."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from typing import Any

import pytest
import redis
import websockets.sync.client
from browserkit import (
    host_table,
    join_by_link,
    plays_on_once_back,
    shows_the_round_as_it_was,
    start_match,
    turn_the_hand,
)
from playwright.sync_api import expect

from ligretto.server.cluster import keys
from realserver import ServerProcess, running
from redisserver import RedisServer, redis_server

__all__ = ["redis_server"]


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory, redis_server: RedisServer) -> Iterator[list[ServerProcess]]:
    """Two processes on one SQLite file and the session's redis-server: the owner-to-be
    and the entrance the pages are served by."""
    redis_server.flush()
    folder = tmp_path_factory.mktemp("cluster-browser")
    with contextlib.ExitStack() as stack:
        processes = []
        for name in ("owner", "entrance"):
            process = ServerProcess(folder / "ligretto.db", folder / f"{name}.log", redis=redis_server.url)
            process.settings["advertise"] = process.url
            processes.append(stack.enter_context(running(process)))
        yield processes


@pytest.fixture(scope="module")
def server(service: list[ServerProcess]) -> ServerProcess:
    """The pages' server: the entrance."""
    return service[1]


def _process_id(process: ServerProcess) -> str:
    status, body = process.http("GET", "/healthz")
    assert status == 200, body
    return str(body["process"])


def test_the_pages_follow_their_table_to_another_process(pages: Any, service: list[ServerProcess]) -> None:
    owner, entrance = service
    # The entrance looks busy (idle lobby sockets), so the new table goes to the owner.
    busy = contextlib.ExitStack()
    for _ in range(3):
        busy.enter_context(websockets.sync.client.connect(f"ws://127.0.0.1:{entrance.port}/ws/lobby"))
    time.sleep(1.5)  # a heartbeat with those connections
    alice = pages.open()
    code = host_table(alice, "Alice", seats=2)
    directory = redis.Redis.from_url(owner.settings["redis"], decode_responses=True)
    assert directory.get(keys.table(code)) == _process_id(owner), "placed by load on the quieter process"
    bobs = pages.context()
    bob = pages.open(f"/#/t/{code}", context=bobs)
    join_by_link(bob, "Bob")
    start_match(alice, bob)
    before = turn_the_hand(alice)  # the board is no longer the deal's
    assert before["live"] and before["hand"] > 0

    bob.close()  # Bob is away when the owner goes down: the restored round waits for him

    owner.kill()

    # Alice's page reconnects to the entrance by itself, which takes the table over and
    # restores it: the round as it left it, under a countdown (waiting for Bob).
    screen = alice.locator(".table-screen")
    expect(screen).to_have_attribute("data-phase", "countdown", timeout=30_000)
    assert directory.get(keys.table(code)) == _process_id(entrance), "taken over by the entrance"
    shows_the_round_as_it_was(alice, before)
    pages.open(f"/#/t/{code}", context=bobs)  # Bob's page again: back at his seat with its token
    plays_on_once_back(alice, before, timeout_ms=15_000)
    busy.close()
    directory.close()
    assert not pages.errors
