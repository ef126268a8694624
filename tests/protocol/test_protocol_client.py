"""Client messages are bounded on arrival (``protocol/client.py``, docs/protocol.md
Limits): an ``act``'s ``id`` and a ``ping``'s ``t`` within their limits decode; beyond
them, or beyond what a float holds, they are ``invalid``."""

from __future__ import annotations

import json

import pytest

from ligretto import protocol
from ligretto.engine.actions import Turn, Vote, Withdraw
from ligretto.protocol.limits import MAX_CLOCK, MAX_ID, MAX_ID_LENGTH

TURN = '{"kind": "turn"}'


@pytest.mark.parametrize("ident", ["x" * MAX_ID_LENGTH, "", MAX_ID, -MAX_ID, 0, 17])
def test_an_id_within_its_bounds_decodes(ident: str | int) -> None:
    message = protocol.decode(f'{{"type": "act", "id": {json.dumps(ident)}, "action": {TURN}}}')
    assert isinstance(message, protocol.Act) and message.id == ident


@pytest.mark.parametrize("ident", ['"' + "x" * (MAX_ID_LENGTH + 1) + '"', str(MAX_ID + 1), str(-MAX_ID - 1), "1e999"])
def test_an_id_beyond_its_bounds_is_invalid(ident: str) -> None:
    with pytest.raises(protocol.ProtocolError) as error:
        protocol.decode(f'{{"type": "act", "id": {ident}, "action": {TURN}}}')
    assert error.value.code == "invalid"


@pytest.mark.parametrize("t", [0.0, -1.0, 1795962800.8167422, 1.7e12, MAX_CLOCK])
def test_a_clock_within_its_bounds_decodes(t: float) -> None:
    message = protocol.decode(json.dumps({"type": "ping", "t": t}))
    assert isinstance(message, protocol.Ping) and message.t == t


@pytest.mark.parametrize("t", ["1e16", "-1e16", "1e999", "-1e999"])
def test_a_clock_beyond_its_bounds_is_invalid(t: str) -> None:
    with pytest.raises(protocol.ProtocolError) as error:
        protocol.decode(f'{{"type": "ping", "t": {t}}}')
    assert error.value.code == "invalid"


def test_the_hosts_next_round_has_no_fields_and_set_rules_carries_the_wait_for_ready() -> None:
    assert isinstance(protocol.decode('{"type": "next_round"}'), protocol.NextRound)
    with pytest.raises(protocol.ProtocolError) as refused:
        protocol.decode('{"type": "next_round", "now": true}')
    assert refused.value.code == "invalid"
    rules = protocol.decode('{"type": "set_rules", "ready_s": 45}')
    assert isinstance(rules, protocol.SetRules) and rules.ready_s == 45.0 and rules.grace_s is None
    with pytest.raises(protocol.ProtocolError) as refused:
        protocol.decode('{"type": "set_rules", "ready_s": "soon"}')
    assert refused.value.code == "invalid"


def test_a_turn_vote_or_withdraw_is_one_shared_value_per_seat() -> None:
    """A round logs every action: the same message from the same seat is the same engine
    value, not a new object each time (issue 31: 0.9 KB a connection); another seat's is
    its own."""
    for kind, action_type in (("turn", Turn), ("vote", Vote), ("withdraw", Withdraw)):
        message = protocol.decode(json.dumps({"type": "act", "id": 1, "action": {"kind": kind}}))
        assert isinstance(message, protocol.Act)
        first, again = protocol.to_action(2, message.action), protocol.to_action(2, message.action)
        assert first == action_type(2) and first is again
        assert protocol.to_action(3, message.action) == action_type(3)
