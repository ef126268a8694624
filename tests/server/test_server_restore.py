"""SIGKILL the server, start a new process on the same database: nothing that was
acknowledged is lost.  ``test_kill_9_and_restore`` runs on an SQLite file and on a
PostgreSQL database (``store_db``: ``ligretto serve --db postgresql://…``); it sets up every
scenario below on one server, each on a table of its own, kills the server once (right
after an ack: the last scenario), starts it again and checks each scenario (a failure
names its scenario).  The scenarios with a bot are set up last and together, as the kill
draws near: a bot plays on alone until it, and should not end its round first.

* Mid-round: two people play (no bots, so the table only changes when they act and every
  change was acknowledged); before the kill one of them reconnects to get a fresh
  snapshot.  After the restart the table is still there (``GET /api/tables/{code}``, and
  a table that was still in its lobby too), both come back with their seat tokens and
  receive a snapshot identical to the last view they knew, and the round can be played
  on and finished.
* Killed the moment the last ack arrives: the restored round holds every action that was
  acknowledged, and the next action gets the next index of the round's log.
* Between rounds: the score sheet survives and round 2 is dealt from the match's seed.
* With a bot: the bot plays on after the restart, but not before the person is back (the
  restored round waits in ``countdown``, then counts down afresh; no action reaches the
  database for two seconds after the restart while nobody is back).
* A seat given up in a match stays given up (its token refused) before and after the kill.
* In-process, a crash between the last action of a round and the table's new phase.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import json
import time
from collections.abc import Awaitable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

from ligretto.engine.rules import RuleSet
from ligretto.engine.scoring import round_seed
from ligretto.engine.serial import action_from_dict
from ligretto.engine.state import Round
from ligretto.engine.views import view
from ligretto.server.db.database import open_database
from pgserver import StoreDatabase

T = TypeVar("T")


@pytest.fixture
def server_db(store_db: StoreDatabase) -> str:
    """The server's database (``conftest.server``): an SQLite file, then PostgreSQL."""
    return store_db.url


@contextlib.contextmanager
def _scenario(name: str) -> Iterator[None]:
    """Name the scenario in a failure of its part of the test (they share one server)."""
    try:
        yield
    except Exception as error:
        error.add_note(f"in the scenario: {name}")
        raise


async def _named(name: str, part: Awaitable[T]) -> T:
    with _scenario(name):
        return await part


def _deal(db: Path | str, code: str, number: int) -> Round:
    """Round ``number`` of the table's match as the engine deals it from the stored seed."""
    connection = open_database(db)
    try:
        (config,) = connection.execute("SELECT config FROM tables WHERE code = ?", (code,)).fetchone()
    finally:
        connection.close()
    config = json.loads(config)
    return Round.deal(RuleSet.from_dict(config["rules"]), config["size"], round_seed(config["match_seed"], number))


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


# --- mid-round: two people, no bots --------------------------------------------------------

MID_ROUND = "mid-round"


MidRound = tuple[str, str, dict[str, Any], dict[int, str], dict[str, Any], int]
"""The table's code, the one in its lobby, the last view, the seat tokens, the last ``table``, the last seq."""


async def _mid_round_before(server: Any, match_starter: Any) -> MidRound:
    code, (ann, bob), _ = await match_starter(server, ["Ann", "Bob"])
    for _ in range(3):
        await ann.play(4)
        await bob.play(4)
    waiting = server.create_table(3, public=True)
    await server.client("Carl").join(waiting)  # a table still in its lobby
    # A fresh snapshot before the kill: reconnect Ann.
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


def _mid_round_tables(server: Any, state: MidRound) -> None:
    """Before anyone is back: the table and the one in its lobby are there."""
    code, waiting, _, _, last_table, _ = state
    status, summary = server.http("GET", f"/api/tables/{code}")
    assert status == 200, summary
    # The restored round waits for its people in ``countdown`` (test_server_resume.py).
    assert summary["code"] == code and summary["phase"] == "countdown" and summary["taken"] == 2
    assert summary["rules"] == last_table["rules"]
    status, lobby_summary = server.http("GET", f"/api/tables/{waiting}")
    assert status == 200 and lobby_summary["phase"] == "lobby" and lobby_summary["taken"] == 1
    status, listed = server.http("GET", "/api/tables")
    assert status == 200 and waiting in [t["code"] for t in listed["tables"]]


async def _mid_round_after(server: Any, state: MidRound) -> None:
    code, _, last_view, tokens, last_table, last_seq = state
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
        # A play above may have ended the round (a Stop, a stalemate proven): its
        # round_over then came before the refusal, on the same socket.
        ended = answer.get("code") == "not_playing" and client.all("round_over")
        assert answer["type"] == "ack" or ended, answer
    for client in (ann, bob):
        over = await client.wait_for("round_over")
        assert over["match_over"] is True and over["ending"] in ("stalemate_vote", "stop", "stalemate_proven")
    assert not ann.problems and not bob.problems
    for client in clients:
        await client.close()


# --- killed right after an ack ------------------------------------------------------------

ACKED = "killed right after an ack"


async def _acked_turns_then_kill(server: Any, ann: Any, bob: Any) -> tuple[str, str]:
    """The store commits a loop turn's writes before that turn's messages go out: SIGKILL
    the moment the last ack arrives (the kill of the test)."""
    for _ in range(4):
        ident = ann.next_id()
        await ann.send({"type": "act", "id": ident, "action": {"kind": "turn"}})
        answer = await ann.answer(ident)
        assert answer["type"] == "ack" and answer["applied"], answer
    server.kill()  # right away: not even the events of the last turn are awaited
    assert ann.token is not None and bob.token is not None
    return ann.token, bob.token


async def _acked_after(server: Any, code: str, token: str, bob_token: str) -> None:
    """The restored round still holds every action that was acknowledged (the next
    action gets the next index of the round's log)."""
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


# --- between rounds ---------------------------------------------------------------------

BETWEEN_ROUNDS = "between rounds"


async def _between_rounds_before(server: Any, match_starter: Any) -> tuple[str, dict[int, str], dict[str, Any]]:
    """On the score sheet after round 1 of 2."""
    code, (ann, bob), _ = await match_starter(server, ["Ann", "Bob"], options={"match_end": "rounds:2"})
    await ann.play(5)
    await bob.play(5)
    for client in (ann, bob):
        await client.act({"kind": "vote"})
    await ann.wait_for("round_over")
    table = await bob.wait_for(lambda m: m["type"] == "table" and m["phase"] == "scoring")
    tokens = {ann.seat: ann.token, bob.seat: bob.token}
    return code, tokens, table


async def _between_rounds_after(server: Any, code: str, tokens: dict[int, str], scoring: dict[str, Any]) -> None:
    """The sheet survives, and the second round is dealt from the match's seed as if
    nothing had happened."""
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


# --- a bot plays on after the restart -------------------------------------------------------

BOT_PLAYS_ON = "a bot plays on"


async def _bot_plays_on_before(server: Any, match_starter: Any) -> tuple[str, str, int]:
    code, (ann,), _ = await match_starter(server, ["Ann"], bots=["smart:expert"])
    await ann.wait_for("events", by=1, timeout=10)
    await ann.play(2)
    assert ann.view is not None
    return code, ann.token, sum(p["top"] for p in ann.view["center"])


async def _bot_plays_on_after(server: Any, code: str, token: str, center: int) -> None:
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


# --- nothing happens until the person is back ---------------------------------------------

UNTIL_BACK = "nothing until the person is back"
QUIET_S = 2.0
"""How long after the restart no action may reach the database while nobody is back:
what the expert bot (which acts about every half second when it may) would need, four
times over, to act."""


async def _until_back_before(server: Any, match_starter: Any) -> tuple[str, str]:
    """Ann and an expert bot, mid-round at the kill."""
    code, (ann,), _ = await match_starter(server, ["Ann"], bots=["smart:expert"])
    await ann.wait_for("events", by=1, timeout=10)
    assert ann.token is not None
    return code, ann.token


async def _until_back_after(server: Any, code: str, token: str, stored: list[dict[str, Any]], restarted: float) -> None:
    """No action reached the database for ``QUIET_S`` after the restart (``stored``: what
    it held right after); Ann, back, finds the round exactly as the database left it, in
    ``countdown``; after a fresh countdown (``go``) the bot is back at work."""
    await asyncio.sleep(max(0.0, restarted + QUIET_S - time.monotonic()))
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
    assert snapshot["view"] == view(game, 0).to_dict(), "the round is not the one the database holds"
    go = ann.messages.index(await ann.wait_for("go"))
    await ann.wait_for("events", by=1, since=go, timeout=10)  # the bot is back at work
    assert not ann.problems
    await ann.close()


# --- a seat given up stays given up -------------------------------------------------------

GIVEN_UP = "a seat given up"


async def _given_up_before(server: Any, match_starter: Any) -> tuple[str, str, str]:
    """``leave`` during a match spends the seat's token: coming back with it is refused
    with ``bad_token`` and the stand-in plays on."""
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


async def _given_up_after(server: Any, code: str, ann_token: str, bob_token: str) -> None:
    """After the restart the token is still refused and the seat still has its stand-in."""
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


# --- the test ---------------------------------------------------------------------------


def test_kill_9_and_restore(server: Any, match_starter: Any, arun: Any) -> None:
    """Every scenario above on one server: set up, one SIGKILL, one restart, each checked."""

    async def before_kill() -> tuple[Any, ...]:
        mid_round = await _named(MID_ROUND, _mid_round_before(server, match_starter))
        between = await _named(BETWEEN_ROUNDS, _between_rounds_before(server, match_starter))
        # The table of the last scenario, whose last acks the kill follows: its people wait.
        acked_code, (ann, bob), _ = await _named(ACKED, match_starter(server, ["Ann", "Bob"]))
        # The bots play on alone from here to the kill: set up last, together.
        bot, until_back, given_up = await asyncio.gather(
            _named(BOT_PLAYS_ON, _bot_plays_on_before(server, match_starter)),
            _named(UNTIL_BACK, _until_back_before(server, match_starter)),
            _named(GIVEN_UP, _given_up_before(server, match_starter)),
        )
        acked_tokens = await _named(ACKED, _acked_turns_then_kill(server, ann, bob))
        return mid_round, between, (acked_code, *acked_tokens), bot, until_back, given_up

    mid_round, between, acked, bot, until_back, given_up = arun(before_kill())
    assert not server.alive
    server.start()  # same port, same database
    with _scenario(UNTIL_BACK):
        stored = _stored_actions(server.db, until_back[0])
        assert stored, "the bot's actions were stored"
    restarted = time.monotonic()
    with _scenario(MID_ROUND):
        _mid_round_tables(server, mid_round)
    with _scenario(BETWEEN_ROUNDS):
        status, summary = server.http("GET", f"/api/tables/{between[0]}")
        assert status == 200 and summary["phase"] == "scoring"

    async def after_restart() -> None:
        await _named(MID_ROUND, _mid_round_after(server, mid_round))
        await _named(ACKED, _acked_after(server, *acked))
        await _named(BETWEEN_ROUNDS, _between_rounds_after(server, *between))
        await _named(BOT_PLAYS_ON, _bot_plays_on_after(server, *bot))
        await _named(GIVEN_UP, _given_up_after(server, *given_up))
        await _named(UNTIL_BACK, _until_back_after(server, *until_back, stored, restarted))

    arun(after_restart())
    with _scenario(UNTIL_BACK):
        assert len(_stored_actions(server.db, until_back[0])) > len(stored)
    assert server.healthy()


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
