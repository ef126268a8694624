"""The table owns its record format (``ligretto.server.table.record``): a table's record
and the actions of its round rebuild the same table, the record's JSON reads back as
the same record, and a record written before the format had a class still reads."""

from __future__ import annotations

import json

from listeners import Quiet

from ligretto.engine.actions import Turn
from ligretto.engine.races import DEFAULT_WINDOW_MS
from ligretto.engine.rules import RuleSet
from ligretto.engine.serial import action_to_dict, state_to_dict
from ligretto.protocol import Phase
from ligretto.server.table.clock import VirtualScheduler
from ligretto.server.table.record import SeatRecord, TableRecord
from ligretto.server.table.replayaccess import Replays
from ligretto.server.table.table import Table
from ligretto.server.table.timing import READY_S


def _table_in_play() -> Table:
    scheduler = VirtualScheduler()
    table = Table("REC", seats=3, rules=RuleSet.preset("expert"), scheduler=scheduler, countdown_s=1.0, grace_s=45.0)
    table.join(Quiet(), "Ann", "ann-profile-id")
    table.join(Quiet(), "Bob")
    table.add_bot(0, "greedy:beginner")
    table.rated = True
    table.set_rules(0, preset="expert", options={}, replays="players")
    table.start(0)
    scheduler.advance(1.0)
    for seat in (0, 1, 0):
        assert table.act(seat, Turn(seat)).ok
    table.close()
    return table


def test_a_record_and_its_actions_rebuild_the_same_table() -> None:
    table = _table_in_play()
    game = table.game
    assert game is not None and len(game.log) == 3
    record = table.record()
    again = Table.restore(record, [action_to_dict(a) for a in game.log], scheduler=VirtualScheduler())
    assert again.record() == record
    assert again.phase is Phase.PLAYING and again.host == 0
    assert again.game is not None and state_to_dict(again.game) == state_to_dict(game)
    assert [None if s is None else s.token for s in again.seats] == [
        None if s is None else s.token for s in table.seats
    ]
    assert again.seats[2] is not None and str(again.seats[2].bot) == "greedy:beginner"
    assert [None if s is None else s.profile for s in again.seats] == ["ann-profile-id", None, None]
    assert again.rated
    assert again.replays is Replays.PLAYERS
    assert again.replay_token is not None and again.replay_token != table.replay_token, "not in the record"


def test_a_restored_round_keeps_the_share_token_the_store_gives() -> None:
    table = _table_in_play()
    game = table.game
    assert game is not None and table.replay_token is not None
    again = Table.restore(
        table.record(),
        [action_to_dict(a) for a in game.log],
        scheduler=VirtualScheduler(),
        replay_token=table.replay_token,
    )
    assert again.replay_token == table.replay_token
    assert table.deal_record().replay == table.replay_token


def test_the_json_of_a_record_reads_back_as_the_same_record() -> None:
    record = _table_in_play().record()
    text = record.to_json()
    assert "REC" not in text, "the code is the record's key, not part of its JSON"
    assert TableRecord.from_json("REC", text) == record


def test_a_record_in_the_stored_format_reads() -> None:
    """The JSON as the store wrote it before the record had a class (no ``dropped``, no
    seat's ``left`` yet)."""
    stored = {
        "size": 2,
        "rules": RuleSet().to_dict(),
        "public": True,
        "grace_s": 60.0,
        "host": 0,
        "phase": "lobby",
        "seats": [{"name": "Ann", "token": "t0", "bot": None, "stand_in": False, "ready": False}, None],
        "match_seed": 0,
        "matches_played": 0,
        "start_at": None,
        "round": 0,
        "sheet": None,
    }
    record = TableRecord.from_json("OLD", json.dumps(stored))
    assert record.seats == (SeatRecord("Ann", "t0", None, False, False), None)
    assert not record.dropped
    table = Table.restore(record, [])
    assert table.code == "OLD" and table.public and table.grace_s == 60.0 and table.match is None
    seats = [
        {"name": "Ann", "token": "t0", "bot": None, "stand_in": False, "ready": False, "left": False, "profile": None},
        None,
    ]
    written = json.loads(table.record().to_json())
    # A record from before fair judging: the table judges races fairly, with the default window.
    assert written == {
        **stored,
        "seats": seats,
        "dropped": False,
        "dropped_because": None,
        "arbitration": "fair",
        "window_ms": DEFAULT_WINDOW_MS,
        "rated": True,  # a public table from before ratings: rated, as public tables are now
        "replays": "link",  # a table from before the setting: anyone with a replay's link
        "ready_s": READY_S,  # a table from before the wait for Ready: the default wait
        "ready_by": None,
        "speed_flags": [],  # a table from before inhuman speed was caught: none flagged
    }
