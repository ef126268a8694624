"""``ligretto join URL --queue`` at a real ``ligretto serve``: two terminals wait in the
matchmaking queue for a table of two (the wait printed line by line), each is handed a
seat, and the app's transport comes back to that seat with the kept token, the round
dealt; a refused queue says why; a party made in one terminal and joined in another is
seated together."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import pytest
import websockets
from tui_support import until

from ligretto.terminal.app import LigrettoApp
from ligretto.terminal.model import Phase
from ligretto.terminal.queuewait import MAKE, QueueRefused, wait_in_queue
from ligretto.terminal.remote import RemoteTable, SeatTokens, ws_url
from realserver import ServerProcess


def test_two_terminals_queue_and_land_in_their_seats(
    server: ServerProcess, tmp_path: Path, arun: Callable[[Coroutine[Any, Any, Any]], Any]
) -> None:
    tokens = [SeatTokens(tmp_path / f"seats{i}.json") for i in range(2)]
    lines: list[list[str]] = [[], []]

    async def scenario() -> None:
        seated = await asyncio.gather(
            *(
                wait_in_queue(server.url, name, 2, tokens=tokens[i], say=lines[i].append)
                for i, name in enumerate(("Uma", "Vic"))
            )
        )
        assert seated[0].code == seated[1].code and {s.seat for s in seated} == {0, 1}
        assert lines[0][-1] == f"seated at table {seated[0].code}, seat {seated[0].seat + 1}"
        key = f"{ws_url(server.url)}#{seated[0].code}"
        assert [t.get(key) for t in tokens] == [s.token for s in seated]
        app = LigrettoApp(RemoteTable(server.url, seated[0].code, "Uma", tokens=tokens[0]))
        async with app.run_test(size=(100, 32)) as pilot:
            model = app.model
            await until(pilot, lambda: model.seat == seated[0].seat and model.phase is not Phase.LOBBY, what="the seat")

    arun(scenario())


def test_a_refused_queue_says_why(
    server: ServerProcess, tmp_path: Path, arun: Callable[[Coroutine[Any, Any, Any]], Any]
) -> None:
    async def scenario() -> None:
        with pytest.raises(QueueRefused, match="bad_name"):
            await wait_in_queue(server.url, " ", 2, tokens=SeatTokens(tmp_path / "s.json"), say=lambda line: None)

    arun(scenario())


def test_a_party_made_in_one_terminal_and_joined_in_another_lands_at_one_table(
    server: ServerProcess, tmp_path: Path, arun: Callable[[Coroutine[Any, Any, Any]], Any]
) -> None:
    """``--party`` prints the party's code and queues when its maker is ready (Enter: here
    an awaitable); ``--party CODE`` joins it and waits for the maker's queue; both are
    seated at one table.  A code of no party, a full party (12 people) and a maker who
    leaves are each one refusal."""
    tokens = [SeatTokens(tmp_path / f"party{i}.json") for i in range(2)]
    lines: list[list[str]] = [[], []]

    async def both_listed() -> None:
        await _until(lambda: any("Uma and Vic" in line for line in lines[0]))

    async def scenario() -> None:
        maker = asyncio.create_task(
            wait_in_queue(server.url, "Uma", 2, party=MAKE, ready=both_listed, tokens=tokens[0], say=lines[0].append)
        )
        await _until(lambda: bool(lines[0]))
        code = lines[0][0].split()[1].rstrip(":")
        assert lines[0][0] == f"party {code}: Uma; friends join with --party {code}; press Enter to queue together"
        member = wait_in_queue(server.url, "Vic", 2, party=code, tokens=tokens[1], say=lines[1].append)
        seated = await asyncio.gather(maker, member)
        assert seated[0].code == seated[1].code and {s.seat for s in seated} == {0, 1}
        assert lines[1][0] == f"party {code}: Uma and Vic; waiting for Uma to queue"
        assert lines[1][-1] == f"seated at table {seated[1].code}, seat {seated[1].seat + 1}"  # full: no wait
        assert [t.get(f"{ws_url(server.url)}#{seated[0].code}") for t in tokens] == [s.token for s in seated]
        await refusals()

    async def refusals() -> None:
        quiet = SeatTokens(tmp_path / "refused.json")
        with pytest.raises(QueueRefused, match="no_party"):
            await wait_in_queue(server.url, "Wes", 2, party="nosuchparty", tokens=quiet, say=lambda line: None)
        url = ws_url(server.url) + "/queue"
        async with contextlib.AsyncExitStack() as stack:
            people = [await stack.enter_async_context(websockets.connect(url)) for _ in range(12)]
            await people[0].send(json.dumps({"type": "party_make", "v": 1, "name": "P0"}))
            code = json.loads(await people[0].recv())["code"]
            for i, friend in enumerate(people[1:], start=1):
                await friend.send(json.dumps({"type": "party_join", "v": 1, "code": code, "name": f"P{i}"}))
                await _until_party_of(friend, i + 1)
            with pytest.raises(QueueRefused, match="party_full"):
                await wait_in_queue(server.url, "Wes", 12, party=code, tokens=quiet, say=lambda line: None)
            await people[11].close()
            said: list[str] = []
            waiting = asyncio.create_task(
                wait_in_queue(server.url, "Wes", 12, party=code, tokens=quiet, say=said.append)
            )
            await _until(lambda: bool(said))
            await people[0].close()  # the maker leaves: the party is no more
            with pytest.raises(QueueRefused, match="party_over"):
                await waiting

    arun(scenario())


async def _until(condition: Callable[[], bool], timeout_s: float = 10.0) -> None:
    async with asyncio.timeout(timeout_s):
        while not condition():
            await asyncio.sleep(0.02)


async def _until_party_of(ws: Any, members: int) -> None:
    async with asyncio.timeout(10.0):
        while True:
            message = json.loads(await ws.recv())
            if message["type"] == "party" and len(message["members"]) == members:
                return
