"""Every number a client sends is bounded (docs/protocol.md, Limits): the audit's
``match_end: "rounds:99999999999999999999"``, digits Python's ``str.isdigit`` takes but
``int`` does not, seats, grace periods, ids, clock readings, positions, piles and columns
far out of range.  Each gets a clear error (or the engine's refusal) and changes nothing:
a newcomer sees the same table and round before and after, ``/healthz`` answers."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from ligretto.engine.rules import RuleSet
from ligretto.server.records.store import SqliteStore
from ligretto.server.web.lobby import Lobby
from ligretto.server.web.settings import Settings

HUGE = 2**70
"""Beyond any 64-bit integer."""


async def _state(server: Any, code: str) -> tuple[dict[str, Any] | None, dict[str, Any]]:
    """The round and the table as a newcomer sees them (spectator connection)."""
    watcher = server.client("inspector")
    await watcher.watch(code)
    await watcher.barrier()
    snapshot = watcher.find("snapshot")
    table = watcher.table
    await watcher.close()
    assert table is not None
    return (None if snapshot is None else snapshot["view"]), table


def _post(server: Any, path: str, raw: str) -> tuple[int, dict[str, Any]]:
    """POST a body as written (``1e999`` is JSON, Python's ``json`` would write ``Infinity``)."""
    request = urllib.request.Request(server.url + path, data=raw.encode(), method="POST")
    try:
        with urllib.request.urlopen(request, timeout=5.0) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


async def _answer(client: Any, message: dict[str, Any] | str) -> dict[str, Any]:
    """The error (or ack) a message gets."""
    mark = len(client.messages)
    await client.send(message)
    answer: dict[str, Any] = await client.wait_for(lambda m: m["type"] in ("error", "ack"), since=mark)
    return answer


def test_numbers_out_of_bounds_over_http_are_refused(server: Any) -> None:
    for body, code in (
        ({"options": {"match_end": "rounds:99999999999999999999"}}, "bad_rules"),
        ({"options": {"match_end": "rounds:1001"}}, "bad_rules"),
        ({"options": {"match_end": "target:10001"}}, "bad_rules"),
        ({"options": {"match_end": "rounds:\u00b2"}}, "bad_rules"),
        ({"options": {"stack_penalty": "\u0663"}}, "bad_rules"),
        ({"options": {"stack_penalty": HUGE}}, "bad_rules"),
        ({"seats": HUGE}, "bad_seats"),
        ({"seats": -HUGE}, "bad_seats"),
    ):
        status, answer = server.http("POST", "/api/tables", body)
        assert (status, answer["error"]) == (400, code), (body, answer)
    for raw in ('{"grace_s": 1e999}', '{"grace_s": -1e999}', '{"seats": 1e999}'):
        status, answer = _post(server, "/api/tables", raw)  # beyond a float: the decoder refuses it
        assert (status, answer["error"]) == (400, "invalid"), (raw, answer)
    status, answer = _post(server, "/api/tables", '{"grace_s": 1e308}')
    assert (status, answer["error"]) == (400, "bad_grace")
    status, answer = server.http("POST", "/api/tables", {"options": {"match_end": "rounds:99999999999999999999"}})
    assert "'rounds:N' (N 1-1000)" in answer["message"]
    assert server.http("GET", "/healthz")[1]["tables"] == 0


def test_numbers_out_of_bounds_from_the_host_are_refused(server: Any, arun: Any) -> None:
    async def scenario() -> None:
        code = server.create_table(3)
        ann = await server.client("Ann").join(code)
        before = await _state(server, code)
        for command, expected in (
            ({"type": "set_rules", "options": {"match_end": "rounds:99999999999999999999"}}, "bad_rules"),
            ({"type": "set_rules", "options": {"match_end": "target:\u0663\u0663"}}, "bad_rules"),
            ({"type": "set_rules", "options": {}, "seats": HUGE}, "bad_seats"),
            ('{"type": "set_rules", "options": {}, "grace_s": 1e999}', "invalid"),
            ({"type": "set_rules", "options": {}, "grace_s": 1e308}, "bad_grace"),
            ({"type": "remove_seat", "seat": HUGE}, "no_seat"),
            ({"type": "remove_seat", "seat": -HUGE}, "no_seat"),
        ):
            answer = await _answer(ann, command)
            assert (answer["type"], answer["code"]) == ("error", expected), (command, answer)
        assert await _state(server, code) == before
        assert server.healthy()
        await ann.close()

    arun(scenario())


def test_numbers_out_of_bounds_in_a_match_are_refused(server: Any, match_starter: Any, arun: Any) -> None:
    async def scenario() -> None:
        code, (ann, bob), _ = await match_starter(server, ["Ann", "Bob"])
        await ann.play(2)
        await bob.play(2)
        before = await _state(server, code)
        turn = {"kind": "turn"}
        for message, expected in (
            ({"type": "act", "id": "x" * 65, "action": turn}, "invalid"),
            ({"type": "act", "id": 2**53 + 1, "action": turn}, "invalid"),
            ({"type": "act", "id": HUGE, "action": turn}, "invalid"),
            ('{"type": "ping", "t": 1e999}', "invalid"),
            ('{"type": "ping", "t": -1e999}', "invalid"),
            ({"type": "ping", "t": 1e16}, "invalid"),
        ):
            answer = await _answer(ann, message)
            assert (answer["type"], answer["code"]) == ("error", expected), (message, answer)
        for action, reason in (
            ({"kind": "play", "source": "row", "position": HUGE, "pile": None}, "no_such_card"),
            ({"kind": "play", "source": "row", "position": -1, "pile": None}, "no_such_card"),
            ({"kind": "play", "source": "row", "position": 0, "pile": HUGE}, "no_such_pile"),
            ({"kind": "play", "source": "row", "position": 0, "pile": -HUGE}, "no_such_pile"),
            ({"kind": "place", "source": "stack", "column": HUGE}, "not_expert"),
        ):
            answer = await ann.act(action)
            refused = answer["type"] == "error" and answer["code"] == "invalid"
            refused = refused or (answer["type"] == "ack" and not answer["applied"] and answer["reason"] == reason)
            assert refused, (action, answer)
        await ann.barrier()
        assert await _state(server, code) == before
        assert server.healthy()
        for client in (ann, bob):
            await client.close()

    arun(scenario())


def test_a_stored_table_whose_rules_lost_their_bounds_is_left_behind(tmp_path: Path) -> None:
    """A file written before ``match_end`` had its bounds (the audit's ``rounds:10^20``)
    still starts the server: that table is not restored, the others are."""

    async def scenario() -> None:
        store = SqliteStore(tmp_path / "old.db")
        lobby = Lobby(Settings(), store)
        old = lobby.create(2, RuleSet(), public=True, grace_s=60)
        kept = lobby.create(2, RuleSet(), public=True, grace_s=60)
        await asyncio.sleep(0)  # the store commits on the loop's next turn
        store.close()
        with sqlite3.connect(tmp_path / "old.db") as db:
            (config,) = db.execute("SELECT config FROM tables WHERE code = ?", (old.code,)).fetchone()
            record = json.loads(config)
            record["rules"]["match_end"] = "rounds:99999999999999999999"
            db.execute("UPDATE tables SET config = ? WHERE code = ?", (json.dumps(record), old.code))
        again = SqliteStore(tmp_path / "old.db")
        assert [t.code for t in again.load_tables()] == [kept.code]
        again.close()
        for table in (old, kept):
            table.close()

    asyncio.run(scenario())
