"""Coming back to one's seat with its token over real WebSockets.

* a dropped connection: the seat shows as away, the round goes on, and the token brings
  the person back to the same seat with a snapshot equal to the current view (the other
  player's mirror of it); acts work again;
* a page reload: a second connection with the same token takes the seat over, the first
  gets the error ``replaced`` -- and can no longer act for the seat.
"""

from __future__ import annotations

import contextlib
from typing import Any

import pytest

pytestmark = pytest.mark.shared_server  # one real server for the module's tests


def _same_table(mine: dict[str, Any] | None, theirs: dict[str, Any] | None) -> bool:
    assert mine is not None and theirs is not None
    return {k: v for k, v in mine.items() if k != "viewer"} == {k: v for k, v in theirs.items() if k != "viewer"}


def test_reconnect_with_token_mid_round(server: Any, match_starter: Any, arun: Any) -> None:
    async def scenario() -> None:
        code, (ann, bob), _ = await match_starter(server, ["Ann", "Bob"])
        await ann.play(4)
        await bob.play(4)
        seat, token = ann.seat, ann.token
        assert token
        mark = len(bob.messages)
        await ann.close()
        away = await bob.wait_for(lambda m: m["type"] == "table" and not m["seats"][0]["connected"], since=mark)
        assert away["phase"] == "playing" and away["seats"][0]["stand_in"] is False
        await bob.play(4)  # the round goes on while Ann is away

        back = server.client("Ann-back")
        await back.connect()
        welcome = await back.hello(code, token=token)
        assert welcome["type"] == "welcome", welcome
        assert welcome["seat"] == seat and welcome["token"] == token and welcome["code"] == code
        snapshot = await back.wait_for("snapshot")
        assert snapshot["view"]["viewer"] == seat
        assert snapshot["view"] == {**bob.view, "viewer": seat}  # type: ignore[dict-item]
        table = await back.wait_for("table")
        assert table["seats"][seat]["connected"] is True and table["seats"][seat]["name"] == "Ann"
        await bob.wait_for(lambda m: m["type"] == "table" and m["seats"][0]["connected"], since=mark)

        # Acts work again, and both see them.
        answer = await back.act({"kind": "turn"})
        assert answer == {"type": "ack", "id": answer["id"], "applied": True}
        await bob.wait_for("events", by=seat, since=mark)
        await back.play(3)
        await bob.barrier()  # the events of Ann's acts (all answered) have reached Bob
        assert _same_table(back.view, bob.view)
        assert not back.problems and not bob.problems

        # The old token still names the same seat; a made-up one names none.
        other = server.client("stranger")
        await other.connect()
        refused = await other.hello(code, token=token[:-2] + ("xx" if not token.endswith("xx") else "yy"))
        assert refused["type"] == "error" and refused["code"] == "bad_token"
        for client in (back, bob, other):
            await client.close()

    arun(scenario())


def test_second_connection_with_the_token_replaces_the_first(server: Any, match_starter: Any, arun: Any) -> None:
    async def scenario() -> None:
        code, (ann, bob), _ = await match_starter(server, ["Ann", "Bob"])
        await ann.play(3)
        reload = server.client("Ann-reload")
        await reload.connect()
        welcome = await reload.hello(code, token=ann.token)
        assert welcome["type"] == "welcome" and welcome["seat"] == ann.seat
        replaced = await ann.wait_for("error")
        assert replaced["code"] == "replaced"
        snapshot = await reload.wait_for("snapshot")
        await bob.barrier()  # the events of Ann's acts (all answered) have reached Bob
        assert snapshot["view"] == {**bob.view, "viewer": ann.seat}  # type: ignore[dict-item]

        mark = len(ann.messages)
        answer = await reload.act({"kind": "turn"})
        assert answer["type"] == "ack" and answer["applied"] is True
        # The replaced connection is closed by the server right after "replaced": once it
        # is, nothing more can reach it.
        assert await ann.wait_closed() == 4001
        assert ann.find("ack", since=mark) is None, "the replaced connection still gets acks"
        assert ann.find("events", since=mark) is None, "the replaced connection still gets events"
        await reload.play(3)
        assert not reload.problems and not bob.problems
        for client in (ann, reload, bob):
            await client.close()

    arun(scenario())


def test_replaced_connection_can_no_longer_act(server: Any, match_starter: Any, arun: Any) -> None:
    """After a takeover, the old connection must not play (or leave, or command) for the
    seat any more: its acts are refused with an error or the socket is closed."""

    async def scenario() -> None:
        code, (ann, bob), _ = await match_starter(server, ["Ann", "Bob"])
        reload = server.client("Ann-reload")
        await reload.connect()
        assert (await reload.hello(code, token=ann.token))["type"] == "welcome"
        assert (await ann.wait_for("error"))["code"] == "replaced"
        await reload.wait_for("snapshot")

        mark_bob, mark_reload = len(bob.messages), len(reload.messages)
        ident = ann.next_id()
        try:
            await ann.send({"type": "act", "id": ident, "action": {"kind": "turn"}})
        except Exception:  # the server may have closed the old socket: that is fine
            await ann.wait_closed()  # (the reader may not have seen the close yet)
        # The act has its answer (or the server closed the replaced socket first); had it
        # moved a card, those events were posted before Bob's and the new connection's
        # barrier pongs.
        if not ann.closed:
            with contextlib.suppress(AssertionError):  # closed while waiting: dealt with
                await ann.answer(ident)
        for client in (bob, reload):
            await client.barrier()
        moved = bob.all("events", since=mark_bob)
        assert not moved, f"the replaced connection still plays for the seat: {moved}"
        answer = ann.find(lambda m: m.get("id") == ident)
        assert ann.closed or (answer is not None and answer["type"] == "error"), (
            f"the replaced connection's act got no refusal: {answer}"
        )
        assert reload.find("ack", since=mark_reload) is None
        for client in (ann, reload, bob):
            await client.close()

    arun(scenario())
