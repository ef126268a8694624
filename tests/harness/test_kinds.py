"""The malformed messages of the stress harness (``harness/kinds.py``): none is a message
the harness relies on being answered otherwise (a valid ``ping``, its barrier; a
``leave``, valid in every phase), none in the lobby is a host command the server would
carry out, and every one fits in the largest frame the server reads, the nesting and the
oversize ones reaching past the message limit."""

from __future__ import annotations

import random

import pytest

from ligretto import protocol
from ligretto.harness.kinds import FRAME_BYTES, KINDS, MESSAGE_BYTES, PHASES
from ligretto.protocol import ProtocolError

DRAWS = 400


def _decoded(message: str | bytes) -> protocol.ClientMessage | None:
    try:
        return protocol.decode(message if isinstance(message, str) else message.decode("utf-8", "replace"))
    except ProtocolError:
        return None


@pytest.mark.parametrize("phase", PHASES)
def test_no_kind_makes_a_valid_ping_or_leave_and_every_message_fits_in_a_frame(phase: str) -> None:
    rng = random.Random(f"kinds:{phase}")
    for kind, make in KINDS.items():
        for _ in range(DRAWS):
            message = make(rng, phase)
            size = len(message.encode() if isinstance(message, str) else message)
            assert size < FRAME_BYTES, (kind, size)
            assert not isinstance(_decoded(message), protocol.Ping | protocol.Leave), (kind, message)


def test_the_lobby_gets_no_host_command_it_would_carry_out() -> None:
    # The attacker is the lobby's host: a valid start, or set_rules with good values, or the
    # removal of the other seat would change the table.
    rng = random.Random("kinds:lobby")
    for kind, make in KINDS.items():
        for _ in range(DRAWS):
            message = _decoded(make(rng, "lobby"))
            assert not isinstance(message, protocol.Start), kind
            if isinstance(message, protocol.RemoveSeat):
                assert message.seat != 1, kind
            if isinstance(message, protocol.SetRules):
                bad_seats = message.seats is not None and not 2 <= message.seats <= 12
                bad_grace = message.grace_s is not None and not 0 <= message.grace_s <= 3600
                bad_ready = message.ready_s is not None and not 5 <= message.ready_s <= 600
                bad = bad_seats or bad_grace or bad_ready
                assert bad or message.preset != "classic" or message.options, (kind, message)


def test_nesting_and_oversize_messages_reach_past_the_message_limit_and_the_nesting_within_it() -> None:
    rng = random.Random("kinds:sizes")
    nesting = [len(KINDS["deep_nesting"](rng, "playing")) for _ in range(DRAWS)]
    oversize = [len(KINDS["oversize"](rng, "playing")) for _ in range(DRAWS)]
    assert min(nesting) < MESSAGE_BYTES < max(nesting) and max(nesting) > FRAME_BYTES // 2
    assert min(oversize) > MESSAGE_BYTES


def test_no_phase_gets_the_message_that_is_right_in_it() -> None:
    # A turn or a vote while the round is played, ready or the host's next_round at the
    # score sheet, start once the match is over (a rematch): each would be carried out.
    right = {
        "playing": lambda m: isinstance(m, protocol.Act) and isinstance(m.action, protocol.TurnMsg | protocol.VoteMsg),
        "scoring": lambda m: isinstance(m, protocol.Ready | protocol.NextRound),
        "over": lambda m: isinstance(m, protocol.Start),
    }
    for phase, carried_out in right.items():
        rng = random.Random(f"kinds:right:{phase}")
        for kind, make in KINDS.items():
            for _ in range(DRAWS):
                assert not carried_out(_decoded(make(rng, phase))), (phase, kind)


def test_every_phase_but_the_score_sheet_gets_the_hosts_next_round() -> None:
    # next_round is right only on the score sheet: everywhere else it is a wrong-phase message.
    for phase in PHASES:
        rng = random.Random(f"kinds:next_round:{phase}")
        drawn = [_decoded(KINDS["wrong_phase"](rng, phase)) for _ in range(DRAWS)]
        assert any(isinstance(m, protocol.NextRound) for m in drawn) is (phase != "scoring"), phase
