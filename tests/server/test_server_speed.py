"""Inhuman speed caught over real WebSockets (engine/tempo.py, docs/fairness.md).

Two tables of a real server, each played by two external clients (the load test's
players: ``harness.client.Client``, one real WebSocket each, choosing with the bots'
strategy and waiting a reaction time drawn from a bot level before each move).  At the
first, the host plays at the ``expert`` level and its rival answers everything at once
(``machine``: the client's own floor of 60 ms between moves): the host is told
(``speed``) that the rival's seat was flagged, within the first round.  At the second,
both play at the ``expert`` level through a whole round: nobody is flagged.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ligretto import protocol
from ligretto.harness.client import Client, ClientSettings, Pacer, TableRun
from ligretto.harness.figures import Figures
from ligretto.protocol import ServerMessage


class Watching(Client):
    """A load-test player that keeps the ``speed`` messages it gets and counts its rounds."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.speed: list[protocol.Speed] = []
        self.rounds_over = 0
        self.changed = asyncio.Event()

    def _receive(self, message: ServerMessage, now: float) -> None:
        super()._receive(message, now)
        if isinstance(message, protocol.Speed):
            self.speed.append(message)
        elif isinstance(message, protocol.RoundOver):
            self.rounds_over += 1
        self.changed.set()

    async def until(self, done: Any, timeout: float) -> None:
        async def wait() -> None:
            while not done():
                self.changed.clear()
                await self.changed.wait()

        await asyncio.wait_for(wait(), timeout)


async def _seat(server: Any, levels: tuple[str, str], figures: Figures) -> list[Watching]:
    table = TableRun(server.create_table(2))
    pacer = Pacer(100.0, 4)
    clients = [
        Watching(table, i, ClientSettings(ws_url=server.ws_url, level=level, strategy="smart", seed=7), figures)
        for i, level in enumerate(levels)
    ]
    table.clients = list(clients)
    for client in clients:  # the first to join is the host
        assert await client.open(pacer)
    host = clients[0]
    await host.send({"type": "start"})
    await asyncio.wait_for(host.playing.wait(), 10)
    for client in clients:
        client.start_playing()
    return clients


def test_a_machine_is_flagged_to_the_host_and_an_expert_is_not(server: Any) -> None:
    async def scenario() -> tuple[list[Watching], list[Watching], Figures]:
        figures = Figures()
        cheat = await _seat(server, ("expert", "machine"), figures)
        people = await _seat(server, ("expert", "expert"), figures)
        try:
            host = cheat[0]
            # flagged within the first round, told to the host (and to nobody else)
            await host.until(lambda: host.speed or host.rounds_over, 60)
            await people[0].until(lambda: people[0].rounds_over >= 1, 120)
        finally:
            for client in cheat + people:
                await client.close()
        return cheat, people, figures

    (host, rival), people, figures = asyncio.run(scenario())
    # its table played on meanwhile: the rival is flagged in round 1 and in every round after,
    # once a round
    assert {(s.seat, s.why) for s in host.speed} == {(1, "fast")}, host.speed
    rounds = [s.round for s in host.speed]
    assert rounds[0] == 1 and rounds == sorted(set(rounds)), rounds
    flag = host.speed[0]
    assert flag.fast >= 3 and flag.median_ms < 150 and flag.plays <= 12
    assert rival.speed == []  # the host only
    assert people[0].rounds_over >= 1 and people[0].speed == [] and people[1].speed == []
    assert not figures.errors, figures.errors
