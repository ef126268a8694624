"""A play that loses a race is refused: the app says "beaten to it" by whom, and no card moves."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from tui_support import screen_text, until

import racedeals
from ligretto import protocol
from ligretto.engine.actions import Play
from ligretto.engine.races import DEFAULT_WINDOW_MS, Arbitration, Fairness
from ligretto.engine.rules import RuleSet
from ligretto.engine.views import view
from ligretto.server.table.clock import VirtualScheduler
from ligretto.server.table.table import Table
from ligretto.terminal.app import LigrettoApp
from ligretto.terminal.local import LocalGame, Person
from ligretto.terminal.model import Notice, Phase, TableModel

RULES = RuleSet()


def a_race() -> tuple[int, Play, Play, int]:
    """(seed, the rival's 1, its 2, the person's row position of the same 2): ``racedeals``."""
    seed, start, mine, theirs = racedeals.a_race(RULES)
    return seed, start, theirs, mine.position


def test_a_play_beaten_to_the_pile_is_refused_and_changes_nothing(
    arun: Callable[[Coroutine[Any, Any, Any]], Any],
) -> None:
    seed, start, faster, position = a_race()
    # Judged by arrival: the rival's play takes effect at once (fair judging would hold
    # it for the person's rival play, which is what this test makes late on purpose).
    table = Table(
        "local",
        seats=2,
        rules=RULES,
        countdown_s=0.2,
        match_seeds=lambda number: seed,
        fairness=Fairness(Arbitration.ARRIVAL),
        # The table's clock stands still: both plays arrive in the same instant, so the ack
        # names the faster seat without a margin in ms, however loaded the machine is.
        clock=lambda: 1_000.0,
    )
    game = LocalGame(RULES, [], name="Tess", table=table, start_match=False)
    app = LigrettoApp(game)
    rival = Person(lambda message: None)

    async def scenario() -> None:
        async with app.run_test(size=(100, 30)) as pilot:
            model = app.model
            await until(pilot, lambda: model.phase is Phase.LOBBY, what="the lobby")
            table.join(rival, "Rival")
            table.start(0)
            await until(pilot, lambda: model.phase is Phase.PLAYING, what="go")
            assert table.act(1, start).events  # the rival starts a pile with its 1
            await until(pilot, lambda: model.view is not None and len(model.view.center) == 1, what="the pile")
            assert game.table.game is not None
            before = view(game.table.game, 0).areas[0]
            mine = model.me
            assert mine is not None
            shown = [list(column) for column in mine.row]
            # The rival's 2 reaches the table first; the person presses the key before its
            # events have arrived (they are queued for the app, not yet shown).
            assert table.act(1, faster).events
            app.action_row(position)
            await until(pilot, lambda: model.refusals == 1, what="the refusal")
            await until(pilot, lambda: "Beaten to it" in screen_text(app), what="the refusal drawn")
            text = screen_text(app)
            assert "Beaten to it by Rival!" in text  # the ack names who was faster
            assert model.notice_kind is Notice.REFUSED
            # Nothing was lost: the person's cards are where they were, at the table and on screen.
            assert view(game.table.game, 0).areas[0] == before
            assert model.me is not None and model.me.row == shown
            assert model.view is not None and model.view.center[0].backs == [1, 1]

    arun(scenario())


class Watcher:
    """A spectator at the table: its own client model, fed as a transport would."""

    def __init__(self) -> None:
        self.seat: int | None = None
        self.model = TableModel()

    def send(self, message: protocol.Outgoing) -> None:
        self.model.receive(protocol.as_dict(message))

    def detach(self) -> None:
        pass


def test_a_race_lost_at_a_fair_table_says_by_how_many_ms_and_everyone_sees_it(
    arun: Callable[[Coroutine[Any, Any, Any]], Any],
) -> None:
    """Fair judging (the default), in virtual time: the rival's 2 arrives first and is held
    100 ms, as the person's 2 is still in the person's row and the person was last
    measured 50 ms away (a play of it ranked earlier could still come); the person's play
    arrives 12 ms later, ranked after the rival's, and waits behind it.  The person reads who won and by how much
    (once, though the ack and the race both come), a spectator reads the race."""
    seed, start, faster, position = a_race()
    scheduler = VirtualScheduler()
    table = Table("local", seats=2, rules=RULES, countdown_s=0.2, scheduler=scheduler, match_seeds=lambda n: seed)
    game = LocalGame(RULES, [], name="Tess", table=table, start_match=False)
    app = LigrettoApp(game)
    rival, watcher = Person(lambda message: None), Watcher()

    async def scenario() -> None:
        async with app.run_test(size=(100, 30)) as pilot:
            model = app.model
            await until(pilot, lambda: model.phase is Phase.LOBBY, what="the lobby")
            assert f"Races for a pile judged fair, window {DEFAULT_WINDOW_MS} ms" in screen_text(app)
            table.join(rival, "Rival")
            table.watch(watcher)
            table.start(0)
            scheduler.advance(0.2)
            await until(pilot, lambda: model.phase is Phase.PLAYING, what="go")
            assert f"races fair, window {DEFAULT_WINDOW_MS} ms" in screen_text(app).splitlines()[0], (
                "and the title bar in play"
            )
            assert table.act(1, start) is not None, "a new pile is never held"
            await until(pilot, lambda: model.view is not None and len(model.view.center) == 1, what="the pile")
            table.judge.measured(0, 0.05)
            assert table.act(1, faster) is None, "held: the person could still be first"
            scheduler.advance(0.012)
            app.action_row(position)
            assert model.refusals == 0, "the person's play is held too"
            scheduler.advance(0.1)  # the rival's play is let go, then the person's behind it
            await until(pilot, lambda: model.refusals == 1, what="the refusal")
            await until(pilot, lambda: "faster!" in screen_text(app), what="the refusal drawn")
            text = screen_text(app)
            assert "Rival was 12 ms faster!" in text, text
            assert model.notice.startswith("Rival was 12 ms faster!") and model.notice_kind is Notice.REFUSED
            assert "beat" not in text, "the race message is not a second notice for its loser"
            assert watcher.model.notice == "Rival beat Tess to pile 1 by 12 ms"
            assert model.view is not None and model.view.center[0].backs == [1, 1]

    arun(scenario())
