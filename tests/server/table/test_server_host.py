"""The host's commands (``ligretto.server.table.host``): only the host, only in the lobby, and a
refused command changes nothing (a bad grace period does not shrink the table first)."""

from __future__ import annotations

import pytest
from listeners import Quiet

from ligretto.engine.rules import RuleSet
from ligretto.server.table.clock import VirtualScheduler
from ligretto.server.table.table import Table, TableError


def _lobby() -> Table:
    table = Table("HOST", seats=4, scheduler=VirtualScheduler(), grace_s=60.0)
    table.join(Quiet(), "Ann")
    table.join(Quiet(), "Bob")
    return table


def test_a_refused_set_rules_changes_nothing() -> None:
    table = _lobby()
    with pytest.raises(TableError) as refused:
        table.set_rules(0, preset="expert", options={}, seats=2, grace_s=5000.0)
    assert refused.value.code == "bad_grace"
    assert table.size == 4 and len(table.seats) == 4 and table.grace_s == 60.0 and table.rules == RuleSet()
    with pytest.raises(TableError) as bad_rules:
        table.set_rules(0, preset="classic", options={"row_size": 9}, seats=2)
    assert bad_rules.value.code == "bad_rules" and table.size == 4


def test_only_the_host_commands_and_only_in_the_lobby() -> None:
    table = _lobby()
    with pytest.raises(TableError) as not_host:
        table.add_bot(1, "smart:skilled")
    assert not_host.value.code == "not_host" and table.seats[2] is None
    assert table.add_bot(0, "smart:skilled") == 2
    table.start(0)
    for command in (
        lambda: table.add_bot(0, "greedy:beginner"),
        lambda: table.remove_seat(0, 1),
        lambda: table.set_rules(0, preset="classic", options={}),
    ):
        with pytest.raises(TableError) as started:
            command()
        assert started.value.code == "started"
    table.close()
