"""Local play supports every client command, through the server's own dispatcher: what a
WebSocket client may send, the person at the keyboard may send too, with the same effect
and the same refusals.  In virtual time (the table is given a ``VirtualScheduler``)."""

from __future__ import annotations

import typing
from typing import Any

import msgspec

from ligretto import protocol
from ligretto.bots.spec import BotSpec
from ligretto.engine.rules import RuleSet
from ligretto.server.clock import VirtualScheduler
from ligretto.server.table import Phase, Table
from ligretto.terminal.local import LocalGame

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
