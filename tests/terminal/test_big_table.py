"""The table at 2, 6 and 12 seats, at the documented minimum of 80 × 24 and at 120 × 40:
every opponent on screen with a name that can be told apart, and every status line
(a race, a refusal, the Stop banner) in sight, never scrolled away.

One app per number of seats: a real server ``Table`` in the app's process (``LocalGame``)
with the opponents seated by the test.  The refusal is a real lost race (``racedeals``);
the race note is the table's ``race`` message (``messages.race``) sent to the person as
the table sends it; the round is played out by smart bots' choices sent straight to the
table, to its Stop.  The terminal is resized between the two sizes at every step, so
each check is made at both."""

from __future__ import annotations

import io
from collections.abc import Callable, Coroutine
from typing import Any

import pytest
from rich.cells import cell_len
from rich.console import Console
from tui_support import screen_text, until

import racedeals
from ligretto.bots.spec import BotSpec
from ligretto.engine.events import Ending
from ligretto.engine.races import Arbitration, Fairness
from ligretto.engine.rules import RuleSet
from ligretto.server.table import messages
from ligretto.server.table.table import Table
from ligretto.terminal.app import LigrettoApp
from ligretto.terminal.faces import label
from ligretto.terminal.layout import COMPACT
from ligretto.terminal.local import LocalGame, Person
from ligretto.terminal.model import Phase
from ligretto.terminal.sheet import ScoreLine, SheetRound
from ligretto.terminal.sheetview import sheet_table

RULES = RuleSet().replace(match_end="rounds:1")
SMALL, BIG = (80, 24), (120, 40)


def name(seat: int) -> str:
    """Seat ``seat``'s name: ``Smart bot 2`` ... ``Smart bot 12``, every third one long
    (24 characters: ``Bartholomew Smart bot 10``), so that the end that tells them apart
    must survive the cut."""
    return ("Bartholomew " if seat % 3 == 0 else "") + f"Smart bot {seat + 1}"


def opponent_names(text: str) -> list[str]:
    """The names on the opponents' lines, in order (a line with a stack, a discard and a
    hand in lower case: the own area writes them capitalised)."""
    lines = [line.strip(" │") for line in text.splitlines() if all(w in line for w in ("stack ", "discard ", "hand "))]
    return [line.split("  ")[0] for line in lines]


def play_out(table: Table) -> None:
    """Every seat plays a smart bot's choices, straight to the table, until the round ends."""
    game = table.game
    assert game is not None
    drivers = [BotSpec("smart", "machine").driver(game, seat, table.round_key) for seat in range(game.players)]
    for _ in range(20_000):
        for driver in drivers:
            _, action = driver.plan()
            if action is not None and not game.over:
                table.act(driver.seat, action)
        if game.over:
            return
    raise AssertionError("the round never ended")


@pytest.mark.parametrize("players", [2, 6, 12])
def test_every_opponent_and_every_status_line_show_at_80x24_and_bigger(
    players: int, arun: Callable[[Coroutine[Any, Any, Any]], Any]
) -> None:
    seed, start, mine, faster = racedeals.a_race(RULES, players)  # seat 1's 1, both seats' 2 of its colour
    pile = 0
    # Judged by arrival on a clock that stands still: the rival's 2 takes effect at once,
    # and the person's, pressed before its events are drawn, is refused without a margin.
    table = Table(
        "local",
        seats=players,
        rules=RULES,
        countdown_s=0.2,
        match_seeds=lambda number: seed,
        fairness=Fairness(Arbitration.ARRIVAL),
        clock=lambda: 1_000.0,
    )
    game = LocalGame(RULES, [], name="Tess", table=table, start_match=False)
    app = LigrettoApp(game)
    rivals = {seat: name(seat) for seat in range(1, players)}
    compact_at_80x24 = players == 12  # 6 fit in boxes; 12 need the compact layout

    async def scenario() -> None:
        async with app.run_test(size=SMALL) as pilot:
            model = app.model

            async def at(size: tuple[int, int]) -> str:
                """The screen's text at ``size`` (resized), after a look at the layout."""
                await pilot.resize_terminal(*size)
                await pilot.pause()
                await until(pilot, lambda: app.size == size, what=f"the size {size}")
                assert app.screen.has_class(COMPACT) is (compact_at_80x24 and size == SMALL), size
                return screen_text(app)

            async def shown(what: str, where: str = "#status") -> None:
                """``what`` is in the widget ``where``, and all of it is on screen, at both sizes."""
                for size in (SMALL, BIG):
                    text = await at(size)
                    region = app.query_one(where).region
                    assert region.height > 0 and region.bottom <= size[1] - 1, f"{where} off screen at {size}:\n{text}"
                    inside = " ".join(line.strip() for line in text.splitlines()[region.y : region.bottom])
                    assert what in inside, f"{what!r} not in {where} at {size}:\n{text}"

            await until(pilot, lambda: model.phase is Phase.LOBBY, what="the lobby")
            for rival in rivals.values():
                table.join(Person(lambda message: None), rival)
            await until(pilot, lambda: len([p for p in model.people if p]) == players, what="everyone seated")
            for size in (SMALL, BIG):
                text = await at(size)
                for seat, rival in rivals.items():
                    assert f"seat {seat + 1}: {rival}" in text, f"seat {seat + 1} not in the lobby at {size}:\n{text}"
                assert "Enter starts the match" in text

            table.start(0)
            await until(pilot, lambda: model.phase is Phase.PLAYING, what="go")
            # Every opponent, in seat order, by a name that ends with its own number; the
            # own area and the status line under them.
            for size in (SMALL, BIG):
                text = await at(size)
                names = opponent_names(text)
                assert len(names) == players - 1, f"{len(names)} opponents on screen at {size}:\n{text}"
                for (seat, rival), shown_as in zip(rivals.items(), names, strict=True):
                    assert shown_as.endswith(f" {seat + 1}"), (shown_as, rival, size)
                    assert shown_as == rival or (size == SMALL and "…" in shown_as), (shown_as, rival, size)
                assert len(set(names)) == len(names)
                assert "round 1 of 1 · races by arrival" in text.splitlines()[0]
                assert "Row      1 " in text and "(Space turns)" in text
                assert "Playing: no turns, play as fast as you can!" in text

            # A race between two others, as the table tells everyone (the person's own
            # when only one other plays).
            assert table.act(1, start) is not None
            await until(pilot, lambda: model.view is not None and len(model.view.center) == 1, what="the pile")
            winner, loser = (1, 2) if players > 2 else (0, 1)
            assert game.person is not None
            game.person.send(messages.race(1, pile, winner, loser, 12))
            said = f"{'You' if winner == 0 else rivals[winner]} beat {rivals[loser]} to pile 1 by 12 ms"
            await shown(said)

            # A refusal: the rival's 2 reaches the pile first, the person's key before its events are drawn.
            assert table.act(1, faster) is not None
            app.action_row(mine.position)
            await until(pilot, lambda: model.refusals == 1, what="the refusal")
            card = label(str(mine.card))
            await shown(f"Beaten to it by {rivals[1]}! {card} to pile 1 no longer fits: the card stays where it was")

            # The Stop: its banner stays on the score sheet, with the sheet and the result.
            play_out(table)
            await until(pilot, lambda: model.phase is Phase.OVER and bool(model.sheet), what="the score sheet")
            assert table.game is not None and table.game.ending is Ending.STOP
            stopper = table.game.stopped_by
            assert stopper is not None
            who = "You emptied your" if stopper == 0 else f"{model.name(stopper)} emptied their"
            await shown(f"LIGRETTO STOP! {who} Ligretto stack")
            await shown("Match over: ", "#sheet")
            for size in (SMALL, BIG):
                text = await at(size)
                rows = [line for line in text.splitlines() if line.startswith(" │ ")]
                assert len(rows) == players, f"{len(rows)} lines on the sheet at {size}:\n{text}"
                for seat, row in enumerate(rows):
                    shown_as = row.split("│")[1].strip()
                    assert shown_as.endswith(" (you)" if seat == 0 else f" {seat + 1}"), (shown_as, size)
                assert not app.query_one("#own").display, "the sheet has the own line"
        assert app.return_code in (None, 0), "the app crashed"

    arun(scenario())


def test_a_long_match_of_twelve_fits_its_sheet_in_80_columns() -> None:
    """Fifteen rounds of twelve players (a match to a target runs long): the sheet keeps
    every name told apart and the latest rounds, and leaves the oldest out."""
    lines = tuple(ScoreLine(center=10, stack=10, score=-10) for _ in range(12))
    rounds = tuple(SheetRound("stop", 0, lines, tuple(-10 * n for _ in range(12))) for n in range(1, 16))
    names = [("Tess", " (you)"), *((name(seat), "") for seat in range(1, 12))]
    console = Console(width=78, file=io.StringIO(), record=True, color_system=None)
    console.print(sheet_table(rounds, names, 78))
    text = console.export_text()
    assert max(cell_len(line) for line in text.splitlines()) <= 78
    heading = [cell.strip() for cell in text.splitlines()[1].split("┃") if cell.strip()]
    assert heading[:4] == ["Player", "Center", "Stack", "Round 15"] and heading[-1] == "Total"
    earlier = heading[4:-1]
    assert earlier and earlier == [f"R{n}" for n in range(15 - len(earlier), 15)], "the latest rounds stay"
    rows = [[cell.strip() for cell in row.split("│")[1:-1]] for row in text.splitlines() if row.startswith("│")]
    shown = [row[0] for row in rows]
    assert shown[0] == "Tess (you)" and all(shown[seat].endswith(f" {seat + 1}") for seat in range(1, 12)), shown
    assert {row[-1] for row in rows} == {"-150"}, "the total counts the rounds left out"
