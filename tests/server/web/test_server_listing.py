"""The live lobby list of ``/ws/lobby`` (``server/web/listing.py``) in virtual time: one
listing a tick for every open socket however many there are, the same encoded text to
each and only when the list changed, nothing from an idle lobby; a slow socket holds the
newest list only, and one whose send is stuck for ``stall_s`` is given up.

The sockets are stand-ins with ``send_text`` (the real ones are tested over a real server
in ``test_server_admission.py``); the lobby is a real :class:`Lobby` with real tables on a
:class:`VirtualScheduler`."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Coroutine
from typing import Any

from ligretto.engine.rules import RuleSet
from ligretto.server.table.clock import VirtualScheduler
from ligretto.server.web.listing import PERIOD_S, Viewer
from ligretto.server.web.lobby import Lobby
from ligretto.server.web.settings import Settings

Run = Callable[[Coroutine[Any, Any, Any]], Any]
STALL_S = 6.0


class Socket:
    """A socket's ``send_text``: done at once, or (``hold``) once ``release`` is called."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.gate: asyncio.Future[None] | None = None

    def hold(self) -> None:
        self.gate = asyncio.get_running_loop().create_future()

    def release(self) -> None:
        assert self.gate is not None
        self.gate.set_result(None)
        self.gate = None

    async def send_text(self, data: str) -> None:
        if self.gate is not None:
            await self.gate
        self.texts.append(data)


def _viewer(scheduler: VirtualScheduler, socket: Socket, stalls: list[Socket] | None = None) -> Viewer:
    return Viewer(socket, scheduler, STALL_S, on_stall=lambda: (stalls if stalls is not None else []).append(socket))


async def _turns(count: int = 5) -> None:
    """Let the tasks the viewers started run (event-loop turns, no time passes)."""
    for _ in range(count):
        await asyncio.sleep(0)


def test_the_list_is_made_once_a_tick_for_every_socket_and_sent_only_when_it_changed(arun: Run) -> None:
    scheduler = VirtualScheduler()
    lobby = Lobby(Settings(), scheduler=scheduler)
    live = lobby.live_list
    first = lobby.create(2, RuleSet(), public=True, grace_s=60.0)

    async def scenario() -> None:
        sockets = [Socket() for _ in range(500)]
        for socket in sockets:
            live.add(_viewer(scheduler, socket))
        assert all(len(s.texts) == 1 for s in sockets), "each socket gets the list as it opens"
        assert [t["code"] for t in json.loads(sockets[-1].texts[0])["tables"]] == [first.code]

        looks = live.looks
        scheduler.advance(10.0)  # an idle lobby: nothing changes for 10 s
        assert live.looks - looks == round(10.0 / PERIOD_S), "one listing a tick, not one per socket"
        assert all(len(s.texts) == 1 for s in sockets), "an idle lobby sends nothing"

        second = lobby.create(3, RuleSet(), public=True, grace_s=60.0)
        lobby.create(2, RuleSet(), public=False, grace_s=60.0)
        scheduler.advance(PERIOD_S)
        sent = sockets[0].texts[1]
        assert [t["code"] for t in json.loads(sent)["tables"]] == [second.code, first.code]
        assert all(len(s.texts) == 2 and s.texts[1] is sent for s in sockets), "the same text, encoded once"
        scheduler.advance(5.0)
        assert all(len(s.texts) == 2 for s in sockets)

    arun(scenario())


def test_sockets_opening_are_each_given_the_list_and_the_others_told_once_a_tick(arun: Run) -> None:
    """Each socket that opens is one more online (``now``): it gets the list as it is then,
    and the sockets already open hear of the change at the next tick, once, however many
    opened meanwhile (not a broadcast per opening: 2,000 sockets opening were 2,000
    broadcasts to up to 2,000 sockets, docs/reliability.md, lobby_idle)."""
    scheduler = VirtualScheduler()
    lobby = Lobby(Settings(), scheduler=scheduler)
    live = lobby.live_list
    lobby.create(2, RuleSet(), public=True, grace_s=60.0)

    async def scenario() -> None:
        sockets = [Socket() for _ in range(200)]
        for index, socket in enumerate(sockets):
            assert lobby.connections.admit(f"10.0.{index // 100}.{index % 100}") is None  # counted as /ws/lobby does
            live.add(_viewer(scheduler, socket))
        await _turns()
        assert [len(s.texts) for s in sockets] == [1] * 200, "a first list each, nothing more yet"
        assert [json.loads(s.texts[0])["now"]["online"] for s in sockets] == list(range(1, 201))
        scheduler.advance(PERIOD_S)
        await _turns()
        assert all(len(s.texts) == 2 and json.loads(s.texts[1])["now"]["online"] == 200 for s in sockets[:-1])
        assert len(sockets[-1].texts) == 1, "the last to open has the list as it is"

    arun(scenario())


def test_a_lobby_nobody_watches_lists_nothing(arun: Run) -> None:
    scheduler = VirtualScheduler()
    lobby = Lobby(Settings(), scheduler=scheduler)
    live = lobby.live_list

    async def scenario() -> None:
        viewers = [_viewer(scheduler, Socket()) for _ in range(3)]
        for viewer in viewers:
            live.add(viewer)
        for viewer in viewers:
            live.remove(viewer)
        looks = live.looks
        assert scheduler.pending == 0, "no tick is set with no socket open"
        scheduler.advance(60.0)
        assert live.looks == looks
        socket = Socket()
        live.add(_viewer(scheduler, socket))  # a socket opening again starts it again
        lobby.create(2, RuleSet(), public=True, grace_s=60.0)
        scheduler.advance(PERIOD_S)
        assert len(socket.texts) == 2

    arun(scenario())


def test_a_slow_socket_keeps_only_the_newest_list(arun: Run) -> None:
    scheduler = VirtualScheduler()

    async def scenario() -> None:
        socket = Socket()
        viewer = _viewer(scheduler, socket)
        socket.hold()
        for text in ("one", "two", "three", "four"):
            viewer.write(text)
        assert viewer.pending == "four", "one text waits, not a queue"
        socket.release()
        await _turns()
        assert socket.texts == ["one", "four"]
        assert viewer.sender is None and scheduler.pending == 0, "caught up: no stall timer left"

    arun(scenario())


def test_a_socket_whose_send_is_stuck_is_given_up(arun: Run) -> None:
    scheduler = VirtualScheduler()

    async def scenario() -> None:
        socket = Socket()
        stalls: list[Socket] = []
        viewer = _viewer(scheduler, socket, stalls)
        viewer.write("one")  # taken at once
        socket.hold()
        viewer.write("two")  # the client stops reading
        scheduler.advance(STALL_S - 0.5)
        viewer.write("three")
        assert stalls == [], "slow, not yet stuck"
        scheduler.advance(0.5)
        assert stalls == [socket] and viewer.closed
        await _turns()
        assert viewer.sender is None, "its send was cancelled"
        viewer.write("four")
        scheduler.advance(STALL_S * 2)
        assert socket.texts == ["one"] and stalls == [socket], "nothing more is sent, the stall is told once"

    arun(scenario())
