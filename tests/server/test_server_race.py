"""Two people racing for one pile over real WebSockets (RULES.md §3, simultaneous plays).

Two test clients play (no bots, so nothing moves unless they act) until both show a card
that fits the same center pile: one holds its fitting card while the other turns its hand
looking for a rival card.  Then both plays are sent back to back.  Exactly one is
applied, the other is refused with ``does_not_fit`` ("beaten to it"), and the refused
card is still where it was -- in the loser's mirror, in a fresh spectator's snapshot, and
in the counts of the loser's area.  The refusal names the winner (``by``: the seat whose
card took the place).

With a delay injected on one client (it echoes the server's pongs late, so the server
measures it far away, and its play leaves "earlier" than it arrives), fair judging gives
the race to the client that played first, arrival judging to the one that arrived first.
"""

from __future__ import annotations

import asyncio
import copy
import time
from typing import Any

import pytest


def _race(view: dict[str, Any], plays_for: Any) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """A play of seat 0 and one of seat 1 onto the same existing pile, if any."""
    for a in plays_for(view, 0):
        for b in plays_for(view, 1):
            if a["pile"] is not None and a["pile"] == b["pile"]:
                return a, b
    return None


async def _in_step(clients: list[Any], actor: Any = None) -> None:
    """Every client has received the events of every answered act, so their mirrors show
    the same round: the actor has those of its own act (``act`` waits for them), the
    others are shown them by a barrier."""
    for client in clients:
        if client is not actor:
            await client.barrier()
    counts = {len(c.all("events")) for c in clients}
    assert len(counts) == 1, f"the clients' event streams differ: {counts}"


def _area_cards(area: dict[str, Any]) -> int:
    return sum(len(c) for c in area["row"]) + area["stack_size"] + area["hand_size"] + area["discard_size"]


def _card_at(area: dict[str, Any], play: dict[str, Any]) -> str | None:
    if play["source"] == "row":
        column = area["row"][play["position"]]
        return column[-1] if column else None
    top: str | None = area[f"{play['source']}_top"]
    return top


async def _set_up_race(clients: list[Any], plays_for: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """Play until both clients show a card for the same pile: their two plays."""
    race = None
    seeking = 0
    actor = None
    for step in range(400):
        await _in_step(clients, actor)
        view = clients[0].view
        assert view is not None and view["ending"] is None, "the round ended before a race could be set up"
        race = _race(view, plays_for)
        if race:
            break
        # Whoever has a card that fits a pile holds it; the other turns its hand, looking
        # for a rival card; after a while the holder plays and the piles move on.
        holders = [c for c in clients if any(p["pile"] is not None for p in plays_for(view, c.seat))]
        if not holders:
            actor = clients[step % 2]
            plays = plays_for(view, actor.seat)
            action = plays[0] if plays else {"kind": "turn"}
        else:
            holder = holders[0]
            actor = clients[1 - clients.index(holder)]
            ones = [p for p in plays_for(view, actor.seat) if p["pile"] is None]
            if ones:
                action = ones[0]  # a new pile: one more chance of a race
            elif seeking < 12:
                seeking += 1
                action = {"kind": "turn"}
            else:
                seeking = 0
                actor = holder
                action = next(p for p in plays_for(view, holder.seat) if p["pile"] is not None)
        answer = await actor.act(action)
        assert answer["type"] == "ack" and answer["applied"], answer
    assert race is not None, "no moment where both could play onto the same pile"
    assert clients[0].view == {**clients[1].view, "viewer": 0}
    return race


def test_two_plays_on_one_pile_one_wins_one_is_refused(
    server: Any, match_starter: Any, plays_for: Any, arun: Any
) -> None:
    async def scenario() -> None:
        code, clients, _ = await match_starter(server, ["Ann", "Bob"], options={"match_end": "rounds:1"})
        race = await _set_up_race(clients, plays_for)

        play_a, play_b = race
        pile = play_a["pile"]
        before = copy.deepcopy(clients[0].view)
        assert before is not None
        top_before = before["center"][pile]["top"]
        counts_before = [_area_cards(a) for a in before["areas"]]
        ids = [clients[0].next_id(), clients[1].next_id()]
        await asyncio.gather(
            clients[0].send({"type": "act", "id": ids[0], "action": play_a}, paced=False),
            clients[1].send({"type": "act", "id": ids[1], "action": play_b}, paced=False),
        )
        answers = [await c.answer(i) for c, i in zip(clients, ids, strict=True)]
        assert all(a["type"] == "ack" for a in answers), answers
        applied = [a["applied"] for a in answers]
        assert sorted(applied) == [False, True], answers
        winner = applied.index(True)
        loser = 1 - winner
        assert answers[loser]["reason"] == "does_not_fit", answers[loser]
        assert answers[loser]["by"] == winner, "the refusal names who was faster"
        assert "by" not in answers[winner]
        assert answers[loser]["message"]
        lost_play = race[loser]

        watcher = await server.client("watcher").watch(code)
        fresh = (await watcher.snapshot())["view"]
        for client in clients:
            await client.wait_for("events", by=winner)
        for seen in (fresh, clients[0].view, clients[1].view):
            assert seen is not None
            assert seen["center"][pile]["top"] == top_before + 1
            assert seen["center"][pile]["backs"][-1] == winner
            area = seen["areas"][loser]
            assert _card_at(area, lost_play) == lost_play["card"], "the refused card left its place"
            assert _area_cards(area) == counts_before[loser], "the loser lost a card"
            assert _area_cards(seen["areas"][winner]) == counts_before[winner] - 1
        assert sum(p["top"] for p in fresh["center"]) == sum(p["top"] for p in before["center"]) + 1
        assert {k: v for k, v in fresh.items() if k != "viewer"} == {
            k: v
            for k, v in clients[0].view.items()
            if k != "viewer"  # type: ignore[union-attr]
        }
        assert not clients[0].problems and not clients[1].problems
        for client in (*clients, watcher):
            await client.close()

    arun(scenario(), timeout=80)


async def _seem_far(client: Any, delay_s: float, trips: int = 7) -> None:
    """Make the server measure ``client`` ``delay_s / 2`` away one way: it echoes each pong
    ``delay_s`` after receiving it, saying it kept it no time (the injected delay)."""
    client.keepalive = None  # its own pings only: a keepalive pong would void the echo
    for trip in range(trips):
        mark = len(client.messages)
        await client.send({"type": "ping", "t": 500.0 + trip}, paced=False)
        pong = await client.wait_for("pong", since=mark, t=500.0 + trip)
        await asyncio.sleep(delay_s)
        await client.send({"type": "ping", "t": 600.0 + trip, "echo": pong["server_t"], "held": 0.0}, paced=False)
        await client.wait_for("pong", since=mark, t=600.0 + trip)


@pytest.mark.parametrize("arbitration", ["fair", "arrival"])
def test_the_client_that_played_first_wins_under_fair_judging(
    arbitration: str, server: Any, match_starter: Any, plays_for: Any, arun: Any
) -> None:
    """Far (measured 150 ms away) sends its play 40 ms before Near; it arrives 60 ms after
    Near's.  Fair judging (window 200 ms) gives Far the pile, by 40 ms or more of
    compensated time; arrival judging gives it to Near."""

    async def scenario() -> None:
        judging = {"arbitration": arbitration, "window_ms": 200}
        _, clients, _ = await match_starter(server, ["Near", "Far"], options={"match_end": "rounds:1"}, judging=judging)
        near, far = clients
        assert near.table is not None and near.table["arbitration"] == arbitration and near.table["window_ms"] == 200
        await _seem_far(far, 0.3)
        play_near, play_far = await _set_up_race(clients, plays_for)
        ids = [near.next_id(), far.next_id()]
        sent = time.time()
        await near.send({"type": "act", "id": ids[0], "action": play_near, "t": sent}, paced=False)
        await asyncio.sleep(0.06)  # Far's play, sent 40 ms before Near's, on its way
        await far.send({"type": "act", "id": ids[1], "action": play_far, "t": sent - 0.04}, paced=False)
        near_answer, far_answer = await near.answer(ids[0]), await far.answer(ids[1])
        if arbitration == "fair":
            assert far_answer["applied"], far_answer
            assert not near_answer["applied"] and near_answer["by"] == far.seat, near_answer
            assert near_answer["by_ms"] >= 40, near_answer  # Far's rank: its stamp, 40 ms before Near's arrival
            loser, winner, ms = near, far, near_answer["by_ms"]
        else:
            assert near_answer["applied"], near_answer
            assert not far_answer["applied"] and far_answer["by"] == near.seat, far_answer
            assert far_answer["by_ms"] > 0, far_answer  # by arrival: Far arrived later
            loser, winner, ms = far, near, far_answer["by_ms"]
        race = {
            "type": "race",
            "round": 1,
            "pile": play_near["pile"],
            "winner": winner.seat,
            "loser": loser.seat,
            "ms": ms,
        }
        for client in clients:
            await client.wait_for(lambda m: m == race)
            await client.close()

    arun(scenario(), timeout=80)
