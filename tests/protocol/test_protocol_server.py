"""Server messages: built from the table's values, encoded once when broadcast, read back
by ``decode_server``; the package keeps every name the old ``server.protocol`` had."""

from __future__ import annotations

import json
from dataclasses import dataclass

import msgspec
import pytest

from ligretto import protocol
from ligretto.engine.rules import RuleSet
from ligretto.engine.scoring import ScoreSheet

OLD_NAMES = [
    "VERSION",
    "MAX_MESSAGE_BYTES",
    "MAX_NAME_LENGTH",
    "MAX_NAME_CODE_POINTS",
    "JOINERS",
    "KEEPALIVE_S",
    "SILENCE_S",
    "SILENT",
    "EMOTES",
    "REACTION_LIMITS",
    "TAG_SEQUENCE",
    "ProtocolError",
    "PlayMsg",
    "TurnMsg",
    "PlaceMsg",
    "VoteMsg",
    "WithdrawMsg",
    "ActionMsg",
    "Hello",
    "Act",
    "Ping",
    "Ready",
    "AddBot",
    "RemoveSeat",
    "SetRules",
    "Start",
    "Leave",
    "React",
    "ClientMessage",
    "CreateTutorial",
    "CreateTable",
    "encode",
    "Broadcast",
    "wire",
    "decode",
    "check_name",
    "visible_length",
    "check_emote",
    "ReactionLimit",
    "to_action",
    "error_message",
]


def test_every_name_of_the_old_module_is_in_the_package() -> None:
    missing = [name for name in OLD_NAMES if not hasattr(protocol, name)]
    assert not missing
    assert set(protocol.__all__) >= set(OLD_NAMES)


@dataclass
class FakeSeat:
    name: str
    bot: str | None = None
    connected: bool = False
    stand_in: bool = False
    ready: bool = False


def test_the_table_message_shows_seats_rules_and_sheet() -> None:
    sheet = ScoreSheet(2)
    message = protocol.table_message(
        code="ABC",
        phase="lobby",
        seats=[FakeSeat("Ann", connected=True), None, FakeSeat("Bot 3", bot="smart:expert")],
        host=0,
        rules=RuleSet(),
        public=True,
        grace_s=60,
        ready_s=30,
        round=0,
        start_at=None,
        sheet=sheet,
        winners=None,
        arbitration="fair",
        window_ms=80,
    )
    data = json.loads(protocol.wire(message))
    assert list(data) == [
        "type",
        *["code", "phase", "seats", "host", "rules", "public", "grace_s", "ready_s", "round", "start_at"],
        *["ready_by", "sheet", "winners", "arbitration", "window_ms", "rated", "match", "replays", "replay"],
        "tournament",
    ]
    assert data["ready_s"] == 30.0 and isinstance(data["ready_s"], float) and data["ready_by"] is None
    assert data["replays"] == "link", "by default anyone with a replay's link may watch it"
    assert data["replay"] is None, "no round scored: no link"
    assert data["arbitration"] == "fair" and data["window_ms"] == 80
    assert data["seats"][1] is None
    assert data["seats"][2] == {
        "seat": 2,
        "name": "Bot 3",
        "bot": "smart:expert",
        "connected": True,  # a bot is always connected
        "stand_in": False,
        "ready": False,
    }
    assert data["rules"] == RuleSet().to_dict()
    assert data["grace_s"] == 60.0 and isinstance(data["grace_s"], float)
    assert data["sheet"] == sheet.to_dict()
    assert protocol.decode_server(protocol.wire(message)) == message


def test_an_error_and_an_ack_leave_out_what_does_not_apply() -> None:
    assert json.loads(protocol.wire(protocol.error_message("full", "every seat is taken"))) == {
        "type": "error",
        "code": "full",
        "message": "every seat is taken",
    }
    assert json.loads(protocol.wire(protocol.error_message("countdown", "wait", "a-1")))["id"] == "a-1"
    assert "by" not in json.loads(protocol.wire(protocol.Ack(1, False, "no_such_card", "there is no card there")))


def test_a_broadcast_is_encoded_once_for_every_listener() -> None:
    shared = protocol.Broadcast(protocol.go_message(2))
    first = protocol.wire(shared)
    assert first == '{"type":"go","round":2}'
    assert protocol.wire(shared) is first
    assert protocol.as_dict(shared) == {"type": "go", "round": 2}
    assert protocol.as_dict(protocol.reaction_message(1, "\U0001f389")) == {
        "type": "reaction",
        "seat": 1,
        "emote": "\U0001f389",
    }


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ('{"type": "go"}', "invalid"),
        ('{"type": "go", "round": 1, "seq": 2}', "invalid"),
        ('{"type": "hello", "v": 1, "code": "x"}', "invalid"),  # a client message
        ('{"type": "go", "round": 1', "malformed"),
    ],
)
def test_decode_server_refuses_what_the_server_never_sends(text: str, code: str) -> None:
    with pytest.raises(protocol.ProtocolError) as refused:
        protocol.decode_server(text)
    assert refused.value.code == code


def test_decode_server_reads_every_message_into_its_struct() -> None:
    pong = protocol.decode_server('{"type": "pong", "t": 1.5, "server_t": 2.5}')
    assert pong == protocol.Pong(1.5, 2.5)
    events = protocol.decode_server(
        '{"type": "events", "round": 1, "seq": 0, "by": 1, "events": '
        '[{"type": "hand_turned", "player": 1, "count": 3, "discard_top": "b8"}]}'
    )
    assert isinstance(events, protocol.Events)
    assert events.events == [protocol.HandTurnedMsg(1, 3, "b8")]
    assert msgspec.to_builtins(events)["events"][0]["type"] == "hand_turned"
