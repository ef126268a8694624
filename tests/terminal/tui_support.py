"""Helpers for the terminal client's tests: the screen as text, waiting for a condition,
a simple key policy, a transport that replays messages, and a real ``ligretto serve``."""

from __future__ import annotations

import io
import time
from collections.abc import Callable
from typing import Any

from rich.console import Console
from textual.app import App
from textual.pilot import Pilot

from ligretto.client.clocksync import ClockSync
from ligretto.client.session import Session
from ligretto.terminal.model import Phase, TableModel
from ligretto.terminal.transport import Deliver


def screen_text(app: App[Any]) -> str:
    """What the screen shows, as plain text (the compositor's output, without styles)."""
    console = Console(
        width=app.size.width,
        height=app.size.height,
        file=io.StringIO(),
        record=True,
        color_system=None,
        legacy_windows=False,
    )
    console.print(app.screen._compositor.render_update(full=True))
    return console.export_text()


async def until(pilot: Pilot[Any], condition: Callable[[], bool], timeout: float = 10.0, what: str = "") -> None:
    """Let the app run until ``condition`` holds (fails after ``timeout`` seconds)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what or condition}:\n{screen_text(pilot.app)}")
        await pilot.pause(0.02)
    await pilot.pause()  # let the screen catch up with the model


async def host_into_play(pilot: Pilot[Any], model: TableModel) -> None:
    """The host of a remote table of two seats (``model``: the app's): seated,
    adds the bot (``b``), starts (Enter) and, once the round is on, turns the hand once."""
    await until(pilot, lambda: model.phase is Phase.LOBBY and model.seat == 0, what="the seat")
    await pilot.press("b")
    await until(pilot, lambda: sum(p is not None for p in model.people) == 2, what="the bot")
    await pilot.press("enter")
    await until(pilot, lambda: model.phase is Phase.PLAYING, what="go")
    await pilot.press("space")
    await until(pilot, lambda: model.me is not None and model.me.discard_size == 3, what="the turn")


class Policy:
    """What a quick player presses: a card that fits (row, stack, discard), else Space; once
    the whole hand went by without the center changing, ``v`` (once)."""

    def __init__(self) -> None:
        self.center = -1
        self.turns = 0

    def key(self, model: TableModel) -> str | None:
        area, view = model.me, model.view
        if area is None or view is None or view.ending is not None:
            return None
        for position in range(len(area.row)):
            card = area.exposed(position)
            if card is not None and view.target_pile(card) is not None:
                return str(position + 1)
        for key, card in (("s", area.stack_top), ("d", area.discard_top)):
            if card is not None and view.target_pile(card) is not None:
                return key
        total = sum(pile.top for pile in view.center)
        if total != self.center:
            self.center, self.turns = total, 0
        cards = area.hand_size + area.discard_size
        if self.turns * 3 >= cards + 3 or cards == 0:
            return None if area.voted else "v"
        self.turns += 1
        return "space"


async def play_by_keys(pilot: Pilot[Any], model: TableModel, done: Callable[[], bool], timeout: float = 40.0) -> int:
    """Press the policy's keys until ``done``; returns how many keys were pressed."""
    policy = Policy()
    presses = 0
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            raise AssertionError(f"the round did not end within {timeout} s:\n{screen_text(pilot.app)}")
        key = policy.key(model)
        if key is None:
            await pilot.pause(0.05)
            continue
        await pilot.press(key)
        presses += 1
        await pilot.pause(0.02)
    return presses


class Replay:
    """A transport that delivers given messages on start and keeps what the app sends."""

    description = "replay"

    def __init__(self, messages: list[dict[str, Any]], site: str | None = None) -> None:
        self.messages = messages
        self.site = site
        self.sent: list[dict[str, Any]] = []
        self.deliver: Deliver | None = None
        self.session = Session()

    def start(self, deliver: Deliver, clock: ClockSync | None = None) -> None:
        self.deliver = deliver
        for message in self.messages:
            deliver(message)

    def send(self, message: dict[str, Any]) -> None:
        self.sent.append(message)

    async def close(self) -> None:
        pass


def sheet_rows(text: str, names: list[str]) -> dict[str, list[str]]:
    """The score sheet's rows on screen: each player's cells after the name."""
    rows = {}
    for line in text.splitlines():
        cells = [cell.strip() for cell in line.split("│")]
        cells = [cell for cell in cells if cell]
        if cells and cells[0] in names:
            rows[cells[0]] = cells[1:]
    return rows
