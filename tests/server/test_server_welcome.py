"""What a connection is told about its seat, over real WebSockets.

* Joining, coming back with the token and watching: one ``welcome``, then exactly one
  ``table`` message with the current state, then the ``snapshot`` if a round exists; the
  others at the table get one ``table`` message about the change.
* A start that closes the gaps between seats: every seated connection whose seat number
  changed gets a new ``welcome`` (same token, new seat) before the round's snapshot, the
  others get none; the token still brings the person back to the new seat, on a new
  connection and after a restart of the server.
"""

from __future__ import annotations

from typing import Any

from realserver import COUNTDOWN_S


async def _settled(client: Any) -> None:
    """Until everything the server sent before now has arrived (a ping's pong comes after it)."""
    mark = len(client.messages)
    await client.send({"type": "ping", "t": 1.0})
    await client.wait_for("pong", since=mark)


def _kinds(client: Any, since: int = 0) -> list[str]:
    return [m["type"] for m in client.messages[since:] if m["type"] != "pong"]


async def _hello(server: Any, code: str, label: str, **hello: Any) -> Any:
    client = server.client(label)
    await client.connect()
    welcome = await client.hello(code, **hello)
    assert welcome["type"] == "welcome", welcome
    await _settled(client)
    return client


def test_joining_coming_back_and_watching_get_one_table_message(server: Any, arun: Any) -> None:
    async def scenario() -> None:
        code = server.create_table(3, options={"match_end": "rounds:1"})
        ann = await _hello(server, code, "Ann", name="Ann")
        assert _kinds(ann) == ["welcome", "table"]
        assert ann.table["seats"][0]["name"] == "Ann" and ann.table["seats"][0]["connected"] is True

        mark = len(ann.messages)
        bob = await _hello(server, code, "Bob", name="Bob")
        assert _kinds(bob) == ["welcome", "table"]
        assert [s and s["name"] for s in bob.table["seats"]] == ["Ann", "Bob", None]
        await _settled(ann)
        assert _kinds(ann, mark) == ["table"], "the others get one table message about the newcomer"
        assert ann.table == bob.table

        watcher = await _hello(server, code, "watcher", watch=True)
        assert _kinds(watcher) == ["welcome", "table"]
        assert watcher.table == bob.table

        await ann.send({"type": "start"})
        for client in (ann, bob, watcher):
            await client.wait_for("go", timeout=COUNTDOWN_S + 5)

        # Bob drops out and comes back with his token while the round is on.
        mark = len(ann.messages)
        await bob.close()
        await ann.wait_for(lambda m: m["type"] == "table" and not m["seats"][1]["connected"], since=mark)
        mark = len(ann.messages)
        back = await _hello(server, code, "Bob-back", token=bob.token)
        assert _kinds(back) == ["welcome", "table", "snapshot"]
        assert back.table["phase"] == "playing" and back.table["seats"][1]["connected"] is True
        assert back.find("snapshot")["view"]["viewer"] == 1
        await _settled(ann)
        assert _kinds(ann, mark) == ["table"]
        assert ann.table == back.table

        late = await _hello(server, code, "late watcher", watch=True)
        assert _kinds(late) == ["welcome", "table", "snapshot"]
        assert late.table == back.table
        for client in (ann, back, watcher, late):
            await client.close()

    arun(scenario())


def test_a_start_that_closes_gaps_welcomes_the_renumbered_seats_again(server: Any, arun: Any) -> None:
    async def before_restart() -> tuple[str, str, str]:
        code = server.create_table(4, options={"match_end": "rounds:1"})
        ann = await _hello(server, code, "Ann", name="Ann")
        xena = await _hello(server, code, "Xena", name="Xena")
        bob = await _hello(server, code, "Bob", name="Bob")
        watcher = await _hello(server, code, "watcher", watch=True)
        assert (ann.seat, xena.seat, bob.seat) == (0, 1, 2)
        token = bob.token
        await xena.send({"type": "leave"})  # seat 1 is free: Bob's seat 2 becomes seat 1
        await ann.wait_for(lambda m: m["type"] == "table" and m["seats"][1] is None)
        for client in (ann, xena, bob, watcher):
            await _settled(client)

        marks = {client.label: len(client.messages) for client in (ann, xena, bob, watcher)}
        await ann.send({"type": "start"})
        for client in (ann, xena, bob, watcher):
            await client.wait_for("snapshot", since=marks[client.label])
            await _settled(client)
        assert _kinds(bob, marks["Bob"]) == ["welcome", "table", "snapshot"]
        welcome = bob.find("welcome", since=marks["Bob"])
        assert welcome == {"type": "welcome", "v": 1, "code": code, "seat": 1, "token": token}
        table = bob.find("table", since=marks["Bob"])
        assert [s["name"] for s in table["seats"]] == ["Ann", "Bob"] and table["phase"] == "countdown"
        assert bob.find("snapshot", since=marks["Bob"])["view"]["viewer"] == 1
        for client in (ann, xena, watcher):  # their seat numbers did not change
            assert "welcome" not in _kinds(client, marks[client.label]), client.label
        assert ann.find("snapshot", since=marks["Ann"])["view"]["viewer"] == 0

        # The token names the new seat: a new connection with it sits there again.
        await ann.wait_for("go", since=marks["Ann"], timeout=COUNTDOWN_S + 5)
        await bob.close()
        back = await _hello(server, code, "Bob-back", token=token)
        assert back.seat == 1 and back.find("snapshot")["view"]["viewer"] == 1
        answer = await back.act({"kind": "turn"})
        assert answer["type"] == "ack" and answer["applied"] is True
        for client in (ann, xena, back, watcher):
            await client.close()
        return code, ann.token, token

    code, ann_token, bob_token = arun(before_restart())
    server.stop()
    server.start()  # same port, same database: the seats come back renumbered, tokens with them

    async def after_restart() -> None:
        for token, seat, name in ((ann_token, 0, "Ann"), (bob_token, 1, "Bob")):
            client = await _hello(server, code, f"{name}-restored", token=token)
            assert client.seat == seat
            assert client.find("snapshot")["view"]["viewer"] == seat
            assert client.table["seats"][seat]["name"] == name
            await client.close()

    arun(after_restart())
