"""Live presence (``share_aim``, ``aim`` / ``aimed``) over real WebSockets, at a server with
its own rate limit: a seat's aim reaches the other players and the spectators only once it
shares it, bad aims are refused with a clear error and relay nothing, a burst is relayed
at most ``AIMS_PER_S`` a second with the latest winning, an aim is cleared when its card
moves and when its seat stops sharing, and the socket's rate limit still cuts off a client
that floods aims.  Every frame the others received passes the hidden-card scan against
the server's database.  (The rules of it in virtual time: ``tests/server/table/
test_server_aims.py``.)"""

from __future__ import annotations

import time
from typing import Any

import pytest
import websockets

from ligretto import protocol
from ligretto.testkit.scans import Frame, hidden_cards_sent

pytestmark = pytest.mark.rate_limited  # the server's own limit: the flood at the end meets it


async def _refused(client: Any, message: Any, code: str) -> None:
    mark = len(client.messages)
    await client.send(message)
    error = await client.wait_for("error", since=mark)
    assert error["code"] == code and error["message"], error


def _top(view: dict[str, Any], seat: int, position: int) -> str:
    return view["areas"][seat]["row"][position][-1]  # type: ignore[no-any-return]


def test_aims_are_opt_in_checked_bounded_cleared_and_capped(server: Any, match_starter: Any, arun: Any) -> None:
    async def scenario() -> None:
        code, (ann, bob), (watcher,) = await match_starter(server, ["Ann", "Bob"], watchers=1)
        others = (bob, watcher)

        # Before sharing: refused, nothing relayed.  A spectator has no aim to show.
        await _refused(ann, {"type": "aim", "source": "row", "position": 0}, "not_sharing")
        await _refused(watcher, {"type": "share_aim", "share": True}, "not_seated")
        await ann.send({"type": "share_aim", "share": True})
        # Malformed and unknown places: a clear error, nothing relayed, nothing changed.
        await _refused(ann, {"type": "aim", "source": "hand", "position": 0}, "invalid")
        await _refused(ann, {"type": "aim", "source": "row", "position": -1}, "invalid")
        await _refused(ann, {"type": "aim", "source": "row", "position": 0, "card": "r1"}, "invalid")
        await _refused(ann, {"type": "aim", "source": "row", "position": 9}, "bad_aim")
        await _refused(ann, {"type": "aim", "source": "discard"}, "bad_aim")  # nothing turned yet
        await _refused(ann, {"type": "aim", "source": "stack", "pile": 40}, "bad_aim")
        await _refused(ann, {"type": "aim", "pile": "new"}, "bad_aim")
        for client in (ann, *others):
            assert not [m for m in await client.barrier() if m["type"] == "aimed"], client.label
            assert not client.all("aimed"), client.label

        # One aim: to Bob and the spectator with the card they see there, not back to Ann.
        view = ann.view
        marks = [len(c.messages) for c in others]
        await ann.send({"type": "aim", "source": "row", "position": 1, "pile": "new"}, paced=False)
        shown = {"type": "aimed", "round": 1, "seq": -1, "seat": 0, "source": "row", "position": 1}
        for client, mark in zip(others, marks, strict=True):
            got = await client.wait_for("aimed", since=mark)
            assert got == {**shown, "card": _top(view, 0, 1), "pile": "new"}, got
        assert not ann.all("aimed")

        # A burst of 20 at once: each replaces the one waiting, the last goes when its turn
        # comes (at most AIMS_PER_S a second).
        marks = [len(c.messages) for c in others]
        start = time.monotonic()
        for i in range(20):
            await ann.send({"type": "aim", "source": "row", "position": i % 5, "pile": None}, paced=False)
        await bob.wait_for("aimed", since=marks[0], position=19 % 5, card=_top(view, 0, 4))
        elapsed = time.monotonic() - start
        for client, mark in zip(others, marks, strict=True):
            await client.barrier()
            burst = client.all("aimed", since=mark)
            assert burst[-1]["position"] == 4, burst
            assert 1 <= len(burst) <= 1 + elapsed * protocol.AIMS_PER_S, (elapsed, burst)

        # Ann turns her hand and aims at her discard top; the next turn covers it: cleared,
        # right behind the events that moved it.
        assert (await ann.act({"kind": "turn"}))["applied"]
        top = ann.view["areas"][0]["discard_top"]
        await ann.send({"type": "aim", "source": "discard", "pile": None})
        await bob.wait_for("aimed", source="discard", card=top)
        mark = len(bob.messages)
        assert (await ann.act({"kind": "turn"}))["applied"]
        await bob.barrier()
        events, cleared = bob.all(lambda m: m["type"] in ("events", "aimed"), since=mark)[:2]
        assert events["type"] == "events" and events["by"] == 0, events
        assert cleared == {**shown, "seq": events["seq"], "position": 0, "source": None, "card": None, "pile": None}

        # Turned off: the aim shown is cleared, and aims are refused again.
        await ann.send({"type": "aim", "source": "stack", "pile": "new"})
        await bob.wait_for("aimed", source="stack")
        mark = len(bob.messages)
        await ann.send({"type": "share_aim", "share": False})
        assert (await bob.wait_for("aimed", since=mark))["source"] is None
        await _refused(ann, {"type": "aim", "source": "stack"}, "not_sharing")
        assert bob.session.aims == {}, "the client session keeps a cleared aim"

        # Bob shares and floods aims: the socket's rate limit closes his connection (1008),
        # and Ann saw at most AIMS_PER_S of them a second.
        await bob.send({"type": "share_aim", "share": True})
        mark = len(ann.messages)
        start = time.monotonic()
        for _ in range(200):
            if bob.closed:
                break
            try:
                await bob.ws.send('{"type": "aim", "source": "row", "position": 0}')
            except websockets.ConnectionClosed:  # closed under the flood
                break
        assert await bob.wait_closed() == 1008
        assert bob.find("error", code="rate_limited")
        await ann.barrier()
        flood = ann.all("aimed", since=mark)
        assert 1 <= len(flood) <= 1 + (time.monotonic() - start) * protocol.AIMS_PER_S + 1, flood

        # Nothing the others got names a card face down at that moment (nor any stray card).
        assert not any(c.problems for c in (ann, bob, watcher))
        frames = [Frame(code, client.seat, text) for client in others for text in client.raw]
        scan = hidden_cards_sent(server.db, frames)
        assert scan.leaks == 0 and scan.unplaced == 0, scan.problems
        assert scan.cards_checked > 20
        for client in (ann, watcher):
            await client.close()

    arun(scenario(), timeout=60)
