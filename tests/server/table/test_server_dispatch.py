"""One dispatcher (``ligretto.server.table.dispatch``) from client message to table call: the
WebSocket endpoint and local play both go through it, and it refuses what it must."""

from __future__ import annotations

from typing import Any

import pytest

from ligretto import protocol
from ligretto.engine.rules import RuleSet
from ligretto.protocol import ProtocolError
from ligretto.server.table import dispatch
from ligretto.server.table.clock import VirtualScheduler
from ligretto.server.table.table import Abandoned, Table, TableError
from ligretto.server.web import sockets
from ligretto.server.web.lobby import Lobby
from ligretto.server.web.settings import Settings
from ligretto.terminal.local import LocalGame


class Client:
    """A client's end as the dispatcher sees it (and a stand-in for the app's Connection)."""

    def __init__(self) -> None:
        self.seat: int | None = None
        self.table: Table | None = None
        self.reactions = protocol.ReactionLimit()
        self.sent: list[dict[str, Any]] = []
        self.websocket = type("Socket", (), {"client": ("test", 0)})()

    def send(self, message: protocol.Outgoing) -> None:
        self.sent.append(protocol.as_dict(message))

    def detach(self) -> None:
        self.table = None


def test_the_app_and_local_play_hand_every_message_to_the_same_dispatcher(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[object, str]] = []
    original = dispatch.dispatch

    def spy(client: Any, message: protocol.ClientMessage, *args: Any, **kwargs: Any) -> None:
        calls.append((client, type(message).__name__))
        original(client, message, *args, **kwargs)

    monkeypatch.setattr(dispatch, "dispatch", spy)
    lobby = Lobby(Settings(), scheduler=VirtualScheduler())
    table = lobby.create(2, RuleSet(), public=False, grace_s=60)
    conn = Client()
    sockets.handle(lobby, conn, f'{{"type": "hello", "v": 1, "code": "{table.code}", "name": "Ann"}}')  # type: ignore[arg-type]
    assert conn.table is table and conn.seat == 0
    sockets.handle(lobby, conn, '{"type": "add_bot"}')  # type: ignore[arg-type]

    local = LocalGame(RuleSet(), [], table=Table("local", seats=2, scheduler=VirtualScheduler()), start_match=False)
    local.start(lambda message: None)
    local.send({"type": "ping", "t": 1.0})

    assert calls == [(conn, "Hello"), (conn, "AddBot"), (local.person, "Ping")]
    assert table.seats[1] is not None and table.seats[1].bot is not None
    table.close()
    local.table.close()


def test_a_client_must_say_hello_first_and_only_once() -> None:
    table = Table("HELLO", seats=2, scheduler=VirtualScheduler())
    tables = {"HELLO": table}
    client = Client()
    with pytest.raises(ProtocolError, match="say hello first"):
        dispatch.dispatch(client, protocol.Start(), tables.get)
    with pytest.raises(ProtocolError) as no_table:
        dispatch.dispatch(client, protocol.Hello(v=1, code="NOPE", name="Ann"), tables.get)
    assert no_table.value.code == "no_table" and client.table is None
    dispatch.dispatch(client, protocol.Hello(v=1, code="HELLO", name="Ann"), tables.get)
    assert client.table is table and client.seat == 0
    with pytest.raises(ProtocolError) as again:
        dispatch.dispatch(client, protocol.Hello(v=1, code="HELLO", name="Ann"), tables.get)
    assert again.value.code == "already_joined"
    table.close()


def test_a_client_of_a_closed_table_is_refused_and_nothing_changes() -> None:
    table = Table("SHUT", seats=2, scheduler=VirtualScheduler())
    client = Client()
    dispatch.dispatch(client, protocol.Hello(v=1, code="SHUT", name="Ann"), {"SHUT": table}.get)
    table.drop(Abandoned.AWAY)
    assert client.sent[-1]["type"] == "error" and client.sent[-1]["code"] == "no_table", "told it is gone"
    with pytest.raises(ProtocolError) as refused:
        dispatch.dispatch(client, protocol.Leave())
    assert refused.value.code == "no_table"
    assert table.seats[0] is not None, "the seat was not given up"


def test_reactions_follow_the_clients_limit_on_the_clock_given() -> None:
    table = Table("REACT", seats=2, scheduler=VirtualScheduler())
    client = Client()
    dispatch.dispatch(client, protocol.Hello(v=1, code="REACT", name="Ann"), {"REACT": table}.get)
    emote = protocol.React(emote=protocol.EMOTES[1])
    dispatch.dispatch(client, emote, now=lambda: 100.0)
    with pytest.raises(ProtocolError) as too_fast:
        dispatch.dispatch(client, emote, now=lambda: 100.5)
    assert too_fast.value.code == "too_fast"
    dispatch.dispatch(client, emote, now=lambda: 101.0)
    reactions = [m for m in client.sent if m["type"] == "reaction"]
    assert len(reactions) == 2

    watcher = Client()
    dispatch.dispatch(watcher, protocol.Hello(v=1, code="REACT", watch=True), {"REACT": table}.get)
    with pytest.raises(TableError) as not_seated:
        dispatch.dispatch(watcher, emote)
    assert not_seated.value.code == "not_seated"
    table.close()


def test_set_rules_hands_the_judging_to_the_table_and_a_bad_one_changes_nothing() -> None:
    table = Table("JUDGE", seats=2, scheduler=VirtualScheduler())
    tables = {"JUDGE": table}
    host = Client()
    dispatch.dispatch(host, protocol.Hello(v=1, code="JUDGE", name="Ann"), tables.get)
    dispatch.dispatch(host, protocol.SetRules(arbitration="arrival", window_ms=120), tables.get)
    assert (table.fairness.arbitration.value, table.fairness.window_ms) == ("arrival", 120)
    with pytest.raises(TableError) as bad:
        dispatch.dispatch(host, protocol.SetRules(arbitration="fair", window_ms=999), tables.get)
    assert bad.value.code == "bad_fairness"
    assert (table.fairness.arbitration.value, table.fairness.window_ms) == ("arrival", 120)
    dispatch.dispatch(host, protocol.SetRules(), tables.get)  # omitted: kept
    assert (table.fairness.arbitration.value, table.fairness.window_ms) == ("arrival", 120)
    table.close()
