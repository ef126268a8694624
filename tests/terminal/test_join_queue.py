"""``ligretto join URL --queue`` at a real ``ligretto serve``: two terminals wait in the
matchmaking queue for a table of two (the wait printed line by line), each is handed a
seat, and the app's transport comes back to that seat with the kept token, the round
dealt; a refused queue says why."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import pytest
from tui_support import until

from ligretto.terminal.app import LigrettoApp
from ligretto.terminal.model import Phase
from ligretto.terminal.queuewait import QueueRefused, wait_in_queue
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
