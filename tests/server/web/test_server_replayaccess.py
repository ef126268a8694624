"""Who may watch a table's replays (``ligretto.server.table.replayaccess``): the rule itself; the
table's setting ``replays`` checked (``bad_replays``, nothing changed), kept in its record
and across a restart of the store; and on a real server a ``players`` table refuses a
stranger (no credentials, another profile, a wrong seat token: 403 ``not_a_player``) and
serves its player, by profile secret and by seat token, the viewer's answer and the file."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest
from listeners import Quiet

from ligretto import protocol
from ligretto.server.records import history
from ligretto.server.records.profiles import secret_hash
from ligretto.server.records.store import Store
from ligretto.server.table.clock import VirtualScheduler
from ligretto.server.table.replayaccess import Replays, check_replays, may_watch, new_replay_token
from ligretto.server.table.table import Table, TableError
from pgserver import StoreDatabase

# --- the rule -----------------------------------------------------------------------------


def test_a_link_table_shows_anyone_and_a_players_table_only_its_players() -> None:
    match = {"players": {"ann-id"}, "seat_tokens": {"seat-0-token"}}
    assert may_watch(Replays.LINK, profile=None, seat_token=None, **match)
    assert not may_watch(Replays.PLAYERS, profile=None, seat_token=None, **match)
    assert not may_watch(Replays.PLAYERS, profile="zoe-id", seat_token="another-token", **match)
    assert may_watch(Replays.PLAYERS, profile="ann-id", seat_token=None, **match)
    assert may_watch(Replays.PLAYERS, profile=None, seat_token="seat-0-token", **match)


def test_the_setting_is_checked_and_tokens_are_unguessable() -> None:
    assert check_replays(None) is Replays.LINK and check_replays(None, Replays.PLAYERS) is Replays.PLAYERS
    assert check_replays("players") is Replays.PLAYERS
    with pytest.raises(TableError) as refused:
        check_replays("friends")
    assert refused.value.code == "bad_replays" and "'link', 'players'" in refused.value.message
    tokens = {new_replay_token() for _ in range(100)}
    assert len(tokens) == 100 and all(len(token) == 22 for token in tokens)  # 16 bytes, URL-safe


# --- the table's setting --------------------------------------------------------------------


def test_set_rules_sets_it_and_a_bad_value_changes_nothing() -> None:
    table = Table("ACC", seats=3, scheduler=VirtualScheduler())
    table.join(Quiet(), "Ann")
    assert table.replays is Replays.LINK and table.table_message().replays == "link"
    table.set_rules(0, preset="classic", options={}, replays="players")
    assert table.replays is Replays.PLAYERS and table.table_message().replays == "players"
    with pytest.raises(TableError) as refused:
        table.set_rules(0, preset="expert", options={}, seats=2, replays="friends")
    assert refused.value.code == "bad_replays"
    assert table.replays is Replays.PLAYERS and table.size == 3 and not table.rules.expert
    table.set_rules(0, preset="classic", options={})
    assert table.replays is Replays.PLAYERS, "omitted, it keeps its value"
    table.close()


def test_the_setting_and_the_rounds_token_survive_a_restart(store_db: StoreDatabase) -> None:
    path = store_db.url
    store = Store(path)
    table = Table("KEEP", seats=2, scheduler=VirtualScheduler(), store=store, replays=Replays.PLAYERS)
    table.join(Quiet(), "Ann")
    table.add_bot(0, "greedy:beginner")
    table.start(0)
    token = table.replay_token
    assert token is not None and table.table_message().replays == "players"
    assert token.encode() not in protocol.encode(table.table_message()), "a token never shows before the round is over"
    table.close()
    store.close()
    again = Store(path)
    try:
        (restored,) = again.load_tables()
        assert restored.replays is Replays.PLAYERS
        assert restored.replay_token == token, "the round's token is the one the store filed at the deal"
        assert again.round_of_token(token) == ("KEEP", 1, 1)
        assert again.round_of_token(token + "x") is None
        restored.close()
    finally:
        again.close()


def test_the_match_files_who_may_watch_its_replays(store_db: StoreDatabase) -> None:
    store = Store(store_db.url)
    try:
        ann, _ = store.profiles.create("Ann", "sun")
        table = Table("FILED", seats=2, scheduler=VirtualScheduler(), store=store, replays=Replays.PLAYERS)
        _, ann_token = table.join(Quiet(), "Ann", ann.id)
        table.add_bot(0, "greedy:beginner")
        assert history.watchers_of(store.db, "FILED", 1) == history.Watchers(None, frozenset(), frozenset())
        table.start(0)
        store.commit()
        bot = table.seats[1]
        assert bot is not None
        filed = history.watchers_of(store.db, "FILED", 1)
        assert filed == history.Watchers(
            Replays.PLAYERS, frozenset({ann.id}), frozenset({secret_hash(ann_token), secret_hash(bot.token)})
        )
        kept = repr(store.db.execute("SELECT * FROM match_players").fetchall())
        assert ann_token not in kept and bot.token not in kept, "a seat's token is kept only as its SHA-256"
        store.db.execute("UPDATE matches SET replays = NULL")  # as a match filed before the setting was kept
        assert history.watchers_of(store.db, "FILED", 1).replays is None
        table.close()
    finally:
        store.close()


# --- on a real server -----------------------------------------------------------------------


def get(server: Any, path: str, secret: str | None = None) -> tuple[int, Any]:
    request = urllib.request.Request(server.url + path)
    if secret is not None:
        request.add_header("Authorization", f"Bearer {secret}")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            raw, status, kind = response.read(), response.status, response.headers.get("Content-Type", "")
    except urllib.error.HTTPError as error:
        raw, status, kind = error.read(), error.code, error.headers.get("Content-Type", "")
    return status, json.loads(raw) if "json" in kind else raw


def test_a_players_table_refuses_a_stranger_and_serves_its_players(server: Any, arun: Any) -> None:
    _, ann = server.http("POST", "/api/profiles", {"name": "Ann", "symbol": "star"})
    _, zoe = server.http("POST", "/api/profiles", {"name": "Zoe", "symbol": "moon"})
    body = {"bots": ["smart:machine"], "seats": 2, "start": True, "options": {"match_end": "rounds:1"}}
    status, refused = server.http("POST", "/api/tables", {**body, "replays": "friends"})
    assert (status, refused["error"]) == (400, "bad_replays")
    status, table = server.http("POST", "/api/tables", {**body, "replays": "players"})
    assert status == 201

    async def scenario() -> tuple[dict[str, Any], str]:
        client = server.client("Ann")
        await client.connect()
        welcome = await client.hello(table["code"], profile=ann["secret"])
        assert welcome["type"] == "welcome"
        state = await client.wait_for("table")
        assert state["replays"] == "players"
        await client.wait_for("go", timeout=5)
        await client.play_to_end()
        over: dict[str, Any] = await client.wait_for("round_over", timeout=30)
        await client.barrier()
        await client.close()
        assert client.token is not None
        return over, client.token

    over, seat_token = arun(scenario())
    token = over["replay"]
    for what in ("", "/file"):
        path = f"/api/replays/{token}{what}"
        for secret, query in ((None, ""), (zoe["secret"], ""), ("not-a-secret", ""), (None, "?seat=wrong")):
            status, answer = get(server, path + query, secret)
            assert (status, answer["error"]) == (403, "not_a_player"), (path, query, answer)
            assert "players only" in answer["message"]
        status, answer = get(server, path, ann["secret"])
        assert status == 200, answer
        status, answer = get(server, f"{path}?seat={seat_token}")
        assert status == 200, answer
    status, answer = get(server, f"/api/replays/{token}", ann["secret"])
    assert answer["end"]["scores"] == [line["score"] for line in over["scores"]]
