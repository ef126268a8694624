"""Reactions (``react`` / ``reaction``) over real WebSockets: an emote of a seated player
reaches every player and spectator, the server limits them per connection, refuses what
is not on its list, and no reaction is a game action (the round and its log are
untouched)."""

from __future__ import annotations

import asyncio
import json
import urllib.request
from typing import Any

from ligretto.protocol import ReactionLimit

THUMBS, PARTY = "\U0001f44d", "\U0001f389"


async def _view(server: Any, code: str) -> dict[str, Any]:
    """The round as a newcomer (a fresh spectator) sees it."""
    inspector = await server.client("inspector").watch(code)
    snapshot = await inspector.snapshot()
    await inspector.close()
    return snapshot["view"]  # type: ignore[no-any-return]


async def _refused(client: Any, message: Any, code: str) -> dict[str, Any]:
    mark = len(client.messages)
    await client.send(message, paced=False)
    error = await client.wait_for("error", since=mark)
    assert error["code"] == code, error
    assert error["message"], error
    return error  # type: ignore[no-any-return]


def test_reactions_reach_everyone_are_limited_and_change_nothing(server: Any, match_starter: Any, arun: Any) -> None:
    async def scenario() -> None:
        code, (ann, bob), (watcher,) = await match_starter(server, ["Ann", "Bob"], watchers=1)
        everyone = (ann, bob, watcher)

        # The list the browser reads.
        with urllib.request.urlopen(server.url + "/api/emotes", timeout=5) as response:
            emotes = json.loads(response.read())["emotes"]
        assert THUMBS in emotes and PARTY in emotes and len(emotes) == len(set(emotes)) >= 3

        # A move first: its seq is the round's log index, the yardstick for "not logged".
        first = await ann.act({"kind": "turn"})
        assert first["applied"], first
        seq_before = ann.find("events", by=0)["seq"]
        view_before = await _view(server, code)

        # One reaction goes to both players and the spectator, naming the seat.
        marks = [len(c.messages) for c in everyone]
        await ann.send({"type": "react", "emote": THUMBS})
        for client, mark in zip(everyone, marks, strict=True):
            got = await client.wait_for("reaction", since=mark)
            assert got == {"type": "reaction", "seat": 0, "emote": THUMBS}, got

        # A second one at once is too fast: refused, and nobody gets it.
        await _refused(ann, {"type": "react", "emote": PARTY}, "too_fast")
        for client in everyone:
            await client.barrier()
            assert len(client.all("reaction")) == 1, client.label

        # Bad emotes, unknown fields and spectators are refused with a clear error.
        bad = await _refused(bob, {"type": "react", "emote": "you lose"}, "bad_emote")
        assert THUMBS in bad["message"]
        await _refused(bob, {"type": "react", "emote": THUMBS, "text": "hi"}, "invalid")
        await _refused(bob, {"type": "react"}, "invalid")
        await _refused(watcher, {"type": "react", "emote": THUMBS}, "not_seated")
        # None of those used up Bob's allowance.
        mark = len(ann.messages)
        await bob.send({"type": "react", "emote": PARTY})
        assert (await ann.wait_for("reaction", since=mark))["seat"] == 1

        # At most 5 in 10 s: Ann sends 4 more a second apart (5 in all), then one too many.
        for _ in range(4):
            await asyncio.sleep(1.05)
            mark = len(ann.messages)
            await ann.send({"type": "react", "emote": PARTY})
            got = await ann.wait_for(lambda m: m["type"] in ("reaction", "error"), since=mark)
            assert got["type"] == "reaction", got
        await asyncio.sleep(1.05)
        await _refused(ann, {"type": "react", "emote": PARTY}, "too_fast")
        for client in everyone:
            await client.barrier()
            assert [m["seat"] for m in client.all("reaction")] == [0, 1, 0, 0, 0, 0], client.label

        # Nothing changed in the game, and no reaction took a place in the round's log.
        view_after = await _view(server, code)
        assert view_after == view_before
        mark = len(ann.messages)
        second = await ann.act({"kind": "turn"})
        assert second["applied"], second
        assert (await ann.wait_for("events", since=mark, by=0))["seq"] == seq_before + 1
        assert not any(c.problems for c in everyone)
        assert not any(c.closed for c in everyone), "a refused reaction closed a connection"
        for client in everyone:
            await client.close()

    arun(scenario(), timeout=60)


def test_the_reaction_limit_allows_one_a_second_and_five_in_ten_seconds() -> None:
    """The limit on its own, in virtual time (monotonic seconds passed in)."""
    limit = ReactionLimit()
    assert limit.allow(0.0)
    assert not limit.allow(0.5)  # within the second
    assert [limit.allow(t) for t in (1.0, 2.0, 3.0, 4.0)] == [True] * 4
    assert not limit.allow(5.0) and not limit.allow(9.9)  # five in the last ten seconds
    assert limit.allow(10.0)  # the first one is ten seconds old
    assert not limit.allow(10.5)
    assert limit.sent == [1.0, 2.0, 3.0, 4.0, 10.0], "refused reactions count for nothing"
