"""A full match over real WebSockets: two people (test clients) and a bot, watched by a
spectator, until the match is over -- then every message anyone received is checked
against the engine, replayed from the server's own SQLite file.

The people follow a simple policy on their mirror of the view (play a visible card that
fits, else turn, vote when stuck).  The checks:

* the match ends: every client gets ``round_over`` with ``match_over`` and the winners,
  the same scores, and the same final center (their mirrors agree with each other and
  with a late spectator's snapshot);
* scores and winners are the engine's scores of the final table;
* every ``events`` message equals the events the engine gives when the recorded actions
  are replayed from the round's seed, every snapshot equals the engine's view at that
  point, no event is lost or repeated;
* hidden cards (RULES.md §9): no message has a key that would carry hidden cards (hand,
  stack, discard, deck, log, seed), every card-like string sits where a view or event
  names a card of a known seat, and every card named is face up at that moment (never in
  a hand, below a stack top or below a discard top).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ligretto.engine.events import Applied
from ligretto.engine.scoring import score_round, winners
from ligretto.engine.serial import event_to_dict
from ligretto.engine.state import Round
from ligretto.engine.views import view
from ligretto.server.records.readonly import stored_rounds
from ligretto.testkit.scans import hidden_cards, public_cards


@dataclass
class Played:
    code: str
    db: Path
    streams: dict[str, list[dict[str, Any]]]
    raw: dict[str, list[str]]
    mirrors: dict[str, dict[str, Any] | None]
    problems: list[str]
    seats: dict[str, int | None]


async def _play_match(server: Any, start_match: Any) -> Played:
    code, (ann, bob), (watcher,) = await start_match(server, ["Ann", "Bob"], bots=["smart:machine"], watchers=1)
    assert [ann.seat, bob.seat] == [0, 1]
    await asyncio.gather(ann.play_to_end(), bob.play_to_end())
    for client in (ann, bob, watcher):
        await client.wait_for("round_over")
        await client.wait_for(lambda m: m["type"] == "table" and m["phase"] == "over")
    late = await server.client("late").watch(code)
    await late.wait_for("snapshot")
    clients = [ann, bob, watcher, late]
    for client in clients:
        await client.close()
    return Played(
        code=code,
        db=server.db,
        streams={c.label: c.messages for c in clients},
        raw={c.label: c.raw for c in clients},
        mirrors={c.label: c.view for c in clients},
        problems=[p for c in clients for p in c.problems],
        seats={c.label: c.seat for c in clients},
    )


@pytest.fixture(scope="module")
def played(module_server: Any, match_starter: Any) -> Played:
    return asyncio.run(asyncio.wait_for(_play_match(module_server, match_starter), 60))


# --- replaying the match from the server's database --------------------------------------


@dataclass
class Replayed:
    players: int
    states: list[Round]
    """``states[k]``: the round after its first ``k`` recorded actions."""
    events: dict[int, tuple[int, list[dict[str, Any]]]]
    """Applied action index -> (player, its events as sent)."""


def replay_round(db: Path, code: str, number: int) -> Replayed:
    (stored,) = stored_rounds(db)[(code, number)]  # one match
    states = []
    events = {}
    for index, game, result in stored.replay():
        if isinstance(result, Applied):
            events[index] = (stored.actions[index]["player"], [event_to_dict(e) for e in result.events])
        states.append(game.copy())
    return Replayed(stored.players, states, events)


# --- the match ---------------------------------------------------------------------------


def test_match_ends_with_round_over_and_winners(played: Played) -> None:
    assert not played.problems, played.problems[:5]
    for label in ("Ann", "Bob", "watcher0"):
        overs = [m for m in played.streams[label] if m["type"] == "round_over"]
        assert len(overs) == 1, (label, overs)
        over = overs[0]
        assert over["round"] == 1
        assert over["match_over"] is True
        assert over["ending"] in ("stop", "stalemate_vote", "stalemate_proven")
        assert over["winners"] and set(over["winners"]) <= {0, 1, 2}
        assert over["winners"] == list(winners(over["totals"]))
        if over["ending"] == "stop":
            assert over["stopped_by"] in (0, 1, 2)
        tables = [m for m in played.streams[label] if m["type"] == "table"]
        assert tables[-1]["phase"] == "over"
        assert tables[-1]["winners"] == over["winners"]
    ann, bob, watcher = (
        next(m for m in played.streams[x] if m["type"] == "round_over") for x in ("Ann", "Bob", "watcher0")
    )
    assert ann == bob == watcher


def test_everyone_sees_the_same_final_table(played: Played) -> None:
    mirrors = played.mirrors
    assert all(v is not None for v in mirrors.values())
    centers = {label: v["center"] for label, v in mirrors.items() if v is not None}
    assert centers["Ann"] == centers["Bob"] == centers["watcher0"] == centers["late"]
    assert centers["Ann"], "a round that ended must have cards in the center"

    def without_viewer(v: dict[str, Any] | None) -> dict[str, Any]:
        assert v is not None
        return {k: x for k, x in v.items() if k != "viewer"}

    assert without_viewer(mirrors["Ann"]) == without_viewer(mirrors["Bob"]) == without_viewer(mirrors["late"])
    assert mirrors["Ann"]["viewer"] == 0 and mirrors["Bob"]["viewer"] == 1 and mirrors["late"]["viewer"] is None
    assert mirrors["Ann"]["ending"] is not None


def test_scores_are_the_engine_scores_of_the_final_table(played: Played) -> None:
    final = replay_round(played.db, played.code, 1).states[-1]
    assert final.over
    over = next(m for m in played.streams["Ann"] if m["type"] == "round_over")
    expected = [{"center": s.center, "stack": s.stack, "score": s.score} for s in score_round(final)]
    assert over["scores"] == expected
    assert over["totals"] == [s["score"] for s in expected]
    assert final.ending is not None and over["ending"] == final.ending.value
    assert over["stopped_by"] == final.stopped_by
    # ...and the clients' mirrors show the same table as the engine.
    assert played.mirrors["watcher0"] == view(final, None).to_dict()


def test_every_event_and_snapshot_is_the_engines(played: Played) -> None:
    replayed = replay_round(played.db, played.code, 1)
    applied = sorted(replayed.events)
    assert applied, "nobody played a card?"
    for label in ("Ann", "Bob", "watcher0"):
        stream = played.streams[label]
        viewer = played.seats[label]
        seqs = []
        last = -1
        for message in stream:
            if message["type"] == "events":
                assert message["round"] == 1
                seq = message["seq"]
                player, events = replayed.events[seq]
                assert message["by"] == player, (label, message)
                assert message["events"] == events, (label, seq)
                seqs.append(seq)
                last = seq
            elif message["type"] == "snapshot":
                assert message["round"] == 1
                assert message["view"] == view(replayed.states[last + 1], viewer).to_dict(), (label, last)
        assert seqs == applied, f"{label} did not get every event exactly once, in order"
    # A late spectator gets the final view.
    late = [m for m in played.streams["late"] if m["type"] == "snapshot"]
    assert late and late[-1]["view"] == view(replayed.states[-1], None).to_dict()


def test_no_message_carries_a_hidden_card(
    played: Played, mentions: Callable[[Any], Any], forbidden_keys: Callable[[Any], list[str]]
) -> None:
    replayed = replay_round(played.db, played.code, 1)
    total = 0
    for label, stream in played.streams.items():
        for raw in played.raw[label]:
            message = json.loads(raw)
            assert not forbidden_keys(message), (label, forbidden_keys(message), message)
        last = -1
        for message in stream:
            owned, stray = mentions(message)
            assert not stray, (label, stray, message)
            if message["type"] == "events":
                last = message["seq"]
                state = replayed.states[last + 1]
            elif message["type"] == "snapshot":
                state = replayed.states[last + 1] if label != "late" else replayed.states[-1]
            else:
                assert not owned, (label, message)
                continue
            face_up, face_down = public_cards(state), hidden_cards(state)
            for card in owned:
                total += 1
                assert card not in face_down, (label, card, message)
                assert card in face_up, (label, card, message)
    assert total > 100, "the scan saw too few cards to mean anything"


def test_two_rounds_with_ready_in_between(server: Any, match_starter: Any, arun: Any) -> None:
    """``rounds:2``: after the first round the score sheet waits for every person's ready,
    then a countdown deals the second round; the second round_over ends the match."""

    async def scenario() -> None:
        _code, (ann, bob), _ = await match_starter(server, ["Ann", "Bob"], options={"match_end": "rounds:2"})
        for client in (ann, bob):
            assert (await client.act({"kind": "vote"}))["applied"]
        first = await ann.wait_for("round_over")
        assert first["round"] == 1 and first["match_over"] is False and first["winners"] is None
        assert first["ending"] == "stalemate_vote"
        table = await ann.wait_for(lambda m: m["type"] == "table" and m["phase"] == "scoring")
        assert table["sheet"]["totals"] == first["totals"]
        # Acting on the score sheet is refused.
        assert (await ann.act({"kind": "turn"}))["code"] == "not_playing"
        mark = len(ann.messages)
        await ann.send({"type": "ready"})
        await ann.wait_for(lambda m: m["type"] == "table" and m["seats"][0]["ready"], since=mark)
        await ann.barrier()  # a round dealt on Ann's ready would have come before this pong
        assert ann.find("snapshot", since=mark) is None, "the next round waits for everybody"
        await bob.send({"type": "ready"})
        snapshot = await ann.wait_for("snapshot", since=mark)
        assert snapshot["round"] == 2 and snapshot["view"]["ending"] is None
        await ann.wait_for("go", since=mark, round=2)
        await bob.wait_for("go", round=2)
        assert (await ann.act({"kind": "turn"}))["applied"]
        for client in (ann, bob):
            await client.act({"kind": "vote"})
        last = await bob.wait_for("round_over", round=2)
        assert last["match_over"] is True and last["winners"] == list(winners(last["totals"]))
        assert not ann.problems and not bob.problems

    arun(scenario())


def test_rematch_after_the_match(server: Any, match_starter: Any, arun: Any) -> None:
    """Once the match is over the host (only) may start a rematch: a new score sheet and a
    new deal, the same seats."""

    async def scenario() -> None:
        _code, (ann, bob), (watcher,) = await match_starter(server, ["Ann", "Bob"], watchers=1)
        await ann.play(3)
        first_deal = await watcher.wait_for("snapshot")
        for client in (ann, bob):
            await client.act({"kind": "vote"})
        over = await ann.wait_for("round_over")
        assert over["match_over"] is True
        await ann.wait_for(lambda m: m["type"] == "table" and m["phase"] == "over")
        mark = len(bob.messages)
        await bob.send({"type": "start"})
        assert (await bob.wait_for("error", since=mark))["code"] == "not_host"
        marks = [len(c.messages) for c in (ann, bob, watcher)]
        await ann.send({"type": "start"})
        for client, mark in zip((ann, bob, watcher), marks, strict=True):
            table = await client.wait_for(lambda m: m["type"] == "table" and m["phase"] == "countdown", since=mark)
            assert table["round"] == 1 and table["sheet"]["rounds"] == [] and table["winners"] is None
            snapshot = await client.wait_for("snapshot", since=mark)
            assert snapshot["round"] == 1 and snapshot["view"]["center"] == []
            assert snapshot["view"]["ending"] is None
            await client.wait_for("go", since=mark)
        assert watcher.view != first_deal["view"], "the rematch was dealt the same cards"
        answer = await ann.act({"kind": "turn"})
        assert answer["type"] == "ack" and answer["applied"]
        for client in (ann, bob):
            await client.act({"kind": "vote"})
        again = await bob.wait_for("round_over", since=marks[1])
        assert again["match_over"] is True and again["round"] == 1
        assert not ann.problems and not bob.problems and not watcher.problems
        for client in (ann, bob, watcher):
            await client.close()

    arun(scenario())
