"""Local play supports every client command, through the server's own dispatcher: what a
WebSocket client may send, the person at the keyboard may send too, with the same effect
and the same refusals.  In virtual time (the table is given a ``VirtualScheduler``)."""

from __future__ import annotations

import itertools
import time
import typing
from typing import Any

import msgspec
import pytest

from ligretto import protocol
from ligretto.bots.spec import BotSpec, parse_bots
from ligretto.engine.rules import RuleSet
from ligretto.protocol import Phase
from ligretto.server.table import dispatch
from ligretto.server.table.clock import VirtualScheduler
from ligretto.server.table.table import Table
from ligretto.terminal.local import LocalGame
from ligretto.terminal.model import TableModel

RULES = RuleSet().replace(match_end="rounds:2")


def _tag(kind: type[msgspec.Struct]) -> str:
    tag = kind.__struct_config__.tag
    assert isinstance(tag, str)
    return tag


def _local() -> tuple[LocalGame, Table, VirtualScheduler, list[dict[str, Any]]]:
    scheduler = VirtualScheduler()
    table = Table("local", seats=3, rules=RULES, countdown_s=1.0, scheduler=scheduler, match_seeds=lambda n: 5)
    game = LocalGame(RULES, [], name="Tess", table=table, start_match=False)
    received: list[dict[str, Any]] = []
    game.start(received.append)
    return game, table, scheduler, received


def _last(received: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    return [message for message in received if message["type"] == kind][-1]


def _play_out_the_round(table: Table, scheduler: VirtualScheduler) -> None:
    """The person's moves (a smart bot's choices, straight to the table) until the round is over."""
    game = table.game
    assert game is not None
    driver = BotSpec("smart", "machine").driver(game, 0, "local")
    while table.phase is Phase.PLAYING:
        _, action = driver.plan()
        if action is not None:
            table.act(0, action)
        scheduler.advance(0.05)
        assert scheduler.now() < 1000 + 3600, "the round never ended"


def test_local_play_supports_every_client_command() -> None:
    game, table, scheduler, received = _local()
    done: set[str] = set()

    def send(message: dict[str, Any]) -> None:
        done.add(message["type"])
        game.send(message)

    send({"type": "ping", "t": 12.5})
    assert _last(received, "pong")["t"] == 12.5
    send({"type": "hello", "v": 1, "code": "local", "name": "Tess"})
    assert _last(received, "error")["code"] == "already_joined", "the person is at the table already"

    send({"type": "add_bot", "strategy": "greedy", "level": "beginner"})
    seat = table.seats[1]
    assert seat is not None and str(seat.bot) == "greedy:beginner"
    send({"type": "remove_seat", "seat": 1})
    assert table.seats[1] is None
    send({"type": "set_rules", "preset": "classic", "options": {"match_end": "rounds:2"}, "seats": 2, "grace_s": 30})
    assert table.size == 2 and table.grace_s == 30 and table.rules == RULES
    game.send({"type": "add_bot", "strategy": "smart", "level": "machine"})
    send({"type": "react", "emote": protocol.EMOTES[0]})
    assert _last(received, "reaction") == {"type": "reaction", "seat": 0, "emote": protocol.EMOTES[0]}

    send({"type": "start"})
    assert table.phase is Phase.COUNTDOWN
    scheduler.advance(1.0)
    assert table.phase is Phase.PLAYING
    send({"type": "act", "id": 7, "action": {"kind": "turn"}})
    assert _last(received, "ack") == {"type": "ack", "id": 7, "applied": True}
    errors = sum(m["type"] == "error" for m in received)
    send({"type": "share_aim", "share": True})
    send({"type": "aim", "source": "stack", "pile": "new"})
    assert sum(m["type"] == "error" for m in received) == errors, "an aim was refused in local play"
    shown = table.aims.shown[0]
    assert (shown.source, shown.pile) == ("stack", "new"), "the aim was not taken"
    assert not [m for m in received if m["type"] == "aimed"], "the person was sent their own aim"
    send({"type": "next_round"})
    assert _last(received, "error")["code"] == "not_scoring", "the host deals the next round on the score sheet only"

    _play_out_the_round(table, scheduler)
    assert table.phase is Phase.SCORING
    send({"type": "ready"})
    assert table.phase is Phase.COUNTDOWN, "the bot is always ready: the next round is dealt"

    send({"type": "leave"})
    person = game.person
    assert person is not None and person.seat is None
    seat = table.seats[0]
    assert seat is not None and seat.stand_in, "a bot plays on for the person who left"
    table.close()

    every = {_tag(kind) for kind in typing.get_args(protocol.ClientMessage)}
    assert done == every, f"not tried in local play: {sorted(every - done)}"


def test_a_refused_command_in_local_play_is_answered_as_the_server_would_and_changes_nothing() -> None:
    game, table, _, received = _local()
    game.send({"type": "act", "id": 3, "action": {"kind": "turn"}})
    assert _last(received, "error") == {
        "type": "error",
        "code": "not_playing",
        "message": "no round is being played",
        "id": 3,
    }
    game.send({"type": "remove_seat", "seat": 2})
    assert _last(received, "error")["code"] == "no_seat"
    game.send({"type": "set_rules", "preset": "classic", "options": {}, "seats": 2, "grace_s": 99999})
    assert _last(received, "error")["code"] == "bad_grace"
    assert table.size == 3 and table.grace_s != 99999, "a refused set_rules changes nothing"
    game.send({"type": "react", "emote": "hello"})
    assert _last(received, "error")["code"] == "bad_emote"
    table.close()


def _spied(monkeypatch: pytest.MonkeyPatch) -> list[protocol.ClientMessage]:
    """Every message local play hands to the server's dispatcher, as decoded."""
    seen: list[protocol.ClientMessage] = []
    original = dispatch.dispatch

    def spy(client: Any, message: protocol.ClientMessage, *args: Any, **kwargs: Any) -> None:
        seen.append(message)
        original(client, message, *args, **kwargs)

    monkeypatch.setattr(dispatch, "dispatch", spy)
    return seen


def test_local_play_pings_every_second_and_stamps_its_acts(monkeypatch: pytest.MonkeyPatch) -> None:
    """The person's client pings like a remote one, on the table's scheduler; each ping
    after the first echoes the last pong with how long it was held; an act carries ``t``,
    the person's clock plus the offset (the clock injected: the scheduler's)."""
    seen = _spied(monkeypatch)
    scheduler = VirtualScheduler()
    table = Table("local", seats=2, rules=RULES, countdown_s=1.0, scheduler=scheduler, match_seeds=lambda n: 5)
    model = TableModel()
    game = LocalGame(RULES, parse_bots("smart:beginner", 1), table=table, now=scheduler.now)
    game.start(lambda message: model.receive(message, scheduler.now()), model.clock)
    scheduler.advance(10.0)
    pings = [message for message in seen if isinstance(message, protocol.Ping)]
    assert [round(ping.t - 1000.0, 3) for ping in pings] == [0.0, 0.3, 0.6, *(i + 0.6 for i in range(1, 10))]
    assert pings[0].echo is None and pings[0].held is None
    for before, ping in itertools.pairwise(pings):
        assert ping.echo is not None and ping.held == pytest.approx(ping.t - before.t), "held since the last pong"
    assert table.phase is Phase.PLAYING, "pings run on during play"
    turn = model.turn()
    assert turn is not None
    game.send(turn)
    act = seen[-1]
    assert isinstance(act, protocol.Act) and act.t == pytest.approx(scheduler.now() + model.clock_offset)
    assert model.pending == {}, "and the table answered it"
    pings_then = game.pings
    table.close()
    scheduler.advance(5.0)
    assert game.pings == pings_then, "no pings at a closed table"


def test_the_table_measures_the_persons_round_trips_from_the_echoed_pongs() -> None:
    """On the wall clock (the default), as in real local play: each echoed pong is a round
    trip the table keeps for the person's connection."""
    scheduler = VirtualScheduler()
    table = Table("local", seats=2, rules=RULES, countdown_s=1.0, scheduler=scheduler, match_seeds=lambda n: 5)
    model = TableModel()
    game = LocalGame(RULES, [], table=table, start_match=False)
    game.start(lambda message: model.receive(message, time.time()), model.clock)
    scheduler.advance(3.0)
    person = game.person
    assert person is not None and game.pings == 5
    assert len(person.latency.samples) == game.pings - 1, "every ping after the first measured a trip"
    assert all(trip >= 0 for trip in person.latency.samples)
    table.close()
