"""Two people racing for one pile over real WebSockets (RULES.md §3, simultaneous plays).

Two test clients play (no bots, so nothing moves unless they act) until both show a card
that fits the same center pile: one holds its fitting card while the other turns its hand
looking for a rival card.  Then both plays are sent back to back.  The server orders them
by arrival: exactly one is applied, the other is refused with ``does_not_fit`` ("beaten
to it"), and the refused card is still where it was -- in the loser's mirror, in a fresh
spectator's snapshot, and in the counts of the loser's area.  The refusal names the
winner (``by``: the seat whose card now lies on top of the pile).
"""

from __future__ import annotations

import asyncio
import copy
from typing import Any


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


def test_two_plays_on_one_pile_one_wins_one_is_refused(
    server: Any, match_starter: Any, plays_for: Any, arun: Any
) -> None:
    async def scenario() -> None:
        code, clients, _ = await match_starter(server, ["Ann", "Bob"], options={"match_end": "rounds:1"})
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
        assert clients[0].view == {**clients[1].view, "viewer": 0}  # type: ignore[dict-item]

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
