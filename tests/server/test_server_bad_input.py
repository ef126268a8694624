"""Every bad input gets a clear error (or, for floods, a closed connection), harms nobody
and changes no game.

Before and after each bad input a fresh spectator connection fetches the table and the
round; they must be identical, ``/healthz`` must answer, and the offending connection
(unless it was closed) must still work (a ping gets its pong).
"""

from __future__ import annotations

from typing import Any

import pytest
import websockets


async def _state(server: Any, code: str) -> tuple[dict[str, Any] | None, dict[str, Any]]:
    """The round and the table as a newcomer sees them (spectator connection)."""
    watcher = server.client("inspector")
    await watcher.watch(code)
    await watcher.barrier()  # the snapshot, if the table has a round, came with the welcome
    snapshot = watcher.find("snapshot")
    table = watcher.table
    await watcher.close()
    assert table is not None
    return (None if snapshot is None else snapshot["view"]), table


async def _error(client: Any, raw: Any, code: str) -> dict[str, Any]:
    mark = len(client.messages)
    await client.send(raw)
    error = await client.wait_for("error", since=mark)
    assert error["code"] == code, error
    assert isinstance(error["message"], str) and error["message"], error
    return error  # type: ignore[no-any-return]


async def _still_works(client: Any) -> None:
    mark = len(client.messages)
    await client.send({"type": "ping", "t": 12.5})
    pong = await client.wait_for("pong", since=mark)
    assert pong["t"] == 12.5 and isinstance(pong["server_t"], float)


pytestmark = [pytest.mark.shared_server, pytest.mark.rate_limited]  # one server, with its own rate limit


def test_bad_inputs_are_refused_and_change_nothing(server: Any, match_starter: Any, arun: Any) -> None:
    async def scenario() -> None:
        code, (ann, bob), (watcher,) = await match_starter(server, ["Ann", "Bob"], watchers=1, wait_go=False)

        # Acts before the countdown ends.
        assert ann.find("go") is None, "the countdown is too short for this test"
        early = await ann.act({"kind": "turn"}, paced=False)
        assert early["type"] == "error" and early["code"] == "countdown" and early["id"]
        await ann.wait_for("go")
        await bob.wait_for("go")
        await ann.play(3)
        await bob.play(3)
        baseline = await _state(server, code)
        assert baseline[0] is not None and baseline[1]["phase"] == "playing"

        async def unchanged(what: str) -> None:
            assert server.healthy(), what
            assert await _state(server, code) == baseline, f"{what} changed the game"

        # A spectator cannot act (acting for another seat is impossible by design: an act
        # names no seat, the connection's seat plays).
        answer = await watcher.act({"kind": "turn"})
        assert answer["type"] == "error" and answer["code"] == "not_seated"
        await unchanged("a spectator's act")

        for raw, expected in (
            ("{nope", "malformed"),
            ("", "malformed"),
            ('{"type": "dance"}', "unknown_type"),
            ('{"type": "act", "id": 1, "action": {"kind": "fly"}}', "invalid"),
            ('{"type": "act", "id": 1, "action": {"kind": "turn"}, "seat": 1}', "invalid"),
            ('{"type": "act", "id": 1}', "invalid"),
            ("[1, 2]", "invalid"),
            ('{"type": "ping", "t": 1, "pad": "' + "x" * 5000 + '"}', "too_large"),
            ('{"type": "hello", "v": 1, "code": "' + code + '", "name": "Again"}', "already_joined"),
        ):
            await _error(ann, raw, expected)
            await unchanged(f"{raw[:40]!r}")
        await _still_works(ann)

        bad_card = await ann.act({"kind": "play", "source": "row", "position": 0, "pile": None, "card": "z11"})
        assert bad_card["type"] == "error" and bad_card["code"] == "invalid"
        nowhere = await ann.act({"kind": "play", "source": "row", "position": 9, "pile": None})
        assert nowhere["type"] == "ack" and nowhere["applied"] is False and nowhere["reason"] == "no_such_card"
        withdraw = await ann.act({"kind": "withdraw"})
        assert withdraw["applied"] is False and withdraw["reason"] == "not_voted"
        await unchanged("refused acts")

        # Binary garbage.
        mark = len(ann.messages)
        await ann.ws.send(b"\xff\xfe\x00garbage")
        assert (await ann.wait_for("error", since=mark))["code"] == "malformed"
        await unchanged("binary garbage")

        # Commands only the host may give; the host cannot change a running match either.
        for command in (
            {"type": "add_bot", "strategy": "smart", "level": "machine"},
            {"type": "set_rules", "preset": "classic", "options": {}},
            {"type": "remove_seat", "seat": 0},
            {"type": "start"},
        ):
            await _error(bob, command, "not_host")
            await _error(ann, command, "started")
            await unchanged(f"{command['type']}")
        await _error(watcher, {"type": "start"}, "not_host")
        await _error(watcher, {"type": "ready"}, "not_seated")
        await unchanged("a spectator's commands")

        # Hellos that cannot be honoured: each on a fresh connection, which stays usable.
        lobby_table = server.create_table(3)
        for hello, expected in (
            ({"code": lobby_table, "name": "An\x07n"}, "bad_name"),
            ({"code": lobby_table, "name": "Ann\u200b\u0000"}, "bad_name"),
            ({"code": lobby_table, "name": "x" * 25}, "bad_name"),
            ({"code": lobby_table, "name": "   "}, "bad_name"),
            ({"code": lobby_table}, "bad_name"),
            ({"code": code, "token": "not-a-token"}, "bad_token"),
            ({"code": code, "token": bob.token + "x"}, "bad_token"),  # type: ignore[operator]
            ({"code": "nosuchtable", "name": "Zed"}, "no_table"),
            ({"code": code, "name": "Latecomer"}, "started"),
        ):
            client = server.client("stranger")
            await client.connect()
            await _error(client, {"type": "hello", "v": 1, **hello}, expected)
            await _error(client, {"type": "act", "id": 3, "action": {"kind": "turn"}}, "not_joined")
            await _still_works(client)
            await client.close()
        client = server.client("old")
        await client.connect()
        await _error(client, {"type": "hello", "v": 2, "code": code, "name": "Old"}, "bad_version")
        await client.close()
        status, summary = server.http("GET", f"/api/tables/{lobby_table}")
        assert status == 200 and summary["taken"] == 0, "a refused hello took a seat"
        name = "x" * 24
        ok = await server.client("long-name").join(lobby_table, name)
        assert ok.table is not None and ok.table["seats"][0]["name"] == name
        await ok.close()
        await unchanged("bad hellos")

        # A flood closes the connection (policy violation); the server stays healthy.
        flooder = server.client("flooder")
        await flooder.watch(code)
        assert await flooder.flood() == 1008
        assert any(m["type"] == "error" and m["code"] == "rate_limited" for m in flooder.messages)
        assert len(flooder.all("pong")) < 200
        await unchanged("a flood")
        await _still_works(ann)

        # A message beyond the WebSocket frame limit closes that connection only.
        huge = server.client("huge")
        await huge.watch(code)
        with_error = False
        try:
            await huge.ws.send('{"type": "ping", "t": 1, "pad": "' + "x" * 100_000 + '"}')
        except websockets.ConnectionClosed:
            with_error = True
        code_seen = await huge.wait_closed()
        assert with_error or code_seen in (1009, 1008), code_seen
        await unchanged("a huge message")
        await _still_works(bob)

        # After the round ends, acts are refused.
        for client in (ann, bob):
            await client.act({"kind": "vote"})
        await ann.wait_for("round_over")
        late = await ann.act({"kind": "turn"})
        assert late["type"] == "error" and late["code"] == "not_playing"
        late_play = await bob.act({"kind": "play", "source": "stack", "pile": None})
        assert late_play["type"] == "error" and late_play["code"] == "not_playing"
        ended = await _state(server, code)
        for client in (ann, bob, watcher):
            await client.barrier()  # whatever the late acts caused has been sent
        assert await _state(server, code) == ended
        assert server.healthy()
        for client in (ann, bob, watcher):
            await client.close()

    arun(scenario(), timeout=80)


def test_bad_host_commands_in_the_lobby_change_nothing(server: Any, arun: Any) -> None:
    async def scenario() -> None:
        code = server.create_table(3)
        ann = await server.client("Ann").join(code)
        bob = await server.client("Bob").join(code)
        watcher = await server.client("watcher").watch(code)
        before = await _state(server, code)
        assert before[0] is None and before[1]["phase"] == "lobby"
        for command, expected in (
            ({"type": "set_rules", "preset": "classic", "options": {"row_size": 9}}, "bad_rules"),
            ({"type": "set_rules", "preset": "classic", "options": {"nope": 1}}, "bad_rules"),
            ({"type": "set_rules", "preset": "nope", "options": {}}, "bad_rules"),
            ({"type": "set_rules", "preset": "classic", "options": {}, "seats": 13}, "bad_seats"),
            ({"type": "set_rules", "preset": "classic", "options": {}, "seats": 1}, "bad_seats"),
            ({"type": "set_rules", "preset": "classic", "options": {}, "grace_s": 5000}, "bad_grace"),
            ({"type": "set_rules", "preset": "classic", "options": {"expert": [1]}}, "invalid"),
            ({"type": "add_bot", "strategy": "psychic", "level": "machine"}, "bad_bot"),
            ({"type": "add_bot", "strategy": "smart", "level": "godlike"}, "bad_bot"),
            ({"type": "remove_seat", "seat": 7}, "no_seat"),
            ({"type": "remove_seat", "seat": -1}, "no_seat"),
            ({"type": "remove_seat", "seat": 0}, "bad_seat"),
            ({"type": "ready"}, "not_scoring"),
            ({"type": "act", "id": 1, "action": {"kind": "turn"}}, "not_playing"),
        ):
            await _error(ann, command, expected)
        for command in (
            {"type": "set_rules", "preset": "classic", "options": {}},
            {"type": "add_bot", "strategy": "smart", "level": "machine"},
            {"type": "remove_seat", "seat": 0},
            {"type": "start"},
        ):
            await _error(bob, command, "not_host")
        await _error(watcher, {"type": "remove_seat", "seat": 1}, "not_host")
        assert await _state(server, code) == before
        # A table of one cannot start; the host is still the host afterwards.
        await bob.send({"type": "leave"})
        await ann.wait_for(lambda m: m["type"] == "table" and m["seats"][1] is None)
        await _error(ann, {"type": "start"}, "too_few")
        assert server.healthy()
        for client in (ann, bob, watcher):
            await client.close()

    arun(scenario())
