"""The directory of one process on its own (``server/cluster/directory.py``): today's
server — every code is free to take, nothing is routed, forwarded or placed elsewhere,
the lobby list is this process's own (capped, with the total), and starting restores
every table of the store."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from ligretto.engine.rules import RuleSet
from ligretto.server.cluster.directory import Directory
from ligretto.server.records.store import Store
from ligretto.server.web.lobby import Lobby
from ligretto.server.web.settings import Settings


def test_one_process_owns_every_table_and_routes_nothing(arun: Any) -> None:
    async def scenario() -> None:
        directory = Directory()
        assert directory.process is None and directory.address is None
        assert await directory.reserve("abc", stored=True)
        assert await directory.route('{"type": "hello", "v": 1, "code": "abc", "name": "Ann"}', relayed=False) is None
        assert await directory.forward(None, "abc") is None  # type: ignore[arg-type]
        assert await directory.place(None) is None  # type: ignore[arg-type]

    arun(scenario())


def test_its_lobby_list_is_its_own_capped_with_the_total() -> None:
    lobby = Lobby(Settings(lobby_tables=2))
    made = [lobby.create(2, RuleSet(), public=True, grace_s=60) for _ in range(3)]
    listing = lobby.public_listing()
    assert [t.code for t in listing.tables] == [made[2].code, made[1].code] and listing.total == 3


def test_starting_restores_every_table_of_the_store(tmp_path: Path, arun: Any) -> None:
    async def scenario() -> None:
        store = Store(tmp_path / "l.db")
        first = Lobby(Settings(), store)
        codes = {first.create(2, RuleSet(), public=True, grace_s=60).code for _ in range(2)}
        await asyncio.sleep(0)  # the store commits on the loop's next turn
        store.close()
        again = Lobby(Settings(), Store(tmp_path / "l.db"))
        await again.directory.start(again)
        assert set(again.tables) == codes
        again.store.close()

    arun(scenario())
