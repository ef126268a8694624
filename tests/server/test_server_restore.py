"""SIGKILL the server, start a new process on the same database: nothing that was
acknowledged is lost.  Every test runs on an SQLite file and on a PostgreSQL database
(``store_db``: ``ligretto serve --db postgresql://…``).

* Mid-round: two people play (no bots, so the table only changes when they act and every
  change was acknowledged); right before the kill one of them reconnects to get a fresh
  snapshot.  After the restart the table is still there (``GET /api/tables/{code}``, and
  a table that was still in its lobby too), both come back with their seat tokens and
  receive a snapshot identical to the last view they knew, and the round can be played
  on and finished.
* Between rounds: the score sheet survives and round 2 is dealt from the match's seed.
* With a bot: the bot plays on after the restart, but not before the person is back (the
  restored round waits in ``countdown``, then counts down afresh).
* In-process, a crash between the last action of a round and the table's new phase.
"""

from __future__ import annotations

import asyncio
import copy
import json
from pathlib import Path
from typing import Any

import pytest

from ligretto.engine.rules import RuleSet
from ligretto.engine.scoring import round_seed
from ligretto.engine.serial import action_from_dict
from ligretto.engine.state import Round
from ligretto.engine.views import view
from ligretto.server.db.database import open_database
from pgserver import StoreDatabase


@pytest.fixture
def server_db(store_db: StoreDatabase) -> str:
    """The server's database (``conftest.server``): an SQLite file, then PostgreSQL."""
    return store_db.url


def _deal(db: Path | str, code: str, number: int) -> Round:
    """Round ``number`` of the table's match as the engine deals it from the stored seed."""
    connection = open_database(db)
    try:
        (config,) = connection.execute("SELECT config FROM tables WHERE code = ?", (code,)).fetchone()
    finally:
        connection.close()
    config = json.loads(config)
    return Round.deal(RuleSet.from_dict(config["rules"]), config["size"], round_seed(config["match_seed"], number))


def test_kill_9_and_restore_mid_round(server: Any, match_starter: Any, arun: Any) -> None:
    async def before_kill() -> tuple[str, str, dict[str, Any], dict[int, str], dict[str, Any], int]:
        code, (ann, bob), _ = await match_starter(server, ["Ann", "Bob"])
        for _ in range(3):
            await ann.play(4)
            await bob.play(4)
        waiting = server.create_table(3, public=True)
        await server.client("Carl").join(waiting)  # a table still in its lobby
        # A fresh snapshot right before the kill: reconnect Ann.
        tokens = {ann.seat: ann.token, bob.seat: bob.token}
        await ann.close()
        again = server.client("Ann-again")
        await again.connect()
        assert (await again.hello(code, token=tokens[0]))["type"] == "welcome"
        fresh = (await again.wait_for("snapshot"))["view"]
        await bob.barrier()  # the events of every answered act have reached Bob
        assert fresh == {**bob.view, "viewer": 0}  # type: ignore[dict-item]
        assert fresh["ending"] is None
        assert not again.problems and not bob.problems
        last_table = copy.deepcopy(again.table)
        assert last_table is not None
        last_seq = bob.all("events")[-1]["seq"]
        return code, waiting, copy.deepcopy(fresh), tokens, last_table, last_seq

    code, waiting, last_view, tokens, last_table, last_seq = arun(before_kill())
    server.kill()
    assert not server.alive
    server.start()  # same port, same database

    status, summary = server.http("GET", f"/api/tables/{code}")
    assert status == 200, summary
    # The restored round waits for its people in ``countdown`` (test_server_resume.py).
    assert summary["code"] == code and summary["phase"] == "countdown" and summary["taken"] == 2
    assert summary["rules"] == last_table["rules"]
    status, lobby_summary = server.http("GET", f"/api/tables/{waiting}")
    assert status == 200 and lobby_summary["phase"] == "lobby" and lobby_summary["taken"] == 1
    status, listed = server.http("GET", "/api/tables")
    assert status == 200 and waiting in [t["code"] for t in listed["tables"]]

    async def after_restart() -> None:
        clients = []
        for seat in (0, 1):
            client = server.client(["Ann", "Bob"][seat] + "-restored")
            await client.connect()
            welcome = await client.hello(code, token=tokens[seat])
            assert welcome["type"] == "welcome" and welcome["seat"] == seat, welcome
            snapshot = await client.wait_for("snapshot")
            assert snapshot["round"] == 1
            assert snapshot["view"] == {**last_view, "viewer": seat}, "the restored round is not the one lost"
            table = await client.wait_for("table")
            # The restored round waits for its people, then counts down afresh (test_server_resume.py).
            assert table["phase"] == "countdown" and table["host"] == last_table["host"]
            assert [s["name"] for s in table["seats"]] == [s["name"] for s in last_table["seats"]]
            assert table["sheet"] == last_table["sheet"]
            clients.append(client)
        ann, bob = clients
        for client in clients:
            await client.wait_for("go")
        # The round goes on: plays, the event numbers carry on, and it can be finished.
        await ann.play(4)
        await bob.play(4)
        first = ann.all("events")[0]
        assert first["seq"] > last_seq, "the action log does not carry on after the restart"
        for client in (ann, bob):
            await client.barrier()  # each has the events of the other's answered acts
        assert {k: v for k, v in ann.view.items() if k != "viewer"} == {  # type: ignore[union-attr]
            k: v
            for k, v in bob.view.items()  # type: ignore[union-attr]
            if k != "viewer"
        }
        for client in (ann, bob):
            answer = await client.act({"kind": "vote"})
            assert answer["type"] == "ack", answer
        for client in (ann, bob):
            over = await client.wait_for("round_over")
            assert over["match_over"] is True and over["ending"] in ("stalemate_vote", "stop", "stalemate_proven")
        assert not ann.problems and not bob.problems
        for client in clients:
            await client.close()

    arun(after_restart())
    assert server.healthy()


def test_an_acknowledged_action_survives_a_kill_right_after_its_ack(server: Any, match_starter: Any, arun: Any) -> None:
    """The store commits a loop turn's writes before that turn's messages go out: SIGKILL
    the moment the last ack arrives, and the restored round still holds every action that
    was acknowledged (the next action gets the next index of the round's log)."""

    async def before_kill() -> tuple[str, str, str]:
        code, (ann, bob), _ = await match_starter(server, ["Ann", "Bob"])
        for _ in range(4):
            ident = ann.next_id()
            await ann.send({"type": "act", "id": ident, "action": {"kind": "turn"}})
            answer = await ann.answer(ident)
            assert answer["type"] == "ack" and answer["applied"], answer
        server.kill()  # right away: not even the events of the last turn are awaited
        assert ann.token is not None and bob.token is not None
        return code, ann.token, bob.token

    code, token, bob_token = arun(before_kill())
    server.start()

    async def after_restart() -> None:
        ann = server.client("Ann-back")
        await ann.connect()
        assert (await ann.hello(code, token=token))["seat"] == 0
        snapshot = await ann.wait_for("snapshot")
        bob = server.client("Bob-back")  # the restored round waits for him too
        await bob.connect()
        assert (await bob.hello(code, token=bob_token))["seat"] == 1
        await ann.wait_for("go")
        assert snapshot["view"]["areas"][0]["discard_size"] == 4 * 3, "a turn that was acknowledged is lost"
        answer = await ann.act({"kind": "turn"})
        assert answer["type"] == "ack" and answer["applied"], answer
        assert ann.all("events")[-1]["seq"] == 4
        await ann.close()
        await bob.close()

    arun(after_restart())


def test_kill_9_between_rounds(server: Any, match_starter: Any, arun: Any) -> None:
    """Killed on the score sheet after round 1 of 2: the sheet survives, and the second
    round is dealt from the match's seed as if nothing had happened."""

    async def before_kill() -> tuple[str, dict[int, str], dict[str, Any]]:
        code, (ann, bob), _ = await match_starter(server, ["Ann", "Bob"], options={"match_end": "rounds:2"})
        await ann.play(5)
        await bob.play(5)
        for client in (ann, bob):
            await client.act({"kind": "vote"})
        await ann.wait_for("round_over")
        table = await bob.wait_for(lambda m: m["type"] == "table" and m["phase"] == "scoring")
        tokens = {ann.seat: ann.token, bob.seat: bob.token}
        return code, tokens, table

    code, tokens, scoring = arun(before_kill())
    server.kill()
    server.start()
    status, summary = server.http("GET", f"/api/tables/{code}")
    assert status == 200 and summary["phase"] == "scoring"

    async def after_restart() -> None:
        clients = []
        for seat in (0, 1):
            client = server.client(f"seat{seat}")
            await client.connect()
            assert (await client.hello(code, token=tokens[seat]))["seat"] == seat
            table = await client.wait_for("table")
            assert table["phase"] == "scoring" and table["sheet"] == scoring["sheet"] and table["round"] == 1
            assert (await client.wait_for("snapshot"))["view"]["ending"] == "stalemate_vote"  # round 1, as it ended
            clients.append(client)
        marks = [len(c.messages) for c in clients]
        for client in clients:
            await client.send({"type": "ready"})
        for client, mark in zip(clients, marks, strict=True):
            snapshot = await client.wait_for("snapshot", since=mark)
            assert snapshot["round"] == 2
            assert snapshot["view"] == view(_deal(server.db, code, 2), client.seat).to_dict()
            await client.wait_for("go", since=mark)
        await clients[0].play(3)
        for client in clients:
            await client.act({"kind": "vote"})
        over = await clients[1].wait_for("round_over", round=2)
        assert over["match_over"] is True
        first = scoring["sheet"]["totals"]
        assert over["totals"] == [first[s] + over["scores"][s]["score"] for s in (0, 1)]
        for client in clients:
            await client.close()

    arun(after_restart())


def test_bots_play_on_after_a_restart(server: Any, match_starter: Any, arun: Any) -> None:
    async def before_kill() -> tuple[str, str, int]:
        code, (ann,), _ = await match_starter(server, ["Ann"], bots=["smart:expert"])
        await ann.wait_for("events", by=1, timeout=10)
        await ann.play(2)
        assert ann.view is not None
        return code, ann.token, sum(p["top"] for p in ann.view["center"])  # type: ignore[return-value]

    code, token, center = arun(before_kill())
    server.kill()
    server.start()

    async def after_restart() -> None:
        ann = server.client("Ann-back")
        await ann.connect()
        assert (await ann.hello(code, token=token))["seat"] == 0
        snapshot = await ann.wait_for("snapshot")
        assert snapshot["view"]["ending"] is None
        assert sum(p["top"] for p in snapshot["view"]["center"]) >= center
        mark = len(ann.messages)
        await ann.wait_for("events", by=1, since=mark, timeout=10)  # the bot is back at work
        await ann.play(2)
        assert not ann.problems
        await ann.close()

    arun(after_restart())


def _stored_actions(db: Path | str, code: str) -> list[dict[str, Any]]:
    """The actions of the table's first round in the database, in order."""
    connection = open_database(db)
    try:
        rows = connection.execute(
            "SELECT action FROM actions WHERE code = ? AND match = 1 AND round = 1 ORDER BY idx", (code,)
        ).fetchall()
    finally:
        connection.close()
    return [json.loads(action) for (action,) in rows]


def test_after_a_restart_nothing_happens_until_the_person_is_back(server: Any, match_starter: Any, arun: Any) -> None:
    """Ann and an expert bot (which acts about every half second when it may), killed
    mid-round.  After the restart no action reaches the file for two seconds; Ann, back,
    finds the round exactly as the file left it, in ``countdown``; after a fresh countdown
    (``go``) the bot is back at work."""

    async def before_kill() -> tuple[str, str]:
        code, (ann,), _ = await match_starter(server, ["Ann"], bots=["smart:expert"])
        await ann.wait_for("events", by=1, timeout=10)
        assert ann.token is not None
        return code, ann.token

    code, token = arun(before_kill())
    server.kill()
    server.start()
    stored = _stored_actions(server.db, code)
    assert stored, "the bot's actions were stored"

    async def after_restart() -> None:
        await asyncio.sleep(2.0)  # what the bot would need, four times over, to act
        assert _stored_actions(server.db, code) == stored, "an action was applied before Ann was back"
        ann = server.client("Ann-back")
        await ann.connect()
        assert (await ann.hello(code, token=token))["seat"] == 0
        table = await ann.wait_for("table")
        assert table["phase"] == "countdown" and table["start_at"] is not None
        answer = await ann.act({"kind": "turn"})  # within the countdown (0.5 s)
        assert answer["type"] == "error" and answer["code"] == "countdown", answer
        snapshot = await ann.wait_for("snapshot")
        game = _deal(server.db, code, 1)
        for action in stored:
            game.apply(action_from_dict(action))
        assert snapshot["view"] == view(game, 0).to_dict(), "the round is not the one the file holds"
        go = ann.messages.index(await ann.wait_for("go"))
        await ann.wait_for("events", by=1, since=go, timeout=10)  # the bot is back at work
        assert not ann.problems
        await ann.close()

    arun(after_restart())
    assert len(_stored_actions(server.db, code)) > len(stored)


def test_restore_after_a_crash_right_after_the_last_action_of_a_round(store_db: StoreDatabase) -> None:
    """A file holding the action that ended a round but not the table's new phase (the
    store commits them together, once per turn of the event loop, so this takes a file
    written otherwise, or a commit that failed half-way): the restored table must not be
    left "playing" a round that is over (nobody could act, no round_over would ever come,
    the match would be stuck)."""
    from listeners import Quiet

    from ligretto.engine.actions import Vote
    from ligretto.protocol import Phase
    from ligretto.server.records.store import Store
    from ligretto.server.table.clock import VirtualScheduler
    from ligretto.server.table.table import Table

    async def play() -> None:
        store = Store(store_db.url)
        scheduler = VirtualScheduler()
        rules = RuleSet().replace(match_end="rounds:2")
        table = Table("CRASH", seats=2, rules=rules, store=store, countdown_s=0.01, scheduler=scheduler)
        table.join(Quiet(), "Ann")
        table.join(Quiet(), "Bob")
        table.start(0)
        scheduler.advance(0.01)
        assert table.phase is Phase.PLAYING
        assert table.act(0, Vote(0)).ok
        # The process dies right after the last action is written: nothing else reaches the file.
        store.save_table = lambda record: None  # type: ignore[method-assign]
        store.start_round = lambda deal, table: None  # type: ignore[method-assign]
        assert table.act(1, Vote(1)).ok
        assert table.game is not None and table.game.over
        store.commit()  # the actions reach the file, the table's new phase does not
        table.close()
        store.db.close()

    asyncio.run(play())

    async def restore() -> None:
        store = Store(store_db.url)
        (table,) = store.load_tables(countdown_s=0.01)
        table.resume()
        await asyncio.sleep(0.05)
        assert table.game is not None and table.game.over
        assert table.phase is not Phase.PLAYING, "restored as playing a round that is over"
        assert table.match is not None and len(table.match.sheet.rounds) == 1, "the finished round was not scored"
        table.close()
        store.close()

    asyncio.run(restore())


def test_a_seat_given_up_in_a_match_stays_given_up_after_a_restart(server: Any, match_starter: Any, arun: Any) -> None:
    """``leave`` during a match spends the seat's token: coming back with it is refused
    with ``bad_token`` and the stand-in plays on, before a SIGKILL and after the restart."""

    async def before_kill() -> tuple[str, str, str]:
        code, (ann, bob), _ = await match_starter(server, ["Ann", "Bob"])
        assert ann.token is not None and bob.token is not None
        mark = len(ann.messages)
        await bob.send({"type": "leave"})
        left = await ann.wait_for(lambda m: m["type"] == "table" and m["seats"][1]["stand_in"], since=mark)
        assert left["seats"][1]["connected"] is False
        await ann.wait_for(lambda m: m["type"] == "events" and m["by"] == 1, since=mark, timeout=10)  # a stand-in
        again = server.client("Bob-again")
        await again.connect()
        answer = await again.hello(code, token=bob.token)
        assert answer["type"] == "error" and answer["code"] == "bad_token", answer
        await ann.barrier()
        assert ann.table is not None and ann.table["seats"][1]["stand_in"], "the refused token changed the seat"
        for client in (ann, bob, again):
            await client.close()
        return code, ann.token, bob.token

    code, ann_token, bob_token = arun(before_kill())
    server.kill()
    server.start()

    async def after_restart() -> None:
        bob = server.client("Bob-restored")
        await bob.connect()
        answer = await bob.hello(code, token=bob_token)
        assert answer["type"] == "error" and answer["code"] == "bad_token", answer
        ann = server.client("Ann-restored")
        await ann.connect()
        welcome = await ann.hello(code, token=ann_token)
        assert welcome["type"] == "welcome" and welcome["seat"] == 0, welcome
        table = await ann.wait_for("table")
        assert table["seats"][1]["stand_in"] and not table["seats"][1]["connected"]
        for client in (ann, bob):
            await client.close()

    arun(after_restart())
    assert server.healthy()
