"""A tournament's stage tables over a real server and real WebSockets: four people with
profiles at two tables of two, the first stage on (nobody has come yet, so it stays on:
their stand-ins wait for the grace period).  An entrant may not watch the other table of
the stage they play, by their profile or by their seat token (``own_stage``), and the
refusal loses nothing: the same connection then watches their own table; a spectator who
is no entrant watches either table.  The lobby's list (``GET /api/tables`` and
``/ws/lobby``) shows the tournament once and none of its tables."""

from __future__ import annotations

from typing import Any

import pytest

from ligretto import protocol

pytestmark = pytest.mark.shared_server  # one real server for the module's tests

PEOPLE = ("Ann", "Bob", "Cid", "Dee")


def stage_on(server: Any) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """A tournament of the four, started: its details and each person's profile, entrant
    secret and seat (code, seat, token) at the first stage."""
    status, made = server.http(
        "POST", "/api/tournaments", {"name": "Peek cup", "table_size": 2, "stages": 2, "pairing": "mixed"}
    )
    assert status == 201, made
    base = f"/api/tournaments/{made['id']}"
    people: dict[str, dict[str, Any]] = {}
    for name in PEOPLE:
        _, profile = server.http("POST", "/api/profiles", {"name": name, "symbol": "sun"})
        bearer = {"Authorization": f"Bearer {profile['secret']}"}
        status, entered = server.http("POST", f"{base}/entrants", {"name": name}, headers=bearer)
        assert status == 201, entered
        people[name] = {"profile": profile["secret"], "entrant": entered["entrant"], "secret": entered["secret"]}
    status, details = server.http("POST", f"{base}/start", {"host": made["host"]})
    assert status == 200 and details["state"] == "playing", details
    for person in people.values():
        status, seat = server.http("POST", f"{base}/seat", {"secret": person["secret"]})
        assert status == 200, seat
        person.update(seat)
    return details, people


def test_an_entrant_may_not_watch_another_table_of_their_stage(server: Any, arun: Any) -> None:
    details, people = stage_on(server)
    (stage,) = details["played"]
    codes = [table["code"] for table in stage["tables"]]
    assert len(codes) == 2
    ann = people["Ann"]
    other = next(code for code in codes if code != ann["code"])
    tag = {"id": details["id"], "name": "Peek cup", "stage": 1, "stages": 2}

    async def scenario() -> None:
        watcher = server.client("Ann watching")
        await watcher.connect()
        # by her profile (as the browser's every hello carries it), then by her seat's token
        refused = [await watcher.hello(other, watch=True, profile=ann["profile"])]
        mark = len(watcher.messages)
        await watcher.send({"type": "hello", "v": 1, "code": other, "watch": True, "token": ann["token"]})
        refused.append(await watcher.wait_for("error", since=mark))
        for error in refused:
            assert (error["type"], error["code"]) == ("error", protocol.OWN_STAGE), error
            assert error["message"] == protocol.own_stage().message
        assert not watcher.find("table") and not watcher.find("snapshot")
        # refused, nothing lost: the same connection watches her own table, which names its tournament
        welcome = await watcher.hello(ann["code"], watch=True, profile=ann["profile"])
        assert (welcome["type"], welcome["seat"]) == ("welcome", None), welcome
        table = await watcher.wait_for("table", code=ann["code"])
        assert table["tournament"] == tag
        # a spectator who is no entrant (with a profile of their own, or none) watches the other table
        _, stranger = server.http("POST", "/api/profiles", {"name": "Eve", "symbol": "moon"})
        for profile in (stranger["secret"], None):
            eve = server.client("Eve")
            await eve.connect()
            welcome = await eve.hello(other, watch=True, profile=profile)
            assert (welcome["type"], welcome["seat"]) == ("welcome", None), welcome
            assert (await eve.wait_for("table"))["tournament"] == tag
            await eve.close()
        # Ann takes her seat with its token: a player's table message names the tournament too
        player = server.client("Ann")
        await player.connect()
        welcome = await player.hello(ann["code"], token=ann["token"], profile=ann["profile"])
        assert (welcome["type"], welcome["seat"]) == ("welcome", ann["seat"]), welcome
        assert (await player.wait_for("table"))["tournament"] == tag
        for client in (watcher, player):
            assert not client.problems, client.problems
            await client.close()

    arun(scenario())


def test_the_lobby_lists_the_tournament_once_and_not_its_tables(server: Any, arun: Any) -> None:
    status, table = server.http("POST", "/api/tables", {"public": True})
    assert status == 201, table
    details, _people = stage_on(server)
    codes = {t["code"] for s in details["played"] for t in s["tables"]}
    line = {"id": details["id"], "name": "Peek cup", "stage": 1, "stages": 2, "tables": 2}
    status, listed = server.http("GET", "/api/tables")
    assert status == 200
    assert line in listed["tournaments"]
    shown = {t["code"] for t in listed["tables"]}
    assert table["code"] in shown and not shown & codes
    assert listed["total"] == len(shown)

    async def scenario() -> None:
        lobby = server.client("lobby", keepalive=None)
        await lobby.connect("/ws/lobby")
        message = await lobby.wait_for("lobby")
        assert line in message["tournaments"] and message["total"] == listed["total"]
        assert {t["code"] for t in message["tables"]} == shown
        await lobby.close()

    arun(scenario())
