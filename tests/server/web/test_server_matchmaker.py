"""The matchmaking queue's driver in virtual time (``server/web/matchmaker.py``): a
``Lobby`` on a ``VirtualScheduler``, the memory queue and a fake wall clock, looked at by
calling ``tick`` (no sleeps).  A strong player and a new one wait apart until their bands
have widened to each other; a lone player's table starts when the countdown ends, with
the calibrated bots nearest to their rating; each socket is told its wait once per
change and its seat last."""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine
from typing import Any

from ligretto.ratings import BOT_RATINGS
from ligretto.server.cluster.grouping import BAND, WIDEN_PER_S
from ligretto.server.cluster.queue import Person, Queue, Ticket
from ligretto.server.table.clock import VirtualScheduler
from ligretto.server.web.lobby import Lobby
from ligretto.server.web.matchmaker import Matchmaker
from ligretto.server.web.settings import Settings

Run = Callable[[Coroutine[Any, Any, Any]], Any]


class Socket:
    """What a ticket's holder was handed."""

    def __init__(self) -> None:
        self.texts: list[dict[str, Any]] = []

    def __call__(self, text: str, last: bool) -> None:
        self.texts.append({**json.loads(text), "last": last})


def ticket(id: str, rating: float, since: float, seats: int = 2) -> Ticket:
    return Ticket(id, "local", seats, "classic", since, rating, [Person(id, None, id)])


def test_bands_widen_until_a_strong_and_a_new_player_meet(arun: Run) -> None:
    now = [1000.0]
    lobby = Lobby(Settings(queue_countdown_s=30.0), scheduler=VirtualScheduler())
    maker = Matchmaker(lobby, Queue(), clock=lambda: now[0])
    strong, new = Socket(), Socket()

    async def scenario() -> None:
        await maker.join(ticket("strong", 60.0, now[0]), strong)
        await maker.join(ticket("new", 0.0, now[0]), new)
        await maker.tick()
        assert [m["type"] for m in strong.texts] == ["queued"] and strong.texts[0]["people"] == 1
        meet_s = (60.0 - BAND) / WIDEN_PER_S  # 27.5 s: before the 30 s countdown
        now[0] += meet_s - 0.5
        await maker.tick()
        assert len(strong.texts) == 1 and not lobby.tables, "apart, and told nothing new"
        now[0] += 1.0
        await maker.tick()
        seated = [strong.texts[-1], new.texts[-1]]
        assert [m["type"] for m in seated] == ["seated", "seated"] and all(m["last"] for m in seated)
        assert seated[0]["code"] == seated[1]["code"]
        [table] = lobby.tables.values()
        assert (
            sorted(s.name for s in table.seats if s is not None) == ["new", "strong"] and table.public and table.rated
        )
        assert not maker.queue.tickets and not maker.queue.holders

    arun(scenario())


def test_a_lone_player_gets_the_bots_nearest_their_rating_when_the_countdown_ends(arun: Run) -> None:
    now = [1000.0]
    lobby = Lobby(Settings(queue_countdown_s=30.0), scheduler=VirtualScheduler())
    maker = Matchmaker(lobby, Queue(), clock=lambda: now[0])
    expert = Socket()

    async def scenario() -> None:
        await maker.join(ticket("ace", 74.0, now[0], seats=4), expert)
        now[0] += 29.9
        await maker.tick()
        assert expert.texts[-1]["type"] == "queued" and not lobby.tables
        now[0] += 0.1
        await maker.tick()
        assert expert.texts[-1]["type"] == "seated"
        [table] = lobby.tables.values()
        bots = {str(s.bot) for s in table.seats if s is not None and s.bot is not None}
        nearest = min(BOT_RATINGS, key=lambda spec: abs(BOT_RATINGS[spec].conservative - 74.0))
        assert bots == {nearest} and nearest.endswith(":expert")
        assert table.phase.value != "lobby", "dealt at once"

    arun(scenario())


def test_one_profile_queued_from_two_devices_is_seated_twice_linked_once(arun: Run) -> None:
    """The table refuses a profile in two seats (``profile_seated``): the second device's
    seat is the person's but not linked to the profile, and both are seated (a refusal
    here would put the tickets back at every look)."""
    now = [1000.0]
    lobby = Lobby(Settings(), scheduler=VirtualScheduler())
    maker = Matchmaker(lobby, Queue(), clock=lambda: now[0])
    phone, laptop = Socket(), Socket()

    async def scenario() -> None:
        for id, socket in (("phone", phone), ("laptop", laptop)):
            await maker.join(Ticket(id, "local", 2, "classic", now[0], 0.0, [Person("Ann", "p1", id)]), socket)
        await maker.tick()
        assert [phone.texts[-1]["type"], laptop.texts[-1]["type"]] == ["seated", "seated"]
        [table] = lobby.tables.values()
        assert sorted(str(s.profile) for s in table.seats if s is not None) == ["None", "p1"]

    arun(scenario())
