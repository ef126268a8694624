"""A table's phase has one definition, ``protocol.Phase``: the server's table, the wire and
every client use it, written and read as plain strings."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ligretto import protocol
from ligretto.engine.rules import RuleSet
from ligretto.protocol import Phase
from ligretto.server.table import rounds, table

TABLE: dict[str, Any] = {
    "code": "ABC", "seats": [None, None], "host": None, "rules": RuleSet(), "public": False, "grace_s": 60,
    "ready_s": 30, "round": 0, "start_at": None, "sheet": None, "winners": None, "arbitration": "fair",
    "window_ms": 200,
}  # fmt: skip
"""A table message's values but its phase."""


def test_the_server_table_s_phase_is_the_protocols() -> None:
    assert table.Phase is Phase and rounds.Phase is Phase
    assert [phase.value for phase in Phase] == ["lobby", "countdown", "playing", "scoring", "over"]


NOW = b'{"online": 1, "queued": 0, "playing": 0, "watching": 0}'


@pytest.mark.parametrize("phase", list(Phase))
def test_a_phase_goes_over_the_wire_as_its_string_and_comes_back_as_the_enum(phase: Phase) -> None:
    summary = protocol.table_summary(code="ABC", phase=phase, seats=[None, None], host=None, rules=RuleSet())
    assert summary.phase is Phase(phase.value)
    assert json.loads(protocol.encode(summary))["phase"] == phase.value
    body = protocol.encode(summary)
    lobby = protocol.decode_server(b'{"type": "lobby", "tables": [' + body + b'], "total": 1, "now": ' + NOW + b"}")
    assert isinstance(lobby, protocol.LobbyTables) and lobby.tables[0].phase is Phase(phase.value)
    text = protocol.wire(protocol.table_message(phase=phase, **TABLE))
    assert json.loads(text)["phase"] == phase.value
    decoded = protocol.decode_server(text)
    assert isinstance(decoded, protocol.TableState) and decoded.phase is Phase(phase.value)


def test_a_phase_that_is_none_of_them_is_refused() -> None:
    text = protocol.wire(protocol.table_message(phase="lobby", **TABLE))
    text = text.replace('"phase":"lobby"', '"phase":"intermission"')
    with pytest.raises(protocol.ProtocolError, match="phase"):
        protocol.decode_server(text)
    with pytest.raises(ValueError, match="intermission"):
        protocol.table_summary(code="ABC", phase="intermission", seats=[], host=None, rules=RuleSet())
