"""Operations and table life over real connections: ``/healthz`` and ``/metrics``, no
compression, the live lobby, the host role, spectators, and the grace period with its
stand-in bot.  A test that counts the server's tables, players or actions, or stops it, has
a server of its own; the others (each about its own tables) share the module's
(``shared_server``)."""

from __future__ import annotations

import asyncio
import json
import re
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

import pytest


def _metric(text: str, name: str) -> float:
    match = re.search(rf"^{re.escape(name)} (\S+)$", text, re.MULTILINE)
    assert match, f"{name} is not in /metrics:\n{text}"
    return float(match.group(1))


async def _until(condition: Callable[[], bool], what: str, timeout: float = 5.0) -> None:
    """Wait for a condition the server shows only when asked (over HTTP)."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"not within {timeout} s: {what}"
        await asyncio.sleep(0.02)


def test_healthz_and_metrics(server: Any, match_starter: Any, arun: Any) -> None:
    status, health = server.http("GET", "/healthz")
    assert status == 200 and health == {"status": "ok", "tables": 0}

    async def scenario() -> list[dict[str, Any]]:
        _code, (ann, bob), _ = await match_starter(server, ["Ann", "Bob"])
        answers = await ann.play(5) + await bob.play(5)
        answers.append(await ann.act({"kind": "play", "source": "row", "position": 9, "pile": None}))
        answers.append(await bob.act({"kind": "withdraw"}))
        text = server.http("GET", "/metrics")[1]
        assert _metric(text, "ligretto_connected_players") == 2
        await ann.close()
        # The table marked Ann away before it told Bob, and /metrics counts at each request.
        await bob.wait_for(lambda m: m["type"] == "table" and not m["seats"][0]["connected"])
        text = server.http("GET", "/metrics")[1]
        assert _metric(text, "ligretto_connected_players") == 1
        await bob.close()
        return answers

    answers = arun(scenario())
    acks = [a for a in answers if a["type"] == "ack"]
    refused = [a for a in acks if not a["applied"]]
    assert len(refused) >= 2
    status, text = server.http("GET", "/metrics")
    assert status == 200 and isinstance(text, str)
    for name in (
        "ligretto_connected_players",
        "ligretto_open_tables",
        "ligretto_actions_total",
        "ligretto_refusals_total",
        "ligretto_action_latency_seconds_bucket",
    ):
        assert name in text, name
    assert _metric(text, "ligretto_open_tables") == 1
    assert _metric(text, "ligretto_actions_total") == len(acks)
    assert _metric(text, "ligretto_refusals_total") == len(refused)
    for reason in {a["reason"] for a in refused} | {"no_such_card", "not_voted"}:
        count = sum(a["reason"] == reason for a in refused)
        assert _metric(text, f'ligretto_refusals_by_reason_total{{reason="{reason}"}}') == count, reason
    assert _metric(text, "ligretto_action_latency_seconds_count") == len(acks)
    assert _metric(text, 'ligretto_action_latency_seconds_bucket{le="+Inf"}') == len(acks)
    status, health = server.http("GET", "/healthz")
    assert status == 200 and health == {"status": "ok", "tables": 1}


@pytest.mark.shared_server
def test_the_server_does_not_compress_its_messages(server: Any, arun: Any) -> None:
    """A client offering permessage-deflate (browsers do, and so do the tests' clients) gets
    plain frames: compressing messages of a few hundred bytes cost more than it saved."""

    async def scenario() -> None:
        client = await server.client("Ann").join(server.create_table(2))
        assert client.ws.response.headers.get("Sec-WebSocket-Extensions") is None
        assert client.ws.protocol.extensions == []
        offered = client.ws.request.headers.get("Sec-WebSocket-Extensions") or ""
        assert "permessage-deflate" in offered, "the client did not offer compression: nothing was tested"
        await client.close()

    arun(scenario())


def test_a_lobby_client_that_left_does_not_hold_the_server_up(server: Any, arun: Any) -> None:
    """The lobby handler notices a closed client at once (not at the next change), so a
    server with no one left stops promptly on SIGTERM."""

    async def scenario() -> None:
        lobby = server.client("lobby")
        await lobby.connect("/ws/lobby")
        await lobby.wait_for("lobby")
        await lobby.close()
        # No message can tell that the server has read a lobby socket's close, so a short
        # real wait puts the close before the SIGTERM (what is tested is that the server
        # then stops within the 5 s below, not this figure).
        await asyncio.sleep(0.3)

    arun(scenario())
    server.process.terminate()
    server.process.wait(5)  # raises TimeoutExpired while a lobby handler keeps it waiting


def test_lobby_streams_public_tables(server: Any, arun: Any) -> None:
    async def scenario() -> None:
        lobby = server.client("lobby")
        await lobby.connect("/ws/lobby")
        first = await lobby.wait_for("lobby")
        assert first["tables"] == []
        private = server.create_table(2, public=False)
        public = server.create_table(3, public=True)
        listed = await lobby.wait_for(lambda m: m["type"] == "lobby" and m["tables"], timeout=3)
        assert [t["code"] for t in listed["tables"]] == [public], "only public tables are listed"
        entry = listed["tables"][0]
        assert entry["phase"] == "lobby" and entry["seats"] == 3 and entry["taken"] == 0 and entry["host"] is None
        assert private not in str(lobby.messages)

        mark = len(lobby.messages)
        ann = await server.client("Ann").join(public)
        joined = await lobby.wait_for(lambda m: m["type"] == "lobby" and m["tables"][0]["taken"] == 1, since=mark)
        assert joined["tables"][0]["host"] == "Ann"
        status, answer = server.http("GET", "/api/tables")
        assert status == 200 and [t["code"] for t in answer["tables"]] == [public]
        status, answer = server.http("GET", f"/api/tables/{private}")
        assert status == 200 and answer["code"] == private
        status, answer = server.http("GET", "/api/tables/nosuchcode")
        assert status == 404 and answer["error"] == "no_table"
        # Making the table private takes it off the list.
        mark = len(lobby.messages)
        await ann.send({"type": "set_rules", "preset": "classic", "options": {}, "public": False})
        gone = await lobby.wait_for(lambda m: m["type"] == "lobby", since=mark, timeout=3)
        assert gone["tables"] == []
        await ann.close()
        await lobby.close()

    arun(scenario())


def _bad_requests(server: Any) -> dict[str, float]:
    text = server.http("GET", "/metrics")[1]
    found = re.findall(r'^ligretto_bad_requests_total\{code="(\w+)"\} (\S+)$', text, re.MULTILINE)
    return {code: float(value) for code, value in found}


def test_create_table_validates_its_input(app_server: Any) -> None:
    server = app_server  # the app in process: no socket is the subject
    before = _bad_requests(server)
    for body, error in (
        ({"seats": 1}, "bad_seats"),
        ({"seats": 13}, "bad_seats"),
        ({"preset": "nope"}, "bad_rules"),
        ({"options": {"row_size": 9}}, "bad_rules"),
        ({"grace_s": -1}, "bad_grace"),
        ({"ready_s": 4}, "bad_ready"),
        ({"ready_s": 601}, "bad_ready"),
        ({"colour": "red"}, "invalid"),
    ):
        status, answer = server.http("POST", "/api/tables", body)
        assert status == 400 and answer["error"] == error, (body, status, answer)
    status, answer = server.http("POST", "/api/tables", {"pad": "x" * 5000})
    assert status == 413 and answer["error"] == "too_large"
    assert server.http("GET", "/healthz")[1]["tables"] == 0
    assert server.http("GET", "/api/tables/NOPE")[0] == 404
    after = _bad_requests(server)
    status, answer = server.http("POST", "/api/tables", {"ready_s": 45})
    assert status == 201 and server.app.state.lobby.tables[answer["code"]].ready_s == 45.0
    counted = {code: after.get(code, 0) - before.get(code, 0) for code in after}
    assert {code: n for code, n in counted.items() if n} == {
        "bad_seats": 2,
        "bad_rules": 2,
        "bad_grace": 1,
        "bad_ready": 2,
        "invalid": 1,
        "too_large": 1,
        "no_table": 1,
    }, counted


@pytest.mark.shared_server
def test_create_table_tells_bytes_that_are_not_json_from_json_that_does_not_fit(server: Any) -> None:
    """As on the WebSocket: ``malformed`` for a body that is not JSON, ``invalid`` for JSON
    of the wrong shape."""
    tables = server.http("GET", "/healthz")[1]["tables"]  # the module's server: others' tables too
    for body, error in (
        (b"{nope", "malformed"),
        (b'{"seats": 3,}', "malformed"),
        (b"\xff\xfe garbage", "malformed"),
        (b"[1, 2]", "invalid"),
        (b'{"seats": "three"}', "invalid"),
    ):
        request = urllib.request.Request(server.url + "/api/tables", data=body, method="POST")
        request.add_header("Content-Type", "application/json")
        with pytest.raises(urllib.error.HTTPError) as answer:
            urllib.request.urlopen(request, timeout=5)
        assert answer.value.code == 400, body
        reply = json.loads(answer.value.read())
        assert reply["error"] == error and reply["message"], (body, reply)
    assert server.http("GET", "/healthz")[1]["tables"] == tables, "a refused body made a table"


@pytest.mark.shared_server
def test_host_passes_and_only_the_host_starts(server: Any, arun: Any) -> None:
    async def scenario() -> None:
        code = server.create_table(3)
        ann, bob, cid = [await server.client(name).join(code) for name in ("Ann", "Bob", "Cid")]
        assert [c.seat for c in (ann, bob, cid)] == [0, 1, 2]
        assert cid.table is not None and cid.table["host"] == 0
        for client in (bob, cid):
            mark = len(client.messages)
            await client.send({"type": "start"})
            assert (await client.wait_for("error", since=mark))["code"] == "not_host"

        mark = len(cid.messages)
        await ann.close()  # the host disconnects: the next connected person is host
        table = await cid.wait_for(lambda m: m["type"] == "table" and m["host"] != 0, since=mark)
        assert table["host"] == 1 and table["seats"][0]["connected"] is False and table["phase"] == "lobby"
        mark = len(cid.messages)
        await bob.send({"type": "leave"})  # the new host gives up the seat: it passes on again
        table = await cid.wait_for(lambda m: m["type"] == "table" and m["host"] != 1, since=mark)
        assert table["host"] == 2 and table["seats"][1] is None
        mark = len(bob.messages)
        await bob.send({"type": "start"})
        assert (await bob.wait_for("error", since=mark))["code"] == "not_host"

        await cid.send({"type": "add_bot", "strategy": "smart", "level": "machine"})
        await cid.wait_for(lambda m: m["type"] == "table" and m["seats"][1] is not None and m["seats"][1]["bot"])
        mark = len(cid.messages)
        await cid.send({"type": "start"})
        table = await cid.wait_for(lambda m: m["type"] == "table" and m["phase"] == "countdown", since=mark)
        assert table["host"] == 2
        await cid.wait_for("go", since=mark)
        # Ann comes back during the match: her seat, but the host stays who it is.
        back = server.client("Ann-back")
        await back.connect()
        welcome = await back.hello(code, token=ann.token)
        assert welcome["seat"] == 0
        table = await back.wait_for("table")
        assert table["host"] == 2
        for client in (back, bob, cid):
            await client.close()

    arun(scenario())


@pytest.mark.shared_server
def test_host_role_comes_back_with_the_first_person_to_return(server: Any, arun: Any) -> None:
    """Everybody dropped out of a table in its lobby; whoever comes back first must be able
    to host it (otherwise nobody can ever start that table)."""

    async def scenario() -> None:
        code = server.create_table(2)
        ann, bob = [await server.client(name).join(code) for name in ("Ann", "Bob")]
        await ann.close()
        await bob.wait_for(lambda m: m["type"] == "table" and m["host"] == 1)
        await bob.close()
        await _until(lambda: server.http("GET", f"/api/tables/{code}")[1]["host"] is None, "nobody is connected")
        back = server.client("Ann-back")
        await back.connect()
        assert (await back.hello(code, token=ann.token))["seat"] == 0
        table = await back.wait_for("table")
        assert table["host"] is not None, "a table with a connected person but no host can never start"
        mark = len(back.messages)
        await back.send({"type": "start"})
        answer = await back.wait_for(lambda m: m["type"] in ("error", "go"), since=mark)
        assert answer["type"] == "go", answer
        await back.close()

    arun(scenario())


@pytest.mark.shared_server
def test_spectator_sees_the_spectator_view_and_cannot_act(server: Any, match_starter: Any, arun: Any) -> None:
    async def scenario() -> None:
        code, (ann, bob), _ = await match_starter(server, ["Ann", "Bob"])
        await ann.play(3)
        watcher = server.client("watcher")
        await watcher.connect()
        welcome = await watcher.hello(code, watch=True)
        assert welcome == {"type": "welcome", "v": 1, "code": code, "seat": None, "token": None}
        snapshot = await watcher.wait_for("snapshot")
        assert snapshot["view"]["viewer"] is None
        await ann.barrier()  # Ann's mirror has every event the server sent before the watcher came
        assert snapshot["view"] == {**ann.view, "viewer": None}  # type: ignore[dict-item]
        table = await watcher.wait_for("table")
        assert [s["name"] for s in table["seats"]] == ["Ann", "Bob"], "a spectator takes no seat"
        answer = await watcher.act({"kind": "turn"})
        assert answer["type"] == "error" and answer["code"] == "not_seated"
        # The spectator follows the game live.
        mark = len(watcher.messages)
        await bob.play(3)
        await watcher.wait_for("events", since=mark, by=1)
        await watcher.barrier()  # Bob's acts were all answered: their events are before this pong
        assert {**watcher.view, "viewer": 1} == bob.view  # type: ignore[dict-item]
        assert not any(m.get("token") for m in watcher.messages), "a spectator got a seat token"
        for client in (ann, bob, watcher):
            await client.close()

    arun(scenario())


@pytest.mark.shared_server
def test_grace_period_stand_in_plays_and_hands_back(server: Any, match_starter: Any, arun: Any) -> None:
    async def scenario() -> None:
        code, (ann, bob), _ = await match_starter(server, ["Ann", "Bob"], grace_s=1.0)
        await bob.play(3)
        mark = len(ann.messages)
        left = time.monotonic()
        await bob.close()
        away = await ann.wait_for(lambda m: m["type"] == "table" and not m["seats"][1]["connected"], since=mark)
        assert away["seats"][1]["stand_in"] is False
        standing = await ann.wait_for(lambda m: m["type"] == "table" and m["seats"][1]["stand_in"], since=mark)
        waited = time.monotonic() - left
        assert 0.8 <= waited <= 3.0, f"the stand-in came after {waited:.2f} s, the grace period is 1 s"
        assert standing["seats"][1]["connected"] is False  # the person is away, a bot plays
        assert standing["grace_s"] == 1.0
        await ann.wait_for("events", since=mark, by=1, timeout=8)  # the stand-in plays

        mark = len(ann.messages)
        back = server.client("Bob-back")
        await back.connect()
        assert (await back.hello(code, token=bob.token))["seat"] == 1
        table = await ann.wait_for(lambda m: m["type"] == "table" and not m["seats"][1]["stand_in"], since=mark)
        assert table["seats"][1]["connected"] is True
        snapshot = await back.wait_for("snapshot")
        await ann.barrier()  # the stand-in's last events (before the return) have reached Ann
        assert snapshot["view"] == {**ann.view, "viewer": 1}  # type: ignore[dict-item]
        # Nothing the stand-in did after the return has reached Ann (the server had handled
        # the return before her barrier; that no bot timer fires later is proven in virtual
        # time, test_server_timers.py).
        returned = len(ann.messages)
        await ann.barrier()
        assert not ann.all("events", since=returned, by=1), "the stand-in kept playing after the person returned"
        answer = await back.act({"kind": "turn"})
        assert answer["type"] == "ack" and answer["applied"]
        assert not ann.problems and not back.problems
        for client in (ann, back):
            await client.close()

    arun(scenario())


@pytest.mark.shared_server
def test_grace_period_starts_again_after_a_return(server: Any, match_starter: Any, arun: Any) -> None:
    """Away, back, away again: the stand-in comes a full grace period after the *last*
    disconnection, not after the first one.  (Exact figures in virtual time:
    test_server_timers.py; here over the wire, with short real ones.)"""

    async def scenario() -> None:
        code, (ann, bob), _ = await match_starter(server, ["Ann", "Bob"], grace_s=1.0)
        mark = len(ann.messages)
        await bob.close()
        await ann.wait_for(lambda m: m["type"] == "table" and not m["seats"][1]["connected"], since=mark)
        await asyncio.sleep(0.6)  # away for most of the grace period (real time: the server's timer)
        back = server.client("Bob-back")
        await back.connect()
        assert (await back.hello(code, token=bob.token))["seat"] == 1
        await back.wait_for("snapshot")
        await back.barrier()
        mark = len(ann.messages)
        left_again = time.monotonic()
        await back.close()
        await ann.wait_for(lambda m: m["type"] == "table" and not m["seats"][1]["connected"], since=mark)
        standing = await ann.wait_for(
            lambda m: m["type"] == "table" and m["seats"][1]["stand_in"], since=mark, timeout=5
        )
        waited = time.monotonic() - left_again
        assert waited >= 0.9, f"the stand-in came {waited:.2f} s after the last disconnection (grace 1 s)"
        assert standing["phase"] == "playing"
        await ann.close()

    arun(scenario())


@pytest.mark.shared_server
def test_grace_period_covers_a_person_who_dropped_out_in_the_lobby(server: Any, match_starter: Any, arun: Any) -> None:
    """A person whose connection dropped before the start is away when the match starts:
    after the grace period a stand-in must play their seat, or the round can only wait."""

    async def scenario() -> None:
        code = server.create_table(2, grace_s=1.0)
        ann, bob = [await server.client(name).join(code) for name in ("Ann", "Bob")]
        await bob.close()
        await ann.wait_for(lambda m: m["type"] == "table" and m["seats"][1] and not m["seats"][1]["connected"])
        mark = len(ann.messages)
        await ann.send({"type": "start"})
        await ann.wait_for("go", since=mark)
        standing = ann.find(lambda m: m["type"] == "table" and m["seats"][1]["stand_in"], since=mark)
        if standing is None:
            try:
                standing = await ann.wait_for(
                    lambda m: m["type"] == "table" and m["seats"][1]["stand_in"], since=mark, timeout=3
                )
            except AssertionError:
                standing = None
        assert standing is not None, "nobody plays the seat of the person who dropped out before the start"
        await ann.wait_for("events", since=mark, by=1, timeout=8)
        await ann.close()

    arun(scenario())
