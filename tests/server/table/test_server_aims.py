"""Live presence (``server/table/aims.py``) in virtual time: a seat's aims reach the others
only once it shares them, at most ``AIMS_PER_S`` a second with the latest winning, cleared
when the aimed card moves, the seat stops sharing or comes back on a new connection,
forgotten at the round's end; an aim changes nothing in the round.

A :class:`~ligretto.server.table.table.Table` in-process with recording listeners on a
:class:`~ligretto.server.table.clock.VirtualScheduler`.  (The same over real sockets:
``tests/server/test_server_presence.py``; drawn by a real browser:
``tests/browser/test_browser_aims.py``.)
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from listeners import Recorder

from ligretto import protocol
from ligretto.engine.actions import Play, Source, Vote
from ligretto.engine.rules import RuleSet
from ligretto.engine.views import view
from ligretto.protocol import Phase
from ligretto.server.table.clock import VirtualScheduler
from ligretto.server.table.table import Table, TableError

COUNTDOWN = 1.0


class Timed(Recorder):
    """A recorder that notes the virtual time each ``aimed`` arrived at."""

    def __init__(self, scheduler: VirtualScheduler) -> None:
        super().__init__()
        self.scheduler = scheduler
        self.times: list[float] = []

    def send(self, message: Any) -> None:
        super().send(message)
        if self.messages[-1]["type"] == "aimed":
            self.times.append(self.scheduler.now())


def _refused(code: str, call: Any, *args: Any) -> None:
    with pytest.raises(TableError) as refusal:
        call(*args)
    assert refusal.value.code == code, refusal.value.message


def _playing() -> tuple[VirtualScheduler, Table, list[Timed], int]:
    """Ann (the host), Bob and a spectator at a table whose first round, being played,
    deals Ann a 1 in her row (the first seed that does); the row position of that 1."""
    for seed in range(100):
        scheduler = VirtualScheduler()
        rules = RuleSet().replace(match_end="rounds:2")
        table = Table(
            "AIMS", seats=2, rules=rules, countdown_s=COUNTDOWN, scheduler=scheduler, match_seeds=lambda n, s=seed: s
        )
        ann, bob, watcher = Timed(scheduler), Timed(scheduler), Timed(scheduler)
        table.join(ann, "Ann")
        table.join(bob, "Bob")
        table.watch(watcher)
        table.start(0)
        table.share_aim(0, True)
        _refused("not_playing", table.aim, 0, "row", 0, None)  # the countdown
        table.share_aim(0, False)
        scheduler.advance(COUNTDOWN)
        game = table.game
        assert game is not None and table.phase is Phase.PLAYING
        ones = [p for p, column in enumerate(game.areas[0].row) if game.card(0, column[-1]).number == 1]
        if ones:
            return scheduler, table, [ann, bob, watcher], ones[0]
        table.close()
    raise AssertionError("no seed of 100 deals Ann a 1")


def test_aims_are_opt_in_bounded_latest_wins_cleared_and_change_nothing() -> None:
    scheduler, table, (ann, bob, watcher), one = _playing()
    game = table.game
    assert game is not None
    before = (len(game.log), view(game, None).to_dict())

    # Not shared: refused, nothing relayed.  Spectators have no aim.
    _refused("not_sharing", table.aim, 0, "row", 0, None)
    _refused("not_seated", table.share_aim, None, True)
    _refused("not_seated", table.aim, None, "row", 0, None)
    table.share_aim(0, True)
    # Bad places: a row position past the row, a pile that is not there, a pile without a card.
    _refused("bad_aim", table.aim, 0, "row", 7, None)
    _refused("bad_aim", table.aim, 0, "row", 0, 0)  # no center pile yet
    _refused("bad_aim", table.aim, 0, None, 0, "new")
    _refused("bad_aim", table.aim, 0, "discard", 0, None)  # nothing turned yet
    assert not watcher.of("aimed")

    # One aim goes at once, to Bob and the spectator, not to Ann; with the card it shows.
    row = view(game, 0).to_dict()["areas"][0]["row"]
    table.aim(0, "row", 2, "new")
    expected = {"type": "aimed", "round": 1, "seq": -1, "seat": 0, "source": "row", "position": 2}
    assert watcher.of("aimed") == bob.of("aimed") == [{**expected, "card": row[2][-1], "pile": "new"}]
    assert not ann.of("aimed")

    # A burst of 50 within a second: at most AIMS_PER_S a second relayed, each
    # 1/AIMS_PER_S apart, and the last one sent is the last one shown.
    for i in range(50):
        table.aim(0, "row", i % 5, "new" if i % 2 else None)
        scheduler.advance(0.02)
    scheduler.advance(1.0)
    times = watcher.times
    gaps = [b - a for a, b in itertools.pairwise(times)]
    assert min(gaps) >= 1 / protocol.AIMS_PER_S - 1e-9, gaps
    assert 1 + 8 <= len(times) <= 1 + protocol.AIMS_PER_S + 1, times
    last = watcher.of("aimed")[-1]
    assert (last["position"], last["pile"], last["card"]) == (4, "new", row[4][-1])
    assert scheduler.pending == 0 and table.pending_timers == 0, "a timer is left after the burst"

    # None of it changed the round, its log or the judge.
    assert (len(game.log), view(game, None).to_dict()) == before

    # The aimed card is played: the aim is cleared for everyone, right after the events.
    table.aim(0, "row", one, "new")
    scheduler.advance(1.0)
    assert watcher.of("aimed")[-1]["position"] == one
    mark = len(watcher.messages)
    assert table.act(0, Play(0, Source.ROW, None, one)).ok  # type: ignore[union-attr]
    after = watcher.messages[mark:]
    assert [m["type"] for m in after] == ["events", "aimed"], after
    cleared = {**expected, "seq": len(game.log) - 1, "position": 0, "source": None, "card": None, "pile": None}
    assert after[1] == cleared == bob.messages[-1]
    # Nothing shown: a cleared aim has nothing to clear for the others, and is not relayed.
    relayed = len(watcher.of("aimed"))
    table.aim(0, None, 0, None)
    scheduler.advance(1.0)
    assert len(watcher.of("aimed")) == relayed

    # Turned off: what Ann showed is cleared, and her aims are refused again.
    table.aim(0, "stack", 0, None)
    scheduler.advance(1.0)
    assert watcher.of("aimed")[-1]["source"] == "stack"
    table.share_aim(0, False)
    assert watcher.of("aimed")[-1]["source"] is None
    _refused("not_sharing", table.aim, 0, "stack", 0, None)

    # A new connection of Ann's seat (a reload) shows nothing until it says it shares.
    table.share_aim(0, True)
    table.aim(0, "stack", 0, "new")
    scheduler.advance(1.0)
    assert watcher.of("aimed")[-1]["source"] == "stack"
    seat = table.seats[0]
    assert seat is not None
    table.rejoin(Timed(scheduler), seat.token)
    assert watcher.of("aimed")[-1]["source"] is None
    _refused("not_sharing", table.aim, 0, "stack", 0, None)

    # A waiting aim is dropped at the round's end: nothing relayed after round_over.
    table.share_aim(0, True)
    table.aim(0, "stack", 0, None)
    table.aim(0, "stack", 0, "new")  # waits its turn
    assert table.act(0, Vote(0)).ok and table.act(1, Vote(1)).ok  # type: ignore[union-attr]
    assert table.phase is Phase.SCORING
    scheduler.advance(1.0)
    kinds = [m["type"] for m in watcher.messages]
    assert "aimed" not in kinds[kinds.index("round_over") :], kinds
    assert table.pending_timers == 0
