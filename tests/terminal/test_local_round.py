"""A whole local match in the app, played by key presses against a ``machine`` bot:
countdown, play to Stop (or stalemate), the score sheet as the engine scores it, the next
round on Enter, and the match result."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from tui_support import play_by_keys, screen_text, sheet_rows, until

from ligretto.bots.spec import parse_bots
from ligretto.engine.rules import RuleSet
from ligretto.engine.scoring import round_seed, score_round
from ligretto.engine.state import Round
from ligretto.engine.views import view
from ligretto.terminal.app import LigrettoApp
from ligretto.terminal.local import LocalGame
from ligretto.terminal.model import Phase

RULES = RuleSet.preset("classic").replace(match_end="rounds:2")


def seed_with_a_one() -> int:
    """A match seed whose first deal shows seat 0 a 1 in its row: the person has a play at once."""
    for seed in range(1, 200):
        game = Round.deal(RULES, 2, round_seed(seed, 1))
        if any(column[-1].number == 1 for column in view(game, 0).areas[0].row):
            return seed
    raise AssertionError("no such seed")


def test_a_match_by_key_presses_shows_the_engines_score_sheet_and_the_result(
    arun: Callable[[Coroutine[Any, Any, Any]], Any],
) -> None:
    seed = seed_with_a_one()
    # A countdown of 3 s: on a loaded machine the app can take over a second to start, and the
    # test must see the first countdown before the machine-speed bot ends the round.
    game = LocalGame(RULES, parse_bots("smart:machine", 1), name="Tess", seed=seed, countdown_s=3.0)
    app = LigrettoApp(game)
    names = ["Tess (you)", "Smart bot 2"]

    async def play_round(pilot: Any, number: int) -> list[Any]:
        model = app.model
        await until(pilot, lambda: model.phase is Phase.COUNTDOWN and model.round_number == number, what="countdown")
        await until(pilot, lambda: f"Round {number} starts in" in screen_text(app), what="the countdown on screen")
        # The person sees the deal of the match seed's round (``--seed`` replays a deal).
        dealt = Round.deal(RULES, 2, round_seed(seed, number))
        assert model.view is not None and model.view.areas[0].row == [
            [str(card) for card in column] for column in view(dealt, 0).areas[0].row
        ]
        await until(pilot, lambda: model.phase is Phase.PLAYING, what="go")
        presses = await play_by_keys(pilot, model, lambda: model.phase in (Phase.SCORING, Phase.OVER))
        assert presses > 0
        await until(pilot, lambda: len(model.sheet) == number, what="the score sheet")
        finished = game.table.game
        assert finished is not None and finished.over
        text = screen_text(app)
        assert app.query_one("#sheet").display and not app.query_one("#board").display
        # The banner names who stopped the round (or says it was a stalemate).
        if finished.stopped_by is not None:
            stopper = "You" if finished.stopped_by == 0 else "Smart bot 2"
            assert f"LIGRETTO STOP! {stopper}" in text
        else:
            assert "Stalemate" in text
        # The sheet on screen is the engine's scoring of the finished round, with running totals.
        rows = sheet_rows(text, names)
        totals = game.table.match.sheet.totals() if game.table.match else ()
        for seat, score in enumerate(score_round(finished)):
            center, stack, points = rows[names[seat]][:3]
            assert (int(center), int(stack), int(points)) == (score.center, score.stack, score.score)
            assert int(rows[names[seat]][-1]) == totals[seat]
        return list(score_round(finished))

    async def scenario() -> None:
        async with app.run_test(size=(100, 32)) as pilot:
            first = await play_round(pilot, 1)
            assert first[0].center > 0, "the person's keys put cards in the center"
            assert "Enter: ready for the next round" in screen_text(app)
            await pilot.press("enter")
            second = await play_round(pilot, 2)
            text = screen_text(app)
            totals = [a.score + b.score for a, b in zip(first, second, strict=True)]
            best = max(totals)
            winners = [names[seat].removesuffix(" (you)") for seat, total in enumerate(totals) if total == best]
            assert f"Match over: {', '.join(winners)}" in text
            assert f"with {best} points" in text
            assert app.model.phase is Phase.OVER

    arun(scenario())
