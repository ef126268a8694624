"""The store keeps each action's time (the table's clock when it took effect) and gives
back one stored round (``SqliteStore.round_log``) that deals and replays to the round played."""

from __future__ import annotations

from pathlib import Path

from listeners import Quiet

from ligretto.engine.actions import Turn, Vote
from ligretto.engine.rules import RuleSet
from ligretto.engine.serial import action_from_dict
from ligretto.engine.state import Round
from ligretto.server.clock import VirtualScheduler
from ligretto.server.store import SqliteStore
from ligretto.server.table import Phase, Table


def _played(path: Path) -> tuple[Table, SqliteStore, VirtualScheduler]:
    """A two-seat table whose first round ends by a vote after a few turns at known times."""
    store = SqliteStore(path)
    scheduler = VirtualScheduler(start=1000.0)
    rules = RuleSet().replace(match_end="rounds:2")
    table = Table("T1", seats=2, rules=rules, store=store, countdown_s=1.0, scheduler=scheduler)
    table.join(Quiet(), "Ann")
    table.join(Quiet(), "Bob")
    table.start(0)
    scheduler.advance(1.0)
    assert table.phase is Phase.PLAYING
    scheduler.advance(0.5)
    assert table.act(0, Turn(0)).ok
    scheduler.advance(0.25)
    assert table.act(1, Turn(1)).ok
    scheduler.advance(2.0)
    assert table.act(0, Vote(0)).ok
    assert table.act(1, Vote(1)).ok
    store.commit()
    return table, store, scheduler


def test_each_action_is_stored_with_the_time_it_took_effect(tmp_path: Path) -> None:
    table, store, _ = _played(tmp_path / "s.db")
    try:
        times = [at for (at,) in store.db.execute("SELECT at FROM actions WHERE code = 'T1' ORDER BY idx")]
        assert times == [1001.5, 1001.75, 1003.75, 1003.75]
    finally:
        table.close()
        store.close()


def test_round_log_gives_the_round_to_replay(tmp_path: Path) -> None:
    table, store, _ = _played(tmp_path / "s.db")
    try:
        game = table.game
        assert game is not None and game.over
        log = store.round_log("T1", 1, 1)
        assert log is not None
        assert (log.code, log.match, log.number) == ("T1", 1, 1)
        assert [(p.seat, p.name, p.bot) for p in log.players] == [(0, "Ann", None), (1, "Bob", None)]
        assert [(a.index, a.seat, a.at) for a in log.actions] == [
            (0, 0, 1001.5),
            (1, 1, 1001.75),
            (2, 0, 1003.75),
            (3, 1, 1003.75),
        ]
        again = Round.deal(RuleSet.from_dict(log.rules), len(log.players), log.seed)
        for logged in log.actions:
            again.apply(action_from_dict(logged.action))
        assert again.over and again.log == game.log
        assert store.round_log("T1", 1, 2) is None  # not dealt yet (the table is scoring)
        assert store.round_log("nope", 1, 1) is None
    finally:
        table.close()
        store.close()
