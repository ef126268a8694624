"""Names are text: people named like Rich markup (``[/x]`` closes a tag never opened,
``[red]x`` styles, ``[link=...]`` links) show exactly as written in the waiting room, on
the board and on the score sheet, and the app does not crash.

A local table (the server's ``Table`` in the app's process) with three more people seated
by the test; the round is played out by smart bots' choices sent straight to the table.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from rich.text import Text
from tui_support import screen_text, sheet_rows, until

from ligretto.bots.spec import BotSpec
from ligretto.engine.races import Arbitration, Fairness
from ligretto.engine.rules import RuleSet
from ligretto.engine.scoring import score_round
from ligretto.server.table.table import Table
from ligretto.terminal.app import LigrettoApp, ServerMessage
from ligretto.terminal.local import LocalGame, Person
from ligretto.terminal.model import Phase
from ligretto.terminal.widgets import literal

NAMES = ["[/x]", "[red]x", "[link=http://x]x[/link]"]
RULES = RuleSet().replace(match_end="rounds:1")


def test_literal_text_reads_no_markup() -> None:
    for name in NAMES:
        text = literal(name, "bold")
        assert isinstance(text, Text) and text.plain == name and text.spans == []
        assert str(text.style) == "bold"


def _play_out(table: Table, seats: int) -> int:
    """Every seat plays a smart bot's choices, straight to the table, until the round ends."""
    game = table.game
    assert game is not None
    drivers = [BotSpec("smart", "machine").driver(game, seat, table.round_key) for seat in range(seats)]
    actions = 0
    while not game.over:
        assert actions < 20_000, "the round never ended"
        for driver in drivers:
            _, action = driver.plan()
            if action is not None and not game.over:
                table.act(driver.seat, action)
                actions += 1
    return actions


def test_names_like_markup_show_as_written_in_the_lobby_on_the_board_and_on_the_score_sheet(
    arun: Callable[[Coroutine[Any, Any, Any]], Any],
) -> None:
    # Judged by arrival: the round is played out in one go, without giving held plays time.
    table = Table(
        "local",
        seats=4,
        rules=RULES,
        countdown_s=0.2,
        match_seeds=lambda number: 11,
        fairness=Fairness(Arbitration.ARRIVAL),
    )
    game = LocalGame(RULES, [], name="Tess", table=table, start_match=False)
    app = LigrettoApp(game)
    people = [Person(lambda message: None) for _ in NAMES]

    async def scenario() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            model = app.model
            await until(pilot, lambda: model.phase is Phase.LOBBY, what="the lobby")
            for person, name in zip(people, NAMES, strict=True):
                table.join(person, name)
            await until(pilot, lambda: len([p for p in model.people if p]) == 4, what="everyone seated")
            text = screen_text(app)
            for seat, name in enumerate(NAMES, start=1):
                assert f"seat {seat + 1}: {name}" in text, f"{name!r} not shown as written in the lobby:\n{text}"

            table.start(0)
            await until(pilot, lambda: model.phase is Phase.PLAYING, what="go")
            text = screen_text(app)
            for name in NAMES:
                assert name in text, f"{name!r} not shown as written on the board:\n{text}"

            assert _play_out(table, 4) > 0
            await until(pilot, lambda: model.phase is Phase.OVER and len(model.sheet) == 1, what="the score sheet")
            text = screen_text(app)
            assert app.query_one("#sheet").display
            rows = sheet_rows(text, ["Tess (you)", *NAMES])
            assert set(rows) == {"Tess (you)", *NAMES}, f"the score sheet does not show every name as written:\n{text}"
            finished = table.game
            assert finished is not None
            shown = ["Tess (you)", *NAMES]
            for seat, score in enumerate(score_round(finished)):
                center, stack, points, total = (int(cell) for cell in rows[shown[seat]])
                assert (center, stack, points, total) == (score.center, score.stack, score.score, score.score)
            assert model.winners is not None
            winners = ", ".join(["Tess", *NAMES][seat] for seat in model.winners)
            assert f"Match over: {winners} win" in text, text
        assert app.return_code in (None, 0), "the app crashed"

    arun(scenario())


def test_a_message_that_arrives_while_the_app_closes_changes_nothing_on_screen(
    arun: Callable[[Coroutine[Any, Any, Any]], Any],
) -> None:
    """The transport may deliver one last message (a pong of local play's pings) after the
    app's widgets are gone: it is read into the model, and nothing is drawn."""
    table = Table("local", seats=2, rules=RULES, countdown_s=0.2)
    game = LocalGame(RULES, [], name="Tess", table=table, start_match=False)
    app = LigrettoApp(game)

    async def scenario() -> None:
        async with app.run_test(size=(100, 30)) as pilot:
            await until(pilot, lambda: app.model.phase is Phase.LOBBY, what="the lobby")
        assert not app.query("#lobby"), "the widgets are gone once the app closed"
        app.on_server_message(ServerMessage({"type": "pong", "t": 1.0, "server_t": 2.0}, 1.5))

    arun(scenario())
